//! Hash version 2's MinHash family: P hash functions of one 32-bit multiply-add each.
//!
//! Hash function p maps a shingle hash s to
//!     h_p(s) = (a_p · x + b_p) mod 2^32,   x = s mod 2^32,
//! where a_p is the low 32 bits of the (2p)-th output of SplitMix64 seeded with `seed`, with its
//! lowest bit set (odd, so h_p is a bijection of 32-bit values), and b_p the low 32 bits of the
//! (2p+1)-th. Slot p of a signature is the minimum of h_p over the document's shingles; the
//! empty set's signature is all `u32::MAX` (`EMPTY_SLOT`), as in version 1.
//!
//! Version 1's family ([`super::MinHasher`], hi32((a·x + b) mod 2^64) with 64-bit a
//! and b) needs a 64-bit multiply per slot (`vpmullq` on AVX-512, three 32-bit multiplies' work
//! on AVX2 and NEON); this one is one 32-bit multiply-add per slot (`vpmulld` + `vpaddd`, NEON
//! `mla`): 1.9-2.3x (AVX-512) and 2.6x (AVX2) faster per shingle on an AMD EPYC, about 3x
//! fewer instructions on aarch64, with the same estimator error, band-collision probabilities
//! and recall (`cargo run --release --example family_eval`, `family_ab`; docs/definitions.md).

use super::EMPTY_SLOT;
use crate::error::{Error, Result};
use crate::hashing::SplitMix64;

/// Slots per pass over the shingles: 32 u32 lanes of minima = 2 AVX-512 / 4 AVX2 / 8 NEON
/// registers, with their a and b in as many more, all in registers while the shingles stream.
const BLOCK: usize = 32;

/// The P hash functions of one (num_perm, seed) choice of hash version 2.
#[derive(Debug, Clone)]
pub struct MinHasher32 {
    a: Vec<u32>,
    b: Vec<u32>,
}

impl MinHasher32 {
    pub fn new(num_perm: usize, seed: u64) -> Result<Self> {
        if num_perm < 1 {
            return Err(Error::new(format!(
                "num_perm must be at least 1, got {num_perm}"
            )));
        }
        let mut rng = SplitMix64::new(seed);
        let mut a = Vec::with_capacity(num_perm);
        let mut b = Vec::with_capacity(num_perm);
        for _ in 0..num_perm {
            a.push(rng.next_u64() as u32 | 1);
            b.push(rng.next_u64() as u32);
        }
        Ok(MinHasher32 { a, b })
    }

    pub fn num_perm(&self) -> usize {
        self.a.len()
    }

    /// Slot p of the documented formula for one shingle hash (the reference the kernels match).
    #[inline]
    pub fn slot_hash(&self, p: usize, shingle: u64) -> u32 {
        self.a[p]
            .wrapping_mul(shingle as u32)
            .wrapping_add(self.b[p])
    }

    /// Writes the signature of the shingle hashes `shingles` (repeats allowed) into `out`.
    ///
    /// On x86_64 one generic loop, compiled also with AVX-512 and with AVX2 enabled (the best
    /// the CPU has is chosen at run time); on aarch64 the NEON kernel (`mla` + `umin` per four
    /// slots: the compiler's own vectorisation of the generic loop there interleaves shingles
    /// and copies registers, 317 instead of about 120 instructions a shingle at 128 slots under
    /// qemu, benches/family_insns.py); the generic loop elsewhere. Every kernel gives the same
    /// bits (integer arithmetic only).
    pub fn signature_into(&self, shingles: &[u64], out: &mut [u32]) {
        debug_assert_eq!(out.len(), self.a.len());
        #[cfg(all(target_arch = "x86_64", neardup_avx512))]
        {
            if crate::cpu::allows_avx512()
                && std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512vl")
            {
                // SAFETY: the CPU supports these AVX-512 subsets (checked just above), which is
                // all that `signature_avx512` requires; it is otherwise the safe generic kernel.
                unsafe { self.signature_avx512(shingles, out) };
                return;
            }
        }
        #[cfg(target_arch = "x86_64")]
        {
            if crate::cpu::allows_avx2() && std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU supports AVX2 (checked just above), which is all that
                // `signature_avx2` requires; it is otherwise the safe generic kernel.
                unsafe { self.signature_avx2(shingles, out) };
                return;
            }
        }
        #[cfg(target_arch = "aarch64")]
        self.signature_neon(shingles, out);
        #[cfg(not(target_arch = "aarch64"))]
        self.signature_generic(shingles, out);
    }

    #[cfg(all(target_arch = "x86_64", neardup_avx512))]
    #[target_feature(enable = "avx512f,avx512vl,avx2")]
    unsafe fn signature_avx512(&self, shingles: &[u64], out: &mut [u32]) {
        self.signature_generic(shingles, out);
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn signature_avx2(&self, shingles: &[u64], out: &mut [u32]) {
        self.signature_generic(shingles, out);
    }

    /// Runs one named kernel ("avx512", "avx2", "neon", "generic") when this CPU and build have it;
    /// returns whether it ran. For A/B timings and tests: every kernel gives the same bits, and
    /// [`MinHasher32::signature_into`] picks one.
    #[doc(hidden)]
    pub fn signature_kernel(&self, kernel: &str, shingles: &[u64], out: &mut [u32]) -> bool {
        match kernel {
            #[cfg(all(target_arch = "x86_64", neardup_avx512))]
            "avx512"
                if std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512vl") =>
            {
                // SAFETY: the CPU has the features (the guard).
                unsafe { self.signature_avx512(shingles, out) }
            }
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the CPU has AVX2 (the guard).
            "avx2" if std::arch::is_x86_feature_detected!("avx2") => unsafe {
                self.signature_avx2(shingles, out)
            },
            #[cfg(target_arch = "aarch64")]
            "neon" => self.signature_neon(shingles, out),
            "generic" => self.signature_generic(shingles, out),
            _ => return false,
        }
        true
    }

    /// The NEON kernel (aarch64, where NEON is baseline): per BLOCK slots, eight registers
    /// each of a, b and minima; per shingle one `dup`, and per four slots `mla` (b + a·x, into
    /// a copy of b) and `umin`.
    #[cfg(target_arch = "aarch64")]
    fn signature_neon(&self, shingles: &[u64], out: &mut [u32]) {
        use std::arch::aarch64::*;
        const REGS: usize = BLOCK / 4;
        let full = out.len() / BLOCK * BLOCK;
        for start in (0..full).step_by(BLOCK) {
            // SAFETY: NEON is part of the aarch64 baseline; every load reads four u32 inside
            // a[start..start + BLOCK] or b[..] (start + BLOCK <= full <= len), every store
            // writes four inside out[start..start + BLOCK].
            unsafe {
                let a: [uint32x4_t; REGS] =
                    std::array::from_fn(|j| vld1q_u32(self.a.as_ptr().add(start + 4 * j)));
                let b: [uint32x4_t; REGS] =
                    std::array::from_fn(|j| vld1q_u32(self.b.as_ptr().add(start + 4 * j)));
                let mut acc = [vdupq_n_u32(EMPTY_SLOT); REGS];
                for &s in shingles {
                    let x = vdupq_n_u32(s as u32);
                    for ((v, &bj), &aj) in acc.iter_mut().zip(&b).zip(&a) {
                        *v = vminq_u32(*v, vmlaq_u32(bj, aj, x));
                    }
                }
                for (j, v) in acc.iter().enumerate() {
                    vst1q_u32(out.as_mut_ptr().add(start + 4 * j), *v);
                }
            }
        }
        self.tail(full, shingles, out);
    }

    /// The slots from `first` on, one at a time (the formula).
    fn tail(&self, first: usize, shingles: &[u64], out: &mut [u32]) {
        for (p, slot) in out.iter_mut().enumerate().skip(first) {
            *slot = shingles
                .iter()
                .map(|&s| self.slot_hash(p, s))
                .min()
                .unwrap_or(EMPTY_SLOT);
        }
    }

    #[inline(always)]
    fn signature_generic(&self, shingles: &[u64], out: &mut [u32]) {
        let full = out.len() / BLOCK * BLOCK;
        for start in (0..full).step_by(BLOCK) {
            let end = start + BLOCK;
            let a: &[u32; BLOCK] = self.a[start..end].try_into().expect("BLOCK slots");
            let b: &[u32; BLOCK] = self.b[start..end].try_into().expect("BLOCK slots");
            let mut acc = [EMPTY_SLOT; BLOCK];
            for &s in shingles {
                let x = s as u32;
                for l in 0..BLOCK {
                    acc[l] = acc[l].min(a[l].wrapping_mul(x).wrapping_add(b[l]));
                }
            }
            out[start..end].copy_from_slice(&acc);
        }
        self.tail(full, shingles, out);
    }
}

#[cfg(test)]
mod tests {
    use super::super::estimate;
    use super::*;
    use crate::hashing::mix64;

    #[test]
    fn slot_is_the_documented_formula() {
        let m = MinHasher32::new(3, 42).unwrap();
        let mut rng = SplitMix64::new(42);
        let (a0, b0) = (rng.next_u64() as u32 | 1, rng.next_u64() as u32);
        let (a1, b1) = (rng.next_u64() as u32 | 1, rng.next_u64() as u32);
        let mut s = vec![0; 3];
        m.signature_into(&[0xDEAD_BEEF_0000_0005], &mut s);
        assert_eq!(s[0], a0.wrapping_mul(5).wrapping_add(b0));
        assert_eq!(s[1], a1.wrapping_mul(5).wrapping_add(b1));
        // Two shingles: the minimum; the high half of the shingle hash is not used.
        m.signature_into(&[5, 0xFFFF_FFFF_0000_0007], &mut s);
        assert_eq!(
            s[0],
            a0.wrapping_mul(5)
                .wrapping_add(b0)
                .min(a0.wrapping_mul(7).wrapping_add(b0))
        );
    }

    #[test]
    fn identical_sets_agree_and_the_empty_set_is_all_max() {
        let m = MinHasher32::new(64, 7).unwrap();
        let (mut s1, mut s2) = (vec![0; 64], vec![0; 64]);
        m.signature_into(&[1, 2, 3, 4], &mut s1);
        m.signature_into(&[4, 3, 2, 1, 1], &mut s2);
        assert_eq!(s1, s2);
        m.signature_into(&[], &mut s1);
        assert!(s1.iter().all(|&v| v == EMPTY_SLOT));
        assert!(MinHasher32::new(0, 0).is_err());
    }

    #[test]
    fn every_kernel_matches_the_formula_for_every_width() {
        let shingles: Vec<u64> = (0..300u64).map(|i| mix64(i ^ 0x55)).collect();
        for num_perm in [1, 7, 31, 32, 33, 64, 65, 100, 128, 256] {
            for seed in [0, 1, 0xFFFF_FFFF_FFFF_FFFF] {
                let m = MinHasher32::new(num_perm, seed).unwrap();
                for len in [0, 1, 2, 17, 300] {
                    let want: Vec<u32> = (0..num_perm)
                        .map(|p| {
                            shingles[..len]
                                .iter()
                                .map(|&s| m.slot_hash(p, s))
                                .min()
                                .unwrap_or(EMPTY_SLOT)
                        })
                        .collect();
                    let mut got = vec![7; num_perm];
                    m.signature_into(&shingles[..len], &mut got);
                    assert_eq!(got, want, "num_perm {num_perm} seed {seed} len {len}");
                    let mut ran = 0;
                    for kernel in ["avx512", "avx2", "neon", "generic"] {
                        got.fill(7);
                        if m.signature_kernel(kernel, &shingles[..len], &mut got) {
                            ran += 1;
                            assert_eq!(got, want, "{kernel}, num_perm {num_perm} len {len}");
                        }
                    }
                    assert!(ran >= 1 && !m.signature_kernel("sse9", &shingles, &mut got));
                }
            }
        }
    }

    #[test]
    fn estimate_is_unbiased_with_the_error_of_independent_slots() {
        // |A ∩ B| = 300, |A ∪ B| = 500: J = 0.6.
        let a: Vec<u64> = (0..400).map(mix64).collect();
        let b: Vec<u64> = (100..500).map(mix64).collect();
        let (trials, mut total, mut squares) = (400, 0.0, 0.0);
        for seed in 0..trials {
            let m = MinHasher32::new(128, seed).unwrap();
            let (mut sa, mut sb) = (vec![0; 128], vec![0; 128]);
            m.signature_into(&a, &mut sa);
            m.signature_into(&b, &mut sb);
            let e = estimate(&sa, &sb) as f64;
            total += e;
            squares += (e - 0.6) * (e - 0.6);
        }
        let mean = total / trials as f64;
        let rmse = (squares / trials as f64).sqrt();
        // Standard error of the mean: sqrt(0.6 * 0.4 / 128 / 400) ≈ 0.0022.
        assert!((mean - 0.6).abs() < 0.009, "mean estimate {mean}");
        // Independent slots: sqrt(0.6 * 0.4 / 128) = 0.0433 (RMSE's standard error ≈ 3.5 %).
        assert!(rmse < 0.0433 * 1.12 && rmse > 0.0433 * 0.88, "rmse {rmse}");
    }
}
