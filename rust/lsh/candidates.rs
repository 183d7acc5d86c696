//! Candidate pairs: documents that share a bucket in some band, each pair once, sorted.

use super::banding::check_banding;
use super::copies::IdenticalRows;
use super::keys::{band_key, band_keys, non_empty_rows, sorted_band};
use super::pair_buffer::{PairBuffer, FLUSH_PAIRS};
use crate::error::{reserve, Result};
use crate::rows::Rows;

/// Every candidate pair i < j of the active rows, once, sorted by (i, j).
///
/// Band by band: the band keys of the active documents are computed in one sequential pass,
/// partitioned by their top bits (one counting-sort pass, so every partition is a few hundred
/// documents), and each partition is bucketed in a small open-addressing table that stays in
/// L1 cache (a bucket is a chain through `next`, no vector per bucket). A document joining a
/// bucket pairs with the members already in it. Pairs go into a buffer of `FLUSH_PAIRS` codes
/// (or as many as the result already holds, if more) which, when full and at the end, is
/// radix-sorted, de-duplicated and merged into the sorted result: a pair that collides in many
/// bands costs one 8-byte entry per collision and no look-up in any other band, memory stays
/// within a small multiple of the result, and the caller verifies each pair once.
pub fn candidate_pairs(
    signatures: &[u32],
    num_perm: usize,
    bands: usize,
    rows: usize,
    active: &[bool],
) -> Result<Vec<(u32, u32)>> {
    check_banding(bands, rows, num_perm)?;
    let all: Vec<u32> = (0..active.len())
        .filter(|&i| active[i])
        .map(|i| i as u32)
        .collect();
    // Documents with identical signatures share every band: only the first of each such group
    // goes through banding, and its pairs are expanded to the group's at the end, so a group of
    // m copies costs O(m) before the output instead of one bucket of m in every band.
    let copies = IdenticalRows::find(signatures, num_perm, &all);
    let ids = copies.representatives;
    let signature_rows = Rows::new(signatures, num_perm);
    let m = ids.len();
    // About 256 documents per partition.
    let part_bits = (usize::BITS - (m / 256).leading_zeros()).min(16);
    let parts = 1usize << part_bits;
    let mut keys = vec![0u64; m];
    let mut parted: Vec<(u64, u32)> = vec![(0, 0); m];
    let mut starts = vec![0usize; parts + 1];
    let mut next = vec![NONE; m];
    let mut table: Vec<Slot> = Vec::new();
    let mut generation = 0u32;
    let mut bytes = vec![0u8; rows * 4];
    // A pair is coded i·2^id_bits + j: 2·id_bits significant bits, the fewest radix passes.
    let id_bits = (usize::BITS - active.len().leading_zeros()) as usize;
    let mut pending = PairBuffer::new(2 * id_bits, (m * 4).min(FLUSH_PAIRS));
    let part_of = |key: u64| {
        if part_bits == 0 {
            0
        } else {
            (key >> (64 - part_bits)) as usize
        }
    };
    for band in 0..bands {
        for (key, &i) in keys.iter_mut().zip(&ids) {
            *key = band_key(signature_rows.row(i as usize), band, rows, &mut bytes);
        }
        starts.fill(0);
        for &key in &keys {
            starts[part_of(key) + 1] += 1;
        }
        for p in 0..parts {
            starts[p + 1] += starts[p];
        }
        let mut fill = starts.clone();
        for (pos, &key) in keys.iter().enumerate() {
            let p = part_of(key);
            parted[fill[p]] = (key, pos as u32);
            fill[p] += 1;
        }
        for p in 0..parts {
            let part = &parted[starts[p]..starts[p + 1]];
            if part.len() < 2 {
                continue;
            }
            let capacity = (2 * part.len()).next_power_of_two();
            if table.len() < capacity {
                table.resize(
                    capacity,
                    Slot {
                        key: 0,
                        head: NONE,
                        generation: 0,
                    },
                );
            }
            generation = generation.wrapping_add(1);
            if generation == 0 {
                table.iter_mut().for_each(|slot| slot.generation = 0);
                generation = 1;
            }
            let mask = capacity - 1;
            for &(key, pos) in part {
                // The band key is an XXH3 output: its low bits are uniform.
                let mut s = (key as usize) & mask;
                loop {
                    let slot = &mut table[s];
                    if slot.generation != generation {
                        *slot = Slot {
                            key,
                            head: pos,
                            generation,
                        };
                        next[pos as usize] = NONE;
                        break;
                    }
                    if slot.key == key {
                        let i = ids[pos as usize] as u64;
                        let mut member = slot.head;
                        while member != NONE {
                            pending.push(((ids[member as usize] as u64) << id_bits) | i);
                            member = next[member as usize];
                        }
                        next[pos as usize] = slot.head;
                        slot.head = pos;
                        break;
                    }
                    s = (s + 1) & mask;
                }
            }
        }
    }
    let low = (1u64 << id_bits) - 1;
    let decode = |c: u64| ((c >> id_bits) as u32, (c & low) as u32);
    let pairs = pending.finish()?;
    if copies.members.is_empty() {
        return decoded(pairs, decode);
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
    decoded(expanded.finish()?, decode)
}

/// The pairs of `codes`, decoded, in a vector allocated fallibly.
fn decoded(codes: Vec<u64>, decode: impl Fn(u64) -> (u32, u32)) -> Result<Vec<(u32, u32)>> {
    let mut pairs = Vec::new();
    reserve(&mut pairs, codes.len(), "the candidate pairs")?;
    pairs.extend(codes.into_iter().map(decode));
    Ok(pairs)
}

#[derive(Clone, Copy)]
struct Slot {
    key: u64,
    head: u32,
    generation: u32,
}

const NONE: u32 = u32::MAX;

/// Which rows share a bucket with another active row in some band: the rows that appear in
/// some candidate pair, found without listing the pairs (a bucket of m rows costs m, not
/// m(m - 1)/2).
pub fn rows_in_candidates(
    signatures: &[u32],
    num_perm: usize,
    bands: usize,
    rows: usize,
) -> Result<Vec<bool>> {
    let keys = band_keys(signatures, num_perm, bands, rows)?;
    let active = non_empty_rows(signatures, num_perm);
    let mut found = vec![false; active.len()];
    let mut bucket = Vec::with_capacity(active.len());
    for band in 0..bands {
        sorted_band(&keys, bands, band, &active, &mut bucket);
        for run in bucket
            .chunk_by(|a, b| a.0 == b.0)
            .filter(|run| run.len() > 1)
        {
            for &(_, row) in run {
                found[row as usize] = true;
            }
        }
    }
    Ok(found)
}

/// All candidate pairs (i < j), sorted.
pub fn candidates(
    signatures: &[u32],
    num_perm: usize,
    bands: usize,
    rows: usize,
) -> Result<Vec<(u32, u32)>> {
    check_banding(bands, rows, num_perm)?;
    let active = non_empty_rows(signatures, num_perm);
    candidate_pairs(signatures, num_perm, bands, rows, &active)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(candidates(&sigs, 4, 2, 2).unwrap(), vec![(0, 2)]);
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
            assert_eq!(
                candidates(sigs, num_perm, bands, rows).unwrap(),
                want,
                "b={bands} r={rows}"
            );
            assert_eq!(
                rows_in_candidates(sigs, num_perm, bands, rows).unwrap(),
                in_pairs,
                "b={bands} r={rows}"
            );
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
    fn giant_buckets_flush_and_merge() {
        // 1,500 identical documents and 500 distinct ones: C(1500, 2) = 1,124,250 pairs per band,
        // more than one buffer; the second band repeats them all.
        let num_perm = 2;
        let mut sigs = vec![7u32; 2000 * num_perm];
        for i in 1500..2000 {
            sigs[i * num_perm] = i as u32;
            sigs[i * num_perm + 1] = i as u32;
        }
        let pairs = candidates(&sigs, num_perm, 2, 1).unwrap();
        assert_eq!(pairs.len(), 1500 * 1499 / 2);
        assert!(pairs.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(pairs[0], (0, 1));
        assert_eq!(*pairs.last().unwrap(), (1498, 1499));
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
