//! Exact duplicates: documents with the same SHA-256 digest (of the raw UTF-8 bytes, or of the
//! normalised text). The cheap pre-filter in front of the near-duplicate search.

use crate::error::{reserve, Result};
use crate::hashing::HashVersion;
use crate::normalize::Words;
use crate::parallel::map_blocks;
use sha2::{Digest, Sha256};
use std::collections::HashMap;

/// The SHA-256 of every document (of the normalised text when `normalized`), computed on
/// `threads` threads, in document order.
fn digests(
    texts: &[&str],
    normalized: bool,
    version: HashVersion,
    threads: usize,
) -> Result<Vec<[u8; 32]>> {
    let blocks = map_blocks(texts.len(), threads, |block| {
        let mut words = Words::new(version);
        texts[block]
            .iter()
            .map(|text| {
                if normalized {
                    words.fill(text);
                    Sha256::digest(words.text.as_bytes()).into()
                } else {
                    Sha256::digest(text.as_bytes()).into()
                }
            })
            .collect::<Vec<[u8; 32]>>()
    })?;
    let mut out = Vec::new();
    reserve(&mut out, texts.len(), "the digests")?;
    blocks.into_iter().for_each(|block| out.extend(block));
    Ok(out)
}

/// The first 128 bits of each document's SHA-256 as two u64 words per document (each the
/// native-endian reading of 8 digest bytes, as numpy views the bytes), on `threads` threads:
/// the exact-duplicate key of the SHA-256 methods.
pub fn sha256_digests(
    texts: &[&str],
    normalized: bool,
    version: HashVersion,
    threads: usize,
) -> Result<Vec<u64>> {
    let digests = digests(texts, normalized, version, threads)?;
    let mut out = Vec::new();
    reserve(&mut out, 2 * digests.len(), "the digests")?;
    for digest in &digests {
        for lane in digest[..16].chunks_exact(8) {
            out.push(u64::from_ne_bytes(lane.try_into().expect("8 bytes")));
        }
    }
    Ok(out)
}

/// Group label of every document: the lowest index whose digest is the same (the digests
/// computed on `threads` threads, the labels the same for every count).
pub fn exact_duplicates(
    texts: &[&str],
    normalized: bool,
    version: HashVersion,
    threads: usize,
) -> Result<Vec<i64>> {
    let digests = digests(texts, normalized, version, threads)?;
    let mut first_seen: HashMap<[u8; 32], i64> = HashMap::with_capacity(texts.len());
    Ok(digests
        .into_iter()
        .enumerate()
        .map(|(i, digest)| *first_seen.entry(digest).or_insert(i as i64))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_and_normalised_grouping() {
        let texts = ["Hello world", "hello   WORLD!", "Hello world", "other"];
        for threads in [1, 2] {
            assert_eq!(
                exact_duplicates(&texts, false, HashVersion::V2, threads).unwrap(),
                vec![0, 1, 0, 3]
            );
            assert_eq!(
                exact_duplicates(&texts, true, HashVersion::V2, threads).unwrap(),
                vec![0, 0, 0, 3]
            );
        }
    }

    #[test]
    fn digests_are_the_first_half_of_sha256_for_every_thread_count() {
        let owned: Vec<String> = (0..1601)
            .map(|i| format!("Doc {} of many", i % 700))
            .collect();
        let texts: Vec<&str> = owned.iter().map(String::as_str).collect();
        let one = sha256_digests(&texts, true, HashVersion::V2, 1).unwrap();
        let full: [u8; 32] = Sha256::digest(b"doc 5 of many").into();
        assert_eq!(one[10], u64::from_ne_bytes(full[..8].try_into().unwrap()));
        assert_eq!(one[11], u64::from_ne_bytes(full[8..16].try_into().unwrap()));
        for threads in [2, 3] {
            let many = sha256_digests(&texts, true, HashVersion::V2, threads).unwrap();
            assert_eq!(many, one);
        }
    }
}
