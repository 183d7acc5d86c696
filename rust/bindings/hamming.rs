//! The SimHash part of `neardup._core`: Hamming distances of pairs and the search within a
//! radius (`rust/hamming/`), converted with the helpers of the parent module.

use super::{contiguous, pair_matrix, pairs_vec, run, PairsAnd};
use crate::verify;
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::prelude::*;

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(hamming, m)?)?;
    m.add_function(wrap_pyfunction!(hamming_within, m)?)?;
    m.add_function(wrap_pyfunction!(hamming_search_plan, m)?)?;
    Ok(())
}

#[pyfunction]
fn hamming<'py>(
    py: Python<'py>,
    fingerprints: PyReadonlyArray2<'py, u64>,
    pairs: PyReadonlyArray2<'py, i64>,
) -> PyResult<Bound<'py, PyArray1<i32>>> {
    let words = fingerprints.shape()[1];
    let data = contiguous(&fingerprints, "fingerprints")?;
    let pairs = pairs_vec(&pairs)?;
    Ok(run(py, || verify::hamming_pairs(data, words, &pairs))?.into_pyarray(py))
}

#[pyfunction]
#[pyo3(signature = (fingerprints, max_distance, active, threads=1))]
fn hamming_within<'py>(
    py: Python<'py>,
    fingerprints: PyReadonlyArray2<'py, u64>,
    max_distance: u32,
    active: PyReadonlyArray1<'py, bool>,
    threads: usize,
) -> PairsAnd<'py, i32> {
    let words = fingerprints.shape()[1];
    let data = contiguous(&fingerprints, "fingerprints")?;
    let active = contiguous(&active, "active")?;
    let (pairs, distances) = run(py, || {
        verify::hamming_within(data, words, max_distance, active, threads)
    })?;
    Ok((pair_matrix(py, pairs)?, distances.into_pyarray(py)))
}

/// (search, distinct fingerprints, predicted comparisons, predicted seconds, brute-force
/// comparisons) of the search `hamming_within` runs on these fingerprints.
#[pyfunction]
#[pyo3(signature = (fingerprints, max_distance, active, threads=1))]
fn hamming_search_plan<'py>(
    py: Python<'py>,
    fingerprints: PyReadonlyArray2<'py, u64>,
    max_distance: u32,
    active: PyReadonlyArray1<'py, bool>,
    threads: usize,
) -> PyResult<(String, usize, f64, f64, f64)> {
    let words = fingerprints.shape()[1];
    let data = contiguous(&fingerprints, "fingerprints")?;
    let active = contiguous(&active, "active")?;
    let plan = run(py, || {
        crate::hamming::plan(data, words, max_distance, active, threads)
    })?;
    Ok((
        plan.describe(),
        plan.distinct,
        plan.comparisons,
        plan.seconds,
        plan.brute_force_comparisons,
    ))
}
