//! The near-pair stage: for a MinHash run the LSH candidate search, its verification, and the
//! decisions between them, made once here for every executor that runs the whole stage; the
//! searches that run on each partition alone (exact Jaccard, SimHash) in [`within`].
//!
//! - `pairs` auto: every verified pair while the LSH buckets hold at most `spanning_limit`
//!   pairs, else a spanning forest of the clusters ([`crate::spanning`]). The count comes from
//!   the cheapest pass that can decide: the first band alone when it says the total stays well
//!   under the limit (then the search itself counts and stops past the limit), else the
//!   components pass where it is needed anyway (spilled sets), else a counting pass.
//! - Verification: the MinHash estimate, or exact Jaccard on the sets the sign pass held, or
//!   read back from its spill file ([`chunks`]): at once while the candidates' sets fit the
//!   verification budget, else one chunk of whole components at a time (the same pairs and
//!   leaders: a component's pairs never leave it).

pub mod chunks;
pub mod stage;
pub mod within;

pub use chunks::{chunk_of, in_pairs, verify_candidates, SetSource, Verified};
pub use stage::{
    decide_banding, near_stage, simhash_plan, BandingPlan, BandingSample, Search, Signatures,
    Stage, Unique,
};
pub use within::{exact_jaccard_pairs, simhash_pairs, SimHashNear};

use crate::duplicates::Verify;
use crate::error::{Error, Result};
use crate::lsh::{self, BucketRule, SCREEN_MISS};
use crate::minhash;
use crate::progress;
use crate::rows::{Rows, ScoredPairs};
use crate::shingle::SetsView;
use crate::spanning::lsh_cluster_edges;

/// Which pairs a run reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PairsMode {
    /// All, unless the buckets hold more than the spanning limit.
    Auto,
    All,
    Spanning,
}

impl PairsMode {
    pub fn parse(name: &str) -> Result<Self> {
        match name {
            "auto" => Ok(PairsMode::Auto),
            "all" => Ok(PairsMode::All),
            "spanning" => Ok(PairsMode::Spanning),
            _ => Err(Error::new(format!(
                "pairs must be 'auto', 'all' or 'spanning', got {name:?}"
            ))),
        }
    }
}

/// The plan's options for the MinHash near pairs (checked once, by the plan).
#[derive(Clone, Copy, Debug)]
pub struct MinHashNear {
    pub bands: usize,
    pub rows: usize,
    pub threshold: f64,
    pub bucket_limit: Option<usize>,
    pub pairs: PairsMode,
    pub spanning_limit: u64,
    /// Exact Jaccard (else the estimate).
    pub exact: bool,
    /// Drop candidates whose signatures agree on too few slots before exact verification
    /// (classic MinHash only: [`lsh::screen_min_equal`]'s bound holds for it).
    pub screen: bool,
    pub threads: usize,
    /// Shingles of the candidates' sets read back from the spill at once; past it, in chunks.
    pub verify_budget: u64,
}

/// What the candidate search counted.
#[derive(Clone, Copy, Debug)]
pub struct SearchCounts {
    pub screened: u64,
    pub splits: u64,
    /// The banding's P(T), lowered where buckets were split.
    pub expected_recall: f64,
}

/// The near pairs of the unique documents, with what the stage decided and counted.
pub struct NearPairs {
    pub verified: Verified,
    /// Candidates: the search's (after the screen), or the spanning pairs found.
    pub candidates: u64,
    pub spanning: bool,
    pub search: Option<SearchCounts>,
    /// The grouping passes made over the bands, in order ("first band", "bound",
    /// "components", "search", "spanning").
    pub passes: Vec<&'static str>,
}

/// The near pairs (sorted, into the rows of `signatures`) of a MinHash run, by `options`;
/// exact verification needs `sets` (held or spilled).
pub fn minhash_pairs(
    signatures: &[u32],
    num_perm: usize,
    options: &MinHashNear,
    sets: Option<SetSource<'_>>,
) -> Result<NearPairs> {
    let o = options;
    lsh::check_banding(o.bands, o.rows, num_perm)?;
    lsh::check_threshold(o.threshold)?;
    let rule = BucketRule::new(o.threshold, o.bucket_limit)?;
    if o.exact && sets.is_none() {
        return Err(Error::new(
            "exact verification needs the sets held or spilled",
        ));
    }
    if let Some(sets) = &sets {
        sets.check_documents(signatures.len() / num_perm.max(1))?;
    }
    let spilled = match sets {
        Some(SetSource::Spilled(spill)) => Some(spill),
        _ => None,
    };
    let in_chunks = o.exact && spilled.is_some();
    let (bands, rows, threads, limit) = (o.bands, o.rows, o.threads, o.spanning_limit);
    let mut passes = Vec::new();
    let mut spanning = o.pairs == PairsMode::Spanning;
    let mut pair_limit = None;
    let mut components = None;
    if o.pairs == PairsMode::Auto {
        // Listing pairs that are then thrown away costs more than counting them: the search
        // lists and counts at once only where the first band says the total stays well below
        // the limit. The decision is the count's either way.
        passes.push("first band");
        progress::begin("LSH first band", "bands");
        let first_band =
            lsh::bucket_pairs_bound(signatures, num_perm, 1, rows, rule, limit, threads)?;
        if first_band.saturating_mul(bands as u64) <= limit / 2 {
            pair_limit = Some(limit);
        } else if in_chunks {
            passes.push("components");
            progress::begin("LSH components", "bands");
            let found = lsh::bucket_components(signatures, num_perm, bands, rows, rule, threads)?;
            spanning = found.bucket_pairs > limit;
            components = Some(found);
        } else {
            passes.push("bound");
            progress::begin("LSH pair count", "bands");
            let bound =
                lsh::bucket_pairs_bound(signatures, num_perm, bands, rows, rule, limit, threads)?;
            spanning = bound > limit;
        }
    }
    let mut search = None;
    let mut candidates = Vec::new();
    if !spanning {
        passes.push("search");
        progress::begin("LSH search", "bands");
        let screen = (o.exact && o.screen)
            .then(|| lsh::screen_min_equal(num_perm, o.threshold, SCREEN_MISS));
        let found = lsh::candidates(
            signatures, num_perm, bands, rows, rule, screen, threads, pair_limit,
        )?;
        if matches!(found.bucket_pairs, Some((_, true))) {
            spanning = true; // past the limit: the search stopped
        } else {
            search = Some(SearchCounts {
                screened: found.screened,
                splits: found.splits,
                expected_recall: found.expected_recall,
            });
            candidates = found.pairs;
        }
    }
    let searched = candidates.len() as u64;
    let edges = |sets: Verify<'_>, signatures: &[u32]| {
        lsh_cluster_edges(
            signatures,
            num_perm,
            bands,
            rows,
            o.threshold,
            sets,
            rule,
            threads,
        )
    };
    let verified = if spanning {
        passes.push("spanning");
        progress::begin("LSH spanning", "bands");
        match (sets, spilled) {
            (_, Some(spill)) if o.exact => {
                let found = match components {
                    Some(found) => found,
                    None => {
                        passes.push("components");
                        progress::begin("LSH components", "bands");
                        lsh::bucket_components(signatures, num_perm, bands, rows, rule, threads)?
                    }
                };
                let sizes = spill.sizes()?;
                match chunk_of(&found.labels, &found.wanted, &sizes, o.verify_budget) {
                    None => {
                        let (offsets, hashes) = chunks::wanted_sets(spill, &found.wanted)?;
                        let (pairs, similarity) =
                            edges(Verify::Exact(SetsView::new(&offsets, &hashes)?), signatures)?;
                        Verified {
                            pairs,
                            similarity,
                            sets_read: Some((offsets, hashes)),
                            chunks: 0,
                        }
                    }
                    // each chunk's buckets alone: whole components, so the same leaders
                    Some(chunk) => {
                        let all = Rows::new(signatures, num_perm);
                        chunks::in_chunks(spill, &chunk, |members, view| {
                            edges(Verify::Exact(view), &chunks::gather(all, members)?)
                        })?
                    }
                }
            }
            (Some(SetSource::Held(view)), _) if o.exact => {
                Verified::held(edges(Verify::Exact(view), signatures)?)
            }
            _ => Verified::held(edges(Verify::Estimate, signatures)?),
        }
    } else if o.exact {
        let sets = sets.expect("checked above");
        verify_candidates(&candidates, sets, o.threshold, threads, o.verify_budget)?
    } else {
        Verified::held(estimated(signatures, num_perm, candidates, o.threshold)?)
    };
    let found = if spanning {
        verified.pairs.len() as u64
    } else {
        searched
    };
    Ok(NearPairs {
        candidates: found,
        spanning,
        search,
        passes,
        verified,
    })
}

/// The candidates whose MinHash estimate reaches `threshold`, with it.
fn estimated(
    signatures: &[u32],
    num_perm: usize,
    candidates: Vec<(u32, u32)>,
    threshold: f64,
) -> Result<ScoredPairs> {
    let all = Rows::new(signatures, num_perm);
    let n = all.len();
    if let Some(&pair) = candidates
        .iter()
        .find(|&&(a, b)| a as usize >= n || b as usize >= n)
    {
        return Err(Error::new(format!(
            "candidate {pair:?} is out of range for {n} documents"
        )));
    }
    Ok(candidates
        .into_iter()
        .map(|(a, b)| {
            (
                (a, b),
                minhash::estimate(all.row(a as usize), all.row(b as usize)),
            )
        })
        .filter(|&(_, s)| s as f64 >= threshold)
        .unzip())
}
