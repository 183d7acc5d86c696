//! The sign pass's part of `neardup._core`: `SignPass` (`rust/sign_pass.rs`), fed a run's
//! batches in input order; it converts arrays and texts, borrows the run's `SetSpill`, and
//! releases the GIL around each batch.

use super::spill::SetSpill;
use super::{contiguous, matrix, run, Texts};
use crate::collapse::{Collapse, SignedRows};
use crate::error::Error;
use crate::hashing::HashVersion;
use crate::minhash::Algorithm;
use crate::shingle::Unit;
use crate::sign_pass::{SetPolicy, SignOptions, Signature};
use numpy::{IntoPyArray, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyDict;

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<SignPass>()?;
    Ok(())
}

/// The sign pass of one run: `sign(texts)` per batch (or `add` for batches signed by the
/// caller), then `finish()`.
#[pyclass(module = "neardup._core")]
struct SignPass {
    inner: crate::sign_pass::SignPass,
    /// Where the sets go past the budget (None: they are never spilled).
    spill: Option<Py<SetSpill>>,
    /// The rows of the last `add`ed batch that are new unique documents (for its signatures).
    chosen: Vec<usize>,
}

/// An int64 array argument as a slice, or empty when not given.
fn or_empty<'a>(array: &'a Option<PyReadonlyArray1<'_, i64>>, name: &str) -> PyResult<&'a [i64]> {
    Ok(match array {
        Some(array) => contiguous(array, name)?,
        None => &[],
    })
}

impl SignPass {
    /// Runs `work` on the pass and the spill's core (a private empty one when the pass has
    /// none: it is then never written), without the GIL.
    fn with_spill<T: Send>(
        &mut self,
        py: Python<'_>,
        work: impl FnOnce(
                &mut crate::sign_pass::SignPass,
                &mut crate::spill::SetSpill,
            ) -> crate::error::Result<T>
            + Send,
    ) -> PyResult<T> {
        let inner = &mut self.inner;
        match &self.spill {
            Some(spill) => {
                let mut spill = spill.try_borrow_mut(py)?;
                let core = &mut spill.inner;
                run(py, || work(inner, core))
            }
            None => {
                let mut none = crate::spill::SetSpill::new(None);
                run(py, || work(inner, &mut none))
            }
        }
    }
}

#[pymethods]
impl SignPass {
    /// `method` "minhash" or "simhash" signs texts (`sign`) with the given options; None takes
    /// signed batches only (`add`). `salts` uint64[n]: each document's partition key, mixed
    /// into its exact-copy digest (None: no partitions). The set policy: `hold` sets at all; hold every one while
    /// there are at most `needed_up_to` unique documents; else up to `budget` hashes, then
    /// to `spill` (`spill_past_budget`) or nowhere; `estimate_only`: held only while needed.
    #[new]
    #[pyo3(signature = (
        spill=None, *, salts=None, hold=false, needed_up_to=0, spill_past_budget=false, estimate_only=false,
        budget=0, method=None, k=5, unit="word", hash_version=2, threads=1, num_perm=128,
        seed=0, algorithm="classic", simhash_bits=64
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        spill: Option<Py<SetSpill>>,
        salts: Option<PyReadonlyArray1<'_, u64>>,
        hold: bool,
        needed_up_to: usize,
        spill_past_budget: bool,
        estimate_only: bool,
        budget: usize,
        method: Option<&str>,
        k: usize,
        unit: &str,
        hash_version: u32,
        threads: usize,
        num_perm: usize,
        seed: u64,
        algorithm: &str,
        simhash_bits: usize,
    ) -> PyResult<Self> {
        if spill_past_budget && spill.is_none() {
            return Err(Error::new("spill_past_budget needs a spill").into());
        }
        let signature = match method {
            None => None,
            Some("minhash") => Some(Signature::MinHash {
                num_perm,
                seed,
                algorithm: Algorithm::parse(algorithm)?,
            }),
            Some("simhash") => Some(Signature::SimHash { bits: simhash_bits }),
            Some(other) => {
                return Err(Error::new(format!(
                    "method must be 'minhash', 'simhash' or None, not {other:?}"
                ))
                .into())
            }
        };
        let options = match signature {
            None => None,
            Some(signature) => Some(SignOptions {
                k,
                unit: Unit::parse(unit)?,
                version: HashVersion::new(hash_version)?,
                threads,
                signature,
            }),
        };
        let salts = match &salts {
            Some(array) => contiguous(array, "salts")?.to_vec(),
            None => Vec::new(),
        };
        let policy = SetPolicy {
            hold,
            needed_up_to,
            spill_past_budget,
            estimate_only,
            budget,
        };
        Ok(SignPass {
            inner: crate::sign_pass::SignPass::new(options, policy, salts),
            spill,
            chosen: Vec::new(),
        })
    }

    /// Documents added so far.
    fn __len__(&self) -> usize {
        self.inner.collapse.len()
    }

    /// Whether the sets went to the spill (its `finish(unique)` is the caller's).
    #[getter]
    fn spilled(&self) -> bool {
        self.inner.spilled()
    }

    /// Signs the next batch of `texts` (list of str or (data, offsets)); `lengths` int64[n]
    /// (for keep="longest") or None.
    #[pyo3(signature = (texts, lengths=None))]
    fn sign(
        &mut self,
        py: Python<'_>,
        texts: &Bound<'_, PyAny>,
        lengths: Option<PyReadonlyArray1<'_, i64>>,
    ) -> PyResult<()> {
        let holder = Texts::borrow(texts)?;
        let strs = holder.strs()?;
        let lengths = or_empty(&lengths, "lengths")?;
        self.with_spill(py, |pass, spill| pass.sign(&strs, lengths, spill))
    }

    /// Adds a batch the caller signed: digests uint64[n, 2] (salted), groupable and live
    /// bool[n], lengths and set sizes int64[n] or None, its sets (`offsets` int64[n+1],
    /// `hashes`) when kept; returns int64[c], its rows that are new unique documents with
    /// shingles, whose signatures `add_minhash`/`add_simhash` take next.
    #[pyo3(signature = (digests, groupable, live, lengths=None, set_sizes=None, offsets=None, hashes=None))]
    #[allow(clippy::too_many_arguments)]
    fn add<'py>(
        &mut self,
        py: Python<'py>,
        digests: PyReadonlyArray2<'py, u64>,
        groupable: PyReadonlyArray1<'py, bool>,
        live: PyReadonlyArray1<'py, bool>,
        lengths: Option<PyReadonlyArray1<'py, i64>>,
        set_sizes: Option<PyReadonlyArray1<'py, i64>>,
        offsets: Option<PyReadonlyArray1<'py, i64>>,
        hashes: Option<PyReadonlyArray1<'py, u64>>,
    ) -> PyResult<Bound<'py, numpy::PyArray1<i64>>> {
        let batch = SignedRows {
            digests: contiguous(&digests, "digests")?,
            groupable: contiguous(&groupable, "groupable")?,
            live: contiguous(&live, "live")?,
            lengths: or_empty(&lengths, "lengths")?,
            set_sizes: or_empty(&set_sizes, "set_sizes")?,
        };
        let sets = match (&offsets, &hashes) {
            (Some(offsets), Some(hashes)) => Some((
                contiguous(offsets, "offsets")?,
                contiguous(hashes, "hashes")?,
            )),
            (None, None) => None,
            _ => return Err(Error::new("offsets and hashes come together").into()),
        };
        let chosen = self.with_spill(py, |pass, spill| pass.add_signed(&batch, sets, spill))?;
        let rows: Vec<i64> = chosen.iter().map(|&row| row as i64).collect();
        self.chosen = chosen;
        Ok(rows.into_pyarray(py))
    }

    /// Appends MinHash signatures uint32[r, P] of the last `add`ed batch's new unique
    /// documents: taken from the whole batch's (`whole_batch`), or theirs alone, in order.
    #[pyo3(signature = (signatures, whole_batch=true))]
    fn add_minhash(
        &mut self,
        py: Python<'_>,
        signatures: PyReadonlyArray2<'_, u32>,
        whole_batch: bool,
    ) -> PyResult<()> {
        self.add_rows(py, signatures, whole_batch, Collapse::add_minhash)
    }

    /// `add_minhash` for SimHash fingerprints uint64[r, w].
    #[pyo3(signature = (fingerprints, whole_batch=true))]
    fn add_simhash(
        &mut self,
        py: Python<'_>,
        fingerprints: PyReadonlyArray2<'_, u64>,
        whole_batch: bool,
    ) -> PyResult<()> {
        self.add_rows(py, fingerprints, whole_batch, Collapse::add_simhash)
    }

    /// Ends the pass: a dict of ``first`` int64[n], ``empty`` bool[n] (not groupable),
    /// ``lengths`` int64[n], ``selected`` int64[m] (the unique documents with shingles),
    /// ``digests`` uint64[m, 2], ``set_sizes`` int64[m] (empty when not given), ``shingled``
    /// (shingles of every document read), ``signatures`` (uint32[m, P], uint64[m, w] or
    /// None), ``sets`` ((offsets int64[m+1], hashes) when every set is held, else None) and
    /// ``spilled``; the pass is empty afterwards.
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let out = PyDict::new(py);
        match self.inner.take_held() {
            Some((offsets, hashes)) => {
                out.set_item("sets", (offsets.into_pyarray(py), hashes.into_pyarray(py)))?
            }
            None => out.set_item("sets", py.None())?,
        }
        out.set_item("spilled", self.inner.spilled())?;
        let pass = std::mem::take(&mut self.inner.collapse);
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

impl SignPass {
    /// Hands a signature matrix to the collapse stage's `add` (MinHash or SimHash), the rows
    /// kept those [`SignPass::rows`] says.
    fn add_rows<T: numpy::Element + Sync>(
        &mut self,
        py: Python<'_>,
        matrix: PyReadonlyArray2<'_, T>,
        whole_batch: bool,
        add: fn(&mut Collapse, &[T], usize, &[usize]) -> crate::error::Result<()>,
    ) -> PyResult<()> {
        let n = matrix.shape()[0];
        let rows = self.rows(whole_batch, n);
        let slice = contiguous(&matrix, "signatures")?;
        let collapse = &mut self.inner.collapse;
        run(py, || add(collapse, slice, n, &rows))
    }

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
