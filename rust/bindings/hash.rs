//! The hashing part of `neardup._core`: `mix64`, the SplitMix64 finaliser of
//! `rust/hashing.rs` over a uint64 array (banding sample keys, Ray hash partitions, the
//! synthetic corpus), and `salt_signatures` (`rust/partitions.rs`, in place).

use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1, PyReadwriteArray2};
use pyo3::prelude::*;

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(mix64, m)?)?;
    m.add_function(wrap_pyfunction!(salt_signatures, m)?)?;
    Ok(())
}

/// uint64[n]: `crate::hashing::mix64` of each value (wrapping arithmetic), a new array.
#[pyfunction]
fn mix64<'py>(
    py: Python<'py>,
    values: PyReadonlyArray1<'py, u64>,
) -> PyResult<Bound<'py, PyArray1<u64>>> {
    let values = values.as_array();
    let mut mixed = Vec::new();
    crate::error::reserve(&mut mixed, values.len(), "the mixed values")?;
    mixed.extend(values.iter().map(|&v| crate::hashing::mix64(v)));
    Ok(mixed.into_pyarray(py))
}

/// Salt MinHash `signatures` (uint32[n, P], C-contiguous, written in place) with one partition
/// key a row: `crate::partitions::salt_signatures`.
#[pyfunction]
fn salt_signatures(
    py: Python<'_>,
    mut signatures: PyReadwriteArray2<'_, u32>,
    partitions: PyReadonlyArray1<'_, u64>,
) -> PyResult<()> {
    let width = signatures.as_array().ncols();
    let partitions = super::contiguous(&partitions, "partitions")?;
    let slots = signatures
        .as_slice_mut()
        .map_err(|_| crate::error::Error::new("signatures must be a C-contiguous array"))?;
    super::run(py, || {
        crate::partitions::salt_signatures(slots, width, partitions)
    })
}
