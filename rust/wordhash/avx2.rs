//! The AVX2 kernels of [`crate::wordhash`] (CPUs without AVX-512): the same formulas four
//! words or windows at a time. AVX2 has no 64-bit multiply, so each is made of 32×32→64 ones
//! (`vpmuludq`): three for a product modulo 2^64, four for the full 128-bit product.

#![allow(clippy::incompatible_msrv)] // only AVX2 intrinsics: stable since Rust 1.27

use super::{
    AVALANCHE, FLIP_1TO3, FLIP_4TO8, FLIP_9TO16_HI, FLIP_9TO16_LO, PRIME64_2, PRIME64_3, RRMXMX,
};
use crate::hashing::{combine_tokens, TOKEN_BASE};
use std::arch::x86_64::*;

/// a·b mod 2^64 per lane, b given as its low and high 32 bits (each in every lane).
#[inline(always)]
unsafe fn mul_const(a: __m256i, b_lo: __m256i, b_hi: __m256i) -> __m256i {
    let low = _mm256_mul_epu32(a, b_lo);
    let cross = _mm256_add_epi64(
        _mm256_mul_epu32(a, b_hi),
        _mm256_mul_epu32(_mm256_srli_epi64(a, 32), b_lo),
    );
    _mm256_add_epi64(low, _mm256_slli_epi64(cross, 32))
}

/// SplitMix64's finaliser ([`crate::hashing::mix64`]) per lane.
#[inline(always)]
unsafe fn mix(z: __m256i, m1: (__m256i, __m256i), m2: (__m256i, __m256i)) -> __m256i {
    let z = mul_const(_mm256_xor_si256(z, _mm256_srli_epi64(z, 30)), m1.0, m1.1);
    let z = mul_const(_mm256_xor_si256(z, _mm256_srli_epi64(z, 27)), m2.0, m2.1);
    _mm256_xor_si256(z, _mm256_srli_epi64(z, 31))
}

/// [`crate::wordhash`]'s XXH3 kernel on the words in whole groups of four; returns how many
/// words it hashed (a multiple of 4) and whether one of them is longer than 16 bytes (its
/// hash is then left for the caller, as are the words after the groups).
///
/// # Safety
/// The CPU must support AVX2, and 8 bytes from every start and up to every end must be inside
/// `lower`.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn xxh3_short(
    starts: &[u32],
    ends: &[u32],
    lower: &[u8],
    out: &mut [u64],
) -> (usize, bool) {
    let n = out.len().min(starts.len()).min(ends.len()) / 4 * 4;
    let c = |v: u64| _mm256_set1_epi64x(v as i64);
    let halves = |v: u64| (c(v & 0xFFFF_FFFF), c(v >> 32));
    let (p2, p3, rr, av) = (
        halves(PRIME64_2),
        halves(PRIME64_3),
        halves(RRMXMX),
        halves(AVALANCHE),
    );
    let byte = c(0xFF);
    let low32 = c(0xFFFF_FFFF);
    let swap = _mm256_setr_epi8(
        7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13,
        12, 11, 10, 9, 8,
    );
    let base = lower.as_ptr() as *const i64;
    let mut any_long = 0;
    for at in (0..n).step_by(4) {
        // SAFETY: at + 4 <= n <= the lengths of `starts`, `ends` and `out`; the gathers read
        // inside `lower` (the caller's promise).
        let (first, end) = unsafe {
            (
                _mm_loadu_si128(starts.as_ptr().add(at) as *const __m128i),
                _mm_loadu_si128(ends.as_ptr().add(at) as *const __m128i),
            )
        };
        let from = _mm_max_epu32(end, _mm_set1_epi32(8));
        let l = unsafe { _mm256_i32gather_epi64::<1>(base, first) };
        let h =
            unsafe { _mm256_i32gather_epi64::<1>(base, _mm_sub_epi32(from, _mm_set1_epi32(8))) };
        let shift = _mm256_slli_epi64(_mm256_cvtepu32_epi64(_mm_sub_epi32(from, end)), 3);
        let h = _mm256_sllv_epi64(h, shift);
        let w = _mm256_cvtepu32_epi64(_mm_sub_epi32(end, first));
        // 1-3 bytes.
        let c1 = _mm256_and_si256(l, byte);
        let two = _mm256_cmpgt_epi64(w, c(1));
        let c2 = _mm256_blendv_epi8(c1, _mm256_and_si256(_mm256_srli_epi64(l, 8), byte), two);
        let combo = _mm256_or_si256(
            _mm256_or_si256(_mm256_slli_epi64(c1, 16), _mm256_slli_epi64(c2, 24)),
            _mm256_or_si256(_mm256_srli_epi64(h, 56), _mm256_slli_epi64(w, 8)),
        );
        let mut v = _mm256_xor_si256(combo, c(FLIP_1TO3));
        v = _mm256_xor_si256(v, _mm256_srli_epi64(v, 33));
        v = mul_const(v, p2.0, p2.1);
        v = _mm256_xor_si256(v, _mm256_srli_epi64(v, 29));
        v = mul_const(v, p3.0, p3.1);
        let short = _mm256_xor_si256(v, _mm256_srli_epi64(v, 32));
        // 4-8 bytes.
        let k = _mm256_xor_si256(
            _mm256_or_si256(_mm256_slli_epi64(l, 32), _mm256_srli_epi64(h, 32)),
            c(FLIP_4TO8),
        );
        let rotl49 = _mm256_or_si256(_mm256_slli_epi64(k, 49), _mm256_srli_epi64(k, 15));
        let rotl24 = _mm256_or_si256(_mm256_slli_epi64(k, 24), _mm256_srli_epi64(k, 40));
        let mut v = _mm256_xor_si256(k, _mm256_xor_si256(rotl49, rotl24));
        v = mul_const(v, rr.0, rr.1);
        v = _mm256_xor_si256(v, _mm256_add_epi64(_mm256_srli_epi64(v, 35), w));
        v = mul_const(v, rr.0, rr.1);
        let middle = _mm256_xor_si256(v, _mm256_srli_epi64(v, 28));
        // 9-16 bytes: the full 128-bit product from four 32×32→64 ones.
        let a = _mm256_xor_si256(l, c(FLIP_9TO16_LO));
        let b = _mm256_xor_si256(h, c(FLIP_9TO16_HI));
        let (a1, b1) = (_mm256_srli_epi64(a, 32), _mm256_srli_epi64(b, 32));
        let p00 = _mm256_mul_epu32(a, b);
        let p01 = _mm256_mul_epu32(a, b1);
        let p10 = _mm256_mul_epu32(a1, b);
        let p11 = _mm256_mul_epu32(a1, b1);
        let mid = _mm256_add_epi64(
            _mm256_srli_epi64(p00, 32),
            _mm256_add_epi64(_mm256_and_si256(p01, low32), _mm256_and_si256(p10, low32)),
        );
        let high = _mm256_add_epi64(
            _mm256_add_epi64(p11, _mm256_srli_epi64(mid, 32)),
            _mm256_add_epi64(_mm256_srli_epi64(p01, 32), _mm256_srli_epi64(p10, 32)),
        );
        let low = _mm256_add_epi64(p00, _mm256_slli_epi64(_mm256_add_epi64(p01, p10), 32));
        let fold = _mm256_xor_si256(low, high);
        let mut v = _mm256_add_epi64(
            _mm256_add_epi64(w, _mm256_shuffle_epi8(a, swap)),
            _mm256_add_epi64(b, fold),
        );
        v = _mm256_xor_si256(v, _mm256_srli_epi64(v, 37));
        v = mul_const(v, av.0, av.1);
        let long = _mm256_xor_si256(v, _mm256_srli_epi64(v, 32));
        let four = _mm256_cmpgt_epi64(w, c(3));
        let nine = _mm256_cmpgt_epi64(w, c(8));
        any_long |= _mm256_movemask_epi8(_mm256_cmpgt_epi64(w, c(16)));
        let hash = _mm256_blendv_epi8(_mm256_blendv_epi8(short, middle, four), long, nine);
        // SAFETY: as for the loads.
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().add(at) as *mut __m256i, hash) };
    }
    (n, any_long != 0)
}

/// [`crate::wordhash`]'s direct windows, four per step (`out` has one slot per window).
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn combine_windows(tokens: &[u64], k: usize, out: &mut [u64]) {
    const STEP: usize = 4;
    let full = out.len() / STEP * STEP;
    // The last load of a step ends at token i + k + 2 < full + k - 1 <= tokens.len().
    assert!(full + k <= tokens.len() + 1);
    let halves = |v: u64| {
        (
            _mm256_set1_epi64x((v & 0xFFFF_FFFF) as i64),
            _mm256_set1_epi64x((v >> 32) as i64),
        )
    };
    let base = halves(TOKEN_BASE);
    let (m1, m2) = (halves(0xBF58_476D_1CE4_E5B9), halves(0x94D0_49BB_1331_11EB));
    for i in (0..full).step_by(STEP) {
        let mut acc = _mm256_setzero_si256();
        for j in 0..k {
            // SAFETY: i + j + 4 <= full + k - 1 <= tokens.len() (asserted).
            let t = unsafe { _mm256_loadu_si256(tokens.as_ptr().add(i + j) as *const __m256i) };
            acc = _mm256_add_epi64(unsafe { mul_const(acc, base.0, base.1) }, t);
        }
        let hashed = unsafe { mix(acc, m1, m2) };
        // SAFETY: i + 4 <= full <= out.len().
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().add(i) as *mut __m256i, hashed) };
    }
    for (i, slot) in out.iter_mut().enumerate().skip(full) {
        *slot = combine_tokens(&tokens[i..i + k]);
    }
}
