//! One set against another: which documents of a corpus contain (or resemble) which queries.
//!
//! The queries (the small side: test items, a blocklist) are indexed once, as an exact
//! inverted index from shingle hash to the queries holding it; the corpus (the large side)
//! streams through in batches. For each corpus document every shingle hash is looked up
//! (most miss in a bit filter that stays in cache), the distinct hits are counted per query,
//! and a query's count is its exact intersection |Q ∩ D| with the document:
//!
//! * containment |Q ∩ D| / |Q| (how much of the query the document holds),
//! * Jaccard |Q ∩ D| / |Q ∪ D|.
//!
//! Every pair reaching the threshold is found (nothing is sampled or estimated: recall and
//! precision are 1 against exact set arithmetic on the same shingles), in time linear in the
//! corpus's shingles plus the postings of the shingles it shares with queries, and in memory
//! for the index (about 40 bytes per query shingle) plus one batch.

use crate::error::{filled_vec, reserve, Error, Result};
use crate::hashing::HashVersion;
use crate::parallel;
use crate::shingle::{SetSorter, Shingler, Unit};

/// What a pair's score is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measure {
    /// |Q ∩ D| / |Q|.
    Containment,
    /// |Q ∩ D| / |Q ∪ D|.
    Jaccard,
}

impl Measure {
    pub fn parse(name: &str) -> Result<Measure> {
        match name {
            "containment" => Ok(Measure::Containment),
            "jaccard" => Ok(Measure::Jaccard),
            other => Err(Error::new(format!(
                "measure must be 'containment' or 'jaccard', got {other:?}"
            ))),
        }
    }
}

/// The matches of one batch: `(query, document in the batch, score)`, by document then query.
pub type Found = Vec<(u32, u32, f32)>;

/// The queries' shingle sets as an exact inverted index: distinct hash → the queries holding it.
#[derive(Debug, Clone)]
pub struct QueryIndex {
    k: usize,
    unit: Unit,
    version: HashVersion,
    /// |Q| (distinct shingles) of each query.
    sizes: Vec<u32>,
    /// Open-addressing table of the distinct hashes: `(hash, number + 1)` (0 = free slot).
    table: Vec<(u64, u32)>,
    /// `64 - log2(table.len())`: a hash's home slot is its top bits.
    table_shift: u32,
    /// One bit per slot of a power-of-two bit array set for every distinct hash (top bits):
    /// about 16 bits per hash, so 15 of 16 hashes of no query stop here.
    filter: Vec<u64>,
    filter_shift: u32,
    /// The queries of distinct hash `d` are `postings[starts[d]..starts[d + 1]]`.
    starts: Vec<u32>,
    postings: Vec<u32>,
}

impl QueryIndex {
    /// Indexes `queries` on the shingle definition (`k`, `unit`, `version`). A query without
    /// shingles (no word) is an error naming it: its containment would be 0 / 0.
    pub fn new(queries: &[&str], k: usize, unit: Unit, version: HashVersion) -> Result<Self> {
        if queries.len() >= u32::MAX as usize {
            return Err(Error::new(format!(
                "at most {} queries, got {}",
                u32::MAX - 1,
                queries.len()
            )));
        }
        let mut shingler = Shingler::new(k, unit, version)?;
        let mut entries: Vec<(u64, u32)> = Vec::new();
        let mut set = Vec::new();
        let mut sizes = Vec::new();
        reserve(&mut sizes, queries.len(), "the query sizes")?;
        for (q, text) in queries.iter().enumerate() {
            set.clear();
            shingler.append_set(text, &mut set);
            if set.is_empty() {
                return Err(Error::input(
                    q,
                    format!("queries[{q}] has no words, so no shingles: nothing can contain it"),
                ));
            }
            if set.len() >= u32::MAX as usize {
                return Err(Error::input(
                    q,
                    format!("queries[{q}] has too many shingles"),
                ));
            }
            sizes.push(set.len() as u32);
            reserve(&mut entries, set.len(), "the query shingles")?;
            entries.extend(set.iter().map(|&h| (h, q as u32)));
        }
        if entries.len() >= u32::MAX as usize {
            return Err(Error::new("the queries hold more than 2**32 shingles"));
        }
        entries.sort_unstable();
        let mut postings = Vec::new();
        reserve(&mut postings, entries.len(), "the query postings")?;
        let mut starts: Vec<u32> = Vec::new();
        let mut distinct: Vec<u64> = Vec::new();
        for &(hash, q) in &entries {
            if distinct.last() != Some(&hash) {
                starts.push(postings.len() as u32);
                distinct.push(hash);
            }
            postings.push(q);
        }
        starts.push(postings.len() as u32);
        drop(entries);
        // Table at most half full; filter of about 16 bits per distinct hash.
        let table_bits = (usize::BITS - (2 * distinct.len()).max(8).leading_zeros()).min(40);
        let filter_bits = (table_bits + 3).max(9);
        let mut table = filled_vec(1usize << table_bits, (0u64, 0u32), "the query table")?;
        let mut filter = filled_vec(1usize << (filter_bits - 6), 0u64, "the query filter")?;
        let (table_shift, filter_shift) = (64 - table_bits, 64 - filter_bits);
        let mask = table.len() - 1;
        for (d, &hash) in distinct.iter().enumerate() {
            let bit = hash >> filter_shift;
            filter[(bit >> 6) as usize] |= 1 << (bit & 63);
            let mut slot = (hash >> table_shift) as usize;
            while table[slot].1 != 0 {
                slot = (slot + 1) & mask;
            }
            table[slot] = (hash, d as u32 + 1);
        }
        Ok(QueryIndex {
            k,
            unit,
            version,
            sizes,
            table,
            table_shift,
            filter,
            filter_shift,
            starts,
            postings,
        })
    }

    /// Number of queries.
    pub fn len(&self) -> usize {
        self.sizes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.sizes.is_empty()
    }

    /// |Q| of each query.
    pub fn sizes(&self) -> &[u32] {
        &self.sizes
    }

    /// Distinct shingle hashes indexed.
    pub fn distinct(&self) -> usize {
        self.starts.len() - 1
    }

    /// Bytes held by the index.
    pub fn bytes(&self) -> usize {
        self.sizes.len() * 4
            + self.table.len() * std::mem::size_of::<(u64, u32)>()
            + self.filter.len() * 8
            + (self.starts.len() + self.postings.len()) * 4
    }

    /// The number of the distinct hash `hash`, if a query holds it.
    #[inline]
    fn find(&self, hash: u64) -> Option<u32> {
        let bit = hash >> self.filter_shift;
        if self.filter[(bit >> 6) as usize] & (1 << (bit & 63)) == 0 {
            return None;
        }
        let mask = self.table.len() - 1;
        let mut slot = (hash >> self.table_shift) as usize;
        loop {
            let (key, number) = self.table[slot];
            if number == 0 {
                return None;
            }
            if key == hash {
                return Some(number - 1);
            }
            slot = (slot + 1) & mask;
        }
    }

    /// Every `(query, document, score)` of `documents` with score ≥ `threshold`, by document
    /// (index in `documents`) then query, on `threads` threads (the same result for every
    /// count). The comparison is made on the exact counts in double precision.
    pub fn matches(
        &self,
        documents: &[&str],
        measure: Measure,
        threshold: f64,
        threads: usize,
    ) -> Result<Found> {
        if !(threshold > 0.0 && threshold <= 1.0) {
            return Err(Error::new(format!(
                "threshold must be in (0, 1], got {threshold}"
            )));
        }
        if documents.len() >= u32::MAX as usize {
            return Err(Error::new("a batch holds at most 2**32 - 1 documents"));
        }
        let blocks = parallel::map_blocks(documents.len(), threads, |range| {
            self.match_block(&documents[range.clone()], range.start, measure, threshold)
        })?;
        let mut out = Vec::new();
        reserve(
            &mut out,
            blocks.iter().map(|b| b.as_ref().map_or(0, Vec::len)).sum(),
            "the matches",
        )?;
        for block in blocks {
            out.extend(block?);
        }
        Ok(out)
    }

    fn match_block(
        &self,
        documents: &[&str],
        first: usize,
        measure: Measure,
        threshold: f64,
    ) -> Result<Found> {
        let mut shingler = Shingler::new(self.k, self.unit, self.version)?;
        let mut sorter = SetSorter::default();
        let mut counts = filled_vec(self.sizes.len(), 0u32, "the query counters")?;
        let (mut hashes, mut hits, mut touched) = (Vec::new(), Vec::new(), Vec::new());
        let mut out = Vec::new();
        for (offset, text) in documents.iter().enumerate() {
            hashes.clear();
            shingler.hashes_into(text, &mut hashes);
            // Jaccard needs |D|: the document's distinct shingles.
            let size = match measure {
                Measure::Jaccard => sorter.sort_dedup(&mut hashes),
                Measure::Containment => hashes.len(),
            };
            hits.clear();
            hits.extend(hashes[..size].iter().filter_map(|&h| self.find(h)));
            if hits.is_empty() {
                continue;
            }
            // A shingle repeated in the document counts once.
            hits.sort_unstable();
            hits.dedup();
            touched.clear();
            for &d in &hits {
                let (a, b) = (self.starts[d as usize], self.starts[d as usize + 1]);
                for &q in &self.postings[a as usize..b as usize] {
                    let c = &mut counts[q as usize];
                    if *c == 0 {
                        touched.push(q);
                    }
                    *c += 1;
                }
            }
            let doc = (first + offset) as u32;
            let emitted = out.len();
            for &q in &touched {
                let shared = std::mem::take(&mut counts[q as usize]) as f64;
                let query = self.sizes[q as usize] as f64;
                let score = match measure {
                    Measure::Containment => shared / query,
                    Measure::Jaccard => shared / (query + size as f64 - shared),
                };
                if score >= threshold {
                    out.push((q, doc, score as f32));
                }
            }
            // Queries in increasing order: sorting the few kept costs less than sorting
            // every query touched (a phrase many queries share touches them all).
            out[emitted..].sort_unstable_by_key(|m| m.0);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jaccard::intersection_size_u64;

    fn set(text: &str, k: usize) -> Vec<u64> {
        let mut out = Vec::new();
        Shingler::new(k, Unit::Word, HashVersion::V2)
            .unwrap()
            .append_set(text, &mut out);
        out
    }

    /// Brute force: every pair's exact score from the two sorted sets.
    fn brute(queries: &[&str], docs: &[&str], k: usize, measure: Measure, t: f64) -> Found {
        let mut out = Vec::new();
        for (j, d) in docs.iter().enumerate() {
            let sd = set(d, k);
            for (i, q) in queries.iter().enumerate() {
                let sq = set(q, k);
                let shared = intersection_size_u64(&sq, &sd) as f64;
                let (q, d) = (sq.len() as f64, sd.len() as f64);
                let score = match measure {
                    Measure::Containment => shared / q,
                    Measure::Jaccard => shared / (q + d - shared),
                };
                if shared > 0.0 && score >= t {
                    out.push((i as u32, j as u32, score as f32));
                }
            }
        }
        out
    }

    #[test]
    fn finds_exactly_the_pairs_of_brute_force() {
        let queries = [
            "the quick brown fox jumps",
            "a b c d e f g",
            "lorem ipsum dolor sit amet consectetur",
            "a b c d e f g",
        ];
        let docs = [
            "once upon a time the quick brown fox jumps over the lazy dog",
            "x y a b c d e f z",
            "",
            "lorem ipsum dolor sit amet and more lorem ipsum dolor sit amet consectetur",
            "nothing here",
        ];
        for measure in [Measure::Containment, Measure::Jaccard] {
            for t in [0.1, 0.5, 0.75, 1.0] {
                let ix = QueryIndex::new(&queries, 3, Unit::Word, HashVersion::V2).unwrap();
                for threads in [1, 2] {
                    let found = ix.matches(&docs, measure, t, threads).unwrap();
                    assert_eq!(
                        found,
                        brute(&queries, &docs, 3, measure, t),
                        "{measure:?} {t}"
                    );
                }
            }
        }
    }

    #[test]
    fn containment_of_a_quoted_query_is_one() {
        let ix = QueryIndex::new(&["b c d e"], 2, Unit::Word, HashVersion::V2).unwrap();
        let found = ix
            .matches(&["a b c d e f", "b c x d e"], Measure::Containment, 0.5, 1)
            .unwrap();
        assert_eq!(found, vec![(0, 0, 1.0), (0, 1, (2.0 / 3.0) as f32)]);
        assert_eq!(ix.sizes(), &[3]);
        assert_eq!(ix.distinct(), 3);
    }

    #[test]
    fn bad_arguments_are_errors() {
        let e = QueryIndex::new(&["fine text", " ... "], 2, Unit::Word, HashVersion::V2);
        assert!(e.unwrap_err().message().contains("queries[1]"));
        let ix = QueryIndex::new(&["a b"], 2, Unit::Word, HashVersion::V2).unwrap();
        for t in [0.0, -1.0, 1.5, f64::NAN] {
            assert!(ix.matches(&["a b"], Measure::Containment, t, 1).is_err());
        }
        assert!(Measure::parse("cosine").is_err());
    }
}
