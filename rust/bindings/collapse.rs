//! The collapse stage's part of `neardup._core` (the pass itself is the run's, `run.rs`):
//! `set_digests`, the digest that finds equal shingle sets (`rust/signing/digest.rs`).

use super::{matrix, run, sets_view};
use numpy::{PyArray2, PyReadonlyArray1};
use pyo3::prelude::*;

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(set_digests, m)?)?;
    Ok(())
}

/// uint64[n, 2]: the 128-bit digest of each shingle set (CSR `offsets`/`hashes`).
#[pyfunction]
fn set_digests<'py>(
    py: Python<'py>,
    offsets: PyReadonlyArray1<'py, i64>,
    hashes: PyReadonlyArray1<'py, u64>,
) -> PyResult<Bound<'py, PyArray2<u64>>> {
    let view = sets_view(&offsets, &hashes)?;
    let digests = run(py, || crate::signing::set_digests(view))?;
    matrix(py, digests, 2)
}
