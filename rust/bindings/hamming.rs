//! The SimHash part of `neardup._core`: Hamming distances of pairs and the search within a
//! radius (`rust/hamming/`), converted with the helpers of the parent module.

use super::{contiguous, pair_matrix, pairs_vec, run, PairsAnd};
use crate::verify;
use numpy::{
    IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods,
};
use pyo3::prelude::*;

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(hamming, m)?)?;
    m.add_function(wrap_pyfunction!(hamming_within, m)?)?;
    m.add_function(wrap_pyfunction!(hamming_search_plan, m)?)?;
    m.add_function(wrap_pyfunction!(hamming_sample_plan, m)?)?;
    m.add_function(wrap_pyfunction!(hamming_table_within, m)?)?;
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
    let (pairs, distances) = super::run_interruptible(py, active.len(), || {
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
) -> PyResult<PlanFields> {
    let words = fingerprints.shape()[1];
    let data = contiguous(&fingerprints, "fingerprints")?;
    let active = contiguous(&active, "active")?;
    let plan = run(py, || {
        crate::hamming::plan(data, words, max_distance, active, threads)
    })?;
    Ok(plan_fields(&plan))
}

/// The five figures of a plan, as `hamming_search_plan` returns them.
pub(super) fn plan_fields(plan: &crate::hamming::SearchPlan) -> PlanFields {
    (
        plan.describe(),
        plan.distinct,
        plan.comparisons,
        plan.seconds,
        plan.brute_force_comparisons,
    )
}

pub(super) type PlanFields = (String, usize, f64, f64, f64);

/// The plan of the search over `distinct` distinct fingerprints from a uniform `sample` of
/// them (`hamming_search_plan`'s five values as a tuple, then the index's varying bits `free` as
/// uint64[2] (low word, high word), its blocks (0 for brute force) and each table's key mask
/// as uint64[tables, 2]).
#[pyfunction]
fn hamming_sample_plan<'py>(
    py: Python<'py>,
    sample: PyReadonlyArray2<'py, u64>,
    max_distance: u32,
    distinct: usize,
) -> PyResult<SamplePlan<'py>> {
    let words = sample.shape()[1];
    let data = contiguous(&sample, "sample")?;
    let plan = run(py, || {
        crate::hamming::plan_from_sample(data, words, max_distance, distinct)
    })?;
    let (free, blocks, keys) = match &plan.search {
        crate::hamming::Search::BruteForce => (0u128, 0usize, vec![0u128]),
        crate::hamming::Search::Index(scheme) => {
            (scheme.free, scheme.blocks.len(), scheme.keys.clone())
        }
    };
    let halves = |x: u128| [x as u64, (x >> 64) as u64];
    let keys: Vec<Vec<u64>> = keys.iter().map(|&k| halves(k).to_vec()).collect();
    Ok((
        plan_fields(&plan),
        halves(free).to_vec().into_pyarray(py),
        blocks,
        PyArray2::from_vec2(py, &keys)?,
    ))
}

type SamplePlan<'py> = (
    PlanFields,
    Bound<'py, PyArray1<u64>>,
    usize,
    Bound<'py, PyArray2<u64>>,
);

/// The pairs within `max_distance` that table `table` of the index (`free`, `blocks`) finds
/// first among `fingerprints` (brute force when `blocks` is 0), with their distances.
#[pyfunction]
#[pyo3(signature = (fingerprints, max_distance, free, blocks, table))]
fn hamming_table_within<'py>(
    py: Python<'py>,
    fingerprints: PyReadonlyArray2<'py, u64>,
    max_distance: u32,
    free: PyReadonlyArray1<'py, u64>,
    blocks: usize,
    table: usize,
) -> PairsAnd<'py, i32> {
    let words = fingerprints.shape()[1];
    let data = contiguous(&fingerprints, "fingerprints")?;
    let free = contiguous(&free, "free")?;
    if free.len() != 2 {
        let message = format!("free must hold 2 words, got {}", free.len());
        return Err(crate::error::Error::new(message).into());
    }
    let free = free[0] as u128 | (free[1] as u128) << 64;
    let (pairs, distances) = run(py, || {
        crate::hamming::table_within(data, words, max_distance, free, blocks, table)
    })?;
    Ok((pair_matrix(py, pairs)?, distances.into_pyarray(py)))
}
