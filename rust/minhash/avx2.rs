//! The classic MinHash kernel for x86_64 CPUs with AVX2 but not AVX-512 (which has a 64-bit
//! multiply of its own): the bits of [`super::MinHasher::slot_hash`] in nine
//! instructions per eight slots.
//!
//! For x < 2^32, hi32((a·x + b) mod 2^64) = hi32((a_lo·x + b) mod 2^64) + lo32(a_hi·x)
//! (mod 2^32), a = a_hi·2^32 + a_lo: adding a_hi·x·2^32 changes only the high half, modulo
//! 2^32. So per eight slots: two 32×32→64 multiplies (`vpmuludq`, four slots each) plus b as a
//! 64-bit add, their high halves blended into one register of eight (the even slots shifted
//! down, the odd ones in place), one 32-bit multiply (`vpmulld`) and add for a_hi·x, and the
//! 32-bit minimum. Sixteen slots per pass over the shingles: their parameters (ten registers)
//! and minima (two) stay in registers (read from memory, five loads per eight slots per
//! shingle bound the kernel: 1.15x slower than the generic loop on an AMD EPYC).

/// The parameters in the kernel's layout: per group g of eight slots, `lo[g]` holds a_lo of
/// the even slots then of the odd ones (as 64-bit lanes), `b[g]` their b, `hi[g]` a_hi of
/// the eight slots in order.
#[derive(Debug, Clone, Default)]
pub(crate) struct Params {
    lo: Vec<[u64; 8]>,
    b: Vec<[u64; 8]>,
    hi: Vec<[u32; 8]>,
}

impl Params {
    /// The layout of the first `a.len() / 8 * 8` slots (the others are the caller's).
    pub(crate) fn new(a: &[u64], b: &[u64]) -> Params {
        let groups = a.len() / 8;
        let mut params = Params::default();
        for g in 0..groups {
            let slot = |i: usize| 8 * g + if i < 4 { 2 * i } else { 2 * (i - 4) + 1 };
            params
                .lo
                .push(std::array::from_fn(|i| a[slot(i)] as u32 as u64));
            params.b.push(std::array::from_fn(|i| b[slot(i)]));
            params
                .hi
                .push(std::array::from_fn(|j| (a[8 * g + j] >> 32) as u32));
        }
        params
    }

    /// Slots covered (a multiple of 8).
    pub(crate) fn slots(&self) -> usize {
        self.hi.len() * 8
    }
}

/// Writes the minima of the first [`Params::slots`] slots over `shingles` into `out` (at
/// least that long); `u32::MAX` for an empty list.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn signature(params: &Params, shingles: &[u64], out: &mut [u32]) {
    let groups = params.hi.len();
    assert!(out.len() >= groups * 8);
    let mut g = 0;
    while g + 2 <= groups {
        // SAFETY: groups g..g + 2 exist (the loop condition) and `out` has their slots.
        unsafe { groups_kernel::<2>(params, g, shingles, out) };
        g += 2;
    }
    while g < groups {
        // SAFETY: as above for one group.
        unsafe { groups_kernel::<1>(params, g, shingles, out) };
        g += 1;
    }
}

/// Groups `first..first + G` (G·8 slots, G registers of minima).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn groups_kernel<const G: usize>(
    params: &Params,
    first: usize,
    shingles: &[u64],
    out: &mut [u32],
) {
    use std::arch::x86_64::*;
    // SAFETY (the loads): each is of 32 bytes inside an 8-lane array of `lo`, `b` or `hi`.
    let load = |p: *const u64| unsafe { _mm256_loadu_si256(p as *const __m256i) };
    let even_lo: [__m256i; G] = std::array::from_fn(|j| load(params.lo[first + j].as_ptr()));
    let odd_lo: [__m256i; G] = std::array::from_fn(|j| load(params.lo[first + j][4..].as_ptr()));
    let even_b: [__m256i; G] = std::array::from_fn(|j| load(params.b[first + j].as_ptr()));
    let odd_b: [__m256i; G] = std::array::from_fn(|j| load(params.b[first + j][4..].as_ptr()));
    let a_hi: [__m256i; G] = std::array::from_fn(|j| unsafe {
        _mm256_loadu_si256(params.hi[first + j].as_ptr() as *const __m256i)
    });
    let mut acc = [_mm256_set1_epi32(-1); G];
    for &s in shingles {
        // x in every 32-bit lane: `vpmuludq` reads the low one of each 64-bit lane.
        let x = _mm256_set1_epi32(s as u32 as i32);
        for j in 0..G {
            let even = _mm256_add_epi64(_mm256_mul_epu32(x, even_lo[j]), even_b[j]);
            let odd = _mm256_add_epi64(_mm256_mul_epu32(x, odd_lo[j]), odd_b[j]);
            // Even slots' high halves to the even 32-bit lanes, odd ones' stay in the odd.
            let high = _mm256_blend_epi32(_mm256_srli_epi64(even, 32), odd, 0b1010_1010);
            let h = _mm256_add_epi32(high, _mm256_mullo_epi32(x, a_hi[j]));
            acc[j] = _mm256_min_epu32(acc[j], h);
        }
    }
    for (j, v) in acc.iter().enumerate() {
        let at = 8 * (first + j);
        // SAFETY: `out` has slots up to 8 * (first + G) (asserted by the caller).
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().add(at) as *mut __m256i, *v) };
    }
}
