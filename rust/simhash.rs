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
        fingerprint_into(runs.map(|(s, _)| (s, 1)), out);
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
    fn hamming_counts_differing_bits() {
        assert_eq!(hamming(&[0b1011, 0], &[0b0001, 1 << 63]), 3);
        assert!(words_for(32).is_err());
    }
}
