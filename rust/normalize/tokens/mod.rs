//! Hash version 2's words and tokens on text that is not all ASCII.
//!
//! 1. The text is brought to NFKC_Casefold ([`super::casefold`], Unicode 16.0.0): NFKC (canonically
//!    equivalent text becomes the same, and so do compatibility variants such as full-width
//!    forms, half-width katakana and ligatures), full case folding (ß and ẞ become "ss", final
//!    sigma becomes σ) and the removal of Default_Ignorable_Code_Point characters (soft hyphen,
//!    zero width space and joiners, word joiner, variation selectors), so they no longer split
//!    a word.
//! 2. In that text a word character is Unicode alphanumeric (`char::is_alphanumeric`) or a
//!    combining mark (General_Category Mark); every other character separates words.
//! 3. The normalised text is the words joined by single spaces.
//! 4. Each word is split into tokens: a character of a script written without spaces
//!    ([`is_spaceless`]) is a token of its own together with the combining marks that follow
//!    it; every other maximal run of word characters is one token. Word shingles are runs of k
//!    tokens, so Chinese, Japanese, Thai or mixed text gets shingles with no option.
//!
//! ASCII text is its own NFKC_Casefold but for its capitals, which fold to lowercase: the ASCII
//! paths of rust/normalize/mod.rs and rust/wordhash/mod.rs give the same words.

use table::{class_of, Table, CUT, FAST, MARK, MULTI, ORDER, SELF, SPACELESS, WORD};
use unicode_normalization::char::canonical_combining_class;
use unicode_normalization::UnicodeNormalization;

mod table;

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

/// True when text cut before `c` maps piece by piece under NFKC_Casefold (the [`CUT`] flag):
/// toNFKC_Casefold of the whole is the concatenation of that of the pieces.
pub(crate) fn is_cut(c: char) -> bool {
    Table::get().flags(c as u32) & CUT != 0
}

/// For the offsets of shingles (rust/offsets.rs): given the kind of the token being built (`None` between words,
/// `Some(spaceless)` inside a token), whether the character `c` of NFKC_Casefold text is a
/// word character, and if so whether it starts a new token and whether that token is
/// spaceless; the rules of [`tokenize`].
pub(crate) fn classify_folded(open: Option<bool>, c: char) -> Option<(bool, bool)> {
    let class = class_of(c);
    if class & WORD == 0 {
        return None;
    }
    let token = match open {
        None => Token::None,
        Some(true) => Token::Spaceless,
        Some(false) => Token::Run,
    };
    Some((next_token(token, class), kind(class) == Token::Spaceless))
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Token {
    None,
    Run,
    Spaceless,
}

/// Writes toNFKC_Casefold(`source`) to `out`, running the normaliser only on the runs that
/// need it. The text is cut before [`CUT`] characters (see there); a piece that the first pass
/// could take (a [`CUT`] character, then default ignorables and combining marks in canonical
/// order, see [`ORDER`]) is the concatenation of its characters' values, the characters that
/// are their own value copied in stretches; any other piece, from its [`CUT`] character up to
/// the next one, goes through the definition (NFKD, values, NFC; NFC alone when every
/// character is its own value). Text with a few decomposed accents, or Indic text with a few
/// characters that compose, then costs little more than a copy.
fn fold_unstable_runs(table: &Table, source: &str, out: &mut String, scratch: &mut String) {
    let mut runs = Runs {
        table,
        source,
        pending: 0,
        cut: 0,
        cut_out: None,
        last_class: 0,
    };
    out.clear();
    out.reserve(source.len());
    let mut chars = source.char_indices();
    while let Some((at, c)) = chars.next() {
        let f = table.flags(c as u32);
        if f & CUT != 0 {
            runs.cut(at, c, f, out);
            continue;
        }
        if f & FAST != 0 {
            if f & MULTI != 0 {
                // Default ignorable: its value is empty.
                runs.flush(at, out);
                runs.pending = at + c.len_utf8();
                continue;
            }
            let class = canonical_combining_class(c);
            if class >= runs.last_class {
                runs.last_class = class;
                continue;
            }
        }
        // The piece from the last CUT character (taken back if written) to the next one.
        let start = runs.cut;
        match runs.cut_out {
            Some(before) => out.truncate(before),
            None => runs.flush(start, out),
        }
        let mut own = true;
        let next = chars.by_ref().find(|&(_, d)| {
            let f = table.flags(d as u32);
            own &= f & SELF != 0;
            f & CUT != 0
        });
        let end = next.map_or(source.len(), |(next, _)| next);
        let piece = &source[start..end];
        if own && piece.chars().all(|d| table.flags(d as u32) & SELF != 0) {
            out.extend(piece.nfc());
        } else {
            scratch.clear();
            piece.nfkd().for_each(|d| table.push_value(d, scratch));
            out.extend(scratch.nfc());
        }
        runs.pending = end;
        if let Some((at, d)) = next {
            runs.cut(at, d, table.flags(d as u32), out);
        }
    }
    runs.flush(source.len(), out);
}

/// The state of [`fold_unstable_runs`].
struct Runs<'a> {
    table: &'a Table,
    source: &'a str,
    /// `source[pending..]` is not written yet; up to the current character, it holds
    /// characters that are their own value (copied as they are).
    pending: usize,
    /// Start of the last [`CUT`] character.
    cut: usize,
    /// Where the output of that character starts in `out`, once it is written.
    cut_out: Option<usize>,
    /// The highest class of the marks since that character ([`ORDER`]).
    last_class: u8,
}

impl Runs<'_> {
    /// Writes the pending characters before `at`.
    fn flush(&mut self, at: usize, out: &mut String) {
        if self.cut_out.is_none() && (self.pending..=at).contains(&self.cut) {
            self.cut_out = Some(out.len() + self.cut - self.pending);
        }
        out.push_str(&self.source[self.pending..at]);
        self.pending = at;
    }

    /// The [`CUT`] character `c` (flags `f`) at `at`: left pending when it is its own value,
    /// else written.
    fn cut(&mut self, at: usize, c: char, f: u8, out: &mut String) {
        self.cut = at;
        self.cut_out = None;
        self.last_class = if f & ORDER != 0 { u8::MAX } else { 0 };
        if f & SELF == 0 {
            self.flush(at, out);
            self.cut_out = Some(out.len());
            self.table.push_value(c, out);
            self.pending = at + c.len_utf8();
        }
    }
}

/// Fills `text` (the words joined by single spaces) and `spans` (each token's byte range in
/// `text`) with the version 2 words and tokens of `source` (not all ASCII); `composed` and
/// `scratch` are scratch. The buffers of `normalize::Words`, passed by it: this module needs
/// nothing of the normaliser that calls it.
///
/// Most text is made of [`FAST`] characters only, whose values follow one another with no
/// normalisation between them, so the source is tokenised directly, each character replaced
/// by its value, watching for another character; only when one turns up is the output dropped
/// and toNFKC_Casefold of the text (of the runs that need it, see [`fold_unstable_runs`])
/// tokenised instead. This saves a separate pass that would check the whole text first.
pub(crate) fn fill_unicode_v2(
    source: &str,
    text: &mut String,
    spans: &mut Vec<(usize, usize)>,
    composed: &mut String,
    scratch: &mut String,
) {
    let table = Table::get();
    if tokenize(table, source, text, spans, true) {
        return;
    }
    text.clear();
    spans.clear();
    fold_unstable_runs(table, source, composed, scratch);
    tokenize(table, composed, text, spans, false);
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
/// the character after the cut is ASCII, so [`CUT`] (nothing before it composes with it or
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

/// Appends the words and tokens of `text` (see the module's rules) to `out` (the words
/// joined by single spaces) and `spans` (each token's byte range in `out`).
///
/// The first pass (`first_pass`) takes the source: each character is replaced by its value,
/// and it returns false as soon as a character is not [`FAST`] (the output is then partial).
/// The second takes toNFKC_Casefold of the source, whose characters are written as they are;
/// it returns true.
///
/// Characters that are written as they are, are not pushed one by one: each maximal run of
/// them is copied with one `push_str` when something else must be written (a space between
/// words, another character's value) or the text ends; a token's span is counted on the
/// output as it will be once the pending run is copied.
fn tokenize(
    table: &Table,
    text: &str,
    out: &mut String,
    spans: &mut Vec<(usize, usize)>,
    first_pass: bool,
) -> bool {
    let bytes = text.as_bytes();
    out.reserve(bytes.len());
    let mut token = Token::None;
    let mut start = 0; // the current token's start in the output
    let mut run = 0; // text[run..i] is pending: word characters copied as they are
    let mut last_class = 0; // first pass: the highest class of the marks since the last starter
    let mut i = 0;
    while i < bytes.len() {
        let byte = bytes[i];
        let (mut f, width, c) = if byte < 0x80 {
            (table.flags[byte as usize], 1, byte as u32)
        } else {
            let (c, width) = decode(bytes, i);
            (table.flags(c), width, c)
        };
        if first_pass {
            if f & FAST == 0 {
                return false;
            }
            if f & ORDER == 0 {
                if f & CUT != 0 {
                    last_class = 0;
                }
            } else if f & CUT != 0 {
                last_class = u8::MAX;
            } else {
                let class = match table.payload.get(c as usize) {
                    Some(&class) => class as u8,
                    None => char::from_u32(c).map_or(u8::MAX, canonical_combining_class),
                };
                if class < last_class {
                    return false;
                }
                last_class = class;
            }
        } else if f & SELF == 0 {
            // The text is final: classify the character itself.
            f = SELF | char::from_u32(c).map_or(0, class_of);
        }
        if f & MULTI != 0 {
            // A value of several characters (or none): each is classified and written.
            out.push_str(&text[run..i]);
            let c = char::from_u32(c).expect("a character");
            for d in table.value(c).chars() {
                let class = class_of(d);
                if class & WORD == 0 {
                    if token != Token::None {
                        spans.push((start, out.len()));
                        token = Token::None;
                    }
                    continue;
                }
                if next_token(token, class) {
                    if token == Token::None {
                        if !out.is_empty() {
                            out.push(' ');
                        }
                    } else {
                        spans.push((start, out.len()));
                    }
                    start = out.len();
                    token = kind(class);
                }
                out.push(d);
            }
            i += width;
            run = i;
            continue;
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
        if next_token(token, f) {
            if token == Token::None {
                // A word starts: the run before it ended at a separator (or it is the first,
                // or a value was written), so nothing is pending.
                if !out.is_empty() {
                    out.push(' ');
                }
            } else {
                spans.push((start, out.len() + (i - run)));
            }
            start = out.len() + (i - run);
            token = kind(f);
        }
        if f & SELF == 0 {
            // A value of one character.
            if run < i {
                out.push_str(&text[run..i]);
            }
            out.push(if byte < 0x80 {
                (byte | 0x20) as char
            } else {
                table.single(c)
            });
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

/// Whether a word character of class `f` starts a new token after a `token`.
#[inline(always)]
fn next_token(token: Token, f: u8) -> bool {
    match token {
        Token::None => true,
        Token::Run => f & SPACELESS != 0,
        Token::Spaceless => f & MARK == 0,
    }
}

/// The kind of token a word character of class `f` starts.
#[inline(always)]
fn kind(f: u8) -> Token {
    if f & SPACELESS != 0 {
        Token::Spaceless
    } else {
        Token::Run
    }
}

#[cfg(test)]
mod tests;
