//! Batched lookups against a persistent index's in-memory mirror: for each query signature,
//! the stored rows sharing one of its LSH band keys, verified by the MinHash estimate and
//! returned best first (optionally the top k).
//!
//! A band table is the band keys of some stored rows, sorted, with a directory on their top
//! bits: band keys are XXH3 hashes, so the directory splits them evenly and one lookup reads
//! one directory slot and the few keys behind it. A [`Mirror`] keeps a large main table and a
//! small delta table of recent additions; a query searches both.

mod split;

use crate::error::{Error, Result};
use crate::lsh;
use crate::lsh::groups::expected_recall_of;
use crate::lsh::BucketRule;
use crate::minhash::{equal_share, is_empty_signature};
use split::{Layout, Splits};

/// Multiplier mixing the band number into an index's stored band keys (index format 2).
const BAND_MIX: u64 = 0x9E37_79B9_7F4A_7C15;

/// The band keys an index stores, `n * bands` row-major: each band's hash (`lsh::band_keys`)
/// XOR `band * BAND_MIX`, so equal hashes in different bands are different keys in the one
/// key column of the SQLite table.
pub fn index_band_keys(
    signatures: &[u32],
    num_perm: usize,
    bands: usize,
    rows: usize,
) -> Result<Vec<u64>> {
    let mut keys = lsh::band_keys(signatures, num_perm, bands, rows)?;
    for row in keys.chunks_exact_mut(bands) {
        for (band, key) in row.iter_mut().enumerate() {
            *key ^= (band as u64).wrapping_mul(BAND_MIX);
        }
    }
    Ok(keys)
}

/// Sorted `(band key, row)` entries with a directory on the keys' top bits: keys with top
/// bits `t` are `entries[dir[t]..dir[t + 1]]`. A key and its row share a cache line; the
/// directory holds u32 offsets and about one slot per two entries, so it is a quarter of the
/// entries' size and mostly stays in cache (one memory miss per probe instead of two).
/// Buckets larger than the bucket rule's limit that are not dense are split as
/// `rust/lsh/groups.rs` splits them ([`split`]), so shared boilerplate cannot make a query's
/// candidates grow with the index.
#[derive(Default)]
struct BandTable {
    entries: Vec<(u64, u32)>,
    dir: Vec<u32>,
    /// `64 - bits` for a directory of `2**bits` slots.
    shift: u32,
    splits: Splits,
}

impl BandTable {
    /// The table of `(key, row)` entries of rows from `first` on (fewer than 2**32: the
    /// caller checks), its large buckets split by `rule`.
    fn build(
        mut entries: Vec<(u64, u32)>,
        first: usize,
        layout: &Layout,
        rule: BucketRule,
    ) -> BandTable {
        entries.sort_unstable();
        let splits = Splits::find(&entries, first, layout, rule);
        let bits = (usize::BITS - entries.len().max(4).leading_zeros()).clamp(3, 26) - 2;
        let shift = 64 - bits;
        let mut dir = vec![0u32; (1usize << bits) + 1];
        for &(key, _) in &entries {
            dir[(key >> shift) as usize + 1] += 1;
        }
        for t in 1..dir.len() {
            dir[t] += dir[t - 1];
        }
        BandTable {
            entries,
            dir,
            shift,
            splits,
        }
    }

    fn len(&self) -> usize {
        self.entries.len()
    }

    /// Appends the rows stored under each of `keys` (a query's, of signature `sig`, band
    /// after band of `rows` slots) to `out`: of a split bucket, the part the query lands in.
    /// Two passes (all directory slots, then all entries) so the memory loads of different
    /// keys are independent and overlap, instead of one cache miss after another.
    fn rows_of(
        &self,
        keys: &[u64],
        sig: &[u32],
        rows: usize,
        spans: &mut Vec<(usize, usize)>,
        out: &mut Vec<u32>,
    ) {
        if self.entries.is_empty() {
            return;
        }
        spans.clear();
        spans.extend(keys.iter().map(|&key| {
            let top = (key >> self.shift) as usize;
            (self.dir[top] as usize, self.dir[top + 1] as usize)
        }));
        for (band, (&key, &(start, end))) in keys.iter().zip(spans.iter()).enumerate() {
            if self.splits.has(key) {
                self.splits.follow(key, band, rows, sig, out);
                continue;
            }
            for &(k, row) in &self.entries[start..end] {
                if k == key {
                    out.push(row);
                }
            }
        }
    }
}

/// What to keep of each query's verified candidates.
#[derive(Clone, Copy)]
pub struct Selection {
    /// Minimum estimated similarity, compared in f64 as the Python side compares it (an f32
    /// threshold would round 0.3 up and drop an estimate of exactly 0.3).
    pub threshold: f64,
    /// Keep the best `top_k` (0 = all).
    pub top_k: usize,
}

/// Matches of each query: `offsets[q]..offsets[q + 1]` index `rows` and `similarity`, best
/// first, equal similarity by id (then by row).
#[derive(Debug, Default, PartialEq)]
pub struct Matches {
    pub offsets: Vec<usize>,
    pub rows: Vec<u32>,
    pub similarity: Vec<f32>,
}

/// The in-memory mirror of an index: stored signatures (row-major), their band keys, ids,
/// which rows are still present, a main band table and a small delta of recent additions (so
/// an append sorts the delta, not everything).
pub struct Mirror {
    num_perm: usize,
    bands: usize,
    rows_per_band: usize,
    /// When a bucket is split (`rust/lsh/groups.rs`).
    rule: BucketRule,
    signatures: Vec<u32>,
    keys: Vec<u64>,
    alive: Vec<bool>,
    /// UTF-8 bytes of every row's id, `id_bytes[id_ends[r - 1]..id_ends[r]]`: equal
    /// similarities are ordered by id here, as Python orders str (UTF-8 byte order is code
    /// point order), so a top-k cut is exact and the caller re-sorts nothing.
    id_bytes: Vec<u8>,
    id_ends: Vec<usize>,
    main: BandTable,
    delta: BandTable,
    /// Rows below this are in `main`, the others in `delta`.
    main_rows: usize,
}

/// The delta is merged into the main table once it holds this many rows, or an eighth of main.
const DELTA_ROWS: usize = 2000;

impl Mirror {
    /// An empty mirror; `rule` splits its large buckets (`BucketRule::WHOLE`: none).
    pub fn new(
        num_perm: usize,
        bands: usize,
        rows_per_band: usize,
        rule: BucketRule,
    ) -> Result<Mirror> {
        index_band_keys(&[], num_perm, bands, rows_per_band)?; // checks the banding
        if rule.limit < 2 {
            return Err(Error::new(format!(
                "bucket_limit must be at least 2, got {}",
                rule.limit
            )));
        }
        if !(0.0..=1.0).contains(&rule.threshold) {
            return Err(Error::new(format!(
                "threshold must be in [0, 1], got {}",
                rule.threshold
            )));
        }
        Ok(Mirror {
            num_perm,
            bands,
            rows_per_band,
            rule,
            signatures: Vec::new(),
            keys: Vec::new(),
            alive: Vec::new(),
            id_bytes: Vec::new(),
            id_ends: Vec::new(),
            main: BandTable::default(),
            delta: BandTable::default(),
            main_rows: 0,
        })
    }

    pub fn num_perm(&self) -> usize {
        self.num_perm
    }

    /// Stored rows (present or forgotten).
    pub fn len(&self) -> usize {
        self.alive.len()
    }

    pub fn is_empty(&self) -> bool {
        self.alive.is_empty()
    }

    /// The id of row `row`.
    pub fn id(&self, row: usize) -> &[u8] {
        let start = if row == 0 { 0 } else { self.id_ends[row - 1] };
        &self.id_bytes[start..self.id_ends[row]]
    }

    /// Appends rows (signatures `num_perm` wide) and their ids; rows with the empty set's
    /// signature are stored but never found. Returns the first new row.
    pub fn append<S: AsRef<[u8]>>(&mut self, signatures: &[u32], ids: &[S]) -> Result<usize> {
        let n = signatures.len() / self.num_perm;
        if signatures.len() != n * self.num_perm {
            return Err(Error::new(
                "append: signatures do not have num_perm columns",
            ));
        }
        if ids.len() != n {
            return Err(Error::new(format!(
                "append: {} ids for {n} signatures",
                ids.len()
            )));
        }
        let keys = index_band_keys(signatures, self.num_perm, self.bands, self.rows_per_band)?;
        // Rows and band-table offsets are u32.
        if self.len() + n > u32::MAX as usize || (self.len() + n) * self.bands > u32::MAX as usize {
            return Err(Error::new(format!(
                "the in-memory index holds at most {} documents with {} bands",
                u32::MAX as usize / self.bands,
                self.bands
            )));
        }
        let first = self.len();
        self.signatures.extend_from_slice(signatures);
        self.keys.extend_from_slice(&keys);
        self.alive.extend(
            signatures
                .chunks_exact(self.num_perm)
                .map(|s| !is_empty_signature(s)),
        );
        for id in ids {
            self.id_bytes.extend_from_slice(id.as_ref());
            self.id_ends.push(self.id_bytes.len());
        }
        let delta_rows = self.len() - self.main_rows;
        if delta_rows > DELTA_ROWS.max(self.main_rows / 8) {
            self.main = self.table(0);
            self.main_rows = self.len();
            self.delta = BandTable::default();
        } else {
            self.delta = self.table(self.main_rows);
        }
        Ok(first)
    }

    /// The band table of the present rows from `first` on.
    fn table(&self, first: usize) -> BandTable {
        let layout = Layout {
            signatures: &self.signatures,
            keys: &self.keys,
            num_perm: self.num_perm,
            bands: self.bands,
            rows: self.rows_per_band,
        };
        BandTable::build(self.entries(first), first, &layout, self.rule)
    }

    /// Buckets split (every part split again counted) in the band tables.
    pub fn bucket_splits(&self) -> u64 {
        self.main.splits.splits + self.delta.splits.splits
    }

    /// The mean over present rows of the chance that a partner at the rule's threshold
    /// shares a band key with the row, or the part of a split bucket it lands in: the
    /// banding's P(T), lowered by what splitting cost (as `rust/lsh/groups.rs` counts it).
    pub fn expected_recall(&self) -> f64 {
        let mut charged = Vec::new();
        let mut present = 0u64;
        for row in (0..self.len()).filter(|&r| self.alive[r]) {
            present += 1;
            let c = self.main.splits.charge(row) + self.delta.splits.charge(row);
            if c != 0 {
                charged.push(c);
            }
        }
        expected_recall_of(
            &charged,
            present,
            self.bands,
            self.rows_per_band,
            self.rule.threshold,
        )
    }

    /// The (key, row) entries of the present rows from `first` on.
    fn entries(&self, first: usize) -> Vec<(u64, u32)> {
        let b = self.bands;
        (first..self.len())
            .filter(|&row| self.alive[row])
            .flat_map(|row| {
                self.keys[row * b..(row + 1) * b]
                    .iter()
                    .map(move |&k| (k, row as u32))
            })
            .collect()
    }

    /// Marks rows as removed: lookups skip them from now on.
    pub fn forget(&mut self, rows: &[i64]) -> Result<()> {
        if let Some(&bad) = rows.iter().find(|&&r| r < 0 || r as usize >= self.len()) {
            return Err(Error::new(format!("forget: row {bad} is not in the index")));
        }
        for &r in rows {
            self.alive[r as usize] = false;
        }
        Ok(())
    }

    /// Band-table entries (main + delta), for tests and statistics.
    pub fn entry_count(&self) -> usize {
        self.main.len() + self.delta.len()
    }

    /// Best first: higher similarity, then smaller id, then smaller row (a total order: a
    /// similarity is never NaN).
    fn rank(&self, x: &(f32, u32), y: &(f32, u32)) -> std::cmp::Ordering {
        y.0.total_cmp(&x.0)
            .then_with(|| self.id(x.1 as usize).cmp(self.id(y.1 as usize)))
            .then(x.1.cmp(&y.1))
    }

    /// Keeps the best `select.top_k` of `scored` (all when 0), sorted best first.
    fn select(&self, scored: &mut Vec<(f32, u32)>, select: Selection) {
        if select.top_k > 0 && scored.len() > select.top_k {
            // partial select: only the k best are sorted
            scored.select_nth_unstable_by(select.top_k - 1, |x, y| self.rank(x, y));
            scored.truncate(select.top_k);
        }
        scored.sort_unstable_by(|x, y| self.rank(x, y));
    }

    /// For every query (row-major signatures, `query_sizes` its distinct shingles), the live
    /// rows whose estimated containment of the query reaches `select.threshold`: with Ĵ the
    /// share of equal slots, |Q ∩ D| ≈ Ĵ (|Q| + |D|) / (1 + Ĵ), divided by |Q| (at most 1);
    /// `stored_sizes` is |D| of every stored row. Every live row is compared (P slots each):
    /// band keys made for Jaccard cannot find a short query inside a long document.
    pub fn containment(
        &self,
        queries: &[u32],
        query_sizes: &[i64],
        stored_sizes: &[i64],
        select: Selection,
    ) -> Result<Matches> {
        let p = self.num_perm;
        let q = queries.len() / p;
        if queries.len() != q * p || query_sizes.len() != q {
            return Err(Error::new(
                "query signatures do not have num_perm columns, or not one size each",
            ));
        }
        if stored_sizes.len() != self.len() {
            return Err(Error::new(format!(
                "{} stored sizes for {} stored rows",
                stored_sizes.len(),
                self.len()
            )));
        }
        let mut out = Matches {
            offsets: Vec::with_capacity(q + 1),
            ..Matches::default()
        };
        out.offsets.push(0);
        let mut scored: Vec<(f32, u32)> = Vec::new();
        for (sig, &size) in queries.chunks_exact(p).zip(query_sizes) {
            scored.clear();
            if !is_empty_signature(sig) && size > 0 {
                let query = size as f64;
                for (row, stored) in self.signatures.chunks_exact(p).enumerate() {
                    if !self.alive[row] {
                        continue;
                    }
                    let j = f64::from(equal_share(sig, stored));
                    if j == 0.0 {
                        continue;
                    }
                    let shared = j * (query + stored_sizes[row] as f64) / (1.0 + j);
                    let c = (shared / query).min(1.0);
                    if c >= select.threshold {
                        scored.push((c as f32, row as u32));
                    }
                }
                self.select(&mut scored, select);
            }
            for &(s, row) in &scored {
                out.rows.push(row);
                out.similarity.push(s);
            }
            out.offsets.push(out.rows.len());
        }
        Ok(out)
    }

    /// Looks up every query (row-major signatures).
    pub fn lookup(&self, queries: &[u32], select: Selection) -> Result<Matches> {
        let (p, b) = (self.num_perm, self.bands);
        let q = queries.len() / p;
        if queries.len() != q * p {
            return Err(Error::new("query signatures do not have num_perm columns"));
        }
        let query_keys = index_band_keys(queries, p, b, self.rows_per_band)?;
        let mut out = Matches {
            offsets: Vec::with_capacity(q + 1),
            ..Matches::default()
        };
        out.offsets.push(0);
        // scratch reused by every query
        let mut candidates: Vec<u32> = Vec::new();
        let mut scored: Vec<(f32, u32)> = Vec::new();
        let mut spans: Vec<(usize, usize)> = Vec::with_capacity(b);
        for (sig, keys) in queries.chunks_exact(p).zip(query_keys.chunks_exact(b)) {
            candidates.clear();
            scored.clear();
            if !is_empty_signature(sig) {
                for table in [&self.main, &self.delta] {
                    table.rows_of(keys, sig, self.rows_per_band, &mut spans, &mut candidates);
                }
                candidates.sort_unstable();
                candidates.dedup();
                for &row in &candidates {
                    let r = row as usize;
                    if !self.alive[r] {
                        continue;
                    }
                    let s = equal_share(sig, &self.signatures[r * p..(r + 1) * p]);
                    if f64::from(s) >= select.threshold {
                        scored.push((s, row));
                    }
                }
                self.select(&mut scored, select);
            }
            for &(s, row) in &scored {
                out.rows.push(row);
                out.similarity.push(s);
            }
            out.offsets.push(out.rows.len());
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests;
