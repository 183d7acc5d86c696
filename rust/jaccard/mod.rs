//! Exact Jaccard similarity of shingle sets: for given pairs, and for all pairs above a threshold.

use crate::error::{push, reserve, Error, Result};
use crate::lsh::check_threshold;
use crate::rows::ScoredPairs;
use crate::shingle::SetsView;

#[cfg(target_arch = "x86_64")]
mod x86;

/// Size of the intersection of two sorted, duplicate-free slices.
///
/// Branch-free merge: both cursors advance by comparison results, so the loop costs a few
/// cycles a step instead of a mispredicted branch on every other step of random-looking data.
#[inline]
pub fn intersection_size<T: Ord + Copy>(a: &[T], b: &[T]) -> usize {
    let (mut i, mut j, mut common) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        common += (x == y) as usize;
        i += (x <= y) as usize;
        j += (y <= x) as usize;
    }
    common
}

/// [`intersection_size`] for 64-bit shingle hashes, eight at a time: the next eight of each
/// set are compared all against all (64 lane compares), and the block with the smaller last
/// element moves on (both when the last elements are equal). Blocks whose ranges overlap always
/// meet, and each pair of blocks meets at most once, so every common element is counted exactly
/// once; the few elements after the last whole block are merged one by one. On x86_64 an
/// intrinsics version of the loop is chosen at run time: AVX-512VL's (its three-input ORs
/// took the merges of the article corpus's candidates 5 % faster on Zen 4) or AVX2's.
#[inline]
pub fn intersection_size_u64(a: &[u64], b: &[u64]) -> usize {
    #[cfg(all(target_arch = "x86_64", neardup_avx512))]
    {
        if crate::cpu::allows_avx512()
            && std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512vl")
        {
            // SAFETY: AVX-512F and VL are present (checked just above) and imply AVX2: the
            // function's requirements.
            return unsafe { x86::intersection_size_u64_avx512(a, b) };
        }
    }
    #[cfg(target_arch = "x86_64")]
    {
        if crate::cpu::allows_avx2() && std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: AVX2 is present (checked just above), the only requirement of the
            // function.
            return unsafe { x86::intersection_size_u64_avx2(a, b) };
        }
    }
    intersection_size_u64_generic(a, b)
}

/// The blocked intersection in portable code: the reference the x86 kernels
/// ([`x86`]) follow lane for lane, and the path elsewhere.
#[inline(always)]
fn intersection_size_u64_generic(a: &[u64], b: &[u64]) -> usize {
    const W: usize = 8;
    let (mut i, mut j) = (0, 0);
    // Per-lane counts, summed once at the end (the AVX2 kernel's vector accumulators).
    let mut counts = [0u64; W];
    while i + W <= a.len() && j + W <= b.len() {
        let x: &[u64; W] = a[i..i + W].try_into().expect("W elements");
        let y: &[u64; W] = b[j..j + W].try_into().expect("W elements");
        // All against all, in groups of four lanes (one vector register): each group of `x`
        // against each group of `y` taken in four orders. An element of `x` equals at most
        // one of `y` (the sets hold no repeats), so it is common when any compare is true.
        for l in 0..W {
            let mut found = false;
            for g in 0..W / 4 {
                for r in 0..4 {
                    found |= x[l] == y[4 * g + (l % 4 + r) % 4];
                }
            }
            counts[l] += found as u64;
        }
        let (xl, yl) = (x[W - 1], y[W - 1]);
        i += W * (xl <= yl) as usize;
        j += W * (yl <= xl) as usize;
    }
    counts.iter().sum::<u64>() as usize + intersection_size(&a[i..], &b[j..])
}

/// |A ∩ B| / |A ∪ B| of two sorted sets of 64-bit hashes; 0 when both are empty.
#[inline]
pub fn jaccard_u64(a: &[u64], b: &[u64]) -> f64 {
    ratio(intersection_size_u64(a, b), a.len(), b.len())
}

/// |A ∩ B| / |A ∪ B| of two sorted sets; 0 when both are empty.
#[inline]
pub fn jaccard<T: Ord + Copy>(a: &[T], b: &[T]) -> f64 {
    ratio(intersection_size(a, b), a.len(), b.len())
}

/// Jaccard from the intersection size and the two set sizes; 0 for an empty union.
#[inline]
fn ratio(common: usize, size_a: usize, size_b: usize) -> f64 {
    let union = size_a + size_b - common;
    if union == 0 {
        0.0
    } else {
        common as f64 / union as f64
    }
}

/// Documents probed between two looks at the interrupt flag.
const INTERRUPT_EVERY: usize = 1024;

/// Every pair i < j with Jaccard ≥ `threshold`, sorted, with its similarity.
///
/// Prefix filtering (Chaudhuri et al. 2006; Bayardo et al. 2007): shingles are ranked rarest
/// first; a pair with Jaccard ≥ t must share one of the first |x| - ⌈t·|x|⌉ + 1 shingles of
/// each set, so only those are indexed and probed, and shingles common to every document
/// (boilerplate) never generate candidates. Candidates are verified by an exact merge.
pub fn all_pairs(sets: SetsView<'_>, threshold: f64) -> Result<ScoredPairs> {
    check_threshold(threshold)?;
    let n = sets.len();
    if n > u32::MAX as usize {
        return Err(Error::new(format!(
            "at most {} documents, got {n}",
            u32::MAX
        )));
    }
    let ranked = rank_by_rarity(sets)?;
    // The postings of every token, one flat array: a token's documents (those whose prefix
    // holds it) fill its own range in the order they are indexed. One allocation, where a
    // vector per token cost a malloc and a free for each of millions of distinct shingles.
    let mut starts = vec![0usize; ranked.vocabulary + 1];
    for x in 0..n {
        let tokens = ranked.get(x);
        if !tokens.is_empty() {
            for &token in &tokens[..prefix_length(tokens.len(), threshold)] {
                starts[token as usize + 1] += 1;
            }
        }
    }
    for t in 0..ranked.vocabulary {
        starts[t + 1] += starts[t];
    }
    let mut filled = starts.clone();
    let mut postings: Vec<u32> = Vec::new();
    reserve(
        &mut postings,
        starts[ranked.vocabulary],
        "the prefix postings",
    )?;
    postings.resize(starts[ranked.vocabulary], 0);
    let mut last_probe = vec![u32::MAX; n];
    let mut candidates = Vec::new();
    let mut found: Vec<(u32, u32, f32)> = Vec::new();
    for x in 0..n {
        if x % INTERRUPT_EVERY == 0 {
            crate::parallel::check_interrupt()?;
        }
        let tokens = ranked.get(x);
        if tokens.is_empty() {
            continue;
        }
        let prefix = prefix_length(tokens.len(), threshold);
        candidates.clear();
        for &token in &tokens[..prefix] {
            let token = token as usize;
            for &y in &postings[starts[token]..filled[token]] {
                if last_probe[y as usize] != x as u32 {
                    last_probe[y as usize] = x as u32;
                    candidates.push(y);
                }
            }
        }
        let size_x = tokens.len() as f64;
        for &y in &candidates {
            let other = ranked.get(y as usize);
            let size_y = other.len() as f64;
            // Length filter: J ≤ min/max, so sets of very different sizes cannot reach t.
            if size_x.min(size_y) < threshold * size_x.max(size_y) - 1e-9 {
                continue;
            }
            let similarity = jaccard(tokens, other);
            if similarity >= threshold {
                push(
                    &mut found,
                    (y, x as u32, similarity as f32),
                    "the pairs found",
                )?;
            }
        }
        for &token in &tokens[..prefix] {
            postings[filled[token as usize]] = x as u32;
            filled[token as usize] += 1;
        }
    }
    found.sort_unstable_by_key(|&(i, j, _)| (i, j));
    Ok(found.into_iter().map(|(i, j, s)| ((i, j), s)).unzip())
}

/// Length of the prefix that must hold a shared token: |x| - ⌈t·|x|⌉ + 1 (at least 1).
fn prefix_length(size: usize, threshold: f64) -> usize {
    // The epsilon keeps t·|x| = 3.0000000000000004 from rounding the overlap up to 4.
    let overlap = (threshold * size as f64 - 1e-9).ceil().max(0.0) as usize;
    (size + 1).saturating_sub(overlap).clamp(1, size)
}

/// Sets rewritten as sorted token ids, token 0 being the rarest shingle of the collection.
struct RankedSets {
    offsets: Vec<usize>,
    tokens: Vec<u32>,
    vocabulary: usize,
}

impl RankedSets {
    fn get(&self, i: usize) -> &[u32] {
        &self.tokens[self.offsets[i]..self.offsets[i + 1]]
    }
}

/// Shingle positions sorted together in one group: about this many (1 MB of (hash, position)
/// entries, in cache while the group is sorted).
const RANK_GROUP: usize = 1 << 16;

/// Ranks every shingle by its document frequency (rarest first, ties by hash value) and
/// rewrites the sets as sorted ranks.
///
/// The positions are grouped by their hash's top bits (a counting sort, 4 bytes a shingle),
/// and each group is sorted by hash on its own, so every position learns its value's id from
/// one pass over the runs of equal hashes. A binary search per shingle in the distinct values,
/// as before, missed cache at every step: all-pairs on 5,000 source files (5 M shingles) took
/// 3 s. The memory stays about 8 bytes a shingle, as the sorted copy of every hash took.
fn rank_by_rarity(sets: SetsView<'_>) -> Result<RankedSets> {
    let hashes = sets.hashes();
    let total = hashes.len();
    if total > u32::MAX as usize {
        return Err(Error::new(format!(
            "exact Jaccard of all pairs takes at most {} shingles in all, got {total}: \
             method=\"minhash\" finds the pairs of larger collections",
            u32::MAX
        )));
    }
    let group_bits = (total / RANK_GROUP).max(1).ilog2().min(24);
    let group_of = |hash: u64| match group_bits {
        0 => 0,
        bits => (hash >> (64 - bits)) as usize,
    };
    let groups = 1usize << group_bits;
    let mut starts = vec![0usize; groups + 1];
    for &hash in hashes {
        starts[group_of(hash) + 1] += 1;
    }
    for g in 0..groups {
        starts[g + 1] += starts[g];
    }
    let mut positions: Vec<u32> = Vec::new();
    reserve(&mut positions, total, "the shingles to rank")?;
    positions.resize(total, 0);
    let mut fill = starts.clone();
    for (position, &hash) in hashes.iter().enumerate() {
        let g = group_of(hash);
        positions[fill[g]] = position as u32;
        fill[g] += 1;
    }
    // Distinct values in ascending order (their ids: groups ascend with the top bits, and
    // equal hashes share a group), how many sets hold each (a set holds a shingle once), and
    // the id of each position's value.
    let mut frequency: Vec<u32> = Vec::new();
    let mut value_of: Vec<u32> = Vec::new();
    reserve(&mut value_of, total, "the shingles to rank")?;
    value_of.resize(total, 0);
    let mut group: Vec<(u64, u32)> = Vec::new();
    for g in 0..groups {
        group.clear();
        group.extend(
            positions[starts[g]..starts[g + 1]]
                .iter()
                .map(|&p| (hashes[p as usize], p)),
        );
        group.sort_unstable();
        for (k, &(hash, position)) in group.iter().enumerate() {
            if k == 0 || group[k - 1].0 != hash {
                frequency.push(0);
            }
            let last = frequency.len() - 1;
            frequency[last] += 1;
            value_of[position as usize] = last as u32;
        }
    }
    drop(positions);
    // Ids ascend with the hash value, so (frequency, id) orders ties by the value.
    let mut order: Vec<u32> = (0..frequency.len() as u32).collect();
    order.sort_unstable_by_key(|&v| (frequency[v as usize], v));
    let mut rank = vec![0u32; frequency.len()];
    for (r, &v) in order.iter().enumerate() {
        rank[v as usize] = r as u32;
    }
    let mut offsets = Vec::with_capacity(sets.len() + 1);
    let mut tokens = Vec::with_capacity(hashes.len());
    offsets.push(0);
    // The sets lie one after another in `hashes`, from 0: set i starts where set i - 1 ended.
    let mut at = 0;
    for i in 0..sets.len() {
        let start = tokens.len();
        let size = sets.get(i).len();
        tokens.extend(value_of[at..at + size].iter().map(|&v| rank[v as usize]));
        at += size;
        tokens[start..].sort_unstable();
        // A repeated hash would give a repeated rank and count twice in the merges.
        let mut unique = start;
        for k in start..tokens.len() {
            if k == start || tokens[k] != tokens[unique - 1] {
                tokens[unique] = tokens[k];
                unique += 1;
            }
        }
        tokens.truncate(unique);
        offsets.push(tokens.len());
    }
    Ok(RankedSets {
        offsets,
        tokens,
        vocabulary: frequency.len(),
    })
}

#[cfg(test)]
mod tests {
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
}
