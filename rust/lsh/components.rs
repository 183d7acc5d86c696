//! The connected components of the LSH bucket graph, without listing candidate pairs: what
//! exact verification in chunks needs to cut the documents into whole components. The same
//! pass counts the bucket pairs ([`super::bound`]), so a run that needs both groups once.

use super::banding::check_banding;
use super::bound::BandPairs;
use super::copies::IdenticalRows;
use super::groups::{BucketRule, Grouper};
use super::keys::non_empty_rows;
use crate::cluster::UnionFind;
use crate::error::Result;
use crate::parallel::{check_threads, share_tasks};
use crate::rows::Rows;

/// The bucket graph's components, with what the same pass counted.
#[derive(Debug, Clone, PartialEq)]
pub struct Components {
    /// Per document: the lowest document of its component.
    pub labels: Vec<i64>,
    /// Per document: whether it appears in some candidate pair.
    pub wanted: Vec<bool>,
    /// The bucket pairs of every band: [`super::bucket_pairs_bound`]'s count, not stopped at
    /// a limit (so above a limit exactly when that bound is).
    pub bucket_pairs: u64,
}

/// The [`Components`] of the graph linking the documents of each group ([`Grouper`] under
/// `rule`, the groups [`super::candidates`] pairs up) and every copy of a signature with its
/// first. Empty signatures are in no group. On `threads` threads each takes the next band not
/// yet taken into a union-find of its own; the union of their partitions, and the count, are
/// the same whatever the thread count.
pub fn bucket_components(
    signatures: &[u32],
    num_perm: usize,
    bands: usize,
    rows: usize,
    rule: BucketRule,
    threads: usize,
) -> Result<Components> {
    check_banding(bands, rows, num_perm)?;
    check_threads(threads)?;
    let active = non_empty_rows(signatures, num_perm);
    let n = active.len();
    let all: Vec<u32> = (0..n as u32).filter(|&i| active[i as usize]).collect();
    let copies = IdenticalRows::find(signatures, num_perm, &all, threads)?;
    let counter = BandPairs::new(n, &copies, bands, u64::MAX);
    let ids = &copies.representatives;
    let signature_rows = Rows::new(signatures, num_perm);
    let parts = share_tasks(
        bands,
        threads,
        || {
            let sets = UnionFind::new(n);
            let grouper = Grouper::new(signature_rows, rows, ids, rule, false);
            (sets, vec![false; n], grouper)
        },
        |(sets, found, grouper), band| {
            let Ok(sets) = sets else { return };
            let mut pairs = counter.band_start();
            grouper.band(band, &mut |group| {
                pairs = pairs.saturating_add(counter.of(group));
                for pair in group.windows(2) {
                    sets.union(pair[0], pair[1]);
                }
                for &i in group {
                    found[i as usize] = true;
                }
            });
            counter.record(band, pairs);
        },
        |(sets, found, _)| sets.map(|sets| (sets, found)),
    )?;
    let mut all = UnionFind::new(n)?;
    let mut wanted = vec![false; n];
    for part in parts {
        let (mut sets, found) = part?;
        for i in 0..n as u32 {
            let root = sets.find(i);
            if root != i {
                all.union(i, root);
            }
        }
        wanted.iter_mut().zip(found).for_each(|(a, b)| *a |= b);
    }
    for &(rep, copy) in &copies.members {
        all.union(rep, copy);
        wanted[rep as usize] = true;
        wanted[copy as usize] = true;
    }
    Ok(Components {
        labels: all.labels()?,
        wanted,
        bucket_pairs: counter.total(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_are_those_of_the_candidate_pairs() {
        // Slots from a small alphabet: large buckets, chains across bands.
        let (n, num_perm, bands, rows) = (600, 12, 6, 2);
        let sigs: Vec<u32> = (0..n * num_perm)
            .map(|x| (crate::hashing::mix64(x as u64 * 7 + 1) % 9) as u32)
            .collect();
        let pairs = super::super::candidates(
            &sigs,
            num_perm,
            bands,
            rows,
            BucketRule::WHOLE,
            None,
            1,
            None,
        )
        .unwrap()
        .pairs;
        let edges: Vec<(i64, i64)> = pairs.iter().map(|&(a, b)| (a as i64, b as i64)).collect();
        let want_labels = crate::cluster::clusters(&edges, n).unwrap();
        let want_rows =
            super::super::rows_in_candidates(&sigs, num_perm, bands, rows, BucketRule::WHOLE, 1)
                .unwrap();
        let want_count = super::super::bucket_pairs_bound(
            &sigs,
            num_perm,
            bands,
            rows,
            BucketRule::WHOLE,
            u64::MAX,
            1,
        )
        .unwrap();
        assert!(want_count >= pairs.len() as u64);
        for threads in [1, 2, 3] {
            let got = bucket_components(&sigs, num_perm, bands, rows, BucketRule::WHOLE, threads)
                .unwrap();
            assert_eq!(got.labels, want_labels, "threads={threads}");
            assert_eq!(got.wanted, want_rows, "threads={threads}");
            assert_eq!(got.bucket_pairs, want_count, "threads={threads}");
        }
    }
}
