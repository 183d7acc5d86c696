//! Shingle sets between Rust and numpy: the sets the crate builds go out as read-only arrays
//! over memory a [`BuiltSets`] owns, and a binding handed exactly those arrays back takes them
//! as built ([`SetsView::of_sorted_sets`]), without the O(total) check that every set is sorted
//! and duplicate-free ([`SetsView::new`], which any other arrays get).
//!
//! Why it is sound: numpy cannot make these arrays writeable again (their memory is not theirs
//! and their base exposes no writable buffer), and a view of them with another start, length or
//! stride is not taken as built. Whatever the arrays hold, indexing stays checked: trusting them
//! could only give a wrong similarity, never an out-of-bounds read.

use super::contiguous;
use crate::error::Result;
use crate::shingle::SetsView;
use numpy::ndarray::Array1;
use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray1, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::prelude::*;

pub(super) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<BuiltSets>()?;
    Ok(())
}

/// The memory of shingle sets the crate built: the base object of their numpy arrays.
#[pyclass(frozen, module = "neardup._core")]
pub struct BuiltSets {
    offsets: Array1<i64>,
    hashes: Array1<u64>,
}

/// Shingle sets as numpy arrays: offsets int64[n+1] and hashes uint64[total].
pub type SetArrays<'py> = (Bound<'py, PyArray1<i64>>, Bound<'py, PyArray1<u64>>);

/// The arrays (offsets int64[n+1], hashes uint64[total]) of sets the crate built, sorted and
/// duplicate-free: read-only, over memory a [`BuiltSets`] owns (no copy).
pub fn built_sets(py: Python<'_>, offsets: Vec<i64>, hashes: Vec<u64>) -> PyResult<SetArrays<'_>> {
    let owner = Bound::new(
        py,
        BuiltSets {
            offsets: Array1::from_vec(offsets),
            hashes: Array1::from_vec(hashes),
        },
    )?;
    let sets = owner.get();
    // SAFETY: `owner` becomes each array's base, so the memory lives as long as any array over
    // it; the class is frozen and its fields private, so neither array is ever changed or
    // reallocated.
    let (offsets, hashes) = unsafe {
        (
            PyArray1::borrow_from_array(&sets.offsets, owner.clone().into_any()),
            PyArray1::borrow_from_array(&sets.hashes, owner.clone().into_any()),
        )
    };
    offsets.readwrite().make_nonwriteable();
    hashes.readwrite().make_nonwriteable();
    Ok((offsets, hashes))
}

/// Whether `array` is the whole of `owned`, read-only: its data pointer, length and contiguity.
fn is_whole<T>(array: &Bound<'_, PyUntypedArray>, owned: &Array1<T>) -> bool {
    // SAFETY: reading two fields of a live array object.
    let (flags, data) = unsafe {
        let raw = array.as_array_ptr();
        ((*raw).flags, (*raw).data)
    };
    flags & numpy::npyffi::NPY_ARRAY_WRITEABLE == 0
        && array.is_c_contiguous()
        && array.len() == owned.len()
        && std::ptr::eq(data as *const u8, owned.as_ptr() as *const u8)
}

/// The sets behind `offsets`/`hashes`: taken as built when both are the whole arrays of one
/// [`BuiltSets`], else checked in full ([`SetsView::new`]).
pub fn sets_view<'a>(
    offsets: &'a PyReadonlyArray1<i64>,
    hashes: &'a PyReadonlyArray1<u64>,
) -> PyResult<SetsView<'a>> {
    let (offset_slice, hash_slice) = (
        contiguous(offsets, "offsets")?,
        contiguous(hashes, "hashes")?,
    );
    let view: Result<SetsView<'a>> = if are_built(offsets, hashes) {
        SetsView::of_sorted_sets(offset_slice, hash_slice)
    } else {
        SetsView::new(offset_slice, hash_slice)
    };
    Ok(view?)
}

fn are_built(offsets: &PyReadonlyArray1<i64>, hashes: &PyReadonlyArray1<u64>) -> bool {
    let (Ok(base), Ok(other)) = (offsets.getattr("base"), hashes.getattr("base")) else {
        return false;
    };
    let Ok(owner) = base.downcast::<BuiltSets>() else {
        return false;
    };
    let sets = owner.get();
    base.is(&other)
        && is_whole(offsets.as_untyped(), &sets.offsets)
        && is_whole(hashes.as_untyped(), &sets.hashes)
}
