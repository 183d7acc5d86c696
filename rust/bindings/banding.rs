//! The banding choice of `neardup._core`: the recall-first search, the banding sample and the
//! cost model (`rust/lsh/choose.rs`, `rust/lsh/sample.rs`), converted with the helpers of the
//! parent module; the GIL is released around the work.

use super::{contiguous, matrix, run, signature_rows};
use crate::error::Error;
use crate::lsh::{choose, sample, Corpus};
use crate::near::{BandingPlan, BandingSample};
use numpy::{
    IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods,
};
use pyo3::prelude::*;

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(lsh_recall_bandings, m)?)?;
    m.add_function(wrap_pyfunction!(lsh_recall_params, m)?)?;
    m.add_function(wrap_pyfunction!(sample_keys, m)?)?;
    m.add_function(wrap_pyfunction!(banding_sample, m)?)?;
    m.add_function(wrap_pyfunction!(choose_banding, m)?)?;
    m.add_function(wrap_pyfunction!(decide_banding, m)?)?;
    // the crate's constants, which `neardup.banding` reads rather than copies
    m.add("DEFAULT_RECALL", choose::DEFAULT_RECALL)?;
    m.add("BUCKET_LIMIT", choose::BUCKET_LIMIT)?;
    m.add("SAMPLE_SIZE", choose::SAMPLE_SIZE)?;
    m.add("STEEPEST", choose::STEEPEST)?;
    m.add("DOCUMENT_COST", choose::DOCUMENT_COST)?;
    m.add("CANDIDATE_COST", choose::CANDIDATE_COST)?;
    m.add("MERGE_COST", choose::MERGE_COST)?;
    Ok(())
}

/// The flat lanes of digests uint64[n, 2].
fn digest_lanes<'a>(digests: &'a PyReadonlyArray2<'_, u64>) -> Result<&'a [u64], Error> {
    if digests.shape()[1] != 2 {
        return Err(Error::new(format!(
            "digests must be uint64[n, 2], got {} columns",
            digests.shape()[1]
        )));
    }
    contiguous(digests, "digests")
}

#[pyfunction]
fn lsh_recall_bandings(
    py: Python<'_>,
    threshold: f64,
    num_perm: usize,
    recall: f64,
) -> PyResult<Vec<(usize, usize)>> {
    run(py, || choose::recall_bandings(threshold, num_perm, recall))
}

#[pyfunction]
fn lsh_recall_params(
    py: Python<'_>,
    threshold: f64,
    num_perm: usize,
    recall: f64,
) -> PyResult<(usize, usize)> {
    run(py, || choose::recall_params(threshold, num_perm, recall))
}

#[pyfunction]
fn sample_keys<'py>(
    py: Python<'py>,
    digests: PyReadonlyArray2<'py, u64>,
) -> PyResult<Bound<'py, PyArray1<u64>>> {
    let lanes = digest_lanes(&digests)?;
    Ok(run(py, || sample::sample_keys(lanes))?.into_pyarray(py))
}

/// (digests uint64[m, 2], signatures uint32[m, P], shingle counts int64[m]) of the sample.
type Sample<'py> = PyResult<(
    Bound<'py, PyArray2<u64>>,
    Bound<'py, PyArray2<u32>>,
    Bound<'py, PyArray1<i64>>,
)>;

#[pyfunction]
#[pyo3(signature = (digests, signatures, size, sizes=None))]
fn banding_sample<'py>(
    py: Python<'py>,
    digests: PyReadonlyArray2<'py, u64>,
    signatures: PyReadonlyArray2<'py, u32>,
    size: usize,
    sizes: Option<PyReadonlyArray1<'py, i64>>,
) -> Sample<'py> {
    let lanes = digest_lanes(&digests)?;
    let (width, slots) = signature_rows(&signatures)?;
    let counts = sizes.as_ref().map(|s| contiguous(s, "sizes")).transpose()?;
    let (d, s, c) = run(py, || {
        sample::banding_sample(lanes, slots, width, size, counts)
    })?;
    Ok((matrix(py, d, 2)?, matrix(py, s, width)?, c.into_pyarray(py)))
}

/// (bands, rows, expected recall, predicted candidates, reason) of `neardup.Banding`.
pub(super) type Chosen = (usize, usize, f64, Option<u128>, String);

#[pyfunction]
#[pyo3(signature = (
    threshold, num_perm, exact, recall, bucket_limit,
    signatures=None, positions=None, sizes=None, sign_pass=None, n=None,
))]
#[allow(clippy::too_many_arguments)] // the Python signature
fn choose_banding(
    py: Python<'_>,
    threshold: f64,
    num_perm: usize,
    exact: bool,
    recall: f64,
    bucket_limit: Option<usize>,
    signatures: Option<PyReadonlyArray2<'_, u32>>,
    positions: Option<PyReadonlyArray1<'_, u64>>,
    sizes: Option<PyReadonlyArray1<'_, f64>>,
    sign_pass: Option<(u64, u64)>,
    n: Option<u64>,
) -> PyResult<Chosen> {
    let corpus = match &signatures {
        None => None,
        Some(signatures) => {
            let (width, slots) = signature_rows(signatures)?;
            let positions = match &positions {
                None => None,
                Some(p) => Some(
                    contiguous(p, "positions")?
                        .iter()
                        .map(|&row| usize::try_from(row).unwrap_or(usize::MAX))
                        .collect::<Vec<usize>>(),
                ),
            };
            Some((width, slots, positions))
        }
    };
    let sizes = sizes.as_ref().map(|s| contiguous(s, "sizes")).transpose()?;
    let chosen = run(py, || {
        let corpus = corpus.as_ref().map(|(width, slots, positions)| Corpus {
            signatures: slots,
            width: *width,
            positions: positions.as_deref(),
            sizes,
            sign_pass,
            n,
        });
        choose::choose(threshold, num_perm, exact, recall, bucket_limit, corpus)
    })?;
    Ok(chosen_fields(chosen))
}

/// A banding as Python sees it (``Chosen``).
pub(super) fn chosen_fields(chosen: choose::Banding) -> Chosen {
    (
        chosen.bands,
        chosen.rows,
        chosen.expected_recall,
        chosen.predicted_candidates,
        chosen.reason,
    )
}

/// The banding of a MinHash run (`rust/near/stage.rs`'s `decide_banding`, the one decision
/// every executor makes): the plan's (`bands`, `rows`) when `given` or without a `sample`,
/// else the choice from the `sample` signatures (with their shingle counts `sizes`) of `n`
/// distinct sets against the sign pass's (documents, shingles), as ``Chosen``.
#[pyfunction]
#[pyo3(signature = (
    threshold, num_perm, exact, bucket_limit, bands, rows, *, given, sample=None, sizes=None,
    n=0, sign_pass=None
))]
#[allow(clippy::too_many_arguments)] // the Python signature
fn decide_banding(
    py: Python<'_>,
    threshold: f64,
    num_perm: usize,
    exact: bool,
    bucket_limit: Option<usize>,
    bands: usize,
    rows: usize,
    given: bool,
    sample: Option<PyReadonlyArray2<'_, u32>>,
    sizes: Option<PyReadonlyArray1<'_, f64>>,
    n: u64,
    sign_pass: Option<(u64, u64)>,
) -> PyResult<Chosen> {
    let plan = BandingPlan {
        threshold,
        bands,
        rows,
        given,
        exact,
        bucket_limit,
        num_perm,
    };
    let signatures = sample.as_ref().map(signature_rows).transpose()?;
    let sizes = sizes.as_ref().map(|s| contiguous(s, "sizes")).transpose()?;
    let chosen = run(py, || {
        crate::lsh::check_threshold(threshold)?;
        let sample = signatures.map(|(width, signatures)| BandingSample {
            signatures,
            width,
            sizes,
            n,
            sign_pass,
        });
        crate::near::decide_banding(plan, sample)
    })?;
    Ok(chosen_fields(chosen))
}
