//! The Python module `neardup._core`: argument conversion only. Every function borrows its
//! inputs, releases the GIL around the work, and turns errors and panics into Python exceptions.

use crate::batch::{self, Verify};
use crate::error::Result;
use crate::hashing::HashVersion;
use crate::minhash::Algorithm;
use crate::shingle::{SetsView, ShingleSets, Unit};
use crate::{cluster, exact, hashing, lsh};
use numpy::{
    IntoPyArray, PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2,
    PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple};

/// Runs `work` without the GIL; an `Error` becomes `ValueError`, a panic `RuntimeError`.
fn run<T: Send>(py: Python<'_>, work: impl FnOnce() -> Result<T> + Send) -> PyResult<T> {
    let outcome = py.allow_threads(|| std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)));
    match outcome {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(error)) => Err(PyValueError::new_err(error.0)),
        Err(_) => Err(PyRuntimeError::new_err(
            "neardup internal error (a bug, please report it)",
        )),
    }
}

/// Documents borrowed from Python: a list of str, or (utf-8 bytes uint8[], offsets int64[n+1])
/// as built from an Arrow string array.
enum Texts<'py> {
    List(Vec<Bound<'py, PyString>>),
    Buffer(PyReadonlyArray1<'py, u8>, PyReadonlyArray1<'py, i64>),
}

impl<'py> Texts<'py> {
    fn borrow(texts: &Bound<'py, PyAny>) -> PyResult<Self> {
        if let Ok(list) = texts.downcast::<PyList>() {
            let mut items = Vec::with_capacity(list.len());
            for (i, item) in list.iter().enumerate() {
                match item.downcast_into::<PyString>() {
                    Ok(s) => items.push(s),
                    Err(e) => {
                        let type_name = e.into_inner().get_type().name()?.to_string();
                        return Err(PyTypeError::new_err(format!(
                            "texts[{i}] is {type_name}, expected str"
                        )));
                    }
                }
            }
            return Ok(Texts::List(items));
        }
        if let Ok(tuple) = texts.downcast::<PyTuple>() {
            if tuple.len() == 2 {
                let data = tuple.get_item(0)?.extract::<PyReadonlyArray1<u8>>()?;
                let offsets = tuple.get_item(1)?.extract::<PyReadonlyArray1<i64>>()?;
                return Ok(Texts::Buffer(data, offsets));
            }
        }
        Err(PyTypeError::new_err(
            "texts must be a list of str or a (uint8 data, int64 offsets) tuple",
        ))
    }

    fn strs(&self) -> PyResult<Vec<&str>> {
        match self {
            Texts::List(items) => items
                .iter()
                .enumerate()
                .map(|(i, s)| {
                    s.to_str().map_err(|_| {
                        PyValueError::new_err(format!(
                            "texts[{i}] is not valid Unicode (it holds a lone surrogate)"
                        ))
                    })
                })
                .collect(),
            Texts::Buffer(data, offsets) => {
                let data = data.as_slice()?;
                let offsets = offsets.as_slice()?;
                if offsets.is_empty() || offsets[0] < 0 {
                    return Err(PyValueError::new_err(
                        "text offsets must start at a non-negative position",
                    ));
                }
                let mut out = Vec::with_capacity(offsets.len() - 1);
                for (i, w) in offsets.windows(2).enumerate() {
                    if w[1] < w[0] || w[1] as usize > data.len() {
                        return Err(PyValueError::new_err(format!(
                            "text offsets are inconsistent at texts[{i}]"
                        )));
                    }
                    let bytes = &data[w[0] as usize..w[1] as usize];
                    let text = std::str::from_utf8(bytes).map_err(|e| {
                        PyValueError::new_err(format!("texts[{i}] is not valid UTF-8: {e}"))
                    })?;
                    out.push(text);
                }
                Ok(out)
            }
        }
    }
}

fn parse_unit(unit: &str) -> PyResult<Unit> {
    Unit::parse(unit).map_err(|e| PyValueError::new_err(e.0))
}

fn parse_version(hash_version: u32) -> PyResult<HashVersion> {
    HashVersion::new(hash_version).map_err(|e| PyValueError::new_err(e.0))
}

fn parse_algorithm(algorithm: &str) -> PyResult<Algorithm> {
    Algorithm::parse(algorithm).map_err(|e| PyValueError::new_err(e.0))
}

fn sets_view<'a>(
    offsets: &'a PyReadonlyArray1<i64>,
    hashes: &'a PyReadonlyArray1<u64>,
) -> PyResult<SetsView<'a>> {
    SetsView::new(offsets.as_slice()?, hashes.as_slice()?).map_err(|e| PyValueError::new_err(e.0))
}

fn pairs_vec(pairs: &PyReadonlyArray2<i64>) -> PyResult<Vec<(i64, i64)>> {
    if pairs.shape()[1] != 2 {
        return Err(PyValueError::new_err("pairs must have shape (m, 2)"));
    }
    Ok(pairs
        .as_slice()?
        .chunks_exact(2)
        .map(|p| (p[0], p[1]))
        .collect())
}

/// The row width (num_perm) and the contiguous slots of a signature matrix.
fn signature_rows<'a>(signatures: &'a PyReadonlyArray2<'_, u32>) -> PyResult<(usize, &'a [u32])> {
    Ok((signatures.shape()[1], signatures.as_slice()?))
}

fn matrix<'py, T: numpy::Element>(
    py: Python<'py>,
    data: Vec<T>,
    columns: usize,
) -> PyResult<Bound<'py, PyArray2<T>>> {
    let rows = if columns == 0 {
        0
    } else {
        data.len() / columns
    };
    data.into_pyarray(py).reshape([rows, columns])
}

fn pair_matrix<'py>(
    py: Python<'py>,
    pairs: Vec<(u32, u32)>,
) -> PyResult<Bound<'py, PyArray2<i64>>> {
    let flat: Vec<i64> = pairs
        .into_iter()
        .flat_map(|(i, j)| [i as i64, j as i64])
        .collect();
    matrix(py, flat, 2)
}

#[pyfunction]
fn normalize(py: Python<'_>, text: &str, hash_version: u32) -> PyResult<String> {
    let version = parse_version(hash_version)?;
    run(py, || Ok(crate::normalize::normalize(text, version)))
}

#[pyfunction]
fn word_counts<'py>(
    py: Python<'py>,
    texts: &Bound<'py, PyAny>,
    hash_version: u32,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let version = parse_version(hash_version)?;
    let holder = Texts::borrow(texts)?;
    let strs = holder.strs()?;
    Ok(run(py, || Ok(batch::word_counts(&strs, version)))?.into_pyarray(py))
}

#[pyfunction]
#[pyo3(signature = (texts, k, unit, hash_version, selected=None))]
#[allow(clippy::type_complexity)]
fn shingle_sets<'py>(
    py: Python<'py>,
    texts: &Bound<'py, PyAny>,
    k: usize,
    unit: &str,
    hash_version: u32,
    selected: Option<PyReadonlyArray1<'py, bool>>,
) -> PyResult<(Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<u64>>)> {
    let unit = parse_unit(unit)?;
    let version = parse_version(hash_version)?;
    let holder = Texts::borrow(texts)?;
    let strs = holder.strs()?;
    let selected = selected.as_ref().map(|s| s.as_slice()).transpose()?;
    let sets = run(py, || {
        ShingleSets::build_selected(&strs, k, unit, version, selected)
    })?;
    Ok((sets.offsets.into_pyarray(py), sets.hashes.into_pyarray(py)))
}

#[pyfunction]
#[allow(clippy::too_many_arguments)]
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
    let unit = parse_unit(unit)?;
    let algorithm = parse_algorithm(algorithm)?;
    let version = parse_version(hash_version)?;
    let holder = Texts::borrow(texts)?;
    let strs = holder.strs()?;
    let signatures = run(py, || {
        batch::minhash_texts(&strs, num_perm, seed, k, unit, threads, algorithm, version)
    })?;
    matrix(py, signatures, num_perm)
}

#[pyfunction]
fn minhash_sets<'py>(
    py: Python<'py>,
    offsets: PyReadonlyArray1<'py, i64>,
    hashes: PyReadonlyArray1<'py, u64>,
    num_perm: usize,
    seed: u64,
    threads: usize,
    algorithm: &str,
) -> PyResult<Bound<'py, PyArray2<u32>>> {
    let algorithm = parse_algorithm(algorithm)?;
    let view = sets_view(&offsets, &hashes)?;
    let signatures = run(py, || {
        batch::minhash_sets(view, num_perm, seed, threads, algorithm)
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
    let unit = parse_unit(unit)?;
    let version = parse_version(hash_version)?;
    let holder = Texts::borrow(texts)?;
    let strs = holder.strs()?;
    let fingerprints = run(py, || {
        batch::simhash_texts(&strs, bits, tf, k, unit, threads, version)
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
    let fingerprints = run(py, || batch::simhash_sets(view, bits, threads))?;
    matrix(py, fingerprints, bits / 64)
}

#[pyfunction]
fn lsh_params(py: Python<'_>, threshold: f64, num_perm: usize) -> PyResult<(usize, usize)> {
    run(py, || lsh::params(threshold, num_perm))
}

#[pyfunction]
fn lsh_s_star(py: Python<'_>, bands: usize, rows: usize) -> PyResult<f64> {
    run(py, || {
        lsh::check_banding(bands, rows, usize::MAX).map(|_| lsh::s_star(bands, rows))
    })
}

#[pyfunction]
fn lsh_half_point(py: Python<'_>, bands: usize, rows: usize) -> PyResult<f64> {
    run(py, || {
        lsh::check_banding(bands, rows, usize::MAX).map(|_| lsh::half_point(bands, rows))
    })
}

#[pyfunction]
fn lsh_probability<'py>(
    py: Python<'py>,
    similarity: PyReadonlyArray1<'py, f64>,
    bands: usize,
    rows: usize,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let s = similarity.as_slice()?;
    let p = run(py, || {
        lsh::check_banding(bands, rows, usize::MAX)?;
        Ok(s.iter()
            .map(|&x| lsh::collision_probability(x, bands, rows))
            .collect::<Vec<f64>>())
    })?;
    Ok(p.into_pyarray(py))
}

#[pyfunction]
fn band_hashes<'py>(
    py: Python<'py>,
    signatures: PyReadonlyArray2<'py, u32>,
    bands: usize,
    rows: usize,
) -> PyResult<Bound<'py, PyArray2<u64>>> {
    let (num_perm, slots) = signature_rows(&signatures)?;
    let keys = run(py, || lsh::band_keys(slots, num_perm, bands, rows))?;
    matrix(py, keys, bands)
}

#[pyfunction]
fn lsh_candidates<'py>(
    py: Python<'py>,
    signatures: PyReadonlyArray2<'py, u32>,
    bands: usize,
    rows: usize,
) -> PyResult<Bound<'py, PyArray2<i64>>> {
    let (num_perm, slots) = signature_rows(&signatures)?;
    let pairs = run(py, || lsh::candidates(slots, num_perm, bands, rows))?;
    pair_matrix(py, pairs)
}

#[pyfunction]
fn lsh_rows_in_candidates<'py>(
    py: Python<'py>,
    signatures: PyReadonlyArray2<'py, u32>,
    bands: usize,
    rows: usize,
) -> PyResult<Bound<'py, PyArray1<bool>>> {
    let (num_perm, slots) = signature_rows(&signatures)?;
    Ok(run(py, || lsh::rows_in_candidates(slots, num_perm, bands, rows))?.into_pyarray(py))
}

#[pyfunction]
#[pyo3(signature = (signatures, bands, rows, threshold, offsets=None, hashes=None, spanning=false))]
#[allow(clippy::type_complexity, clippy::too_many_arguments)]
fn lsh_duplicates<'py>(
    py: Python<'py>,
    signatures: PyReadonlyArray2<'py, u32>,
    bands: usize,
    rows: usize,
    threshold: f64,
    offsets: Option<PyReadonlyArray1<'py, i64>>,
    hashes: Option<PyReadonlyArray1<'py, u64>>,
    spanning: bool,
) -> PyResult<(Bound<'py, PyArray2<i64>>, Bound<'py, PyArray1<f32>>)> {
    let (num_perm, slots) = signature_rows(&signatures)?;
    let verify = match (&offsets, &hashes) {
        (Some(o), Some(h)) => Verify::Exact(sets_view(o, h)?),
        (None, None) => Verify::Estimate,
        _ => return Err(PyValueError::new_err("offsets and hashes go together")),
    };
    let (pairs, similarity) = run(py, || {
        if spanning {
            batch::lsh_cluster_edges(slots, num_perm, bands, rows, threshold, verify)
        } else {
            batch::lsh_duplicates(slots, num_perm, bands, rows, threshold, verify)
        }
    })?;
    Ok((pair_matrix(py, pairs)?, similarity.into_pyarray(py)))
}

#[pyfunction]
fn estimate_jaccard<'py>(
    py: Python<'py>,
    signatures: PyReadonlyArray2<'py, u32>,
    pairs: PyReadonlyArray2<'py, i64>,
) -> PyResult<Bound<'py, PyArray1<f32>>> {
    let (num_perm, slots) = signature_rows(&signatures)?;
    let pairs = pairs_vec(&pairs)?;
    Ok(run(py, || batch::estimate_pairs(slots, num_perm, &pairs))?.into_pyarray(py))
}

#[pyfunction]
fn jaccard<'py>(
    py: Python<'py>,
    offsets: PyReadonlyArray1<'py, i64>,
    hashes: PyReadonlyArray1<'py, u64>,
    pairs: PyReadonlyArray2<'py, i64>,
) -> PyResult<Bound<'py, PyArray1<f32>>> {
    let view = sets_view(&offsets, &hashes)?;
    let pairs = pairs_vec(&pairs)?;
    Ok(run(py, || batch::jaccard_pairs(view, &pairs))?.into_pyarray(py))
}

#[pyfunction]
#[allow(clippy::type_complexity)]
fn jaccard_at_least<'py>(
    py: Python<'py>,
    offsets: PyReadonlyArray1<'py, i64>,
    hashes: PyReadonlyArray1<'py, u64>,
    pairs: PyReadonlyArray2<'py, i64>,
    threshold: f64,
) -> PyResult<(Bound<'py, PyArray2<i64>>, Bound<'py, PyArray1<f32>>)> {
    let view = sets_view(&offsets, &hashes)?;
    let pairs = pairs_vec(&pairs)?;
    let (kept, similarity) = run(py, || {
        batch::jaccard_pairs_at_least(view, &pairs, threshold)
    })?;
    Ok((pair_matrix(py, kept)?, similarity.into_pyarray(py)))
}

#[pyfunction]
fn all_pairs_jaccard<'py>(
    py: Python<'py>,
    offsets: PyReadonlyArray1<'py, i64>,
    hashes: PyReadonlyArray1<'py, u64>,
    threshold: f64,
) -> PyResult<(Bound<'py, PyArray2<i64>>, Bound<'py, PyArray1<f32>>)> {
    let view = sets_view(&offsets, &hashes)?;
    let (pairs, similarity) = run(py, || crate::jaccard::all_pairs(view, threshold))?;
    Ok((pair_matrix(py, pairs)?, similarity.into_pyarray(py)))
}

#[pyfunction]
fn hamming<'py>(
    py: Python<'py>,
    fingerprints: PyReadonlyArray2<'py, u64>,
    pairs: PyReadonlyArray2<'py, i64>,
) -> PyResult<Bound<'py, PyArray1<i32>>> {
    let words = fingerprints.shape()[1];
    let data = fingerprints.as_slice()?;
    let pairs = pairs_vec(&pairs)?;
    Ok(run(py, || batch::hamming_pairs(data, words, &pairs))?.into_pyarray(py))
}

#[pyfunction]
fn hamming_within<'py>(
    py: Python<'py>,
    fingerprints: PyReadonlyArray2<'py, u64>,
    max_distance: u32,
    active: PyReadonlyArray1<'py, bool>,
) -> PyResult<(Bound<'py, PyArray2<i64>>, Bound<'py, PyArray1<i32>>)> {
    let words = fingerprints.shape()[1];
    let data = fingerprints.as_slice()?;
    let active = active.as_slice()?;
    let (pairs, distances) = run(py, || {
        batch::hamming_within(data, words, max_distance, active)
    })?;
    Ok((pair_matrix(py, pairs)?, distances.into_pyarray(py)))
}

#[pyfunction]
fn exact_duplicates<'py>(
    py: Python<'py>,
    texts: &Bound<'py, PyAny>,
    normalized: bool,
    hash_version: u32,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let version = parse_version(hash_version)?;
    let holder = Texts::borrow(texts)?;
    let strs = holder.strs()?;
    Ok(run(py, || {
        Ok(exact::exact_duplicates(&strs, normalized, version))
    })?
    .into_pyarray(py))
}

#[pyfunction]
fn clusters<'py>(
    py: Python<'py>,
    pairs: PyReadonlyArray2<'py, i64>,
    n: usize,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    if n > u32::MAX as usize {
        return Err(PyValueError::new_err("n must be below 2**32"));
    }
    let pairs = pairs_vec(&pairs)?;
    Ok(run(py, || cluster::clusters(&pairs, n))?.into_pyarray(py))
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("HASH_VERSION", hashing::HASH_VERSION)?;
    m.add("HASH_VERSIONS", (1u32, 2u32))?;
    m.add_function(wrap_pyfunction!(normalize, m)?)?;
    m.add_function(wrap_pyfunction!(word_counts, m)?)?;
    m.add_function(wrap_pyfunction!(shingle_sets, m)?)?;
    m.add_function(wrap_pyfunction!(minhash_texts, m)?)?;
    m.add_function(wrap_pyfunction!(minhash_sets, m)?)?;
    m.add_function(wrap_pyfunction!(simhash_texts, m)?)?;
    m.add_function(wrap_pyfunction!(simhash_sets, m)?)?;
    m.add_function(wrap_pyfunction!(lsh_params, m)?)?;
    m.add_function(wrap_pyfunction!(lsh_s_star, m)?)?;
    m.add_function(wrap_pyfunction!(lsh_half_point, m)?)?;
    m.add_function(wrap_pyfunction!(lsh_probability, m)?)?;
    m.add_function(wrap_pyfunction!(band_hashes, m)?)?;
    m.add_function(wrap_pyfunction!(lsh_candidates, m)?)?;
    m.add_function(wrap_pyfunction!(lsh_rows_in_candidates, m)?)?;
    m.add_function(wrap_pyfunction!(lsh_duplicates, m)?)?;
    m.add_function(wrap_pyfunction!(estimate_jaccard, m)?)?;
    m.add_function(wrap_pyfunction!(jaccard, m)?)?;
    m.add_function(wrap_pyfunction!(jaccard_at_least, m)?)?;
    m.add_function(wrap_pyfunction!(all_pairs_jaccard, m)?)?;
    m.add_function(wrap_pyfunction!(hamming, m)?)?;
    m.add_function(wrap_pyfunction!(hamming_within, m)?)?;
    m.add_function(wrap_pyfunction!(exact_duplicates, m)?)?;
    m.add_function(wrap_pyfunction!(clusters, m)?)?;
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
    matrix(py, keys, bands)
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
        let inner = crate::lookup::Mirror::new(num_perm, bands, rows)
            .map_err(|e| PyValueError::new_err(e.0))?;
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
            return Err(PyValueError::new_err(
                "signatures do not match the index's num_perm",
            ));
        }
        let inner = &mut self.inner;
        run(py, || inner.append(sigs))
    }

    fn forget(&mut self, rows: PyReadonlyArray1<'_, i64>) -> PyResult<()> {
        self.inner
            .forget(rows.as_slice()?)
            .map_err(|e| PyValueError::new_err(e.0))
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
            return Err(PyValueError::new_err(
                "signatures do not match the index's num_perm",
            ));
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
