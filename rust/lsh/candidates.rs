//! Candidate pairs: documents that share a bucket in some band, each pair once, sorted.

use super::banding::check_banding;
use super::copies::IdenticalRows;
use super::keys::{band_key, non_empty_rows};
use super::pair_buffer::{PairBuffer, FLUSH_PAIRS};
use crate::error::{reserve, Result};
use crate::parallel::{check_threads, map_tasks, share_tasks};
use crate::rows::Rows;

/// Every candidate pair i < j of the active rows, once, sorted by (i, j), on `threads` threads
/// (the same pairs whatever their number).
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
///
/// On several threads each thread takes the next band not yet taken into a sorted set of its
/// own, and the sets are merged (in parallel, by ranges of codes): the union of sorted,
/// distinct sets does not depend on which thread took which band. A pair colliding in bands of several
/// threads is held once per thread until the merge.
pub fn candidate_pairs(
    signatures: &[u32],
    num_perm: usize,
    bands: usize,
    rows: usize,
    active: &[bool],
    threads: usize,
) -> Result<Vec<(u32, u32)>> {
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
    // A pair is coded i·2^id_bits + j: 2·id_bits significant bits, the fewest radix passes.
    let id_bits = (usize::BITS - active.len().leading_zeros()) as usize;
    let found = share_tasks(
        bands,
        threads,
        || Bander::new(Rows::new(signatures, num_perm), rows, ids, id_bits),
        |bander, band| bander.band(band),
        |bander| bander.pending.finish(),
    )?;
    let pairs = merge_distinct(found.into_iter().collect::<Result<_>>()?, threads)?;
    let low = (1u64 << id_bits) - 1;
    let decode = |c: u64| ((c >> id_bits) as u32, (c & low) as u32);
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

/// The bucketing of one thread's bands: its scratch state and the pairs it found.
struct Bander<'a> {
    signatures: Rows<'a, u32>,
    rows: usize,
    ids: &'a [u32],
    id_bits: usize,
    part_bits: u32,
    keys: Vec<u64>,
    parted: Vec<(u64, u32)>,
    starts: Vec<usize>,
    next: Vec<u32>,
    table: Vec<Slot>,
    generation: u32,
    bytes: Vec<u8>,
    pending: PairBuffer,
}

impl<'a> Bander<'a> {
    fn new(signatures: Rows<'a, u32>, rows: usize, ids: &'a [u32], id_bits: usize) -> Self {
        let m = ids.len();
        // About 256 documents per partition.
        let part_bits = (usize::BITS - (m / 256).leading_zeros()).min(16);
        Bander {
            signatures,
            rows,
            ids,
            id_bits,
            part_bits,
            keys: vec![0u64; m],
            parted: vec![(0, 0); m],
            starts: vec![0usize; (1 << part_bits) + 1],
            next: vec![NONE; m],
            table: Vec::new(),
            generation: 0,
            bytes: vec![0u8; rows * 4],
            pending: PairBuffer::new(2 * id_bits, (m * 4).min(FLUSH_PAIRS)),
        }
    }

    fn part_of(&self, key: u64) -> usize {
        if self.part_bits == 0 {
            0
        } else {
            (key >> (64 - self.part_bits)) as usize
        }
    }

    /// Buckets band `band` and pushes the pairs of every bucket.
    fn band(&mut self, band: usize) {
        let parts = 1usize << self.part_bits;
        for (key, &i) in self.keys.iter_mut().zip(self.ids) {
            *key = band_key(
                self.signatures.row(i as usize),
                band,
                self.rows,
                &mut self.bytes,
            );
        }
        self.starts.fill(0);
        for k in 0..self.keys.len() {
            let p = self.part_of(self.keys[k]);
            self.starts[p + 1] += 1;
        }
        for p in 0..parts {
            self.starts[p + 1] += self.starts[p];
        }
        let mut fill = self.starts.clone();
        for pos in 0..self.keys.len() {
            let key = self.keys[pos];
            let p = self.part_of(key);
            self.parted[fill[p]] = (key, pos as u32);
            fill[p] += 1;
        }
        for p in 0..parts {
            let (lo, hi) = (self.starts[p], self.starts[p + 1]);
            if hi - lo >= 2 {
                self.bucket(lo..hi);
            }
        }
    }

    /// Buckets one partition of the band (`parted[range]`) in the open-addressing table.
    fn bucket(&mut self, range: std::ops::Range<usize>) {
        let capacity = (2 * range.len()).next_power_of_two();
        if self.table.len() < capacity {
            self.table.resize(
                capacity,
                Slot {
                    key: 0,
                    head: NONE,
                    generation: 0,
                },
            );
        }
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.table.iter_mut().for_each(|slot| slot.generation = 0);
            self.generation = 1;
        }
        let generation = self.generation;
        let mask = capacity - 1;
        let (ids, id_bits) = (self.ids, self.id_bits);
        for &(key, pos) in &self.parted[range] {
            // The band key is an XXH3 output: its low bits are uniform.
            let mut s = (key as usize) & mask;
            loop {
                let slot = &mut self.table[s];
                if slot.generation != generation {
                    *slot = Slot {
                        key,
                        head: pos,
                        generation,
                    };
                    self.next[pos as usize] = NONE;
                    break;
                }
                if slot.key == key {
                    let i = ids[pos as usize] as u64;
                    let mut member = slot.head;
                    while member != NONE {
                        self.pending
                            .push(((ids[member as usize] as u64) << id_bits) | i);
                        member = self.next[member as usize];
                    }
                    self.next[pos as usize] = slot.head;
                    slot.head = pos;
                    break;
                }
                s = (s + 1) & mask;
            }
        }
    }
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

#[derive(Clone, Copy)]
struct Slot {
    key: u64,
    head: u32,
    generation: u32,
}

const NONE: u32 = u32::MAX;

/// Which rows share a bucket with another active row in some band: the rows that appear in
/// some candidate pair, found without listing the pairs (a bucket of m rows costs m, not
/// m(m - 1)/2). On `threads` threads each takes the next band not yet taken; the rows found
/// are the union, the same whatever the thread count.
pub fn rows_in_candidates(
    signatures: &[u32],
    num_perm: usize,
    bands: usize,
    rows: usize,
    threads: usize,
) -> Result<Vec<bool>> {
    check_banding(bands, rows, num_perm)?;
    check_threads(threads)?;
    let active = non_empty_rows(signatures, num_perm);
    let ids: Vec<u32> = (0..active.len() as u32)
        .filter(|&i| active[i as usize])
        .collect();
    let signature_rows = Rows::new(signatures, num_perm);
    let found = share_tasks(
        bands,
        threads,
        || {
            let found = vec![false; active.len()];
            (found, Vec::with_capacity(ids.len()), vec![0u8; rows * 4])
        },
        |(found, bucket, bytes), band| {
            bucket.clear();
            bucket.extend(ids.iter().map(|&i| {
                let key = band_key(signature_rows.row(i as usize), band, rows, bytes);
                (key, i)
            }));
            bucket.sort_unstable();
            for run in bucket
                .chunk_by(|a, b| a.0 == b.0)
                .filter(|run| run.len() > 1)
            {
                for &(_, row) in run {
                    found[row as usize] = true;
                }
            }
        },
        |(found, _, _)| found,
    )?;
    let mut found = found.into_iter();
    let mut all = found.next().unwrap_or_else(|| vec![false; active.len()]);
    for more in found {
        all.iter_mut().zip(more).for_each(|(a, b)| *a |= b);
    }
    Ok(all)
}

/// All candidate pairs (i < j), sorted, found on `threads` threads.
pub fn candidates(
    signatures: &[u32],
    num_perm: usize,
    bands: usize,
    rows: usize,
    threads: usize,
) -> Result<Vec<(u32, u32)>> {
    check_banding(bands, rows, num_perm)?;
    let active = non_empty_rows(signatures, num_perm);
    candidate_pairs(signatures, num_perm, bands, rows, &active, threads)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lsh::keys::{band_keys, sorted_band};

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
        assert_eq!(candidates(&sigs, 4, 2, 2, 1).unwrap(), vec![(0, 2)]);
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
                    candidates(sigs, num_perm, bands, rows, threads).unwrap(),
                    want,
                    "b={bands} r={rows} threads={threads}"
                );
                assert_eq!(
                    rows_in_candidates(sigs, num_perm, bands, rows, threads).unwrap(),
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
        let pairs = candidates(&sigs, num_perm, 2, 1, 1).unwrap();
        assert_eq!(candidates(&sigs, num_perm, 2, 1, 2).unwrap(), pairs);
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
