//! The x86 kernels of [`super::intersection_size_u64`]: one loop written once (a macro) and
//! compiled for AVX2 and for AVX-512VL, chosen at run time by the caller.

use super::intersection_size;

/// `super::intersection_size_u64_generic` written with x86 vector intrinsics, one function per
/// instruction set: `$name` with `$features` (and any attributes given first), combining
/// eight compare results with `$any8`.
///
/// A block of eight is two registers of four lanes; each `y` register is also taken with its
/// 64-bit halves swapped within each 128-bit lane (an in-lane shuffle), with its lanes swapped
/// (the one lane-crossing shuffle) and with both, so every `x` lane meets every `y` element in
/// 16 compares. An `x` element equals at most one `y` element (sets hold no repeats), so the
/// OR of its compares is all-ones exactly when it is common, and subtracting that mask counts
/// it in a vector accumulator: no mask leaves the vector registers inside the loop. (Rotating
/// with three lane-crossing permutes and counting with MOVEMASK + POPCNT, as before, was 1.5×
/// slower on Zen 4: the shuffle ports were the bottleneck.)
macro_rules! blocked_intersection {
    ($(#[$attribute:meta])* $name:ident, $features:literal, $any8:ident) => {
        $(#[$attribute])*
        #[target_feature(enable = $features)]
        pub(super) unsafe fn $name(a: &[u64], b: &[u64]) -> usize {
            use std::arch::x86_64::{
                __m256i, _mm256_add_epi64, _mm256_loadu_si256, _mm256_permute4x64_epi64,
                _mm256_setzero_si256, _mm256_shuffle_epi32, _mm256_storeu_si256, _mm256_sub_epi64,
            };
            const W: usize = 8;
            // Macros rather than helper functions: a nested function would not inherit the
            // target features. `y`, its halves swapped within 128-bit lanes, its lanes
            // swapped, and both.
            macro_rules! permutations {
                ($y:expr) => {{
                    let y = $y;
                    let lanes = _mm256_permute4x64_epi64::<0x4e>(y);
                    [
                        y,
                        _mm256_shuffle_epi32::<0x4e>(y),
                        lanes,
                        _mm256_shuffle_epi32::<0x4e>(lanes),
                    ]
                }};
            }
            let (mut i, mut j) = (0, 0);
            let (mut count0, mut count1) = (_mm256_setzero_si256(), _mm256_setzero_si256());
            while i + W <= a.len() && j + W <= b.len() {
                // SAFETY: i + 8 <= a.len() and j + 8 <= b.len() (the loop condition), so the
                // four unaligned 32-byte loads read a[i..i + 8] and b[j..j + 8], inside the
                // slices.
                let (x0, x1, y0, y1) = unsafe {
                    let (pa, pb) = (a.as_ptr().add(i), b.as_ptr().add(j));
                    (
                        _mm256_loadu_si256(pa as *const __m256i),
                        _mm256_loadu_si256(pa.add(4) as *const __m256i),
                        _mm256_loadu_si256(pb as *const __m256i),
                        _mm256_loadu_si256(pb.add(4) as *const __m256i),
                    )
                };
                let (y0, y1) = (permutations!(y0), permutations!(y1));
                count0 = _mm256_sub_epi64(count0, $any8!(x0, y0, y1));
                count1 = _mm256_sub_epi64(count1, $any8!(x1, y0, y1));
                let (xl, yl) = (a[i + W - 1], b[j + W - 1]);
                i += W * (xl <= yl) as usize;
                j += W * (yl <= xl) as usize;
            }
            let mut lanes = [0u64; 4];
            // SAFETY: `lanes` is 32 bytes, the size of the unaligned store.
            unsafe {
                _mm256_storeu_si256(
                    lanes.as_mut_ptr() as *mut __m256i,
                    _mm256_add_epi64(count0, count1),
                )
            };
            lanes.iter().sum::<u64>() as usize + intersection_size(&a[i..], &b[j..])
        }
    };
}

/// All-ones in the lanes of `x` that equal a lane of one of the four permutations of `y` or
/// of `z`: eight compares and a tree of seven ORs.
macro_rules! any8_or {
    ($x:expr, $y:expr, $z:expr) => {{
        use std::arch::x86_64::{_mm256_cmpeq_epi64 as eq, _mm256_or_si256 as or};
        let (x, y, z) = ($x, $y, $z);
        or(
            or(or(eq(x, y[0]), eq(x, y[1])), or(eq(x, y[2]), eq(x, y[3]))),
            or(or(eq(x, z[0]), eq(x, z[1])), or(eq(x, z[2]), eq(x, z[3]))),
        )
    }};
}

/// [`any8_or`] with AVX-512VL's three-input logic: three ternary ORs and one OR.
#[cfg(neardup_avx512)]
macro_rules! any8_ternary {
    ($x:expr, $y:expr, $z:expr) => {{
        use std::arch::x86_64::{
            _mm256_cmpeq_epi64 as eq, _mm256_or_si256 as or, _mm256_ternarylogic_epi64,
        };
        // 0xFE: the OR of the three inputs.
        let or3 = |p, q, r| _mm256_ternarylogic_epi64::<0xFE>(p, q, r);
        let (x, y, z) = ($x, $y, $z);
        let low = or3(eq(x, y[0]), eq(x, y[1]), eq(x, y[2]));
        let high = or3(eq(x, y[3]), eq(x, z[0]), eq(x, z[1]));
        or(or3(eq(x, z[2]), eq(x, z[3]), low), high)
    }};
}

blocked_intersection!(intersection_size_u64_avx2, "avx2", any8_or);
#[cfg(neardup_avx512)]
blocked_intersection!(
    #[allow(clippy::incompatible_msrv)] // compiled only by Rust >= 1.89 (build.rs sets the cfg)
    intersection_size_u64_avx512,
    "avx512f,avx512vl,avx2",
    any8_ternary
);
