//! LSH banding over MinHash signatures.
//!
//! A signature of P slots is cut into b bands of r consecutive slots (b·r ≤ P; slots past b·r are
//! unused). Band t of a document hashes to the key XXH3-64(little-endian bytes of its r slots,
//! seed = t). Two documents whose keys agree in at least one band are a candidate pair; with
//! Jaccard s they become one with probability 1 - (1 - s^r)^b. The curve's usual landmark is
//! S* = (1/b)^(1/r), where that probability is 1 - (1 - 1/b)^b ≈ 1 - 1/e ≈ 0.63 (the exact
//! one-half point lies a little lower; `half_point` gives it).

use crate::error::{Error, Result};
use crate::hashing::hash_with_seed;
use crate::minhash::is_empty_signature;

/// Checks a similarity threshold: it must lie in (0, 1].
pub fn check_threshold(threshold: f64) -> Result<()> {
    if threshold > 0.0 && threshold <= 1.0 {
        Ok(())
    } else {
        Err(Error::new(format!(
            "threshold must be in (0, 1], got {threshold}"
        )))
    }
}

/// Checks a banding against the signature width.
pub fn check_banding(bands: usize, rows: usize, num_perm: usize) -> Result<()> {
    if bands < 1 || rows < 1 {
        return Err(Error::new(format!(
            "bands and rows must be at least 1, got b={bands}, r={rows}"
        )));
    }
    if bands.saturating_mul(rows) > num_perm {
        return Err(Error::new(format!(
            "bands * rows must not exceed num_perm: {bands} * {rows} > {num_perm}"
        )));
    }
    Ok(())
}

/// S* = (1/b)^(1/r): the landmark of the S-curve (collision probability ≈ 0.63 there).
pub fn s_star(bands: usize, rows: usize) -> f64 {
    (1.0 / bands as f64).powf(1.0 / rows as f64)
}

/// The similarity at which a pair collides in some band with probability exactly 1/2.
pub fn half_point(bands: usize, rows: usize) -> f64 {
    (1.0 - 0.5f64.powf(1.0 / bands as f64)).powf(1.0 / rows as f64)
}

/// Probability that a pair of Jaccard `s` shares at least one band: 1 - (1 - s^r)^b.
pub fn collision_probability(s: f64, bands: usize, rows: usize) -> f64 {
    1.0 - (1.0 - s.powi(rows as i32)).powi(bands as i32)
}

/// The banding for a threshold: the largest r whose S*, with b = floor(P / r), is still at or
/// below the threshold — the steepest S-curve that keeps the threshold on its high-recall side.
/// When no r qualifies (a threshold below 1/P), (P, 1) gives the most recall there is.
pub fn params(threshold: f64, num_perm: usize) -> Result<(usize, usize)> {
    check_threshold(threshold)?;
    if num_perm < 1 {
        return Err(Error::new(format!(
            "num_perm must be at least 1, got {num_perm}"
        )));
    }
    let best = (1..=num_perm)
        .map(|r| (num_perm / r, r))
        .filter(|&(b, r)| s_star(b, r) <= threshold + 1e-12)
        .max_by_key(|&(_, r)| r);
    Ok(best.unwrap_or((num_perm, 1)))
}

/// The key of band `band` of one signature; `bytes` is scratch of `rows * 4` bytes.
#[inline(always)]
fn band_key(signature: &[u32], band: usize, rows: usize, bytes: &mut [u8]) -> u64 {
    let slots = &signature[band * rows..(band + 1) * rows];
    for (chunk, slot) in bytes.chunks_exact_mut(4).zip(slots) {
        chunk.copy_from_slice(&slot.to_le_bytes());
    }
    hash_with_seed(bytes, band as u64)
}

/// Band keys of `n` signatures of `num_perm` slots each: `n * bands` keys, row-major.
pub fn band_keys(
    signatures: &[u32],
    num_perm: usize,
    bands: usize,
    rows: usize,
) -> Result<Vec<u64>> {
    check_banding(bands, rows, num_perm)?;
    let n = signatures.len() / num_perm;
    let mut keys = Vec::with_capacity(n * bands);
    let mut bytes = vec![0u8; rows * 4];
    for signature in signatures.chunks_exact(num_perm) {
        for band in 0..bands {
            keys.push(band_key(signature, band, rows, &mut bytes));
        }
    }
    Ok(keys)
}

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
            let row = &signatures[i as usize * num_perm..(i as usize + 1) * num_perm];
            *key = band_key(row, band, rows, &mut bytes);
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
    let pairs = pending.finish();
    if copies.members.is_empty() {
        return Ok(pairs.into_iter().map(decode).collect());
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
    Ok(expanded.finish().into_iter().map(decode).collect())
}

/// Groups of rows with identical signatures among `ids` (ascending).
struct IdenticalRows {
    /// The first row of every group (and every row without a copy), ascending.
    representatives: Vec<u32>,
    /// (representative, row) for every other row of a group, sorted.
    members: Vec<(u32, u32)>,
}

impl IdenticalRows {
    fn find(signatures: &[u32], num_perm: usize, ids: &[u32]) -> Self {
        let row = |i: u32| &signatures[i as usize * num_perm..(i as usize + 1) * num_perm];
        let mut bytes = vec![0u8; num_perm * 4];
        let mut keyed: Vec<(u64, u32)> = ids
            .iter()
            .map(|&i| {
                for (chunk, slot) in bytes.chunks_exact_mut(4).zip(row(i)) {
                    chunk.copy_from_slice(&slot.to_le_bytes());
                }
                (hash_with_seed(&bytes, 0x1D), i)
            })
            .collect();
        keyed.sort_unstable();
        let mut members = Vec::new();
        let mut start = 0;
        while start < keyed.len() {
            let end = start
                + keyed[start..]
                    .iter()
                    .take_while(|e| e.0 == keyed[start].0)
                    .count();
            // Within a run of equal hashes (ids ascending), rows equal to the run's first are its
            // copies; anything else (a 64-bit hash collision) simply stays a representative.
            let first = keyed[start].1;
            for &(_, i) in &keyed[start + 1..end] {
                if row(i) == row(first) {
                    members.push((first, i));
                }
            }
            start = end;
        }
        if members.is_empty() {
            return IdenticalRows {
                representatives: ids.to_vec(),
                members,
            };
        }
        members.sort_unstable();
        let mut copy = vec![false; ids.last().map_or(0, |&i| i as usize + 1)];
        for &(_, i) in &members {
            copy[i as usize] = true;
        }
        let representatives = ids.iter().copied().filter(|&i| !copy[i as usize]).collect();
        IdenticalRows {
            representatives,
            members,
        }
    }
}

/// Pair codes buffered before sorting; see [`candidate_pairs`]. 2^18 (2 MiB, and as much
/// again to radix-sort it) rather than 2^20: the same LSH time at 100,000 documents, 16 MiB
/// less peak memory.
const FLUSH_PAIRS: usize = 1 << 18;

struct PairBuffer {
    pending: Vec<u64>,
    scratch: Vec<u64>,
    sorted: Vec<u64>,
    merged: Vec<u64>,
    significant: usize,
}

impl PairBuffer {
    fn new(significant: usize, capacity: usize) -> Self {
        PairBuffer {
            pending: Vec::with_capacity(capacity),
            scratch: Vec::new(),
            sorted: Vec::new(),
            merged: Vec::new(),
            significant,
        }
    }

    #[inline]
    fn push(&mut self, code: u64) {
        // Flush when the buffer holds FLUSH_PAIRS codes or as many as are already sorted,
        // whichever is more: every merge then at least doubles what is merged, so a result of
        // m pairs costs O(m) merging in all, even when giant buckets make m huge.
        if self.pending.len() >= FLUSH_PAIRS && self.pending.len() >= self.sorted.len() {
            self.flush();
        }
        self.pending.push(code);
    }

    /// Sorts and de-duplicates the pending codes and merges them into `sorted`.
    fn flush(&mut self) {
        radix_sort_with(&mut self.pending, &mut self.scratch, self.significant);
        self.pending.dedup();
        if self.sorted.is_empty() {
            std::mem::swap(&mut self.sorted, &mut self.pending);
        } else {
            self.merged.clear();
            self.merged.reserve(self.sorted.len() + self.pending.len());
            let (a, b) = (&self.sorted, &self.pending);
            let (mut x, mut y) = (0, 0);
            while x < a.len() && y < b.len() {
                let (u, v) = (a[x], b[y]);
                self.merged.push(u.min(v));
                x += (u <= v) as usize;
                y += (v <= u) as usize;
            }
            self.merged.extend_from_slice(&a[x..]);
            self.merged.extend_from_slice(&b[y..]);
            std::mem::swap(&mut self.sorted, &mut self.merged);
        }
        self.pending.clear();
    }

    fn finish(mut self) -> Vec<u64> {
        self.flush();
        self.sorted
    }
}

#[derive(Clone, Copy)]
struct Slot {
    key: u64,
    head: u32,
    generation: u32,
}

const NONE: u32 = u32::MAX;

/// Sorts u64 values whose bits above `significant` are zero: LSD radix sort with digits of at
/// most 12 bits (as few passes as that allows), skipping every digit on which all values agree.
pub fn radix_sort(values: &mut Vec<u64>, significant: usize) {
    radix_sort_with(values, &mut Vec::new(), significant);
}

/// [`radix_sort`] with a caller-owned scratch buffer (resized as needed).
fn radix_sort_with(values: &mut Vec<u64>, buffer: &mut Vec<u64>, significant: usize) {
    const MAX_DIGIT: usize = 12;
    let significant = significant.clamp(1, 64);
    let passes = significant.div_ceil(MAX_DIGIT);
    let digit = significant.div_ceil(passes);
    let buckets = 1usize << digit;
    if values.len() < 256 {
        values.sort_unstable();
        return;
    }
    buffer.clear();
    buffer.resize(values.len(), 0);
    let mut shift = 0;
    let mut counts = vec![0usize; buckets];
    while shift < significant {
        counts.fill(0);
        for &v in values.iter() {
            counts[((v >> shift) as usize) & (buckets - 1)] += 1;
        }
        if counts.contains(&values.len()) {
            shift += digit;
            continue;
        }
        let mut total = 0;
        for c in counts.iter_mut() {
            let here = *c;
            *c = total;
            total += here;
        }
        for &v in values.iter() {
            let d = ((v >> shift) as usize) & (buckets - 1);
            buffer[counts[d]] = v;
            counts[d] += 1;
        }
        std::mem::swap(values, buffer);
        shift += digit;
    }
}

/// Fills `bucket` with (key of `band`, document) for every active document, sorted: equal keys
/// (one LSH bucket) are then consecutive, documents ascending within each.
pub fn sorted_band(
    keys: &[u64],
    bands: usize,
    band: usize,
    active: &[bool],
    bucket: &mut Vec<(u64, u32)>,
) {
    bucket.clear();
    bucket.extend(
        (0..active.len())
            .filter(|&i| active[i])
            .map(|i| (keys[i * bands + band], i as u32)),
    );
    bucket.sort_unstable();
}

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

/// Which rows of a signature matrix are not the empty set's signature.
pub fn non_empty_rows(signatures: &[u32], num_perm: usize) -> Vec<bool> {
    signatures
        .chunks_exact(num_perm)
        .map(|s| !is_empty_signature(s))
        .collect()
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
    fn article_banding_at_threshold_0_3() {
        assert_eq!(params(0.3, 128).unwrap(), (42, 3));
        assert!((s_star(42, 3) - 0.2876).abs() < 1e-3);
        assert_eq!(params(1.0, 128).unwrap(), (1, 128));
        assert_eq!(params(0.001, 4).unwrap(), (4, 1));
        assert!(params(0.0, 128).is_err());
        assert!(params(1.5, 128).is_err());
    }

    #[test]
    fn collision_probability_at_the_landmarks() {
        let p = collision_probability(s_star(20, 5), 20, 5);
        assert!(
            (p - (1.0 - (1.0 - 1.0 / 20.0f64).powi(20))).abs() < 1e-12,
            "{p}"
        );
        let half = collision_probability(half_point(42, 3), 42, 3);
        assert!((half - 0.5).abs() < 1e-12, "{half}");
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

    #[test]
    fn radix_sort_sorts() {
        let mut v: Vec<u64> = (0..10_000u64)
            .map(|i| crate::hashing::mix64(i) >> 20)
            .collect();
        let mut want = v.clone();
        want.sort_unstable();
        radix_sort(&mut v, 44);
        assert_eq!(v, want);
        let mut w: Vec<u64> = (0..5_000u64).map(crate::hashing::mix64).collect();
        let mut want = w.clone();
        want.sort_unstable();
        radix_sort(&mut w, 64);
        assert_eq!(w, want);
    }

    #[test]
    fn too_many_bands_is_an_error() {
        assert!(band_keys(&[0; 8], 4, 3, 2).is_err());
        assert!(check_banding(0, 1, 4).is_err());
    }
}
