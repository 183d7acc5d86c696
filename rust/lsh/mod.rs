//! LSH banding over MinHash signatures.
//!
//! A signature of P slots is cut into b bands of r consecutive slots (b·r ≤ P; slots past b·r are
//! unused). Band t of a document hashes to the key XXH3-64(little-endian bytes of its r slots,
//! seed = t). Two documents whose keys agree in at least one band are a candidate pair; with
//! Jaccard s they become one with probability 1 - (1 - s^r)^b. The curve's usual landmark is
//! S* = (1/b)^(1/r), where that probability is 1 - (1 - 1/b)^b ≈ 1 - 1/e ≈ 0.63 (the exact
//! one-half point lies a little lower; `half_point` gives it).
//!
//! One file per step: [`banding`] (the S-curve, argument checks), [`keys`] (band keys),
//! [`groups`] (a band's buckets, large ones split unless dense), [`bucket`] (one gathered bucket split the same way), [`bound`] (a bound on a
//! banding's candidate pairs from its groups), [`candidates`] (groups → sorted candidate pairs), `components` (the buckets' connected
//! components, for verification in chunks), with [`copies`] (identical signatures
//! collapsed), [`pair_buffer`] (sorted, de-duplicated pair codes) and [`radix`] (their sort).
//! The choice of a banding: [`sample`] (the bottom-k banding sample of distinct sets) and
//! [`choose`] (the recall-first search and the cost model over that sample).

pub mod banding;
pub mod bound;
pub mod bucket;
pub mod candidates;
pub mod choose;
mod components;
pub(crate) mod copies;
pub mod groups;
pub mod keys;
mod pair_buffer;
pub mod radix;
pub mod sample;

pub use banding::{
    check_banding, check_threshold, collision_probabilities, collision_probability, half_point,
    params, s_star, screen_min_equal, SCREEN_MISS,
};
pub use bound::bucket_pairs_bound;
pub use candidates::{candidate_pairs, candidates, rows_in_candidates, Candidates};
pub use choose::{choose, recall_bandings, recall_params, Banding, Corpus, CostModel};
pub use components::{bucket_components, Components};
pub(crate) use copies::IdenticalRows;
pub(crate) use groups::Grouper;
pub use groups::{BucketRule, SplitCost};
pub use keys::{band_keys, band_keys_on, non_empty_rows, sorted_band};
pub use radix::radix_sort;
pub use sample::{banding_sample, sample_keys};
