//! Classic MinHash: P independent hash functions, one 32-bit minimum per function; [`Signer`]
//! picks the family of the hash version (this file's for version 1, [`v2`]'s for version 2) or
//! one-permutation hashing. The kernels are children of this module: [`v2`] (version 2's
//! family with its NEON kernel) and `avx2` (version 1's AVX2 kernel), which use nothing of
//! this module but [`EMPTY_SLOT`] and what [`MinHasher`] passes them.
//!
//! Version 1's hash function p maps a shingle hash s to
//!     h_p(s) = ((a_p * x + b_p) mod 2^64) >> 32,   x = s mod 2^32,
//! the multiply-add-shift scheme of Dietzfelbinger (1996), strongly universal for 32-bit keys.
//! (a_p, b_p) are the (2p)-th and (2p+1)-th outputs of SplitMix64 seeded with `seed`.
//! Slot p of a signature is the minimum of h_p over the document's shingles; the empty set's
//! signature is all `u32::MAX` (`EMPTY_SLOT`). The share of equal slots of two signatures is an
//! unbiased estimate of the Jaccard similarity of their sets.

use crate::error::{Error, Result};
use crate::hashing::{mix64, HashVersion, SplitMix64};

#[cfg(target_arch = "x86_64")]
mod avx2;
pub mod v2;

pub use v2::MinHasher32;

/// Every slot of the empty set's signature.
pub const EMPTY_SLOT: u32 = u32::MAX;

/// The P hash functions of one (num_perm, seed) choice.
///
/// The 64-bit parameters are also kept split into 32-bit halves, so that the hot loop computes
/// the same bits with 32-bit lanes only (see [`MinHasher::signature_into`]).
#[derive(Debug, Clone)]
pub struct MinHasher {
    a: Vec<u64>,
    b: Vec<u64>,
    a_lo: Vec<u32>,
    a_hi: Vec<u32>,
    b_lo: Vec<u32>,
    b_hi: Vec<u32>,
    /// The parameters in the AVX2 kernel's layout.
    #[cfg(target_arch = "x86_64")]
    avx2: avx2::Params,
}

/// Slots per register block of the kernel: 32 u32 lanes = 2 AVX-512 / 4 AVX2 / 8 NEON or SSE2
/// registers of minima, kept in registers while every shingle of the document streams past.
const BLOCK: usize = 32;

impl MinHasher {
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
            a.push(rng.next_u64());
            b.push(rng.next_u64());
        }
        let lo = |v: &[u64]| v.iter().map(|&x| x as u32).collect::<Vec<u32>>();
        let hi = |v: &[u64]| v.iter().map(|&x| (x >> 32) as u32).collect::<Vec<u32>>();
        Ok(MinHasher {
            a_lo: lo(&a),
            a_hi: hi(&a),
            b_lo: lo(&b),
            b_hi: hi(&b),
            #[cfg(target_arch = "x86_64")]
            avx2: avx2::Params::new(&a, &b),
            a,
            b,
        })
    }

    pub fn num_perm(&self) -> usize {
        self.a.len()
    }

    /// Slot p of the documented formula for one shingle hash (the reference the kernel matches).
    #[inline]
    pub fn slot_hash(&self, p: usize, shingle: u64) -> u32 {
        let x = shingle as u32 as u64;
        (self.a[p].wrapping_mul(x).wrapping_add(self.b[p]) >> 32) as u32
    }

    /// Writes the signature of the shingle hashes `shingles` (repeats allowed) into `out`.
    ///
    /// Same bits as `min_s slot_hash(p, s)`, computed in 32-bit lanes: with a = a_hi·2^32 + a_lo,
    /// b = b_hi·2^32 + b_lo and x < 2^32, t = a_lo·x + b_lo ≤ (2^32-1)^2 + 2^32-1 < 2^64 never
    /// overflows, and the high half of (a·x + b) mod 2^64 is hi32(t) + a_hi·x + b_hi (mod 2^32).
    /// On x86_64 the same generic loop is also compiled with AVX2 and with AVX-512 enabled and
    /// the best the CPU has is chosen at run time; elsewhere (aarch64: NEON is baseline) the
    /// generic build is the vector one.
    pub fn signature_into(&self, shingles: &[u64], out: &mut [u32]) {
        debug_assert_eq!(out.len(), self.a.len());
        #[cfg(all(target_arch = "x86_64", neardup_avx512))]
        {
            if crate::cpu::allows_avx512()
                && std::arch::is_x86_feature_detected!("avx512f")
                && std::arch::is_x86_feature_detected!("avx512vl")
                && std::arch::is_x86_feature_detected!("avx512dq")
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
        self.signature_generic(shingles, out);
    }

    /// The 64-bit-lane kernel compiled for AVX-512, which multiplies (`vpmullq`, DQ) and takes
    /// minima (`vpminuq`) of 64-bit lanes natively. Built only by compilers where these target
    /// features are stable (build.rs).
    #[cfg(all(target_arch = "x86_64", neardup_avx512))]
    #[target_feature(enable = "avx512f,avx512vl,avx512dq,avx2")]
    unsafe fn signature_avx512(&self, shingles: &[u64], out: &mut [u32]) {
        self.signature_wide(shingles, out);
    }

    /// The formula in 64-bit lanes: slot p = (min_s (a_p·x + b_p) mod 2^64) >> 32, the same bits
    /// as the minimum of the shifted values because x ↦ x >> 32 is monotone.
    #[inline(always)]
    #[allow(dead_code)] // only the AVX-512 build calls it
    fn signature_wide(&self, shingles: &[u64], out: &mut [u32]) {
        let full = out.len() / BLOCK * BLOCK;
        for start in (0..full).step_by(BLOCK) {
            let end = start + BLOCK;
            let a: &[u64; BLOCK] = self.a[start..end].try_into().expect("BLOCK slots");
            let b: &[u64; BLOCK] = self.b[start..end].try_into().expect("BLOCK slots");
            let mut acc = [u64::MAX; BLOCK];
            for &s in shingles {
                let x = s as u32 as u64;
                for l in 0..BLOCK {
                    acc[l] = acc[l].min(a[l].wrapping_mul(x).wrapping_add(b[l]));
                }
            }
            for (slot, &v) in out[start..end].iter_mut().zip(&acc) {
                *slot = (v >> 32) as u32;
            }
        }
        for (p, slot) in out.iter_mut().enumerate().skip(full) {
            *slot = shingles
                .iter()
                .map(|&s| self.slot_hash(p, s))
                .min()
                .unwrap_or(EMPTY_SLOT);
        }
    }

    /// The AVX2 kernel of `rust/minhash/avx2.rs` on the slots in whole groups of eight, the
    /// formula on the others. 1.25x faster than the generic loop compiled for AVX2 (14.5 vs
    /// 11.6 ns a shingle at 128 slots on an AMD EPYC,
    /// `cargo run --release --example minhash_ab`, which times both on one CPU).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn signature_avx2(&self, shingles: &[u64], out: &mut [u32]) {
        let grouped = self.avx2.slots();
        // SAFETY: the CPU supports AVX2 (this function's own requirement).
        unsafe { avx2::signature(&self.avx2, shingles, out) };
        for (p, slot) in out.iter_mut().enumerate().skip(grouped) {
            *slot = shingles
                .iter()
                .map(|&s| self.slot_hash(p, s))
                .min()
                .unwrap_or(EMPTY_SLOT);
        }
    }

    /// Runs one named kernel ("avx512", "avx2", "avx2-generic": the generic loop compiled for
    /// AVX2, "generic") when this CPU and build have it; returns whether it ran. For A/B timings
    /// and tests: every kernel gives the same bits, and [`MinHasher::signature_into`] picks one.
    #[doc(hidden)]
    pub fn signature_kernel(&self, kernel: &str, shingles: &[u64], out: &mut [u32]) -> bool {
        #[cfg(target_arch = "x86_64")]
        let avx2 = std::arch::is_x86_feature_detected!("avx2");
        match kernel {
            #[cfg(all(target_arch = "x86_64", neardup_avx512))]
            "avx512"
                if std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512vl")
                    && std::arch::is_x86_feature_detected!("avx512dq") =>
            {
                // SAFETY: the CPU has the features (the guard).
                unsafe { self.signature_avx512(shingles, out) }
            }
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the CPU has AVX2 (the guard).
            "avx2" if avx2 => unsafe { self.signature_avx2(shingles, out) },
            #[cfg(target_arch = "x86_64")]
            // SAFETY: the CPU has AVX2 (the guard).
            "avx2-generic" if avx2 => unsafe { self.signature_avx2_generic(shingles, out) },
            "generic" => self.signature_generic(shingles, out),
            _ => return false,
        }
        true
    }

    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn signature_avx2_generic(&self, shingles: &[u64], out: &mut [u32]) {
        self.signature_generic(shingles, out);
    }

    #[inline(always)]
    fn signature_generic(&self, shingles: &[u64], out: &mut [u32]) {
        let full = out.len() / BLOCK * BLOCK;
        for start in (0..full).step_by(BLOCK) {
            let end = start + BLOCK;
            let block: &mut [u32; BLOCK] = (&mut out[start..end]).try_into().expect("BLOCK slots");
            block_kernel(
                shingles,
                self.a_lo[start..end].try_into().expect("BLOCK slots"),
                self.a_hi[start..end].try_into().expect("BLOCK slots"),
                self.b_lo[start..end].try_into().expect("BLOCK slots"),
                self.b_hi[start..end].try_into().expect("BLOCK slots"),
                block,
            );
        }
        for (p, slot) in out.iter_mut().enumerate().skip(full) {
            *slot = shingles
                .iter()
                .map(|&s| self.slot_hash(p, s))
                .min()
                .unwrap_or(EMPTY_SLOT);
        }
    }
}

/// Minima of BLOCK hash functions over all shingles; the minima never leave registers.
#[inline(always)]
fn block_kernel(
    shingles: &[u64],
    a_lo: &[u32; BLOCK],
    a_hi: &[u32; BLOCK],
    b_lo: &[u32; BLOCK],
    b_hi: &[u32; BLOCK],
    out: &mut [u32; BLOCK],
) {
    let mut acc = [EMPTY_SLOT; BLOCK];
    for &s in shingles {
        let x = s as u32;
        for l in 0..BLOCK {
            let t = a_lo[l] as u64 * x as u64 + b_lo[l] as u64;
            let h = ((t >> 32) as u32)
                .wrapping_add(a_hi[l].wrapping_mul(x))
                .wrapping_add(b_hi[l]);
            acc[l] = acc[l].min(h);
        }
    }
    *out = acc;
}

/// One-permutation hashing (Li, Owen, Zhang 2012) with optimal densification (Shrivastava
/// 2017): a faster signature of the same shape and use as classic MinHash, opt-in.
///
/// Each shingle hash s is mixed once, h = mix64(s XOR key); the top 32 bits pick its bin,
/// floor(hi32(h) · P / 2^32), and the low 32 bits are its value; slot p is the minimum value in
/// bin p. A bin no shingle fell into takes the value of the first non-empty bin on its own
/// probe sequence, bin floor(hi32(mix64(probe_key XOR (p·2^32 + attempt))) · P / 2^32) for
/// attempt = 1, 2, ... (only bins that were non-empty before densification are borrowed from).
/// (key, probe_key) are the first two outputs of SplitMix64(seed XOR OPH_DOMAIN). The empty
/// set's signature is all `EMPTY_SLOT`, as for classic MinHash.
///
/// One hash per shingle instead of P: the signature then costs little more than shingling.
/// The share of equal slots estimates Jaccard similarity with the error of classic MinHash or
/// less when sets are larger than P (bins sample without replacement); on sets much smaller
/// than P densification copies slots and the error grows.
#[derive(Debug, Clone)]
pub struct OphHasher {
    num_perm: usize,
    key: u64,
    probe_key: u64,
}

/// Separates the parameters of one-permutation hashing from classic MinHash's for one seed.
pub const OPH_DOMAIN: u64 = 0x4F50_485F_4D49_4E48; // "OPH_MINH"

impl OphHasher {
    pub fn new(num_perm: usize, seed: u64) -> Result<Self> {
        if num_perm < 1 {
            return Err(Error::new(format!(
                "num_perm must be at least 1, got {num_perm}"
            )));
        }
        let mut rng = SplitMix64::new(seed ^ OPH_DOMAIN);
        Ok(OphHasher {
            num_perm,
            key: rng.next_u64(),
            probe_key: rng.next_u64(),
        })
    }

    pub fn num_perm(&self) -> usize {
        self.num_perm
    }

    #[inline]
    fn bin(&self, h: u64) -> usize {
        (((h >> 32) * self.num_perm as u64) >> 32) as usize
    }

    /// Writes the signature of the shingle hashes `shingles` (repeats allowed) into `out`;
    /// `occupied` is scratch.
    pub fn signature_into(&self, shingles: &[u64], out: &mut [u32], occupied: &mut Vec<bool>) {
        debug_assert_eq!(out.len(), self.num_perm);
        out.fill(EMPTY_SLOT);
        occupied.clear();
        occupied.resize(self.num_perm, false);
        if shingles.is_empty() {
            return;
        }
        for &s in shingles {
            let h = mix64(s ^ self.key);
            let bin = self.bin(h);
            out[bin] = out[bin].min(h as u32);
            occupied[bin] = true;
        }
        for p in 0..self.num_perm {
            if occupied[p] {
                continue;
            }
            let mut attempt = 1u64;
            loop {
                let q = self.bin(mix64(self.probe_key ^ ((p as u64) << 32) ^ attempt));
                if occupied[q] {
                    out[p] = out[q];
                    break;
                }
                attempt += 1;
            }
        }
    }
}

/// Which scheme fills the signature slots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Algorithm {
    /// P independent hash functions of the hash version's family ([`MinHasher`] for version 1,
    /// [`MinHasher32`] for version 2); the default.
    Classic,
    /// One-permutation hashing with optimal densification ([`OphHasher`]).
    Oph,
}

impl Algorithm {
    pub fn parse(name: &str) -> Result<Algorithm> {
        match name {
            "classic" => Ok(Algorithm::Classic),
            "oph" => Ok(Algorithm::Oph),
            other => Err(Error::new(format!(
                "algorithm must be 'classic' or 'oph', got {other:?}"
            ))),
        }
    }
}

/// The hash functions of one (algorithm, num_perm, seed, hash version) choice.
#[derive(Debug, Clone)]
pub enum Signer {
    /// Classic MinHash of hash version 1.
    Classic(MinHasher),
    /// Classic MinHash of hash version 2.
    Classic32(MinHasher32),
    /// One-permutation hashing (the same in both hash versions).
    Oph(OphHasher),
}

impl Signer {
    pub fn new(
        algorithm: Algorithm,
        num_perm: usize,
        seed: u64,
        version: HashVersion,
    ) -> Result<Signer> {
        Ok(match (algorithm, version) {
            (Algorithm::Classic, HashVersion::V1) => {
                Signer::Classic(MinHasher::new(num_perm, seed)?)
            }
            (Algorithm::Classic, HashVersion::V2) => {
                Signer::Classic32(MinHasher32::new(num_perm, seed)?)
            }
            (Algorithm::Oph, _) => Signer::Oph(OphHasher::new(num_perm, seed)?),
        })
    }

    /// Writes the signature of `shingles` (repeats allowed) into `out`; `bins` is scratch.
    #[inline]
    pub fn sign(&self, shingles: &[u64], out: &mut [u32], bins: &mut Vec<bool>) {
        match self {
            Signer::Classic(hasher) => hasher.signature_into(shingles, out),
            Signer::Classic32(hasher) => hasher.signature_into(shingles, out),
            Signer::Oph(hasher) => hasher.signature_into(shingles, out, bins),
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
    equal_share(a, b)
}

/// Share of equal slots of two signatures of equal width, with no empty-set check.
#[inline]
pub fn equal_share(a: &[u32], b: &[u32]) -> f32 {
    equal_slots(a, b) as f32 / a.len() as f32
}

/// How many slots two signatures of equal width agree on (the estimate's count and the LSH
/// screen's). Counted in u32 lanes, as wide as the slots, so the compiler's vector loop needs
/// no widening of each compare to 64 bits, as a usize count did.
#[inline]
pub fn equal_slots(a: &[u32], b: &[u32]) -> u32 {
    a.iter().zip(b).map(|(x, y)| (x == y) as u32).sum()
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
        let a: Vec<u64> = (0..400).map(crate::hashing::mix64).collect();
        let b: Vec<u64> = (100..500).map(crate::hashing::mix64).collect();
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
    fn kernel_matches_the_formula_for_every_width() {
        let shingles: Vec<u64> = (0..300u64)
            .map(|i| crate::hashing::mix64(i ^ 0x55))
            .collect();
        for num_perm in [1, 7, 31, 32, 33, 64, 100, 128, 256] {
            for seed in [0, 1, 0xFFFF_FFFF_FFFF_FFFF] {
                let m = MinHasher::new(num_perm, seed).unwrap();
                for len in [0, 1, 2, 17, 300] {
                    let mut got = vec![0; num_perm];
                    m.signature_into(&shingles[..len], &mut got);
                    let want: Vec<u32> = (0..num_perm)
                        .map(|p| {
                            shingles[..len]
                                .iter()
                                .map(|&s| m.slot_hash(p, s))
                                .min()
                                .unwrap_or(EMPTY_SLOT)
                        })
                        .collect();
                    assert_eq!(got, want, "num_perm {num_perm} seed {seed} len {len}");
                }
            }
        }
    }

    #[test]
    fn both_kernels_match_the_formula() {
        let shingles: Vec<u64> = (0..200u64)
            .map(|i| crate::hashing::mix64(i ^ 0x99))
            .collect();
        for num_perm in [1, 7, 8, 9, 31, 32, 33, 63, 64, 65, 71, 128, 200] {
            let m = MinHasher::new(num_perm, 5).unwrap();
            let (mut narrow, mut wide) = (vec![0; num_perm], vec![0; num_perm]);
            for len in [0, 1, 200] {
                m.signature_generic(&shingles[..len], &mut narrow);
                m.signature_wide(&shingles[..len], &mut wide);
                assert_eq!(narrow, wide, "num_perm {num_perm} len {len}");
                for kernel in ["avx512", "avx2", "avx2-generic", "generic"] {
                    wide.fill(7);
                    if m.signature_kernel(kernel, &shingles[..len], &mut wide) {
                        assert_eq!(narrow, wide, "{kernel}, num_perm {num_perm} len {len}");
                    }
                }
            }
        }
    }

    #[test]
    fn oph_is_deterministic_and_fills_every_bin() {
        let m = OphHasher::new(128, 3).unwrap();
        let mut scratch = Vec::new();
        let (mut s1, mut s2) = (vec![0; 128], vec![0; 128]);
        m.signature_into(&[5, 6, 7], &mut s1, &mut scratch);
        m.signature_into(&[7, 6, 5, 5], &mut s2, &mut scratch);
        assert_eq!(s1, s2);
        // Three shingles fill at most three bins; densification copies them everywhere.
        let mut distinct = s1.clone();
        distinct.sort_unstable();
        distinct.dedup();
        assert!(distinct.len() <= 3 && !distinct.contains(&EMPTY_SLOT));
        m.signature_into(&[], &mut s1, &mut scratch);
        assert!(is_empty_signature(&s1));
        assert!(OphHasher::new(0, 0).is_err());
    }

    #[test]
    fn oph_estimate_is_close_to_jaccard_on_average() {
        let a: Vec<u64> = (0..400).map(crate::hashing::mix64).collect();
        let b: Vec<u64> = (100..500).map(crate::hashing::mix64).collect();
        let (trials, mut total, mut squares) = (300, 0.0, 0.0);
        let mut scratch = Vec::new();
        for seed in 0..trials {
            let m = OphHasher::new(128, seed).unwrap();
            let (mut sa, mut sb) = (vec![0; 128], vec![0; 128]);
            m.signature_into(&a, &mut sa, &mut scratch);
            m.signature_into(&b, &mut sb, &mut scratch);
            let e = estimate(&sa, &sb) as f64;
            total += e;
            squares += (e - 0.6) * (e - 0.6);
        }
        let mean = total / trials as f64;
        let rmse = (squares / trials as f64).sqrt();
        assert!((mean - 0.6).abs() < 0.012, "mean estimate {mean}");
        // Classic MinHash: sqrt(0.6 * 0.4 / 128) = 0.0433; allow 5 % above it.
        assert!(rmse < 0.0433 * 1.05, "rmse {rmse}");
    }

    #[test]
    fn zero_permutations_is_an_error() {
        assert!(MinHasher::new(0, 0).is_err());
    }
}
