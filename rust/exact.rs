//! Exact duplicates: documents with the same SHA-256 digest (of the raw UTF-8 bytes, or of the
//! normalised text). The cheap pre-filter in front of the near-duplicate search.

use crate::hashing::HashVersion;
use crate::normalize::Words;
use sha2::{Digest, Sha256};
use std::collections::HashMap;

/// Group label of every document: the lowest index whose digest is the same.
pub fn exact_duplicates(texts: &[&str], normalized: bool, version: HashVersion) -> Vec<i64> {
    let mut first_seen: HashMap<[u8; 32], i64> = HashMap::with_capacity(texts.len());
    let mut words = Words::new(version);
    texts
        .iter()
        .enumerate()
        .map(|(i, text)| {
            let digest: [u8; 32] = if normalized {
                words.fill(text);
                Sha256::digest(words.text.as_bytes()).into()
            } else {
                Sha256::digest(text.as_bytes()).into()
            };
            *first_seen.entry(digest).or_insert(i as i64)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_and_normalised_grouping() {
        let texts = ["Hello world", "hello   WORLD!", "Hello world", "other"];
        assert_eq!(
            exact_duplicates(&texts, false, HashVersion::V2),
            vec![0, 1, 0, 3]
        );
        assert_eq!(
            exact_duplicates(&texts, true, HashVersion::V2),
            vec![0, 0, 0, 3]
        );
    }
}
