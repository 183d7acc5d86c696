//! Classic MinHash: P independent hash functions, one 32-bit minimum per function.
//!
//! Hash function p maps a shingle hash s to
//!     h_p(s) = ((a_p * x + b_p) mod 2^64) >> 32,   x = s mod 2^32,
//! the multiply-add-shift scheme of Dietzfelbinger (1996), strongly universal for 32-bit keys.
//! (a_p, b_p) are the (2p)-th and (2p+1)-th outputs of SplitMix64 seeded with `seed`.
//! Slot p of a signature is the minimum of h_p over the document's shingles; the empty set's
//! signature is all `u32::MAX` (`EMPTY_SLOT`). The share of equal slots of two signatures is an
//! unbiased estimate of the Jaccard similarity of their sets.

use crate::error::{Error, Result};
use crate::hashing::SplitMix64;

/// Every slot of the empty set's signature.
pub const EMPTY_SLOT: u32 = u32::MAX;

/// The P hash functions of one (num_perm, seed) choice.
#[derive(Debug, Clone)]
pub struct MinHasher {
    a: Vec<u64>,
    b: Vec<u64>,
}

impl MinHasher {
    pub fn new(num_perm: usize, seed: u64) -> Result<Self> {
        if num_perm < 1 {
            return Err(Error::new(format!("num_perm must be at least 1, got {num_perm}")));
        }
        let mut rng = SplitMix64::new(seed);
        let mut a = Vec::with_capacity(num_perm);
        let mut b = Vec::with_capacity(num_perm);
        for _ in 0..num_perm {
            a.push(rng.next_u64());
            b.push(rng.next_u64());
        }
        Ok(MinHasher { a, b })
    }

    pub fn num_perm(&self) -> usize {
        self.a.len()
    }

    /// Writes the signature of the shingle hashes `shingles` (repeats allowed) into `out`.
    pub fn signature_into(&self, shingles: &[u64], out: &mut [u32]) {
        debug_assert_eq!(out.len(), self.a.len());
        out.fill(EMPTY_SLOT);
        for &s in shingles {
            let x = s as u32 as u64;
            // Independent lanes: LLVM vectorises this loop (AVX2, NEON).
            for ((slot, &a), &b) in out.iter_mut().zip(&self.a).zip(&self.b) {
                let h = (a.wrapping_mul(x).wrapping_add(b) >> 32) as u32;
                *slot = (*slot).min(h);
            }
        }
    }
}

/// True when a signature is the empty set's (every slot `EMPTY_SLOT`).
#[inline]
pub fn is_empty_signature(signature: &[u32]) -> bool {
    signature.iter().all(|&v| v == EMPTY_SLOT)
}

/// Share of equal slots: the MinHash estimate of Jaccard similarity. Two signatures of which
/// either is the empty set's estimate 0 (the exact Jaccard of an empty set is defined as 0).
#[inline]
pub fn estimate(a: &[u32], b: &[u32]) -> f32 {
    if is_empty_signature(a) || is_empty_signature(b) {
        return 0.0;
    }
    let equal = a.iter().zip(b).filter(|(x, y)| x == y).count();
    equal as f32 / a.len() as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identical_sets_have_identical_signatures_and_estimate_one() {
        let m = MinHasher::new(64, 7).unwrap();
        let mut s1 = vec![0; 64];
        let mut s2 = vec![0; 64];
        m.signature_into(&[1, 2, 3, 4], &mut s1);
        m.signature_into(&[4, 3, 2, 1, 1], &mut s2);
        assert_eq!(s1, s2);
        assert_eq!(estimate(&s1, &s2), 1.0);
    }

    #[test]
    fn empty_set_signature_is_all_max_and_never_similar() {
        let m = MinHasher::new(8, 0).unwrap();
        let mut s = vec![0; 8];
        m.signature_into(&[], &mut s);
        assert!(is_empty_signature(&s));
        assert_eq!(estimate(&s, &s), 0.0);
    }

    #[test]
    fn slot_is_the_documented_formula() {
        let m = MinHasher::new(3, 42).unwrap();
        let mut rng = SplitMix64::new(42);
        let (a0, b0) = (rng.next_u64(), rng.next_u64());
        let mut s = vec![0; 3];
        m.signature_into(&[0xDEAD_BEEF_0000_0005], &mut s);
        assert_eq!(s[0], (a0.wrapping_mul(5).wrapping_add(b0) >> 32) as u32);
    }

    #[test]
    fn estimate_is_close_to_jaccard_on_average() {
        // |A ∩ B| = 300, |A ∪ B| = 500: J = 0.6.
        let a: Vec<u64> = (0..400).map(|i| crate::hashing::mix64(i)).collect();
        let b: Vec<u64> = (100..500).map(|i| crate::hashing::mix64(i)).collect();
        let trials = 200;
        let mut total = 0.0;
        for seed in 0..trials {
            let m = MinHasher::new(128, seed).unwrap();
            let (mut sa, mut sb) = (vec![0; 128], vec![0; 128]);
            m.signature_into(&a, &mut sa);
            m.signature_into(&b, &mut sb);
            total += estimate(&sa, &sb) as f64;
        }
        let mean = total / trials as f64;
        // Standard error of the mean: sqrt(0.6 * 0.4 / 128 / 200) ≈ 0.0031.
        assert!((mean - 0.6).abs() < 0.012, "mean estimate {mean}");
    }

    #[test]
    fn zero_permutations_is_an_error() {
        assert!(MinHasher::new(0, 0).is_err());
    }
}
