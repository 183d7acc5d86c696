//! The collapse stage's part of `neardup._core`: `FirstSeen`, each document's first exact
//! duplicate over the batches of a pass (`rust/first_seen.rs`).

use super::{contiguous, run};
use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<FirstSeen>()?;
    Ok(())
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
