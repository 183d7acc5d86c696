//! MinHash + LSH duplicates: candidate pairs from banding, each verified once against the
//! threshold by the MinHash estimate or by exact Jaccard.

use crate::error::{Error, Result};
use crate::lsh;
use crate::minhash;
use crate::parallel;
use crate::rows::{Rows, ScoredPairs};
use crate::shingle::SetsView;
use crate::verify::exact_pairs_at_least;

/// How LSH candidates are verified.
#[derive(Debug, Clone, Copy)]
pub enum Verify<'a> {
    /// Share of equal signature slots.
    Estimate,
    /// Exact Jaccard of the shingle sets.
    Exact(SetsView<'a>),
}

/// Checks the threshold and that exact verification has a set for every signature; returns
/// the number of documents.
pub(crate) fn check_verification(
    signatures: &[u32],
    num_perm: usize,
    threshold: f64,
    verify: Verify<'_>,
) -> Result<usize> {
    lsh::check_threshold(threshold)?;
    let n = Rows::new(signatures, num_perm).len();
    match verify {
        Verify::Exact(sets) if sets.len() != n => Err(Error::new(format!(
            "shingle sets hold {} documents but signatures {n}",
            sets.len()
        ))),
        _ => Ok(n),
    }
}

/// LSH candidates verified against `threshold`: the pairs i < j (sorted) that reach it and their
/// similarity. Documents whose signature is the empty set's take no part; large buckets are
/// split as `rule` says. The candidates, and their estimates, are found on `threads` threads
/// (the same pairs whatever their number); exact verification is [`exact_pairs_at_least`]'s,
/// after the screen of [`lsh::screen_min_equal`].
#[allow(clippy::too_many_arguments)] // the search's inputs, each needed
pub fn lsh_duplicates(
    signatures: &[u32],
    num_perm: usize,
    bands: usize,
    rows: usize,
    threshold: f64,
    verify: Verify<'_>,
    rule: lsh::BucketRule,
    threads: usize,
) -> Result<ScoredPairs> {
    lsh::check_banding(bands, rows, num_perm)?;
    check_verification(signatures, num_perm, threshold, verify)?;
    let active = lsh::non_empty_rows(signatures, num_perm);
    let screen = match verify {
        Verify::Exact(_) => Some(lsh::screen_min_equal(num_perm, threshold, lsh::SCREEN_MISS)),
        Verify::Estimate => None,
    };
    let candidates = lsh::candidate_pairs(
        signatures, num_perm, bands, rows, &active, rule, screen, threads, None,
    )?
    .pairs;
    let signature_rows = Rows::new(signatures, num_perm);
    let row = |i: u32| signature_rows.row(i as usize);
    // Candidates are sorted by (i, j), so the output is too.
    match verify {
        // Both rows are active (not the empty set's signature), where `minhash::estimate` is
        // the share of equal slots. Consecutive ranges of candidates, kept in order.
        Verify::Estimate => {
            let ranges = parallel::split(candidates.len(), threads * 4);
            let parts = parallel::map_tasks(ranges.len(), threads, |part| {
                candidates[ranges[part].clone()]
                    .iter()
                    .map(|&(i, j)| ((i, j), minhash::equal_share(row(i), row(j))))
                    .filter(|&(_, similarity)| similarity as f64 >= threshold)
                    .collect::<Vec<_>>()
            })?;
            Ok(parts.into_iter().flatten().unzip())
        }
        Verify::Exact(sets) => exact_pairs_at_least(sets, &candidates, threshold, threads),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shingle::ShingleSets;

    use crate::minhash::Algorithm;
    use crate::shingle::Unit;
    use crate::signing::minhash_sets;

    #[test]
    fn lsh_duplicates_verifies_exactly() {
        let texts = [
            "one two three four five six",
            "one two three four five seven",
            "zzz",
            "",
        ];
        let sets =
            ShingleSets::build(&texts, 2, Unit::Word, crate::hashing::HashVersion::V2).unwrap();
        let view = SetsView::new(&sets.offsets, &sets.hashes).unwrap();
        let sigs = minhash_sets(
            view,
            64,
            0,
            1,
            Algorithm::Classic,
            crate::hashing::HashVersion::V2,
        )
        .unwrap();
        let (pairs, sims) = lsh_duplicates(
            &sigs,
            64,
            32,
            2,
            0.5,
            Verify::Exact(view),
            lsh::BucketRule::WHOLE,
            1,
        )
        .unwrap();
        assert_eq!(pairs, vec![(0, 1)]);
        assert_eq!(sims, vec![4.0 / 6.0]);
    }

    #[test]
    fn signatures_without_columns_are_an_error() {
        assert!(lsh_duplicates(
            &[],
            0,
            1,
            1,
            0.5,
            Verify::Estimate,
            lsh::BucketRule::WHOLE,
            1
        )
        .is_err());
    }
}
