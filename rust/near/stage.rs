//! The near stage of a run as one call, from what the sign pass left of the unique documents
//! to their cluster labels: a MinHash run's banding decided ([`decide_banding`]), its
//! signatures salted by partition, the one dispatch on method (exact Jaccard, MinHash + LSH,
//! SimHash), chance pairs across partitions dropped, and the clusters.
//!
//! Every executor that runs a whole corpus at once (the API, the CLI, the index's build) comes
//! through here; the Ray engine runs the same pieces per partition and decides its banding with
//! the same [`decide_banding`].

use super::{minhash_pairs, MinHashNear, SearchCounts, SetSource, SimHashNear, Verified};
use crate::cluster::labels_over_groups;
use crate::error::{Error, Result};
use crate::hamming::{self, SearchPlan};
use crate::lsh::choose::{self, Banding, Corpus};
use crate::lsh::{collision_probability, sample::banding_sample};
use crate::progress;
use crate::rows::Rows;

/// Which near pairs the run looks for (the plan's method, resolved for the unique documents).
pub enum Search {
    /// The SHA-256 methods: exact copies only.
    Copies,
    ExactJaccard {
        threshold: f64,
    },
    /// `given`: the user gave the banding (`near.bands`, `near.rows`), kept as it is; else
    /// those are the plan's, refined by [`decide_banding`] from a sample of the signatures.
    MinHash {
        near: MinHashNear,
        given: bool,
    },
    /// `exact`: the candidates are verified by exact Jaccard on the sets (else the estimate).
    SimHash {
        near: SimHashNear,
        exact: bool,
    },
}

/// The unique documents' signatures: MinHash (row-major, `width` slots a row; salted in place
/// when partitioned), SimHash fingerprints (`width` words a row), or none.
pub enum Signatures<'a> {
    None,
    MinHash { slots: &'a mut [u32], width: usize },
    SimHash { words: &'a [u64], width: usize },
}

/// What the sign pass left: every document's `first` exact copy, the unique documents'
/// increasing positions `selected`, their set `digests` (uint64 pairs) and `set_sizes`, the
/// shingles it read (`shingled`), the signatures, the sets (held or spilled; None: neither)
/// and one partition key per unique document (None: one partition).
pub struct Unique<'a> {
    pub first: &'a [i64],
    pub selected: &'a [i64],
    pub digests: &'a [u64],
    pub set_sizes: &'a [i64],
    pub shingled: u64,
    pub signatures: Signatures<'a>,
    pub sets: Option<SetSource<'a>>,
    pub partitions: Option<&'a [u64]>,
}

/// The near stage's outcome: cluster `labels` (every document's, the lowest position of its
/// cluster), the verified pairs among the unique documents, and what was decided and counted.
pub struct Stage {
    pub labels: Vec<i64>,
    pub verified: Verified,
    pub candidates: u64,
    /// MinHash: the banding used.
    pub banding: Option<Banding>,
    /// MinHash: what the candidate search counted (None when it stopped for spanning pairs).
    pub search: Option<SearchCounts>,
    /// MinHash: whether a spanning forest was searched instead of all pairs.
    pub spanning: bool,
    pub passes: Vec<&'static str>,
    /// Verified pairs across two partitions (a chance collision of salted keys), dropped.
    pub cross_partition_dropped: u64,
}

/// A uniform sample of a run's distinct sets for [`decide_banding`]: their signatures
/// (row-major, `width` slots), shingle counts (None: unknown) and the number `n` of distinct
/// sets they were drawn from, against the sign pass's work (documents, shingles).
#[derive(Clone, Copy, Debug)]
pub struct BandingSample<'a> {
    pub signatures: &'a [u32],
    pub width: usize,
    pub sizes: Option<&'a [f64]>,
    pub n: u64,
    pub sign_pass: Option<(u64, u64)>,
}

/// What a MinHash run's banding is decided from: the plan's threshold, (`bands`, `rows`)
/// (`given` by the user, else the plan's default), verification, bucket limit and slots.
#[derive(Clone, Copy, Debug)]
pub struct BandingPlan {
    pub threshold: f64,
    pub bands: usize,
    pub rows: usize,
    pub given: bool,
    pub exact: bool,
    pub bucket_limit: Option<usize>,
    pub num_perm: usize,
}

impl BandingPlan {
    fn of(near: &MinHashNear, given: bool, num_perm: usize) -> Self {
        BandingPlan {
            threshold: near.threshold,
            bands: near.bands,
            rows: near.rows,
            given,
            exact: near.exact,
            bucket_limit: near.bucket_limit,
            num_perm,
        }
    }
}

/// The banding of a MinHash run, the one decision every executor makes: the plan's when the
/// user gave it or without a `sample`, else the one [`choose::choose`] picks for the
/// threshold, the verification and the bucket limit, at the [`choose::DEFAULT_RECALL`]
/// target, with the sample's cost model when verification is exact.
pub fn decide_banding(plan: BandingPlan, sample: Option<BandingSample<'_>>) -> Result<Banding> {
    let p = plan;
    let Some(sample) = sample.filter(|_| !p.given) else {
        return Ok(Banding {
            bands: p.bands,
            rows: p.rows,
            expected_recall: collision_probability(p.threshold, p.bands, p.rows),
            predicted_candidates: None,
            reason: if p.given { "given" } else { "plan" }.to_owned(),
        });
    };
    let corpus = p.exact.then_some(Corpus {
        signatures: sample.signatures,
        width: sample.width,
        positions: None,
        sizes: sample.sizes,
        sign_pass: sample.sign_pass,
        n: Some(sample.n),
    });
    let recall = choose::DEFAULT_RECALL;
    choose::choose(
        p.threshold,
        p.num_perm,
        p.exact,
        recall,
        p.bucket_limit,
        corpus,
    )
}

/// The rows of the largest partition (the lowest key among equals), every row without
/// partitions: what a SimHash search plan is predicted on.
fn largest_partition(partitions: Option<&[u64]>, m: usize) -> Option<Vec<usize>> {
    let keys = partitions?;
    let mut sorted = keys.to_vec();
    sorted.sort_unstable();
    let (mut best, mut best_count, mut at) = (0u64, 0usize, 0usize);
    while at < sorted.len() {
        let run = sorted[at..]
            .iter()
            .take_while(|&&k| k == sorted[at])
            .count();
        if run > best_count {
            (best, best_count) = (sorted[at], run);
        }
        at += run;
    }
    Some((0..m).filter(|&row| keys[row] == best).collect())
}

/// The search plan of a SimHash run's largest partition (None for other methods or fewer than
/// two documents): reported, and warned about before the search when it is costly.
pub fn simhash_plan(unique: &Unique<'_>, search: &Search) -> Result<Option<SearchPlan>> {
    let (Search::SimHash { near, .. }, Signatures::SimHash { words, width }) =
        (search, &unique.signatures)
    else {
        return Ok(None);
    };
    let all = Rows::new(words, *width);
    if all.len() < 2 {
        return Ok(None);
    }
    let gathered;
    let fingerprints = match largest_partition(unique.partitions, all.len()) {
        None => *words,
        Some(rows) => {
            gathered = rows
                .iter()
                .flat_map(|&r| all.row(r))
                .copied()
                .collect::<Vec<u64>>();
            &gathered
        }
    };
    let active = vec![true; fingerprints.len() / width.max(&1)];
    hamming::plan(
        fingerprints,
        *width,
        near.max_distance,
        &active,
        near.threads,
    )
    .map(Some)
}

/// The near stage of a run (see the module's documentation).
pub fn near_stage(unique: Unique<'_>, search: &Search) -> Result<Stage> {
    let m = unique.selected.len();
    let mut stage = Stage {
        labels: Vec::new(),
        verified: Verified::none(),
        candidates: 0,
        banding: None,
        search: None,
        spanning: false,
        passes: Vec::new(),
        cross_partition_dropped: 0,
    };
    let sets = unique.sets;
    let rows = match &unique.signatures {
        Signatures::None => m,
        Signatures::MinHash { slots, width } => slots.len() / (*width).max(1),
        Signatures::SimHash { words, width } => words.len() / (*width).max(1),
    };
    if rows != m {
        return Err(Error::new(format!(
            "{rows} signature rows for {m} unique documents: one row each"
        )));
    }
    match (search, unique.signatures) {
        (Search::Copies, _) => {}
        (Search::ExactJaccard { threshold }, _) => {
            let Some(SetSource::Held(view)) = sets else {
                return Err(Error::new("exact Jaccard needs every set held"));
            };
            if m >= 2 {
                progress::begin("exact Jaccard", "docs");
                let found = super::exact_jaccard_pairs(view, *threshold, unique.partitions)?;
                progress::advance(m as u64);
                stage.candidates = found
                    .sizes
                    .iter()
                    .map(|&s| s * s.saturating_sub(1) / 2)
                    .sum();
                stage.verified = Verified::held((found.pairs, found.values));
            }
        }
        (Search::MinHash { near, given }, Signatures::MinHash { slots, width }) => {
            if let Some(keys) = unique.partitions {
                crate::partitions::salt_signatures(slots, width, keys)?;
            }
            // the sample is drawn only where the cost model reads it (exact verification)
            let (sample, sizes) = if *given || !near.exact {
                (Vec::new(), Vec::new())
            } else {
                let size = choose::SAMPLE_SIZE;
                let sizes = Some(unique.set_sizes);
                let (_, sample, sizes) = banding_sample(unique.digests, slots, width, size, sizes)?;
                (sample, sizes.iter().map(|&s| s as f64).collect())
            };
            let sample = BandingSample {
                signatures: &sample,
                width,
                sizes: Some(&sizes),
                n: m as u64,
                sign_pass: Some((unique.first.len() as u64, unique.shingled)),
            };
            let chosen = decide_banding(BandingPlan::of(near, *given, width), Some(sample))?;
            let near = MinHashNear {
                bands: chosen.bands,
                rows: chosen.rows,
                ..*near
            };
            stage.banding = Some(chosen);
            if m >= 2 {
                let found = minhash_pairs(slots, width, &near, sets)?;
                stage.candidates = found.candidates;
                stage.search = found.search;
                stage.spanning = found.spanning;
                stage.passes = found.passes;
                stage.verified = found.verified;
            }
        }
        (Search::SimHash { near, exact }, Signatures::SimHash { words, width }) => {
            // The radius is counted in the plan's bits: fingerprints of another width would
            // be searched with a radius meant for another similarity.
            if near.bits != width * 64 {
                return Err(Error::new(format!(
                    "fingerprints of {width} 64-bit words are not the plan's simhash_bits={}",
                    near.bits
                )));
            }
            if *exact && sets.is_none() {
                return Err(Error::new(
                    "exact verification needs the sets held or spilled",
                ));
            }
            if m >= 2 {
                let sets = if *exact { sets } else { None };
                let (found, candidates) =
                    super::simhash_pairs(words, width, near, unique.partitions, sets)?;
                stage.candidates = candidates;
                stage.verified = found;
            }
        }
        _ => return Err(Error::new("the signatures are not those of the method")),
    }
    if let Some(keys) = unique.partitions {
        stage.cross_partition_dropped = stage.verified.keep_within(keys);
    }
    let pairs: Vec<(i64, i64)> = stage
        .verified
        .pairs
        .iter()
        .map(|&(a, b)| (a as i64, b as i64))
        .collect();
    progress::begin("cluster", "docs");
    stage.labels = labels_over_groups(unique.first, unique.selected, &pairs)?;
    progress::advance(stage.labels.len() as u64);
    Ok(stage)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::near::PairsMode;
    use crate::shingle::SetsView;

    fn minhash(bands: usize, rows: usize) -> MinHashNear {
        MinHashNear {
            bands,
            rows,
            threshold: 0.5,
            bucket_limit: None,
            pairs: PairsMode::All,
            spanning_limit: 1000,
            exact: false,
            screen: false,
            threads: 1,
            verify_budget: 1000,
        }
    }

    /// Three unique documents (positions 0, 2, 3; 1 copies 0) with `slots` as signatures.
    fn run(slots: &mut [u32], partitions: Option<&[u64]>, search: &Search) -> Stage {
        let unique = Unique {
            first: &[0, 0, 2, 3],
            selected: &[0, 2, 3],
            digests: &[1, 1, 2, 2, 3, 3],
            set_sizes: &[4, 4, 4],
            shingled: 16,
            signatures: Signatures::MinHash { slots, width: 8 },
            sets: None,
            partitions,
        };
        near_stage(unique, search).unwrap()
    }

    /// Checks that the near stage over two unique documents with `signatures` and `sets`
    /// is refused with an error saying `why`.
    fn assert_refused(
        signatures: Signatures<'_>,
        sets: Option<SetSource<'_>>,
        search: &Search,
        why: &str,
    ) {
        let unique = Unique {
            first: &[0, 1],
            selected: &[0, 1],
            digests: &[1, 1, 2, 2],
            set_sizes: &[2, 2],
            shingled: 4,
            signatures,
            sets,
            partitions: None,
        };
        match near_stage(unique, search) {
            Ok(_) => panic!("the stage ran where it should say {why:?}"),
            Err(error) => assert!(error.to_string().contains(why), "{error}"),
        }
    }

    fn rows(slots: &mut [u32], width: usize) -> Signatures<'_> {
        Signatures::MinHash { slots, width }
    }

    #[test]
    fn arrays_that_do_not_fit_the_search_are_refused() {
        let minhash_search = Search::MinHash {
            near: minhash(4, 2),
            given: true,
        };
        let exact = Search::MinHash {
            near: MinHashNear {
                exact: true,
                ..minhash(4, 2)
            },
            given: true,
        };
        let simhash_search = Search::SimHash {
            near: SimHashNear {
                max_distance: 3,
                bits: 128,
                threshold: 0.9,
                threads: 1,
                verify_budget: 1000,
            },
            exact: false,
        };
        let (mut slots, words) = (vec![0u32; 16], vec![0u64; 2]);
        let fingerprints = || Signatures::SimHash {
            words: &words,
            width: 1,
        };
        assert_refused(
            fingerprints(),
            None,
            &minhash_search,
            "not those of the method",
        );
        assert_refused(fingerprints(), None, &simhash_search, "simhash_bits=128");
        let why = "4 signature rows for 2 unique documents";
        assert_refused(rows(&mut slots, 4), None, &minhash_search, why);
        let why = "needs the sets held or spilled";
        assert_refused(rows(&mut slots, 8), None, &exact, why);
        let jaccard = Search::ExactJaccard { threshold: 0.5 };
        assert_refused(Signatures::None, None, &jaccard, "needs every set held");
        let (offsets, hashes) = ([0i64, 2], [1u64, 2]);
        let one_set = Some(SetSource::Held(SetsView::new(&offsets, &hashes).unwrap()));
        let why = "the held sets are 1 for 2 documents";
        assert_refused(rows(&mut slots, 8), one_set, &exact, why);
    }

    #[test]
    fn minhash_pairs_become_clusters_and_partitions_keep_theirs_apart() {
        let search = Search::MinHash {
            near: minhash(4, 2),
            given: true,
        };
        let same: Vec<u32> = (0..24).map(|i| i % 8).collect();
        let stage = run(&mut same.clone(), None, &search);
        assert_eq!(stage.verified.pairs, vec![(0, 1), (0, 2), (1, 2)]);
        assert_eq!(stage.labels, vec![0, 0, 0, 0]);
        let banding = stage.banding.unwrap();
        assert_eq!(
            (banding.bands, banding.rows, banding.reason.as_str()),
            (4, 2, "given")
        );
        // the second unique document alone in its partition: salted apart from the others
        let stage = run(&mut same.clone(), Some(&[7, 9, 7]), &search);
        assert_eq!(stage.verified.pairs, vec![(0, 2)]);
        assert_eq!(stage.labels, vec![0, 0, 2, 0]);
        assert_eq!(stage.cross_partition_dropped, 0);
    }

    #[test]
    fn a_banding_not_given_is_chosen_by_the_rule_of_the_verification() {
        let search = Search::MinHash {
            near: minhash(1, 1),
            given: false,
        };
        let mut slots: Vec<u32> = (0..24).collect();
        let stage = run(&mut slots, None, &search);
        let banding = stage.banding.unwrap();
        let classic = choose::choose(0.5, 8, false, choose::DEFAULT_RECALL, None, None).unwrap();
        assert_eq!(banding, classic);
        assert!(stage.verified.pairs.is_empty());
        assert_eq!(stage.labels, vec![0, 0, 2, 3]);
        // without a sample the plan's banding stays, named as such
        let planned = decide_banding(BandingPlan::of(&minhash(3, 2), false, 8), None).unwrap();
        assert_eq!(
            (planned.bands, planned.rows, planned.reason.as_str()),
            (3, 2, "plan")
        );
    }

    #[test]
    fn exact_jaccard_searches_each_partition_alone() {
        let offsets = [0i64, 3, 6, 9];
        let hashes = [1u64, 2, 3, 1, 2, 3, 1, 2, 3];
        let search = Search::ExactJaccard { threshold: 0.5 };
        let unique = |partitions| Unique {
            first: &[0, 1, 2],
            selected: &[0, 1, 2],
            digests: &[0; 6],
            set_sizes: &[3, 3, 3],
            shingled: 9,
            signatures: Signatures::None,
            sets: Some(SetSource::Held(SetsView::new(&offsets, &hashes).unwrap())),
            partitions,
        };
        let all = near_stage(unique(None), &search).unwrap();
        assert_eq!((all.verified.pairs.len(), all.candidates), (3, 3));
        let apart = near_stage(unique(Some(&[5, 6, 5])), &search).unwrap();
        assert_eq!(
            (apart.verified.pairs.clone(), apart.candidates),
            (vec![(0, 2)], 1)
        );
        assert_eq!(apart.labels, vec![0, 1, 0]);
    }

    #[test]
    fn the_largest_partition_is_the_lowest_key_among_equals() {
        assert_eq!(largest_partition(None, 3), None);
        assert_eq!(
            largest_partition(Some(&[9, 4, 9, 4, 1]), 5),
            Some(vec![1, 3])
        );
        assert_eq!(largest_partition(Some(&[]), 0), Some(vec![]));
    }

    #[test]
    fn pairs_across_partitions_are_dropped_and_counted() {
        let mut found = Verified::held((vec![(0, 1), (0, 2), (1, 2)], vec![0.9, 0.8, 0.7]));
        assert_eq!(found.keep_within(&[3, 4, 3]), 2);
        assert_eq!((found.pairs, found.similarity), (vec![(0, 2)], vec![0.8]));
    }
}
