//! The 128-bit digest of a shingle set that finds exact duplicates of the sets (equal sets,
//! equal digests): [`set_digest`] of a sorted set, [`set_digests`] of every set of a view, and
//! [`UnsortedDigest`], the same bits from hashes given with repeats.

use crate::error::{reserve, Result};
use crate::hashing::mix64;
use crate::shingle::SetsView;

/// [`set_digest`] and size of the set of shingle hashes given with repeats, without sorting
/// them: each distinct hash is found once through an open-addressing table indexed by its top
/// bits (the hashes are uniform), about a tenth of the instructions of sorting a set of a few
/// hundred. A document whose hashes cluster in the table (a probe longer than
/// [`UnsortedDigest::MAX_PROBE`]) is sorted instead, so no input costs more than a sort.
#[derive(Debug, Default)]
pub(crate) struct UnsortedDigest {
    table: Vec<u64>,
    sorted: Vec<u64>,
    sorter: crate::shingle::SetSorter,
}

impl UnsortedDigest {
    pub(crate) const MAX_PROBE: usize = 64;

    pub(crate) fn digest(&mut self, hashes: &[u64]) -> ([u64; 2], usize) {
        if hashes.is_empty() {
            return ([0, 0], 0);
        }
        // At most half full; 0 marks an empty slot (a hash 0 is counted on the side).
        let bits = (2 * hashes.len())
            .next_power_of_two()
            .trailing_zeros()
            .max(4);
        let (mask, shift) = ((1usize << bits) - 1, 64 - bits);
        self.table.clear();
        self.table.resize(mask + 1, 0);
        let (mut sum, mut squares, mut size, mut zero) = (0u64, 0u64, 0usize, false);
        for &v in hashes {
            if v == 0 {
                zero = true;
                continue;
            }
            let mut at = (v >> shift) as usize;
            let mut probe = 0;
            loop {
                let slot = self.table[at];
                if slot == v {
                    break;
                }
                if slot == 0 {
                    self.table[at] = v;
                    sum = sum.wrapping_add(v);
                    squares = squares.wrapping_add(v.wrapping_mul(v));
                    size += 1;
                    break;
                }
                probe += 1;
                if probe > Self::MAX_PROBE {
                    return self.by_sorting(hashes);
                }
                at = (at + 1) & mask;
            }
        }
        size += usize::from(zero); // 0 adds nothing to either sum
        ([sum ^ mix64(size as u64 ^ DIGEST_SIZE_KEY), squares], size)
    }

    fn by_sorting(&mut self, hashes: &[u64]) -> ([u64; 2], usize) {
        self.sorted.clear();
        self.sorted.extend_from_slice(hashes);
        let size = self.sorter.sort_dedup(&mut self.sorted);
        (set_digest(&self.sorted[..size]), size)
    }
}

/// Mixed with a set's size in [`set_digest`] .
const DIGEST_SIZE_KEY: u64 = 0x9E37_79B9_7F4A_7C15;

/// A 128-bit digest of a sorted, duplicate-free shingle set; equal sets give equal digests,
/// and different sets collide with probability about 2^-128 (the hashes are uniform). The sums
/// of the hashes and of their squares modulo 2^64, the mixed size folded into the first; the
/// empty set gives (0, 0). Only compared
/// within one run, never stored.
pub fn set_digest(set: &[u64]) -> [u64; 2] {
    if set.is_empty() {
        return [0, 0];
    }
    let (mut sum, mut squares) = (0u64, 0u64);
    for &v in set {
        sum = sum.wrapping_add(v);
        squares = squares.wrapping_add(v.wrapping_mul(v));
    }
    [sum ^ mix64(set.len() as u64 ^ DIGEST_SIZE_KEY), squares]
}

/// `n * 2` words: the [`set_digest`] of each set of `sets`, in order (the sets of a
/// [`SetsView`] are sorted and duplicate-free).
pub fn set_digests(sets: SetsView<'_>) -> Result<Vec<u64>> {
    let mut out = Vec::new();
    reserve(&mut out, sets.len() * 2, "the set digests")?;
    for i in 0..sets.len() {
        out.extend_from_slice(&set_digest(sets.get(i)));
    }
    Ok(out)
}
