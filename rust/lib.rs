//! neardup's core: the stages of near-duplicate detection, one module each, declared below in
//! the order the data flows through them. A stage with parts is a folder (`foo/mod.rs` and its
//! children); a child (a kernel, a hash version's variant) uses only what its parent gives it.
//!
//! text (rows joined into [`units`] first where the user asks) → [`normalize`] (hash version 2: [`normalize::tokens`] on NFKC_Casefold text,
//! [`normalize::casefold`]) → [`shingle`] (64-bit hashes, [`hashing`]; [`wordhash`] hashes ASCII
//! words in batches) → [`boilerplate`] (shingles in too many documents dropped) → [`minhash`]
//! signatures ([`minhash::v2`]: hash version 2's family) or [`simhash`] fingerprints, for a
//! whole collection by [`signing`] → [`lsh`] candidate pairs → verification ([`verify`]:
//! MinHash estimate, exact [`jaccard`], Hamming; [`hamming`] finds the SimHash pairs within a
//! radius by multi-index hashing) → [`duplicates`] (all verified pairs) or [`spanning`] (a
//! spanning forest of the clusters) → [`cluster`] labels → [`keep`] (the kept document of each
//! cluster) → [`report`] (the reported pairs); [`partitions`] salts signatures so that one LSH
//! run stays within each partition. [`exact`] groups byte-identical documents and
//! [`first_seen`] finds each document's first exact duplicate across batches, which
//! [`collapse`] does for a whole pass, keeping what the later stages need of unique documents;
//! past the memory budget, the sign pass writes the unique documents' sets to a [`spill`]
//! file that exact verification reads them back from; [`sign_pass`] is that pass, batch
//! by batch, for every method (shingling, the run's [`boilerplate`] shingles stripped,
//! signing; the SHA-256 methods' [`exact`] digests; collapse; the sets held or spilled);
//! [`near`] is the near-pair stage
//! (for MinHash the candidate search, all pairs or a spanning forest, verification on the sets
//! held or read back from the spill, at once or in chunks; exact Jaccard and SimHash per
//! partition); [`jaccard::all_pairs`] is the brute-force search.
//! Beside the flow: [`offsets`] maps shingles back to source characters (explain), [`lookup`]
//! queries a persistent index, [`jsonl`] reads JSONL text fields for the command line,
//! [`paragraphs`] removes repeated paragraphs across a corpus. [`error`] is the one error type,
//! [`parallel`] the thread pool, [`progress`] what a long call has done, [`rows`] what the pair
//! stages share.
//! [`run`] is one run as one object: the plan's options read once, the sign pass fed batch by
//! batch, the method resolved for the unique documents, and the near stage's inputs.
//! `bindings` (feature `python`) only converts arguments and releases the GIL.

// What every stage uses.
pub mod cpu;
pub mod error;
pub mod hashing;
pub mod parallel;
pub mod progress;
pub mod rows;

// Rows joined into units, then text to sets: normalise, shingle.
pub mod units;
pub mod normalize;
pub mod wordhash;
pub mod shingle;
pub mod boilerplate;

// Sets to signatures and fingerprints, for one document and for a collection.
pub mod minhash;
pub mod simhash;
pub mod signing;

// Exact copies.
pub mod exact;
pub mod first_seen;
pub mod collapse;

// The unique documents' sets on disk, for exact verification past the memory budget.
pub mod spill;
pub mod sign_pass;

// Candidates, verification, the pairs and clusters kept.
pub mod lsh;
pub mod hamming;
pub mod jaccard;
pub mod partitions;
pub mod verify;
pub mod duplicates;
pub mod spanning;
pub mod near;
pub mod cluster;
pub mod keep;
pub mod report;

// The whole run: the plan read once, the sign pass, then what the near stage reads.
pub mod run;

// Beside the flow.
pub mod offsets;
pub mod lookup;
pub mod matches;
pub mod jsonl;
pub mod paragraphs;

#[cfg(test)]
mod golden;

#[cfg(feature = "python")]
mod bindings;
