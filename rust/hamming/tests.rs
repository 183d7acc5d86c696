//! The search against brute force: planted near pairs at every distance around the radius,
//! 64 and 128 bits, skewed fingerprints, copies, every thread count.

use super::bits::Bits;
use super::copies::Distinct;
use super::cost::{choose, splitmix, Scheme, Search};
use super::*;

/// The reference: every pair of active rows compared.
fn naive(fingerprints: &[u64], words: usize, d: u32, active: &[bool]) -> PairDistances {
    let rows = Rows::new(fingerprints, words);
    let mut pairs = Vec::new();
    let mut distances = Vec::new();
    for i in (0..rows.len()).filter(|&i| active[i]) {
        for j in (i + 1..rows.len()).filter(|&j| active[j]) {
            let delta = crate::simhash::hamming(rows.row(i), rows.row(j));
            if delta <= d {
                pairs.push((i as u32, j as u32));
                distances.push(delta as i32);
            }
        }
    }
    (pairs, distances)
}

/// The search forced to a scheme of `blocks` blocks over all bits.
fn with_blocks<B: Bits>(
    fingerprints: &[u64],
    d: u32,
    active: &[bool],
    blocks: usize,
    threads: usize,
) -> Option<PairDistances> {
    let rows = Rows::new(fingerprints, B::WORDS);
    let distinct = Distinct::<B>::find(rows, active, threads).unwrap();
    let scheme = Scheme::new(B::all().to_u128(), blocks, d)?;
    let (found, _) = index::search(&distinct.values, &scheme, d, threads).unwrap();
    Some(distinct.expand(found, threads).unwrap())
}

/// `n` random fingerprints of `words` words, with near copies planted at every distance
/// 0..=d+2 (bits flipped at random places), and a few exact copies.
fn planted(n: usize, words: usize, d: u32, seed: u64) -> Vec<u64> {
    let mut state = seed;
    let bits = 64 * words as u32;
    let mut out: Vec<u64> = (0..n * words).map(|_| splitmix(&mut state)).collect();
    let mut row = 0;
    for delta in 0..=d + 2 {
        for _ in 0..3 {
            let (source, target) = (row % n, (row + n / 2 + 1) % n);
            row += 7;
            let copy: Vec<u64> = out[source * words..(source + 1) * words].to_vec();
            out[target * words..(target + 1) * words].copy_from_slice(&copy);
            let mut flipped = 0;
            while flipped < delta {
                let b = (splitmix(&mut state) % bits as u64) as usize;
                let word = &mut out[target * words + b / 64];
                if (*word ^ copy[b / 64]) >> (b % 64) & 1 == 0 {
                    *word ^= 1 << (b % 64);
                    flipped += 1;
                }
            }
        }
    }
    out
}

#[test]
fn every_scheme_finds_what_brute_force_finds() {
    for (words, radii) in [(1usize, [0u32, 1, 3, 6]), (2, [0, 2, 5, 13])] {
        for d in radii {
            let fps = planted(300, words, d, 11 + d as u64);
            let active = vec![true; 300];
            let want = naive(&fps, words, d, &active);
            assert!(want.0.len() >= 3 * (d as usize + 1), "planted pairs found");
            for blocks in d as usize + 1..(d as usize + 4).min(64 * words) {
                for threads in [1, 2, 3] {
                    let got = if words == 1 {
                        with_blocks::<u64>(&fps, d, &active, blocks, threads)
                    } else {
                        with_blocks::<u128>(&fps, d, &active, blocks, threads)
                    };
                    assert_eq!(got.unwrap(), want, "words {words} d {d} blocks {blocks}");
                }
            }
            for threads in [1, 2, 4] {
                assert_eq!(within(&fps, words, d, &active, threads).unwrap(), want);
            }
        }
    }
}

#[test]
fn the_chosen_index_matches_brute_force_on_many_fingerprints() {
    // Enough rows for the cost model to pick an index at small radii.
    for (words, d) in [(1usize, 3u32), (1, 6), (2, 8)] {
        let n = 6000;
        let fps = planted(n, words, d, 5);
        let mut active = vec![true; n];
        active[17] = false;
        let want = naive(&fps, words, d, &active);
        let plan = plan(&fps, words, d, &active, 1).unwrap();
        assert!(matches!(plan.search, Search::Index(_)), "{plan:?}");
        for threads in [1, 2, 3] {
            assert_eq!(within(&fps, words, d, &active, threads).unwrap(), want);
        }
        let (_, compared) = if words == 1 {
            within_as::<u64>(&fps, d, &active, 1).unwrap()
        } else {
            within_as::<u128>(&fps, d, &active, 1).unwrap()
        };
        assert!(compared < (n * n / 2 / 20) as u64, "compared {compared}");
    }
}

#[test]
fn skewed_fingerprints_keep_buckets_small() {
    // 48 bits the same in every fingerprint, 10 more set with probability 7/8, 6 random:
    // keys over the first 48 bits would put everything in one bucket.
    let n = 6000;
    let mut state = 3;
    let fps: Vec<u64> = (0..n)
        .map(|_| {
            let mut v = 0x0000_A5A5_F0F0_3C3Cu64 << 16 >> 16;
            for b in 48..58 {
                if splitmix(&mut state) % 8 != 0 {
                    v |= 1 << b;
                }
            }
            v | (splitmix(&mut state) & 0x3F) << 58
        })
        .collect();
    let active = vec![true; n];
    let d = 2;
    let want = naive(&fps, 1, d, &active);
    for threads in [1, 2] {
        let ((pairs, distances), compared) = within_as::<u64>(&fps, d, &active, threads).unwrap();
        assert_eq!((pairs, distances), want);
        // Many rows are copies or within the radius anyway; the search compares far fewer
        // pairs of distinct fingerprints than brute force would.
        let plan = plan(&fps, 1, d, &active, 1).unwrap();
        assert!(plan.distinct > 1000 && plan.distinct < n, "{plan:?}");
        assert!(
            (compared as f64) < plan.brute_force_comparisons / 10.0,
            "compared {compared} of {}",
            plan.brute_force_comparisons
        );
    }
}

#[test]
fn large_buckets_of_biased_fingerprints_are_searched_again() {
    // 4000 random fingerprints and 4000 whose bits are set with probability 0.975: the cost
    // model sees mostly far pairs and picks an index, whose buckets the biased ones crowd
    // (all-ones keys); those buckets are searched again on their other bits.
    let mut state = 9;
    let mut fps: Vec<u64> = (0..4000).map(|_| splitmix(&mut state)).collect();
    fps.extend((0..4000).map(|_| {
        (0..64).fold(0u64, |v, b| {
            v | ((splitmix(&mut state) % 1000 >= 25) as u64) << b
        })
    }));
    let active = vec![true; fps.len()];
    let d = 3;
    let want = naive(&fps, 1, d, &active);
    let plan = plan(&fps, 1, d, &active, 1).unwrap();
    assert!(matches!(plan.search, Search::Index(_)), "{plan:?}");
    let before = index::BUCKETS_SEARCHED_AGAIN.with(|c| c.get());
    let ((pairs, distances), compared) = within_as::<u64>(&fps, d, &active, 1).unwrap();
    assert!(index::BUCKETS_SEARCHED_AGAIN.with(|c| c.get()) > before);
    assert_eq!((pairs, distances), want);
    assert!(
        (compared as f64) < plan.brute_force_comparisons / 2.0,
        "d {d} compared {compared}"
    );
    assert_eq!(within(&fps, 1, d, &active, 3).unwrap(), want);
}

#[test]
fn copies_cost_one_row_each() {
    // 40 clusters of 100 identical fingerprints plus noise: the search sees 40 + 2000 rows.
    let mut state = 1;
    let seeds: Vec<u64> = (0..40).map(|_| splitmix(&mut state)).collect();
    let mut fps: Vec<u64> = (0..4000).map(|i| seeds[i % 40]).collect();
    fps.extend((0..2000).map(|_| splitmix(&mut state)));
    fps[5] ^= 1; // one near copy
    let active = vec![true; fps.len()];
    let want = naive(&fps, 1, 2, &active);
    assert!(want.0.len() > 40 * 99 * 100 / 2 - 1);
    let (got, compared) = within_as::<u64>(&fps, 2, &active, 1).unwrap();
    assert_eq!(got, want);
    let distinct = 2041u64;
    assert!(
        compared <= distinct * (distinct - 1) / 2,
        "compared {compared}"
    );
    assert_eq!(plan(&fps, 1, 2, &active, 1).unwrap().distinct, 2041);
}

#[test]
fn each_pair_is_reported_by_its_first_table_only() {
    let scheme = Scheme::new(u64::MAX as u128, 5, 2).unwrap();
    assert_eq!(scheme.tables.len(), 10); // C(5, 3)
                                         // A pair differing only in block 1: it agrees on blocks {0, 2, 3, 4}; its first table
                                         // is {0, 2, 3}, the lowest three.
    let x = scheme.blocks[1] & (scheme.blocks[1] >> 1 ^ scheme.blocks[1]);
    let agreeing: Vec<usize> = (0..10).filter(|&t| scheme.keys[t] & x == 0).collect();
    let first: Vec<usize> = agreeing
        .iter()
        .copied()
        .filter(|&t| scheme.first_table(t, x))
        .collect();
    assert_eq!(first.len(), 1);
    assert_eq!(scheme.tables[first[0]], vec![0, 2, 3]);
    assert_eq!(agreeing.len(), 4); // C(4, 3)
}

#[test]
fn the_cost_model_keeps_brute_force_where_no_index_pays() {
    let fps: Vec<u64> = {
        let mut state = 2;
        (0..50_000).map(|_| splitmix(&mut state)).collect()
    };
    // Radius 22 of 64 bits: every index needs thousands of tables or keys of a few bits.
    let wide = choose(&fps, u64::MAX, 22);
    assert_eq!(wide.search, Search::BruteForce);
    assert!((wide.comparisons - 50_000.0 * 49_999.0 / 2.0).abs() < 1.0);
    let narrow = choose(&fps, u64::MAX, 6);
    assert!(matches!(narrow.search, Search::Index(_)), "{narrow:?}");
    assert!(narrow.seconds < wide.seconds / 10.0);
    assert_eq!(choose(&fps[..100], u64::MAX, 3).search, Search::BruteForce);
}

#[test]
fn bad_shapes_are_errors() {
    assert!(within(&[0; 6], 3, 1, &[true; 2], 1).is_err());
    assert!(within(&[0; 4], 1, 1, &[true; 3], 1).is_err());
    assert!(within(&[0; 4], 1, 1, &[true; 4], 0).is_err());
    assert_eq!(within(&[], 1, 3, &[], 1).unwrap(), (vec![], vec![]));
}

#[test]
fn tables_run_apart_find_what_the_whole_search_finds() {
    // The Ray engine's way: the plan from a sample holding every distinct fingerprint is the
    // local plan, and each table searched on its own (on any subset holding its buckets, here
    // all rows, copies included) reports every pair within the radius exactly once overall.
    for (words, d) in [(1usize, 3u32), (2, 8)] {
        let n = 6000;
        let fps = planted(n, words, d, 11);
        let active = vec![true; n];
        let want = naive(&fps, words, d, &active);
        let local = plan(&fps, words, d, &active, 1).unwrap();
        let sampled = plan_from_sample(&fps, words, d, local.distinct).unwrap();
        assert_eq!(sampled, local);
        let Search::Index(scheme) = &sampled.search else {
            panic!("{sampled:?}")
        };
        let mut all = Vec::new();
        for t in 0..scheme.tables.len() {
            let (pairs, distances) =
                table_within(&fps, words, d, scheme.free, scheme.blocks.len(), t).unwrap();
            all.extend(pairs.into_iter().zip(distances));
        }
        all.sort_unstable();
        let got: (Vec<_>, Vec<_>) = all.into_iter().unzip();
        assert_eq!(got, want);
    }
    // Brute force is one table with an empty key; other tables or schemes are errors.
    let fps = planted(300, 1, 3, 2);
    let want = naive(&fps, 1, 3, &[true; 300]);
    assert_eq!(table_within(&fps, 1, 3, 0, 0, 0).unwrap(), want);
    assert!(table_within(&fps, 1, 3, 0, 0, 1).is_err());
    assert!(table_within(&fps, 1, 3, u64::MAX as u128, 3, 0).is_err()); // blocks <= radius
    assert!(table_within(&fps, 1, 3, u64::MAX as u128, 8, 56).is_err()); // C(8, 3) tables
    assert!(plan_from_sample(&fps, 3, 3, 10).is_err());
}
