//! Unicode's NFKC_Casefold, the mapping at the heart of hash version 2's normalisation.
//!
//! Unicode (UAX #44, DerivedNormalizationProps.txt) gives each character an NFKC_Casefold
//! value: the fixed point of removing the Default_Ignorable_Code_Point characters, NFKC, full
//! case folding (CaseFolding.txt, statuses C and F) and NFKC again. A string's NFKC_Casefold
//! is the NFC of its characters' values (ICU's `nfkc_cf`). Version 2 takes it of the string's
//! compatibility decomposition (NFKD): the NFC of the values of the NFKD's characters, so that
//! a text in any of the four normalisation forms gives the same result (they share one NFKD;
//! the canonical decomposition is not enough: a half-width voiced sound mark becomes a
//! combining mark that reorders with U+0345 only under NFKD). That differs from ICU only when
//! U+0345 COMBINING GREEK YPOGEGRAMMENI (which folds to the letter ι) meets another combining
//! mark, where ICU's result depends on the input's normalisation form.
//!
//! So the text loses case (ß and ẞ become "ss", final sigma becomes σ), compatibility variants
//! (full-width forms, ligatures, circled letters) and invisible format characters (soft
//! hyphen, zero width space and joiners, word joiner, variation selectors).
//!
//! The data is Unicode 16.0.0 throughout, pinned in Cargo.toml: NFKC and NFC from
//! `unicode-normalization` 0.1.24, full case folding from `caseless` 0.2.2 (CaseFolding-16.0.0)
//! and [`DEFAULT_IGNORABLE`] (DerivedCoreProperties-16.0.0). The test
//! `the_unicode_data_is_version_16` fails if a crate update brings another version.

use caseless::Caseless;
use unicode_normalization::UnicodeNormalization;

/// The Unicode version of the data the mapping is computed from.
pub const UNICODE_VERSION: (u8, u8, u8) = (16, 0, 0);

/// Default_Ignorable_Code_Point of Unicode 16.0.0 (DerivedCoreProperties.txt), as inclusive
/// ranges: soft hyphen, combining grapheme joiner, Arabic letter mark, the Hangul fillers,
/// Khmer inherent vowels, Mongolian free variation selectors and vowel separator, zero width
/// space, joiners and directional marks, bidirectional embeddings and isolates, word joiner and
/// invisible operators, variation selectors, zero width no-break space (BOM), shorthand format
/// controls, musical beam and phrase controls, tags, and the reserved code points among them.
/// Sorted; part of hash version 2.
pub const DEFAULT_IGNORABLE: &[(u32, u32)] = &[
    (0x00AD, 0x00AD),
    (0x034F, 0x034F),
    (0x061C, 0x061C),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x200B, 0x200F),
    (0x202A, 0x202E),
    (0x2060, 0x206F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0),
    (0xFFF0, 0xFFF8),
    (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A),
    (0xE0000, 0xE0FFF),
];

/// True when `c` is a Default_Ignorable_Code_Point ([`DEFAULT_IGNORABLE`]).
pub fn is_default_ignorable(c: char) -> bool {
    let c = c as u32;
    if c < DEFAULT_IGNORABLE[0].0 {
        return false;
    }
    let after = DEFAULT_IGNORABLE.partition_point(|&(start, _)| start <= c);
    after > 0 && c <= DEFAULT_IGNORABLE[after - 1].1
}

/// One round of the value's iteration: remove Default_Ignorable_Code_Point, NFKC, full case
/// folding, NFKC.
fn fold_round(text: &str) -> String {
    text.chars()
        .filter(|&c| !is_default_ignorable(c))
        .nfkc()
        .default_case_fold()
        .nfkc()
        .collect()
}

/// The NFKC_Casefold value of one character (the property NFKC_CF of
/// DerivedNormalizationProps.txt): `fold_round` repeated until it changes nothing.
pub fn char_value(c: char) -> String {
    let mut value = String::from(c);
    loop {
        let next = fold_round(&value);
        if next == value {
            return value;
        }
        value = next;
    }
}

/// Appends toNFKC_Casefold(`text`) to `out`: the NFC of the values of the characters of the
/// NFKD of `text` (every normalisation form of a text has the same NFKD, so all four give the
/// same result). `scratch` is reused between calls. The definition, computed straight from
/// the Unicode data (the tokeniser reaches the same text faster, see rust/normalize/tokens/mod.rs).
pub fn nfkc_casefold_into(text: &str, scratch: &mut String, out: &mut String) {
    scratch.clear();
    for c in text.nfkd() {
        push_value(c, scratch);
    }
    out.extend(scratch.nfc());
}

/// Appends the NFKC_Casefold value of `c` to `out`, without allocating for the characters
/// that are their own value (most of them).
#[inline]
pub fn push_value(c: char, out: &mut String) {
    if is_own_value(c) {
        out.push(c);
    } else {
        out.push_str(&char_value(c));
    }
}

/// A quick test that `c` is its own NFKC_Casefold value: it is in NFKC (quick check), has no
/// case folding and is not default ignorable. False only means "maybe not".
pub(crate) fn is_own_value(c: char) -> bool {
    if c.is_ascii() {
        return !c.is_ascii_uppercase();
    }
    unicode_normalization::is_nfkc_quick(std::iter::once(c))
        == unicode_normalization::IsNormalized::Yes
        && !is_default_ignorable(c)
        && {
            let mut folded = std::iter::once(c).default_case_fold();
            folded.next() == Some(c) && folded.next().is_none()
        }
}

/// toNFKC_Casefold of `text` as a new string.
pub fn nfkc_casefold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    nfkc_casefold_into(text, &mut String::new(), &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_unicode_data_is_version_16() {
        assert_eq!(unicode_normalization::UNICODE_VERSION, UNICODE_VERSION);
        let (major, minor, update) = caseless::UNICODE_VERSION;
        assert_eq!(
            (major as u8, minor as u8, update as u8),
            UNICODE_VERSION,
            "caseless"
        );
    }

    #[test]
    fn default_ignorable_ranges_are_sorted_and_disjoint() {
        for pair in DEFAULT_IGNORABLE.windows(2) {
            assert!(pair[0].0 <= pair[0].1 && pair[0].1 < pair[1].0, "{pair:?}");
        }
        for c in [
            '\u{AD}',
            '\u{200B}',
            '\u{200D}',
            '\u{2060}',
            '\u{FE0F}',
            '\u{E0100}',
        ] {
            assert!(is_default_ignorable(c), "{c:?}");
        }
        for c in [
            'a', ' ', '\u{AC}', '\u{AE}', '\u{2010}', '\u{FFF9}', '\u{600}',
        ] {
            assert!(!is_default_ignorable(c), "{c:?}");
        }
    }

    #[test]
    fn values_of_known_characters() {
        let cases = [
            ("STRASSE", "strasse"),
            ("Straße", "strasse"),
            ("ẞ", "ss"),
            ("ΟΔΟΣ", "οδοσ"),
            ("οδος", "οδοσ"),
            ("İ", "i\u{307}"),
            ("ı", "ı"),
            ("ﬃ", "ffi"),
            ("Å", "å"),
            ("Ａｂ１", "ab1"),
            ("ｶﾞ", "ガ"),
            ("㍻", "平成"),
            ("a\u{AD}b\u{200B}c\u{200D}d\u{2060}e\u{FE0F}", "abcde"),
            ("e\u{AD}\u{301}", "é"),
            ("ΐ", "ΐ"),
            // Canonical order first (NFD): iota subscript after the acute, then folded to ι.
            ("α\u{345}\u{301}", "άι"),
            ("Ⅻ", "xii"),
            ("ǅ", "dž"),
            ("\u{13F8}", "\u{13F0}"), // Cherokee folds to the capital letters
        ];
        for (text, want) in cases {
            assert_eq!(nfkc_casefold(text), want, "{text:?}");
        }
    }

    #[test]
    fn the_mapping_is_idempotent() {
        let mut scratch = String::new();
        for c in (0..=0x2FFFFu32).step_by(5).filter_map(char::from_u32) {
            let once = nfkc_casefold(&format!("{c}a{c}\u{301}"));
            let mut twice = String::new();
            nfkc_casefold_into(&once, &mut scratch, &mut twice);
            assert_eq!(once, twice, "{c:?}");
        }
    }

    #[test]
    fn own_values_are_values() {
        for c in (0..=0x10FFFFu32).step_by(3).filter_map(char::from_u32) {
            if is_own_value(c) {
                assert_eq!(char_value(c), c.to_string(), "{c:?}");
            }
        }
    }
}
