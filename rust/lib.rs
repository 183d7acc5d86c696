//! neardup's core: the stages of near-duplicate detection, one module each.
//!
//! text → [`normalize`] ([`tokens`] for hash version 2) → [`shingle`] (64-bit hashes, [`hashing`]) → [`minhash`] signatures or
//! [`simhash`] fingerprints → [`lsh`] candidate pairs → verification ([`jaccard`], MinHash
//! estimate, Hamming) → [`cluster`] labels. [`exact`] groups byte-identical documents.
//! `bindings` (feature `python`) only converts arguments and releases the GIL.

pub mod batch;
pub mod cluster;
pub mod error;
pub mod exact;
pub mod hashing;
pub mod jaccard;
pub mod lookup;
pub mod lsh;
pub mod minhash;
pub mod normalize;
pub mod parallel;

pub mod shingle;
pub mod simhash;
pub mod tokens;

#[cfg(test)]
mod golden;

#[cfg(feature = "python")]
mod bindings;
