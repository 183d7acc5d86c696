//! Paragraph dedup's part of `neardup._core`: `ParagraphDedup`, repeated paragraphs removed
//! over the batches of a stream (`rust/paragraphs.rs`).

use super::{contiguous, matrix, run, Texts};
use crate::hashing::HashVersion;
use crate::paragraphs::Split;
use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1};
use pyo3::prelude::*;

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<ParagraphDedup>()?;
    m.add_function(wrap_pyfunction!(paragraph_units, m)?)?;
    m.add_function(wrap_pyfunction!(paragraph_clean, m)?)?;
    Ok(())
}

fn batch<'py>(py: Python<'py>, out: crate::paragraphs::Cleaned) -> PyResult<Batch<'py>> {
    Ok((
        out.texts,
        out.removed.into_pyarray(py),
        out.units.into_pyarray(py),
        out.words.into_pyarray(py),
        matrix(py, out.spans, 3)?,
    ))
}

/// (the text of every unit in order, int64[n] units of each document).
#[pyfunction]
fn paragraph_units<'py>(
    py: Python<'py>,
    texts: &Bound<'py, PyAny>,
    split: &str,
) -> PyResult<(Vec<String>, Bound<'py, PyArray1<i64>>)> {
    let how = Split::new(split)?;
    let holder = Texts::borrow(texts)?;
    let strs = holder.strs()?;
    let (units, counts) = run(py, || {
        let (units, counts) = crate::paragraphs::unit_texts(&strs, how)?;
        Ok((units.into_iter().map(str::to_owned).collect(), counts))
    })?;
    Ok((units, counts.into_pyarray(py)))
}

/// Cleans `texts` removing the units where `duplicate` (bool, one a unit) is true.
#[pyfunction]
#[pyo3(signature = (texts, split, hash_version, duplicate, threads=1))]
fn paragraph_clean<'py>(
    py: Python<'py>,
    texts: &Bound<'py, PyAny>,
    split: &str,
    hash_version: u32,
    duplicate: PyReadonlyArray1<'py, bool>,
    threads: usize,
) -> PyResult<Batch<'py>> {
    let (how, version) = (Split::new(split)?, HashVersion::new(hash_version)?);
    let holder = Texts::borrow(texts)?;
    let strs = holder.strs()?;
    let flags = contiguous(&duplicate, "duplicate")?;
    let out = run(py, || {
        crate::paragraphs::clean_with(&strs, how, version, threads, flags)
    })?;
    batch(py, out)
}

/// (texts, removed int64[n], units int64[n], words int64[n], spans int64[m, 3]) of a batch.
type Batch<'py> = (
    Vec<String>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray2<i64>>,
);

/// Removes paragraphs seen earlier in the stream; batches are added in input order.
#[pyclass(module = "neardup._core")]
struct ParagraphDedup {
    inner: crate::paragraphs::ParagraphDedup,
}

#[pymethods]
impl ParagraphDedup {
    #[new]
    #[pyo3(signature = (split, hash_version, threads=1, bloom_bits=None, bloom_hashes=7))]
    fn new(
        split: &str,
        hash_version: u32,
        threads: usize,
        bloom_bits: Option<u64>,
        bloom_hashes: u32,
    ) -> PyResult<Self> {
        let inner = crate::paragraphs::ParagraphDedup::new(
            Split::new(split)?,
            HashVersion::new(hash_version)?,
            threads,
            bloom_bits.map(|m| (m, bloom_hashes)),
        )?;
        Ok(ParagraphDedup { inner })
    }

    /// Cleans the next batch (a list of str or (uint8 data, int64 offsets)).
    fn add<'py>(&mut self, py: Python<'py>, texts: &Bound<'py, PyAny>) -> PyResult<Batch<'py>> {
        let holder = Texts::borrow(texts)?;
        let strs = holder.strs()?;
        let inner = &mut self.inner;
        let out = run(py, || inner.add(&strs))?;
        batch(py, out)
    }

    /// Units (paragraphs or lines) seen so far.
    #[getter]
    fn units(&self) -> u64 {
        self.inner.units
    }

    /// Units removed so far.
    #[getter]
    fn removed(&self) -> u64 {
        self.inner.removed
    }

    /// Bloom mode: (keys inserted, stated false-positive rate, bytes); None in exact mode.
    #[getter]
    fn bloom(&self) -> Option<(u64, f64, u64)> {
        self.inner
            .bloom()
            .map(|b| (b.inserted(), b.false_positive_rate(), b.bytes()))
    }
}
