//! The Python module `neardup._core`: argument conversion only. Every function borrows its
//! inputs, releases the GIL around the work, and turns errors and panics into Python exceptions
//! (`impl From<Error> for PyErr`, the one mapping of the core's error kinds).

mod banding;
mod boilerplate;
mod collapse;
mod hamming;
mod hash;
mod index;
mod jsonl;
mod lsh;
mod matches;
mod paragraphs;
mod report;
mod run;
mod sets;
mod sign;
mod spill;
mod texts;
mod units;

use crate::error::{reserve, Error, Result};
use crate::hashing::HashVersion;
use crate::minhash::Algorithm;
use crate::shingle::{ShingleSets, Unit};
use crate::{cluster, exact, hashing, signing, verify};
use numpy::{
    IntoPyArray, PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2,
    PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyMemoryError, PyOSError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::PyType;
use sets::{built_sets, sets_view, SetArrays};
use texts::Texts;

/// The classes of `neardup.errors`, imported once on first use.
static INVALID_ARGUMENT: GILOnceCell<Py<PyType>> = GILOnceCell::new();
static INPUT: GILOnceCell<Py<PyType>> = GILOnceCell::new();
static INPUT_TYPE: GILOnceCell<Py<PyType>> = GILOnceCell::new();
static RESOURCE: GILOnceCell<Py<PyType>> = GILOnceCell::new();
static CORRUPT: GILOnceCell<Py<PyType>> = GILOnceCell::new();

/// Each error kind becomes its class of `neardup.errors` (`python/neardup/errors.py`). Should
/// that module not import (the compiled module used alone), the builtin it derives from is used.
/// A failed file operation is the builtin `OSError(errno, message)` (`e.errno` set when the OS
/// gave a number), as neardup's other file writes raise.
impl From<Error> for PyErr {
    fn from(error: Error) -> PyErr {
        let message = error.message().to_owned();
        if let Error::Os { errno, .. } = error {
            return match errno {
                Some(errno) => PyOSError::new_err((errno, message)),
                None => PyOSError::new_err(message),
            };
        }
        if let Error::Interrupted = error {
            return pyo3::exceptions::PyKeyboardInterrupt::new_err(message);
        }
        Python::with_gil(|py| {
            let (cell, name) = match &error {
                Error::InvalidArgument(_) => (&INVALID_ARGUMENT, "InvalidArgumentError"),
                Error::InvalidInput { .. } => (&INPUT, "InputError"),
                Error::InputType(_) => (&INPUT_TYPE, "InputTypeError"),
                Error::Resource(_) => (&RESOURCE, "ResourceError"),
                Error::Corrupt(_) => (&CORRUPT, "IndexCorruptError"),
                Error::Os { .. } | Error::Interrupted => unreachable!("mapped above"),
            };
            match cell.import(py, "neardup.errors", name) {
                Ok(class) => PyErr::from_type(class.clone(), message),
                Err(_) => match error {
                    Error::InputType(_) => PyTypeError::new_err(message),
                    Error::Resource(_) => PyMemoryError::new_err(message),
                    _ => PyValueError::new_err(message),
                },
            }
        })
    }
}

/// Runs `work` without the GIL; an `Error` becomes its `neardup.errors` class, a panic (a bug)
/// `RuntimeError`.
fn run<T: Send>(py: Python<'_>, work: impl FnOnce() -> Result<T> + Send) -> PyResult<T> {
    let outcome = py.allow_threads(|| std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)));
    match outcome {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(error)) => Err(error.into()),
        Err(_) => Err(PyRuntimeError::new_err(
            "neardup internal error (a bug, please report it)",
        )),
    }
}

/// How often a long call looks for a signal (Ctrl-C) while its work runs.
const SIGNAL_POLL: std::time::Duration = std::time::Duration::from_millis(50);

/// Documents below which a call runs as [`run`] does: it ends before Ctrl-C would matter, and
/// the worker thread would cost more than the work.
const INTERRUPTIBLE_FROM: usize = 10_000;

/// [`run`] for a call that may take long: the work runs on a thread of its own while this one
/// (without the GIL) looks for signals every [`SIGNAL_POLL`]. A signal whose handler raises
/// (Ctrl-C's `KeyboardInterrupt`, the command line's SIGTERM) asks the work to stop at its next
/// task ([`crate::parallel::interrupt`]); once it has, the handler's exception is raised.
/// The work borrows the caller's arrays, so this returns only after it has ended. A call over
/// fewer than [`INTERRUPTIBLE_FROM`] `documents` runs on this thread.
fn run_interruptible<T: Send>(
    py: Python<'_>,
    documents: usize,
    work: impl FnOnce() -> Result<T> + Send,
) -> PyResult<T> {
    run_reporting(py, documents, None, work)
}

/// [`run_interruptible`], with `progress(step, done, unit)` called with the GIL, at each look
/// for signals and once at the end, for what the work did since the last call (its steps and
/// counts, [`crate::progress`]). An exception the callback raises stops the work, as a signal
/// does, and is raised.
fn run_reporting<T: Send>(
    py: Python<'_>,
    documents: usize,
    progress: Option<&Bound<'_, PyAny>>,
    work: impl FnOnce() -> Result<T> + Send,
) -> PyResult<T> {
    let callback = progress.map(|callback| callback.clone().unbind());
    let sink = callback.as_ref().map(|_| crate::progress::Progress::new());
    let report = |py: Python<'_>| -> PyResult<()> {
        if let (Some(callback), Some(sink)) = (&callback, &sink) {
            for (step, unit, done) in sink.updates() {
                callback.bind(py).call1((step, done, unit))?;
            }
        }
        Ok(())
    };
    let work = || crate::progress::reporting(sink.clone(), work);
    if documents < INTERRUPTIBLE_FROM {
        let value = run(py, work)?;
        report(py)?;
        return Ok(value);
    }
    // set by the worker before it wakes the waiting thread: its result is ready to join
    let done = std::sync::atomic::AtomicBool::new(false);
    let (outcome, raised) = py.allow_threads(|| {
        std::thread::scope(|scope| {
            let waiting = std::thread::current();
            let done = &done;
            let worker = scope.spawn(move || {
                let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work));
                done.store(true, std::sync::atomic::Ordering::Release);
                waiting.unpark();
                outcome
            });
            let mut raised: Option<PyErr> = None;
            while !done.load(std::sync::atomic::Ordering::Acquire) {
                std::thread::park_timeout(SIGNAL_POLL);
                if raised.is_none() && !done.load(std::sync::atomic::Ordering::Acquire) {
                    if let Err(error) =
                        Python::with_gil(|py| py.check_signals().and_then(|()| report(py)))
                    {
                        crate::parallel::interrupt();
                        raised = Some(error);
                    }
                }
            }
            let outcome = worker.join().unwrap_or_else(Err);
            if raised.is_some() {
                crate::parallel::clear_interrupt();
            }
            (outcome, raised)
        })
    });
    if let Some(error) = raised {
        return Err(error);
    }
    match outcome {
        Ok(Ok(value)) => {
            report(py)?;
            Ok(value)
        }
        Ok(Err(error)) => Err(error.into()),
        Err(_) => Err(PyRuntimeError::new_err(
            "neardup internal error (a bug, please report it)",
        )),
    }
}

/// (pairs int64[m, 2], one value per pair): what the pair-finding functions return.
type PairsAnd<'py, T> = PyResult<(Bound<'py, PyArray2<i64>>, Bound<'py, PyArray1<T>>)>;

/// The hashes of shingle sets, uint64[total].
type Hashes<'py> = Bound<'py, PyArray1<u64>>;

/// The contiguous items of an array argument, or an error naming it.
fn contiguous<'a, T: numpy::Element, D: numpy::ndarray::Dimension>(
    array: &'a numpy::PyReadonlyArray<'_, T, D>,
    name: &str,
) -> Result<&'a [T]> {
    array
        .as_slice()
        .map_err(|_| Error::new(format!("{name} must be a C-contiguous array")))
}

fn pairs_vec(pairs: &PyReadonlyArray2<i64>) -> Result<Vec<(i64, i64)>> {
    if pairs.shape()[1] != 2 {
        return Err(Error::new("pairs must have shape (m, 2)"));
    }
    let flat = contiguous(pairs, "pairs")?;
    let mut out = Vec::new();
    reserve(&mut out, flat.len() / 2, "the pairs")?;
    out.extend(flat.chunks_exact(2).map(|p| (p[0], p[1])));
    Ok(out)
}

/// The row width (num_perm) and the contiguous slots of a signature matrix.
fn signature_rows<'a>(signatures: &'a PyReadonlyArray2<'_, u32>) -> Result<(usize, &'a [u32])> {
    Ok((signatures.shape()[1], contiguous(signatures, "signatures")?))
}

fn matrix<'py, T: numpy::Element>(
    py: Python<'py>,
    data: Vec<T>,
    columns: usize,
) -> PyResult<Bound<'py, PyArray2<T>>> {
    let rows = data.len().checked_div(columns).unwrap_or(0);
    data.into_pyarray(py).reshape([rows, columns])
}

fn pair_matrix<'py>(
    py: Python<'py>,
    pairs: Vec<(u32, u32)>,
) -> PyResult<Bound<'py, PyArray2<i64>>> {
    let mut flat: Vec<i64> = Vec::new();
    reserve(&mut flat, pairs.len().saturating_mul(2), "the pairs found")?;
    flat.extend(pairs.into_iter().flat_map(|(i, j)| [i as i64, j as i64]));
    matrix(py, flat, 2)
}

#[pyfunction]
fn normalize(py: Python<'_>, text: &str, hash_version: u32) -> PyResult<String> {
    let version = HashVersion::new(hash_version)?;
    run(py, || Ok(crate::normalize::normalize(text, version)))
}

/// Starts or ends of ranges, one per shingle.
type Positions<'py> = Bound<'py, PyArray1<i64>>;

/// Every shingle of `text` with the source character range it comes from ([`crate::offsets`]):
/// (hashes uint64[m], starts int64[m], ends int64[m]), in document order.
#[pyfunction]
fn shingle_offsets<'py>(
    py: Python<'py>,
    text: &str,
    k: usize,
    unit: &str,
    hash_version: u32,
) -> PyResult<(Hashes<'py>, Positions<'py>, Positions<'py>)> {
    let unit = Unit::parse(unit)?;
    let version = HashVersion::new(hash_version)?;
    let found = run(py, || {
        crate::offsets::shingle_offsets(text, k, unit, version)
    })?;
    let hashes: Vec<u64> = found.iter().map(|s| s.0).collect();
    let starts: Vec<i64> = found.iter().map(|s| s.1 as i64).collect();
    let ends: Vec<i64> = found.iter().map(|s| s.2 as i64).collect();
    Ok((
        hashes.into_pyarray(py),
        starts.into_pyarray(py),
        ends.into_pyarray(py),
    ))
}

/// The widest instruction set the MinHash kernel uses in this process ("avx512", "avx2",
/// "neon" or "none"), after the `NEARDUP_SIMD` cap (`crate::cpu`).
#[pyfunction]
fn simd() -> &'static str {
    crate::cpu::in_use()
}

#[pyfunction]
fn word_counts<'py>(
    py: Python<'py>,
    texts: &Bound<'py, PyAny>,
    hash_version: u32,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let version = HashVersion::new(hash_version)?;
    let holder = Texts::borrow(texts)?;
    let strs = holder.strs()?;
    Ok(run(py, || Ok(signing::word_counts(&strs, version)))?.into_pyarray(py))
}

#[pyfunction]
#[pyo3(signature = (texts, k, unit, hash_version, selected=None))]
fn shingle_sets<'py>(
    py: Python<'py>,
    texts: &Bound<'py, PyAny>,
    k: usize,
    unit: &str,
    hash_version: u32,
    selected: Option<PyReadonlyArray1<'py, bool>>,
) -> PyResult<SetArrays<'py>> {
    let unit = Unit::parse(unit)?;
    let version = HashVersion::new(hash_version)?;
    let holder = Texts::borrow(texts)?;
    let strs = holder.strs()?;
    let selected = selected
        .as_ref()
        .map(|s| contiguous(s, "selected"))
        .transpose()?;
    let sets = run(py, || {
        ShingleSets::build_selected(&strs, k, unit, version, selected)
    })?;
    built_sets(py, sets.offsets, sets.hashes)
}

#[pyfunction]
#[allow(clippy::too_many_arguments)] // the Python signature
fn minhash_texts<'py>(
    py: Python<'py>,
    texts: &Bound<'py, PyAny>,
    num_perm: usize,
    seed: u64,
    k: usize,
    unit: &str,
    threads: usize,
    algorithm: &str,
    hash_version: u32,
) -> PyResult<Bound<'py, PyArray2<u32>>> {
    let unit = Unit::parse(unit)?;
    let algorithm = Algorithm::parse(algorithm)?;
    let version = HashVersion::new(hash_version)?;
    let holder = Texts::borrow(texts)?;
    let strs = holder.strs()?;
    let signatures = run(py, || {
        signing::minhash_texts(&strs, num_perm, seed, k, unit, threads, algorithm, version)
    })?;
    matrix(py, signatures, num_perm)
}

#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn minhash_sets<'py>(
    py: Python<'py>,
    offsets: PyReadonlyArray1<'py, i64>,
    hashes: PyReadonlyArray1<'py, u64>,
    num_perm: usize,
    seed: u64,
    threads: usize,
    algorithm: &str,
    hash_version: u32,
) -> PyResult<Bound<'py, PyArray2<u32>>> {
    let algorithm = Algorithm::parse(algorithm)?;
    let version = HashVersion::new(hash_version)?;
    let view = sets_view(&offsets, &hashes)?;
    let signatures = run(py, || {
        signing::minhash_sets(view, num_perm, seed, threads, algorithm, version)
    })?;
    matrix(py, signatures, num_perm)
}

#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn simhash_texts<'py>(
    py: Python<'py>,
    texts: &Bound<'py, PyAny>,
    bits: usize,
    tf: bool,
    k: usize,
    unit: &str,
    threads: usize,
    hash_version: u32,
) -> PyResult<Bound<'py, PyArray2<u64>>> {
    let unit = Unit::parse(unit)?;
    let version = HashVersion::new(hash_version)?;
    let holder = Texts::borrow(texts)?;
    let strs = holder.strs()?;
    let fingerprints = run(py, || {
        signing::simhash_texts(&strs, bits, tf, k, unit, threads, version)
    })?;
    matrix(py, fingerprints, bits / 64)
}

#[pyfunction]
fn simhash_sets<'py>(
    py: Python<'py>,
    offsets: PyReadonlyArray1<'py, i64>,
    hashes: PyReadonlyArray1<'py, u64>,
    bits: usize,
    threads: usize,
) -> PyResult<Bound<'py, PyArray2<u64>>> {
    let view = sets_view(&offsets, &hashes)?;
    let fingerprints = run(py, || signing::simhash_sets(view, bits, threads))?;
    matrix(py, fingerprints, bits / 64)
}

#[pyfunction]
fn estimate_jaccard<'py>(
    py: Python<'py>,
    signatures: PyReadonlyArray2<'py, u32>,
    pairs: PyReadonlyArray2<'py, i64>,
) -> PyResult<Bound<'py, PyArray1<f32>>> {
    let (num_perm, slots) = signature_rows(&signatures)?;
    let pairs = pairs_vec(&pairs)?;
    Ok(run(py, || verify::estimate_pairs(slots, num_perm, &pairs))?.into_pyarray(py))
}

#[pyfunction]
#[pyo3(signature = (offsets, hashes, pairs, threads=1))]
fn jaccard<'py>(
    py: Python<'py>,
    offsets: PyReadonlyArray1<'py, i64>,
    hashes: PyReadonlyArray1<'py, u64>,
    pairs: PyReadonlyArray2<'py, i64>,
    threads: usize,
) -> PyResult<Bound<'py, PyArray1<f32>>> {
    let view = sets_view(&offsets, &hashes)?;
    let pairs = pairs_vec(&pairs)?;
    Ok(run(py, || verify::jaccard_pairs(view, &pairs, threads))?.into_pyarray(py))
}

#[pyfunction]
#[pyo3(signature = (offsets, hashes, pairs, threshold, threads=1))]
fn jaccard_at_least<'py>(
    py: Python<'py>,
    offsets: PyReadonlyArray1<'py, i64>,
    hashes: PyReadonlyArray1<'py, u64>,
    pairs: PyReadonlyArray2<'py, i64>,
    threshold: f64,
    threads: usize,
) -> PairsAnd<'py, f32> {
    let view = sets_view(&offsets, &hashes)?;
    let pairs = pairs_vec(&pairs)?;
    let (kept, similarity) = run(py, || {
        verify::jaccard_pairs_at_least(view, &pairs, threshold, threads)
    })?;
    Ok((pair_matrix(py, kept)?, similarity.into_pyarray(py)))
}

#[pyfunction]
fn all_pairs_jaccard<'py>(
    py: Python<'py>,
    offsets: PyReadonlyArray1<'py, i64>,
    hashes: PyReadonlyArray1<'py, u64>,
    threshold: f64,
) -> PairsAnd<'py, f32> {
    let view = sets_view(&offsets, &hashes)?;
    let (pairs, similarity) = run_interruptible(py, view.len(), || {
        crate::jaccard::all_pairs(view, threshold)
    })?;
    Ok((pair_matrix(py, pairs)?, similarity.into_pyarray(py)))
}

#[pyfunction]
#[pyo3(signature = (texts, normalized, hash_version, threads=1))]
fn exact_duplicates<'py>(
    py: Python<'py>,
    texts: &Bound<'py, PyAny>,
    normalized: bool,
    hash_version: u32,
    threads: usize,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let version = HashVersion::new(hash_version)?;
    let holder = Texts::borrow(texts)?;
    let strs = holder.strs()?;
    Ok(run(py, || {
        exact::exact_duplicates(&strs, normalized, version, threads)
    })?
    .into_pyarray(py))
}

/// The first 128 bits of each text's SHA-256, uint64[n, 2] (the SHA-256 methods' key).
#[pyfunction]
#[pyo3(signature = (texts, normalized, hash_version, threads=1))]
fn sha256_digests<'py>(
    py: Python<'py>,
    texts: &Bound<'py, PyAny>,
    normalized: bool,
    hash_version: u32,
    threads: usize,
) -> PyResult<Bound<'py, PyArray2<u64>>> {
    let version = HashVersion::new(hash_version)?;
    let holder = Texts::borrow(texts)?;
    let strs = holder.strs()?;
    let digests = run(py, || {
        exact::sha256_digests(&strs, normalized, version, threads)
    })?;
    matrix(py, digests, 2)
}

#[pyfunction]
fn clusters<'py>(
    py: Python<'py>,
    pairs: PyReadonlyArray2<'py, i64>,
    n: usize,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let pairs = pairs_vec(&pairs)?;
    Ok(run(py, || cluster::clusters(&pairs, n))?.into_pyarray(py))
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("HASH_VERSION", hashing::HASH_VERSION)?;
    m.add("HASH_VERSIONS", (1u32, 2u32))?;
    m.add_function(wrap_pyfunction!(simd, m)?)?;
    m.add_function(wrap_pyfunction!(normalize, m)?)?;
    m.add_function(wrap_pyfunction!(word_counts, m)?)?;
    m.add_function(wrap_pyfunction!(shingle_offsets, m)?)?;
    m.add_function(wrap_pyfunction!(shingle_sets, m)?)?;
    m.add_function(wrap_pyfunction!(minhash_texts, m)?)?;
    m.add_function(wrap_pyfunction!(minhash_sets, m)?)?;
    sign::register(m)?;
    run::register(m)?;
    sets::register(m)?;
    texts::register(m)?;
    spill::register(m)?;
    boilerplate::register(m)?;
    m.add_function(wrap_pyfunction!(simhash_texts, m)?)?;
    m.add_function(wrap_pyfunction!(simhash_sets, m)?)?;
    lsh::register(m)?;
    m.add_function(wrap_pyfunction!(estimate_jaccard, m)?)?;
    m.add_function(wrap_pyfunction!(jaccard, m)?)?;
    m.add_function(wrap_pyfunction!(jaccard_at_least, m)?)?;
    m.add_function(wrap_pyfunction!(all_pairs_jaccard, m)?)?;
    hamming::register(m)?;
    m.add_function(wrap_pyfunction!(exact_duplicates, m)?)?;
    m.add_function(wrap_pyfunction!(sha256_digests, m)?)?;
    m.add_function(wrap_pyfunction!(clusters, m)?)?;
    banding::register(m)?;
    collapse::register(m)?;
    report::register(m)?;
    hash::register(m)?;
    index::register(m)?;
    jsonl::register(m)?;
    paragraphs::register(m)?;
    matches::register(m)?;
    units::register(m)?;
    Ok(())
}
