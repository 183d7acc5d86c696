//! The hashing part of `neardup._core`: `mix64`, the SplitMix64 finaliser of
//! `rust/hashing.rs` over a uint64 array (banding sample keys, Ray hash partitions, the
//! synthetic corpus).

use numpy::{IntoPyArray, PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(mix64, m)?)?;
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
