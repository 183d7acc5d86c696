//! Verification of given pairs: MinHash estimate, exact Jaccard and Hamming distance of each
//! pair, and the pairs whose exact Jaccard reaches a threshold (how LSH candidates are checked).

use crate::cluster;
use crate::error::{filled_vec, Error, Result};
use crate::jaccard::{intersection_sizes, ratio};
use crate::lsh;
use crate::minhash;
use crate::parallel;
use crate::progress;
use crate::rows::{PairDistances, Rows, ScoredPairs};
use crate::shingle::SetsView;
use crate::simhash;

/// Checks that every pair indexes one of `n` rows.
pub fn check_pairs(pairs: &[(i64, i64)], n: usize) -> Result<()> {
    for (row, &(a, b)) in pairs.iter().enumerate() {
        if a < 0 || b < 0 || a as usize >= n || b as usize >= n {
            return Err(Error::new(format!(
                "pairs[{row}] = ({a}, {b}) is out of range for {n} documents"
            )));
        }
    }
    Ok(())
}

/// MinHash estimate (share of equal slots) of each pair.
pub fn estimate_pairs(
    signatures: &[u32],
    num_perm: usize,
    pairs: &[(i64, i64)],
) -> Result<Vec<f32>> {
    let signatures = Rows::new(signatures, num_perm);
    check_pairs(pairs, signatures.len())?;
    let row = |i: i64| signatures.row(i as usize);
    Ok(pairs
        .iter()
        .map(|&(a, b)| minhash::estimate(row(a), row(b)))
        .collect())
}

/// Exact Jaccard of each pair of shingle sets (on `threads` threads; the same whatever they).
pub fn jaccard_pairs(sets: SetsView<'_>, pairs: &[(i64, i64)], threads: usize) -> Result<Vec<f32>> {
    let pairs = checked_u32_pairs(pairs, sets.len())?;
    let mut similarities = filled_vec(pairs.len(), 0f32, "similarities")?;
    for_each_exact_similarity(sets, &pairs, threads, |k, similarity| {
        similarities[k] = similarity as f32
    })?;
    Ok(similarities)
}

/// `pairs` checked against `n` documents, as the u32 indices of the rest of the crate.
fn checked_u32_pairs(pairs: &[(i64, i64)], n: usize) -> Result<Vec<(u32, u32)>> {
    if n > u32::MAX as usize {
        return Err(Error::new(format!(
            "at most {} documents, got {n}",
            u32::MAX
        )));
    }
    check_pairs(pairs, n)?;
    Ok(pairs.iter().map(|&(a, b)| (a as u32, b as u32)).collect())
}

/// Calls `visit(k, jaccard)` with the exact Jaccard of every pair `pairs[k]` (indices <
/// `sets.len()`), in an order chosen for the memory: component by component
/// ([`cluster::component_order`]), the merges run by [`intersection_sizes`] (interleaved,
/// each prefetching a set a few pairs ahead). At 10,000 documents of the synthetic corpus the
/// order took verification from 15 ms to 11 ms, what the same merges take on sets already in
/// cache: the set of a group's member is read from memory about once instead of once per pair
/// (`cargo run --release --example verify_times -- texts.bin`).
fn for_each_exact_similarity(
    sets: SetsView<'_>,
    pairs: &[(u32, u32)],
    threads: usize,
    mut visit: impl FnMut(usize, f64),
) -> Result<()> {
    parallel::check_threads(threads)?;
    let order = cluster::component_order(pairs, sets.len())?;
    let merge = |range: std::ops::Range<usize>, out: &mut dyn FnMut(usize, f64)| {
        let steps = &order[range];
        let sets_of = |step: usize| {
            let (a, b) = pairs[steps[step] as usize];
            (sets.get(a as usize), sets.get(b as usize))
        };
        intersection_sizes(steps.len(), sets_of, |step, common| {
            let (a, b) = sets_of(step);
            out(steps[step] as usize, ratio(common, a.len(), b.len()))
        });
    };
    if threads == 1 || order.len() < 2 * MIN_PAIRS_PER_TASK {
        // in runs, so that a long verification shows its progress and stops when asked
        for start in (0..order.len()).step_by(PAIRS_PER_RUN) {
            parallel::check_interrupt()?;
            let end = (start + PAIRS_PER_RUN).min(order.len());
            merge(start..end, &mut visit);
            progress::advance((end - start) as u64);
        }
        return Ok(());
    }
    // Contiguous runs of the component order, a few per thread: each run keeps the locality
    // of its components; every pair's Jaccard is the same whichever thread merges it.
    let tasks = (order.len() / MIN_PAIRS_PER_TASK).clamp(1, threads * 4);
    let runs = parallel::split(order.len(), tasks);
    let progress = progress::current();
    let found = parallel::map_tasks(runs.len(), threads, |task| {
        let mut local = Vec::with_capacity(runs[task].len());
        merge(runs[task].clone(), &mut |k, similarity| {
            local.push((k, similarity))
        });
        if let Some(progress) = &progress {
            progress.advance(runs[task].len() as u64);
        }
        local
    })?;
    for (k, similarity) in found.into_iter().flatten() {
        visit(k, similarity);
    }
    Ok(())
}

/// Pairs one thread merges between two looks at its progress and at an interrupt.
const PAIRS_PER_RUN: usize = 1 << 18;

/// Fewest pairs a verification task merges: below twice this, one thread does them all.
const MIN_PAIRS_PER_TASK: usize = 4096;

/// The pairs whose exact Jaccard reaches `threshold`, in the order given, with their Jaccard.
pub fn jaccard_pairs_at_least(
    sets: SetsView<'_>,
    pairs: &[(i64, i64)],
    threshold: f64,
    threads: usize,
) -> Result<ScoredPairs> {
    lsh::check_threshold(threshold)?;
    let pairs = checked_u32_pairs(pairs, sets.len())?;
    exact_pairs_at_least(sets, &pairs, threshold, threads)
}

/// The pairs (indices < `sets.len()`) whose exact Jaccard reaches `threshold`, in the order
/// given, with their Jaccard: the exact verification of LSH candidates.
pub fn exact_pairs_at_least(
    sets: SetsView<'_>,
    pairs: &[(u32, u32)],
    threshold: f64,
    threads: usize,
) -> Result<ScoredPairs> {
    // Verified out of order; NaN marks the pairs below the threshold.
    let mut kept = filled_vec(pairs.len(), f32::NAN, "similarities")?;
    for_each_exact_similarity(sets, pairs, threads, |k, similarity| {
        if similarity >= threshold {
            kept[k] = similarity as f32;
        }
    })?;
    Ok(pairs
        .iter()
        .zip(kept)
        .filter(|(_, similarity)| !similarity.is_nan())
        .unzip())
}

/// Hamming distance of each pair of fingerprints `words` u64 wide.
pub fn hamming_pairs(fingerprints: &[u64], words: usize, pairs: &[(i64, i64)]) -> Result<Vec<i32>> {
    let fingerprints = Rows::new(fingerprints, words);
    check_pairs(pairs, fingerprints.len())?;
    let row = |i: i64| fingerprints.row(i as usize);
    Ok(pairs
        .iter()
        .map(|&(a, b)| simhash::hamming(row(a), row(b)) as i32)
        .collect())
}

/// Every pair i < j of fingerprints within `max_distance` bits, with the distances, sorted:
/// by multi-index hashing or brute force, whichever the cost model predicts cheaper
/// ([`crate::hamming`]), on `threads` threads (the same pairs for every count). Rows listed
/// as inactive (empty documents) take no part.
pub fn hamming_within(
    fingerprints: &[u64],
    words: usize,
    max_distance: u32,
    active: &[bool],
    threads: usize,
) -> Result<PairDistances> {
    crate::hamming::within(fingerprints, words, max_distance, active, threads)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shingle::{ShingleSets, Unit};

    #[test]
    fn exact_verification_is_the_same_on_every_thread_count() {
        // Enough pairs for several tasks a thread; groups of different sizes, so the runs of
        // the component order cut through components.
        let texts: Vec<String> = (0..1200)
            .map(|i| {
                let group = i % 37;
                (0..40)
                    .map(|w| format!("g{group}w{}", (w * 7 + i) % 50))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let sets =
            ShingleSets::build(&refs, 2, Unit::Word, crate::hashing::HashVersion::V2).unwrap();
        let view = SetsView::new(&sets.offsets, &sets.hashes).unwrap();
        let pairs: Vec<(i64, i64)> = (0..1200i64)
            .flat_map(|i| {
                (i + 1..1200)
                    .filter(move |j| (j - i) % 37 == 0)
                    .map(move |j| (i, j))
            })
            .collect();
        assert!(pairs.len() > 2 * MIN_PAIRS_PER_TASK);
        let one = jaccard_pairs(view, &pairs, 1).unwrap();
        let kept_one = jaccard_pairs_at_least(view, &pairs, 0.3, 1).unwrap();
        for threads in [2, 3, 8] {
            assert_eq!(jaccard_pairs(view, &pairs, threads).unwrap(), one);
            assert_eq!(
                jaccard_pairs_at_least(view, &pairs, 0.3, threads).unwrap(),
                kept_one
            );
        }
        assert!(jaccard_pairs(view, &pairs, 0).is_err());
    }

    #[test]
    fn exact_verification_answers_in_the_given_order() {
        // Three groups of near copies, pairs listed in an order that interleaves the groups:
        // verification visits them component by component, the answers stay in place.
        let texts: Vec<String> = (0..9)
            .map(|i| {
                let group = i % 3;
                let words: Vec<String> = (0..30).map(|w| format!("g{group}w{w}")).collect();
                format!("{} extra{i}", words.join(" "))
            })
            .collect();
        let texts: Vec<&str> = texts.iter().map(|t| t.as_str()).collect();
        let sets =
            ShingleSets::build(&texts, 2, Unit::Word, crate::hashing::HashVersion::V2).unwrap();
        let view = SetsView::new(&sets.offsets, &sets.hashes).unwrap();
        let pairs: Vec<(i64, i64)> = vec![(0, 3), (1, 4), (8, 5), (0, 6), (2, 0), (7, 1), (4, 4)];
        let got = jaccard_pairs(view, &pairs, 1).unwrap();
        let want: Vec<f32> = pairs
            .iter()
            .map(|&(a, b)| {
                crate::jaccard::jaccard(view.get(a as usize), view.get(b as usize)) as f32
            })
            .collect();
        assert_eq!(got, want);
        assert!(want[0] > 0.8 && want[4] == 0.0 && want[6] == 1.0);
        let (kept, similarity) = jaccard_pairs_at_least(view, &pairs, 0.5, 1).unwrap();
        assert_eq!(kept, vec![(0, 3), (1, 4), (8, 5), (0, 6), (7, 1), (4, 4)]);
        assert_eq!(similarity.len(), kept.len());
        assert!(jaccard_pairs_at_least(view, &pairs, 0.0, 1).is_err());
    }

    #[test]
    fn pairs_out_of_range_are_errors() {
        assert!(estimate_pairs(&[0; 8], 4, &[(0, 2)]).is_err());
        assert!(hamming_pairs(&[0; 2], 1, &[(1, -1)]).is_err());
    }

    #[test]
    fn unsorted_or_repeated_sets_are_refused_naming_the_document() {
        use crate::error::Error;
        let offsets = [0i64, 2, 4, 6];
        for (hashes, bad) in [([1u64, 2, 3, 4, 6, 5], 2), ([1, 2, 4, 4, 5, 6], 1)] {
            match SetsView::new(&offsets, &hashes) {
                Err(Error::InvalidInput { document, message }) => {
                    assert_eq!(document, bad);
                    assert!(
                        message.contains(&format!("shingle set {bad} ")),
                        "{message}"
                    );
                }
                other => panic!("{other:?}"),
            }
        }
        // Equal hashes in two different sets are fine.
        assert!(SetsView::new(&offsets, &[1, 2, 2, 3, 1, 9]).is_ok());
    }
}
