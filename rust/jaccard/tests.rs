//! Tests of [`super`] (rust/jaccard/mod.rs).
use super::*;

fn brute_force(sets: &[Vec<u64>], t: f64) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    for i in 0..sets.len() {
        for j in i + 1..sets.len() {
            if jaccard(&sets[i], &sets[j]) >= t {
                out.push((i as u32, j as u32));
            }
        }
    }
    out
}

#[test]
fn jaccard_of_small_sets() {
    assert_eq!(jaccard(&[1u64, 2, 3], &[2, 3, 4]), 0.5);
    assert_eq!(jaccard::<u64>(&[], &[]), 0.0);
    assert_eq!(intersection_size(&[1u64, 5, 9], &[5, 9, 10]), 2);
}

#[test]
fn blocked_intersection_matches_the_merge() {
    let mut state = 1u64;
    let mut draw = |n: usize, modulo: u64| {
        let mut v: Vec<u64> = (0..n)
            .map(|_| {
                state = crate::hashing::mix64(state);
                state % modulo
            })
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    };
    for (na, nb, modulo) in [
        (0, 5, 10),
        (3, 3, 5),
        (7, 9, 12),
        (100, 120, 150),
        (400, 30, 500),
        (500, 500, 100_000),
        (64, 64, 70),
    ] {
        for _ in 0..20 {
            let (a, b) = (draw(na, modulo), draw(nb, modulo));
            assert_eq!(intersection_size_u64(&a, &b), intersection_size(&a, &b));
            assert_eq!(intersection_size_u64(&b, &a), intersection_size(&a, &b));
            assert_eq!(jaccard_u64(&a, &b), jaccard(&a, &b));
        }
    }
    let a: Vec<u64> = (0..100).collect();
    assert_eq!(intersection_size_u64(&a, &a), 100);
    assert_eq!(intersection_size_u64_generic(&a, &a), 100);
    assert_eq!(intersection_size_u64(&a[..50], &a[40..]), 10);
}

#[test]
fn eight_wide_intersection_matches_the_merge_for_many_sizes() {
    let mut rng = crate::hashing::SplitMix64::new(11);
    // Uniform hashes (as shingles are) and dense small values (many common elements),
    // sizes around the block width, empty, single, and very unequal.
    let sizes = [
        0usize, 1, 2, 7, 8, 9, 15, 16, 17, 31, 64, 100, 333, 1000, 3000,
    ];
    for &na in &sizes {
        for &nb in &sizes {
            for modulo in [u64::MAX, 4 * (na + nb) as u64 + 1, (na.max(nb) + 3) as u64] {
                let mut draw = |n: usize| {
                    let mut v: Vec<u64> = (0..n).map(|_| rng.next_u64() % modulo).collect();
                    v.sort_unstable();
                    v.dedup();
                    v
                };
                let (a, b) = (draw(na), draw(nb));
                let expected = intersection_size(&a, &b);
                assert_eq!(
                    intersection_size_u64(&a, &b),
                    expected,
                    "{na} {nb} {modulo}"
                );
                assert_eq!(
                    intersection_size_u64(&b, &a),
                    expected,
                    "{na} {nb} {modulo}"
                );
                assert_eq!(intersection_size_u64_generic(&a, &b), expected);
                assert_eq!(intersection_size_u64_generic(&b, &a), expected);
                assert_eq!(jaccard_u64(&a, &b), jaccard(&a, &b));
            }
        }
    }
    // Each x86 variant directly, whichever the dispatch picks here.
    #[cfg(target_arch = "x86_64")]
    for (na, nb) in [(0usize, 9usize), (8, 8), (17, 300), (333, 340), (1000, 64)] {
        let mut draw = |n: usize| {
            let mut v: Vec<u64> = (0..n).map(|_| rng.next_u64() % 2000).collect();
            v.sort_unstable();
            v.dedup();
            v
        };
        let (a, b) = (draw(na), draw(nb));
        let expected = intersection_size(&a, &b);
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: AVX2 is present (checked just above).
            assert_eq!(unsafe { x86::intersection_size_u64_avx2(&a, &b) }, expected);
        }
        #[cfg(neardup_avx512)]
        if std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512vl")
        {
            // SAFETY: AVX-512F and VL are present (checked just above).
            assert_eq!(
                unsafe { x86::intersection_size_u64_avx512(&a, &b) },
                expected
            );
        }
    }
    // Extremes of the value range, where the comparisons of block ends matter.
    let a = [0u64, 1, 2, 3, 4, 5, 6, 7, u64::MAX - 1, u64::MAX];
    let b = [0u64, 2, 4, 6, 8, 10, 12, 14, 16, u64::MAX];
    assert_eq!(intersection_size_u64(&a, &b), 5);
    assert_eq!(intersection_size_u64_generic(&b, &a), 5);
}

#[test]
fn interleaved_intersections_match_one_merge_each() {
    // Sets of every size about the block widths, near copies and strangers, so that the
    // four interleaved merges end at different times, refill, and finish from the middle.
    let mut rng = crate::hashing::SplitMix64::new(3);
    let sets: Vec<Vec<u64>> = (0..60)
        .map(|s| {
            let n = [0usize, 1, 3, 4, 5, 8, 12, 40, 41, 300][s % 10];
            let mut v: Vec<u64> = (0..n)
                .map(|_| match rng.next_u64() % 3 {
                    0 => rng.next_u64(),
                    _ => rng.next_u64() % 400,
                })
                .collect();
            v.sort_unstable();
            v.dedup();
            v
        })
        .collect();
    for count in [0usize, 1, 3, 4, 5, 9, 200, 1000] {
        let pairs: Vec<(usize, usize)> = (0..count)
            .map(|_| {
                let a = (rng.next_u64() % 60) as usize;
                (a, (rng.next_u64() % 60) as usize)
            })
            .collect();
        let mut got = vec![usize::MAX; count];
        intersection_sizes(
            count,
            |p| (&sets[pairs[p].0][..], &sets[pairs[p].1][..]),
            |p, common| {
                assert_eq!(got[p], usize::MAX, "position {p} visited twice");
                got[p] = common;
            },
        );
        let want: Vec<usize> = pairs
            .iter()
            .map(|&(a, b)| intersection_size(&sets[a], &sets[b]))
            .collect();
        assert_eq!(got, want, "{count} pairs");
    }
}

/// The (offsets, hashes) arrays of a SetsView over `sets`.
fn flat(sets: &[Vec<u64>]) -> (Vec<i64>, Vec<u64>) {
    let offsets = std::iter::once(0)
        .chain(sets.iter().scan(0i64, |acc, s| {
            *acc += s.len() as i64;
            Some(*acc)
        }))
        .collect();
    (offsets, sets.concat())
}

#[test]
fn ranks_follow_frequency_then_hash_across_groups() {
    // Enough shingles for several rank groups (hash top bits), from a universe small
    // enough that shingles repeat across sets with different frequencies.
    let mut rng = crate::hashing::SplitMix64::new(11);
    let universe: Vec<u64> = (0..40_000).map(|_| rng.next_u64()).collect();
    let mut sets: Vec<Vec<u64>> = Vec::new();
    while sets.iter().map(Vec::len).sum::<usize>() < 5 * RANK_GROUP {
        let size = 1 + (rng.next_u64() % 3_000) as usize;
        // skewed: low indices (frequent shingles) far more likely
        let mut s: Vec<u64> = (0..size)
            .map(|_| {
                let r = rng.next_u64() % universe.len() as u64;
                universe[(r * r / universe.len() as u64) as usize]
            })
            .collect();
        s.sort_unstable();
        s.dedup();
        sets.push(s);
    }
    sets.insert(1, Vec::new());
    let (offsets, hashes) = flat(&sets);
    let ranked = rank_by_rarity(SetsView::new(&offsets, &hashes).unwrap()).unwrap();
    let mut frequency = std::collections::BTreeMap::<u64, u32>::new();
    for &h in &hashes {
        *frequency.entry(h).or_default() += 1;
    }
    let mut order: Vec<(u32, u64)> = frequency.iter().map(|(&h, &f)| (f, h)).collect();
    order.sort_unstable();
    let rank: std::collections::HashMap<u64, u32> = order
        .iter()
        .enumerate()
        .map(|(r, &(_, h))| (h, r as u32))
        .collect();
    assert_eq!(ranked.vocabulary, frequency.len());
    for (i, set) in sets.iter().enumerate() {
        let mut want: Vec<u32> = set.iter().map(|h| rank[h]).collect();
        want.sort_unstable();
        assert_eq!(ranked.get(i), &want[..], "set {i}");
    }
}

#[test]
fn prefix_filtering_finds_exactly_the_brute_force_pairs() {
    // Universes from small (every shingle shared) to huge (most shingles in one set only),
    // and collections of no set, empty sets, one set.
    for (universe, count) in [(40u64, 60), (400, 60), (1 << 40, 30), (40, 1), (40, 0)] {
        let mut rng = crate::hashing::SplitMix64::new(3 + universe);
        let mut sets: Vec<Vec<u64>> = Vec::new();
        for _ in 0..count {
            let size = 1 + (rng.next_u64() % 20) as usize;
            let mut s: Vec<u64> = (0..size).map(|_| rng.next_u64() % universe).collect();
            s.sort_unstable();
            s.dedup();
            sets.push(s);
        }
        if universe == 1 << 40 {
            let copy = sets[0].clone();
            sets.push(copy); // one shared pair among single shingles
        }
        sets.push(Vec::new());
        // an empty set before the others too: ranks are read by position
        sets.insert(0, Vec::new());
        let (offsets, hashes) = flat(&sets);
        let view = SetsView::new(&offsets, &hashes).unwrap();
        for t in [0.1, 0.3, 0.5, 0.8, 1.0] {
            let (pairs, sims) = all_pairs(view, t).unwrap();
            assert_eq!(
                pairs,
                brute_force(&sets, t),
                "universe {universe} threshold {t}"
            );
            for (&(i, j), &s) in pairs.iter().zip(&sims) {
                assert_eq!(s, jaccard(&sets[i as usize], &sets[j as usize]) as f32);
            }
        }
    }
}

#[test]
fn prefix_length_is_exact_at_round_products() {
    assert_eq!(prefix_length(10, 0.3), 8);
    assert_eq!(prefix_length(10, 1.0), 1);
    assert_eq!(prefix_length(1, 0.01), 1);
}
