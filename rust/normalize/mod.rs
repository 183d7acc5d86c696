//! Normalisation: the text a shingle sees, in two versions ([`HashVersion`]).
//!
//! Version 1: a word is a maximal run of characters that are Unicode alphanumeric (Alphabetic or
//! Numeric, Rust's `char::is_alphanumeric`); every other character separates words. Each word
//! character is lowercased on its own with the full Unicode mapping (`char::to_lowercase`, no
//! context rules such as the Greek final sigma). The normalised text is the words joined by
//! single spaces. For ASCII input this equals the article's
//! `toLowerCase().replace(/[^a-z0-9 ]+/g, ' ')` followed by a split on whitespace.
//!
//! Version 2 ([`tokens`]) first brings the text to Unicode's NFKC_Casefold (NFKC, full
//! case folding, default ignorable characters removed; [`casefold`]), counts combining
//! marks as word characters, and splits words into tokens: each character of a script written
//! without spaces is a token of its own. ASCII text is the same in both versions (its
//! NFKC_Casefold is its lowercase).

use crate::hashing::HashVersion;

pub mod casefold;
pub mod tokens;

/// Reusable buffers holding one document's normalised words.
#[derive(Debug, Default, Clone)]
pub struct Words {
    version: HashVersion,
    /// The words joined by single spaces.
    pub text: String,
    /// Byte range of each word (version 2: each token) in `text`.
    pub spans: Vec<(usize, usize)>,
    /// Scratch of version 2: toNFKC_Casefold of a document that the first pass cannot take.
    composed: String,
    /// Scratch of version 2: the values of one run of [`tokens`]'s normaliser.
    scratch: String,
    /// Scratch of the ASCII path: one bit per source byte, set on word bytes.
    mask: Vec<u64>,
    /// Scratch of the ASCII path: the source bytes with bit 0x20 set (lowercase for letters).
    lower: Vec<u8>,
}

impl Words {
    pub fn new(version: HashVersion) -> Self {
        Words {
            version,
            ..Self::default()
        }
    }

    /// Replaces the content with the normalised words of `source`.
    pub fn fill(&mut self, source: &str) {
        self.text.clear();
        self.spans.clear();
        if self.fill_ascii(source.as_bytes()) {
            return;
        }
        match self.version {
            HashVersion::V1 => self.fill_unicode_v1(source),
            HashVersion::V2 => tokens::fill_unicode_v2(
                source,
                &mut self.text,
                &mut self.spans,
                &mut self.composed,
                &mut self.scratch,
            ),
        }
    }

    /// Version 1 of [`Words::fill`] on text that is not all ASCII.
    fn fill_unicode_v1(&mut self, source: &str) {
        let bytes = source.as_bytes();
        let mut word_start: Option<usize> = None;
        let mut i = 0;
        while i < bytes.len() {
            let byte = bytes[i];
            // ASCII fast path: one table lookup per byte, no char decoding.
            let (is_word, width) = if byte < 0x80 {
                (byte.is_ascii_alphanumeric(), 1)
            } else {
                let c = source[i..]
                    .chars()
                    .next()
                    .expect("index is on a char boundary");
                (c.is_alphanumeric(), c.len_utf8())
            };
            if is_word {
                if word_start.is_none() {
                    if !self.text.is_empty() {
                        self.text.push(' ');
                    }
                    word_start = Some(self.text.len());
                }
                if width == 1 {
                    self.text.push(byte.to_ascii_lowercase() as char);
                } else {
                    let c = source[i..]
                        .chars()
                        .next()
                        .expect("index is on a char boundary");
                    self.text.extend(c.to_lowercase());
                }
            } else if let Some(start) = word_start.take() {
                self.spans.push((start, self.text.len()));
            }
            i += width;
        }
        if let Some(start) = word_start {
            self.spans.push((start, self.text.len()));
        }
    }

    /// The ASCII fast path of [`Words::fill`]; returns false (having done nothing) when
    /// `bytes` is not all ASCII.
    ///
    /// One branch-free pass, which the compiler vectorises, classifies 64 bytes at a time into
    /// a bit mask of word bytes and a copy with bit 0x20 set (ASCII letters lowercased, digits
    /// unchanged). Words are then found with trailing-zero counts on the mask and copied 16
    /// bytes at a time, so there is no branch per byte and no data-dependent branch per word
    /// except for words longer than 16 bytes.
    fn fill_ascii(&mut self, bytes: &[u8]) -> bool {
        const SLACK: usize = 16;
        let n = bytes.len();
        if !self.classify_ascii(bytes, SLACK) {
            return false;
        }
        let mut out = std::mem::take(&mut self.text).into_bytes();
        out.clear();
        out.resize(n + SLACK + 1, 0);
        let (mask, lower, spans) = (&self.mask, &self.lower, &mut self.spans);
        let mut j: usize = 0;
        for_each_ascii_word(mask, n.div_ceil(64), |start, end| {
            let len = end - start;
            let mut copied = 0;
            while copied < len {
                let from: &[u8; SLACK] = lower[start + copied..start + copied + SLACK]
                    .try_into()
                    .expect("SLACK bytes");
                out[j + copied..j + copied + SLACK].copy_from_slice(from);
                copied += SLACK;
            }
            spans.push((j, j + len));
            j += len;
            out[j] = b' ';
            j += 1;
        });
        out.truncate(j.saturating_sub(1)); // drop the space after the last word
                                           // Every byte written is ASCII: a lowercase letter, a digit or a space.
        self.text = String::from_utf8(out).unwrap_or_default();
        true
    }

    /// Hash version 2's token hashes of an all-ASCII `source` (`hash` of each normalised word,
    /// in order) appended to `out`, straight from the lowered bytes: the normalised text and
    /// the spans are not built. Returns false (having done nothing) when `source` is not all
    /// ASCII. On ASCII text a version 2 token is a word, so this equals hashing the spans that
    /// [`Words::fill`] gives (about a quarter fewer instructions from text to shingle hashes,
    /// callgrind on `examples/stage_times`).
    pub(crate) fn ascii_token_hashes(
        &mut self,
        source: &str,
        hash: impl Fn(&[u8]) -> u64,
        out: &mut Vec<u64>,
    ) -> bool {
        let bytes = source.as_bytes();
        if !self.classify_ascii(bytes, 0) {
            return false;
        }
        let lower = &self.lower;
        for_each_ascii_word(&self.mask, bytes.len().div_ceil(64), |start, end| {
            out.push(hash(&lower[start..end]));
        });
        true
    }

    /// The words of an all-ASCII `source` found into `batch` for [`crate::wordhash`], their
    /// bytes lowered in [`Words::lowered`]; returns false (with `batch` unusable) when
    /// `source` is not all ASCII or too long for the batch. The words are those of
    /// [`Words::fill`].
    #[cfg(target_arch = "x86_64")]
    pub(crate) fn ascii_word_batch(
        &mut self,
        source: &str,
        batch: &mut crate::wordhash::WordBatch,
    ) -> bool {
        let bytes = source.as_bytes();
        // 8 bytes of slack: the batch reads 8 bytes from each word's start.
        if !self.classify_ascii(bytes, 8) {
            return false;
        }
        let chunks = bytes.len().div_ceil(64);
        batch.fill(&self.mask[..=chunks])
    }

    /// The lowered bytes of the last ASCII document classified.
    #[cfg(target_arch = "x86_64")]
    pub(crate) fn lowered(&self) -> &[u8] {
        &self.lower
    }

    /// Fills the ASCII scratch (`mask`, `lower` with `slack` zero bytes of padding) from
    /// `bytes`; returns whether they are all ASCII.
    ///
    /// The buffers only grow, and are not cleared: `classify` writes every mask word and
    /// every byte of `lower` that is read back (the padding past the text is zeros written by
    /// it; the `slack` bytes past that are only copied past a word's end, then overwritten or
    /// cut). Zeroing them for every document was 7 % of the instructions from ASCII text to
    /// shingle hashes (callgrind).
    fn classify_ascii(&mut self, bytes: &[u8], slack: usize) -> bool {
        let chunks = bytes.len().div_ceil(64);
        if self.mask.len() < chunks + 1 {
            self.mask.resize(chunks + 1, 0);
        }
        self.mask[chunks] = 0; // a zero sentinel ends every search for a word's end
        if self.lower.len() < chunks * 64 + slack {
            self.lower.resize(chunks * 64 + slack, 0);
        }
        classify(bytes, &mut self.mask, &mut self.lower)
    }

    pub fn len(&self) -> usize {
        self.spans.len()
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }
}

/// Calls `word(start, end)` for each maximal run of set bits of `mask` (bit k of `mask[c]` is
/// byte 64c + k), in order; `mask[chunks]` must be zero. Words are found with trailing-zero
/// counts, so there is no branch per byte.
#[inline(always)]
fn for_each_ascii_word(mask: &[u64], chunks: usize, mut word: impl FnMut(usize, usize)) {
    let mut at = 0;
    let mut bits = mask[0];
    loop {
        while bits == 0 {
            at += 1;
            if at >= chunks {
                return;
            }
            bits = mask[at];
        }
        let start = at * 64 + bits.trailing_zeros() as usize;
        // The word ends at the first clear bit at or after `start`.
        let mut end_at = at;
        let mut clear = !mask[end_at] & (!0u64 << (start % 64));
        while clear == 0 {
            end_at += 1;
            clear = !mask[end_at];
        }
        let end = end_at * 64 + clear.trailing_zeros() as usize;
        word(start, end);
        // Go on after the word (`mask[chunks]` is the zero sentinel).
        at = end / 64;
        bits = mask[at] & (!0u64 << (end % 64));
    }
}

/// Classifies `bytes` 64 at a time: bit k of `mask[c]` is set when byte 64c + k is ASCII
/// alphanumeric, and `lower` receives the bytes with bit 0x20 set (letters lowercased, digits
/// unchanged); the last partial chunk is padded with zeros. Returns whether every byte is
/// ASCII (when not, the outputs are meaningless). On x86_64 with AVX2 an intrinsics version
/// classifies 32 bytes per instruction (the SWAR version 8): about 1.5x faster normalisation.
/// (An AVX-512 BW version, 64 bytes per instruction, showed no gain: the loads of the text,
/// streamed from memory, are most of its time.)
fn classify(bytes: &[u8], mask: &mut [u64], lower: &mut [u8]) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        if crate::cpu::allows_avx2() && std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: AVX2 is present (checked just above), the only requirement of the
            // function.
            return unsafe { classify_avx2(bytes, mask, lower) };
        }
    }
    classify_swar(bytes, mask, lower)
}

/// [`classify`] eight bytes at a time in 64-bit registers ([`classify8`]).
fn classify_swar(bytes: &[u8], mask: &mut [u64], lower: &mut [u8]) -> bool {
    let mut high = 0u64;
    for (c, chunk) in bytes.chunks(64).enumerate() {
        // Whole chunks are copied as a fixed 64 bytes (inlined; no call to memcpy).
        let block: [u8; 64] = match chunk.try_into() {
            Ok(whole) => whole,
            Err(_) => {
                let mut last = [0u8; 64];
                last[..chunk.len()].copy_from_slice(chunk);
                last
            }
        };
        let mut bits = 0u64;
        for (k, eight) in block.chunks_exact(8).enumerate() {
            let v = u64::from_le_bytes(eight.try_into().expect("8 bytes"));
            high |= v;
            let (word, lowered) = classify8(v);
            bits |= word << (8 * k);
            lower[c * 64 + 8 * k..c * 64 + 8 * k + 8].copy_from_slice(&lowered.to_le_bytes());
        }
        mask[c] = bits;
    }
    high & 0x8080_8080_8080_8080 == 0
}

/// [`classify`] with AVX2 on the whole 64-byte chunks; the partial last one goes to
/// [`classify_swar`]. Bytes ≥ 0x80 compare as negative, which only garbles the outputs of
/// documents that the ASCII check rejects anyway.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn classify_avx2(bytes: &[u8], mask: &mut [u64], lower: &mut [u8]) -> bool {
    use std::arch::x86_64::{
        __m256i, _mm256_and_si256, _mm256_cmpgt_epi8, _mm256_loadu_si256, _mm256_movemask_epi8,
        _mm256_or_si256, _mm256_set1_epi8, _mm256_storeu_si256,
    };
    let whole = bytes.len() / 64;
    assert!(mask.len() >= whole && lower.len() >= whole * 64);
    let mut high = 0i32;
    for (c, chunk_mask) in mask[..whole].iter_mut().enumerate() {
        let mut bits = 0u64;
        for half in 0..2 {
            let at = c * 64 + half * 32;
            // SAFETY: at + 32 <= whole * 64 <= bytes.len() and <= lower.len() (asserted), so
            // the unaligned 32-byte load and store stay inside the slices.
            let v = unsafe { _mm256_loadu_si256(bytes.as_ptr().add(at) as *const __m256i) };
            let lowered = _mm256_or_si256(v, _mm256_set1_epi8(0x20));
            let between = |x: __m256i, low: i8, high: i8| {
                _mm256_and_si256(
                    _mm256_cmpgt_epi8(x, _mm256_set1_epi8(low - 1)),
                    _mm256_cmpgt_epi8(_mm256_set1_epi8(high + 1), x),
                )
            };
            let word = _mm256_or_si256(
                between(lowered, b'a' as i8, b'z' as i8),
                between(v, b'0' as i8, b'9' as i8),
            );
            bits |= (_mm256_movemask_epi8(word) as u32 as u64) << (32 * half);
            high |= _mm256_movemask_epi8(v);
            // SAFETY: as for the load, `lower[at..at + 32]` is inside `lower`.
            unsafe { _mm256_storeu_si256(lower.as_mut_ptr().add(at) as *mut __m256i, lowered) };
        }
        *chunk_mask = bits;
    }
    let rest = classify_swar(
        &bytes[whole * 64..],
        &mut mask[whole..],
        &mut lower[whole * 64..],
    );
    high == 0 && rest
}

/// Eight ASCII bytes at once (SWAR): the bits (byte k → bit k) of those that are ASCII
/// alphanumeric, and the bytes with bit 0x20 set (letters lowercased, digits unchanged).
/// Meaningless when a byte is ≥ 0x80 (the caller falls back then).
#[inline(always)]
fn classify8(v: u64) -> (u64, u64) {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let lowered = v | (0x20 * ONES);
    // For bytes < 0x80 none of these sums carries into the next byte (a byte ≥ 0x80 may carry,
    // hence the wrapping add; such chunks are discarded); a byte's high bit then
    // says whether it is at least the bound.
    let at_least = |x: u64, bound: u64| x.wrapping_add((0x80 - bound) * ONES);
    let letter = at_least(lowered, 0x61) & !at_least(lowered, 0x7B);
    let digit = at_least(v, 0x30) & !at_least(v, 0x3A);
    let word = ((letter | digit) & HIGH) >> 7;
    // Gather the low bit of each byte into the top byte: byte k lands on bit 56 + k.
    let packed = word.wrapping_mul(0x0102_0408_1020_4080) >> 56;
    (packed, lowered)
}

/// The normalised text of `source`: its words, lowercased, joined by single spaces.
pub fn normalize(source: &str, version: HashVersion) -> String {
    let mut words = Words::new(version);
    words.fill(source);
    words.text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn normalize_v1(source: &str) -> String {
        normalize(source, HashVersion::V1)
    }

    #[test]
    fn ascii_punctuation_and_case_split_words() {
        assert_eq!(
            normalize_v1("  Hello,  World!\n\nIt's 2024."),
            "hello world it s 2024"
        );
    }

    #[test]
    fn empty_and_separator_only_inputs_have_no_words() {
        let mut w = Words::new(HashVersion::V1);
        w.fill("  \t\n ... ");
        assert!(w.is_empty());
        assert_eq!(w.text, "");
    }

    #[test]
    fn unicode_letters_and_marks_stay_in_words() {
        assert_eq!(normalize_v1("Ünïcödé ÉTÉ—Straße"), "ünïcödé été straße");
        // Devanagari vowel signs are combining marks with the Alphabetic property.
        assert_eq!(normalize_v1("हिंदी भाषा"), "हिंदी भाषा");
        // Dotted capital I lowercases to two chars, both kept in the word.
        assert_eq!(normalize_v1("İstanbul"), "i\u{307}stanbul");
    }

    #[test]
    fn every_classifier_agrees_with_the_swar_one() {
        // All byte values and lengths around the 32- and 64-byte blocks, ASCII or not.
        for len in [0usize, 1, 31, 32, 33, 63, 64, 65, 127, 128, 129, 200] {
            for seed in 0..20u64 {
                let ascii_only = seed % 2 == 0;
                let bytes: Vec<u8> = (0..len as u64)
                    .map(|i| {
                        let b = crate::hashing::mix64(seed * 1000 + i) as u8;
                        if ascii_only {
                            b & 0x7F
                        } else {
                            b
                        }
                    })
                    .collect();
                let chunks = len.div_ceil(64);
                let (mut mask_a, mut lower_a) = (vec![0u64; chunks + 1], vec![0u8; chunks * 64]);
                let (mut mask_b, mut lower_b) = (vec![0u64; chunks + 1], vec![0u8; chunks * 64]);
                assert_eq!(
                    classify_swar(&bytes, &mut mask_b, &mut lower_b),
                    bytes.is_ascii()
                );
                let check = |ascii: bool, mask: &[u64], lower: &[u8]| {
                    assert_eq!(ascii, bytes.is_ascii());
                    if ascii {
                        assert_eq!((mask, lower), (&mask_b[..], &lower_b[..]), "{len} {seed}");
                    }
                };
                let ascii = classify(&bytes, &mut mask_a, &mut lower_a);
                check(ascii, &mask_a, &lower_a);
                #[cfg(target_arch = "x86_64")]
                if std::arch::is_x86_feature_detected!("avx2") {
                    // SAFETY: AVX2 is present (checked just above).
                    let ascii = unsafe { classify_avx2(&bytes, &mut mask_a, &mut lower_a) };
                    check(ascii, &mask_a, &lower_a);
                }
            }
        }
    }

    /// The general (char-decoding) path, for comparison with the ASCII fast path.
    fn slow(source: &str) -> Words {
        let mut w = Words::new(HashVersion::V1);
        // A non-ASCII prefix word forces the general path; drop it from the result.
        w.fill(&format!("é {source}"));
        let shift = 3; // "é " is 3 bytes
        let mut out = Words::new(HashVersion::V1);
        out.text = w.text.get(shift..).unwrap_or("").to_string();
        out.spans = w.spans[1..]
            .iter()
            .map(|&(s, e)| (s - shift, e - shift))
            .collect();
        out
    }

    #[test]
    fn ascii_fast_path_matches_the_general_path() {
        let cases = [
            "",
            " ",
            "a",
            "  Hello,  World!\n\nIt's 2024.  ",
            "x_y-z\tA1b2C3...end",
            "~!@#$%^&*()_+{}|:\"<>?`-=[]\\;',./",
            "ALL CAPS 99 bottles\u{7f}of\u{0}beer",
        ];
        for case in cases {
            let mut fast = Words::new(HashVersion::V1);
            fast.fill(case);
            let slow = slow(case);
            assert_eq!(fast.text, slow.text, "{case:?}");
            assert_eq!(fast.spans, slow.spans, "{case:?}");
        }
        let all: String = (0u8..128).map(|b| b as char).collect();
        let mut fast = Words::new(HashVersion::V1);
        fast.fill(&all);
        assert_eq!(fast.text, slow(&all).text);
        // Random ASCII of every length around the 64-byte chunks, words of every length.
        let mut state = 9u64;
        for len in (0..300).chain([1000, 4097]) {
            for _ in 0..4 {
                let text: String = (0..len)
                    .map(|_| {
                        state = crate::hashing::mix64(state);
                        let r = state % 100;
                        if r < 8 {
                            b' '
                        } else if r < 10 {
                            b'.'
                        } else if r < 12 {
                            b'Q'
                        } else {
                            b"ab9Z"[(r % 4) as usize]
                        }
                    } as char)
                    .collect();
                fast.fill(&text);
                let want = slow(&text);
                assert_eq!(fast.text, want.text, "{text:?}");
                assert_eq!(fast.spans, want.spans, "{text:?}");
            }
        }
    }

    #[test]
    fn ascii_token_hashes_equal_hashes_of_the_filled_words() {
        let hash = crate::hashing::shingle_hash;
        let mut state = 5u64;
        let mut words = Words::new(HashVersion::V2);
        let mut fused = Words::new(HashVersion::V2);
        for len in (0..200).chain([1000, 4097]) {
            let text: String = (0..len)
                .map(|_| {
                    state = crate::hashing::mix64(state);
                    b"aB9 .-\n\0zQ"[(state % 10) as usize] as char
                })
                .collect();
            words.fill(&text);
            let want: Vec<u64> = words
                .spans
                .iter()
                .map(|&(s, e)| hash(&words.text.as_bytes()[s..e]))
                .collect();
            let mut got = vec![7]; // appends, keeping what is there
            assert!(fused.ascii_token_hashes(&text, hash, &mut got));
            assert_eq!(got[0], 7);
            assert_eq!(got[1..], want[..], "{text:?}");
        }
        let mut got = Vec::new();
        assert!(!fused.ascii_token_hashes("caf\u{e9} au lait", hash, &mut got));
        assert!(got.is_empty());
    }

    #[test]
    fn classify8_matches_the_byte_rules() {
        for start in (0u8..128).step_by(8) {
            let bytes: [u8; 8] = std::array::from_fn(|k| start + k as u8);
            let (bits, lowered) = classify8(u64::from_le_bytes(bytes));
            for (k, &b) in bytes.iter().enumerate() {
                assert_eq!(bits >> k & 1 == 1, b.is_ascii_alphanumeric(), "byte {b}");
                if b.is_ascii_alphanumeric() {
                    assert_eq!(lowered.to_le_bytes()[k], b.to_ascii_lowercase());
                }
            }
        }
    }

    #[test]
    fn spans_point_at_words() {
        let mut w = Words::new(HashVersion::V1);
        w.fill("ab, CD éf");
        let words: Vec<&str> = w.spans.iter().map(|&(s, e)| &w.text[s..e]).collect();
        assert_eq!(words, ["ab", "cd", "éf"]);
    }
}
