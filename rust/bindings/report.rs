//! After the pass, in `neardup._core`: `cluster_labels` (`rust/cluster.rs`), `keep_mask`
//! (`rust/keep.rs`), and the pairs a run reports, `run_report` (which mode, then
//! `report_pairs`; `all_pairs_count` counts "all" without making them), with the
//! one pairs-within-groups, `pairs_within_groups`/`label_pairs` (`rust/report.rs`).

use super::{contiguous, matrix, run};
use crate::error::{Error, Result};
use crate::keep::{Measure, Policy};
use crate::report::Mode;
use numpy::{
    IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1, PyReadonlyArrayDyn, PyUntypedArrayMethods,
};
use pyo3::prelude::*;

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(pairs_within_groups, m)?)?;
    m.add_function(wrap_pyfunction!(label_pairs, m)?)?;
    m.add_function(wrap_pyfunction!(cluster_labels, m)?)?;
    m.add_function(wrap_pyfunction!(keep_mask, m)?)?;
    m.add_function(wrap_pyfunction!(char_counts, m)?)?;
    m.add_function(wrap_pyfunction!(all_pairs_count, m)?)?;
    m.add_function(wrap_pyfunction!(report_pairs, m)?)?;
    m.add_function(wrap_pyfunction!(run_report, m)?)?;
    Ok(())
}

/// The items of an int64[m, 2] array of pairs, flat, or an error naming its shape.
fn flat_pairs<'a>(pairs: &'a PyReadonlyArrayDyn<'_, i64>) -> Result<&'a [i64]> {
    if pairs.ndim() != 2 || pairs.shape()[1] != 2 {
        return Err(Error::new(format!(
            "pairs must have shape (m, 2), got {:?}",
            pairs.shape()
        )));
    }
    contiguous(pairs, "pairs")
}

/// int64[m, 2]: every pair `(items[s + u], items[s + v])`, `u < v`, within each group
/// `items[s:s + size]` given by `starts`/`sizes`; by group, then `u`, then `v`.
#[pyfunction]
fn pairs_within_groups<'py>(
    py: Python<'py>,
    starts: PyReadonlyArray1<'py, i64>,
    sizes: PyReadonlyArray1<'py, i64>,
    items: PyReadonlyArray1<'py, i64>,
) -> PyResult<Bound<'py, PyArray2<i64>>> {
    let (starts, sizes) = (contiguous(&starts, "starts")?, contiguous(&sizes, "sizes")?);
    let items = contiguous(&items, "items")?;
    let pairs = run(py, || {
        crate::report::pairs_within_groups(starts, sizes, items)
    })?;
    matrix(py, pairs, 2)
}

/// int64[m, 2]: all pairs i < j of positions sharing a label, sorted.
#[pyfunction]
fn label_pairs<'py>(
    py: Python<'py>,
    labels: PyReadonlyArray1<'py, i64>,
) -> PyResult<Bound<'py, PyArray2<i64>>> {
    let labels = contiguous(&labels, "labels")?;
    let pairs = run(py, || crate::report::label_pairs(labels))?;
    matrix(py, pairs, 2)
}

/// int64[n] cluster labels from the exact groups `first` and the near `pairs` (indices into
/// the increasing positions `selected`).
#[pyfunction]
fn cluster_labels<'py>(
    py: Python<'py>,
    first: PyReadonlyArray1<'py, i64>,
    selected: PyReadonlyArray1<'py, i64>,
    pairs: PyReadonlyArrayDyn<'py, i64>,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let (first, selected) = (
        contiguous(&first, "first")?,
        contiguous(&selected, "selected")?,
    );
    let flat = flat_pairs(&pairs)?;
    let labels = run(py, || {
        let pairs: Vec<(i64, i64)> = flat.chunks_exact(2).map(|p| (p[0], p[1])).collect();
        crate::cluster::labels_over_groups(first, selected, &pairs)
    })?;
    Ok(labels.into_pyarray(py))
}

/// int64[n]: the characters of each of `texts` (list of str or (data, offsets)), the
/// `longest` keep policy's measure (`rust/keep.rs`).
#[pyfunction]
fn char_counts<'py>(
    py: Python<'py>,
    texts: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let holder = super::Texts::borrow(texts)?;
    let strs = holder.strs()?;
    let counts = run(py, || crate::keep::char_counts(&strs))?;
    Ok(counts.into_pyarray(py))
}

/// A measure array borrowed as int64, uint64 or float64.
pub(super) enum MeasureArray<'py> {
    I64(PyReadonlyArray1<'py, i64>),
    U64(PyReadonlyArray1<'py, u64>),
    F64(PyReadonlyArray1<'py, f64>),
}

impl<'py> MeasureArray<'py> {
    pub(super) fn borrow(value: &Bound<'py, PyAny>) -> Result<Self> {
        if let Ok(a) = value.extract() {
            return Ok(MeasureArray::I64(a));
        }
        if let Ok(a) = value.extract() {
            return Ok(MeasureArray::U64(a));
        }
        if let Ok(a) = value.extract() {
            return Ok(MeasureArray::F64(a));
        }
        Err(Error::input_type(
            "measure must be a 1-d int64, uint64 or float64 array",
        ))
    }

    pub(super) fn view(&self) -> Result<Measure<'_>> {
        Ok(match self {
            MeasureArray::I64(a) => Measure::I64(contiguous(a, "measure")?),
            MeasureArray::U64(a) => Measure::U64(contiguous(a, "measure")?),
            MeasureArray::F64(a) => Measure::F64(contiguous(a, "measure")?),
        })
    }
}

/// (keep bool[n], representative int64[n]).
type Kept<'py> = (Bound<'py, PyArray1<bool>>, Bound<'py, PyArray1<i64>>);

/// (keep bool[n], representative int64[n]): one kept document per cluster of `labels`.
#[pyfunction]
#[pyo3(signature = (labels, policy, measure=None))]
fn keep_mask<'py>(
    py: Python<'py>,
    labels: PyReadonlyArray1<'py, i64>,
    policy: &str,
    measure: Option<&Bound<'py, PyAny>>,
) -> PyResult<Kept<'py>> {
    let policy = Policy::parse(policy)?;
    let labels = contiguous(&labels, "labels")?;
    let measure = measure.map(MeasureArray::borrow).transpose()?;
    let view = measure.as_ref().map(MeasureArray::view).transpose()?;
    let (keep, rep) = run(py, || crate::keep::keep(labels, policy, view))?;
    Ok((keep.into_pyarray(py), rep.into_pyarray(py)))
}

/// How many pairs `report_pairs` gives in "all" mode.
#[pyfunction]
fn all_pairs_count(
    py: Python<'_>,
    first: PyReadonlyArray1<'_, i64>,
    pairs: PyReadonlyArrayDyn<'_, i64>,
) -> PyResult<u64> {
    let (first, pairs) = (contiguous(&first, "first")?, flat_pairs(&pairs)?);
    run(py, || crate::report::all_pairs_count(first, pairs))
}

/// (pairs int64[m, 2] sorted, similarity float32[m]): the pairs a run reports in `mode`.
#[pyfunction]
fn report_pairs<'py>(
    py: Python<'py>,
    first: PyReadonlyArray1<'py, i64>,
    pairs: PyReadonlyArrayDyn<'py, i64>,
    similarity: PyReadonlyArray1<'py, f32>,
    mode: &str,
) -> super::PairsAnd<'py, f32> {
    let mode = Mode::parse(mode)?;
    let (first, pairs) = (contiguous(&first, "first")?, flat_pairs(&pairs)?);
    let similarity = contiguous(&similarity, "similarity")?;
    let out = run(py, || {
        crate::report::report_pairs(first, pairs, similarity, mode)
    })?;
    Ok((matrix(py, out.pairs, 2)?, out.similarity.into_pyarray(py)))
}

/// (pairs int64[m, 2] sorted, similarity float32[m], mode used, all pairs' count when auto
/// turned to spanning past `spanning_limit` or None): the pairs a run reports. `asked`: the
/// plan's "auto" / "all" / "spanning"; `searched_spanning`: the near-pair stage already chose
/// a spanning forest; past `max_pairs` all pairs is a `ResourceError`.
#[pyfunction]
#[pyo3(signature = (first, pairs, similarity, asked, *, searched_spanning, spanning_limit, max_pairs))]
#[allow(clippy::too_many_arguments, clippy::type_complexity)] // the Python signature
fn run_report<'py>(
    py: Python<'py>,
    first: PyReadonlyArray1<'py, i64>,
    pairs: PyReadonlyArrayDyn<'py, i64>,
    similarity: PyReadonlyArray1<'py, f32>,
    asked: &str,
    searched_spanning: bool,
    spanning_limit: u64,
    max_pairs: u64,
) -> PyResult<(
    Bound<'py, PyArray2<i64>>,
    Bound<'py, PyArray1<f32>>,
    &'static str,
    Option<u64>,
)> {
    let asked = match asked {
        "auto" => None,
        other => Some(Mode::parse(other).map_err(|_| {
            Error::new(format!(
                "asked must be 'auto', 'all' or 'spanning', got {other:?}"
            ))
        })?),
    };
    let (first, pairs) = (contiguous(&first, "first")?, flat_pairs(&pairs)?);
    let similarity = contiguous(&similarity, "similarity")?;
    let out = run(py, || {
        crate::report::run_report(
            first,
            pairs,
            similarity,
            asked,
            searched_spanning,
            spanning_limit,
            max_pairs,
        )
    })?;
    Ok((
        matrix(py, out.reported.pairs, 2)?,
        out.reported.similarity.into_pyarray(py),
        out.mode.name(),
        out.over_limit,
    ))
}
