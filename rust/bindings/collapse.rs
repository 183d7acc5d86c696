//! The collapse stage's part of `neardup._core`: `Collapse`, each document's first exact
//! duplicate over the batches of a pass and what the later stages keep of the unique ones
//! (`rust/collapse.rs`); `set_digests`, the digest that
//! finds equal shingle sets (`rust/signing/digest.rs`); and `gather_rows`, the held sets of the
//! unique documents (`rust/rows.rs`).

use super::{contiguous, matrix, run, sets_view};
use numpy::{
    IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2, PyReadwriteArray1,
    PyUntypedArrayMethods,
};
use pyo3::prelude::*;
use pyo3::types::PyDict;

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Collapse>()?;
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

/// The collapse stage over a pass (`rust/collapse.rs`): batches of the sign pass's outputs in,
/// each document's first exact duplicate and the unique documents' digests, set sizes and
/// signatures out.
#[pyclass(module = "neardup._core")]
struct Collapse {
    inner: crate::collapse::Collapse,
    /// The rows of the last batch that are new unique documents (for its signatures).
    chosen: Vec<usize>,
}

impl Collapse {
    /// The rows of a signature matrix of `n` rows to keep: the last batch's new unique
    /// documents, or all `n` (the matrix is theirs alone).
    fn rows(&mut self, whole_batch: bool, n: usize) -> Vec<usize> {
        if whole_batch {
            std::mem::take(&mut self.chosen)
        } else {
            (0..n).collect()
        }
    }
}

#[pymethods]
impl Collapse {
    #[new]
    fn new() -> Self {
        Collapse {
            inner: crate::collapse::Collapse::new(),
            chosen: Vec::new(),
        }
    }

    /// Documents added so far.
    fn __len__(&self) -> usize {
        self.inner.len()
    }

    /// Adds the next batch (digests uint64[n, 2], groupable and live bool[n], lengths and set
    /// sizes int64[n] or None); returns int64[c], its rows that are new unique documents with
    /// shingles, in order.
    #[pyo3(signature = (digests, groupable, live, lengths=None, set_sizes=None))]
    fn add<'py>(
        &mut self,
        py: Python<'py>,
        digests: PyReadonlyArray2<'py, u64>,
        groupable: PyReadonlyArray1<'py, bool>,
        live: PyReadonlyArray1<'py, bool>,
        lengths: Option<PyReadonlyArray1<'py, i64>>,
        set_sizes: Option<PyReadonlyArray1<'py, i64>>,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let batch = crate::collapse::SignedRows {
            digests: contiguous(&digests, "digests")?,
            groupable: contiguous(&groupable, "groupable")?,
            live: contiguous(&live, "live")?,
            lengths: match &lengths {
                Some(array) => contiguous(array, "lengths")?,
                None => &[],
            },
            set_sizes: match &set_sizes {
                Some(array) => contiguous(array, "set_sizes")?,
                None => &[],
            },
        };
        let inner = &mut self.inner;
        let chosen = run(py, || inner.add(&batch))?;
        let rows: Vec<i64> = chosen.iter().map(|&row| row as i64).collect();
        self.chosen = chosen;
        Ok(rows.into_pyarray(py))
    }

    /// Appends MinHash signatures uint32[r, P] of the last batch's new unique documents: taken
    /// from the whole batch's (`whole_batch`), or theirs alone, in order.
    #[pyo3(signature = (signatures, whole_batch=true))]
    fn add_minhash(
        &mut self,
        py: Python<'_>,
        signatures: PyReadonlyArray2<'_, u32>,
        whole_batch: bool,
    ) -> PyResult<()> {
        let n = signatures.shape()[0];
        let rows = self.rows(whole_batch, n);
        let matrix = contiguous(&signatures, "signatures")?;
        let inner = &mut self.inner;
        run(py, || inner.add_minhash(matrix, n, &rows))
    }

    /// [`Collapse::add_minhash`] for SimHash fingerprints uint64[r, w].
    #[pyo3(signature = (fingerprints, whole_batch=true))]
    fn add_simhash(
        &mut self,
        py: Python<'_>,
        fingerprints: PyReadonlyArray2<'_, u64>,
        whole_batch: bool,
    ) -> PyResult<()> {
        let n = fingerprints.shape()[0];
        let rows = self.rows(whole_batch, n);
        let matrix = contiguous(&fingerprints, "fingerprints")?;
        let inner = &mut self.inner;
        run(py, || inner.add_simhash(matrix, n, &rows))
    }

    /// Ends the pass: a dict of ``first`` int64[n], ``empty`` bool[n] (not groupable),
    /// ``lengths`` int64[n], ``selected`` int64[m], ``digests`` uint64[m, 2], ``set_sizes``
    /// int64[m] (empty when not given), ``shingled`` (int), ``signatures`` (uint32[m, P],
    /// uint64[m, w] or None); the object is empty afterwards.
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let pass = std::mem::take(&mut self.inner);
        let out = PyDict::new(py);
        out.set_item("first", pass.first.into_pyarray(py))?;
        let empty: Vec<bool> = pass.groupable.iter().map(|&g| !g).collect();
        out.set_item("empty", empty.into_pyarray(py))?;
        out.set_item("lengths", pass.lengths.into_pyarray(py))?;
        out.set_item("selected", pass.selected.into_pyarray(py))?;
        out.set_item("digests", matrix(py, pass.digests, 2)?)?;
        out.set_item("set_sizes", pass.set_sizes.into_pyarray(py))?;
        out.set_item("shingled", pass.shingled)?;
        if !pass.minhash.is_empty() {
            out.set_item("signatures", matrix(py, pass.minhash, pass.width)?)?;
        } else if !pass.simhash.is_empty() {
            out.set_item("signatures", matrix(py, pass.simhash, pass.width)?)?;
        } else {
            out.set_item("signatures", py.None())?;
        }
        Ok(out)
    }
}
