//! The per-character table of [`super`]'s tokeniser: flags, the values of NFKC_Casefold, the
//! word classes (rust/normalize/tokens/mod.rs explains the passes that use them).

use super::is_spaceless;
use crate::normalize::casefold::{is_own_value, nfkc_casefold, push_value};
use std::borrow::Cow;
use unicode_normalization::char::{canonical_combining_class, is_combining_mark};
use unicode_normalization::{is_nfc_quick, IsNormalized, UnicodeNormalization};

// A character's flags in the [`Table`]. The classes ([`WORD`], [`MARK`], [`SPACELESS`]) are of
// the character itself when it is [`SELF`], else of the one character of its value (unused
// for a [`MULTI`] one, whose value's characters are classified one by one).

/// A boundary of the mapping: the character has canonical combining class 0, so does the
/// first character of its canonical decomposition, and its value is not empty and starts with
/// a starter that composes with nothing before it (NFC quick check Yes). Text cut before such
/// characters maps piece by piece: toNFKC_Casefold of the whole is the concatenation of
/// toNFKC_Casefold of the pieces.
pub(super) const CUT: u8 = 1;
/// The tokeniser's first pass takes the character: a [`CUT`] one, or a default ignorable
/// character of class 0 that is its own NFD (its value is empty, so nothing composes with it
/// and, beside [`CUT`] characters only, nothing composes across it).
pub(super) const FAST: u8 = 2;
/// The character is its own NFKC_Casefold value.
pub(super) const SELF: u8 = 4;
/// The value is not one character (two or more, or none): its characters are in
/// [`Table::values`], each classified on its own.
pub(super) const MULTI: u8 = 8;
/// Alphanumeric or a combining mark.
pub(super) const WORD: u8 = 16;
/// General_Category Mark.
pub(super) const MARK: u8 = 32;
/// A word character, not a mark, in a [`SPACELESS_BLOCKS`] block.
pub(super) const SPACELESS: u8 = 64;
/// The first pass checks the canonical order here. On a [`FAST`] combining mark (class not 0,
/// its own value and NFD, composing with nothing before it; its class in the payload): it
/// follows marks of no higher class since the last starter, else the text needs reordering.
/// On a [`CUT`] character: its NFD or its value ends with a mark, which a mark after it may
/// have to go before (the first pass then leaves such a mark to the second).
pub(super) const ORDER: u8 = 128;

/// [`WORD`], [`MARK`] and [`SPACELESS`] of `c` itself.
pub(super) fn class_of(c: char) -> u8 {
    let mut flags = 0;
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
    flags
}

/// What the tokeniser needs to know of every character of the Basic Multilingual Plane,
/// computed once per process from the Unicode data (65,536 characters, about 30 ms): one read of `flags` per character (64 KiB, the hot table) then replaces the
/// quick check's, the Alphabetic property's, the mark table's and the case folding's lookups;
/// `payload` (read only for the characters that are not [`SELF`]) holds the one character of
/// the value, or the index of a [`MULTI`] value in `values`.
pub(super) struct Table {
    pub(super) flags: Box<[u8]>,
    pub(super) payload: Box<[u32]>,
    values: Vec<Box<str>>,
}

impl Table {
    pub(super) fn get() -> &'static Table {
        static TABLE: std::sync::OnceLock<Table> = std::sync::OnceLock::new();
        TABLE.get_or_init(|| {
            let mut values = Vec::new();
            let (flags, payload): (Vec<u8>, Vec<u32>) = (0..=0xFFFFu32)
                .map(|c| char::from_u32(c).map_or((0, 0), |c| entry_of(c, &mut values)))
                .unzip();
            Table {
                flags: flags.into_boxed_slice(),
                payload: payload.into_boxed_slice(),
                values,
            }
        })
    }

    #[inline(always)]
    pub(super) fn flags(&self, c: u32) -> u8 {
        match self.flags.get(c as usize) {
            Some(&flags) => flags,
            None => char::from_u32(c).map_or(0, |c| entry_of(c, &mut Vec::new()).0),
        }
    }

    /// The one character of the value of `c`, which is neither [`SELF`] nor [`MULTI`].
    pub(super) fn single(&self, c: u32) -> char {
        let payload = match self.payload.get(c as usize) {
            Some(&payload) => payload,
            None => char::from_u32(c).map_or(0, |c| entry_of(c, &mut Vec::new()).1),
        };
        char::from_u32(payload).expect("a character")
    }

    /// The value of a [`MULTI`] character `c`.
    pub(super) fn value(&self, c: char) -> Cow<'_, str> {
        match self.payload.get(c as usize) {
            Some(&index) => Cow::Borrowed(&self.values[index as usize]),
            None => Cow::Owned(nfkc_casefold(c.encode_utf8(&mut [0; 4]))),
        }
    }

    /// Appends the value of `c` to `out`.
    pub(super) fn push_value(&self, c: char, out: &mut String) {
        let flags = self.flags(c as u32);
        if flags & SELF != 0 {
            out.push(c);
        } else if flags & MULTI == 0 {
            out.push(self.single(c as u32));
        } else if (c as usize) < self.payload.len() {
            out.push_str(&self.values[self.payload[c as usize] as usize]);
        } else {
            push_value(c, out);
        }
    }
}

/// The [`Table`] flags and payload of `c`; a value of several characters (or none) is pushed
/// to `values`.
fn entry_of(c: char, values: &mut Vec<Box<str>>) -> (u8, u32) {
    // Most characters are their own value: no string is made for them.
    let value = (!is_own_value(c)).then(|| nfkc_casefold(c.encode_utf8(&mut [0; 4])));
    let (first, second, last) = match &value {
        None => (Some(c), None, Some(c)),
        Some(value) => {
            let mut chars = value.chars();
            (chars.next(), chars.next(), value.chars().next_back())
        }
    };
    let mut nfd = std::iter::once(c).nfd();
    let nfd_first = nfd.next();
    let (mut nfd_last, mut own_nfd) = (nfd_first, nfd_first == Some(c));
    for d in nfd {
        (nfd_last, own_nfd) = (Some(d), false);
    }
    let is_mark = |d: Option<char>| d.is_some_and(|d| canonical_combining_class(d) != 0);
    let class = canonical_combining_class(c);
    let mut flags = 0;
    if class == 0
        && !is_mark(nfd_first)
        && first.is_some_and(|f| {
            canonical_combining_class(f) == 0
                && is_nfc_quick(std::iter::once(f)) == IsNormalized::Yes
        })
    {
        flags |= CUT | FAST;
        if is_mark(last) || is_mark(nfd_last) {
            flags |= ORDER;
        }
    }
    if first.is_none() && class == 0 && own_nfd {
        flags |= FAST;
    }
    if class != 0
        && value.is_none()
        && own_nfd
        && is_nfc_quick(std::iter::once(c)) == IsNormalized::Yes
    {
        flags |= FAST | ORDER;
    }
    match (value, first, second) {
        (None, _, _) => (flags | SELF | class_of(c), class as u32),
        (Some(_), Some(f), None) if f == c => (flags | SELF | class_of(c), class as u32),
        (Some(_), Some(f), None) => (flags | class_of(f), f as u32),
        (Some(value), _, _) => {
            values.push(value.into_boxed_str());
            (flags | MULTI, (values.len() - 1) as u32)
        }
    }
}
