//! The engine's sign pass in `neardup._core`: `sign_texts` (MinHash) and `simhash_sign_texts`
//! (SimHash), each one pass over a batch's texts giving signatures, set digests, set offsets
//! and the sets kept (`crate::signing`).

use super::{matrix, run, Hashes, Texts};
use crate::error::Result;
use crate::hashing::HashVersion;
use crate::minhash::Algorithm;
use crate::shingle::Unit;
use crate::signing::{self, KeptSets, SignedTexts};
use numpy::{IntoPyArray, PyArray1, PyArray2};
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

/// The one pass `sign` over `texts` (unit and hash version parsed, the sets kept in a new
/// vector where `keep_sets` says), as arrays of `width` signature words per document.
fn one_pass<'py, W: numpy::Element + Send>(
    py: Python<'py>,
    texts: &Bound<'py, PyAny>,
    unit: &str,
    hash_version: u32,
    keep_sets: bool,
    width: usize,
    sign: impl FnOnce(&[&str], Unit, HashVersion, KeptSets<'_>) -> Result<SignedTexts<W>> + Send,
) -> PyResult<SignedArrays<'py, W>> {
    let unit = Unit::parse(unit)?;
    let version = HashVersion::new(hash_version)?;
    let holder = Texts::borrow(texts)?;
    let strs = holder.strs()?;
    let keep = if keep_sets {
        KeptSets::Own
    } else {
        KeptSets::Not
    };
    let signed = run(py, || sign(&strs, unit, version, keep))?;
    Ok((
        matrix(py, signed.signatures, width)?,
        matrix(py, signed.digests, 2)?,
        signed.offsets.into_pyarray(py),
        signed.hashes.map(|h| h.into_pyarray(py)),
    ))
}

#[pyfunction]
#[pyo3(signature = (texts, k, unit, hash_version, num_perm, seed, algorithm, threads, keep_sets))]
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
) -> PyResult<SignedArrays<'py, u32>> {
    let algorithm = Algorithm::parse(algorithm)?;
    let sign = |strs: &[&str], unit: Unit, version: HashVersion, keep: KeptSets<'_>| {
        signing::sign_texts(
            strs, k, unit, version, num_perm, seed, algorithm, threads, keep, None,
        )
    };
    one_pass(py, texts, unit, hash_version, keep_sets, num_perm, sign)
}

/// `sign_texts` with unweighted SimHash fingerprints (uint64[n, bits / 64], the bits of
/// `simhash_sets` over the sets) instead of MinHash signatures.
#[pyfunction]
#[pyo3(signature = (texts, k, unit, hash_version, bits, threads, keep_sets))]
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
) -> PyResult<SignedArrays<'py, u64>> {
    let sign = |strs: &[&str], unit: Unit, version: HashVersion, keep: KeptSets<'_>| {
        signing::simhash_sign_texts(strs, k, unit, version, bits, threads, keep, None)
    };
    one_pass(py, texts, unit, hash_version, keep_sets, bits / 64, sign)
}
