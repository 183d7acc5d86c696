//! The hash functions every stage builds on. They are part of the on-disk format: a user who
//! stores signatures needs the same bits from every release on every platform, so nothing here
//! may change without a new `HASH_VERSION` (golden-vector tests guard it).

use crate::error::{Error, Result};
use xxhash_rust::xxh3::xxh3_64_with_seed;

/// The default hash version: the one new signatures get. Every older version stays computable.
pub const HASH_VERSION: u32 = 2;

/// Which definition of normalisation, shingle hashing and MinHash family to compute (README
/// "Definitions"). The MinHash family: version 1's is `minhash::MinHasher`'s (a 64-bit
/// multiply-add per slot), version 2's `minhash::v2::MinHasher32`'s (a 32-bit one).
///
/// * `V1` (0.1): words are runs of alphanumeric characters; a shingle's hash is XXH3-64 of its
///   space-joined words.
/// * `V2`: NFKC first, combining marks stay in their word, each character of a script written
///   without spaces is a token of its own, and a word shingle's hash combines the hashes of its
///   tokens ([`combine_tokens`]), so each token is hashed once instead of k times.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum HashVersion {
    V1,
    #[default]
    V2,
}

impl HashVersion {
    pub fn new(version: u32) -> Result<HashVersion> {
        match version {
            1 => Ok(HashVersion::V1),
            2 => Ok(HashVersion::V2),
            other => Err(Error::new(format!(
                "hash_version must be 1 or 2, got {other}"
            ))),
        }
    }
}

/// Multiplier of the polynomial that combines token hashes (XXH64's PRIME64_1; odd).
pub const TOKEN_BASE: u64 = 0x9E37_79B1_85EB_CA87;

/// Hash version 2's hash of a shingle from the hashes t_0..t_{n-1} of its tokens:
/// mix64(Σ t_i · TOKEN_BASE^(n-1-i) mod 2^64), the polynomial evaluated by Horner's rule.
#[inline]
pub fn combine_tokens(tokens: &[u64]) -> u64 {
    mix64(
        tokens
            .iter()
            .fold(0u64, |acc, &t| acc.wrapping_mul(TOKEN_BASE).wrapping_add(t)),
    )
}

/// Seed of the shingle hash. Fixed: shingle hashes are shared by MinHash, SimHash and Jaccard.
pub const SHINGLE_SEED: u64 = 0;

/// The 64-bit hash of one shingle: XXH3-64 of its UTF-8 bytes, seed 0.
#[inline]
pub fn shingle_hash(bytes: &[u8]) -> u64 {
    xxh3_64_with_seed(bytes, SHINGLE_SEED)
}

/// XXH3-64 with an explicit seed (band keys use the band index as seed).
#[inline]
pub fn hash_with_seed(bytes: &[u8], seed: u64) -> u64 {
    xxh3_64_with_seed(bytes, seed)
}

/// SplitMix64 (Steele, Lea, Flood 2014): the generator that expands a user seed into
/// hash-function parameters. Tiny, well known, and trivial to re-implement elsewhere.
#[derive(Debug, Clone)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        SplitMix64 { state: seed }
    }

    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix64(self.state)
    }
}

/// The SplitMix64 finaliser: a bijective 64-bit mixer.
#[inline]
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_matches_published_reference() {
        // First outputs of SplitMix64 seeded with 1234567 (from the reference C code).
        let mut g = SplitMix64::new(1234567);
        assert_eq!(g.next_u64(), 6457827717110365317);
        assert_eq!(g.next_u64(), 3203168211198807973);
    }

    #[test]
    fn combined_tokens_follow_the_documented_polynomial() {
        let (a, b, c) = (1u64, 2u64, 0xFFFF_FFFF_FFFF_FFFF);
        let want = mix64(
            a.wrapping_mul(TOKEN_BASE.wrapping_mul(TOKEN_BASE))
                .wrapping_add(b.wrapping_mul(TOKEN_BASE))
                .wrapping_add(c),
        );
        assert_eq!(combine_tokens(&[a, b, c]), want);
        assert_eq!(combine_tokens(&[a]), mix64(a));
        // Order matters.
        assert_ne!(combine_tokens(&[a, b]), combine_tokens(&[b, a]));
        assert!(HashVersion::new(3).is_err() && HashVersion::new(0).is_err());
    }

    #[test]
    fn xxh3_matches_published_reference() {
        // XXH3-64 of the empty input with seed 0 (xxHash's own test vector).
        assert_eq!(shingle_hash(b""), 0x2D06_8005_38D3_94C2);
    }
}
