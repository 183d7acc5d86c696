//! Hash version 2's words and tokens on text that is not all ASCII.
//!
//! 1. The text is brought to NFKC (compatibility composition): canonically equivalent text
//!    (NFC or NFD, precomposed or combining accents) becomes the same, and so do compatibility
//!    variants such as full-width Latin letters and digits, half-width katakana and ligatures.
//! 2. A word character is Unicode alphanumeric (`char::is_alphanumeric`) or a combining mark
//!    (General_Category Mark); every other character separates words. Word characters are
//!    lowercased one by one (`char::to_lowercase`), as in version 1.
//! 3. The normalised text is the words joined by single spaces.
//! 4. Each word is split into tokens: a character of a script written without spaces
//!    ([`is_spaceless`]) is a token of its own together with the combining marks that follow
//!    it; every other maximal run of word characters is one token. Word shingles are runs of k
//!    tokens, so Chinese, Japanese, Thai or mixed text gets shingles with no option.

use crate::normalize::Words;
use unicode_normalization::char::is_combining_mark;
use unicode_normalization::{is_nfkc_quick, IsNormalized, UnicodeNormalization};

/// Code point ranges (inclusive) of the Unicode blocks of scripts written without spaces
/// between words: Thai, Lao, Myanmar, Khmer, the Tai scripts, Japanese kana, Bopomofo, CJK
/// ideographs (with the CJK symbols block, whose word characters are 々, 〆, 〇, the Hangzhou
/// numerals and the kana repeat marks) and Yi. Sorted; part of hash version 2.
pub const SPACELESS_BLOCKS: &[(u32, u32)] = &[
    (0x0E00, 0x0E7F),   // Thai
    (0x0E80, 0x0EFF),   // Lao
    (0x1000, 0x109F),   // Myanmar
    (0x1780, 0x17FF),   // Khmer
    (0x1950, 0x197F),   // Tai Le
    (0x1980, 0x19DF),   // New Tai Lue
    (0x19E0, 0x19FF),   // Khmer Symbols
    (0x1A20, 0x1AAF),   // Tai Tham
    (0x2E80, 0x2FDF),   // CJK Radicals Supplement, Kangxi Radicals
    (0x3000, 0x303F),   // CJK Symbols and Punctuation
    (0x3040, 0x30FF),   // Hiragana, Katakana
    (0x3100, 0x312F),   // Bopomofo
    (0x31A0, 0x31BF),   // Bopomofo Extended
    (0x31F0, 0x31FF),   // Katakana Phonetic Extensions
    (0x3400, 0x4DBF),   // CJK Unified Ideographs Extension A
    (0x4E00, 0x9FFF),   // CJK Unified Ideographs
    (0xA000, 0xA4CF),   // Yi Syllables, Yi Radicals
    (0xA9E0, 0xA9FF),   // Myanmar Extended-B
    (0xAA60, 0xAA7F),   // Myanmar Extended-A
    (0xAA80, 0xAADF),   // Tai Viet
    (0xF900, 0xFAFF),   // CJK Compatibility Ideographs
    (0x1AFF0, 0x1B16F), // Kana Extended-B, Kana Supplement, Kana Extended-A, Small Kana
    (0x20000, 0x3FFFF), // Supplementary and Tertiary Ideographic Planes
];

/// True when `c` lies in one of the [`SPACELESS_BLOCKS`].
#[inline]
pub fn is_spaceless(c: char) -> bool {
    let c = c as u32;
    if c < SPACELESS_BLOCKS[0].0 {
        return false; // Latin, Greek, Cyrillic, Arabic, Hebrew, Indic scripts: the common case
    }
    let after = SPACELESS_BLOCKS.partition_point(|&(start, _)| start <= c);
    after > 0 && c <= SPACELESS_BLOCKS[after - 1].1
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Token {
    None,
    Run,
    Spaceless,
}

/// NFKC quick check says Yes and the canonical combining class is 0: a run of such characters
/// is already in NFKC, whatever surrounds them.
const STABLE: u8 = 1;
/// Alphanumeric or a combining mark.
const WORD: u8 = 2;
/// General_Category Mark.
const MARK: u8 = 4;
/// A word character, not a mark, in a [`SPACELESS_BLOCKS`] block.
const SPACELESS: u8 = 8;
/// `to_lowercase` is the character itself.
const LOWER_IS_SELF: u8 = 16;

/// What the tokeniser needs to know of `c`, from the Unicode functions that define it.
fn flags_of(c: char) -> u8 {
    let mut flags = 0;
    if is_nfkc_quick(std::iter::once(c)) == IsNormalized::Yes
        && unicode_normalization::char::canonical_combining_class(c) == 0
    {
        flags |= STABLE;
    }
    let mark = is_combining_mark(c);
    if mark {
        flags |= MARK;
    }
    if mark || c.is_alphanumeric() {
        flags |= WORD;
        if !mark && is_spaceless(c) {
            flags |= SPACELESS;
        }
    }
    let mut lower = c.to_lowercase();
    if lower.next() == Some(c) && lower.next().is_none() {
        flags |= LOWER_IS_SELF;
    }
    flags
}

/// [`flags_of`] of every character of the Basic Multilingual Plane, computed once per process
/// (about 65,000 lookups, a few milliseconds): one table read per character then replaces the
/// quick check's, the Alphabetic property's and the mark table's lookups (non-ASCII text 3x
/// faster, measured by instruction counts with callgrind on `examples/stage_times`).
fn bmp_flags() -> &'static [u8] {
    static TABLE: std::sync::OnceLock<Box<[u8]>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        (0..=0xFFFFu32)
            .map(|c| char::from_u32(c).map_or(0, flags_of))
            .collect()
    })
}

#[inline]
fn flags(table: &[u8], c: char) -> u8 {
    match table.get(c as usize) {
        Some(&flags) => flags,
        None => flags_of(c),
    }
}

/// Writes the NFKC form of `source` to `out`, running the normaliser only on the runs that
/// may change: a [`STABLE`] character is a normalisation boundary (nothing before it
/// composes with it or reorders past it, and it maps to itself), so the NFKC of a text is the
/// concatenation of the NFKC of its pieces cut before stable characters. Each run from the
/// last stable character before an unstable one up to the next stable character is normalised
/// on its own, the rest copied. Text that is mostly ASCII with a few decomposed accents then
/// costs a copy instead of a pass of the normaliser over every character.
fn nfkc_unstable_runs(table: &[u8], source: &str, out: &mut String) {
    out.clear();
    out.reserve(source.len());
    let is_stable = |c: char| flags(table, c) & STABLE != 0;
    let mut copied = 0; // source[..copied] is in `out`
    let mut boundary = 0; // start of the last stable character seen
    let mut chars = source.char_indices();
    while let Some((at, c)) = chars.next() {
        if is_stable(c) {
            boundary = at;
            continue;
        }
        let start = boundary.max(copied);
        let end = chars
            .by_ref()
            .find(|&(_, d)| is_stable(d))
            .map_or(source.len(), |(next, _)| next);
        out.push_str(&source[copied..start]);
        out.extend(source[start..end].nfkc());
        copied = end;
        boundary = end;
    }
    out.push_str(&source[copied..]);
}

/// Fills `words` with the version 2 words and tokens of `source` (not all ASCII).
///
/// Most text is already in NFKC and made of [`STABLE`] characters only, so the source is
/// tokenised directly, watching for an unstable character; only when one turns up is the
/// output dropped and the NFKC form (of the runs that may change) tokenised instead. This
/// saves the separate pass that checked the whole text first.
pub(crate) fn fill_unicode_v2(words: &mut Words, source: &str) {
    let table = bmp_flags();
    if tokenize(table, source, words, true) {
        return;
    }
    words.text.clear();
    words.spans.clear();
    // No NFKC quick check first: it is a pass of lookups slower than these of the table, and
    // the unstable runs alone are normalised anyway (the stable text between them is copied).
    let mut composed = std::mem::take(&mut words.composed);
    nfkc_unstable_runs(table, source, &mut composed);
    tokenize(table, &composed, words, false);
    words.composed = composed;
}

/// ASCII stretches shorter than this stay inside the non-ASCII piece around them (see
/// [`for_each_piece`]): a piece costs a call of its own, worth it for a long ASCII stretch only.
const MIN_ASCII_PIECE: usize = 48;

/// Cuts `text` into consecutive pieces whose tokens, piece after piece, are the tokens of the
/// whole text, and calls `piece(slice, all_ascii)` for each in order: the ASCII stretches then
/// go through the ASCII paths (batched word hashing) and only the pieces around non-ASCII
/// characters through [`fill_unicode_v2`]. One curly quote or copyright sign no longer sends
/// a whole document down the slow path.
///
/// Every cut is just before an ASCII separator (not alphanumeric) that is not followed by a
/// non-ASCII byte, or just after an ASCII separator that is followed by an ASCII alphanumeric
/// or separator. Such a cut is a token boundary (separators end tokens), and an NFKC boundary:
/// the character after the cut is ASCII, so [`STABLE`] (nothing before it composes with it or
/// reorders past it), and the separator before a non-ASCII character stays with it (`<` and
/// U+0338 compose to `≮`).
pub(crate) fn for_each_piece(text: &str, mut piece: impl FnMut(&str, bool)) {
    let bytes = text.as_bytes();
    let n = bytes.len();
    let is_separator = |b: u8| b < 0x80 && !b.is_ascii_alphanumeric();
    let mut done = 0; // text[..done] is given
    let mut open = false; // a non-ASCII piece from `done` is being grown
    let mut from = 0; // where to look for the next non-ASCII byte
    while let Some(offset) = bytes[from..].iter().position(|&b| b >= 0x80) {
        let first = from + offset;
        if !open {
            // The piece starts at the word the non-ASCII character is in, or at the
            // separator just before it; a short ASCII stretch before that joins it.
            let mut start = first;
            while start > done && bytes[start - 1].is_ascii_alphanumeric() {
                start -= 1;
            }
            if start == first && start > done {
                start -= 1;
            }
            if start - done >= MIN_ASCII_PIECE {
                piece(&text[done..start], true);
                done = start;
            }
            open = true;
        }
        // It ends before the first separator after it that is not followed by non-ASCII...
        let mut end = first;
        loop {
            while end < n && !is_separator(bytes[end]) {
                end += 1;
            }
            if end + 1 < n && bytes[end + 1] >= 0x80 {
                end += 1;
                continue;
            }
            break;
        }
        // ... unless the next non-ASCII byte is near: the ASCII stretch between joins it.
        match bytes[end..].iter().position(|&b| b >= 0x80) {
            Some(gap) if gap < MIN_ASCII_PIECE => from = end + gap,
            _ => {
                piece(&text[done..end], false);
                done = end;
                from = end;
                open = false;
            }
        }
    }
    if done < n {
        piece(&text[done..], true);
    }
}

/// How many bytes of `bytes` are not ASCII, eight at a time.
pub(crate) fn non_ascii_bytes(bytes: &[u8]) -> usize {
    let eights = bytes.chunks_exact(8);
    let tail = eights.remainder().iter().filter(|&&b| b >= 0x80).count();
    eights
        .map(|e| {
            (u64::from_le_bytes(e.try_into().expect("8 bytes")) & 0x8080_8080_8080_8080)
                .count_ones() as usize
        })
        .sum::<usize>()
        + tail
}

/// The character starting at byte `i` of valid UTF-8 `bytes` whose first byte is not ASCII:
/// (code point, width). Decoded by hand: `str::chars` re-checks what a `&str` guarantees.
#[inline(always)]
fn decode(bytes: &[u8], i: usize) -> (u32, usize) {
    let lead = bytes[i] as u32;
    let cont = |k: usize| bytes[i + k] as u32 & 0x3F;
    if lead < 0xE0 {
        (((lead & 0x1F) << 6) | cont(1), 2)
    } else if lead < 0xF0 {
        (((lead & 0x0F) << 12) | (cont(1) << 6) | cont(2), 3)
    } else {
        (
            ((lead & 0x07) << 18) | (cont(1) << 12) | (cont(2) << 6) | cont(3),
            4,
        )
    }
}

/// Appends the words and tokens of `text` (see the module's rules) to `words`; with
/// `stop_on_unstable`, returns false as soon as a character is not [`STABLE`] (the output is
/// then partial), else true.
///
/// Characters that are their own lowercase are not pushed one by one: each maximal run of
/// them is copied with one `push_str` when something else must be written (a space between
/// words, a lowercased character) or the text ends; a token's span is counted on the output
/// as it will be once the pending run is copied.
fn tokenize(table: &[u8], text: &str, words: &mut Words, stop_on_unstable: bool) -> bool {
    let bytes = text.as_bytes();
    let (out, spans) = (&mut words.text, &mut words.spans);
    out.reserve(bytes.len());
    let mut token = Token::None;
    let mut start = 0; // the current token's start in the output
    let mut run = 0; // text[run..i] is pending: word characters copied as they are
    let mut i = 0;
    while i < bytes.len() {
        let byte = bytes[i];
        let (f, width, c) = if byte < 0x80 {
            (table[byte as usize], 1, byte as u32)
        } else {
            let (c, width) = decode(bytes, i);
            let f = match table.get(c as usize) {
                Some(&f) => f,
                None => char::from_u32(c).map_or(0, flags_of),
            };
            (f, width, c)
        };
        if stop_on_unstable && f & STABLE == 0 {
            return false;
        }
        if f & WORD == 0 {
            if run < i {
                out.push_str(&text[run..i]);
            }
            if token != Token::None {
                spans.push((start, out.len()));
                token = Token::None;
            }
            i += width;
            // The ASCII separators that follow (spaces, punctuation) change nothing more.
            while i < bytes.len() && bytes[i] < 0x80 && !bytes[i].is_ascii_alphanumeric() {
                i += 1;
            }
            run = i;
            continue;
        }
        let (is_mark, spaceless) = (f & MARK != 0, f & SPACELESS != 0);
        let new_token = match token {
            Token::None => true,
            Token::Run => spaceless,
            Token::Spaceless => !is_mark,
        };
        if new_token {
            if token == Token::None {
                // A word starts: the run before it ended at a separator (or it is the first),
                // so nothing is pending.
                if !out.is_empty() {
                    out.push(' ');
                }
            } else {
                spans.push((start, out.len() + (i - run)));
            }
            start = out.len() + (i - run);
            token = if spaceless {
                Token::Spaceless
            } else {
                Token::Run
            };
        }
        if f & LOWER_IS_SELF == 0 {
            if run < i {
                out.push_str(&text[run..i]);
            }
            if byte < 0x80 {
                out.push(byte.to_ascii_lowercase() as char);
            } else if let Some(c) = char::from_u32(c) {
                out.extend(c.to_lowercase());
            }
            run = i + width;
        }
        i += width;
        if token == Token::Run {
            // Lowercase ASCII letters and digits inside a run token change nothing but the
            // pending run: skipped in a tight loop (most of the bytes of Latin-script text).
            while i < bytes.len() && matches!(bytes[i], b'a'..=b'z' | b'0'..=b'9') {
                i += 1;
            }
        }
    }
    out.push_str(&text[run..]);
    if token != Token::None {
        spans.push((start, out.len()));
    }
    true
}

#[cfg(test)]
mod tests;
