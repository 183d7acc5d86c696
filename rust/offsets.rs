//! Where each shingle comes from: every shingle's hash with the range of characters (code
//! points, `start..end`) of the *original* text that produced it, for `neardup.explain`.
//!
//! The normalised text is rebuilt character by character with, for each of its characters,
//! the source range it came from:
//!
//! * Version 1 ([`crate::normalize`]): a word character's lowercase comes from that character.
//! * Version 2 ([`crate::normalize::tokens`]): the source is cut before every character where
//!   NFKC_Casefold maps piece by piece ([`crate::normalize::tokens::is_cut`]); each piece (a starter and
//!   the marks and default ignorable characters after it) is folded on its own, and every
//!   character of its value comes from the whole piece. A token's range so covers the source
//!   characters that produced it, including removed ignorables inside it (a soft hyphen in a
//!   word) and the decomposed marks of an NFD text.
//!
//! A shingle's range runs from the start of its first token (or character) to the end of its
//! last; the space that joins two words counts only when it is a char shingle on its own, and
//! then comes from the separators between them. The hashes
//! are those of [`Shingler`] on the same text (not recomputed here: the bits are the engine's),
//! and the rebuilt normalised text is checked against [`Words`]: a disagreement is an error,
//! never a wrong range.

use crate::error::{Error, Result};
use crate::hashing::HashVersion;
use crate::normalize::Words;
use crate::shingle::{Shingler, Unit};

/// The normalised text with each character's source range and the tokens (word shingles'
/// units) as ranges of its characters.
struct Traced {
    text: String,
    /// Source character range of each character of `text`.
    from: Vec<(u32, u32)>,
    /// Each token as a range of characters of `text`.
    tokens: Vec<(usize, usize)>,
    /// Whether each character of `text` is a space joining two words.
    space: Vec<bool>,
}

impl Traced {
    fn new() -> Self {
        Traced {
            text: String::new(),
            from: Vec::new(),
            tokens: Vec::new(),
            space: Vec::new(),
        }
    }

    /// Appends the character `c` of a token coming from `from`; `new_token` starts a token
    /// (`new_word`: and a word, after a joining space coming from the source range `gap`).
    fn push(
        &mut self,
        c: char,
        from: (u32, u32),
        new_token: bool,
        new_word: bool,
        gap: (u32, u32),
    ) {
        if new_token {
            self.close();
            if new_word && !self.text.is_empty() {
                self.text.push(' ');
                self.from.push(gap);
                self.space.push(true);
            }
            self.tokens.push((self.from.len(), usize::MAX));
        }
        self.text.push(c);
        self.from.push(from);
        self.space.push(false);
    }

    /// Closes the open token (if any) at the current end.
    fn close(&mut self) {
        if let Some(last) = self.tokens.last_mut() {
            last.1 = last.1.min(self.from.len());
        }
    }
}

/// Version 1: lowercased runs of alphanumeric characters.
fn trace_v1(source: &str) -> Traced {
    let mut out = Traced::new();
    let (mut open, mut gap) = (false, 0u32);
    for (at, c) in source.chars().enumerate() {
        let at = at as u32;
        if c.is_alphanumeric() {
            let mut first = !open;
            for lower in c.to_lowercase() {
                out.push(lower, (at, at + 1), first, first, (gap, at));
                first = false;
            }
            open = true;
        } else if open {
            out.close();
            open = false;
            gap = at;
        }
    }
    out.close();
    out
}

/// Version 2: NFKC_Casefold piece by piece, then the tokeniser's rules on the folded text.
fn trace_v2(source: &str) -> Traced {
    let mut out = Traced::new();
    let chars: Vec<char> = source.chars().collect();
    let (mut folded, mut scratch) = (String::new(), String::new());
    let mut open: Option<bool> = None; // the open token: spaceless or not
                                       // Where the separators before the next token start, and whether the token's own piece
                                       // holds some of them (a space then a combining mark are one piece).
    let mut gap = 0u32;
    let mut start = 0;
    while start < chars.len() {
        let mut end = start + 1;
        while end < chars.len() && !crate::normalize::tokens::is_cut(chars[end]) {
            end += 1;
        }
        let piece: String = chars[start..end].iter().collect();
        folded.clear();
        crate::normalize::casefold::nfkc_casefold_into(&piece, &mut scratch, &mut folded);
        let from = (start as u32, end as u32);
        let mut separated_here = false;
        for c in folded.chars() {
            match crate::normalize::tokens::classify_folded(open, c) {
                None => {
                    if open.is_some() {
                        out.close();
                        gap = from.0;
                    }
                    open = None;
                    separated_here = true;
                }
                Some((new_token, spaceless)) => {
                    let new_word = open.is_none();
                    let gap_end = if separated_here { from.1 } else { from.0 };
                    out.push(c, from, new_token, new_word, (gap, gap_end));
                    if new_token {
                        open = Some(spaceless);
                    }
                }
            }
        }
        start = end;
    }
    out.close();
    out
}

/// Every shingle of `text` in document order, repeats kept: its hash (as [`Shingler`] gives
/// it) and the range `(start, end)` of source characters (code points) it comes from.
///
/// `"Hello, big World"` with k = 2 words: `[(h1, 0, 10), (h2, 7, 16)]`.
pub fn shingle_offsets(
    text: &str,
    k: usize,
    unit: Unit,
    version: HashVersion,
) -> Result<Vec<(u64, u32, u32)>> {
    let mut shingler = Shingler::new(k, unit, version)?;
    let mut hashes = Vec::new();
    shingler.hashes_into(text, &mut hashes);
    let traced = match version {
        HashVersion::V1 => trace_v1(text),
        HashVersion::V2 => trace_v2(text),
    };
    let mut words = Words::new(version);
    words.fill(text);
    if words.text != traced.text {
        return Err(Error::new(format!(
            "shingle offsets: the traced normalised text {:?} differs from {:?}",
            traced.text, words.text
        )));
    }
    let from = &traced.from;
    let span = |first: usize, last: usize| (from[first].0, from[last].1);
    let ranges: Vec<(u32, u32)> = if from.is_empty() {
        Vec::new()
    } else {
        match unit {
            Unit::Word => {
                let tokens = &traced.tokens;
                if tokens.len() < k {
                    vec![span(0, from.len() - 1)]
                } else {
                    tokens
                        .iter()
                        .zip(&tokens[k - 1..])
                        .map(|(first, last)| span(first.0, last.1 - 1))
                        .collect()
                }
            }
            Unit::Char => {
                // A joining space counts only in a shingle of nothing else (k = 1); words
                // are never next to two spaces.
                let space = |i: usize| traced.space[i];
                let window = |first: usize, last: usize| {
                    if first == last {
                        return span(first, last);
                    }
                    let first = if space(first) { first + 1 } else { first };
                    let last = if space(last) { last - 1 } else { last };
                    span(first, last)
                };
                if from.len() < k {
                    vec![window(0, from.len() - 1)]
                } else {
                    (0..=from.len() - k).map(|s| window(s, s + k - 1)).collect()
                }
            }
        }
    };
    if ranges.len() != hashes.len() {
        return Err(Error::new(format!(
            "shingle offsets: {} ranges for {} shingles",
            ranges.len(),
            hashes.len()
        )));
    }
    Ok(hashes
        .into_iter()
        .zip(ranges)
        .map(|(h, (s, e))| (h, s, e))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ranges(text: &str, k: usize, unit: Unit, version: HashVersion) -> Vec<(u32, u32)> {
        shingle_offsets(text, k, unit, version)
            .unwrap()
            .into_iter()
            .map(|(_, s, e)| (s, e))
            .collect()
    }

    #[test]
    fn hashes_are_the_shinglers() {
        for version in [HashVersion::V1, HashVersion::V2] {
            for unit in [Unit::Word, Unit::Char] {
                for text in [
                    "",
                    "a",
                    "Ab cd, EF gh",
                    "東京都 Straße\u{AD}n",
                    "e\u{301}te\u{301}",
                ] {
                    let mut shingler = Shingler::new(2, unit, version).unwrap();
                    let mut want = Vec::new();
                    shingler.hashes_into(text, &mut want);
                    let got: Vec<u64> = shingle_offsets(text, 2, unit, version)
                        .unwrap()
                        .iter()
                        .map(|s| s.0)
                        .collect();
                    assert_eq!(got, want, "{text:?}");
                }
            }
        }
    }

    #[test]
    fn ranges_are_source_characters() {
        let v2 = HashVersion::V2;
        // Spaceless tokens: one per ideograph.
        assert_eq!(ranges("東京 都", 2, Unit::Word, v2), [(0, 2), (1, 4)]);
        // A soft hyphen inside a word is covered; NFD marks belong to their letter.
        assert_eq!(ranges("ab\u{AD}c d", 1, Unit::Word, v2), [(0, 4), (5, 6)]);
        assert_eq!(ranges("e\u{301}t x", 1, Unit::Word, v2), [(0, 3), (4, 5)]);
        // Case folding that grows the text: ß is "ss", both from one source character.
        assert_eq!(ranges("Straße", 3, Unit::Char, v2).last(), Some(&(4, 6)));
        // A word of fewer than k units is one shingle.
        assert_eq!(ranges(" hi! ", 3, Unit::Word, HashVersion::V1), [(1, 3)]);
        assert!(ranges(" !! ", 3, Unit::Word, v2).is_empty());
    }
}
