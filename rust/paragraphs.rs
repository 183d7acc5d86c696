//! Paragraph-level dedup: each document is cut into paragraphs (or lines), each paragraph is
//! normalised ([`crate::normalize::Words`], the hash version's rules) and keyed by the first
//! 128 bits of the SHA-256 of its normalised text — the key `exact_duplicates(...,
//! method="sha256-normalized")` gives a document made of that paragraph alone — and every
//! paragraph whose key was seen earlier in the corpus (an earlier document, or earlier in the
//! same one) is removed. Batches are added in input order and the table of keys lives across
//! them ([`FirstSeen`] in exact mode: one 128-bit key and a position per distinct paragraph; or
//! a Bloom filter of a fixed number of bits, [`Bloom`]), so a corpus streams through in
//! memory bounded by its distinct paragraphs, or by the filter.
//!
//! A paragraph is a maximal run of lines that are not blank (a blank line holds only white
//! space); in line mode each non-blank line is a unit. A unit's span runs from the start of
//! its first line to the end of its last line (without the line break), so a cut falls only
//! on line breaks and never inside a word. A unit without any word (only punctuation, say)
//! has no key and is never removed. The cleaned text keeps what precedes the first unit and
//! follows the last, and puts before each kept unit the separator that preceded it in the
//! original: a removed unit takes one separator with it, so no blank lines pile up; a
//! document with nothing removed is returned unchanged, one with every unit removed is "".

use crate::error::{reserve, Error, Result};
use crate::first_seen::FirstSeen;
use crate::hashing::{mix64, HashVersion};
use crate::normalize::Words;
use crate::parallel::map_blocks;
use sha2::{Digest, Sha256};

/// What a unit is: a paragraph (blank lines separate) or one line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Split {
    Paragraph,
    Line,
}

impl Split {
    pub fn new(name: &str) -> Result<Split> {
        match name {
            "paragraph" => Ok(Split::Paragraph),
            "line" => Ok(Split::Line),
            other => Err(Error::new(format!(
                "split must be 'paragraph' or 'line', got {other:?}"
            ))),
        }
    }
}

/// Byte ranges of the units of `text`, in order (see the module).
pub fn split(text: &str, how: Split) -> Vec<(usize, usize)> {
    let mut units = Vec::new();
    let mut open: Option<(usize, usize)> = None; // the paragraph being extended
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        let end = start + line.trim_end_matches(['\n', '\r']).len();
        if text[start..end].trim().is_empty() {
            if let Some(unit) = open.take() {
                units.push(unit);
            }
        } else if how == Split::Line {
            units.push((start, end));
        } else {
            open = Some(match open {
                Some((s, _)) => (s, end),
                None => (start, end),
            });
        }
        start += line.len();
    }
    units.extend(open);
    units
}

/// The key of one unit: the first 128 bits of SHA-256 of its normalised text, two
/// native-endian words (as `exact::sha256_digests` lays them out), or None without words.
fn unit_key(words: &mut Words, unit: &str) -> (Option<[u64; 2]>, usize) {
    words.fill(unit);
    if words.spans.is_empty() {
        return (None, 0);
    }
    let digest = Sha256::digest(words.text.as_bytes());
    let lane = |i: usize| u64::from_ne_bytes(digest[8 * i..8 * i + 8].try_into().expect("8 bytes"));
    (Some([lane(0), lane(1)]), words.spans.len())
}

/// A Bloom filter of `m` bits probed at `k` positions h1 + i·h2 (mod m) derived from a key
/// (Kirsch and Mitzenmacher's double hashing). After n distinct keys a new key is reported
/// present with probability about (1 − e^(−kn/m))^k: such a paragraph would be removed.
pub struct Bloom {
    bits: Vec<u64>,
    m: u64,
    k: u32,
    /// Keys inserted that were not already reported present.
    inserted: u64,
}

impl Bloom {
    pub fn new(m: u64, k: u32) -> Result<Bloom> {
        if m < 64 {
            return Err(Error::new(format!(
                "bloom_bits must be at least 64, got {m}"
            )));
        }
        if !(1..=64).contains(&k) {
            return Err(Error::new(format!(
                "bloom_hashes must be between 1 and 64, got {k}"
            )));
        }
        let words = m.div_ceil(64);
        let words = usize::try_from(words)
            .map_err(|_| Error::resource("the Bloom filter", usize::MAX, 8))?;
        let mut bits = Vec::new();
        reserve(&mut bits, words, "the Bloom filter")?;
        bits.resize(words, 0);
        Ok(Bloom {
            bits,
            m,
            k,
            inserted: 0,
        })
    }

    /// Whether `key` was (probably) inserted before; inserts it.
    pub fn check_insert(&mut self, key: [u64; 2]) -> bool {
        let h1 = mix64(key[0]);
        let h2 = mix64(key[1]) | 1;
        let mut present = true;
        for i in 0..u64::from(self.k) {
            let bit = h1.wrapping_add(i.wrapping_mul(h2)) % self.m;
            let (word, mask) = ((bit / 64) as usize, 1u64 << (bit % 64));
            present &= self.bits[word] & mask != 0;
            self.bits[word] |= mask;
        }
        if !present {
            self.inserted += 1;
        }
        present
    }

    /// Keys inserted so far (those not reported present).
    pub fn inserted(&self) -> u64 {
        self.inserted
    }

    /// The false-positive rate (1 − e^(−kn/m))^k for the next new key, n = [`Self::inserted`].
    pub fn false_positive_rate(&self) -> f64 {
        let k = f64::from(self.k);
        (1.0 - (-k * self.inserted as f64 / self.m as f64).exp()).powf(k)
    }

    pub fn bytes(&self) -> u64 {
        8 * self.bits.len() as u64
    }
}

/// Where the keys seen so far live.
enum Seen {
    Exact(FirstSeen),
    Bloom(Bloom),
}

/// One batch's outcome, per document in order.
#[derive(Debug, Default)]
pub struct Cleaned {
    /// The cleaned text of each document.
    pub texts: Vec<String>,
    /// Units removed from each document.
    pub removed: Vec<i64>,
    /// Units each document had.
    pub units: Vec<i64>,
    /// Words (version 2: tokens) left in each cleaned document.
    pub words: Vec<i64>,
    /// (document in the batch, start, end) of each removed unit, in characters (code points)
    /// of the original text, three words a span.
    pub spans: Vec<i64>,
}

/// The units of one document: byte spans, keys (None: never removed), words.
struct Units {
    spans: Vec<(usize, usize)>,
    keys: Vec<Option<[u64; 2]>>,
    words: Vec<usize>,
}

/// Paragraph dedup over a stream of batches (see the module).
pub struct ParagraphDedup {
    how: Split,
    version: HashVersion,
    threads: usize,
    seen: Seen,
    /// Units seen so far, and removed so far.
    pub units: u64,
    pub removed: u64,
}

impl ParagraphDedup {
    /// Exact mode when `bloom` is None, else a Bloom filter of (bits, hashes).
    pub fn new(
        how: Split,
        version: HashVersion,
        threads: usize,
        bloom: Option<(u64, u32)>,
    ) -> Result<Self> {
        crate::parallel::map_tasks(0, threads, |_| ())?; // checks the thread count
        let seen = match bloom {
            None => Seen::Exact(FirstSeen::new()),
            Some((m, k)) => Seen::Bloom(Bloom::new(m, k)?),
        };
        Ok(ParagraphDedup {
            how,
            version,
            threads,
            seen,
            units: 0,
            removed: 0,
        })
    }

    /// The Bloom filter, in Bloom mode.
    pub fn bloom(&self) -> Option<&Bloom> {
        match &self.seen {
            Seen::Bloom(b) => Some(b),
            Seen::Exact(_) => None,
        }
    }

    /// Cleans the next batch of documents (see the module).
    pub fn add(&mut self, texts: &[&str]) -> Result<Cleaned> {
        let docs = units_of(texts, self.how, self.version, self.threads)?;
        let total: usize = docs.iter().map(|d| d.spans.len()).sum();
        let mut duplicate = Vec::new();
        reserve(&mut duplicate, total, "the paragraph decisions")?;
        match &mut self.seen {
            Seen::Exact(first) => {
                let mut digests = Vec::new();
                reserve(&mut digests, 2 * total, "the paragraph keys")?;
                let mut keyed = Vec::new();
                reserve(&mut keyed, total, "the paragraph keys")?;
                for key in docs.iter().flat_map(|d| &d.keys) {
                    digests.extend(key.unwrap_or([0, 0]));
                    keyed.push(key.is_some());
                }
                let base = first.len() as i64;
                let firsts = first.add(&digests, &keyed)?;
                duplicate.extend(
                    firsts
                        .iter()
                        .enumerate()
                        .map(|(i, &f)| f != base + i as i64),
                );
            }
            Seen::Bloom(bloom) => {
                for key in docs.iter().flat_map(|d| &d.keys) {
                    duplicate.push(key.is_some_and(|k| bloom.check_insert(k)));
                }
            }
        }
        let out = assemble(texts, &docs, &duplicate, self.threads)?;
        self.units += total as u64;
        self.removed += out.removed.iter().sum::<i64>() as u64;
        Ok(out)
    }
}

/// The units of each document, on `threads` threads.
fn units_of(
    texts: &[&str],
    how: Split,
    version: HashVersion,
    threads: usize,
) -> Result<Vec<Units>> {
    let blocks = map_blocks(texts.len(), threads, |block| {
        let mut words = Words::new(version);
        texts[block]
            .iter()
            .map(|text| {
                let spans = split(text, how);
                let (keys, counts) = spans
                    .iter()
                    .map(|&(s, e)| unit_key(&mut words, &text[s..e]))
                    .unzip();
                Units {
                    spans,
                    keys,
                    words: counts,
                }
            })
            .collect::<Vec<Units>>()
    })?;
    Ok(blocks.into_iter().flatten().collect())
}

/// The units of every document as text slices, in order, and the number of each document's.
pub fn unit_texts<'a>(texts: &[&'a str], how: Split) -> Result<(Vec<&'a str>, Vec<i64>)> {
    let (mut units, mut counts) = (Vec::new(), Vec::new());
    reserve(&mut counts, texts.len(), "the unit counts")?;
    for text in texts {
        let spans = split(text, how);
        counts.push(spans.len() as i64);
        reserve(&mut units, spans.len(), "the units")?;
        units.extend(spans.into_iter().map(|(s, e)| &text[s..e]));
    }
    Ok((units, counts))
}

/// Cleans documents with the decision on each unit given (`duplicate`, one a unit in the
/// order of [`unit_texts`]): the near-duplicate mode decides with the MinHash stages.
pub fn clean_with(
    texts: &[&str],
    how: Split,
    version: HashVersion,
    threads: usize,
    duplicate: &[bool],
) -> Result<Cleaned> {
    let docs = units_of(texts, how, version, threads)?;
    let total: usize = docs.iter().map(|d| d.spans.len()).sum();
    if duplicate.len() != total {
        return Err(Error::new(format!(
            "{} decisions for {total} units",
            duplicate.len()
        )));
    }
    assemble(texts, &docs, duplicate, threads)
}

/// The batch's outcome from its units and the decision on each.
fn assemble(texts: &[&str], docs: &[Units], duplicate: &[bool], threads: usize) -> Result<Cleaned> {
    let mut starts = Vec::with_capacity(docs.len() + 1);
    starts.push(0);
    for d in docs {
        starts.push(starts.last().copied().unwrap_or(0) + d.spans.len());
    }
    let built = map_blocks(texts.len(), threads, |block| {
        block
            .map(|i| clean(texts[i], &docs[i], &duplicate[starts[i]..starts[i + 1]]))
            .collect::<Vec<_>>()
    })?;
    let mut out = Cleaned::default();
    for (i, (text, removed, words, spans)) in built.into_iter().flatten().enumerate() {
        out.texts.push(text);
        out.removed.push(removed);
        out.units.push(docs[i].spans.len() as i64);
        out.words.push(words);
        for (s, e) in spans {
            out.spans.extend([i as i64, s, e]);
        }
    }
    Ok(out)
}

/// One document's cleaned text, units removed, words kept and removed spans (characters).
fn clean(text: &str, units: &Units, duplicate: &[bool]) -> (String, i64, i64, Vec<(i64, i64)>) {
    let kept_words: usize = units
        .words
        .iter()
        .zip(duplicate)
        .filter(|(_, &d)| !d)
        .map(|(w, _)| w)
        .sum();
    let removed = duplicate.iter().filter(|&&d| d).count();
    if removed == 0 {
        return (text.to_owned(), 0, kept_words as i64, Vec::new());
    }
    let spans = &units.spans;
    // Character offsets of the removed spans, counted in one walk through the text.
    let mut chars = Vec::with_capacity(removed);
    let (mut byte, mut char_at) = (0usize, 0i64);
    let mut to_char = |b: usize| {
        char_at += text[byte..b].chars().count() as i64;
        byte = b;
        char_at
    };
    for (&(s, e), _) in spans.iter().zip(duplicate).filter(|(_, &d)| d) {
        let start = to_char(s);
        chars.push((start, to_char(e)));
    }
    if removed == spans.len() {
        return (String::new(), removed as i64, 0, chars);
    }
    let mut out = String::with_capacity(text.len());
    out.push_str(&text[..spans[0].0]);
    let mut first = true;
    for (j, (&(s, e), _)) in spans
        .iter()
        .zip(duplicate)
        .enumerate()
        .filter(|(_, (_, &d))| !d)
    {
        if !first {
            out.push_str(&text[spans[j - 1].1..s]);
        }
        first = false;
        out.push_str(&text[s..e]);
    }
    out.push_str(&text[spans[spans.len() - 1].1..]);
    (out, removed as i64, kept_words as i64, chars)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dedup(texts: &[&str], how: Split, bloom: Option<(u64, u32)>) -> Cleaned {
        let mut d = ParagraphDedup::new(how, HashVersion::V2, 2, bloom).unwrap();
        d.add(texts).unwrap()
    }

    #[test]
    fn splits_on_blank_lines_or_lines() {
        let text = "  a b\nc\n\n \t\r\nd\r\n\ne";
        let parts =
            |how| -> Vec<&str> { split(text, how).iter().map(|&(s, e)| &text[s..e]).collect() };
        assert_eq!(parts(Split::Paragraph), ["  a b\nc", "d", "e"]);
        assert_eq!(parts(Split::Line), ["  a b", "c", "d", "e"]);
        assert!(split("\n \n", Split::Paragraph).is_empty());
    }

    #[test]
    fn removes_later_repeats_keeping_separators() {
        let texts = [
            "Intro one.\n\nShared footer here.",
            "Other start.\n\nshared   FOOTER here!\n\nEnd.",
            "Shared footer here.",
            "***\n\n***\n\nIntro one.",
        ];
        let out = dedup(&texts, Split::Paragraph, None);
        assert_eq!(
            out.texts,
            [
                "Intro one.\n\nShared footer here.",
                "Other start.\n\nEnd.",
                "",
                "***\n\n***"
            ]
        );
        assert_eq!(out.removed, [0, 1, 1, 1]);
        assert_eq!(out.units, [2, 3, 1, 3]);
        assert_eq!(out.words, [5, 3, 0, 0]);
        assert_eq!(out.spans, [1, 14, 35, 2, 0, 19, 3, 10, 20]);
    }

    #[test]
    fn spans_count_characters_and_match_sha256_normalized() {
        let out = dedup(&["é x\n\ny z", "ü\n\ny z"], Split::Paragraph, None);
        assert_eq!(out.spans, [1, 3, 6]);
        let key = unit_key(&mut Words::new(HashVersion::V2), "Y  Z!")
            .0
            .unwrap();
        let want = crate::exact::sha256_digests(&["y z"], true, HashVersion::V2, 1).unwrap();
        assert_eq!(key.to_vec(), want);
    }

    #[test]
    fn decisions_given_clean_the_same_way() {
        let texts = ["a b\n\nc d\n\ne", "x"];
        let (units, counts) = unit_texts(&texts, Split::Paragraph).unwrap();
        assert_eq!((units, counts), (vec!["a b", "c d", "e", "x"], vec![3, 1]));
        let out = clean_with(
            &texts,
            Split::Paragraph,
            HashVersion::V2,
            2,
            &[false, true, false, true],
        )
        .unwrap();
        assert_eq!(out.texts, ["a b\n\ne", ""]);
        assert_eq!(out.spans, [0, 5, 8, 1, 0, 1]);
        assert!(clean_with(&texts, Split::Paragraph, HashVersion::V2, 1, &[true]).is_err());
    }

    #[test]
    fn batches_share_the_table() {
        let mut d = ParagraphDedup::new(Split::Line, HashVersion::V2, 1, None).unwrap();
        assert_eq!(d.add(&["a\nb"]).unwrap().removed, [0]);
        let second = d.add(&["b\nc\na"]).unwrap();
        assert_eq!(second.texts, ["c"]);
        assert_eq!((d.units, d.removed), (5, 2));
    }

    #[test]
    fn bloom_agrees_without_collisions_and_states_its_rate() {
        let texts = ["a\n\nb", "b\n\nc\n\na"];
        let out = dedup(&texts, Split::Paragraph, Some((1 << 20, 7)));
        assert_eq!(out.texts, ["a\n\nb", "c"]);
        let mut bloom = Bloom::new(1 << 12, 4).unwrap();
        for i in 0..400u64 {
            bloom.check_insert([mix64(i), mix64(i + 1_000_000)]);
        }
        let want = (1.0 - (-4.0f64 * bloom.inserted() as f64 / 4096.0).exp()).powi(4);
        assert!((bloom.false_positive_rate() - want).abs() < 1e-12);
        assert!(Bloom::new(8, 3).is_err() && Bloom::new(64, 0).is_err());
    }
}
