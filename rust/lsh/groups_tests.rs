//! Tests of `groups.rs` (a file of their own, so the module stays short).

use super::*;
use crate::lsh::bucket::split_bucket;
use crate::lsh::IdenticalRows;

/// Signatures of `n` unrelated documents whose first `shared` slots are one boilerplate
/// value for the documents in `footer` and otherwise distinct.
fn footer_corpus(n: usize, num_perm: usize, shared: usize, footer: usize) -> Vec<u32> {
    let mut sigs = Vec::with_capacity(n * num_perm);
    for i in 0..n {
        for p in 0..num_perm {
            let boiler = i < footer && p < shared;
            sigs.push(if boiler {
                7 + p as u32
            } else {
                mix64((i * num_perm + p) as u64) as u32
            });
        }
    }
    sigs
}

fn groups(
    sigs: &[u32],
    num_perm: usize,
    rows: usize,
    band: usize,
    rule: BucketRule,
) -> Vec<Vec<u32>> {
    let n = sigs.len() / num_perm;
    let ids: Vec<u32> = (0..n as u32).collect();
    let mut grouper = Grouper::new(Rows::new(sigs, num_perm), rows, &ids, rule, true);
    let mut out = Vec::new();
    grouper.band(band, &mut |g| out.push(g.to_vec()));
    out.sort();
    out
}

#[test]
fn a_whole_rule_keeps_the_boilerplate_bucket() {
    let sigs = footer_corpus(500, 16, 2, 300);
    let found = groups(&sigs, 16, 2, 0, BucketRule::WHOLE);
    assert_eq!(found, vec![(0..300).collect::<Vec<u32>>()]);
}

#[test]
fn a_boilerplate_bucket_is_split_until_small() {
    // 300 documents share band 0 (slots 0-1) and slot 2; nothing else.
    let sigs = footer_corpus(500, 16, 3, 300);
    let rule = BucketRule {
        limit: 8,
        threshold: 0.5,
    };
    let found = groups(&sigs, 16, 2, 0, rule);
    // split by slot 2 (still shared: one part of 300), then slot 3: all apart
    assert!(found.is_empty(), "{found:?}");
}

#[test]
fn a_dense_bucket_stays_whole() {
    // 100 documents equal on 12 of 16 slots (estimate 0.75 >= 0.5), distinct elsewhere.
    let sigs = footer_corpus(100, 16, 12, 100);
    let rule = BucketRule {
        limit: 8,
        threshold: 0.5,
    };
    let found = groups(&sigs, 16, 2, 0, rule);
    assert_eq!(found, vec![(0..100).collect::<Vec<u32>>()]);
}

#[test]
fn near_copies_inside_boilerplate_stay_together() {
    // 200 boilerplate documents (band 0 shared) among which 0..5 are near copies of each
    // other (slots 2.. equal but one).
    let num_perm = 16;
    let mut sigs = footer_corpus(200, num_perm, 2, 200);
    for i in 1..5 {
        for p in 2..num_perm - 1 {
            sigs[i * num_perm + p] = sigs[p];
        }
    }
    let rule = BucketRule {
        limit: 8,
        threshold: 0.5,
    };
    let found = groups(&sigs, num_perm, 2, 0, rule);
    assert_eq!(found, vec![vec![0, 1, 2, 3, 4]]);
}

#[test]
fn a_gathered_bucket_splits_as_the_whole_band_does() {
    // A boilerplate bucket (band 0 shared by 0..200) holding near copies (0..5), two
    // documents with identical signatures (6 and 9) and others outside it.
    let num_perm = 16;
    let mut sigs = footer_corpus(300, num_perm, 2, 200);
    for i in 1..5 {
        for p in 2..num_perm - 1 {
            sigs[i * num_perm + p] = sigs[p];
        }
    }
    let six = sigs[6 * num_perm..7 * num_perm].to_vec();
    sigs[9 * num_perm..10 * num_perm].copy_from_slice(&six);
    let rule = BucketRule {
        limit: 8,
        threshold: 0.5,
    };
    let n = sigs.len() / num_perm;
    let all: Vec<u32> = (0..n as u32).collect();
    let copies = IdenticalRows::find(&sigs, num_perm, &all, 1).unwrap();
    let mut grouper = Grouper::new(
        Rows::new(&sigs, num_perm),
        2,
        &copies.representatives,
        rule,
        true,
    );
    let mut want = Vec::new();
    grouper.band(0, &mut |g| want.push(g.to_vec()));
    let cost = grouper.cost.unwrap();
    // the bucket gathered: its members' rows in ascending order (the copy 9 included)
    let members: Vec<usize> = (0..200).collect();
    let rows: Vec<u32> = members
        .iter()
        .flat_map(|&i| sigs[i * num_perm..(i + 1) * num_perm].to_vec())
        .collect();
    let mut bytes = vec![0u8; 8];
    let key = band_key(&rows[..num_perm], 0, 2, &mut bytes);
    let got = split_bucket(&rows, num_perm, 0, 2, key, rule).unwrap();
    let mut groups: Vec<Vec<u32>> = got
        .offsets
        .windows(2)
        .map(|w| got.members[w[0]..w[1]].to_vec())
        .collect();
    // the local engine's groups hold representatives; the copy 9 joins 6 (a clique)
    want.push(vec![6, 9]);
    want.sort();
    groups.sort();
    assert_eq!(groups, want);
    assert_eq!(got.splits, cost.splits);
    assert!(got.splits >= 1);
    for &i in &members {
        let rep = if i == 9 { 6 } else { i };
        assert_eq!(got.charges[i], cost.log_miss[rep], "{i}");
    }
    let charged: Vec<i64> = got.charges.iter().copied().filter(|&c| c != 0).collect();
    // locally the copy 9 counts as a second weight of its representative 6
    let weights = copies
        .representatives
        .iter()
        .map(|&i| (i, 1 + (i == 6) as u64));
    let whole = cost.expected_recall(weights, 8, 2, 0.5);
    let gathered = expected_recall_of(&charged, n as u64, 8, 2, 0.5);
    assert!((whole - gathered).abs() < 1e-12, "{whole} vs {gathered}");
    assert!(gathered < 1.0 - 0.75f64.powi(8));
}

#[test]
fn a_gathered_bucket_within_the_limit_is_one_group() {
    let sigs = footer_corpus(5, 8, 2, 5);
    let got = split_bucket(&sigs, 8, 0, 2, 1, BucketRule::WHOLE).unwrap();
    assert_eq!(got.members, vec![0, 1, 2, 3, 4]);
    assert_eq!(got.offsets, vec![0, 5]);
    assert_eq!((got.splits, got.charges), (0, vec![0; 5]));
    assert!(split_bucket(&sigs[..7], 8, 0, 2, 1, BucketRule::WHOLE).is_err());
    assert!(split_bucket(&sigs, 8, 4, 2, 1, BucketRule::WHOLE).is_err());
}

#[test]
fn split_cost_lowers_expected_recall_only_where_split() {
    let sigs = footer_corpus(400, 16, 3, 300);
    let ids: Vec<u32> = (0..400).collect();
    let rule = BucketRule {
        limit: 8,
        threshold: 0.5,
    };
    let mut grouper = Grouper::new(Rows::new(&sigs, 16), 2, &ids, rule, true);
    grouper.band(0, &mut |_| {});
    let cost = grouper.cost.unwrap();
    assert!(cost.splits >= 2);
    assert!(cost.log_miss[..300].iter().all(|&c| c > 0));
    assert!(cost.log_miss[300..].iter().all(|&c| c == 0));
    let untouched = cost.expected_recall((300..400).map(|i| (i, 1)), 8, 2, 0.5);
    let plain = 1.0 - (1.0f64 - 0.25).powi(8);
    assert!((untouched - plain).abs() < 1e-12);
    let split = cost.expected_recall((0..300).map(|i| (i, 1)), 8, 2, 0.5);
    assert!(split < plain);
    // split at depth 2 (slot 2 shared, slot 3 not): band 0 keeps a partner w.p. 0.25*0.25
    let want = 1.0 - 0.75f64.powi(7) * (1.0 - 0.25 * 0.25);
    assert!((split - want).abs() < 1e-9, "{split} vs {want}");
}
