//! Boilerplate stripping's part of `neardup._core` (`rust/boilerplate.rs`): `frequent_shingles`
//! and `remove_shingles` on shingle sets (CSR `offsets`/`hashes`), and `FrequencyCounter`, the
//! two passes over the batches of a stream.

use super::{built_sets, contiguous, run, sets_view, Hashes};
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<FrequencyCounter>()?;
    m.add_function(wrap_pyfunction!(frequent_shingles, m)?)?;
    m.add_function(wrap_pyfunction!(remove_shingles, m)?)?;
    Ok(())
}

/// uint64[m], sorted: the shingles in more than `max_df` of the sets.
#[pyfunction]
fn frequent_shingles<'py>(
    py: Python<'py>,
    offsets: PyReadonlyArray1<'py, i64>,
    hashes: PyReadonlyArray1<'py, u64>,
    max_df: f64,
) -> PyResult<Hashes<'py>> {
    let view = sets_view(&offsets, &hashes)?;
    let found = run(py, || crate::boilerplate::frequent_shingles(view, max_df))?;
    Ok(found.into_pyarray(py))
}

/// (offsets int64[n+1], hashes uint64, removed int64[n]).
type Stripped<'py> = (
    Bound<'py, PyArray1<i64>>,
    Hashes<'py>,
    Bound<'py, PyArray1<i64>>,
);

/// The sets without the shingles in
/// `drop`, and how many each lost.
#[pyfunction]
fn remove_shingles<'py>(
    py: Python<'py>,
    offsets: PyReadonlyArray1<'py, i64>,
    hashes: PyReadonlyArray1<'py, u64>,
    drop: PyReadonlyArray1<'py, u64>,
) -> PyResult<Stripped<'py>> {
    let view = sets_view(&offsets, &hashes)?;
    let drop = contiguous(&drop, "drop")?;
    let out = run(py, || crate::boilerplate::remove_shingles(view, drop))?;
    // Subsets of sorted, duplicate-free sets, kept in order: built sets too.
    let (offsets, hashes) = built_sets(py, out.offsets, out.hashes)?;
    Ok((offsets, hashes, out.removed.into_pyarray(py)))
}

/// The shingles in more than `max_df` of the documents of a stream of batches, in two passes.
#[pyclass(module = "neardup._core")]
struct FrequencyCounter {
    inner: crate::boilerplate::FrequencyCounter,
}

#[pymethods]
impl FrequencyCounter {
    #[new]
    fn new(max_df: f64) -> PyResult<Self> {
        let inner = crate::boilerplate::FrequencyCounter::new(max_df)?;
        Ok(FrequencyCounter { inner })
    }

    /// Pass 1: remembers the shingles frequent within this batch.
    fn add_candidates(
        &mut self,
        py: Python<'_>,
        offsets: PyReadonlyArray1<'_, i64>,
        hashes: PyReadonlyArray1<'_, u64>,
    ) -> PyResult<()> {
        let view = sets_view(&offsets, &hashes)?;
        let inner = &mut self.inner;
        run(py, || inner.add_candidates(view))
    }

    /// Pass 2: counts the candidates exactly in this batch.
    fn count(
        &mut self,
        py: Python<'_>,
        offsets: PyReadonlyArray1<'_, i64>,
        hashes: PyReadonlyArray1<'_, u64>,
    ) -> PyResult<()> {
        let view = sets_view(&offsets, &hashes)?;
        let inner = &mut self.inner;
        run(py, || inner.count(view))
    }

    /// uint64[m], sorted: the shingles in more than `max_df` of all the documents.
    fn frequent<'py>(&self, py: Python<'py>) -> PyResult<Hashes<'py>> {
        let inner = &self.inner;
        Ok(run(py, || inner.frequent())?.into_pyarray(py))
    }

    #[getter]
    fn max_df(&self) -> f64 {
        self.inner.max_df()
    }

    /// Documents seen by pass 1.
    #[getter]
    fn n_docs(&self) -> u64 {
        self.inner.n_docs()
    }

    /// uint64[m]: the candidates pass 2 counts (sorted; empty before it starts).
    #[getter]
    fn candidates<'py>(&self, py: Python<'py>) -> Hashes<'py> {
        self.inner.candidates().to_vec().into_pyarray(py)
    }

    /// int64[m]: each candidate's document count so far.
    #[getter]
    fn counts<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        self.inner.counts().to_vec().into_pyarray(py)
    }
}
