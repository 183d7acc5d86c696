//! The collapse stage's part of `neardup._core`: `FirstSeen`, each document's first exact
//! duplicate over the batches of a pass (`rust/first_seen.rs`); `set_digests`, the digest that
//! finds equal shingle sets (`rust/signing/digest.rs`); and `gather_rows`, the held sets of the
//! unique documents (`rust/rows.rs`).

use super::{contiguous, matrix, run, sets_view};
use numpy::{
    IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2, PyReadwriteArray1,
};
use pyo3::prelude::*;

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<FirstSeen>()?;
    m.add_function(wrap_pyfunction!(set_digests, m)?)?;
    m.add_function(wrap_pyfunction!(gather_rows, m)?)?;
    m.add_function(wrap_pyfunction!(gather_rows_in_place, m)?)?;
    Ok(())
}

/// uint64[n, 2]: the 128-bit digest of each shingle set (CSR `offsets`/`hashes`).
#[pyfunction]
fn set_digests<'py>(
    py: Python<'py>,
    offsets: PyReadonlyArray1<'py, i64>,
    hashes: PyReadonlyArray1<'py, u64>,
) -> PyResult<Bound<'py, PyArray2<u64>>> {
    let view = sets_view(&offsets, &hashes)?;
    let digests = run(py, || crate::signing::set_digests(view))?;
    matrix(py, digests, 2)
}

/// Copies the CSR rows `rows` (increasing) of `offsets`/`hashes` one after another to the
/// front of `out`; returns how many hashes it copied.
#[pyfunction]
fn gather_rows(
    py: Python<'_>,
    offsets: PyReadonlyArray1<'_, i64>,
    rows: PyReadonlyArray1<'_, i64>,
    hashes: PyReadonlyArray1<'_, u64>,
    mut out: PyReadwriteArray1<'_, u64>,
) -> PyResult<usize> {
    let (offsets, rows) = (contiguous(&offsets, "offsets")?, contiguous(&rows, "rows")?);
    let hashes = contiguous(&hashes, "hashes")?;
    let out = out
        .as_slice_mut()
        .map_err(|_| crate::error::Error::new("out must be a C-contiguous array"))?;
    run(py, || crate::rows::gather_rows(offsets, rows, hashes, out))
}

/// [`gather_rows`] to the front of `hashes` itself.
#[pyfunction]
fn gather_rows_in_place(
    py: Python<'_>,
    offsets: PyReadonlyArray1<'_, i64>,
    rows: PyReadonlyArray1<'_, i64>,
    mut hashes: PyReadwriteArray1<'_, u64>,
) -> PyResult<usize> {
    let (offsets, rows) = (contiguous(&offsets, "offsets")?, contiguous(&rows, "rows")?);
    let hashes = hashes
        .as_slice_mut()
        .map_err(|_| crate::error::Error::new("hashes must be a C-contiguous array"))?;
    run(py, || {
        crate::rows::gather_rows_in_place(offsets, rows, hashes)
    })
}

/// The first position of every 128-bit digest seen so far; batches are added in input order.
#[pyclass(module = "neardup._core")]
struct FirstSeen {
    inner: crate::first_seen::FirstSeen,
}

#[pymethods]
impl FirstSeen {
    #[new]
    fn new() -> Self {
        FirstSeen {
            inner: crate::first_seen::FirstSeen::new(),
        }
    }

    /// Documents added so far.
    fn __len__(&self) -> usize {
        self.inner.len()
    }

    /// int64[n]: the global position of each row's first exact duplicate (itself when new or
    /// not groupable), for the next batch's digests uint64[n, 2].
    fn add<'py>(
        &mut self,
        py: Python<'py>,
        digests: PyReadonlyArray2<'py, u64>,
        groupable: PyReadonlyArray1<'py, bool>,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let words = contiguous(&digests, "digests")?;
        let group = contiguous(&groupable, "groupable")?;
        let inner = &mut self.inner;
        Ok(run(py, || inner.add(words, group))?.into_pyarray(py))
    }
}
