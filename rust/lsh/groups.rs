//! A band's buckets, bounded: the groups of documents every LSH stage pairs up.
//!
//! A bucket holds the documents whose band key agrees. Text that many documents share (a
//! footer, navigation, a licence) can hold the minima of a whole band for a good share of the
//! corpus, so one bucket of m unrelated documents would give m(m - 1)/2 candidates: quadratic
//! in n. A bucket larger than [`BucketRule::limit`] is therefore looked at before it is paired:
//!
//! - **dense** (at least 1/64 of a sample of its pairs have a MinHash estimate two standard
//!   errors above the threshold): listing its pairs is work within a constant factor of the
//!   output, and the bucket stays whole;
//! - otherwise it is **split** by one more signature slot (LSH-forest style: the slots after
//!   the band's own, cyclically), and each part of three or more is looked at again: kept
//!   whole when dense, else split on. Documents that share only boilerplate part ways within a
//!   few slots; near copies of one text stay together.
//!
//! A pair of Jaccard s that meets in a bucket split e times stays together with probability
//! s^e: the recall that costs is counted per document ([`SplitCost`]) and reported by the
//! callers as the run's expected recall, so it is never lowered silently.

use super::keys::band_key;
use crate::error::{Error, Result};
use crate::hashing::mix64;
use crate::rows::{prefetch_bytes, Rows};

/// When a bucket is split.
#[derive(Debug, Clone, Copy)]
pub struct BucketRule {
    /// Buckets of at most this many documents are never split (`usize::MAX`: none is).
    pub limit: usize,
    /// The Jaccard threshold: the dense test compares the estimate with it, and the recall
    /// cost of a split is counted at it.
    pub threshold: f64,
}

impl BucketRule {
    /// Every bucket whole, as plain LSH has it.
    pub const WHOLE: BucketRule = BucketRule {
        limit: usize::MAX,
        threshold: 1.0,
    };

    /// The rule of a call: `bucket_limit` None keeps every bucket whole; else at least 2.
    pub fn new(threshold: f64, bucket_limit: Option<usize>) -> Result<Self> {
        let limit = match bucket_limit {
            None => usize::MAX,
            Some(limit) if limit < 2 => {
                return Err(Error::new(format!(
                    "bucket_limit must be at least 2, got {limit}"
                )))
            }
            Some(limit) => limit,
        };
        Ok(BucketRule { limit, threshold })
    }
}

/// Pairs sampled from a large bucket to decide whether it is dense.
const DENSE_SAMPLE: usize = 256;
/// A bucket is dense when at least 1/DENSE_SHARE of its sampled pairs reach the threshold.
const DENSE_SHARE: usize = 64;
/// A sampled pair counts towards density when its estimate is this many standard errors of the
/// estimator at T above T.
const DENSE_MARGIN: f64 = 2.0;
/// Fixed-point scale of the per-document log-miss increments (exact integer sums, so the
/// total does not depend on which thread took which band).
const FIXED: f64 = (1u64 << 40) as f64;

/// What splitting cost in recall: per document, the increase of ln P(a partner at the
/// threshold is missed), in units of 2^-40, summed over the bands where it was split.
#[derive(Debug, Clone, Default)]
pub struct SplitCost {
    /// Per document (index into the signature rows).
    pub log_miss: Vec<i64>,
    /// Buckets split (counting every part split again).
    pub splits: u64,
}

impl SplitCost {
    pub fn new(n: usize) -> Self {
        SplitCost {
            log_miss: vec![0; n],
            splits: 0,
        }
    }

    /// Adds another thread's costs.
    pub fn add(&mut self, other: &SplitCost) {
        for (a, b) in self.log_miss.iter_mut().zip(&other.log_miss) {
            *a += b;
        }
        self.splits += other.splits;
    }

    /// The mean over `docs` (with their weights: copies count for their representative) of the
    /// chance that a partner at the threshold shares a kept bucket with the document, for a
    /// banding of `bands` × `rows` at `threshold`.
    pub fn expected_recall(
        &self,
        docs: impl Iterator<Item = (u32, u64)>,
        bands: usize,
        rows: usize,
        threshold: f64,
    ) -> f64 {
        let base = log_miss_at(bands, rows, threshold);
        let (mut total, mut weight) = (0.0, 0u64);
        for (doc, w) in docs {
            total += kept_chance(base, self.log_miss[doc as usize]) * w as f64;
            weight += w;
        }
        if weight == 0 {
            -(base.exp_m1())
        } else {
            total / weight as f64
        }
    }
}

/// ln P(a partner at the threshold is missed by every band), splits aside.
fn log_miss_at(bands: usize, rows: usize, threshold: f64) -> f64 {
    bands as f64 * (-threshold.powi(rows as i32)).ln_1p()
}

/// The chance a partner at the threshold is found, for a document charged `log_miss`.
fn kept_chance(base: f64, log_miss: i64) -> f64 {
    1.0 - (base + log_miss as f64 / FIXED).exp().min(1.0)
}

/// [`SplitCost::expected_recall`] over `documents` documents of weight one, of which those
/// charged by splits have the (summed, per document) costs `charged` and the rest none: for
/// an executor that adds up each document's charges from `bucket::split_bucket` itself. Equal to
/// the local figure up to the order of the floating-point sum.
pub fn expected_recall_of(
    charged: &[i64],
    documents: u64,
    bands: usize,
    rows: usize,
    threshold: f64,
) -> f64 {
    let base = log_miss_at(bands, rows, threshold);
    let plain = -(base.exp_m1());
    if documents == 0 {
        return plain;
    }
    let uncharged = documents.saturating_sub(charged.len() as u64);
    let total: f64 =
        charged.iter().map(|&c| kept_chance(base, c)).sum::<f64>() + plain * uncharged as f64;
    total / documents as f64
}

/// Groups the documents of one band at a time; owns its scratch (one per thread).
pub(crate) struct Grouper<'a> {
    signatures: Rows<'a, u32>,
    rows: usize,
    ids: &'a [u32],
    rule: BucketRule,
    part_bits: u32,
    keys: Vec<u64>,
    parted: Vec<(u64, u32)>,
    starts: Vec<usize>,
    next: Vec<u32>,
    table: Vec<Slot>,
    generation: u32,
    bytes: Vec<u8>,
    group: Vec<u32>,
    work: Vec<(u32, u32)>,
    /// Miss increments of a split at depth 1, 2, ... (index depth - 1).
    depth_cost: Vec<i64>,
    pub cost: Option<SplitCost>,
    /// The parts of every bucket split, when asked for ([`Grouper::with_tree`]).
    pub tree: Option<SplitTree>,
}

/// The parts of split buckets, for a lookup that follows a query down them: each part is
/// named by its path (the band key chained with the slot values its members share, one per
/// split: [`path_step`]); a part split again is `inner`, a part kept whole (two or more
/// documents) or a document left alone by a split is a `leaf`. A document whose band key is
/// that of a split bucket meets, in that band, exactly the members of the leaf its own slot
/// values lead to (none when they lead nowhere), as it would had it been grouped with them.
#[derive(Debug, Clone, Default)]
pub struct SplitTree {
    /// Paths of the parts split again (the bucket's own path is its band key).
    pub inner: Vec<u64>,
    /// (path, start, end) of each leaf in `members`.
    pub leaves: Vec<(u64, usize, usize)>,
    /// The leaves' members, leaf after leaf (ascending within a leaf).
    pub members: Vec<u32>,
}

/// The path of the part of `path` whose members have `value` in the slot of the next split.
#[inline]
pub fn path_step(path: u64, value: u32) -> u64 {
    mix64(path ^ mix64(u64::from(value) ^ 0xA076_1D64_78BD_642F))
}

/// The slot a part of band `band` (`rows` slots a band, `width` slots a signature) is split by
/// at `depth` (0 for the bucket itself): the slots after the band's own, cyclically.
#[inline]
pub fn split_slot(band: usize, rows: usize, depth: usize, width: usize) -> usize {
    (band * rows + rows + depth) % width
}

#[derive(Clone, Copy)]
struct Slot {
    key: u64,
    head: u32,
    generation: u32,
}

const NONE: u32 = u32::MAX;

/// Documents ahead whose band slots [`Grouper::band`] prefetches.
const KEY_PREFETCH: usize = 16;

impl<'a> Grouper<'a> {
    /// A grouper of the documents `ids` (ascending; no two with identical signatures, or
    /// splitting may never separate them); `cost`: count what splits cost in recall.
    pub fn new(
        signatures: Rows<'a, u32>,
        rows: usize,
        ids: &'a [u32],
        rule: BucketRule,
        cost: bool,
    ) -> Self {
        let m = ids.len();
        // About 256 documents per partition: each partition's table stays in L1 cache.
        let part_bits = (usize::BITS - (m / 256).leading_zeros()).min(16);
        let per_band = rule.threshold.powi(rows as i32);
        let extra = signatures.width().saturating_sub(rows);
        let depth_cost = (1..=extra)
            .map(|e| {
                let kept = per_band * rule.threshold.powi(e as i32);
                (((-kept).ln_1p() - (-per_band).ln_1p()) * FIXED).round() as i64
            })
            .collect();
        Grouper {
            signatures,
            rows,
            ids,
            rule,
            part_bits,
            keys: vec![0u64; m],
            parted: vec![(0, 0); m],
            starts: vec![0usize; (1 << part_bits) + 1],
            next: vec![NONE; m],
            table: Vec::new(),
            generation: 0,
            bytes: vec![0u8; rows * 4],
            group: Vec::new(),
            work: Vec::new(),
            depth_cost,
            cost: cost.then(|| SplitCost::new(signatures.len())),
            tree: None,
        }
    }

    /// This grouper, recording the parts of every bucket it splits in [`Grouper::tree`].
    pub fn with_tree(mut self) -> Self {
        self.tree = Some(SplitTree::default());
        self
    }

    fn part_of(&self, key: u64) -> usize {
        if self.part_bits == 0 {
            0
        } else {
            (key >> (64 - self.part_bits)) as usize
        }
    }

    /// Calls `visit` with every group (two or more documents, ascending) of band `band`.
    pub fn band(&mut self, band: usize, visit: &mut impl FnMut(&[u32])) {
        let parts = 1usize << self.part_bits;
        let (ids, at) = (self.ids, band * self.rows);
        for (k, (key, &i)) in self.keys.iter_mut().zip(ids).enumerate() {
            // One document's band slots are 4·num_perm bytes after the previous one's (eight
            // to a 4 KB page at P = 128): the hardware prefetcher loses that stride at every
            // page, so the slots are fetched KEY_PREFETCH documents ahead.
            if let Some(&ahead) = ids.get(k + KEY_PREFETCH) {
                prefetch_bytes(
                    self.signatures.row(ahead as usize)[at..].as_ptr() as *const u8,
                    4 * self.rows,
                );
            }
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
                self.partition(band, lo..hi, visit);
            }
        }
    }

    /// Buckets one partition of the band (`parted[range]`) in the open-addressing table (a
    /// bucket is a chain through `next`), then visits each bucket of two or more.
    fn partition(
        &mut self,
        band: usize,
        range: std::ops::Range<usize>,
        visit: &mut impl FnMut(&[u32]),
    ) {
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
        let mut heads = Vec::new();
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
                    heads.push(s as u32);
                    break;
                }
                if slot.key == key {
                    self.next[pos as usize] = slot.head;
                    slot.head = pos;
                    break;
                }
                s = (s + 1) & mask;
            }
        }
        for s in heads {
            let (head, key) = (self.table[s as usize].head, self.table[s as usize].key);
            if self.next[head as usize] == NONE {
                continue; // a bucket of one
            }
            self.group.clear();
            let mut member = head;
            while member != NONE {
                self.group.push(self.ids[member as usize]);
                member = self.next[member as usize];
            }
            self.group.reverse(); // inserted in ascending order, chained newest first
            self.visit_group(band, key, visit);
        }
    }

    /// Visits the groups of one bucket of band `band` with band key `key` whose members are
    /// `members` (ascending; from the grouper's `ids`): the groups [`Grouper::band`] gives for
    /// that bucket, for an executor that gathered the bucket itself (`bucket::split_bucket`).
    pub fn bucket(
        &mut self,
        band: usize,
        key: u64,
        members: &[u32],
        visit: &mut impl FnMut(&[u32]),
    ) {
        if members.len() < 2 {
            return;
        }
        self.group.clear();
        self.group.extend_from_slice(members);
        self.visit_group(band, key, visit);
    }

    /// The bucket in `self.group`: whole when at most the limit, else split.
    fn visit_group(&mut self, band: usize, key: u64, visit: &mut impl FnMut(&[u32])) {
        if self.group.len() <= self.rule.limit {
            visit(&self.group);
        } else {
            self.split(band, key, visit);
        }
    }

    /// Visits the groups of the large bucket in `self.group`: whole if dense, else split by
    /// one more slot at a time until each part is small or dense.
    ///
    /// Every choice depends on the members' signatures and their order only (never on their
    /// indices), so any executor that groups the same documents finds the same parts.
    fn split(&mut self, band: usize, key: u64, visit: &mut impl FnMut(&[u32])) {
        let extra = self.signatures.width() - self.rows;
        self.work.clear();
        self.work.extend(self.group.iter().map(|&i| (0, i)));
        // (start, end, depth) of the parts still to look at.
        let mut stack = vec![(0usize, self.work.len(), 0usize, key)];
        while let Some((start, end, depth, path)) = stack.pop() {
            // A part split off a large bucket that is not dense is boilerplate's doing: it is
            // split on down to pairs, so its documents add no candidates.
            let size = end - start;
            let whole =
                size <= 2 || depth >= extra || self.dense(&self.work[start..end], key, depth);
            if whole {
                self.group.clear();
                self.group
                    .extend(self.work[start..end].iter().map(|&(_, i)| i));
                self.group.sort_unstable();
                self.charge(start..end, depth);
                if let Some(tree) = &mut self.tree {
                    let at = tree.members.len();
                    tree.members.extend_from_slice(&self.group);
                    tree.leaves.push((path, at, tree.members.len()));
                }
                visit(&self.group);
                continue;
            }
            if let Some(cost) = &mut self.cost {
                cost.splits += 1;
            }
            if let Some(tree) = &mut self.tree {
                tree.inner.push(path);
            }
            let slot = split_slot(band, self.rows, depth, self.signatures.width());
            for entry in &mut self.work[start..end] {
                entry.0 = self.signatures.row(entry.1 as usize)[slot];
            }
            self.work[start..end].sort_unstable();
            let mut at = start;
            while at < end {
                let value = self.work[at].0;
                let run = self.work[at..end]
                    .iter()
                    .take_while(|e| e.0 == value)
                    .count();
                let part = path_step(path, value);
                if run >= 2 {
                    stack.push((at, at + run, depth + 1, part));
                } else {
                    self.charge(at..at + 1, depth + 1);
                    if let Some(tree) = &mut self.tree {
                        let at_member = tree.members.len();
                        tree.members.push(self.work[at].1);
                        tree.leaves.push((part, at_member, at_member + 1));
                    }
                }
                at += run;
            }
        }
    }

    /// Counts a split at `depth` against the documents of `work[range]`.
    fn charge(&mut self, range: std::ops::Range<usize>, depth: usize) {
        if depth == 0 {
            return;
        }
        if let Some(cost) = &mut self.cost {
            let add = self.depth_cost[depth.min(self.depth_cost.len()) - 1];
            for &(_, i) in &self.work[range] {
                cost.log_miss[i as usize] += add;
            }
        }
    }

    /// Whether at least 1/DENSE_SHARE of a fixed sample of the part's pairs have a MinHash
    /// estimate clearly above the threshold (by DENSE_MARGIN standard errors).
    fn dense(&self, part: &[(u32, u32)], key: u64, depth: usize) -> bool {
        let m = part.len();
        let width = self.signatures.width();
        // Two standard errors above T: a bucket of pairs just below T (their estimates
        // scattered around it) must not pass for dense.
        let t = self.rule.threshold;
        let margin = DENSE_MARGIN * (t * (1.0 - t) / width as f64).sqrt();
        let need = ((t + margin) * width as f64).ceil() as usize;
        // Seeded by what the members share (the band key, the slot value of the last split)
        // and the part's size.
        let mut state = mix64(key ^ mix64((depth as u64) << 32 ^ m as u64)) ^ part[0].0 as u64;
        let mut likely = 0;
        for _ in 0..DENSE_SAMPLE {
            state = mix64(state.wrapping_add(0x9E37_79B9_7F4A_7C15));
            let a = (state % m as u64) as usize;
            let b = ((state >> 32) % (m as u64 - 1)) as usize;
            let b = if b >= a { b + 1 } else { b };
            let (x, y) = (
                self.signatures.row(part[a].1 as usize),
                self.signatures.row(part[b].1 as usize),
            );
            let equal: usize = x.iter().zip(y).map(|(p, q)| (p == q) as usize).sum();
            likely += (equal >= need) as usize;
        }
        likely * DENSE_SHARE >= DENSE_SAMPLE
    }
}

#[cfg(test)]
#[path = "groups_tests.rs"]
mod tests;
