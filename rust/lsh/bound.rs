//! The bucket pairs of a banding, counted from the groups of every band ([`super::groups`])
//! without listing the pairs: an upper bound on its candidates, and the count by which
//! `pairs="auto"` switches to spanning pairs (the candidate search counts the same as it lists,
//! with [`BandPairs`]).

use super::banding::check_banding;
use super::copies::IdenticalRows;
use super::groups::{BucketRule, Grouper};
use super::keys::non_empty_rows;
use crate::error::Result;
use crate::parallel::{check_threads, share_tasks};
use crate::rows::Rows;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

/// An upper bound on the candidate pairs of a banding without listing them: the sum over
/// bands of w(w - 1)/2 for every group of w documents ([`Grouper`] under `rule`, copies of a
/// signature counted with their representative, which they follow into every bucket; with
/// every bucket whole, the sum of m(m - 1)/2 over the buckets of m documents), counted band by
/// band and stopped as soon as it passes `limit`.
///
/// On `threads` threads each takes the next band not yet taken, with its own buffers; the
/// threads stop once the bands counted so far from band 0 on, without a gap, pass `limit`,
/// and the total is added in band order up to the band where it passes: the same total
/// whatever the thread count (at most a band per thread past the stop is counted for nothing).
/// The candidate search counts the same total as it lists ([`super::candidates`] with a
/// limit), so a caller that would list the pairs anyway needs no pass of its own.
pub fn bucket_pairs_bound(
    signatures: &[u32],
    num_perm: usize,
    bands: usize,
    rows: usize,
    rule: BucketRule,
    limit: u64,
    threads: usize,
) -> Result<u64> {
    check_banding(bands, rows, num_perm)?;
    check_threads(threads)?;
    let active = non_empty_rows(signatures, num_perm);
    let all: Vec<u32> = (0..active.len() as u32)
        .filter(|&i| active[i as usize])
        .collect();
    let copies = IdenticalRows::find(signatures, num_perm, &all, threads)?;
    let counter = BandPairs::new(active.len(), &copies, bands, limit);
    let ids = &copies.representatives;
    let signature_rows = Rows::new(signatures, num_perm);
    share_tasks(
        bands,
        threads,
        || Grouper::new(signature_rows, rows, ids, rule, false),
        |grouper, band| {
            if counter.passed() {
                return;
            }
            let mut pairs = counter.band_start();
            grouper.band(band, &mut |group| {
                pairs = pairs.saturating_add(counter.of(group))
            });
            counter.record(band, pairs);
        },
        |_| (),
    )?;
    Ok(counter.total())
}

/// The bucket pairs of a banding counted band by band, as [`bucket_pairs_bound`] defines
/// them, shared by the threads that group the bands: a band's count is recorded once it is
/// grouped, and the count has passed its limit once the bands recorded from band 0 on, without
/// a gap, add up past it (the same decision whatever the thread count).
pub(super) struct BandPairs {
    /// Per row: 1, plus its copies for a representative (copies follow it into every bucket).
    weight: Vec<u64>,
    /// One bit a row: whether its weight is above 1. A group's count reads the bits (n/8
    /// bytes, in L1 at 100,000 rows) and the weights of the rows with copies alone: reading
    /// every member's weight (8n bytes, missing L2 beside the signatures' slots) was 3 % of a
    /// default run on the article corpus.
    has_copies: Vec<u64>,
    /// The pairs among copies of one signature: in every band's buckets.
    copy_pairs: u64,
    limit: u64,
    counts: Mutex<Vec<Option<u64>>>,
    passed: AtomicBool,
}

impl BandPairs {
    pub(super) fn new(n: usize, copies: &IdenticalRows, bands: usize, limit: u64) -> Self {
        let mut weight = vec![1u64; n];
        let mut has_copies = vec![0u64; n.div_ceil(64)];
        let mut copy_pairs = 0u64;
        for &(rep, _) in &copies.members {
            // the w-th member of a group pairs with the w earlier ones
            copy_pairs = copy_pairs.saturating_add(weight[rep as usize]);
            weight[rep as usize] += 1;
            has_copies[rep as usize / 64] |= 1 << (rep % 64);
        }
        BandPairs {
            weight,
            has_copies,
            copy_pairs,
            limit,
            counts: Mutex::new(vec![None; bands]),
            passed: AtomicBool::new(false),
        }
    }

    /// Where a band's count starts: the pairs among copies.
    pub(super) fn band_start(&self) -> u64 {
        self.copy_pairs
    }

    /// The pairs of one group (representatives), across their copies: pairs within one
    /// signature's copies are counted once a band by `band_start`.
    pub(super) fn of(&self, group: &[u32]) -> u64 {
        let clique = |w: u64| w * (w - 1) / 2;
        let (mut w, mut within) = (group.len() as u64, 0u64);
        for &i in group {
            if self.has_copies[i as usize / 64] & (1 << (i % 64)) != 0 {
                let weight = self.weight[i as usize];
                w += weight - 1;
                within += clique(weight);
            }
        }
        clique(w) - within
    }

    /// Records band `band`'s count.
    pub(super) fn record(&self, band: usize, pairs: u64) {
        let mut counts = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        counts[band] = Some(pairs);
        if self.in_order(&counts).1 {
            self.passed.store(true, Ordering::Relaxed);
        }
    }

    /// Whether the bands recorded from band 0 on have passed the limit.
    pub(super) fn passed(&self) -> bool {
        self.passed.load(Ordering::Relaxed)
    }

    /// The total of the bands recorded from band 0 on, up to the band where it passes the limit.
    pub(super) fn total(&self) -> u64 {
        let counts = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        self.in_order(&counts).0
    }

    fn in_order(&self, counts: &[Option<u64>]) -> (u64, bool) {
        let mut total = 0u64;
        for count in counts.iter().map_while(|c| *c) {
            total = total.saturating_add(count);
            if total > self.limit {
                return (total, true);
            }
        }
        (total, false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bound_counts_every_bucket_pair_with_copies() {
        // Rows 0..150 are copies of 30 signatures (five each); the rest from a small alphabet.
        let (n, num_perm, bands, rows) = (400usize, 6, 3, 2);
        let slot = |x: usize| (crate::hashing::mix64(x as u64) % 4) as u32;
        let sigs: Vec<u32> = (0..n)
            .flat_map(|d| {
                let source = if d < 150 { d % 30 } else { d };
                (0..num_perm).map(move |p| slot(source * num_perm + p))
            })
            .collect();
        let mut want = 0u64;
        for band in 0..bands {
            let mut buckets = std::collections::HashMap::<&[u32], u64>::new();
            for d in 0..n {
                let start = d * num_perm + band * rows;
                *buckets.entry(&sigs[start..start + rows]).or_default() += 1;
            }
            want += buckets.values().map(|m| m * (m - 1) / 2).sum::<u64>();
        }
        let whole = BucketRule::WHOLE;
        for threads in [1, 2] {
            let got = bucket_pairs_bound(&sigs, num_perm, bands, rows, whole, u64::MAX, threads);
            assert_eq!(got.unwrap(), want, "threads={threads}");
        }
    }

    #[test]
    fn bounds_do_not_depend_on_threads() {
        // 1,037 documents (not a multiple of any block), slots from a small alphabet so that
        // buckets are large.
        let (n, num_perm) = (1037, 8);
        let sigs: Vec<u32> = (0..n * num_perm)
            .map(|x| (crate::hashing::mix64(x as u64) % 5) as u32)
            .collect();
        for limit in [0, 10_000, 200_000, u64::MAX] {
            let want =
                bucket_pairs_bound(&sigs, num_perm, 8, 1, BucketRule::WHOLE, limit, 1).unwrap();
            assert!(want > limit || limit == u64::MAX);
            for threads in [2, 3] {
                let got =
                    bucket_pairs_bound(&sigs, num_perm, 8, 1, BucketRule::WHOLE, limit, threads)
                        .unwrap();
                assert_eq!(got, want, "limit={limit} threads={threads}");
            }
        }
    }
}
