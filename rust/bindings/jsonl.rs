//! The JSONL fast path's part of `neardup._core` (`rust/jsonl/mod.rs`): a buffer of a file's
//! bytes in, text buffers and raw ids out (`python/neardup/io/jsonl.py` drives it).

use super::{contiguous, matrix, run};
use crate::error::Error;
use crate::jsonl;
use numpy::{IntoPyArray, PyArray1, PyArray2, PyReadonlyArray1, PyReadwriteArray1};
use pyo3::prelude::*;

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(jsonl_scan, m)?)?;
    m.add_function(wrap_pyfunction!(jsonl_kept_lines, m)?)?;
    Ok(())
}

type Bytes<'py> = Bound<'py, PyArray1<u8>>;
type Ints<'py> = Bound<'py, PyArray1<i64>>;

/// (bytes of texts written to the front of `text`, text offsets, raw ids, id offsets,
/// fallback int64[m, 4] (row, start, end, line), end, lines) of the rows of `block[start:]`
/// ([`jsonl::scan`]; `text`, the caller's reused buffer, holds at least `len(block) - start`
/// bytes); the fallback's start/end and `end` are positions in `block`, its line numbers
/// count from `start`.
type ScanOut<'py> = (
    usize,
    Ints<'py>,
    Bytes<'py>,
    Ints<'py>,
    Bound<'py, PyArray2<i64>>,
    usize,
    usize,
);

fn rest<'a>(block: &'a PyReadonlyArray1<'_, u8>, start: usize) -> PyResult<&'a [u8]> {
    let bytes = contiguous(block, "block")?;
    bytes.get(start..).ok_or_else(|| {
        Error::new(format!(
            "start {start} is past the block ({} bytes)",
            bytes.len()
        ))
        .into()
    })
}

#[pyfunction]
#[pyo3(signature = (block, start, text, last, text_field, id_field, id_required, max_rows, threads=1))]
#[allow(clippy::too_many_arguments)]
fn jsonl_scan<'py>(
    py: Python<'py>,
    block: PyReadonlyArray1<'py, u8>,
    start: usize,
    mut text: PyReadwriteArray1<'py, u8>,
    last: bool,
    text_field: &str,
    id_field: Option<&str>,
    id_required: bool,
    max_rows: usize,
    threads: usize,
) -> PyResult<ScanOut<'py>> {
    let bytes = rest(&block, start)?;
    let text = text
        .as_slice_mut()
        .map_err(|_| Error::new("text must be a C-contiguous array"))?;
    let mut s = run(py, || {
        jsonl::scan(
            bytes,
            text,
            last,
            text_field,
            id_field,
            id_required,
            max_rows,
            threads,
        )
    })?;
    for f in s.fallback.chunks_exact_mut(4) {
        f[1] += start as i64;
        f[2] += start as i64;
    }
    Ok((
        s.text_len,
        s.text_offsets.into_pyarray(py),
        s.ids.into_pyarray(py),
        s.id_offsets.into_pyarray(py),
        matrix(py, s.fallback, 4)?,
        start + s.consumed,
        s.lines,
    ))
}

/// (bytes of kept lines now at the front of `block`, whether a `\n` must follow them,
/// non-blank lines seen, end, lines) ([`jsonl::kept_lines`], which moves the kept lines of
/// `block` to its front in place; the bytes from `end` on are left as they were).
#[pyfunction]
fn jsonl_kept_lines<'py>(
    py: Python<'py>,
    mut block: PyReadwriteArray1<'py, u8>,
    last: bool,
    keep: PyReadonlyArray1<'py, bool>,
) -> PyResult<(usize, bool, usize, usize, usize)> {
    let bytes = block
        .as_slice_mut()
        .map_err(|_| Error::new("block must be a C-contiguous array"))?;
    let keep = contiguous(&keep, "keep")?;
    let k = run(py, || Ok(jsonl::kept_lines(bytes, last, keep)))?;
    Ok((k.len, k.newline, k.rows, k.consumed, k.lines))
}
