//! The last step of [`super::SetSorter`]'s ordered table: its non-zero slots moved to the
//! front, in order. A loop does it one slot at a time, each write waiting on the count before
//! it; AVX-512 compresses eight slots an instruction, AVX2 four through a permutation looked
//! up by their mask. The same result every way (the tests compare them).

/// Moves the non-zero values of `table` to its front, in order, and returns how many there
/// are; the slots past them are left unspecified.
pub(super) fn compact_nonzero(table: &mut [u64]) -> usize {
    #[cfg(target_arch = "x86_64")]
    match crate::wordhash::Isa::best() {
        #[cfg(neardup_avx512)]
        // SAFETY: `Isa::best` found AVX-512 F, DQ, BW and VL on this CPU.
        Some(crate::wordhash::Isa::Avx512) => return unsafe { compact_avx512(table) },
        // SAFETY: `Isa::best` found AVX2 on this CPU.
        Some(crate::wordhash::Isa::Avx2) => return unsafe { compact_avx2(table) },
        None => {}
    }
    compact_loop(table, 0, 0)
}

/// The portable loop, from slot `at` with `unique` values already at the front.
pub(super) fn compact_loop(table: &mut [u64], mut at: usize, mut unique: usize) -> usize {
    while at < table.len() {
        let slot = table[at];
        table[unique] = slot; // unique <= at: a slot already read
        unique += usize::from(slot != 0);
        at += 1;
    }
    unique
}

/// [`compact_nonzero`] eight slots at a time: `vpcompressq` packs a block's non-zero values
/// into the low lanes, stored at the front (zeros after them, over slots already read).
#[cfg(all(target_arch = "x86_64", neardup_avx512))]
#[allow(clippy::incompatible_msrv)] // compiled only by Rust >= 1.89 (build.rs sets the cfg)
#[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl,avx2")]
unsafe fn compact_avx512(table: &mut [u64]) -> usize {
    use std::arch::x86_64::*;
    let blocks = table.len() / 8;
    let base = table.as_mut_ptr();
    let mut unique = 0usize;
    for block in 0..blocks {
        // SAFETY: block * 8 + 8 <= len, so the load reads inside `table`; the store writes
        // eight slots from `unique` <= block * 8, so inside `table` too, and only over slots
        // this or an earlier block already read.
        let values = _mm512_loadu_si512(base.add(block * 8) as *const _);
        let live = _mm512_test_epi64_mask(values, values);
        _mm512_storeu_si512(
            base.add(unique) as *mut _,
            _mm512_maskz_compress_epi64(live, values),
        );
        unique += live.count_ones() as usize;
    }
    compact_loop(table, blocks * 8, unique)
}

/// For each 4-bit mask of non-zero lanes, the 32-bit lane indices that move those 64-bit
/// lanes, in order, to the front (`vpermd`); the lanes after them are don't-cares.
#[cfg(target_arch = "x86_64")]
const AVX2_MOVES: [[u32; 8]; 16] = {
    let mut moves = [[0u32; 8]; 16];
    let mut mask = 0;
    while mask < 16 {
        let mut out = 0;
        let mut lane = 0;
        while lane < 4 {
            if mask & (1 << lane) != 0 {
                moves[mask][2 * out] = 2 * lane as u32;
                moves[mask][2 * out + 1] = 2 * lane as u32 + 1;
                out += 1;
            }
            lane += 1;
        }
        mask += 1;
    }
    moves
};

/// [`compact_nonzero`] four slots at a time: the non-zero lanes' mask picks their permutation
/// from [`AVX2_MOVES`]; all four lanes are stored at the front, the unused ones over slots
/// already read, then overwritten by the next block or left past the count.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn compact_avx2(table: &mut [u64]) -> usize {
    use std::arch::x86_64::*;
    let blocks = table.len() / 4;
    let base = table.as_mut_ptr();
    let zero = _mm256_setzero_si256();
    let mut unique = 0usize;
    for block in 0..blocks {
        // SAFETY: block * 4 + 4 <= len, so the load reads inside `table`; the store writes four
        // slots from `unique` <= block * 4, inside `table`, over slots already read.
        let values = _mm256_loadu_si256(base.add(block * 4) as *const __m256i);
        let empty = _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpeq_epi64(values, zero)));
        let live = (!empty & 0xf) as usize;
        let moves = _mm256_loadu_si256(AVX2_MOVES[live].as_ptr() as *const __m256i);
        _mm256_storeu_si256(
            base.add(unique) as *mut __m256i,
            _mm256_permutevar8x32_epi32(values, moves),
        );
        unique += live.count_ones() as usize;
    }
    compact_loop(table, blocks * 4, unique)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every way gives the loop's front, whatever the zeros' pattern and the table's length.
    #[test]
    fn every_path_compacts_as_the_loop_does() {
        let mut state = 3u64;
        for len in 0..80 {
            for density in [0u64, 1, 3, 7, 8] {
                let table: Vec<u64> = (0..len)
                    .map(|_| {
                        state = crate::hashing::mix64(state);
                        if state % 8 < density {
                            state | 1
                        } else {
                            0
                        }
                    })
                    .collect();
                let want: Vec<u64> = table.iter().copied().filter(|&v| v != 0).collect();
                let mut by_loop = table.clone();
                let n = compact_loop(&mut by_loop, 0, 0);
                assert_eq!(&by_loop[..n], &want[..], "len {len} density {density}");
                let mut best = table.clone();
                let n = compact_nonzero(&mut best);
                assert_eq!(&best[..n], &want[..], "len {len} density {density}");
                #[cfg(target_arch = "x86_64")]
                if std::arch::is_x86_feature_detected!("avx2") {
                    let mut by_avx2 = table.clone();
                    // SAFETY: the CPU has AVX2 (checked just above).
                    let n = unsafe { compact_avx2(&mut by_avx2) };
                    assert_eq!(&by_avx2[..n], &want[..], "avx2 len {len} density {density}");
                }
                #[cfg(all(target_arch = "x86_64", neardup_avx512))]
                if crate::wordhash::Isa::best() == Some(crate::wordhash::Isa::Avx512) {
                    let mut by_avx512 = table.clone();
                    // SAFETY: the CPU has the AVX-512 subsets (checked just above).
                    let n = unsafe { compact_avx512(&mut by_avx512) };
                    assert_eq!(
                        &by_avx512[..n],
                        &want[..],
                        "avx512 len {len} density {density}"
                    );
                }
            }
        }
    }
}
