//! The sign pass's part of `neardup._core`: `SignPass` (`rust/sign_pass.rs`), fed a run's
//! batches in input order; it converts arrays and texts, borrows the run's `SetSpill`, and
//! releases the GIL around each batch.

use super::spill::SetSpill;
use super::{built_sets, contiguous, matrix, run, Texts};
use crate::error::Error;
use crate::hashing::HashVersion;
use crate::minhash::Algorithm;
use crate::shingle::Unit;
use crate::sign_pass::{SetPolicy, SignOptions, StripCounts};
use numpy::{IntoPyArray, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::PyDict;

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<SignPass>()?;
    Ok(())
}

/// What stripping the boilerplate removed, as `finish` gives it: (set sizes before stripping,
/// shingles stripped), int64[n] each, or None when nothing is stripped.
pub(super) fn stripped_item(
    py: Python<'_>,
    counts: Option<StripCounts>,
) -> PyResult<Bound<'_, PyAny>> {
    match counts {
        Some(counts) => Ok((
            counts.sizes.into_pyarray(py),
            counts.removed.into_pyarray(py),
        )
            .into_pyobject(py)?
            .into_any()),
        None => Ok(py.None().into_bound(py)),
    }
}

/// The sign pass of one run: `sign(texts)` per batch, then `finish()`.
#[pyclass(module = "neardup._core")]
struct SignPass {
    inner: crate::sign_pass::SignPass,
    /// Where the sets go past the budget (None: they are never spilled).
    spill: Option<Py<SetSpill>>,
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
    /// `method` "minhash" (or "auto") or "simhash" signs texts (`sign`) with the given options,
    /// "exact-jaccard" shingles and digests them, "sha256" and "sha256-normalized" digest
    /// them alone. `salts` uint64[n]: each document's
    /// partition key, mixed into its exact-copy digest (None: no partitions). `drop`
    /// uint64[d]: the boilerplate shingles stripped from every set after its digest, before
    /// it is signed and kept (None or empty: none). The set policy: `hold` sets at all; hold
    /// every one while there are at most `needed_up_to` unique documents; else up to `budget`
    /// hashes, then to `spill` (`spill_past_budget`) or nowhere; `estimate_only`: held only
    /// while needed. `count_chars`: each document's characters are counted (``lengths``).
    #[new]
    #[pyo3(signature = (
        spill=None, *, salts=None, drop=None, hold=false, needed_up_to=0, spill_past_budget=false,
        estimate_only=false, budget=0, method="minhash", k=5, unit="word", hash_version=2, threads=1,
        num_perm=128, seed=0, algorithm="classic", simhash_bits=64, count_chars=false
    ))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        spill: Option<Py<SetSpill>>,
        salts: Option<PyReadonlyArray1<'_, u64>>,
        drop: Option<PyReadonlyArray1<'_, u64>>,
        hold: bool,
        needed_up_to: usize,
        spill_past_budget: bool,
        estimate_only: bool,
        budget: usize,
        method: &str,
        k: usize,
        unit: &str,
        hash_version: u32,
        threads: usize,
        num_perm: usize,
        seed: u64,
        algorithm: &str,
        simhash_bits: usize,
        count_chars: bool,
    ) -> PyResult<Self> {
        if spill_past_budget && spill.is_none() {
            return Err(Error::new("spill_past_budget needs a spill").into());
        }
        let method = crate::run::Method::parse(method)?.signed(
            num_perm,
            seed,
            Algorithm::parse(algorithm)?,
            simhash_bits,
        );
        let options = SignOptions {
            k,
            unit: Unit::parse(unit)?,
            version: HashVersion::new(hash_version)?,
            threads,
            method,
            count_chars,
        };
        let drop = match &drop {
            Some(array) => contiguous(array, "drop")?,
            None => &[],
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
            inner: crate::sign_pass::SignPass::new(options, policy, salts, drop)?,
            spill,
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

    /// Signs the next batch of `texts` (list of str or (data, offsets)).
    fn sign(&mut self, py: Python<'_>, texts: &Bound<'_, PyAny>) -> PyResult<()> {
        let holder = Texts::borrow(texts)?;
        let strs = holder.strs()?;
        self.with_spill(py, |pass, spill| pass.sign(&strs, spill))
    }

    /// Ends the pass: a dict of ``first`` int64[n], ``empty`` bool[n] (not groupable),
    /// ``lengths`` int64[n], ``selected`` int64[m] (the unique documents with shingles),
    /// ``digests`` uint64[m, 2], ``set_sizes`` int64[m] (empty when not given), ``shingled``
    /// (shingles of every document read), ``signatures`` (uint32[m, P], uint64[m, w] or
    /// None), ``sets`` ((offsets int64[m+1], hashes) when every set is held, else None),
    /// ``spilled`` and ``stripped`` ((sizes int64[n], the set sizes before stripping; removed
    /// int64[n], the shingles stripped) when the pass strips boilerplate, else None); the
    /// pass is empty afterwards.
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let out = PyDict::new(py);
        match self.inner.take_held() {
            Some((offsets, hashes)) => out.set_item("sets", built_sets(py, offsets, hashes)?)?,
            None => out.set_item("sets", py.None())?,
        }
        out.set_item("spilled", self.inner.spilled())?;
        out.set_item("stripped", stripped_item(py, self.inner.stripped.take())?)?;
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
