//! Boilerplate stripping: the shingles in more than `max_df` of the documents (navigation,
//! licence text, disclaimers) are dropped from the shingle sets before signing, so that they
//! stop lifting the similarity of unrelated documents.
//!
//! A shingle is *frequent* when its document frequency `df` exceeds `max_df · n`, that is when
//! `df > floor(max_df · n + 1e-9)` ([`limit`]). [`frequent_shingles`] finds them in one
//! collection; [`FrequencyCounter`] finds exactly the same ones over a stream of batches in two
//! passes; [`remove_shingles`] drops them from sets. Sets are sorted and duplicate-free
//! ([`SetsView`]), so a shingle's occurrences are its documents.

use crate::error::{filled_vec, reserve, Error, Result};
use crate::shingle::SetsView;

/// Checks `0 < max_df <= 1` (NaN is refused).
pub fn check_max_df(max_df: f64) -> Result<f64> {
    if max_df > 0.0 && max_df <= 1.0 {
        Ok(max_df)
    } else {
        Err(Error::new(format!(
            "max_df must be in (0, 1], got {max_df}"
        )))
    }
}

/// The largest document count that is *not* frequent among `n` documents:
/// `df > max_df · n` ⇔ `df > floor(max_df · n + 1e-9)` (the slack absorbs rounding).
pub fn limit(n: usize, max_df: f64) -> u64 {
    (max_df * n as f64 + 1e-9).floor() as u64
}

/// Sorts `values` (any u64): one scatter into buckets of the high bits of `value - min`, then
/// each bucket, small enough for the cache, sorted on its own. Same result as `sort_unstable`.
fn sort_hashes(values: &[u64]) -> Result<Vec<u64>> {
    let mut out = Vec::new();
    reserve(&mut out, values.len(), "the sorted shingles")?;
    let (Some(&low), Some(&high)) = (values.iter().min(), values.iter().max()) else {
        return Ok(out);
    };
    let bits = (values.len() / 512).max(1).ilog2().min(16);
    let span = 64 - (high - low).leading_zeros();
    if values.len() < 4096 || span <= bits {
        out.extend_from_slice(values);
        out.sort_unstable();
        return Ok(out);
    }
    let shift = span - bits;
    let bucket = |v: u64| ((v - low) >> shift) as usize;
    let mut starts = filled_vec(1usize << bits, 0usize, "the sort buckets")?;
    for &v in values {
        starts[bucket(v)] += 1;
    }
    let mut total = 0;
    for s in starts.iter_mut() {
        (*s, total) = (total, total + *s);
    }
    let ends = starts.clone();
    out.resize(values.len(), 0);
    let mut next = starts;
    for &v in values {
        let b = bucket(v);
        out[next[b]] = v;
        next[b] += 1;
    }
    for (b, &start) in ends.iter().enumerate() {
        out[start..next[b]].sort_unstable();
    }
    Ok(out)
}

/// Below this limit [`more_than`] sorts every hash: counting buckets first pays only when a
/// bucket of hashes can be much smaller than the limit.
const BUCKETED_FROM: u64 = 64;

/// The distinct values of `hashes` that occur more than `limit` times, sorted.
///
/// A value that occurs more than `limit` times lies in a bucket (its top bits) of more than
/// `limit` hashes, so only those buckets are sorted: the buckets are sized for about a
/// quarter of the limit each, and with shingle hashes (uniform) only the buckets holding a
/// frequent shingle pass it. Any other distribution gives the same values, only slower.
fn more_than(hashes: &[u64], limit: u64) -> Result<Vec<u64>> {
    if hashes.len() as u64 <= limit {
        return Ok(Vec::new());
    }
    if limit < BUCKETED_FROM {
        return runs_longer_than(&sort_hashes(hashes)?, limit);
    }
    let buckets = (hashes.len() as u64 / (limit / 4)).clamp(2, 1 << 16);
    let bits = buckets.ilog2();
    let bucket = |v: u64| (v >> (64 - bits)) as usize;
    let mut sizes = filled_vec(1usize << bits, 0u64, "the shingle buckets")?;
    for &v in hashes {
        sizes[bucket(v)] += 1;
    }
    let hot: Vec<bool> = sizes.iter().map(|&size| size > limit).collect();
    let mut wanted = Vec::new();
    let in_hot: u64 = sizes.iter().filter(|&&size| size > limit).sum();
    reserve(
        &mut wanted,
        in_hot as usize,
        "the shingles of frequent buckets",
    )?;
    wanted.extend(hashes.iter().copied().filter(|&v| hot[bucket(v)]));
    runs_longer_than(&sort_hashes(&wanted)?, limit)
}

/// The values of `sorted` repeated more than `limit` times, once each.
fn runs_longer_than(sorted: &[u64], limit: u64) -> Result<Vec<u64>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let j = i + sorted[i..].partition_point(|&h| h == sorted[i]);
        if (j - i) as u64 > limit {
            out.push(sorted[i]);
        }
        i = j;
    }
    Ok(out)
}

/// The shingles in more than `max_df` of the documents of `sets`, sorted.
pub fn frequent_shingles(sets: SetsView, max_df: f64) -> Result<Vec<u64>> {
    let max_df = check_max_df(max_df)?;
    more_than(sets.hashes(), limit(sets.len(), max_df))
}

/// Sorted distinct keys with a bit filter in front: most hashes looked up are not keys, and
/// one bit read turns them away before any binary search.
#[derive(Debug, Clone)]
struct Lookup {
    keys: Vec<u64>,
    filter: Vec<u64>,
    shift: u32,
}

impl Lookup {
    /// `keys` must be sorted and distinct.
    fn new(keys: Vec<u64>) -> Result<Self> {
        let bits = (keys.len().max(1) * 16).next_power_of_two().max(64);
        let shift = 64 - bits.ilog2();
        let mut filter = filled_vec(bits / 64, 0u64, "the shingle filter")?;
        for &k in &keys {
            let at = Self::slot(k, shift);
            filter[at / 64] |= 1 << (at % 64);
        }
        Ok(Lookup {
            keys,
            filter,
            shift,
        })
    }

    #[inline]
    fn slot(hash: u64, shift: u32) -> usize {
        (hash.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> shift) as usize
    }

    /// The position of `hash` among the keys.
    #[inline]
    fn position(&self, hash: u64) -> Option<usize> {
        let at = Self::slot(hash, self.shift);
        if self.filter[at / 64] & (1 << (at % 64)) == 0 {
            return None;
        }
        self.keys.binary_search(&hash).ok()
    }
}

/// The shingles to drop (any order, repeats allowed), looked up fast: what
/// [`remove_shingles`] drops, and the sign pass strips from each set it signs.
#[derive(Debug, Clone)]
pub struct Dropped(Lookup);

impl Dropped {
    pub fn new(drop: &[u64]) -> Result<Self> {
        let mut keys = Vec::new();
        reserve(&mut keys, drop.len(), "the shingles to drop")?;
        keys.extend_from_slice(drop);
        keys.sort_unstable();
        keys.dedup();
        Ok(Dropped(Lookup::new(keys)?))
    }

    /// Whether `hash` is dropped.
    #[inline]
    pub fn contains(&self, hash: u64) -> bool {
        self.0.position(hash).is_some()
    }

    /// Removes the dropped shingles from `set` (order kept); returns how many went.
    pub fn strip(&self, set: &mut Vec<u64>) -> usize {
        let before = set.len();
        set.retain(|&h| !self.contains(h));
        before - set.len()
    }
}

/// Shingle sets with some shingles removed, and how many each document lost.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stripped {
    pub offsets: Vec<i64>,
    pub hashes: Vec<u64>,
    pub removed: Vec<i64>,
}

/// `sets` without the shingles in `drop` (any order, repeats allowed).
pub fn remove_shingles(sets: SetsView, drop: &[u64]) -> Result<Stripped> {
    let dropped = Dropped::new(drop)?;
    let n = sets.len();
    let mut removed = filled_vec(n, 0i64, "the removed counts")?;
    for (i, r) in removed.iter_mut().enumerate() {
        *r = sets.get(i).iter().filter(|&&h| dropped.contains(h)).count() as i64;
    }
    let total: i64 = removed.iter().sum();
    let mut hashes = Vec::new();
    reserve(
        &mut hashes,
        sets.hashes().len() - total as usize,
        "the stripped sets",
    )?;
    let mut offsets = filled_vec(n + 1, 0i64, "the stripped offsets")?;
    for i in 0..n {
        let set = sets.get(i);
        if removed[i] == 0 {
            hashes.extend_from_slice(set);
        } else {
            hashes.extend(set.iter().filter(|&&h| !dropped.contains(h)));
        }
        offsets[i + 1] = hashes.len() as i64;
    }
    Ok(Stripped {
        offsets,
        hashes,
        removed,
    })
}

/// Exact frequent-shingle detection over a stream of batches. A shingle in more than `max_df`
/// of all documents is in more than `max_df` of the documents of at least one batch
/// (pigeonhole): pass 1 ([`FrequencyCounter::add_candidates`]) keeps each batch's frequent
/// shingles as candidates, pass 2 ([`FrequencyCounter::count`]) counts the candidates exactly,
/// and [`FrequencyCounter::frequent`] gives what [`frequent_shingles`] gives on the whole.
#[derive(Debug, Clone)]
pub struct FrequencyCounter {
    max_df: f64,
    /// Pass 1's candidates not yet merged (sorted and distinct up to `merged`).
    pending: Vec<u64>,
    merged: usize,
    /// Whether pass 1 gave candidates (possibly none) since the last [`Self::count`].
    added: bool,
    /// Pass 2's candidates (sorted) and their document counts so far.
    candidates: Lookup,
    counts: Vec<i64>,
    n_docs: u64,
    counted: u64,
}

impl FrequencyCounter {
    pub fn new(max_df: f64) -> Result<Self> {
        Ok(FrequencyCounter {
            max_df: check_max_df(max_df)?,
            pending: Vec::new(),
            merged: 0,
            added: false,
            candidates: Lookup::new(Vec::new())?,
            counts: Vec::new(),
            n_docs: 0,
            counted: 0,
        })
    }

    pub fn max_df(&self) -> f64 {
        self.max_df
    }

    /// Documents seen by pass 1.
    pub fn n_docs(&self) -> u64 {
        self.n_docs
    }

    /// The candidates being counted (sorted; empty before the first [`Self::count`]).
    pub fn candidates(&self) -> &[u64] {
        &self.candidates.keys
    }

    /// Each candidate's document count so far.
    pub fn counts(&self) -> &[i64] {
        &self.counts
    }

    /// Pass 1: remembers the shingles frequent within this batch.
    pub fn add_candidates(&mut self, sets: SetsView) -> Result<()> {
        let n = sets.len();
        self.n_docs += n as u64;
        if n == 0 || sets.hashes().is_empty() {
            return Ok(());
        }
        let found = more_than(sets.hashes(), limit(n, self.max_df))?;
        reserve(&mut self.pending, found.len(), "the boilerplate candidates")?;
        self.pending.extend_from_slice(&found);
        self.added = true;
        if self.pending.len() > 2 * self.merged + 65_536 {
            self.merge();
        }
        Ok(())
    }

    fn merge(&mut self) {
        self.pending.sort_unstable();
        self.pending.dedup();
        self.merged = self.pending.len();
    }

    /// Pass 2: counts the candidates exactly in this batch.
    pub fn count(&mut self, sets: SetsView) -> Result<()> {
        if self.added {
            self.merge();
            self.counts = filled_vec(self.pending.len(), 0, "the candidate counts")?;
            self.candidates = Lookup::new(std::mem::take(&mut self.pending))?;
            (self.added, self.merged) = (false, 0);
        }
        self.counted += sets.len() as u64;
        if self.counts.is_empty() {
            return Ok(());
        }
        for &h in sets.hashes() {
            if let Some(at) = self.candidates.position(h) {
                self.counts[at] += 1;
            }
        }
        Ok(())
    }

    /// The shingles (sorted) in more than `max_df` of the documents of every batch.
    pub fn frequent(&self) -> Result<Vec<u64>> {
        if self.added {
            return Err(Error::new("call count() on every batch before frequent()"));
        }
        if self.counted != self.n_docs {
            return Err(Error::new(format!(
                "count() saw {} documents, add_candidates() saw {}",
                self.counted, self.n_docs
            )));
        }
        let limit = limit(self.n_docs as usize, self.max_df);
        let keys = self.candidates.keys.iter();
        Ok(keys
            .zip(&self.counts)
            .filter(|&(_, &count)| count as u64 > limit)
            .map(|(&hash, _)| hash)
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sets from lists of sorted distinct hashes.
    fn csr(docs: &[&[u64]]) -> (Vec<i64>, Vec<u64>) {
        let mut offsets = vec![0i64];
        let mut hashes = Vec::new();
        for d in docs {
            hashes.extend_from_slice(d);
            offsets.push(hashes.len() as i64);
        }
        (offsets, hashes)
    }

    /// A small pseudo-random generator (SplitMix64), for test data only.
    fn next(state: &mut u64) -> u64 {
        *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    #[test]
    fn limit_is_the_largest_count_not_frequent() {
        assert_eq!(limit(4, 0.5), 2);
        assert_eq!(limit(10, 0.1), 1); // 0.1 * 10 is 1.0000000000000002 or 0.999…: 1 either way
        assert_eq!(limit(3, 1.0 / 3.0), 1);
        assert_eq!(limit(0, 0.3), 0);
        assert!(check_max_df(0.0).is_err() && check_max_df(f64::NAN).is_err());
        assert!(check_max_df(1.5).is_err() && check_max_df(1.0).is_ok());
    }

    /// The values occurring more than `limit` times, by a count of each.
    fn counted_more_than(hashes: &[u64], limit: u64) -> Vec<u64> {
        let mut counts = std::collections::BTreeMap::new();
        for &h in hashes {
            *counts.entry(h).or_insert(0u64) += 1;
        }
        counts
            .into_iter()
            .filter(|&(_, c)| c > limit)
            .map(|(h, _)| h)
            .collect()
    }

    #[test]
    fn more_than_finds_every_frequent_value_whatever_the_distribution() {
        let mut state = 7u64;
        let mut next = move || {
            state = crate::hashing::mix64(state.wrapping_add(0x9E37_79B9_7F4A_7C15));
            state
        };
        for (uniform, frequent_values, limit) in [
            (200_000, 5, 1_000u64), // shingle hashes: a few frequent among many
            (200_000, 0, 1_000),
            (50_000, 30, 64),   // the smallest bucketed limit
            (50_000, 30, 63),   // the largest sorted one
            (10_000, 3, 5_000), // two buckets
        ] {
            let mut hashes: Vec<u64> = (0..uniform).map(|_| next()).collect();
            for f in 0..frequent_values {
                let value = next();
                // around the limit: some just above, some exactly at it (not frequent)
                let count = limit + (f % 3) as u64;
                hashes.extend(std::iter::repeat(value).take(count as usize));
            }
            // small integers: every one in bucket 0, the worst case for the buckets
            hashes.extend((0..limit + 1).map(|i| i % 2));
            let want = counted_more_than(&hashes, limit);
            assert_eq!(more_than(&hashes, limit).unwrap(), want, "limit {limit}");
        }
        assert!(more_than(&[5, 5, 5], 3).unwrap().is_empty());
        assert_eq!(more_than(&[5, 5, 5], 0).unwrap(), vec![5]);
    }

    #[test]
    fn sort_hashes_equals_sort_unstable() {
        let mut state = 7;
        for (n, mask) in [
            (0, !0),
            (10, !0),
            (5000, !0),
            (100_000, !0),
            (50_000, 0xFFF),
        ] {
            let v: Vec<u64> = (0..n).map(|_| next(&mut state) & mask).collect();
            let mut want = v.clone();
            want.sort_unstable();
            assert_eq!(sort_hashes(&v).unwrap(), want);
        }
        let edges = [u64::MAX, 0, u64::MAX, 1, 0];
        let many: Vec<u64> = edges.iter().cycle().take(10_000).copied().collect();
        let mut want = many.clone();
        want.sort_unstable();
        assert_eq!(sort_hashes(&many).unwrap(), want);
    }

    #[test]
    fn frequent_above_the_cut_only() {
        // shingle 1 in exactly half of the documents: kept at 0.5, frequent at 0.49
        let (o, h) = csr(&[&[1, 2], &[1, 3], &[4], &[5]]);
        let view = SetsView::new(&o, &h).unwrap();
        assert!(frequent_shingles(view, 0.5).unwrap().is_empty());
        assert_eq!(frequent_shingles(view, 0.49).unwrap(), vec![1]);
        let stripped = remove_shingles(view, &[1, 1, 99]).unwrap();
        assert_eq!(stripped.hashes, vec![2, 3, 4, 5]);
        assert_eq!(stripped.offsets, vec![0, 1, 2, 3, 4]);
        assert_eq!(stripped.removed, vec![1, 1, 0, 0]);
        let dropped = Dropped::new(&[3, 1, 1, 99]).unwrap();
        let mut set = vec![1, 2, 3, 4];
        assert_eq!(dropped.strip(&mut set), 2);
        assert_eq!(set, vec![2, 4]);
        assert!(dropped.contains(99) && !dropped.contains(2));
    }

    #[test]
    fn empty_collections() {
        let (o, h) = csr(&[]);
        let view = SetsView::new(&o, &h).unwrap();
        assert!(frequent_shingles(view, 0.1).unwrap().is_empty());
        assert_eq!(remove_shingles(view, &[3]).unwrap().offsets, vec![0]);
        let (o, h) = csr(&[&[], &[]]);
        let view = SetsView::new(&o, &h).unwrap();
        assert_eq!(remove_shingles(view, &[]).unwrap().removed, vec![0, 0]);
    }

    #[test]
    fn counter_over_batches_equals_the_whole() {
        let mut state = 11;
        let docs: Vec<Vec<u64>> = (0..300)
            .map(|_| {
                let mut d: Vec<u64> = (0..next(&mut state) % 40)
                    .map(|_| next(&mut state) % 500)
                    .collect();
                if next(&mut state) % 2 == 0 {
                    d.extend([10_000, 10_001]);
                }
                d.sort_unstable();
                d.dedup();
                d
            })
            .collect();
        let refs: Vec<&[u64]> = docs.iter().map(|d| d.as_slice()).collect();
        let (o, h) = csr(&refs);
        for max_df in [0.01, 0.05, 0.1, 0.5, 1.0] {
            let whole = frequent_shingles(SetsView::new(&o, &h).unwrap(), max_df).unwrap();
            for size in [1, 7, 64, 300] {
                let batches: Vec<(Vec<i64>, Vec<u64>)> = refs.chunks(size).map(csr).collect();
                let views = || batches.iter().map(|(o, h)| SetsView::new(o, h).unwrap());
                let mut fc = FrequencyCounter::new(max_df).unwrap();
                views().for_each(|v| fc.add_candidates(v).unwrap());
                assert!(fc.frequent().is_err(), "count() first");
                views().for_each(|v| fc.count(v).unwrap());
                assert_eq!(fc.frequent().unwrap(), whole, "{max_df} {size}");
            }
        }
    }

    #[test]
    fn counter_refuses_uneven_passes() {
        let (o, h) = csr(&[&[1], &[1]]);
        let view = SetsView::new(&o, &h).unwrap();
        let mut fc = FrequencyCounter::new(0.5).unwrap();
        fc.add_candidates(view).unwrap();
        fc.add_candidates(view).unwrap();
        fc.count(view).unwrap();
        let e = fc.frequent().unwrap_err();
        assert_eq!(
            e.message(),
            "count() saw 2 documents, add_candidates() saw 4"
        );
        assert!(FrequencyCounter::new(0.0).is_err());
    }
}
