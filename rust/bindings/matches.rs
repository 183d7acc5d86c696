//! One set against another's part of `neardup._core`: `QueryIndex`, the queries' exact
//! inverted index that corpus batches stream through (`rust/matches.rs`).

use super::{run, PairsAnd, Texts};
use crate::hashing::HashVersion;
use crate::matches::Measure;
use crate::shingle::Unit;
use numpy::{IntoPyArray, PyArray1};
use pyo3::prelude::*;

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<QueryIndex>()?;
    Ok(())
}

/// The queries' shingle sets, indexed once; `matches` takes the corpus batch by batch.
#[pyclass(module = "neardup._core")]
struct QueryIndex {
    inner: crate::matches::QueryIndex,
}

#[pymethods]
impl QueryIndex {
    #[new]
    fn new(
        py: Python<'_>,
        queries: &Bound<'_, PyAny>,
        k: usize,
        unit: &str,
        hash_version: u32,
    ) -> PyResult<Self> {
        let (unit, version) = (Unit::parse(unit)?, HashVersion::new(hash_version)?);
        let holder = Texts::borrow(queries)?;
        let strs = holder.strs()?;
        let inner = run(py, || {
            crate::matches::QueryIndex::new(&strs, k, unit, version)
        })?;
        Ok(QueryIndex { inner })
    }

    /// (pairs int64[m, 2] of (query, document of the batch), score float32[m]), by document
    /// then query.
    #[pyo3(signature = (texts, measure, threshold, threads=1))]
    fn matches<'py>(
        &self,
        py: Python<'py>,
        texts: &Bound<'py, PyAny>,
        measure: &str,
        threshold: f64,
        threads: usize,
    ) -> PairsAnd<'py, f32> {
        let measure = Measure::parse(measure)?;
        let holder = Texts::borrow(texts)?;
        let strs = holder.strs()?;
        let inner = &self.inner;
        let found = run(py, || inner.matches(&strs, measure, threshold, threads))?;
        let scores: Vec<f32> = found.iter().map(|m| m.2).collect();
        let pairs = super::pair_matrix(py, found.into_iter().map(|m| (m.0, m.1)).collect())?;
        Ok((pairs, scores.into_pyarray(py)))
    }

    /// |Q| (distinct shingles) of each query, int64[n].
    fn sizes<'py>(&self, py: Python<'py>) -> Bound<'py, PyArray1<i64>> {
        let sizes: Vec<i64> = self.inner.sizes().iter().map(|&s| s as i64).collect();
        sizes.into_pyarray(py)
    }

    /// Bytes the index holds.
    #[getter]
    fn nbytes(&self) -> usize {
        self.inner.bytes()
    }

    /// Distinct shingle hashes indexed.
    #[getter]
    fn distinct(&self) -> usize {
        self.inner.distinct()
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }
}
