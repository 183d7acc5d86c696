//! Hash version 2's ASCII word path in batches, for x86_64 CPUs with AVX-512 (F, DQ, BW, VL)
//! or AVX2 (`rust/wordhash/avx2.rs`, a child module): the same bits as hashing each word with
//! [`shingle_hash`] and rolling [`combine_tokens`] over the windows, eight (four) lanes at a
//! time.
//!
//! * [`WordBatch`] finds a document's words (start and end offsets, from the classifier's bit
//!   mask with no branch per word), then hashes eight words per step: their first and last 8
//!   bytes gathered (`vpgatherdq`; 1.2x faster from text to shingle hashes than copying them
//!   into arrays first), XXH3-64's short-input formulas (1-3, 4-8 and 9-16 bytes, seed 0) all
//!   computed and the right one selected per lane: no branch on a word's length, which the
//!   one-word-at-a-time hash mispredicts on prose. Words longer than 16 bytes (rare) are
//!   hashed one by one with [`shingle_hash`] afterwards.
//! * [`combine_windows`] evaluates each window's polynomial directly (k multiply-adds per
//!   window, eight windows per step) instead of the rolling update, whose chain of dependent
//!   multiplies bounds it to one window per five cycles or so.
//!
//! Elsewhere (NEON, scalar) the one-word-at-a-time path of `normalize/` and the rolling
//! window of `shingle/` run unchanged. Tests compare every path on random text.
//! (A scalar twin of these kernels, the three formulas computed and picked with masks and the
//! windows evaluated directly, was 1.6x slower than that path on an AMD EPYC, 0.50 vs 0.31 s
//! from text to shingle hashes of the 324 MB benches corpus; with the word-at-a-time XXH3
//! after the branch-free word bounds (windows still direct), 1.2x slower: not kept.)

#![cfg(target_arch = "x86_64")]

mod avx2;

use crate::hashing::shingle_hash;
#[cfg(neardup_avx512)]
use crate::hashing::{combine_tokens, TOKEN_BASE};

// XXH3-64's constants for inputs of 1-16 bytes with seed 0: the secret's words folded into
// the four flips (checked against the crate by the tests), then the mixers' multipliers.
pub(crate) const FLIP_1TO3: u64 = 0x8727_5a9b;
pub(crate) const FLIP_4TO8: u64 = 0xc73a_b174_c5ec_d5a2;
pub(crate) const FLIP_9TO16_LO: u64 = 0x6782_737b_ea42_39b9;
pub(crate) const FLIP_9TO16_HI: u64 = 0xaf56_bc3b_0996_523a;
pub(crate) const PRIME64_2: u64 = 0xC2B2_AE3D_27D4_EB4F;
pub(crate) const PRIME64_3: u64 = 0x1656_67B1_9E37_79F9;
pub(crate) const RRMXMX: u64 = 0x9FB2_1C65_1E98_DF25;
pub(crate) const AVALANCHE: u64 = 0x1656_6791_9E37_79F9;

/// The instruction set a batch runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Isa {
    #[cfg(neardup_avx512)]
    Avx512,
    Avx2,
}

impl Isa {
    /// The best this CPU has, if any (the feature checks are cached by the standard library).
    pub(crate) fn best() -> Option<Isa> {
        use std::arch::is_x86_feature_detected as has;
        if !(has!("bmi1") && has!("popcnt")) {
            return None;
        }
        #[cfg(neardup_avx512)]
        if crate::cpu::allows_avx512()
            && has!("avx512f")
            && has!("avx512dq")
            && has!("avx512bw")
            && has!("avx512vl")
        {
            return Some(Isa::Avx512);
        }
        (crate::cpu::allows_avx2() && has!("avx2")).then_some(Isa::Avx2)
    }
}

/// One document's words, ready to hash in batches.
#[derive(Debug, Clone, Default)]
pub(crate) struct WordBatch {
    /// Where each word starts and ends (grown only: [`flatten`] writes past the last word).
    starts: Vec<u32>,
    ends: Vec<u32>,
    words: usize,
    /// Bytes classified: every start and end is at most this.
    span: usize,
}

impl WordBatch {
    /// Finds the words of a classified ASCII document: bit b of `mask[c]` is set on word byte
    /// 64c + b, and the last entry of `mask` is zero. Returns false (nothing done) for a
    /// document too long for 32-bit offsets. Only on a CPU [`Isa::best`] names.
    pub(crate) fn fill(&mut self, mask: &[u64]) -> bool {
        let bytes = mask.len() * 64;
        if bytes > (u32::MAX / 2) as usize {
            return false;
        }
        // At most one word per two bytes, and `flatten` writes up to 64 entries at a time.
        let room = bytes / 2 + 65;
        if self.starts.len() < room {
            self.starts.resize(room, 0);
            self.ends.resize(room, 0);
        }
        // SAFETY: the CPU has BMI1 and POPCNT (`Isa::best`, the caller's check).
        self.words = unsafe { word_bounds(mask, &mut self.starts, &mut self.ends) };
        self.span = (mask.len() - 1) * 64;
        true
    }

    /// Appends the [`shingle_hash`] of every word, in order, to `out`; `lower` holds the
    /// document's bytes (lowered) and 8 more past the mask given to [`WordBatch::fill`];
    /// `isa` is what [`Isa::best`] gave (or AVX2 on a CPU with AVX-512).
    pub(crate) fn hash_into(&self, isa: Isa, lower: &[u8], out: &mut Vec<u64>) {
        let n = self.words;
        let first = out.len();
        out.resize(first + n, 0);
        let dst = &mut out[first..];
        let (starts, ends) = (&self.starts[..n], &self.ends[..n]);
        // Every word start and end is at most `span` (word_bounds of a mask of span / 64 + 1
        // words, the last zero), so the kernels' 8-byte reads from a start, and up to an end,
        // are inside `lower`.
        assert!(lower.len() >= self.span + 8);
        let (hashed, long) = match isa {
            #[cfg(neardup_avx512)]
            // SAFETY: the CPU has the features (`Isa::best`), and the reads are inside `lower`
            // (just above).
            Isa::Avx512 => (n, unsafe { xxh3_short_avx512(starts, ends, lower, dst) }),
            // SAFETY: as above, for AVX2.
            _ => unsafe { avx2::xxh3_short(starts, ends, lower, dst) },
        };
        for (i, slot) in dst.iter_mut().enumerate() {
            if i >= hashed || (long && self.ends[i] - self.starts[i] > 16) {
                *slot = shingle_hash(&lower[self.starts[i] as usize..self.ends[i] as usize]);
            }
        }
    }
}

/// Appends [`combine_tokens`] of every window of `k` consecutive `tokens` (at least `k` of
/// them) to `out`: eight (AVX2: four) windows per step, each evaluated directly by Horner's
/// rule.
pub(crate) fn combine_windows(isa: Isa, tokens: &[u64], k: usize, out: &mut Vec<u64>) {
    debug_assert!(tokens.len() >= k && k >= 1);
    let windows = tokens.len() + 1 - k;
    let first = out.len();
    out.resize(first + windows, 0);
    let dst = &mut out[first..];
    match isa {
        #[cfg(neardup_avx512)]
        // SAFETY: the CPU has the features (`Isa::best`).
        Isa::Avx512 => unsafe { combine_windows_avx512(tokens, k, dst) },
        // SAFETY: as above, for AVX2.
        _ => unsafe { avx2::combine_windows(tokens, k, dst) },
    }
}

/// The start and end offsets of the words (maximal runs of set bits) of `mask`, whose last
/// entry must be zero, into `starts` and `ends`; returns how many words there are. Each 64-bit
/// word of the mask gives its start bits (set, previous clear) and end bits (clear, previous
/// set), written out by [`flatten`]: no branch per word or per byte.
#[target_feature(enable = "bmi1,popcnt")]
unsafe fn word_bounds(mask: &[u64], starts: &mut [u32], ends: &mut [u32]) -> usize {
    let (mut s, mut e) = (0, 0);
    let mut carry = 0u64;
    for (c, &m) in mask.iter().enumerate() {
        let before = (m << 1) | carry;
        carry = m >> 63;
        let base = (c * 64) as u32;
        flatten(m & !before, base, starts, &mut s);
        flatten(!m & before, base, ends, &mut e);
    }
    debug_assert_eq!(s, e);
    s
}

/// Writes `base` + the index of every set bit of `bits`, ascending, at `out[*n..]`, and
/// advances `*n` by their number; `out` must have 64 entries from `*n` (up to that many are
/// written, past the real ones: callers read only the first `*n`).
#[inline(always)]
fn flatten(mut bits: u64, base: u32, out: &mut [u32], n: &mut usize) {
    let count = bits.count_ones() as usize;
    let dst: &mut [u32; 64] = (&mut out[*n..*n + 64]).try_into().expect("64 entries");
    // Eight unconditionally (a chunk of prose has about seven words), then more if needed.
    for slot in dst.iter_mut().take(8) {
        *slot = base + bits.trailing_zeros();
        bits &= bits.wrapping_sub(1);
    }
    if count > 8 {
        for slot in dst.iter_mut().take(count).skip(8) {
            *slot = base + bits.trailing_zeros();
            bits &= bits.wrapping_sub(1);
        }
    }
    *n += count;
}

/// XXH3-64's 1-3, 4-8 and 9-16 byte formulas (seed 0) on eight words per step; returns
/// whether a word is longer than 16 bytes (its hash is then left for the caller).
#[cfg(neardup_avx512)]
#[allow(clippy::incompatible_msrv)] // compiled only by Rust >= 1.89 (build.rs sets the cfg)
#[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl,avx2")]
unsafe fn xxh3_short_avx512(starts: &[u32], ends: &[u32], lower: &[u8], out: &mut [u64]) -> bool {
    use std::arch::x86_64::*;
    let n = out.len();
    assert!(starts.len() == n && ends.len() == n);
    let c = |v: u64| _mm512_set1_epi64(v as i64);
    let byte = c(0xFF);
    let low32 = c(0xFFFF_FFFF);
    // Reverses the bytes of each 64-bit lane (XXH3's swap64; vpshufb indexes each 16 bytes).
    let swap = _mm512_set_epi8(
        8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1,
        2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
        13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7,
    );
    let mut any_long: __mmask8 = 0;
    let mut at = 0;
    while at < n {
        // A partial last step reads and writes only its lanes.
        let lanes: __mmask8 = if n - at >= 8 {
            0xFF
        } else {
            (1u8 << (n - at)) - 1
        };
        // SAFETY: `lanes` covers only indices below n, inside `starts` and `ends`; the caller
        // promises that 8 bytes from each start and up to each end are inside `lower`.
        let (l, h, w) = unsafe {
            let first = _mm256_maskz_loadu_epi32(lanes, starts.as_ptr().add(at) as *const i32);
            let end = _mm256_maskz_loadu_epi32(lanes, ends.as_ptr().add(at) as *const i32);
            // A word ending before byte 8: read 8 bytes ending at byte 8 and shift the word's
            // end to the top (the bytes before the buffer count as zeros).
            let from = _mm256_max_epu32(end, _mm256_set1_epi32(8));
            let shift = _mm512_slli_epi64(_mm512_cvtepu32_epi64(_mm256_sub_epi32(from, end)), 3);
            let base = lower.as_ptr() as *const i64;
            let zero = _mm512_setzero_si512();
            let l = _mm512_mask_i32gather_epi64::<1>(zero, lanes, first, base);
            let from8 = _mm256_sub_epi32(from, _mm256_set1_epi32(8));
            let h = _mm512_mask_i32gather_epi64::<1>(zero, lanes, from8, base);
            let w = _mm512_cvtepu32_epi64(_mm256_sub_epi32(end, first));
            (l, _mm512_sllv_epi64(h, shift), w)
        };
        // 1-3 bytes: bytes 0, len/2 and len-1 with the length, then XXH64's avalanche.
        let c1 = _mm512_and_si512(l, byte);
        let two = _mm512_cmpgt_epu64_mask(w, c(1));
        let c2 = _mm512_mask_blend_epi64(two, c1, _mm512_and_si512(_mm512_srli_epi64(l, 8), byte));
        let c3 = _mm512_srli_epi64(h, 56);
        let combo = _mm512_or_si512(
            _mm512_or_si512(_mm512_slli_epi64(c1, 16), _mm512_slli_epi64(c2, 24)),
            _mm512_or_si512(c3, _mm512_slli_epi64(w, 8)),
        );
        let mut v = _mm512_xor_si512(combo, c(FLIP_1TO3));
        v = _mm512_xor_si512(v, _mm512_srli_epi64(v, 33));
        v = _mm512_mullo_epi64(v, c(PRIME64_2));
        v = _mm512_xor_si512(v, _mm512_srli_epi64(v, 29));
        v = _mm512_mullo_epi64(v, c(PRIME64_3));
        let short = _mm512_xor_si512(v, _mm512_srli_epi64(v, 32));
        // 4-8 bytes: the first and the last four, then rrmxmx.
        let input64 = _mm512_or_si512(_mm512_slli_epi64(l, 32), _mm512_srli_epi64(h, 32));
        let k = _mm512_xor_si512(input64, c(FLIP_4TO8));
        // k ^ rotl(k, 49) ^ rotl(k, 24)
        let mut v =
            _mm512_ternarylogic_epi64(k, _mm512_rol_epi64(k, 49), _mm512_rol_epi64(k, 24), 0x96);
        v = _mm512_mullo_epi64(v, c(RRMXMX));
        v = _mm512_xor_si512(v, _mm512_add_epi64(_mm512_srli_epi64(v, 35), w));
        v = _mm512_mullo_epi64(v, c(RRMXMX));
        let middle = _mm512_xor_si512(v, _mm512_srli_epi64(v, 28));
        // 9-16 bytes: the first and the last eight, a folded 128-bit product, XXH3's avalanche.
        let a = _mm512_xor_si512(l, c(FLIP_9TO16_LO));
        let b = _mm512_xor_si512(h, c(FLIP_9TO16_HI));
        let (a1, b1) = (_mm512_srli_epi64(a, 32), _mm512_srli_epi64(b, 32));
        let p00 = _mm512_mul_epu32(a, b);
        let p01 = _mm512_mul_epu32(a, b1);
        let p10 = _mm512_mul_epu32(a1, b);
        let p11 = _mm512_mul_epu32(a1, b1);
        let mid = _mm512_add_epi64(
            _mm512_srli_epi64(p00, 32),
            _mm512_add_epi64(_mm512_and_si512(p01, low32), _mm512_and_si512(p10, low32)),
        );
        let high = _mm512_add_epi64(
            _mm512_add_epi64(p11, _mm512_srli_epi64(mid, 32)),
            _mm512_add_epi64(_mm512_srli_epi64(p01, 32), _mm512_srli_epi64(p10, 32)),
        );
        let low = _mm512_mullo_epi64(a, b);
        let fold = _mm512_xor_si512(low, high);
        let mut v = _mm512_add_epi64(
            _mm512_add_epi64(w, _mm512_shuffle_epi8(a, swap)),
            _mm512_add_epi64(b, fold),
        );
        v = _mm512_xor_si512(v, _mm512_srli_epi64(v, 37));
        v = _mm512_mullo_epi64(v, c(AVALANCHE));
        let long = _mm512_xor_si512(v, _mm512_srli_epi64(v, 32));
        let four = _mm512_cmpgt_epu64_mask(w, c(3));
        let nine = _mm512_cmpgt_epu64_mask(w, c(8));
        any_long |= _mm512_mask_cmpgt_epu64_mask(lanes, w, c(16));
        let hash =
            _mm512_mask_blend_epi64(nine, _mm512_mask_blend_epi64(four, short, middle), long);
        // SAFETY: as for the loads.
        unsafe { _mm512_mask_storeu_epi64(out.as_mut_ptr().add(at) as *mut i64, lanes, hash) };
        at += 8;
    }
    any_long != 0
}

#[cfg(neardup_avx512)]
#[target_feature(enable = "avx512f,avx512dq,avx512bw,avx512vl,avx2")]
unsafe fn combine_windows_avx512(tokens: &[u64], k: usize, out: &mut [u64]) {
    const STEP: usize = 8;
    let full = out.len() / STEP * STEP;
    for i in (0..full).step_by(STEP) {
        let mut acc = [0u64; STEP];
        for j in 0..k {
            let t: &[u64; STEP] = tokens[i + j..i + j + STEP].try_into().expect("STEP tokens");
            for l in 0..STEP {
                acc[l] = acc[l].wrapping_mul(TOKEN_BASE).wrapping_add(t[l]);
            }
        }
        let window: &mut [u64; STEP] = (&mut out[i..i + STEP]).try_into().expect("STEP slots");
        for l in 0..STEP {
            window[l] = crate::hashing::mix64(acc[l]);
        }
    }
    for (i, slot) in out.iter_mut().enumerate().skip(full) {
        *slot = combine_tokens(&tokens[i..i + k]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hashing::{combine_tokens, mix64, HashVersion};
    use crate::shingle::{Shingler, Unit};

    /// Every instruction set of the batches this CPU runs.
    fn isas() -> Vec<Isa> {
        match Isa::best() {
            #[cfg(neardup_avx512)]
            Some(Isa::Avx512) => vec![Isa::Avx512, Isa::Avx2],
            Some(Isa::Avx2) => vec![Isa::Avx2],
            None => vec![],
        }
    }

    #[test]
    fn batched_word_hashes_equal_xxh3_for_every_length() {
        // Words of every length 1..40 at every offset, between random bytes.
        let mut state = 3u64;
        let mut next = |m: u64| {
            state = mix64(state);
            state % m
        };
        for round in 0..300 {
            let n = next(400) as usize + (round % 3) * 64;
            let mut bits = vec![0u64; n.div_ceil(64) + 1];
            let mut words = Vec::new();
            let mut at = next(3) as usize;
            while at < n {
                let most = if next(4) == 0 { 40 } else { 12 };
                let len = (1 + next(most) as usize).min(n - at);
                words.push((at, at + len));
                for b in at..at + len {
                    bits[b / 64] |= 1 << (b % 64);
                }
                at += len + 1 + next(3) as usize;
            }
            let lower: Vec<u8> = (0..bits.len() * 64 + 8).map(|_| next(256) as u8).collect();
            let want: Vec<u64> = words
                .iter()
                .map(|&(s, e)| shingle_hash(&lower[s..e]))
                .collect();
            for isa in isas() {
                let mut batch = WordBatch::default();
                assert!(batch.fill(&bits));
                let mut got = vec![1, 2];
                batch.hash_into(isa, &lower, &mut got);
                assert_eq!(got[..2], [1, 2]);
                assert_eq!(got[2..], want[..], "round {round} {isa:?}");
            }
        }
    }

    #[test]
    fn direct_windows_equal_the_formula() {
        let tokens: Vec<u64> = (0..60).map(|i| mix64(i ^ 0xABC)).collect();
        for isa in isas() {
            for k in 1..9 {
                for len in k..60 {
                    let mut got = vec![9];
                    combine_windows(isa, &tokens[..len], k, &mut got);
                    let want: Vec<u64> = tokens[..len].windows(k).map(combine_tokens).collect();
                    assert_eq!(got[1..], want[..], "k {k} len {len} {isa:?}");
                }
            }
        }
    }

    #[test]
    fn the_batched_and_the_word_at_a_time_paths_agree() {
        // Random text of ASCII words of every length (some over 16 bytes), separators and a
        // few non-ASCII documents; every path this CPU runs, for several k.
        let mut state = 11u64;
        let mut next = |m: u64| {
            state = mix64(state);
            state % m
        };
        for doc in 0..400 {
            let words = next(60) as usize;
            let mut text = String::new();
            for _ in 0..words {
                let len = if next(10) == 0 {
                    17 + next(30)
                } else {
                    1 + next(12)
                };
                for _ in 0..len {
                    text.push(b"abcXYZ019q"[next(10) as usize] as char);
                }
                text.push_str([" ", ", ", "\n", "--", "."][next(5) as usize]);
            }
            if doc % 50 == 7 {
                text.push_str(" caf\u{e9} \u{72d0}\u{72f8}");
            }
            for k in [1, 2, 5, 9] {
                let mut want = vec![3];
                let mut shingler = Shingler::new(k, Unit::Word, HashVersion::V2).unwrap();
                assert!(shingler.set_path("word"));
                shingler.hashes_into(&text, &mut want);
                for path in ["batch", "batch-avx2"] {
                    if shingler.set_path(path) {
                        let mut got = vec![3];
                        shingler.hashes_into(&text, &mut got);
                        assert_eq!(got, want, "{path} k {k} text {text:?}");
                    }
                }
            }
        }
    }
}
