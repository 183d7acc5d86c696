//! The near stage's part of `neardup._core`: `near_stage` (`rust/near/stage.rs`), a run's
//! banding, near pairs and clusters in one call, from the sign pass's arrays and its sets
//! (held arrays or the run's `SetSpill`); the GIL released for the work (which a signal stops,
//! `run_interruptible`), and taken back once before a costly SimHash search to warn about it.

use super::banding::chosen_fields;
use super::hamming::plan_fields;
use super::spill::SetSpill;
use super::{contiguous, pair_matrix, run, run_interruptible, sets_view};
use crate::error::{Error, Result};
use crate::near::{
    self, MinHashNear, PairsMode, Search, SetSource, Signatures, SimHashNear, Unique,
};
use numpy::{
    IntoPyArray, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadwriteArray2,
    PyUntypedArrayMethods,
};
use pyo3::prelude::*;
use pyo3::types::PyDict;

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(near_stage, m)?)?;
    Ok(())
}

/// The sets to verify from: the held arrays, or the spill (exactly one of them, or neither).
fn set_source<'a>(
    offsets: &'a Option<PyReadonlyArray1<'_, i64>>,
    hashes: &'a Option<PyReadonlyArray1<'_, u64>>,
    spill: &'a Option<PyRef<'_, SetSpill>>,
) -> PyResult<Option<SetSource<'a>>> {
    match (offsets, hashes, spill) {
        (Some(o), Some(h), None) => Ok(Some(SetSource::Held(sets_view(o, h)?))),
        (None, None, Some(spill)) => Ok(Some(SetSource::Spilled(&spill.inner))),
        (None, None, None) => Ok(None),
        _ => Err(Error::new(
            "give the held sets (offsets and hashes, both) or the spill, not both",
        )
        .into()),
    }
}

/// The partition keys (uint64 per unique document), or None.
fn keys<'a>(
    partitions: &'a Option<PyReadonlyArray1<'_, u64>>,
    n: usize,
) -> Result<Option<&'a [u64]>> {
    let Some(array) = partitions else {
        return Ok(None);
    };
    let keys = contiguous(array, "partitions")?;
    if keys.len() != n {
        return Err(Error::new(format!(
            "partitions must hold one key per unique document ({n}), got {}",
            keys.len()
        )));
    }
    Ok(Some(keys))
}

/// The unique documents' signatures, borrowed: MinHash uint32[m, P] (writable: salted in
/// place when partitioned) or SimHash uint64[m, w].
enum SignatureArray<'py> {
    None,
    MinHash(PyReadwriteArray2<'py, u32>),
    SimHash(numpy::PyReadonlyArray2<'py, u64>),
}

impl<'py> SignatureArray<'py> {
    fn borrow(signatures: Option<&Bound<'py, PyAny>>) -> PyResult<Self> {
        let Some(array) = signatures else {
            return Ok(SignatureArray::None);
        };
        if let Ok(minhash) = array.downcast::<PyArray2<u32>>() {
            return Ok(SignatureArray::MinHash(minhash.try_readwrite()?));
        }
        if let Ok(simhash) = array.downcast::<PyArray2<u64>>() {
            return Ok(SignatureArray::SimHash(simhash.try_readonly()?));
        }
        Err(
            Error::new("signatures must be uint32[m, P] (MinHash) or uint64[m, w] (SimHash)")
                .into(),
        )
    }

    fn rows(&self) -> usize {
        match self {
            SignatureArray::None => 0,
            SignatureArray::MinHash(a) => a.shape()[0],
            SignatureArray::SimHash(a) => a.shape()[0],
        }
    }

    fn view(&mut self) -> Result<Signatures<'_>> {
        Ok(match self {
            SignatureArray::None => Signatures::None,
            SignatureArray::MinHash(array) => {
                let width = array.shape()[1];
                let slots = array
                    .as_slice_mut()
                    .map_err(|_| Error::new("signatures must be a C-contiguous array"))?;
                Signatures::MinHash { slots, width }
            }
            SignatureArray::SimHash(array) => Signatures::SimHash {
                width: array.shape()[1],
                words: contiguous(array, "fingerprints")?,
            },
        })
    }
}

/// The near stage of a run (`rust/near/stage.rs`) over the sign pass's arrays: ``first``
/// int64[n], ``selected`` int64[m], ``digests`` uint64[m, 2], ``set_sizes`` int64[m] (may be
/// empty where no banding is chosen), ``shingled`` and the ``signatures`` (MinHash uint32[m, P],
/// salted in place with ``partitions``; SimHash uint64[m, w]; None), the sets held
/// (``offsets``, ``hashes``) or spilled (``spill``, finished), by the resolved plan's options.
/// ``before_search(plan)`` is called with a SimHash search's five plan figures before it runs.
///
/// A dict: ``labels`` int64[n]; ``pairs`` int64[k, 2] into ``selected`` (sorted) and their
/// ``similarity`` float32[k]; ``sets_read`` ((offsets, hashes) of the sets read back from the
/// spill at once, or None) and ``chunks``; ``candidates``; ``banding`` ((bands, rows,
/// expected recall, predicted candidates, reason), MinHash) and ``search`` ((screened, bucket
/// splits, expected recall), when the MinHash search ran whole) or None; ``spanning``,
/// ``passes``, ``cross_partition_dropped``; ``simhash_plan`` (the five figures) or None.
#[pyfunction]
#[pyo3(signature = (
    first, selected, digests, set_sizes, shingled, signatures, *, method, threshold, bands=1,
    rows=1, given=false, bucket_limit=None, pairs="auto", spanning_limit=0, exact=false,
    screen=false, threads=1, verify_budget=0, max_distance=0, simhash_bits=64, partitions=None,
    offsets=None, hashes=None, spill=None, before_search=None
))]
#[allow(clippy::too_many_arguments)] // the Python signature
fn near_stage<'py>(
    py: Python<'py>,
    first: PyReadonlyArray1<'py, i64>,
    selected: PyReadonlyArray1<'py, i64>,
    digests: numpy::PyReadonlyArray2<'py, u64>,
    set_sizes: PyReadonlyArray1<'py, i64>,
    shingled: u64,
    signatures: Option<&Bound<'py, PyAny>>,
    method: &str,
    threshold: f64,
    bands: usize,
    rows: usize,
    given: bool,
    bucket_limit: Option<usize>,
    pairs: &str,
    spanning_limit: u64,
    exact: bool,
    screen: bool,
    threads: usize,
    verify_budget: u64,
    max_distance: u32,
    simhash_bits: usize,
    partitions: Option<PyReadonlyArray1<'py, u64>>,
    offsets: Option<PyReadonlyArray1<'py, i64>>,
    hashes: Option<PyReadonlyArray1<'py, u64>>,
    spill: Option<PyRef<'py, SetSpill>>,
    before_search: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    crate::lsh::check_threshold(threshold)?;
    let search = match method {
        "sha256" | "sha256-normalized" => Search::Copies,
        "exact-jaccard" => Search::ExactJaccard { threshold },
        "minhash" => Search::MinHash {
            near: MinHashNear {
                bands,
                rows,
                threshold,
                bucket_limit,
                pairs: PairsMode::parse(pairs)?,
                spanning_limit,
                exact,
                screen,
                threads,
                verify_budget,
            },
            given,
        },
        "simhash" => Search::SimHash {
            near: SimHashNear {
                max_distance,
                bits: simhash_bits,
                threshold,
                threads,
                verify_budget,
            },
            exact,
        },
        other => return Err(Error::new(format!("no near stage for method {other:?}")).into()),
    };
    let mut array = SignatureArray::borrow(signatures)?;
    let m = contiguous(&selected, "selected")?.len();
    if !matches!(array, SignatureArray::None) && array.rows() != m {
        return Err(Error::new(format!(
            "{} signature rows for {m} unique documents: one row each",
            array.rows()
        ))
        .into());
    }
    let unique = Unique {
        first: contiguous(&first, "first")?,
        selected: contiguous(&selected, "selected")?,
        digests: contiguous(&digests, "digests")?,
        set_sizes: contiguous(&set_sizes, "set_sizes")?,
        shingled,
        signatures: array.view()?,
        sets: set_source(&offsets, &hashes, &spill)?,
        partitions: keys(&partitions, m)?,
    };
    let (stage, plan) = search_after_warning(py, unique, &search, before_search.as_ref())?;
    stage_dict(py, stage, plan)
}

/// The near stage over `unique` (the GIL released; a signal stops it), after calling
/// `before_search` with a SimHash search's five plan figures; the stage and that plan.
pub(super) fn search_after_warning(
    py: Python<'_>,
    unique: Unique<'_>,
    search: &Search,
    before_search: Option<&Bound<'_, PyAny>>,
) -> PyResult<(near::Stage, Option<crate::hamming::SearchPlan>)> {
    let m = unique.selected.len();
    let plan = run(py, || near::simhash_plan(&unique, search))?;
    if let (Some(plan), Some(callback)) = (&plan, before_search) {
        callback.call1((plan_fields(plan),))?;
    }
    let stage = run_interruptible(py, m, || near::near_stage(unique, search))?;
    Ok((stage, plan))
}

/// The near stage's outcome as the dict `near_stage` documents.
pub(super) fn stage_dict<'py>(
    py: Python<'py>,
    stage: near::Stage,
    plan: Option<crate::hamming::SearchPlan>,
) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    out.set_item("labels", stage.labels.into_pyarray(py))?;
    out.set_item("pairs", pair_matrix(py, stage.verified.pairs)?)?;
    out.set_item("similarity", stage.verified.similarity.into_pyarray(py))?;
    match stage.verified.sets_read {
        Some((offsets, hashes)) => out.set_item(
            "sets_read",
            (offsets.into_pyarray(py), hashes.into_pyarray(py)),
        )?,
        None => out.set_item("sets_read", py.None())?,
    }
    out.set_item("chunks", stage.verified.chunks)?;
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
