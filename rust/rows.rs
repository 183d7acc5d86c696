//! Pieces every pair-producing stage shares: a view of a row-major matrix (signatures,
//! fingerprints), the scored-pairs output type, every pair within groups, and cache
//! prefetching.

use crate::error::{reserve, Error, Result};

/// Pairs i < j and the similarity of each.
pub type ScoredPairs = (Vec<(u32, u32)>, Vec<f32>);

/// Pairs i < j and the Hamming distance of each.
pub type PairDistances = (Vec<(u32, u32)>, Vec<i32>);

/// A row-major matrix borrowed as rows of `width` items (`width` 0 holds no rows).
#[derive(Debug, Clone, Copy)]
pub struct Rows<'a, T> {
    data: &'a [T],
    width: usize,
}

impl<'a, T> Rows<'a, T> {
    pub fn new(data: &'a [T], width: usize) -> Self {
        Rows { data, width }
    }

    /// Number of whole rows.
    pub fn len(&self) -> usize {
        self.data.len().checked_div(self.width).unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn width(&self) -> usize {
        self.width
    }

    /// Row `i` (panics past the end: callers check indices that come from outside).
    #[inline]
    pub fn row(&self, i: usize) -> &'a [T] {
        &self.data[i * self.width..(i + 1) * self.width]
    }

    /// Every row in order.
    pub fn iter(&self) -> impl Iterator<Item = &'a [T]> + 'a {
        let width = self.width.max(1);
        let data = if self.width == 0 {
            &self.data[..0]
        } else {
            self.data
        };
        data.chunks_exact(width)
    }
}

/// Asks the CPU to start loading `set` into cache (a hint: no effect on results). Exact
/// verification walks the sets of random pairs, which is memory-bound; prefetching the set of a
/// pair a few pairs ahead overlaps those loads with the merges. A no-op off x86_64.
#[inline]
pub fn prefetch(set: &[u64]) {
    prefetch_bytes(set.as_ptr() as *const u8, std::mem::size_of_val(set));
}

/// [`prefetch`] for the `len` bytes from `start` (every 64-byte line). A no-op off x86_64.
#[inline]
pub fn prefetch_bytes(start: *const u8, len: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        for offset in (0..len).step_by(64) {
            // SAFETY: prefetching is a hint that never faults, whatever the address (the
            // offset stays within the caller's live slice, `wrapping_add` computes it without
            // claiming so); SSE (which provides it) is part of the x86_64 baseline.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(start.wrapping_add(offset) as *const i8) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (start, len);
}

/// Pairs ahead whose second set [`prefetch`] loads.
pub const PREFETCH_AHEAD: usize = 8;

/// Every pair within each group, flat as `[a0, b0, a1, b1, ...]`: group `g` is
/// `items[starts[g]..starts[g] + sizes[g]]`, and its pairs are `(items[start + u],
/// items[start + v])` for `u < v`, by group, then `u`, then `v`. The one copy of this loop:
/// exact-duplicate groups (the engine's `"all"` pairs), the documents of an LSH bucket (the
/// Ray engine) and documents sharing a label (`neardup.pairs_within_groups`).
pub fn pairs_within_groups(starts: &[i64], sizes: &[i64], items: &[i64]) -> Result<Vec<i64>> {
    if starts.len() != sizes.len() {
        return Err(Error::new(format!(
            "starts and sizes must have the same length, got {} and {}",
            starts.len(),
            sizes.len()
        )));
    }
    let mut total = 0usize;
    for (g, (&start, &size)) in starts.iter().zip(sizes).enumerate() {
        let fits = start >= 0
            && size >= 0
            && (start as u64).saturating_add(size as u64) <= items.len() as u64;
        if !fits {
            return Err(Error::new(format!(
                "group {g} (start {start}, size {size}) is outside the {} items",
                items.len()
            )));
        }
        let size = size as usize;
        total = size
            .checked_mul(size.saturating_sub(1))
            .and_then(|square| total.checked_add(square / 2))
            .ok_or_else(|| Error::resource("the pairs within groups", usize::MAX, 16))?;
    }
    let mut out = Vec::new();
    reserve(&mut out, total.saturating_mul(2), "the pairs within groups")?;
    for (&start, &size) in starts.iter().zip(sizes) {
        let group = &items[start as usize..(start + size) as usize];
        for (u, &a) in group.iter().enumerate() {
            for &b in &group[u + 1..] {
                out.push(a);
                out.push(b);
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_of_a_matrix() {
        let data = [1u32, 2, 3, 4, 5, 6];
        let rows = Rows::new(&data, 3);
        assert_eq!((rows.len(), rows.row(1)), (2, &[4, 5, 6][..]));
        assert_eq!(rows.iter().count(), 2);
        let none = Rows::new(&data[..0], 0);
        assert_eq!((none.len(), none.iter().count()), (0, 0));
    }

    #[test]
    fn pairs_within_groups_by_group_then_rank() {
        let items = [7i64, 3, 9, 4, 5, 6];
        // groups [7, 3, 9], [] and [5, 6]; the item 4 is in none
        let got = pairs_within_groups(&[0, 3, 4], &[3, 0, 2], &items).unwrap();
        assert_eq!(got, vec![7, 3, 7, 9, 3, 9, 5, 6]);
        assert!(pairs_within_groups(&[0], &[1, 2], &items).is_err());
        assert!(pairs_within_groups(&[5], &[2], &items).is_err());
        assert!(pairs_within_groups(&[-1], &[1], &items).is_err());
        assert!(pairs_within_groups(&[], &[], &items).unwrap().is_empty());
    }
}
