//! The engine's sign pass in `neardup._core`: `sign_texts` (MinHash) and `simhash_sign_texts`
//! (SimHash), each one pass over a batch's texts giving signatures, set digests, set offsets
//! and the sets kept (`crate::signing`).

use super::{matrix, run, Hashes, Texts};
use crate::error::Error;
use crate::hashing::HashVersion;
use crate::minhash::Algorithm;
use crate::shingle::Unit;
use crate::signing::{self, KeptSets, SignedTexts};
use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadwriteArray1};
use pyo3::prelude::*;

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(sign_texts, m)?)?;
    m.add_function(wrap_pyfunction!(simhash_sign_texts, m)?)?;
    Ok(())
}

/// (signatures, set digests, set offsets, the sets' hashes or None): one pass for the engine.
type SignedArrays<'py, W> = (
    Bound<'py, PyArray2<W>>,
    Bound<'py, PyArray2<u64>>,
    Bound<'py, PyArray1<i64>>,
    Option<Hashes<'py>>,
);

/// Where the sets go: nowhere (`keep_sets` false), a new vector, or `into` from `at` on.
fn kept<'a>(keep_sets: bool, into: Option<&'a mut [u64]>, at: usize) -> PyResult<KeptSets<'a>> {
    Ok(match into {
        _ if !keep_sets => KeptSets::Not,
        Some(buffer) => {
            let slots = buffer.len();
            let rest = buffer.get_mut(at..).ok_or_else(|| {
                Error::new(format!("at = {at} is past the buffer's {slots} slots"))
            })?;
            KeptSets::Into(rest)
        }
        None => KeptSets::Own,
    })
}

/// The C-contiguous slice of `into`, if given.
fn slice<'a>(into: &'a mut Option<PyReadwriteArray1<'_, u64>>) -> PyResult<Option<&'a mut [u64]>> {
    match into.as_mut() {
        Some(array) => {
            Ok(Some(array.as_slice_mut().map_err(|_| {
                Error::new("into must be a C-contiguous array")
            })?))
        }
        None => Ok(None),
    }
}

fn arrays<'py, W: numpy::Element>(
    py: Python<'py>,
    signed: SignedTexts<W>,
    width: usize,
) -> PyResult<SignedArrays<'py, W>> {
    Ok((
        matrix(py, signed.signatures, width)?,
        matrix(py, signed.digests, 2)?,
        signed.offsets.into_pyarray(py),
        signed.hashes.map(|h| h.into_pyarray(py)),
    ))
}

#[pyfunction]
#[pyo3(signature = (texts, k, unit, hash_version, num_perm, seed, algorithm, threads, keep_sets, into=None, at=0))]
#[allow(clippy::too_many_arguments)] // the Python signature
fn sign_texts<'py>(
    py: Python<'py>,
    texts: &Bound<'py, PyAny>,
    k: usize,
    unit: &str,
    hash_version: u32,
    num_perm: usize,
    seed: u64,
    algorithm: &str,
    threads: usize,
    keep_sets: bool,
    into: Option<PyReadwriteArray1<'py, u64>>,
    at: usize,
) -> PyResult<SignedArrays<'py, u32>> {
    let unit = Unit::parse(unit)?;
    let algorithm = Algorithm::parse(algorithm)?;
    let version = HashVersion::new(hash_version)?;
    let holder = Texts::borrow(texts)?;
    let strs = holder.strs()?;
    let mut into = into;
    let keep = kept(keep_sets, slice(&mut into)?, at)?;
    let signed = run(py, || {
        signing::sign_texts(
            &strs, k, unit, version, num_perm, seed, algorithm, threads, keep,
        )
    })?;
    arrays(py, signed, num_perm)
}

/// `sign_texts` with unweighted SimHash fingerprints (uint64[n, bits / 64], the bits of
/// `simhash_sets` over the sets) instead of MinHash signatures.
#[pyfunction]
#[pyo3(signature = (texts, k, unit, hash_version, bits, threads, keep_sets, into=None, at=0))]
#[allow(clippy::too_many_arguments)] // the Python signature
fn simhash_sign_texts<'py>(
    py: Python<'py>,
    texts: &Bound<'py, PyAny>,
    k: usize,
    unit: &str,
    hash_version: u32,
    bits: usize,
    threads: usize,
    keep_sets: bool,
    into: Option<PyReadwriteArray1<'py, u64>>,
    at: usize,
) -> PyResult<SignedArrays<'py, u64>> {
    let unit = Unit::parse(unit)?;
    let version = HashVersion::new(hash_version)?;
    let holder = Texts::borrow(texts)?;
    let strs = holder.strs()?;
    let mut into = into;
    let keep = kept(keep_sets, slice(&mut into)?, at)?;
    let signed = run(py, || {
        signing::simhash_sign_texts(&strs, k, unit, version, bits, threads, keep)
    })?;
    arrays(py, signed, bits / 64)
}
