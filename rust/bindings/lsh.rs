//! The LSH part of `neardup._core`: banding maths, band keys, candidates and verified
//! candidates (`rust/lsh/`), converted with the helpers of the parent module.

use super::{contiguous, matrix, pair_matrix, run, sets_view, signature_rows, PairsAnd};
use crate::duplicates::{self, Verify};
use crate::error::Error;
use crate::lsh::{BucketRule, SCREEN_MISS};
use crate::spanning;
use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArray2};
use pyo3::prelude::*;

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(lsh_params, m)?)?;
    m.add_function(wrap_pyfunction!(lsh_s_star, m)?)?;
    m.add_function(wrap_pyfunction!(lsh_half_point, m)?)?;
    m.add_function(wrap_pyfunction!(lsh_probability, m)?)?;
    m.add_function(wrap_pyfunction!(band_hashes, m)?)?;
    m.add_function(wrap_pyfunction!(lsh_bucket_pairs_bound, m)?)?;
    m.add_function(wrap_pyfunction!(lsh_candidates, m)?)?;
    m.add_function(wrap_pyfunction!(lsh_candidate_search, m)?)?;
    m.add_function(wrap_pyfunction!(lsh_screen_min_equal, m)?)?;
    m.add_function(wrap_pyfunction!(lsh_split_bucket, m)?)?;
    m.add_function(wrap_pyfunction!(lsh_expected_recall_of, m)?)?;
    m.add_function(wrap_pyfunction!(lsh_rows_in_candidates, m)?)?;
    m.add_function(wrap_pyfunction!(lsh_bucket_components, m)?)?;
    m.add_function(wrap_pyfunction!(lsh_duplicates, m)?)?;
    Ok(())
}

#[pyfunction]
fn lsh_params(py: Python<'_>, threshold: f64, num_perm: usize) -> PyResult<(usize, usize)> {
    run(py, || crate::lsh::params(threshold, num_perm))
}

#[pyfunction]
fn lsh_s_star(py: Python<'_>, bands: usize, rows: usize) -> PyResult<f64> {
    run(py, || {
        crate::lsh::check_banding(bands, rows, usize::MAX).map(|_| crate::lsh::s_star(bands, rows))
    })
}

#[pyfunction]
fn lsh_half_point(py: Python<'_>, bands: usize, rows: usize) -> PyResult<f64> {
    run(py, || {
        crate::lsh::check_banding(bands, rows, usize::MAX)
            .map(|_| crate::lsh::half_point(bands, rows))
    })
}

#[pyfunction]
fn lsh_probability<'py>(
    py: Python<'py>,
    similarity: PyReadonlyArray1<'py, f64>,
    bands: usize,
    rows: usize,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let s = contiguous(&similarity, "similarity")?;
    let p = run(py, || crate::lsh::collision_probabilities(s, bands, rows))?;
    Ok(p.into_pyarray(py))
}

#[pyfunction]
#[pyo3(signature = (signatures, bands, rows, threads=1))]
fn band_hashes<'py>(
    py: Python<'py>,
    signatures: PyReadonlyArray2<'py, u32>,
    bands: usize,
    rows: usize,
    threads: usize,
) -> PyResult<Bound<'py, PyArray2<u64>>> {
    let (num_perm, slots) = signature_rows(&signatures)?;
    let keys = run(py, || {
        crate::lsh::band_keys_on(slots, num_perm, bands, rows, threads)
    })?;
    matrix(py, keys, bands)
}

/// The bucket rule of a call: `bucket_limit` None keeps every bucket whole; the dense test
/// and the recall count use `threshold` (None: the banding's S*).
fn bucket_rule(
    bands: usize,
    rows: usize,
    threshold: Option<f64>,
    bucket_limit: Option<usize>,
) -> Result<BucketRule, Error> {
    crate::lsh::check_banding(bands, rows, usize::MAX)?;
    let threshold = threshold.unwrap_or_else(|| crate::lsh::s_star(bands, rows));
    crate::lsh::check_threshold(threshold)?;
    BucketRule::new(threshold, bucket_limit)
}

#[pyfunction]
#[pyo3(signature = (signatures, bands, rows, limit, threads=1, threshold=None, bucket_limit=None))]
#[allow(clippy::too_many_arguments)] // the Python signature
fn lsh_bucket_pairs_bound(
    py: Python<'_>,
    signatures: PyReadonlyArray2<'_, u32>,
    bands: usize,
    rows: usize,
    limit: u64,
    threads: usize,
    threshold: Option<f64>,
    bucket_limit: Option<usize>,
) -> PyResult<u64> {
    let (num_perm, slots) = signature_rows(&signatures)?;
    let rule = bucket_rule(bands, rows, threshold, bucket_limit)?;
    run(py, || {
        crate::lsh::bucket_pairs_bound(slots, num_perm, bands, rows, rule, limit, threads)
    })
}

#[pyfunction]
#[pyo3(signature = (signatures, bands, rows, threads=1, threshold=None, bucket_limit=None))]
fn lsh_candidates<'py>(
    py: Python<'py>,
    signatures: PyReadonlyArray2<'py, u32>,
    bands: usize,
    rows: usize,
    threads: usize,
    threshold: Option<f64>,
    bucket_limit: Option<usize>,
) -> PyResult<Bound<'py, PyArray2<i64>>> {
    let (num_perm, slots) = signature_rows(&signatures)?;
    let rule = bucket_rule(bands, rows, threshold, bucket_limit)?;
    let documents = slots.len() / num_perm.max(1);
    let found = super::run_interruptible(py, documents, || {
        crate::lsh::candidates(slots, num_perm, bands, rows, rule, None, threads, None)
    })?;
    pair_matrix(py, found.pairs)
}

/// (pairs, screened, buckets split, expected recall, bucket pairs) of the engine's candidate
/// search; with a pair limit that the bucket pairs passed, no pairs (None) and the count.
type Search<'py> = PyResult<(
    Option<Bound<'py, PyArray2<i64>>>,
    u64,
    u64,
    f64,
    Option<u64>,
)>;

#[pyfunction]
#[pyo3(signature = (signatures, bands, rows, threshold, bucket_limit, screen, threads=1, pair_limit=None))]
#[allow(clippy::too_many_arguments)] // the Python signature
fn lsh_candidate_search<'py>(
    py: Python<'py>,
    signatures: PyReadonlyArray2<'py, u32>,
    bands: usize,
    rows: usize,
    threshold: f64,
    bucket_limit: Option<usize>,
    screen: bool,
    threads: usize,
    pair_limit: Option<u64>,
) -> Search<'py> {
    let (num_perm, slots) = signature_rows(&signatures)?;
    let rule = bucket_rule(bands, rows, Some(threshold), bucket_limit)?;
    let screen = screen.then(|| crate::lsh::screen_min_equal(num_perm, threshold, SCREEN_MISS));
    let found = run(py, || {
        crate::lsh::check_threshold(threshold)?;
        crate::lsh::candidates(
            slots, num_perm, bands, rows, rule, screen, threads, pair_limit,
        )
    })?;
    let passed = matches!(found.bucket_pairs, Some((_, true)));
    Ok((
        if passed {
            None
        } else {
            Some(pair_matrix(py, found.pairs)?)
        },
        found.screened,
        found.splits,
        found.expected_recall,
        found.bucket_pairs.map(|(count, _)| count),
    ))
}

/// (members, group offsets, charge per row, parts split) of one gathered bucket.
type BucketSplit<'py> = PyResult<(
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
    Bound<'py, PyArray1<i64>>,
    u64,
)>;

#[pyfunction]
#[pyo3(signature = (signatures, band, rows, key, threshold, bucket_limit))]
fn lsh_split_bucket<'py>(
    py: Python<'py>,
    signatures: PyReadonlyArray2<'py, u32>,
    band: usize,
    rows: usize,
    key: u64,
    threshold: f64,
    bucket_limit: Option<usize>,
) -> BucketSplit<'py> {
    let (num_perm, slots) = signature_rows(&signatures)?;
    let rule = bucket_rule(band.saturating_add(1), rows, Some(threshold), bucket_limit)?;
    let found = run(py, || {
        crate::lsh::check_threshold(threshold)?;
        crate::lsh::bucket::split_bucket(slots, num_perm, band, rows, key, rule)
    })?;
    let wide = |v: Vec<u32>| v.into_iter().map(i64::from).collect::<Vec<i64>>();
    let offsets: Vec<i64> = found.offsets.iter().map(|&o| o as i64).collect();
    Ok((
        wide(found.members).into_pyarray(py),
        offsets.into_pyarray(py),
        found.charges.into_pyarray(py),
        found.splits,
    ))
}

#[pyfunction]
fn lsh_expected_recall_of(
    py: Python<'_>,
    charged: PyReadonlyArray1<'_, i64>,
    documents: u64,
    bands: usize,
    rows: usize,
    threshold: f64,
) -> PyResult<f64> {
    let charged = contiguous(&charged, "charged")?;
    run(py, || {
        crate::lsh::check_banding(bands, rows, usize::MAX)?;
        crate::lsh::check_threshold(threshold)?;
        Ok(crate::lsh::groups::expected_recall_of(
            charged, documents, bands, rows, threshold,
        ))
    })
}

#[pyfunction]
fn lsh_screen_min_equal(py: Python<'_>, num_perm: usize, threshold: f64) -> PyResult<usize> {
    run(py, || {
        crate::lsh::check_threshold(threshold)?;
        Ok(crate::lsh::screen_min_equal(
            num_perm,
            threshold,
            SCREEN_MISS,
        ))
    })
}

#[pyfunction]
#[pyo3(signature = (signatures, bands, rows, threads=1, threshold=None, bucket_limit=None))]
fn lsh_rows_in_candidates<'py>(
    py: Python<'py>,
    signatures: PyReadonlyArray2<'py, u32>,
    bands: usize,
    rows: usize,
    threads: usize,
    threshold: Option<f64>,
    bucket_limit: Option<usize>,
) -> PyResult<Bound<'py, PyArray1<bool>>> {
    let (num_perm, slots) = signature_rows(&signatures)?;
    let rule = bucket_rule(bands, rows, threshold, bucket_limit)?;
    Ok(run(py, || {
        crate::lsh::rows_in_candidates(slots, num_perm, bands, rows, rule, threads)
    })?
    .into_pyarray(py))
}

#[pyfunction]
#[pyo3(signature = (signatures, bands, rows, threads=1, threshold=None, bucket_limit=None))]
#[allow(clippy::type_complexity)] // (labels, in a bucket, bucket pairs), as Python sees them
fn lsh_bucket_components<'py>(
    py: Python<'py>,
    signatures: PyReadonlyArray2<'py, u32>,
    bands: usize,
    rows: usize,
    threads: usize,
    threshold: Option<f64>,
    bucket_limit: Option<usize>,
) -> PyResult<(Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<bool>>, u64)> {
    let (num_perm, slots) = signature_rows(&signatures)?;
    let rule = bucket_rule(bands, rows, threshold, bucket_limit)?;
    let found = run(py, || {
        crate::lsh::bucket_components(slots, num_perm, bands, rows, rule, threads)
    })?;
    Ok((
        found.labels.into_pyarray(py),
        found.wanted.into_pyarray(py),
        found.bucket_pairs,
    ))
}

#[pyfunction]
#[pyo3(signature = (signatures, bands, rows, threshold, offsets=None, hashes=None, spanning=false, threads=1, bucket_limit=None))]
#[allow(clippy::too_many_arguments)] // the Python signature
fn lsh_duplicates<'py>(
    py: Python<'py>,
    signatures: PyReadonlyArray2<'py, u32>,
    bands: usize,
    rows: usize,
    threshold: f64,
    offsets: Option<PyReadonlyArray1<'py, i64>>,
    hashes: Option<PyReadonlyArray1<'py, u64>>,
    spanning: bool,
    threads: usize,
    bucket_limit: Option<usize>,
) -> PairsAnd<'py, f32> {
    let rule = bucket_rule(bands, rows, Some(threshold), bucket_limit)?;
    let (num_perm, slots) = signature_rows(&signatures)?;
    let verify = match (&offsets, &hashes) {
        (Some(o), Some(h)) => Verify::Exact(sets_view(o, h)?),
        (None, None) => Verify::Estimate,
        _ => return Err(Error::new("offsets and hashes go together").into()),
    };
    let documents = slots.len() / num_perm.max(1);
    let (pairs, similarity) = super::run_interruptible(py, documents, || {
        if spanning {
            spanning::lsh_cluster_edges(
                slots, num_perm, bands, rows, threshold, verify, rule, threads,
            )
        } else {
            duplicates::lsh_duplicates(
                slots, num_perm, bands, rows, threshold, verify, rule, threads,
            )
        }
    })?;
    Ok((pair_matrix(py, pairs)?, similarity.into_pyarray(py)))
}
