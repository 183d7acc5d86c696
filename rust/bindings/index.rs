//! The persistent index's part of `neardup._core`: band keys and the in-memory mirror
//! (`rust/lookup.rs`), converted with the helpers of the parent module.

use super::{contiguous, run, signature_rows};
use crate::error::Error;
use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(index_band_keys, m)?)?;
    m.add_class::<IndexMirror>()?;
    Ok(())
}

/// The band keys a persistent index stores, uint64[n, bands] (`rust/lookup.rs`).
#[pyfunction]
fn index_band_keys<'py>(
    py: Python<'py>,
    signatures: PyReadonlyArray2<'py, u32>,
    bands: usize,
    rows: usize,
) -> PyResult<Bound<'py, PyArray2<u64>>> {
    let (num_perm, slots) = signature_rows(&signatures)?;
    let keys = run(py, || {
        crate::lookup::index_band_keys(slots, num_perm, bands, rows)
    })?;
    super::matrix(py, keys, bands)
}

/// The in-memory mirror of a persistent index (`neardup.index`): stored signatures and band
/// keys, looked up in batches (`rust/lookup.rs`).
#[pyclass(module = "neardup._core")]
struct IndexMirror {
    inner: crate::lookup::Mirror,
}

#[pymethods]
impl IndexMirror {
    #[new]
    fn new(num_perm: usize, bands: usize, rows: usize) -> PyResult<Self> {
        let inner = crate::lookup::Mirror::new(num_perm, bands, rows)?;
        Ok(IndexMirror { inner })
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }

    /// Band-table entries held (main + delta).
    fn entry_count(&self) -> usize {
        self.inner.entry_count()
    }

    fn append(&mut self, py: Python<'_>, signatures: PyReadonlyArray2<'_, u32>) -> PyResult<usize> {
        let (num_perm, sigs) = signature_rows(&signatures)?;
        if num_perm != self.inner.num_perm() {
            return Err(Error::new("signatures do not match the index's num_perm").into());
        }
        let inner = &mut self.inner;
        run(py, || inner.append(sigs))
    }

    fn forget(&mut self, rows: PyReadonlyArray1<'_, i64>) -> PyResult<()> {
        Ok(self.inner.forget(contiguous(&rows, "rows")?)?)
    }

    #[allow(clippy::type_complexity)]
    fn lookup<'py>(
        &self,
        py: Python<'py>,
        signatures: PyReadonlyArray2<'py, u32>,
        threshold: f64,
        top_k: usize,
    ) -> PyResult<(
        Bound<'py, PyArray1<i64>>,
        Bound<'py, PyArray1<i64>>,
        Bound<'py, PyArray1<f32>>,
    )> {
        let (num_perm, sigs) = signature_rows(&signatures)?;
        if num_perm != self.inner.num_perm() {
            return Err(Error::new("signatures do not match the index's num_perm").into());
        }
        let select = crate::lookup::Selection { threshold, top_k };
        let inner = &self.inner;
        let m = run(py, || inner.lookup(sigs, select))?;
        Ok((
            m.offsets.into_pyarray(py),
            m.rows.into_pyarray(py),
            m.similarity.into_pyarray(py),
        ))
    }
}
