//! One run's part of `neardup._core`: `Run` (`rust/run/mod.rs`), made from the plan's dict once,
//! fed the batches in input order (`sign`), then `finish` (the collapse and the resolved
//! plan) and `near` (the near stage, `rust/near/stage.rs`); and `resolve_plan`, the plan for a
//! number of documents. It converts the plan, arrays and texts, borrows the run's `SetSpill`,
//! and releases the GIL around the work.

use super::banding::chosen_fields;
use super::hamming::plan_fields;
use super::report::MeasureArray;
use super::spill::SetSpill;
use super::{built_sets, contiguous, matrix, pair_matrix, run, run_reporting, Texts};
use crate::error::Error;
use crate::hashing::HashVersion;
use crate::keep::Policy;
use crate::minhash::Algorithm;
use crate::near::{self, PairsMode, Search, Unique};
use crate::report::Mode;
use crate::run::{Decided, Method, Resolved, RunPlan, SignatureRows, Signed};
use crate::shingle::Unit;
use crate::sign_pass::StripCounts;
use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// What `Run.keep` gives back.
type KeptAndReported<'py> = (
    Bound<'py, PyArray1<bool>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray2<i64>>,
    Bound<'py, PyArray1<f32>>,
    Option<&'static str>,
    Option<u64>,
);

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Run>()?;
    m.add_function(wrap_pyfunction!(resolve_plan, m)?)?;
    m.add_function(wrap_pyfunction!(simhash_radius, m)?)?;
    Ok(())
}

/// The value of `key` in the plan's dict, or an error naming it.
fn field<'py, T: FromPyObject<'py>>(plan: &Bound<'py, PyDict>, key: &str) -> PyResult<T> {
    let value = plan
        .get_item(key)?
        .ok_or_else(|| Error::new(format!("the plan has no {key:?}")))?;
    value.extract().map_err(|_| {
        Error::new(format!(
            "the plan's {key:?} is not what a plan holds: {value}"
        ))
        .into()
    })
}

/// The options of a plan's dict (`neardup.Plan.as_dict()`, checked once by `make_plan`).
fn run_plan(plan: &Bound<'_, PyDict>) -> PyResult<RunPlan> {
    let verify: String = field(plan, "verify")?;
    let keep: String = field(plan, "keep")?;
    Ok(RunPlan {
        method: Method::parse(&field::<String>(plan, "method")?)?,
        threshold: field(plan, "threshold")?,
        k: field(plan, "k")?,
        unit: Unit::parse(&field::<String>(plan, "unit")?)?,
        version: HashVersion::new(field(plan, "hash_version")?)?,
        num_perm: field(plan, "num_perm")?,
        seed: field(plan, "seed")?,
        algorithm: Algorithm::parse(&field::<String>(plan, "algorithm")?)?,
        simhash_bits: field(plan, "simhash_bits")?,
        bands: field(plan, "bands")?,
        rows: field(plan, "rows")?,
        max_hamming: field(plan, "max_hamming")?,
        exact: verify == "exact",
        bucket_limit: field(plan, "bucket_limit")?,
        pairs: PairsMode::parse(&field::<String>(plan, "pairs")?)?,
        spanning_limit: field(plan, "spanning_limit")?,
        threads: field(plan, "threads")?,
        auto_exact_limit: field(plan, "auto_exact_limit")?,
        keep: Policy::parse(&keep)?,
        strip: field(plan, "strip_boilerplate")?,
    })
}

/// The resolved plan's changes as a dict: `method`, `bands`, `rows`, `max_hamming`.
fn resolved_dict<'py>(py: Python<'py>, resolved: &Resolved) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    out.set_item("method", resolved.method.name())?;
    out.set_item("bands", resolved.bands)?;
    out.set_item("rows", resolved.rows)?;
    out.set_item("max_hamming", resolved.max_hamming)?;
    Ok(out)
}

/// What `plan` (a plan's dict) becomes for `n` documents (`rust/run/mod.rs`): a dict of `method`
/// (never "auto"), `bands`, `rows` and `max_hamming`.
#[pyfunction]
fn resolve_plan<'py>(
    py: Python<'py>,
    plan: &Bound<'py, PyDict>,
    n: usize,
) -> PyResult<Bound<'py, PyDict>> {
    let resolved = run_plan(plan)?.resolve(n)?;
    resolved_dict(py, &resolved)
}

/// The Hamming radius of `bits`-bit SimHash fingerprints matching a Jaccard `threshold`.
#[pyfunction]
fn simhash_radius(threshold: f64, bits: usize) -> PyResult<u32> {
    crate::lsh::check_threshold(threshold)?;
    Ok(crate::run::simhash_radius(threshold, bits))
}

/// What stripping the boilerplate removed, as `finish` gives it: (set sizes before stripping,
/// shingles stripped), int64[n] each, or None when nothing is stripped.
fn stripped_item(py: Python<'_>, counts: Option<StripCounts>) -> PyResult<Bound<'_, PyAny>> {
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

/// The near stage over `unique` (the GIL released; a signal stops it, `progress` hears how it
/// goes), after calling `before_search` with a SimHash search's five plan figures; the stage
/// and that plan.
fn search_after_warning(
    py: Python<'_>,
    unique: Unique<'_>,
    search: &Search,
    before_search: Option<&Bound<'_, PyAny>>,
    progress: Option<&Bound<'_, PyAny>>,
) -> PyResult<(near::Stage, Option<crate::hamming::SearchPlan>)> {
    let m = unique.selected.len();
    let plan = run(py, || near::simhash_plan(&unique, search))?;
    if let (Some(plan), Some(callback)) = (&plan, before_search) {
        callback.call1((plan_fields(plan),))?;
    }
    let stage = run_reporting(py, m, progress, || near::near_stage(unique, search))?;
    Ok((stage, plan))
}

/// The near stage's outcome as the dict `Run.near` documents (without its ``sets`` and
/// ``signatures``, which `Run.near` adds from what the pass left).
fn stage_dict<'py>(
    py: Python<'py>,
    stage: near::Stage,
    plan: Option<crate::hamming::SearchPlan>,
) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    out.set_item("labels", stage.labels.into_pyarray(py))?;
    out.set_item("pairs", pair_matrix(py, stage.verified.pairs)?)?;
    out.set_item("similarity", stage.verified.similarity.into_pyarray(py))?;
    out.set_item("candidates", stage.candidates)?;
    match stage.banding {
        Some(banding) => out.set_item("banding", chosen_fields(banding))?,
        None => out.set_item("banding", py.None())?,
    }
    match stage.search {
        Some(s) => out.set_item("search", (s.screened, s.splits, s.expected_recall))?,
        None => out.set_item("search", py.None())?,
    }
    out.set_item("spanning", stage.spanning)?;
    out.set_item("passes", stage.passes)?;
    out.set_item("cross_partition_dropped", stage.cross_partition_dropped)?;
    match &plan {
        Some(plan) => out.set_item("simhash_plan", plan_fields(plan))?,
        None => out.set_item("simhash_plan", py.None())?,
    }
    Ok(out)
}

/// One run of a plan: `sign(texts)` per batch, then `finish()`, `near()` and `keep()`.
#[pyclass(module = "neardup._core")]
struct Run {
    inner: crate::run::Run,
    /// Where the sets go past the budget, read back by exact verification.
    spill: Py<SetSpill>,
    /// What the pass left, from `finish` until `near`.
    signed: Option<Signed>,
    /// What the near stage decided, from `near` until `keep`.
    decided: Option<Decided>,
}

#[pymethods]
impl Run {
    /// A run of `plan` (``neardup.Plan.as_dict()``) writing past `budget` held hashes to
    /// `spill`. `salts` uint64[n]: each document's partition key (None: no partitions).
    #[new]
    #[pyo3(signature = (spill, plan, *, salts=None, budget=0))]
    fn new(
        spill: Py<SetSpill>,
        plan: &Bound<'_, PyDict>,
        salts: Option<PyReadonlyArray1<'_, u64>>,
        budget: usize,
    ) -> PyResult<Self> {
        let salts = match &salts {
            Some(array) => contiguous(array, "salts")?.to_vec(),
            None => Vec::new(),
        };
        Ok(Run {
            inner: crate::run::Run::new(run_plan(plan)?, salts, budget)?,
            spill,
            signed: None,
            decided: None,
        })
    }

    /// Counts the boilerplate of the next batch of `texts` (a plan with `strip_boilerplate`):
    /// pass 1 over every batch, then pass 2 (`second`) over every batch again, before the
    /// first `sign`.
    #[pyo3(signature = (texts, *, second))]
    fn count_boilerplate(
        &mut self,
        py: Python<'_>,
        texts: &Bound<'_, PyAny>,
        second: bool,
    ) -> PyResult<()> {
        let holder = Texts::borrow(texts)?;
        let strs = holder.strs()?;
        let inner = &mut self.inner;
        run(py, || inner.count_boilerplate(&strs, second))
    }

    /// Documents signed so far.
    fn __len__(&self) -> usize {
        self.inner.len()
    }

    /// Signs the next batch of `texts` (list of str or (data, offsets)).
    fn sign(&mut self, py: Python<'_>, texts: &Bound<'_, PyAny>) -> PyResult<()> {
        let holder = Texts::borrow(texts)?;
        let strs = holder.strs()?;
        let mut spill = self.spill.try_borrow_mut(py)?;
        let (inner, core) = (&mut self.inner, &mut spill.inner);
        run(py, || inner.sign(&strs, core))
    }

    /// Ends the pass: a dict of ``resolved`` (the plan's changes for the unique documents, as
    /// `resolve_plan` gives them), ``first`` int64[n], ``empty`` bool[n] (no shingles),
    /// ``lengths`` int64[n], ``selected`` int64[m] (the unique documents with shingles),
    /// ``spilled``, ``stripped`` ((set sizes before stripping, shingles stripped), int64[n]
    /// each, or None) and ``dropped`` (the distinct boilerplate shingles stripped).
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let mut spill = self.spill.try_borrow_mut(py)?;
        let (inner, core) = (&mut self.inner, &mut spill.inner);
        let mut signed = run(py, || inner.finish(core))?;
        // what the near stage reads is copied out; the rest is handed over
        let out = PyDict::new(py);
        out.set_item("resolved", resolved_dict(py, &signed.resolved)?)?;
        out.set_item("first", signed.first.clone().into_pyarray(py))?;
        out.set_item("empty", std::mem::take(&mut signed.empty).into_pyarray(py))?;
        out.set_item(
            "lengths",
            std::mem::take(&mut signed.lengths).into_pyarray(py),
        )?;
        out.set_item("selected", signed.selected.clone().into_pyarray(py))?;
        out.set_item("spilled", signed.spilled)?;
        out.set_item("stripped", stripped_item(py, signed.stripped.take())?)?;
        out.set_item("dropped", signed.dropped)?;
        self.signed = Some(signed);
        Ok(out)
    }

    /// The near stage of the unique documents (after `finish`; `rust/near/stage.rs`): a dict of
    /// ``labels`` int64[n]; ``pairs`` int64[k, 2] into ``selected`` (sorted) and their
    /// ``similarity`` float32[k]; ``candidates``; ``banding`` ((bands, rows,
    /// expected recall, predicted candidates, reason), MinHash) and ``search`` ((screened,
    /// bucket splits, expected recall), when the MinHash search ran whole) or None;
    /// ``spanning``, ``passes``, ``cross_partition_dropped``; ``simhash_plan`` (the five
    /// figures) or None; ``sets`` ((offsets, hashes) of the sets held or read back at once,
    /// else None) and
    /// ``signatures`` (what similarities to kept documents are estimated from: MinHash
    /// uint32[m, P] or SimHash uint64[m, w]; None for exact Jaccard, and for MinHash verified
    /// exactly at once, whose similarities are then the sets' exact Jaccard).
    /// `verify_budget`: shingles of the candidates' sets read back from the spill at once.
    /// `before_search(plan)` is called with a SimHash search's five plan figures first.
    /// `progress(step, done, unit)` is called as the stage goes with what each of its steps
    /// (e.g. ``"LSH search"`` in ``"bands"``, ``"verify"`` in ``"pairs"``) did since the last
    /// call; an exception it raises stops the stage.
    #[pyo3(signature = (*, verify_budget, before_search=None, progress=None))]
    fn near<'py>(
        &mut self,
        py: Python<'py>,
        verify_budget: u64,
        before_search: Option<Bound<'py, PyAny>>,
        progress: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let mut signed = self
            .signed
            .take()
            .ok_or_else(|| Error::new("near() comes once, after finish()"))?;
        let plan = *self.inner.plan();
        let search = plan.search(&signed.resolved, verify_budget);
        let spill = self.spill.try_borrow(py)?;
        let unique = signed.unique(&spill.inner, plan.exact)?;
        let (mut stage, simhash) = search_after_warning(
            py,
            unique,
            &search,
            before_search.as_ref(),
            progress.as_ref(),
        )?;
        let chunks = stage.verified.chunks;
        let searched = signed.selected.len() >= 2;
        self.decided = Some(Decided::new(&mut signed, &stage));
        // the sets the pass held, else those the stage read back from the spill at once
        let sets = signed.held.take().or(stage.verified.sets_read.take());
        let out = stage_dict(py, stage, simhash)?;
        match sets {
            Some((offsets, hashes)) => out.set_item("sets", built_sets(py, offsets, hashes)?)?,
            None => out.set_item("sets", py.None())?,
        }
        let exact_at_once = plan.exact && searched && chunks == 0;
        let signatures = match signed.signatures {
            SignatureRows::MinHash { .. } if exact_at_once => py.None().into_bound(py),
            SignatureRows::MinHash { slots, width } => matrix(py, slots, width)?.into_any(),
            SignatureRows::SimHash { words, width } => matrix(py, words, width)?.into_any(),
            SignatureRows::None => py.None().into_bound(py),
        };
        out.set_item("signatures", signatures)?;
        Ok(out)
    }

    /// The kept documents and the reported pairs (after `near`): (keep bool[n],
    /// representative int64[n], pairs int64[k, 2] of input positions, sorted, similarity
    /// float32[k], the pairs mode used, the count of all pairs when `auto` turned to spanning
    /// past the plan's limit or None). `measure`: one number per document (int64, uint64 or
    /// float64) for the `longest` and `priority` policies. `report=False`: no pairs, and the
    /// mode None. Past `max_pairs`, all pairs is a `ResourceError`.
    #[pyo3(signature = (measure=None, *, report, max_pairs))]
    fn keep<'py>(
        &mut self,
        py: Python<'py>,
        measure: Option<&Bound<'py, PyAny>>,
        report: bool,
        max_pairs: u64,
    ) -> PyResult<KeptAndReported<'py>> {
        let decided = self
            .decided
            .take()
            .ok_or_else(|| Error::new("keep() comes once, after near()"))?;
        let plan = *self.inner.plan();
        let measure = measure.map(MeasureArray::borrow).transpose()?;
        let view = measure.as_ref().map(MeasureArray::view).transpose()?;
        let outcome = run(py, || {
            decided.keep_and_report(&plan, view, report, max_pairs)
        })?;
        let (keep, representative) = outcome.kept;
        let (pairs, similarity, mode, over) = match outcome.report {
            Some(r) => (
                r.reported.pairs,
                r.reported.similarity,
                Some(r.mode),
                r.over_limit,
            ),
            None => (Vec::new(), Vec::new(), None, None),
        };
        Ok((
            keep.into_pyarray(py),
            representative.into_pyarray(py),
            matrix(py, pairs, 2)?,
            similarity.into_pyarray(py),
            mode.map(Mode::name),
            over,
        ))
    }
}
