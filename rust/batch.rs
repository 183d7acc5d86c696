//! Whole-collection operations: each stage applied to every document or every pair, with the
//! argument checks a caller from outside Rust needs. The Python binding calls only these.

use crate::cluster;
use crate::error::{Error, Result};
use crate::hashing::HashVersion;
use crate::jaccard::{jaccard_u64, prefetch, prefetch_bytes, PREFETCH_AHEAD};
use crate::lsh;
use crate::minhash::{self, Algorithm, Signer};
use crate::parallel::for_row_blocks;
use crate::shingle::{SetsView, Shingler, Unit};
use crate::simhash;

/// Signatures (row-major, `texts.len() * num_perm`) of documents, shingled on the fly, with
/// classic MinHash or one-permutation hashing.
#[allow(clippy::too_many_arguments)]
pub fn minhash_texts(
    texts: &[&str],
    num_perm: usize,
    seed: u64,
    k: usize,
    unit: Unit,
    threads: usize,
    algorithm: Algorithm,
    version: HashVersion,
) -> Result<Vec<u32>> {
    let signer = Signer::new(algorithm, num_perm, seed)?;
    Shingler::new(k, unit, version)?;
    let mut out = vec![0u32; texts.len() * num_perm];
    for_row_blocks(&mut out, num_perm, threads, |first, rows| {
        let mut shingler = Shingler::new(k, unit, version).expect("k was checked");
        let mut scratch = Vec::new();
        let mut bins = Vec::new();
        for (row, signature) in rows.chunks_exact_mut(num_perm).enumerate() {
            prefetch_next(texts, first + row);
            scratch.clear();
            shingler.hashes_into(texts[first + row], &mut scratch);
            signer.sign(&scratch, signature, &mut bins);
        }
    })?;
    Ok(out)
}

/// Starts loading the document after `row` into cache while `row` is worked on: documents are
/// separate allocations, so each one's first lines would otherwise be a cache miss from memory.
#[inline]
fn prefetch_next(texts: &[&str], row: usize) {
    if let Some(next) = texts.get(row + 1) {
        prefetch_bytes(next.as_ptr(), next.len());
    }
}

/// Number of normalised words (version 2: tokens) of each document (0 means it can never be a
/// near-duplicate).
pub fn word_counts(texts: &[&str], version: HashVersion) -> Vec<i64> {
    let mut words = crate::normalize::Words::new(version);
    texts
        .iter()
        .map(|text| {
            words.fill(text);
            words.len() as i64
        })
        .collect()
}

/// Signatures of precomputed shingle sets.
pub fn minhash_sets(
    sets: SetsView<'_>,
    num_perm: usize,
    seed: u64,
    threads: usize,
    algorithm: Algorithm,
) -> Result<Vec<u32>> {
    let signer = Signer::new(algorithm, num_perm, seed)?;
    let mut out = vec![0u32; sets.len() * num_perm];
    for_row_blocks(&mut out, num_perm, threads, |first, rows| {
        let mut bins = Vec::new();
        for (row, signature) in rows.chunks_exact_mut(num_perm).enumerate() {
            signer.sign(sets.get(first + row), signature, &mut bins);
        }
    })?;
    Ok(out)
}

/// SimHash fingerprints (`texts.len() * bits / 64` words) of documents, shingled on the fly.
pub fn simhash_texts(
    texts: &[&str],
    bits: usize,
    tf: bool,
    k: usize,
    unit: Unit,
    threads: usize,
    version: HashVersion,
) -> Result<Vec<u64>> {
    let words = simhash::words_for(bits)?;
    Shingler::new(k, unit, version)?;
    let mut out = vec![0u64; texts.len() * words];
    for_row_blocks(&mut out, words, threads, |first, rows| {
        let mut shingler = Shingler::new(k, unit, version).expect("k was checked");
        let mut hasher = simhash::SimHasher::new();
        let mut scratch = Vec::new();
        for (row, fingerprint) in rows.chunks_exact_mut(words).enumerate() {
            prefetch_next(texts, first + row);
            scratch.clear();
            shingler.hashes_into(texts[first + row], &mut scratch);
            hasher.fingerprint_into(&scratch, tf, fingerprint);
        }
    })?;
    Ok(out)
}

/// SimHash fingerprints of precomputed shingle sets (every shingle weighs 1).
pub fn simhash_sets(sets: SetsView<'_>, bits: usize, threads: usize) -> Result<Vec<u64>> {
    let words = simhash::words_for(bits)?;
    let mut out = vec![0u64; sets.len() * words];
    for_row_blocks(&mut out, words, threads, |first, rows| {
        for (row, fingerprint) in rows.chunks_exact_mut(words).enumerate() {
            simhash::fingerprint_sorted_into(sets.get(first + row), false, fingerprint);
        }
    })?;
    Ok(out)
}

/// Checks that every pair indexes one of `n` rows.
pub fn check_pairs(pairs: &[(i64, i64)], n: usize) -> Result<()> {
    for (row, &(a, b)) in pairs.iter().enumerate() {
        if a < 0 || b < 0 || a as usize >= n || b as usize >= n {
            return Err(Error::new(format!(
                "pairs[{row}] = ({a}, {b}) is out of range for {n} documents"
            )));
        }
    }
    Ok(())
}

/// MinHash estimate (share of equal slots) of each pair.
pub fn estimate_pairs(
    signatures: &[u32],
    num_perm: usize,
    pairs: &[(i64, i64)],
) -> Result<Vec<f32>> {
    let n = signatures.len() / num_perm.max(1);
    check_pairs(pairs, n)?;
    let row = |i: i64| &signatures[i as usize * num_perm..(i as usize + 1) * num_perm];
    Ok(pairs
        .iter()
        .map(|&(a, b)| minhash::estimate(row(a), row(b)))
        .collect())
}

/// Exact Jaccard of each pair of shingle sets.
pub fn jaccard_pairs(sets: SetsView<'_>, pairs: &[(i64, i64)]) -> Result<Vec<f32>> {
    let pairs = checked_u32_pairs(pairs, sets.len())?;
    let mut similarities = vec![0f32; pairs.len()];
    for_each_exact_similarity(sets, &pairs, |k, similarity| {
        similarities[k] = similarity as f32
    });
    Ok(similarities)
}

/// `pairs` checked against `n` documents, as the u32 indices of the rest of the crate.
fn checked_u32_pairs(pairs: &[(i64, i64)], n: usize) -> Result<Vec<(u32, u32)>> {
    if n > u32::MAX as usize {
        return Err(Error::new(format!(
            "at most {} documents, got {n}",
            u32::MAX
        )));
    }
    check_pairs(pairs, n)?;
    Ok(pairs.iter().map(|&(a, b)| (a as u32, b as u32)).collect())
}

/// Calls `visit(k, jaccard)` with the exact Jaccard of every pair `pairs[k]` (indices <
/// `sets.len()`), in an order chosen for the memory: component by component
/// ([`cluster::component_order`]), each merge prefetching the set of the pair
/// [`PREFETCH_AHEAD`] merges later. At 10,000 documents of the synthetic corpus this took
/// verification from 15 ms to 11 ms, what the same merges take on sets already in cache: the
/// set of a group's member is read from memory about once instead of once per pair
/// (`cargo run --release --example verify_times -- texts.bin`).
fn for_each_exact_similarity(
    sets: SetsView<'_>,
    pairs: &[(u32, u32)],
    mut visit: impl FnMut(usize, f64),
) {
    let order = cluster::component_order(pairs, sets.len());
    for (step, &k) in order.iter().enumerate() {
        if let Some(&ahead) = order.get(step + PREFETCH_AHEAD) {
            prefetch(sets.get(pairs[ahead as usize].1 as usize));
        }
        let (a, b) = pairs[k as usize];
        visit(
            k as usize,
            jaccard_u64(sets.get(a as usize), sets.get(b as usize)),
        );
    }
}

/// The pairs whose exact Jaccard reaches `threshold`, in the order given, with their Jaccard.
pub fn jaccard_pairs_at_least(
    sets: SetsView<'_>,
    pairs: &[(i64, i64)],
    threshold: f64,
) -> Result<ScoredPairs> {
    lsh::check_threshold(threshold)?;
    let pairs = checked_u32_pairs(pairs, sets.len())?;
    Ok(exact_pairs_at_least(sets, &pairs, threshold))
}

/// The pairs (indices < `sets.len()`) whose exact Jaccard reaches `threshold`, in the order
/// given, with their Jaccard: the exact verification of LSH candidates.
pub fn exact_pairs_at_least(
    sets: SetsView<'_>,
    pairs: &[(u32, u32)],
    threshold: f64,
) -> ScoredPairs {
    // Verified out of order; NaN marks the pairs below the threshold.
    let mut kept = vec![f32::NAN; pairs.len()];
    for_each_exact_similarity(sets, pairs, |k, similarity| {
        if similarity >= threshold {
            kept[k] = similarity as f32;
        }
    });
    pairs
        .iter()
        .zip(kept)
        .filter(|(_, similarity)| !similarity.is_nan())
        .unzip()
}

/// Hamming distance of each pair of fingerprints `words` u64 wide.
pub fn hamming_pairs(fingerprints: &[u64], words: usize, pairs: &[(i64, i64)]) -> Result<Vec<i32>> {
    let n = fingerprints.len() / words.max(1);
    check_pairs(pairs, n)?;
    let row = |i: i64| &fingerprints[i as usize * words..(i as usize + 1) * words];
    Ok(pairs
        .iter()
        .map(|&(a, b)| simhash::hamming(row(a), row(b)) as i32)
        .collect())
}

/// Pairs i < j and the similarity of each.
pub type ScoredPairs = (Vec<(u32, u32)>, Vec<f32>);

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
fn check_verification(
    signatures: &[u32],
    num_perm: usize,
    threshold: f64,
    verify: Verify<'_>,
) -> Result<usize> {
    lsh::check_threshold(threshold)?;
    let n = signatures.len() / num_perm.max(1);
    match verify {
        Verify::Exact(sets) if sets.len() != n => Err(Error::new(format!(
            "shingle sets hold {} documents but signatures {n}",
            sets.len()
        ))),
        _ => Ok(n),
    }
}

/// LSH candidates verified against `threshold`: the pairs i < j (sorted) that reach it and their
/// similarity. Documents whose signature is the empty set's take no part.
pub fn lsh_duplicates(
    signatures: &[u32],
    num_perm: usize,
    bands: usize,
    rows: usize,
    threshold: f64,
    verify: Verify<'_>,
) -> Result<ScoredPairs> {
    check_verification(signatures, num_perm, threshold, verify)?;
    let active = lsh::non_empty_rows(signatures, num_perm);
    let candidates = lsh::candidate_pairs(signatures, num_perm, bands, rows, &active)?;
    let row = |i: u32| &signatures[i as usize * num_perm..(i as usize + 1) * num_perm];
    // Candidates are sorted by (i, j), so the output is too.
    match verify {
        // Both rows are active (not the empty set's signature), where `minhash::estimate` is
        // the share of equal slots.
        Verify::Estimate => Ok(candidates
            .into_iter()
            .map(|(i, j)| ((i, j), minhash::equal_share(row(i), row(j))))
            .filter(|&(_, similarity)| similarity as f64 >= threshold)
            .unzip()),
        Verify::Exact(sets) => Ok(exact_pairs_at_least(sets, &candidates, threshold)),
    }
}

/// Clusters of LSH candidates that reach `threshold`, without visiting every pair of a large
/// bucket: the edges (i < j, sorted) that joined two clusters, a spanning forest of the result.
///
/// Within a bucket a document is verified only against the bucket's *leaders* (members that
/// joined no earlier leader), and not at all against a leader it is already clustered with, so
/// a bucket of m identical documents costs m - 1 verifications instead of m(m - 1)/2. A document
/// similar only to a non-leader of every bucket it shares may stay apart: clusters can be finer
/// than the components of the all-pairs graph, never coarser.
pub fn lsh_cluster_edges(
    signatures: &[u32],
    num_perm: usize,
    bands: usize,
    rows: usize,
    threshold: f64,
    verify: Verify<'_>,
) -> Result<ScoredPairs> {
    let n = check_verification(signatures, num_perm, threshold, verify)?;
    let keys = lsh::band_keys(signatures, num_perm, bands, rows)?;
    let active = lsh::non_empty_rows(signatures, num_perm);
    let row = |i: u32| &signatures[i as usize * num_perm..(i as usize + 1) * num_perm];
    let similarity = |i: u32, j: u32| match verify {
        Verify::Estimate => minhash::estimate(row(i), row(j)) as f64,
        Verify::Exact(sets) => jaccard_u64(sets.get(i as usize), sets.get(j as usize)),
    };
    let mut sets = crate::cluster::UnionFind::new(n);
    let mut edges: Vec<(u32, u32, f32)> = Vec::new();
    let mut bucket: Vec<(u64, u32)> = Vec::with_capacity(n);
    let mut leaders: Vec<u32> = Vec::new();
    for band in 0..bands {
        lsh::sorted_band(&keys, bands, band, &active, &mut bucket);
        for run in bucket.chunk_by(|a, b| a.0 == b.0) {
            if run.len() < 2 {
                continue;
            }
            leaders.clear();
            for &(_, x) in run {
                let mut joined = false;
                for &leader in &leaders {
                    if sets.find(leader) == sets.find(x) {
                        joined = true;
                        continue;
                    }
                    let s = similarity(leader, x);
                    if s >= threshold {
                        sets.union(leader, x);
                        edges.push((leader.min(x), leader.max(x), s as f32));
                        joined = true;
                    }
                }
                if !joined {
                    leaders.push(x);
                }
            }
        }
    }
    edges.sort_unstable_by_key(|&(i, j, _)| (i, j));
    Ok(edges.into_iter().map(|(i, j, s)| ((i, j), s)).unzip())
}

/// Every pair i < j of fingerprints within `max_distance` bits, by brute force, with the
/// distances. Rows listed as inactive (empty documents) take no part.
pub fn hamming_within(
    fingerprints: &[u64],
    words: usize,
    max_distance: u32,
    active: &[bool],
) -> Result<(Vec<(u32, u32)>, Vec<i32>)> {
    let n = fingerprints.len() / words.max(1);
    if active.len() != n {
        return Err(Error::new(format!(
            "active has {} rows but fingerprints {n}",
            active.len()
        )));
    }
    let row = |i: usize| &fingerprints[i * words..(i + 1) * words];
    let mut pairs = Vec::new();
    let mut distances = Vec::new();
    for i in (0..n).filter(|&i| active[i]) {
        for j in (i + 1..n).filter(|&j| active[j]) {
            let distance = simhash::hamming(row(i), row(j));
            if distance <= max_distance {
                pairs.push((i as u32, j as u32));
                distances.push(distance as i32);
            }
        }
    }
    Ok((pairs, distances))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shingle::ShingleSets;

    #[test]
    fn texts_and_sets_give_the_same_signatures() {
        let texts = ["a b c d e f g", "a b c d e f h", "", "x y"];
        let sets = ShingleSets::build(&texts, 3, Unit::Word, HashVersion::V2).unwrap();
        let view = SetsView::new(&sets.offsets, &sets.hashes).unwrap();
        for threads in [1, 2] {
            for algorithm in [Algorithm::Classic, Algorithm::Oph] {
                assert_eq!(
                    minhash_texts(
                        &texts,
                        16,
                        5,
                        3,
                        Unit::Word,
                        threads,
                        algorithm,
                        HashVersion::V2
                    )
                    .unwrap(),
                    minhash_sets(view, 16, 5, threads, algorithm).unwrap()
                );
            }
            assert_eq!(
                simhash_texts(&texts, 128, false, 3, Unit::Word, threads, HashVersion::V2).unwrap(),
                simhash_sets(view, 128, threads).unwrap()
            );
        }
    }

    #[test]
    fn lsh_duplicates_verifies_exactly() {
        let texts = [
            "one two three four five six",
            "one two three four five seven",
            "zzz",
            "",
        ];
        let sets = ShingleSets::build(&texts, 2, Unit::Word, HashVersion::V2).unwrap();
        let view = SetsView::new(&sets.offsets, &sets.hashes).unwrap();
        let sigs = minhash_sets(view, 64, 0, 1, Algorithm::Classic).unwrap();
        let (pairs, sims) = lsh_duplicates(&sigs, 64, 32, 2, 0.5, Verify::Exact(view)).unwrap();
        assert_eq!(pairs, vec![(0, 1)]);
        assert_eq!(sims, vec![4.0 / 6.0]);
    }

    #[test]
    fn cluster_edges_stay_linear_in_a_bucket_of_identical_documents() {
        let mut texts = vec!["the same words in the same order every time"; 2000];
        texts.push("something else entirely, nothing shared with the rest");
        let sets = ShingleSets::build(&texts, 3, Unit::Word, HashVersion::V2).unwrap();
        let view = SetsView::new(&sets.offsets, &sets.hashes).unwrap();
        let sigs = minhash_sets(view, 16, 0, 1, Algorithm::Classic).unwrap();
        let (edges, sims) = lsh_cluster_edges(&sigs, 16, 4, 4, 0.5, Verify::Exact(view)).unwrap();
        // One edge per joined document: a spanning tree of the 2,000 copies, nothing more.
        assert_eq!(edges.len(), 1999);
        assert!(sims.iter().all(|&s| s == 1.0));
        let pairs: Vec<(i64, i64)> = edges.iter().map(|&(i, j)| (i as i64, j as i64)).collect();
        let labels = crate::cluster::clusters(&pairs, texts.len()).unwrap();
        assert!(labels[..2000].iter().all(|&l| l == 0));
        assert_eq!(labels[2000], 2000);
    }

    #[test]
    fn exact_verification_answers_in_the_given_order() {
        // Three groups of near copies, pairs listed in an order that interleaves the groups:
        // verification visits them component by component, the answers stay in place.
        let texts: Vec<String> = (0..9)
            .map(|i| {
                let group = i % 3;
                let words: Vec<String> = (0..30).map(|w| format!("g{group}w{w}")).collect();
                format!("{} extra{i}", words.join(" "))
            })
            .collect();
        let texts: Vec<&str> = texts.iter().map(|t| t.as_str()).collect();
        let sets = ShingleSets::build(&texts, 2, Unit::Word, HashVersion::V2).unwrap();
        let view = SetsView::new(&sets.offsets, &sets.hashes).unwrap();
        let pairs: Vec<(i64, i64)> = vec![(0, 3), (1, 4), (8, 5), (0, 6), (2, 0), (7, 1), (4, 4)];
        let got = jaccard_pairs(view, &pairs).unwrap();
        let want: Vec<f32> = pairs
            .iter()
            .map(|&(a, b)| {
                crate::jaccard::jaccard(view.get(a as usize), view.get(b as usize)) as f32
            })
            .collect();
        assert_eq!(got, want);
        assert!(want[0] > 0.8 && want[4] == 0.0 && want[6] == 1.0);
        let (kept, similarity) = jaccard_pairs_at_least(view, &pairs, 0.5).unwrap();
        assert_eq!(kept, vec![(0, 3), (1, 4), (8, 5), (0, 6), (7, 1), (4, 4)]);
        assert_eq!(similarity.len(), kept.len());
        assert!(jaccard_pairs_at_least(view, &pairs, 0.0).is_err());
    }

    #[test]
    fn pairs_out_of_range_are_errors() {
        assert!(estimate_pairs(&[0; 8], 4, &[(0, 2)]).is_err());
        assert!(hamming_pairs(&[0; 2], 1, &[(1, -1)]).is_err());
    }
}
