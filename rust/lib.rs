//! neardup's core: the stages of near-duplicate detection, one module each.
//!
//! text → [`normalize`] ([`tokens`] for hash version 2) → [`shingle`] (64-bit hashes, [`hashing`]) → [`minhash`] signatures ([`minhash32`]: hash version 2's family) or
//! [`simhash`] fingerprints, for a whole collection by [`signing`] → [`lsh`] candidate pairs →
//! verification ([`verify`]: MinHash estimate, exact [`jaccard`], Hamming; [`hamming`] finds
//! the SimHash pairs within a radius by multi-index hashing) → [`duplicates`]
//! (all verified pairs) or [`spanning`] (a spanning forest of the clusters) → [`cluster`]
//! labels. [`exact`] groups byte-identical documents; [`jaccard::all_pairs`] is the brute-force
//! search. [`jsonl`] reads JSONL text fields for the command line. [`paragraphs`] removes repeated paragraphs across a corpus. [`rows`] holds what the pair stages share, [`error`] the one error type.
//! `bindings` (feature `python`) only converts arguments and releases the GIL.

pub mod casefold;
pub mod cluster;
pub mod duplicates;
pub mod error;
pub mod exact;
pub mod first_seen;
pub mod hamming;
pub mod hashing;
pub mod jaccard;
pub mod jsonl;
pub mod lookup;
pub mod lsh;
pub mod matches;
pub mod minhash;
pub mod minhash32;
#[cfg(target_arch = "x86_64")]
mod minhash_avx2;
pub mod normalize;
pub mod offsets;
pub mod paragraphs;
pub mod parallel;
pub mod rows;
pub mod signing;
pub mod spanning;
pub mod verify;

pub mod shingle;
pub mod simhash;
pub mod tokens;
pub mod wordhash;

#[cfg(test)]
mod golden;

#[cfg(feature = "python")]
mod bindings;
