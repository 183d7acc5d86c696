//! An upper bound on a banding's candidate pairs, counted from the groups of every band
//! ([`super::groups`]) without listing the pairs: what the banding choice compares with its
//! verification budget.

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
    let mut weight = vec![1u64; active.len()];
    // Copies share every bucket of their representative: each band's pairs among them.
    let mut copy_pairs = 0u64;
    for &(rep, _) in &copies.members {
        // the w-th member of a group pairs with the w earlier ones
        copy_pairs = copy_pairs.saturating_add(weight[rep as usize]);
        weight[rep as usize] += 1;
    }
    let clique = |w: u64| w * (w - 1) / 2;
    let ids = &copies.representatives;
    let signature_rows = Rows::new(signatures, num_perm);
    // counts[band] once counted; `passed` once a gapless prefix of bands passes the limit.
    let counts = Mutex::new(vec![None; bands]);
    let passed = AtomicBool::new(false);
    let in_order = |counts: &[Option<u64>]| {
        let mut total = 0u64;
        for count in counts.iter().map_while(|c| *c) {
            total = total.saturating_add(count);
            if total > limit {
                return (total, true);
            }
        }
        (total, false)
    };
    share_tasks(
        bands,
        threads,
        || Grouper::new(signature_rows, rows, ids, rule, false),
        |grouper, band| {
            if passed.load(Ordering::Relaxed) {
                return;
            }
            let mut pairs = copy_pairs;
            grouper.band(band, &mut |group| {
                let w: u64 = group.iter().map(|&i| weight[i as usize]).sum();
                let within: u64 = group.iter().map(|&i| clique(weight[i as usize])).sum();
                pairs = pairs.saturating_add(clique(w) - within);
            });
            let mut counts = counts.lock().unwrap_or_else(|p| p.into_inner());
            counts[band] = Some(pairs);
            if in_order(&counts).1 {
                passed.store(true, Ordering::Relaxed);
            }
        },
        |_| (),
    )?;
    let counts = counts.into_inner().unwrap_or_else(|p| p.into_inner());
    Ok(in_order(&counts).0)
}

#[cfg(test)]
mod tests {
    use super::*;

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
