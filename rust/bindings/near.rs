//! The near-pair stage's part of `neardup._core`: a MinHash run's candidates and their
//! verification (`rust/near/`), and the exact verification of given candidates (SimHash's),
//! from the sets held (arrays) or spilled (the run's `SetSpill`); the GIL released for the work.

use super::spill::SetSpill;
use super::{contiguous, pair_matrix, run, sets_view, signature_rows};
use crate::error::{reserve, Error, Result};
use crate::near::{self, MinHashNear, PairsMode, SetSource, Verified};
use numpy::{IntoPyArray, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyDict;

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(minhash_near_pairs, m)?)?;
    m.add_function(wrap_pyfunction!(verify_candidates, m)?)?;
    Ok(())
}

/// Candidate pairs int64[m, 2] as the crate's (u32, u32), each index below `n`.
fn candidate_pairs(pairs: &PyReadonlyArray2<'_, i64>, n: usize) -> Result<Vec<(u32, u32)>> {
    if pairs.shape()[1] != 2 {
        return Err(Error::new("candidates must have shape (m, 2)"));
    }
    let flat = contiguous(pairs, "candidates")?;
    let mut out = Vec::new();
    reserve(&mut out, flat.len() / 2, "the candidates")?;
    for (row, p) in flat.chunks_exact(2).enumerate() {
        if p.iter().any(|&i| i < 0 || i as u64 >= n as u64) {
            return Err(Error::new(format!(
                "candidates[{row}] = ({}, {}) is out of range for {n} documents",
                p[0], p[1]
            )));
        }
        out.push((p[0] as u32, p[1] as u32));
    }
    Ok(out)
}

/// The sets to verify from: the held arrays, or the spill (exactly one of them, or neither).
fn set_source<'a>(
    offsets: &'a Option<PyReadonlyArray1<'_, i64>>,
    hashes: &'a Option<PyReadonlyArray1<'_, u64>>,
    spill: &'a Option<PyRef<'_, SetSpill>>,
) -> PyResult<Option<SetSource<'a>>> {
    match (offsets, hashes, spill) {
        (Some(o), Some(h), None) => Ok(Some(SetSource::Held(sets_view(o, h)?))),
        (None, None, Some(spill)) => Ok(Some(SetSource::Spilled(&spill.inner))),
        (None, None, None) => Ok(None),
        _ => {
            Err(Error::new("give the held sets (offsets and hashes) or the spill, not both").into())
        }
    }
}

/// The verified pairs as a dict: ``pairs`` int64[m, 2] (sorted), ``similarity`` float32[m],
/// ``sets_read`` ((offsets, hashes) of the sets read back from the spill at once, the others
/// empty; None) and ``chunks`` (read one at a time; 0).
fn verified_dict<'py>(py: Python<'py>, found: Verified) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    out.set_item("pairs", pair_matrix(py, found.pairs)?)?;
    out.set_item("similarity", found.similarity.into_pyarray(py))?;
    match found.sets_read {
        Some((offsets, hashes)) => out.set_item(
            "sets_read",
            (offsets.into_pyarray(py), hashes.into_pyarray(py)),
        )?,
        None => out.set_item("sets_read", py.None())?,
    }
    out.set_item("chunks", found.chunks)?;
    Ok(out)
}

/// The near pairs of a MinHash run's unique documents (`rust/near/`): the candidate search
/// of the banding, `pairs` "auto" / "all" / "spanning", verified by the estimate or (`exact`)
/// by exact Jaccard on the held sets (`offsets`, `hashes`) or those of the finished `spill`,
/// read past `verify_budget` shingles in chunks. A dict: what `verified_dict` holds, and
/// ``candidates``, ``spanning``, ``search`` ((screened, bucket splits, expected recall) or
/// None) and ``passes`` (the grouping passes made, in order).
#[pyfunction]
#[pyo3(signature = (
    signatures, bands, rows, threshold, *, bucket_limit, pairs, spanning_limit, exact, screen,
    threads, verify_budget, offsets=None, hashes=None, spill=None
))]
#[allow(clippy::too_many_arguments)] // the Python signature
fn minhash_near_pairs<'py>(
    py: Python<'py>,
    signatures: PyReadonlyArray2<'py, u32>,
    bands: usize,
    rows: usize,
    threshold: f64,
    bucket_limit: Option<usize>,
    pairs: &str,
    spanning_limit: u64,
    exact: bool,
    screen: bool,
    threads: usize,
    verify_budget: u64,
    offsets: Option<PyReadonlyArray1<'py, i64>>,
    hashes: Option<PyReadonlyArray1<'py, u64>>,
    spill: Option<PyRef<'py, SetSpill>>,
) -> PyResult<Bound<'py, PyDict>> {
    let (num_perm, slots) = signature_rows(&signatures)?;
    let options = MinHashNear {
        bands,
        rows,
        threshold,
        bucket_limit,
        pairs: PairsMode::parse(pairs)?,
        spanning_limit,
        exact,
        screen,
        threads,
        verify_budget,
    };
    let sets = set_source(&offsets, &hashes, &spill)?;
    let found = run(py, || near::minhash_pairs(slots, num_perm, &options, sets))?;
    let out = verified_dict(py, found.verified)?;
    out.set_item("candidates", found.candidates)?;
    out.set_item("spanning", found.spanning)?;
    match found.search {
        Some(s) => out.set_item("search", (s.screened, s.splits, s.expected_recall))?,
        None => out.set_item("search", py.None())?,
    }
    out.set_item("passes", found.passes)?;
    Ok(out)
}

/// The `candidates` (sorted pairs into the unique documents) whose exact Jaccard reaches
/// `threshold`, on the held sets (`offsets`, `hashes`) or those of the finished `spill` (read
/// past `verify_budget` shingles in chunks of whole components): what `verified_dict` holds.
#[pyfunction]
#[pyo3(signature = (candidates, threshold, *, threads, verify_budget, offsets=None, hashes=None, spill=None))]
#[allow(clippy::too_many_arguments)] // the Python signature
fn verify_candidates<'py>(
    py: Python<'py>,
    candidates: PyReadonlyArray2<'py, i64>,
    threshold: f64,
    threads: usize,
    verify_budget: u64,
    offsets: Option<PyReadonlyArray1<'py, i64>>,
    hashes: Option<PyReadonlyArray1<'py, u64>>,
    spill: Option<PyRef<'py, SetSpill>>,
) -> PyResult<Bound<'py, PyDict>> {
    let sets = set_source(&offsets, &hashes, &spill)?
        .ok_or_else(|| Error::new("exact verification needs the sets held or spilled"))?;
    let n = match sets {
        SetSource::Held(view) => view.len(),
        SetSource::Spilled(spill) => spill.sizes()?.len(),
    };
    let candidates = candidate_pairs(&candidates, n)?;
    let found = run(py, || {
        crate::lsh::check_threshold(threshold)?;
        near::verify_candidates(&candidates, sets, threshold, threads, verify_budget)
    })?;
    verified_dict(py, found)
}
