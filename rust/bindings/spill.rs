//! The spill file's part of `neardup._core`: `SetSpill`, the unique documents' shingle sets in
//! one temporary file (`rust/spill/mod.rs`). Arrays in, slices to the core, vectors out; the GIL
//! is released around every write, read and removal.

use super::{contiguous, run, Hashes};
use numpy::{IntoPyArray, PyArray1, PyArrayMethods, PyReadonlyArray1};
use pyo3::prelude::*;
use std::path::PathBuf;

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<SetSpill>()?;
    Ok(())
}

/// The sets of unique documents `0, 1, ...` in one temporary file, made at the first write
/// under `directory` (None: the system's temporary directory) and removed by `close()` (or
/// when the object is collected). Its methods take `&mut self` / `&self` through pyo3's borrow
/// flag, so two threads can never use one spill at once (the second gets a RuntimeError).
#[pyclass(module = "neardup._core")]
pub(super) struct SetSpill {
    pub(super) inner: crate::spill::SetSpill,
}

#[pymethods]
impl SetSpill {
    #[new]
    #[pyo3(signature = (directory=None))]
    fn new(directory: Option<PathBuf>) -> Self {
        SetSpill {
            inner: crate::spill::SetSpill::new(directory),
        }
    }

    /// Appends the sets of `rows` (increasing) of the CSR sets `offsets`/`hashes` as unique
    /// documents `at` (increasing, past those added before).
    fn add(
        &mut self,
        py: Python<'_>,
        offsets: PyReadonlyArray1<'_, i64>,
        hashes: PyReadonlyArray1<'_, u64>,
        rows: PyReadonlyArray1<'_, i64>,
        at: PyReadonlyArray1<'_, i64>,
    ) -> PyResult<()> {
        let (offsets, hashes) = (
            contiguous(&offsets, "offsets")?,
            contiguous(&hashes, "hashes")?,
        );
        let (rows, at) = (contiguous(&rows, "rows")?, contiguous(&at, "at")?);
        let inner = &mut self.inner;
        run(py, || inner.add(offsets, hashes, rows, at))
    }

    /// Ends the writing: the offsets of `n` documents; `read` may follow.
    fn finish(&mut self, py: Python<'_>, n: usize) -> PyResult<()> {
        let inner = &mut self.inner;
        run(py, || inner.finish(n))
    }

    /// int64[n]: the set size of each document (after `finish`).
    fn sizes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArray1<i64>>> {
        Ok(self.inner.sizes()?.into_pyarray(py))
    }

    /// (offsets int64[m + 1], hashes uint64[total]): the sets of `docs` (increasing). The
    /// hashes are read into a numpy array (numpy's allocator asks for huge pages for a large
    /// one: twice as fast a read of a large chunk as into a vector of the crate's).
    fn read<'py>(
        &self,
        py: Python<'py>,
        docs: PyReadonlyArray1<'py, i64>,
    ) -> PyResult<(Bound<'py, PyArray1<i64>>, Hashes<'py>)> {
        let docs = contiguous(&docs, "docs")?;
        let inner = &self.inner;
        let total = *inner.read_offsets(docs)?.last().expect("m + 1 offsets") as usize;
        let hashes = PyArray1::<u64>::zeros(py, total, false);
        let offsets = {
            let mut view = hashes.readwrite();
            let out = view
                .as_slice_mut()
                .map_err(|_| crate::error::Error::new("out must be a C-contiguous array"))?;
            run(py, || inner.read_into(docs, out))?
        };
        Ok((offsets.into_pyarray(py), hashes))
    }

    /// Whether anything was written (the file exists) and the spill is not closed.
    #[getter]
    fn active(&self) -> bool {
        self.inner.active()
    }

    /// Hashes written so far.
    #[getter]
    fn hashes(&self) -> u64 {
        self.inner.hashes_written()
    }

    /// Removes the file and its directory; nothing can be added or read afterwards.
    fn close(&mut self, py: Python<'_>) -> PyResult<()> {
        let inner = &mut self.inner;
        run(py, || {
            inner.close();
            Ok(())
        })
    }

    /// Test hook: the `n`th write (1-based, counted from this spill's first) fails as a full
    /// disk would (OSError, errno ENOSPC); None: no failure.
    #[pyo3(signature = (n))]
    fn _fail_write_at(&mut self, n: Option<u64>) {
        self.inner.set_fail_write_at(n);
    }

    /// Test hook: the writes made so far (one per run of consecutive rows with a hash).
    #[getter]
    fn _writes(&self) -> u64 {
        self.inner.writes()
    }

    /// Test hook: the reads made so far (one per `read`, the crate's included).
    #[getter]
    fn _reads(&self) -> u64 {
        self.inner.reads()
    }
}
