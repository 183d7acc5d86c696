//! Spanning clusters: the clusters of verified LSH candidates found without visiting every pair
//! of a large bucket (a bucket of m copies costs m - 1 verifications, not m(m - 1)/2).

use crate::duplicates::{check_verification, Verify};
use crate::error::Result;
use crate::jaccard::jaccard_u64;
use crate::lsh;
use crate::minhash;
use crate::parallel;
use crate::rows::{Rows, ScoredPairs};

/// Clusters of LSH candidates that reach `threshold`, without visiting every pair of a large
/// bucket: the edges (i < j, sorted) that joined two clusters, a spanning forest of the result.
///
/// Within a bucket a document is verified only against the bucket's *leaders* (members that
/// joined no earlier leader), and not at all against a leader it is already clustered with, so
/// a bucket of m identical documents costs m - 1 verifications instead of m(m - 1)/2. A document
/// similar only to a non-leader of every bucket it shares may stay apart: clusters can be finer
/// than the components of the all-pairs graph, never coarser.
///
/// On `threads` threads the band keys are computed, and the bands bucketed (sorted) `threads`
/// at a time, in parallel, the next bands while the buckets of the last are visited; the
/// buckets are visited in band order on one thread, as on one thread (the leaders depend on
/// the clusters so far), so the edges are the same.
#[allow(clippy::too_many_arguments)] // the search's inputs, each needed
pub fn lsh_cluster_edges(
    signatures: &[u32],
    num_perm: usize,
    bands: usize,
    rows: usize,
    threshold: f64,
    verify: Verify<'_>,
    rule: lsh::BucketRule,
    threads: usize,
) -> Result<ScoredPairs> {
    let n = check_verification(signatures, num_perm, threshold, verify)?;
    lsh::check_banding(bands, rows, num_perm)?;
    parallel::check_threads(threads)?;
    let active = lsh::non_empty_rows(signatures, num_perm);
    let all: Vec<u32> = (0..n as u32).filter(|&i| active[i as usize]).collect();
    let copies = lsh::IdenticalRows::find(signatures, num_perm, &all, threads)?;
    let ids = &copies.representatives;
    let signature_rows = Rows::new(signatures, num_perm);
    let row = |i: u32| signature_rows.row(i as usize);
    let similarity = |i: u32, j: u32| match verify {
        Verify::Estimate => minhash::estimate(row(i), row(j)) as f64,
        Verify::Exact(sets) => jaccard_u64(sets.get(i as usize), sets.get(j as usize)),
    };
    // Each representative's copies, so a group of representatives is visited with them.
    let mut copy_start = vec![0usize; n + 1];
    for &(rep, _) in &copies.members {
        copy_start[rep as usize + 1] += 1;
    }
    for i in 0..n {
        copy_start[i + 1] += copy_start[i];
    }
    let copies_of = |r: u32| &copies.members[copy_start[r as usize]..copy_start[r as usize + 1]];
    // The groups of bands first.. (at most `threads` of them), found in parallel: one list of
    // members (representatives with their copies, ascending) and the end of each group.
    let wave = |first: usize| {
        let width = threads.min(bands.saturating_sub(first));
        parallel::map_tasks(width, threads, |k| {
            let mut grouper = lsh::Grouper::new(signature_rows, rows, ids, rule, false);
            let (mut members, mut ends) = (Vec::new(), Vec::new());
            grouper.band(first + k, &mut |group| {
                let start = members.len();
                for &r in group {
                    members.push(r);
                    members.extend(copies_of(r).iter().map(|&(_, c)| c));
                }
                members[start..].sort_unstable();
                ends.push(members.len());
            });
            (members, ends)
        })
    };
    let mut forest = Forest {
        sets: crate::cluster::UnionFind::new(n)?,
        edges: Vec::new(),
        leaders: Vec::new(),
    };
    // Copies first: each representative with its copies is one group.
    for &r in ids {
        if !copies_of(r).is_empty() {
            let mut group = vec![r];
            group.extend(copies_of(r).iter().map(|&(_, c)| c));
            group.sort_unstable();
            forest.visit(&group, &similarity, threshold);
        }
    }
    let mut waves = wave(0)?;
    let mut first = 0;
    while !waves.is_empty() {
        first += waves.len();
        let visit = || {
            for (members, ends) in &waves {
                let mut start = 0;
                for &end in ends {
                    forest.visit(&members[start..end], &similarity, threshold);
                    start = end;
                }
            }
        };
        let ((), next) = parallel::join(threads, visit, || wave(first))?;
        waves = next?;
    }
    let mut edges = forest.edges;
    edges.sort_unstable_by_key(|&(i, j, _)| (i, j));
    Ok(edges.into_iter().map(|(i, j, s)| ((i, j), s)).unzip())
}

/// The clusters so far, the edges that joined them, and a bucket's leaders (scratch).
struct Forest {
    sets: crate::cluster::UnionFind,
    edges: Vec<(u32, u32, f32)>,
    leaders: Vec<u32>,
}

impl Forest {
    /// Visits one group (ascending): each member against the group's leaders.
    fn visit(&mut self, group: &[u32], similarity: &impl Fn(u32, u32) -> f64, threshold: f64) {
        self.leaders.clear();
        for &x in group {
            let mut joined = false;
            for &leader in &self.leaders {
                if self.sets.find(leader) == self.sets.find(x) {
                    joined = true;
                    continue;
                }
                let s = similarity(leader, x);
                if s >= threshold {
                    self.sets.union(leader, x);
                    self.edges.push((leader.min(x), leader.max(x), s as f32));
                    joined = true;
                }
            }
            if !joined {
                self.leaders.push(x);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shingle::ShingleSets;

    use crate::minhash::Algorithm;
    use crate::shingle::{SetsView, Unit};
    use crate::signing::minhash_sets;

    #[test]
    fn cluster_edges_stay_linear_in_a_bucket_of_identical_documents() {
        let mut texts = vec!["the same words in the same order every time"; 2000];
        texts.push("something else entirely, nothing shared with the rest");
        let sets =
            ShingleSets::build(&texts, 3, Unit::Word, crate::hashing::HashVersion::V2).unwrap();
        let view = SetsView::new(&sets.offsets, &sets.hashes).unwrap();
        let sigs = minhash_sets(
            view,
            16,
            0,
            1,
            Algorithm::Classic,
            crate::hashing::HashVersion::V2,
        )
        .unwrap();
        let (edges, sims) = lsh_cluster_edges(
            &sigs,
            16,
            4,
            4,
            0.5,
            Verify::Exact(view),
            lsh::BucketRule::WHOLE,
            1,
        )
        .unwrap();
        for threads in [2, 3] {
            let again = lsh_cluster_edges(
                &sigs,
                16,
                4,
                4,
                0.5,
                Verify::Exact(view),
                lsh::BucketRule::WHOLE,
                threads,
            );
            assert_eq!(again.unwrap(), (edges.clone(), sims.clone()));
        }
        // One edge per joined document: a spanning tree of the 2,000 copies, nothing more.
        assert_eq!(edges.len(), 1999);
        assert!(sims.iter().all(|&s| s == 1.0));
        let pairs: Vec<(i64, i64)> = edges.iter().map(|&(i, j)| (i as i64, j as i64)).collect();
        let labels = crate::cluster::clusters(&pairs, texts.len()).unwrap();
        assert!(labels[..2000].iter().all(|&l| l == 0));
        assert_eq!(labels[2000], 2000);
    }
}
