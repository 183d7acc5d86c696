//! Candidate pairs: documents that share a bucket in some band, each pair once, sorted.

use super::banding::check_banding;
use super::bound::BandPairs;
use super::copies::IdenticalRows;
use super::groups::{BucketRule, Grouper, SplitCost};
use super::keys::non_empty_rows;
use super::pair_buffer::{PairBuffer, FLUSH_PAIRS};
use crate::error::{reserve, Result};
use crate::parallel::{self, check_threads, map_tasks, share_tasks};
use crate::rows::Rows;

/// What a candidate search returns besides the pairs.
#[derive(Debug, Clone)]
pub struct Candidates {
    /// Every candidate pair i < j, once, sorted.
    pub pairs: Vec<(u32, u32)>,
    /// Pairs that met in a bucket but were dropped by the screen (too few equal slots).
    pub screened: u64,
    /// Buckets split by the [`BucketRule`] (every part split again counts).
    pub splits: u64,
    /// Mean chance that a pair exactly at the rule's threshold is a candidate, over the
    /// active documents: P(T) of the banding, lowered where buckets were split.
    pub expected_recall: f64,
    /// With a pair limit: the bucket pairs counted ([`super::bucket_pairs_bound`]'s total), and
    /// whether they passed the limit, in which case the search stopped and `pairs` is empty.
    pub bucket_pairs: Option<(u64, bool)>,
}

/// Every candidate pair i < j of the active rows, once, sorted by (i, j), on `threads` threads
/// (the same pairs whatever their number).
///
/// Band by band the active documents are grouped by [`Grouper`]: buckets of band keys, a
/// bucket larger than `rule.limit` kept whole only when dense, else split by more slots. Every
/// pair of a group goes into a buffer of `FLUSH_PAIRS` codes (or as many as the result already
/// holds, if more) which, when full and at the end, is radix-sorted, de-duplicated and merged
/// into the sorted result: a pair that collides in many bands costs one 8-byte entry per
/// collision and no look-up in any other band, and memory stays within a small multiple of
/// the result. `screen` (a number of slots): pairs whose signatures agree on fewer slots are
/// dropped after the merge (each distinct pair compared once; see `banding::screen_min_equal`
/// for the bound that makes this safe for exact verification).
///
/// On several threads each thread takes the next band not yet taken into a sorted set of its
/// own, and the sets are merged (in parallel, by ranges of codes): the union of sorted,
/// distinct sets does not depend on which thread took which band. A pair colliding in bands of several
/// threads is held once per thread until the merge.
///
/// `pair_limit`: the bucket pairs are counted as [`super::bucket_pairs_bound`] counts them,
/// and once they pass the limit the search stops with no pairs (the same decision as the
/// bound's, without a pass of its own: a caller that switches to another way of finding pairs
/// past a limit asks the search itself).
#[allow(clippy::too_many_arguments)] // the search's inputs, each needed
pub fn candidate_pairs(
    signatures: &[u32],
    num_perm: usize,
    bands: usize,
    rows: usize,
    active: &[bool],
    rule: BucketRule,
    screen: Option<usize>,
    threads: usize,
    pair_limit: Option<u64>,
) -> Result<Candidates> {
    check_banding(bands, rows, num_perm)?;
    check_threads(threads)?;
    let all: Vec<u32> = (0..active.len())
        .filter(|&i| active[i])
        .map(|i| i as u32)
        .collect();
    // Documents with identical signatures share every band: only the first of each such group
    // goes through banding, and its pairs are expanded to the group's at the end, so a group of
    // m copies costs O(m) before the output instead of one bucket of m in every band.
    let copies = IdenticalRows::find(signatures, num_perm, &all, threads)?;
    let ids = &copies.representatives;
    let counter = pair_limit.map(|limit| BandPairs::new(active.len(), &copies, bands, limit));
    let signature_rows = Rows::new(signatures, num_perm);
    // A pair is coded i·2^id_bits + j: 2·id_bits significant bits, the fewest radix passes.
    let id_bits = (usize::BITS - active.len().leading_zeros()) as usize;
    let found = share_tasks(
        bands,
        threads,
        || {
            let grouper = Grouper::new(signature_rows, rows, ids, rule, true);
            let pending = PairBuffer::new(2 * id_bits, (ids.len() * 4).min(FLUSH_PAIRS));
            (grouper, pending)
        },
        |(grouper, pending), band| {
            if counter.as_ref().is_some_and(BandPairs::passed) {
                return;
            }
            let mut band_pairs = counter.as_ref().map_or(0, BandPairs::band_start);
            grouper.band(band, &mut |group| {
                if let Some(counter) = &counter {
                    band_pairs = band_pairs.saturating_add(counter.of(group));
                }
                for (k, &a) in group.iter().enumerate() {
                    for &b in &group[k + 1..] {
                        pending.push(((a as u64) << id_bits) | b as u64);
                    }
                }
            });
            if let Some(counter) = &counter {
                counter.record(band, band_pairs);
            }
        },
        |(grouper, pending)| (grouper.cost, pending.finish()),
    )?;
    let mut cost = SplitCost::new(active.len());
    let mut lists = Vec::with_capacity(found.len());
    for (part_cost, list) in found {
        if let Some(part_cost) = part_cost {
            cost.add(&part_cost);
        }
        lists.push(list?);
    }
    let bucket_pairs = counter.map(|c| (c.total(), c.passed()));
    if let Some((_, true)) = bucket_pairs {
        return Ok(Candidates {
            pairs: Vec::new(),
            screened: 0,
            splits: cost.splits,
            expected_recall: f64::NAN,
            bucket_pairs,
        });
    }
    let mut pairs = merge_distinct(lists, threads)?;
    let low = (1u64 << id_bits) - 1;
    let decode = |c: u64| ((c >> id_bits) as u32, (c & low) as u32);
    let mut screened = 0u64;
    if let Some(min_equal) = screen {
        let before = pairs.len();
        let ranges = parallel::split(pairs.len(), threads * 4);
        let kept = map_tasks(ranges.len(), threads, |part| {
            Ok(pairs[ranges[part].clone()]
                .iter()
                .copied()
                .filter(|&c| {
                    let (a, b) = decode(c);
                    crate::minhash::equal_slots(
                        signature_rows.row(a as usize),
                        signature_rows.row(b as usize),
                    ) as usize
                        >= min_equal
                })
                .collect::<Vec<u64>>())
        })?;
        pairs = Vec::new();
        reserve(
            &mut pairs,
            kept.iter().map(|k| k.as_ref().map_or(0, Vec::len)).sum(),
            "the candidate pairs",
        )?;
        for part in kept {
            pairs.extend_from_slice(&part?);
        }
        screened = (before - pairs.len()) as u64;
    }
    let weights = ids.iter().map(|&r| {
        let start = copies.members.partition_point(|&(rep, _)| rep < r);
        let end = copies.members.partition_point(|&(rep, _)| rep <= r);
        (r, 1 + (end - start) as u64)
    });
    let expected_recall = cost.expected_recall(weights, bands, rows, rule.threshold);
    let result = |pairs: Vec<(u32, u32)>| Candidates {
        pairs,
        screened,
        splits: cost.splits,
        expected_recall,
        bucket_pairs,
    };
    if copies.members.is_empty() {
        return decoded(pairs, decode).map(result);
    }
    // Expand: a pair of representatives stands for every pair across their groups, and every
    // group is a clique.
    let group = |r: u32| {
        let start = copies.members.partition_point(|&(rep, _)| rep < r);
        let end = copies.members.partition_point(|&(rep, _)| rep <= r);
        std::iter::once(r).chain(copies.members[start..end].iter().map(|&(_, x)| x))
    };
    let mut expanded = PairBuffer::new(2 * id_bits, FLUSH_PAIRS);
    let code = |x: u32, y: u32| ((x.min(y) as u64) << id_bits) | x.max(y) as u64;
    for (a, b) in pairs.into_iter().map(decode) {
        for x in group(a) {
            for y in group(b) {
                expanded.push(code(x, y));
            }
        }
    }
    let mut start = 0;
    while start < copies.members.len() {
        let rep = copies.members[start].0;
        let end = start
            + copies.members[start..]
                .iter()
                .take_while(|&&(r, _)| r == rep)
                .count();
        let clique: Vec<u32> = group(rep).collect();
        for (k, &x) in clique.iter().enumerate() {
            for &y in &clique[k + 1..] {
                expanded.push(code(x, y));
            }
        }
        start = end;
    }
    decoded(expanded.finish()?, decode).map(result)
}

/// The union of sorted, distinct code lists, sorted and distinct: merged range by range of
/// codes on `threads` threads (the ranges are cut at codes of the longest list, so the result
/// is the same whatever the thread count).
fn merge_distinct(mut lists: Vec<Vec<u64>>, threads: usize) -> Result<Vec<u64>> {
    lists.retain(|list| !list.is_empty());
    if lists.len() <= 1 {
        return Ok(lists.pop().unwrap_or_default());
    }
    let longest = lists
        .iter()
        .max_by_key(|list| list.len())
        .map_or(&[][..], |l| l);
    let parts = (threads * 4).min(longest.len());
    // The codes below cuts[p] go to ranges before p.
    let cuts: Vec<u64> = (1..parts)
        .map(|p| longest[longest.len() * p / parts])
        .collect();
    let bounds: Vec<Vec<usize>> = lists
        .iter()
        .map(|list| {
            let mut at = vec![0];
            at.extend(cuts.iter().map(|&cut| list.partition_point(|&c| c < cut)));
            at.push(list.len());
            at
        })
        .collect();
    let merged = map_tasks(parts, threads, |p| {
        let size = bounds.iter().map(|b| b[p + 1] - b[p]).sum();
        let mut part = Vec::new();
        reserve(&mut part, size, "the candidate pairs")?;
        for (list, b) in lists.iter().zip(&bounds) {
            part.extend_from_slice(&list[b[p]..b[p + 1]]);
        }
        // Sorted runs, one per list: the stable sort merges them.
        part.sort();
        part.dedup();
        Ok(part)
    })?;
    drop(lists);
    let mut out = Vec::new();
    let mut total = 0;
    for part in &merged {
        total += part.as_ref().map_or(0, |p: &Vec<u64>| p.len());
    }
    reserve(&mut out, total, "the candidate pairs")?;
    for part in merged {
        out.extend_from_slice(&part?);
    }
    Ok(out)
}

/// The pairs of `codes`, decoded, in a vector allocated fallibly.
fn decoded(codes: Vec<u64>, decode: impl Fn(u64) -> (u32, u32)) -> Result<Vec<(u32, u32)>> {
    let mut pairs = Vec::new();
    reserve(&mut pairs, codes.len(), "the candidate pairs")?;
    pairs.extend(codes.into_iter().map(decode));
    Ok(pairs)
}

/// Which rows share a group (a bucket, or a part of a split one: [`Grouper`]) with another
/// active row in some band, or have a copy (an identical signature): the rows that appear in
/// some candidate pair before the screen, found without listing the pairs (a group of m rows
/// costs m, not m(m - 1)/2). On `threads` threads each takes the next band not yet taken; the
/// rows found are the union, the same whatever the thread count.
pub fn rows_in_candidates(
    signatures: &[u32],
    num_perm: usize,
    bands: usize,
    rows: usize,
    rule: BucketRule,
    threads: usize,
) -> Result<Vec<bool>> {
    check_banding(bands, rows, num_perm)?;
    check_threads(threads)?;
    let active = non_empty_rows(signatures, num_perm);
    let n = active.len();
    let all: Vec<u32> = (0..n as u32).filter(|&i| active[i as usize]).collect();
    let copies = IdenticalRows::find(signatures, num_perm, &all, threads)?;
    let ids = &copies.representatives;
    let signature_rows = Rows::new(signatures, num_perm);
    let found = share_tasks(
        bands,
        threads,
        || {
            (
                Grouper::new(signature_rows, rows, ids, rule, false),
                vec![false; n],
            )
        },
        |(grouper, found), band| {
            grouper.band(band, &mut |group| {
                for &i in group {
                    found[i as usize] = true;
                }
            })
        },
        |(_, found)| found,
    )?;
    let mut all_found = vec![false; n];
    for more in found {
        all_found.iter_mut().zip(more).for_each(|(a, b)| *a |= b);
    }
    for &(rep, copy) in &copies.members {
        all_found[rep as usize] = true;
        all_found[copy as usize] = true;
    }
    Ok(all_found)
}

/// All candidate pairs (i < j), sorted, found on `threads` threads, with what the search
/// counted ([`candidate_pairs`] over the rows that are not the empty set's signature).
#[allow(clippy::too_many_arguments)] // the search's inputs, each needed
pub fn candidates(
    signatures: &[u32],
    num_perm: usize,
    bands: usize,
    rows: usize,
    rule: BucketRule,
    screen: Option<usize>,
    threads: usize,
    pair_limit: Option<u64>,
) -> Result<Candidates> {
    check_banding(bands, rows, num_perm)?;
    let active = non_empty_rows(signatures, num_perm);
    candidate_pairs(
        signatures, num_perm, bands, rows, &active, rule, screen, threads, pair_limit,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lsh::keys::{band_keys, sorted_band};

    /// The pairs of plain LSH: every bucket whole, no screen.
    fn whole(
        sigs: &[u32],
        num_perm: usize,
        bands: usize,
        rows: usize,
        threads: usize,
    ) -> Vec<(u32, u32)> {
        candidates(
            sigs,
            num_perm,
            bands,
            rows,
            BucketRule::WHOLE,
            None,
            threads,
            None,
        )
        .unwrap()
        .pairs
    }

    /// The plain reference `candidates` is checked against: calls `visit(i, j)` once for every candidate pair i < j, in the first band where the pair
    /// collides (later collisions of the same pair are skipped by comparing earlier band keys, so no
    /// set of seen pairs is kept). Documents with `active[i] == false` take no part.
    fn for_each_candidate(
        keys: &[u64],
        bands: usize,
        active: &[bool],
        mut visit: impl FnMut(u32, u32),
    ) {
        let n = active.len();
        let mut bucket: Vec<(u64, u32)> = Vec::with_capacity(n);
        for band in 0..bands {
            sorted_band(keys, bands, band, active, &mut bucket);
            let mut start = 0;
            while start < bucket.len() {
                let key = bucket[start].0;
                let end = start + bucket[start..].iter().take_while(|e| e.0 == key).count();
                for x in start..end {
                    let i = bucket[x].1 as usize;
                    for &(_, j) in &bucket[x + 1..end] {
                        let j = j as usize;
                        let seen_before =
                            (0..band).any(|t| keys[i * bands + t] == keys[j * bands + t]);
                        if !seen_before {
                            visit(i as u32, j as u32);
                        }
                    }
                }
                start = end;
            }
        }
    }

    #[test]
    fn candidates_pair_documents_sharing_a_band_once() {
        // Doc 0 and 2 agree on band 0 and band 1; doc 1 shares nothing; doc 3 is empty.
        let sigs = [
            1,
            2,
            3,
            4,
            9,
            9,
            9,
            9,
            1,
            2,
            3,
            4,
            u32::MAX,
            u32::MAX,
            u32::MAX,
            u32::MAX,
        ];
        assert_eq!(whole(&sigs, 4, 2, 2, 1), vec![(0, 2)]);
    }

    /// `candidates` (bucketed, collapsed, radix-sorted) equals the plain band-by-band visit, and
    /// `rows_in_candidates` lists the rows of its pairs.
    fn assert_candidates_match_reference(
        sigs: &[u32],
        num_perm: usize,
        bandings: &[(usize, usize)],
    ) {
        for &(bands, rows) in bandings {
            let keys = band_keys(sigs, num_perm, bands, rows).unwrap();
            let active = non_empty_rows(sigs, num_perm);
            let mut want = Vec::new();
            for_each_candidate(&keys, bands, &active, |i, j| want.push((i, j)));
            want.sort_unstable();
            let mut in_pairs = vec![false; active.len()];
            for &(i, j) in &want {
                in_pairs[i as usize] = true;
                in_pairs[j as usize] = true;
            }
            for threads in [1, 2, 3] {
                assert_eq!(
                    whole(sigs, num_perm, bands, rows, threads),
                    want,
                    "b={bands} r={rows} threads={threads}"
                );
                assert_eq!(
                    rows_in_candidates(sigs, num_perm, bands, rows, BucketRule::WHOLE, threads)
                        .unwrap(),
                    in_pairs,
                    "b={bands} r={rows} threads={threads}"
                );
            }
        }
    }

    #[test]
    fn candidate_pairs_match_the_band_by_band_reference() {
        // Signatures with many shared bands: slots drawn from a tiny alphabet.
        let (n, num_perm) = (300, 12);
        let sigs: Vec<u32> = (0..n * num_perm)
            .map(|x| (crate::hashing::mix64(x as u64) % 3) as u32)
            .collect();
        let mut sigs = sigs;
        sigs[5 * num_perm..6 * num_perm].fill(u32::MAX); // one empty document
        assert_candidates_match_reference(&sigs, num_perm, &[(6, 2), (4, 3), (12, 1), (1, 12)]);
    }

    #[test]
    fn every_thread_count_flushes_to_the_same_pairs() {
        // 1,501 documents, no two with the same signature, half of them in one bucket of band
        // 0 and of band 1: about 280,000 pairs per band, more than one flush per thread, most
        // pairs found again by another thread's band.
        let (n, num_perm) = (1501, 4);
        let mut sigs = Vec::with_capacity(n * num_perm);
        for i in 0..n as u64 {
            sigs.push((crate::hashing::mix64(i) % 2) as u32);
            sigs.push((crate::hashing::mix64(i + 7) % 2) as u32);
            sigs.extend([i as u32, (i as u32) ^ 0x5555]);
        }
        assert_candidates_match_reference(&sigs, num_perm, &[(4, 1), (2, 2)]);
    }

    #[test]
    fn giant_buckets_flush_and_merge() {
        // 1,500 identical documents and 500 distinct ones: C(1500, 2) = 1,124,250 pairs per band,
        // more than one buffer; the second band repeats them all.
        let num_perm = 2;
        let mut sigs = vec![7u32; 2000 * num_perm];
        for i in 1500..2000 {
            sigs[i * num_perm] = i as u32;
            sigs[i * num_perm + 1] = i as u32;
        }
        let pairs = whole(&sigs, num_perm, 2, 1, 1);
        assert_eq!(whole(&sigs, num_perm, 2, 1, 2), pairs);
        assert_eq!(pairs.len(), 1500 * 1499 / 2);
        assert!(pairs.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(pairs[0], (0, 1));
        assert_eq!(*pairs.last().unwrap(), (1498, 1499));
    }

    #[test]
    fn a_pair_limit_stops_the_search_exactly_where_the_bound_passes_it() {
        // Small alphabet: large buckets, copies among the rows; buckets split past 8.
        let (n, num_perm, bands, rows) = (600, 8, 4, 2);
        let sigs: Vec<u32> = (0..n * num_perm)
            .map(|x| (crate::hashing::mix64(x as u64 / 3) % 7) as u32)
            .collect();
        let rule = BucketRule {
            limit: 8,
            threshold: 0.5,
        };
        let plain = candidates(&sigs, num_perm, bands, rows, rule, None, 1, None).unwrap();
        let total = crate::lsh::bucket_pairs_bound(&sigs, num_perm, bands, rows, rule, u64::MAX, 1)
            .unwrap();
        for limit in [0, 50, total / 2, total - 1, total, u64::MAX] {
            let bound =
                crate::lsh::bucket_pairs_bound(&sigs, num_perm, bands, rows, rule, limit, 1)
                    .unwrap();
            for threads in [1, 3] {
                let found = candidates(
                    &sigs,
                    num_perm,
                    bands,
                    rows,
                    rule,
                    None,
                    threads,
                    Some(limit),
                )
                .unwrap();
                let (count, passed) = found.bucket_pairs.unwrap();
                assert_eq!(passed, bound > limit, "limit={limit} threads={threads}");
                assert_eq!(count, bound, "limit={limit} threads={threads}");
                if passed {
                    assert!(found.pairs.is_empty());
                } else {
                    assert_eq!(found.pairs, plain.pairs);
                }
            }
        }
    }

    #[test]
    fn identical_signatures_are_collapsed_and_expanded_exactly() {
        // Groups of copies mixed with near copies and singles; compare with the band-by-band
        // reference, which knows nothing of copies.
        let num_perm = 6;
        let mut sigs = Vec::new();
        for i in 0..400u64 {
            let base = match i % 10 {
                0..=3 => 1000,                            // a large group of copies
                4 | 5 => 2000 + (i % 3),                  // three smaller groups
                6 => 3000 + i,                            // singles
                _ => (crate::hashing::mix64(i) % 4) + 10, // near copies sharing some bands
            };
            for p in 0..num_perm as u64 {
                let slot = if i % 10 >= 7 && p == i % 6 {
                    p as u32
                } else {
                    (base * 7 + p) as u32
                };
                sigs.push(slot);
            }
        }
        sigs[13 * num_perm..14 * num_perm].fill(u32::MAX); // an empty document among the copies
        assert_candidates_match_reference(&sigs, num_perm, &[(3, 2), (6, 1), (1, 6)]);
    }
}
