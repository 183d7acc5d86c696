//! The persistent index's part of `neardup._core`: band keys and the in-memory mirror
//! (`rust/lookup.rs`), converted with the helpers of the parent module.

use super::{contiguous, run, signature_rows};
use crate::error::Error;
use numpy::{PyArray2, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple, PyType};

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

/// The in-memory mirror of a persistent index (`neardup.index`): stored signatures, band
/// keys and ids, looked up in batches (`rust/lookup.rs`); results are built here as lists of
/// the `Match` named tuple, so Python touches no per-match array.
#[pyclass(module = "neardup._core")]
struct IndexMirror {
    inner: crate::lookup::Mirror,
    /// Every row's id, as Python gave it (returned without a copy).
    ids: Vec<Py<PyString>>,
    /// The class of one match: a 2-field tuple subclass (id, similarity).
    match_type: Py<PyType>,
}

#[pymethods]
impl IndexMirror {
    /// `threshold` and `bucket_limit` (None: every bucket whole): the bucket rule of
    /// `rust/lsh/groups.rs`, applied to the band tables.
    #[new]
    fn new(
        num_perm: usize,
        bands: usize,
        rows: usize,
        match_type: Bound<'_, PyType>,
        threshold: f64,
        bucket_limit: Option<usize>,
    ) -> PyResult<Self> {
        if !match_type.is_subclass_of::<PyTuple>()? {
            return Err(Error::new("match_type must be a tuple subclass").into());
        }
        let rule = crate::lsh::BucketRule {
            limit: bucket_limit.unwrap_or(usize::MAX),
            threshold,
        };
        let inner = crate::lookup::Mirror::new(num_perm, bands, rows, rule)?;
        Ok(IndexMirror {
            inner,
            ids: Vec::new(),
            match_type: match_type.unbind(),
        })
    }

    fn __len__(&self) -> usize {
        self.inner.len()
    }

    /// Buckets split by the bucket rule (every part split again counted).
    fn bucket_splits(&self) -> u64 {
        self.inner.bucket_splits()
    }

    /// The present rows' mean chance of meeting a partner at the threshold (the banding's
    /// P(T), lowered by what the splits cost).
    fn expected_recall(&self) -> f64 {
        self.inner.expected_recall()
    }

    /// Band-table entries held (main + delta).
    fn entry_count(&self) -> usize {
        self.inner.entry_count()
    }

    fn append(
        &mut self,
        py: Python<'_>,
        signatures: PyReadonlyArray2<'_, u32>,
        ids: Vec<Bound<'_, PyString>>,
    ) -> PyResult<usize> {
        let (num_perm, sigs) = signature_rows(&signatures)?;
        if num_perm != self.inner.num_perm() {
            return Err(Error::new("signatures do not match the index's num_perm").into());
        }
        let texts = ids
            .iter()
            .map(|id| id.to_str())
            .collect::<PyResult<Vec<&str>>>()?;
        let inner = &mut self.inner;
        let first = run(py, || inner.append(sigs, &texts))?;
        self.ids.extend(ids.into_iter().map(Bound::unbind));
        Ok(first)
    }

    fn forget(&mut self, rows: PyReadonlyArray1<'_, i64>) -> PyResult<()> {
        Ok(self.inner.forget(contiguous(&rows, "rows")?)?)
    }

    /// For each query row, a list of `match_type(id, similarity)`, best first.
    fn lookup<'py>(
        &self,
        py: Python<'py>,
        signatures: PyReadonlyArray2<'py, u32>,
        threshold: f64,
        top_k: usize,
    ) -> PyResult<Bound<'py, PyList>> {
        let (num_perm, sigs) = signature_rows(&signatures)?;
        if num_perm != self.inner.num_perm() {
            return Err(Error::new("signatures do not match the index's num_perm").into());
        }
        let select = crate::lookup::Selection { threshold, top_k };
        let inner = &self.inner;
        let m = run(py, || inner.lookup(sigs, select))?;
        self.match_lists(py, m)
    }

    /// For each query row, the stored rows whose estimated containment of the query reaches
    /// `threshold` (`rust/lookup.rs`), as `lookup` returns them.
    #[allow(clippy::too_many_arguments)]
    fn containment<'py>(
        &self,
        py: Python<'py>,
        signatures: PyReadonlyArray2<'py, u32>,
        query_sizes: PyReadonlyArray1<'py, i64>,
        stored_sizes: PyReadonlyArray1<'py, i64>,
        threshold: f64,
        top_k: usize,
    ) -> PyResult<Bound<'py, PyList>> {
        let (num_perm, sigs) = signature_rows(&signatures)?;
        if num_perm != self.inner.num_perm() {
            return Err(Error::new("signatures do not match the index's num_perm").into());
        }
        let query_sizes = contiguous(&query_sizes, "query_sizes")?;
        let stored_sizes = contiguous(&stored_sizes, "stored_sizes")?;
        let select = crate::lookup::Selection { threshold, top_k };
        let inner = &self.inner;
        let m = run(py, || {
            inner.containment(sigs, query_sizes, stored_sizes, select)
        })?;
        self.match_lists(py, m)
    }
}

impl IndexMirror {
    /// The matches as lists of `match_type(id, similarity)`, one list per query.
    fn match_lists<'py>(
        &self,
        py: Python<'py>,
        m: crate::lookup::Matches,
    ) -> PyResult<Bound<'py, PyList>> {
        // tuple.__new__(Match, (id, similarity)): what Match._make does, without its frame
        let tuple_new = py.get_type::<PyTuple>().getattr(intern!(py, "__new__"))?;
        let match_type = self.match_type.bind(py);
        let out = PyList::empty(py);
        for bounds in m.offsets.windows(2) {
            let matches = PyList::empty(py);
            for i in bounds[0]..bounds[1] {
                let id = self.ids[m.rows[i] as usize].bind(py);
                let fields = (id, f64::from(m.similarity[i])).into_pyobject(py)?;
                matches.append(tuple_new.call1((match_type, fields))?)?;
            }
            out.append(matches)?;
        }
        Ok(out)
    }
}
