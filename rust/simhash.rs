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
    votes
        .iter()
        .enumerate()
        .fold(0u64, |acc, (t, &v)| acc | (((v > 0) as u64) << t))
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
        let mut first = BitCounts::<false>::new();
        let mut second = BitCounts::<false>::new();
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
    table: Vec<Entry>,
    stamp: u32,
}

/// One slot of [`SimHasher`]'s table: in use for the current document when `stamp` matches.
#[derive(Debug, Default, Clone, Copy)]
struct Entry {
    key: u64,
    stamp: u32,
    count: u32,
}

impl SimHasher {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn fingerprint_into(&mut self, shingles: &[u64], tf: bool, out: &mut [u64]) {
        #[cfg(all(target_arch = "x86_64", neardup_avx512))]
        {
            if crate::cpu::allows_avx512()
                && std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512bw")
            {
                // SAFETY: the CPU has AVX-512F and BW (checked just above), all that
                // `fingerprint_avx512` requires; its body is the safe generic code.
                unsafe { self.fingerprint_avx512(shingles, tf, out) };
                return;
            }
        }
        self.fingerprint_generic::<false>(shingles, tf, out);
    }

    #[cfg(all(target_arch = "x86_64", neardup_avx512))]
    #[target_feature(enable = "avx512f,avx512bw,avx512vl,avx2")]
    unsafe fn fingerprint_avx512(&mut self, shingles: &[u64], tf: bool, out: &mut [u64]) {
        self.fingerprint_generic::<true>(shingles, tf, out);
    }

    #[inline(always)]
    fn fingerprint_generic<const BYTES: bool>(
        &mut self,
        shingles: &[u64],
        tf: bool,
        out: &mut [u64],
    ) {
        let capacity = (2 * shingles.len()).next_power_of_two().max(16);
        if self.table.len() < capacity {
            self.table = vec![Entry::default(); capacity];
            self.stamp = 0;
        }
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.table.iter_mut().for_each(|e| e.stamp = 0);
            self.stamp = 1;
        }
        let (stamp, mask, shift) = (self.stamp, capacity - 1, 64 - capacity.trailing_zeros());
        let table = &mut self.table[..capacity];
        let mut first = BitCounts::<BYTES>::new();
        let mut second = BitCounts::<BYTES>::new();
        let two = out.len() == 2;
        for &s in shingles {
            // Fibonacci hashing: any input, even one without uniform low bits, spreads out.
            let mut slot = (s.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> shift) as usize;
            loop {
                let entry = &mut table[slot];
                if entry.stamp != stamp {
                    *entry = Entry {
                        key: s,
                        stamp,
                        count: 1,
                    };
                    if !tf {
                        first.add(s);
                        if two {
                            second.add(mix64(s ^ SECOND_WORD_KEY));
                        }
                    }
                    break;
                }
                if entry.key == s {
                    entry.count += 1;
                    break;
                }
                slot = (slot + 1) & mask;
            }
        }
        if tf {
            let weighted = table
                .iter()
                .filter(move |e| e.stamp == stamp)
                .map(|e| (e.key, e.count as i64));
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

/// How many of the values added have each of the 64 bits set, in byte-wide lanes moved to
/// 32-bit counts every 255 values, before a lane could overflow. `BYTES = false`: eight lanes
/// per u64 (one table look-up and one add per byte of a value), fast everywhere;
/// `BYTES = true`: one u8 per bit, which AVX-512BW turns into a mask-to-bytes move and one add.
struct BitCounts<const BYTES: bool> {
    lanes: [u64; 8],
    bytes: [u8; 64],
    wide: [u32; 64],
    pending: u32,
    total: u32,
}

impl<const BYTES: bool> BitCounts<BYTES> {
    #[inline(always)]
    fn new() -> Self {
        BitCounts {
            lanes: [0; 8],
            bytes: [0; 64],
            wide: [0; 64],
            pending: 0,
            total: 0,
        }
    }

    #[inline(always)]
    fn add(&mut self, value: u64) {
        if BYTES {
            // SAFETY: `BitCounts<true>` is only used by `SimHasher::fingerprint_avx512`, which
            // runs only after checking that the CPU has AVX-512F and AVX-512BW (and by a test
            // that checks the same first).
            #[cfg(all(target_arch = "x86_64", neardup_avx512))]
            unsafe {
                add_bits_avx512(&mut self.bytes, value)
            };
            #[cfg(not(all(target_arch = "x86_64", neardup_avx512)))]
            add_bits_portable(&mut self.bytes, value);
        } else {
            for (b, lane) in self.lanes.iter_mut().enumerate() {
                *lane += EXPAND[((value >> (8 * b)) & 0xFF) as usize];
            }
        }
        self.pending += 1;
        if self.pending == 255 {
            self.flush();
        }
    }

    #[inline(always)]
    fn flush(&mut self) {
        if BYTES {
            for (w, &lane) in self.wide.iter_mut().zip(&self.bytes) {
                *w += lane as u32;
            }
            self.bytes = [0; 64];
        } else {
            for (b, lane) in self.lanes.iter_mut().enumerate() {
                for k in 0..8 {
                    self.wide[8 * b + k] += ((*lane >> (8 * k)) & 0xFF) as u32;
                }
                *lane = 0;
            }
        }
        self.total += self.pending;
        self.pending = 0;
    }

    /// Bit t is 1 when more values have it set than not (the unweighted SimHash vote).
    #[inline(always)]
    fn majority(&mut self) -> u64 {
        self.flush();
        let total = self.total as u64;
        self.wide.iter().enumerate().fold(0u64, |acc, (t, &ones)| {
            acc | (((2 * ones as u64 > total) as u64) << t)
        })
    }
}

/// Adds bit k of `value` to `lanes[k]` (wrapping), for k in 0..64: one mask-to-bytes move
/// (0xFF, i.e. -1, per set bit) and one byte subtraction.
///
/// # Safety
/// The CPU must support AVX-512F and AVX-512BW.
#[cfg(all(target_arch = "x86_64", neardup_avx512))]
#[target_feature(enable = "avx512f,avx512bw")]
#[inline]
#[allow(clippy::incompatible_msrv)] // compiled only by Rust >= 1.89 (build.rs sets the cfg)
unsafe fn add_bits_avx512(lanes: &mut [u8; 64], value: u64) {
    use std::arch::x86_64::{
        __m512i, _mm512_loadu_si512, _mm512_movm_epi8, _mm512_storeu_si512, _mm512_sub_epi8,
    };
    let p = lanes.as_mut_ptr() as *mut __m512i;
    // The unaligned load and store cover exactly the 64 bytes of `lanes`.
    let sum = _mm512_sub_epi8(
        _mm512_loadu_si512(p as *const __m512i),
        _mm512_movm_epi8(value),
    );
    _mm512_storeu_si512(p, sum);
}

/// [`add_bits_avx512`] without AVX-512 (used by builds without it, and by tests).
#[allow(dead_code)]
#[inline(always)]
fn add_bits_portable(lanes: &mut [u8; 64], value: u64) {
    for (k, lane) in lanes.iter_mut().enumerate() {
        *lane = lane.wrapping_add(((value >> k) & 1) as u8);
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
            let mut shingles: Vec<u64> =
                (0..len as u64).map(|i| mix64(i * 7 + len as u64)).collect();
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
                    #[cfg(all(target_arch = "x86_64", neardup_avx512))]
                    let byte_lanes = std::arch::is_x86_feature_detected!("avx512f")
                        && std::arch::is_x86_feature_detected!("avx512bw");
                    #[cfg(not(all(target_arch = "x86_64", neardup_avx512)))]
                    let byte_lanes = true;
                    if byte_lanes {
                        hasher.fingerprint_generic::<true>(&shingles, tf, &mut got);
                        assert_eq!(got, want, "byte lanes len {len} words {words} tf {tf}");
                    }
                    hasher.fingerprint_generic::<false>(&shingles, tf, &mut got);
                    assert_eq!(got, want, "u64 lanes len {len} words {words} tf {tf}");
                }
            }
        }
    }

    #[test]
    fn portable_bit_bytes_count_bits() {
        let mut lanes = [0u8; 64];
        add_bits_portable(&mut lanes, 0b1011);
        add_bits_portable(&mut lanes, 0b0010);
        assert_eq!(&lanes[..5], &[1, 2, 0, 1, 0]);
    }

    #[test]
    fn hamming_counts_differing_bits() {
        assert_eq!(hamming(&[0b1011, 0], &[0b0001, 1 << 63]), 3);
        assert!(words_for(32).is_err());
    }
}
