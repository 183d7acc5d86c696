//! The near-pair stage's part of `neardup._core`: a MinHash run's candidates and their
//! verification, and the searches within partitions (exact Jaccard, SimHash) (`rust/near/`),
//! from the sets held (arrays) or spilled (the run's `SetSpill`); the GIL released for the work.

use super::spill::SetSpill;
use super::{contiguous, pair_matrix, run, sets_view, signature_rows};
use crate::error::{Error, Result};
use crate::near::{self, MinHashNear, PairsMode, SetSource, SimHashNear, Verified};
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyDict;

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(minhash_near_pairs, m)?)?;
    m.add_function(wrap_pyfunction!(exact_jaccard_pairs, m)?)?;
    m.add_function(wrap_pyfunction!(simhash_near_pairs, m)?)?;
    Ok(())
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
        _ => Err(Error::new(
            "give the held sets (offsets and hashes, both) or the spill, not both",
        )
        .into()),
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

/// The partition keys (uint64 per document) of a search within partitions, or None.
fn keys<'a>(
    partitions: &'a Option<PyReadonlyArray1<'_, u64>>,
    n: usize,
) -> Result<Option<&'a [u64]>> {
    let Some(array) = partitions else {
        return Ok(None);
    };
    let keys = contiguous(array, "partitions")?;
    if keys.len() != n {
        return Err(Error::new(format!(
            "partitions must hold one key per document ({n}), got {}",
            keys.len()
        )));
    }
    Ok(Some(keys))
}

/// Every pair of the same partition (`partitions`: uint64 per document; None: one) whose
/// exact Jaccard reaches `threshold`, by brute force: (pairs int64[m, 2] sorted, similarity
/// float32[m], the partitions' sizes uint64[p] in order of key).
#[pyfunction]
#[pyo3(signature = (offsets, hashes, threshold, partitions=None))]
#[allow(clippy::type_complexity)] // (pairs, similarity, sizes), as Python sees them
fn exact_jaccard_pairs<'py>(
    py: Python<'py>,
    offsets: PyReadonlyArray1<'py, i64>,
    hashes: PyReadonlyArray1<'py, u64>,
    threshold: f64,
    partitions: Option<PyReadonlyArray1<'py, u64>>,
) -> PyResult<(
    Bound<'py, numpy::PyArray2<i64>>,
    Bound<'py, PyArray1<f32>>,
    Bound<'py, PyArray1<u64>>,
)> {
    let sets = sets_view(&offsets, &hashes)?;
    let keys = keys(&partitions, sets.len())?;
    let found = run(py, || near::exact_jaccard_pairs(sets, threshold, keys))?;
    Ok((
        pair_matrix(py, found.pairs)?,
        found.values.into_pyarray(py),
        found.sizes.into_pyarray(py),
    ))
}

/// SimHash near pairs of `fingerprints` (uint64[m, bits / 64]) within `max_distance` of each
/// other in each partition, the similarity their distance estimates, or (`exact`) verified by
/// exact Jaccard on the held sets or the spill's: what `verified_dict` holds, and
/// ``candidates``.
#[pyfunction]
#[pyo3(signature = (
    fingerprints, max_distance, threshold, *, threads, exact, verify_budget, partitions=None,
    offsets=None, hashes=None, spill=None
))]
#[allow(clippy::too_many_arguments)] // the Python signature
fn simhash_near_pairs<'py>(
    py: Python<'py>,
    fingerprints: PyReadonlyArray2<'py, u64>,
    max_distance: u32,
    threshold: f64,
    threads: usize,
    exact: bool,
    verify_budget: u64,
    partitions: Option<PyReadonlyArray1<'py, u64>>,
    offsets: Option<PyReadonlyArray1<'py, i64>>,
    hashes: Option<PyReadonlyArray1<'py, u64>>,
    spill: Option<PyRef<'py, SetSpill>>,
) -> PyResult<Bound<'py, PyDict>> {
    let words = fingerprints.shape()[1];
    let data = contiguous(&fingerprints, "fingerprints")?;
    let keys = keys(&partitions, fingerprints.shape()[0])?;
    let sets = set_source(&offsets, &hashes, &spill)?;
    let sets = match (exact, sets) {
        (false, _) => None,
        (true, Some(sets)) => Some(sets),
        (true, None) => {
            return Err(Error::new("exact verification needs the sets held or spilled").into())
        }
    };
    let options = SimHashNear {
        max_distance,
        bits: words * 64,
        threshold,
        threads,
        verify_budget,
    };
    let (found, candidates) = run(py, || {
        crate::lsh::check_threshold(threshold)?;
        near::simhash_pairs(data, words, &options, keys, sets)
    })?;
    let out = verified_dict(py, found)?;
    out.set_item("candidates", candidates)?;
    Ok(out)
}
