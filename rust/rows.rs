//! Pieces every pair-producing stage shares: a view of a row-major matrix (signatures,
//! fingerprints), the scored-pairs output type, the gather of some rows of a CSR array
//! (shingle sets), and cache prefetching.

use crate::error::{Error, Result};

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

/// Checks that every value of the argument `name` is a position of `n` documents.
pub fn check_positions(name: &str, values: &[i64], n: usize) -> Result<()> {
    match values
        .iter()
        .enumerate()
        .find(|&(_, &v)| v < 0 || v as u64 >= n as u64)
    {
        Some((i, v)) => Err(Error::new(format!(
            "{name}[{i}] = {v} is not a position of the {n} documents"
        ))),
        None => Ok(()),
    }
}

/// Where the CSR rows `rows` (increasing) of `offsets` lie: the runs of consecutive rows as
/// (start, end) ranges of the hashes, checked against `offsets` and `len` hashes.
fn row_runs(offsets: &[i64], rows: &[i64], len: usize) -> Result<Vec<(usize, usize)>> {
    let n = offsets.len().saturating_sub(1);
    let mut runs: Vec<(usize, usize)> = Vec::new();
    let mut last: Option<i64> = None;
    for &row in rows {
        if row < 0 || row as u64 >= n as u64 || last.is_some_and(|l| row <= l) {
            return Err(Error::new(format!(
                "rows must be increasing positions below {n}, got {row} after {last:?}"
            )));
        }
        let (start, end) = (offsets[row as usize], offsets[row as usize + 1]);
        if start < 0 || end < start || end as u64 > len as u64 {
            return Err(Error::new(format!(
                "row {row} (hashes {start}..{end}) is outside the {len} hashes"
            )));
        }
        match runs.last_mut() {
            Some(run) if last == Some(row - 1) && run.1 == start as usize => run.1 = end as usize,
            _ => runs.push((start as usize, end as usize)),
        }
        last = Some(row);
    }
    Ok(runs)
}

/// Copies the CSR rows `rows` (increasing; row i is `hashes[offsets[i]..offsets[i + 1]]`) one
/// after another to the front of `out`, one slice copy per run of consecutive rows; returns
/// how many hashes it copied.
pub fn gather_rows(
    offsets: &[i64],
    rows: &[i64],
    hashes: &[u64],
    out: &mut [u64],
) -> Result<usize> {
    let runs = row_runs(offsets, rows, hashes.len())?;
    let total: usize = runs.iter().map(|(a, b)| b - a).sum();
    if total > out.len() {
        return Err(Error::new(format!(
            "out holds {} hashes, the rows have {total}",
            out.len()
        )));
    }
    let mut put = 0;
    for (a, b) in runs {
        out[put..put + b - a].copy_from_slice(&hashes[a..b]);
        put += b - a;
    }
    Ok(put)
}

/// [`gather_rows`] into `hashes` itself: each run moves towards the front (rows increase, so
/// it never overtakes what is still to be read).
pub fn gather_rows_in_place(offsets: &[i64], rows: &[i64], hashes: &mut [u64]) -> Result<usize> {
    let mut put = 0;
    for (a, b) in row_runs(offsets, rows, hashes.len())? {
        hashes.copy_within(a..b, put);
        put += b - a;
    }
    Ok(put)
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
    fn gathered_rows_are_the_rows_in_order() {
        // rows of sizes 2, 0, 3, 1, 2
        let offsets = [0i64, 2, 2, 5, 6, 8];
        let hashes: Vec<u64> = (10..18).collect();
        for rows in [
            vec![],
            vec![0, 1, 2, 3, 4],
            vec![0, 2, 4],
            vec![1, 3],
            vec![2, 3, 4],
        ] {
            let want: Vec<u64> = rows
                .iter()
                .flat_map(|&r: &i64| {
                    hashes[offsets[r as usize] as usize..offsets[r as usize + 1] as usize].to_vec()
                })
                .collect();
            let mut out = vec![0; want.len()];
            assert_eq!(
                gather_rows(&offsets, &rows, &hashes, &mut out).unwrap(),
                want.len()
            );
            assert_eq!(out, want, "rows {rows:?}");
            let mut own = hashes.clone();
            assert_eq!(
                gather_rows_in_place(&offsets, &rows, &mut own).unwrap(),
                want.len()
            );
            assert_eq!(own[..want.len()], want[..], "rows {rows:?} in place");
        }
    }

    #[test]
    fn rows_out_of_order_or_range_and_short_outputs_are_errors() {
        let (offsets, hashes) = ([0i64, 2, 3], [1u64, 2, 3]);
        let mut out = [0u64; 3];
        for rows in [vec![1, 0], vec![0, 0], vec![2], vec![-1]] {
            assert!(
                gather_rows(&offsets, &rows, &hashes, &mut out).is_err(),
                "{rows:?}"
            );
        }
        assert!(gather_rows(&offsets, &[0, 1], &hashes, &mut out[..2]).is_err());
        assert!(gather_rows(&[0, 4], &[0], &hashes, &mut out).is_err());
        assert!(gather_rows(&[2, 1], &[0], &hashes, &mut out).is_err());
    }
}
