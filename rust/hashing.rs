//! The hash functions every stage builds on. They are part of the on-disk format: a user who
//! stores signatures needs the same bits from every release on every platform, so nothing here
//! may change without a new `HASH_VERSION` (golden-vector tests guard it).

use xxhash_rust::xxh3::xxh3_64_with_seed;

/// Bumped whenever any hash below would produce different bits.
pub const HASH_VERSION: u32 = 1;

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
    fn xxh3_matches_published_reference() {
        // XXH3-64 of the empty input with seed 0 (xxHash's own test vector).
        assert_eq!(shingle_hash(b""), 0x2D06_8005_38D3_94C2);
    }
}
