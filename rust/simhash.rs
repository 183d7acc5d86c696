//! SimHash (Charikar 2002) over shingle hashes, 64 or 128 bits.
//!
//! Each distinct shingle s votes on every bit: +w where its bit is 1, -w where it is 0, with
//! w = 1 (unweighted) or w = the number of times s occurs in the document (`tf`). Bit t of the
//! fingerprint is 1 when the vote total is positive. Bits 0..63 vote with s itself; bits 64..127
//! with `mix64(s ^ SECOND_WORD_KEY)`. Fingerprint word 0 holds bits 0..63, word 1 bits 64..127.
//! The empty set's fingerprint is all zeros.

use crate::error::{Error, Result};
use crate::hashing::mix64;

const SECOND_WORD_KEY: u64 = 0x9E37_79B9_7F4A_7C15;

/// Number of 64-bit words of a fingerprint of `bits` bits, or an error.
pub fn words_for(bits: usize) -> Result<usize> {
    match bits {
        64 => Ok(1),
        128 => Ok(2),
        other => Err(Error::new(format!("bits must be 64 or 128, got {other}"))),
    }
}

/// Adds `weight` votes of `value`'s 64 bits into `votes`.
#[inline]
fn vote(votes: &mut [i64; 64], value: u64, weight: i64) {
    for (t, v) in votes.iter_mut().enumerate() {
        let bit = ((value >> t) & 1) as i64;
        *v += (2 * bit - 1) * weight;
    }
}

#[inline]
fn to_bits(votes: &[i64; 64]) -> u64 {
    votes.iter().enumerate().fold(0u64, |acc, (t, &v)| acc | (((v > 0) as u64) << t))
}

/// Fingerprint of `(shingle, weight)` pairs (each shingle once) into `out` (1 or 2 words).
pub fn fingerprint_into(weighted: impl Iterator<Item = (u64, i64)> + Clone, out: &mut [u64]) {
    let mut votes = [0i64; 64];
    for (s, w) in weighted.clone() {
        vote(&mut votes, s, w);
    }
    out[0] = to_bits(&votes);
    if out.len() == 2 {
        votes = [0i64; 64];
        for (s, w) in weighted {
            vote(&mut votes, mix64(s ^ SECOND_WORD_KEY), w);
        }
        out[1] = to_bits(&votes);
    }
}

/// Fingerprint of a sorted list of shingle hashes that may repeat. With `tf`, a shingle's weight
/// is its number of repeats; without, every distinct shingle weighs 1.
pub fn fingerprint_sorted_into(sorted: &[u64], tf: bool, out: &mut [u64]) {
    let runs = RunLengths { rest: sorted };
    if tf {
        fingerprint_into(runs, out);
    } else {
        let mut first = BitCounts::new();
        let mut second = BitCounts::new();
        let mut previous = None;
        for &s in sorted {
            if previous != Some(s) {
                first.add(s);
                if out.len() == 2 {
                    second.add(mix64(s ^ SECOND_WORD_KEY));
                }
                previous = Some(s);
            }
        }
        out[0] = first.majority();
        if out.len() == 2 {
            out[1] = second.majority();
        }
    }
}

/// Fingerprints documents' shingle hashes given in any order with repeats, reusing a small
/// hash set (instead of sorting) to find the distinct shingles; same bits as
/// [`fingerprint_sorted_into`] on the sorted hashes.
#[derive(Debug, Default, Clone)]
pub struct SimHasher {
    keys: Vec<u64>,
    counts: Vec<u32>,
    stamps: Vec<u32>,
    stamp: u32,
}

impl SimHasher {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn fingerprint_into(&mut self, shingles: &[u64], tf: bool, out: &mut [u64]) {
        let capacity = (2 * shingles.len()).next_power_of_two().max(16);
        if self.keys.len() < capacity {
            self.keys.resize(capacity, 0);
            self.counts.resize(capacity, 0);
            self.stamps = vec![0; capacity];
            self.stamp = 0;
        }
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.stamps.fill(0);
            self.stamp = 1;
        }
        let (stamp, mask, shift) = (self.stamp, capacity - 1, 64 - capacity.trailing_zeros());
        let mut first = BitCounts::new();
        let mut second = BitCounts::new();
        let two = out.len() == 2;
        for &s in shingles {
            // Fibonacci hashing: any input, even one without uniform low bits, spreads out.
            let mut slot = (s.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> shift) as usize;
            loop {
                if self.stamps[slot] != stamp {
                    self.stamps[slot] = stamp;
                    self.keys[slot] = s;
                    self.counts[slot] = 1;
                    if !tf {
                        first.add(s);
                        if two {
                            second.add(mix64(s ^ SECOND_WORD_KEY));
                        }
                    }
                    break;
                }
                if self.keys[slot] == s {
                    self.counts[slot] += 1;
                    break;
                }
                slot = (slot + 1) & mask;
            }
        }
        if tf {
            let (keys, counts, stamps) = (&self.keys, &self.counts, &self.stamps);
            let weighted = (0..capacity)
                .filter(move |&slot| stamps[slot] == stamp)
                .map(move |slot| (keys[slot], counts[slot] as i64));
            fingerprint_into(weighted, out);
        } else {
            out[0] = first.majority();
            if two {
                out[1] = second.majority();
            }
        }
    }
}

/// For each byte value x: a u64 whose byte k is bit k of x.
static EXPAND: [u64; 256] = {
    let mut table = [0u64; 256];
    let mut x = 0;
    while x < 256 {
        let mut k = 0;
        while k < 8 {
            table[x] |= (((x >> k) & 1) as u64) << (8 * k);
            k += 1;
        }
        x += 1;
    }
    table
};

/// How many of the values added have each of the 64 bits set: eight bit counts per u64 in
/// byte-wide lanes (one table look-up and one add per byte of a value), moved to 32-bit
/// counts every 255 values, before a lane could overflow.
struct BitCounts {
    lanes: [u64; 8],
    wide: [u32; 64],
    pending: u32,
    total: u32,
}

impl BitCounts {
    fn new() -> Self {
        BitCounts { lanes: [0; 8], wide: [0; 64], pending: 0, total: 0 }
    }

    #[inline]
    fn add(&mut self, value: u64) {
        for (b, lane) in self.lanes.iter_mut().enumerate() {
            *lane += EXPAND[((value >> (8 * b)) & 0xFF) as usize];
        }
        self.pending += 1;
        if self.pending == 255 {
            self.flush();
        }
    }

    fn flush(&mut self) {
        for (b, lane) in self.lanes.iter_mut().enumerate() {
            for k in 0..8 {
                self.wide[8 * b + k] += ((*lane >> (8 * k)) & 0xFF) as u32;
            }
            *lane = 0;
        }
        self.total += self.pending;
        self.pending = 0;
    }

    /// Bit t is 1 when more values have it set than not (the unweighted SimHash vote).
    fn majority(&mut self) -> u64 {
        self.flush();
        let total = self.total as u64;
        self.wide.iter().enumerate().fold(0u64, |acc, (t, &ones)| acc | (((2 * ones as u64 > total) as u64) << t))
    }
}

/// Iterates (value, count) over the runs of equal values of a sorted slice.
#[derive(Clone)]
struct RunLengths<'a> {
    rest: &'a [u64],
}

impl Iterator for RunLengths<'_> {
    type Item = (u64, i64);
    fn next(&mut self) -> Option<(u64, i64)> {
        let first = *self.rest.first()?;
        let run = self.rest.iter().take_while(|&&v| v == first).count();
        self.rest = &self.rest[run..];
        Some((first, run as i64))
    }
}

/// Hamming distance between two fingerprints of equal width.
#[inline]
pub fn hamming(a: &[u64], b: &[u64]) -> u32 {
    a.iter().zip(b).map(|(x, y)| (x ^ y).count_ones()).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_shingle_fingerprint_is_the_shingle() {
        let mut out = [0u64; 1];
        fingerprint_sorted_into(&[0xF0F0_1234], false, &mut out);
        assert_eq!(out[0], 0xF0F0_1234);
    }

    #[test]
    fn majority_vote_per_bit() {
        let mut out = [0u64; 1];
        fingerprint_sorted_into(&[0b011, 0b101, 0b110], false, &mut out);
        assert_eq!(out[0], 0b111);
        // tf: 0b001 three times outvotes the two others on bits 1 and 2.
        fingerprint_sorted_into(&[0b001, 0b001, 0b001, 0b110, 0b111], true, &mut out);
        assert_eq!(out[0], 0b001);
        // Without tf the repeats count once: bits 1, 2 win 2-1.
        fingerprint_sorted_into(&[0b001, 0b001, 0b001, 0b110, 0b111], false, &mut out);
        assert_eq!(out[0], 0b111);
    }

    #[test]
    fn empty_set_is_zero_and_ties_are_zero() {
        let mut out = [7u64; 2];
        fingerprint_sorted_into(&[], false, &mut out);
        assert_eq!(out, [0, 0]);
        fingerprint_sorted_into(&[0b01, 0b10], false, &mut out);
        assert_eq!(out[0], 0);
    }

    #[test]
    fn fast_paths_match_the_vote() {
        let mut hasher = SimHasher::new();
        for len in [0usize, 1, 2, 3, 254, 255, 256, 600, 2000] {
            let mut shingles: Vec<u64> = (0..len as u64).map(|i| mix64(i * 7 + len as u64)).collect();
            // Repeats, so that tf and set semantics differ.
            let repeats: Vec<u64> = shingles.iter().step_by(3).copied().collect();
            shingles.extend(repeats);
            let mut sorted = shingles.clone();
            sorted.sort_unstable();
            for words in [1, 2] {
                for tf in [false, true] {
                    let runs = RunLengths { rest: &sorted };
                    let mut want = vec![0u64; words];
                    if tf {
                        fingerprint_into(runs, &mut want);
                    } else {
                        fingerprint_into(runs.map(|(s, _)| (s, 1)), &mut want);
                    }
                    let mut got = vec![0u64; words];
                    fingerprint_sorted_into(&sorted, tf, &mut got);
                    assert_eq!(got, want, "sorted len {len} words {words} tf {tf}");
                    hasher.fingerprint_into(&shingles, tf, &mut got);
                    assert_eq!(got, want, "hashed len {len} words {words} tf {tf}");
                }
            }
        }
    }

    #[test]
    fn hamming_counts_differing_bits() {
        assert_eq!(hamming(&[0b1011, 0], &[0b0001, 1 << 63]), 3);
        assert!(words_for(32).is_err());
    }
}
