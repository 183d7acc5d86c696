//! Exact verification from the sets the sign pass kept: held in memory, or read back from its
//! spill file, at once or one chunk of whole connected components at a time when the
//! candidates' sets are more than the verification budget.

use crate::error::{probe_allocation, reserve, Error, Result};
use crate::rows::{Rows, ScoredPairs};
use crate::shingle::SetsView;
use crate::spill::SetSpill;
use crate::verify::exact_pairs_at_least;

/// Where the unique documents' shingle sets are.
#[derive(Clone, Copy)]
pub enum SetSource<'a> {
    /// Every one in memory.
    Held(SetsView<'a>),
    /// Every one in the sign pass's spill file (finished).
    Spilled(&'a SetSpill),
}

impl SetSource<'_> {
    /// Checks that the source holds a set for each of the `n` documents searched (the
    /// signatures' rows), so a caller's mismatch is named as such rather than as a pair out of
    /// range.
    pub fn check_documents(&self, n: usize) -> Result<()> {
        let (held, what) = match self {
            SetSource::Held(view) => (view.len(), "held sets"),
            SetSource::Spilled(spill) => (spill.documents()?, "spilled sets"),
        };
        if held != n {
            return Err(Error::new(format!(
                "the {what} are {held} for {n} documents: one set per signature row"
            )));
        }
        Ok(())
    }
}

/// Verified pairs, with the sets read back from the spill to verify them when they were read
/// at once (the wanted documents' sets, the others empty: CSR offsets over every document).
pub struct Verified {
    pub pairs: Vec<(u32, u32)>,
    pub similarity: Vec<f32>,
    pub sets_read: Option<(Vec<i64>, Vec<u64>)>,
    /// Chunks read one at a time (0: the sets were held or read at once).
    pub chunks: usize,
}

impl Verified {
    /// Pairs verified on sets already in memory (or by the estimate): nothing was read back.
    pub fn held((pairs, similarity): ScoredPairs) -> Self {
        Verified {
            pairs,
            similarity,
            sets_read: None,
            chunks: 0,
        }
    }

    /// No pairs.
    pub fn none() -> Self {
        Verified::held((Vec::new(), Vec::new()))
    }

    /// Keeps the pairs of two documents with the same partition key (`keys`, one per
    /// document), with their similarities; returns how many were dropped.
    pub fn keep_within(&mut self, keys: &[u64]) -> u64 {
        let before = self.pairs.len();
        let mut kept = 0;
        for i in 0..before {
            let (a, b) = self.pairs[i];
            if keys[a as usize] == keys[b as usize] {
                self.pairs[kept] = self.pairs[i];
                self.similarity[kept] = self.similarity[i];
                kept += 1;
            }
        }
        self.pairs.truncate(kept);
        self.similarity.truncate(kept);
        (before - kept) as u64
    }
}

/// Per document: whether it is in some pair.
pub fn in_pairs(pairs: &[(u32, u32)], n: usize) -> Vec<bool> {
    let mut rows = vec![false; n];
    for &(a, b) in pairs {
        rows[a as usize] = true;
        rows[b as usize] = true;
    }
    rows
}

/// The chunk of each `wanted` document (-1 for the others): whole components (`labels`: each
/// one's lowest document) packed in order of their label, a chunk starting at each multiple of
/// `budget` shingles (`sizes`), so a chunk holds less than `budget` plus its last component;
/// numbered 0, 1, ... without gaps. None when they all fit in one.
pub fn chunk_of(labels: &[i64], wanted: &[bool], sizes: &[i64], budget: u64) -> Option<Vec<i64>> {
    let n = wanted.len();
    let size = |doc: usize| sizes[doc].max(0) as u64;
    let total: u64 = (0..n).filter(|&d| wanted[d]).map(size).sum();
    if sizes.len() != n || total <= budget {
        return None;
    }
    let budget = budget.max(1);
    let (mut weight, mut present) = (vec![0u64; n], vec![false; n]);
    for doc in (0..n).filter(|&d| wanted[d]) {
        let label = labels[doc] as usize;
        weight[label] += size(doc);
        present[label] = true;
    }
    // A component's first multiple of the budget: non-decreasing in label order, so the
    // chunks are its distinct values in turn.
    let mut number = vec![-1i64; n];
    let (mut before, mut last, mut chunk) = (0u64, None, -1i64);
    for label in (0..n).filter(|&c| present[c]) {
        let first = before / budget;
        if last != Some(first) {
            chunk += 1;
            last = Some(first);
        }
        number[label] = chunk;
        before += weight[label];
    }
    Some(
        (0..n)
            .map(|d| {
                if wanted[d] {
                    number[labels[d] as usize]
                } else {
                    -1
                }
            })
            .collect(),
    )
}

/// The sets of the `wanted` documents read back from `spill` in one go, the others empty:
/// (offsets int64[n + 1], hashes).
pub fn wanted_sets(spill: &SetSpill, wanted: &[bool]) -> Result<(Vec<i64>, Vec<u64>)> {
    let docs: Vec<i64> = (0..wanted.len() as i64)
        .filter(|&d| wanted[d as usize])
        .collect();
    let (own, hashes) = spill.read(&docs)?;
    let mut offsets = Vec::new();
    reserve(
        &mut offsets,
        wanted.len() + 1,
        "the offsets of the sets read",
    )?;
    offsets.push(0i64);
    let mut row = 0;
    for &want in wanted {
        if want {
            row += 1;
        }
        offsets.push(own[row]);
    }
    Ok((offsets, hashes))
}

/// `verify(members, their sets)` (pairs into `members`, similarities) of every chunk, each
/// read back from `spill` alone, as pairs of documents sorted (the order one call over every
/// set gives).
pub fn in_chunks(
    spill: &SetSpill,
    chunk: &[i64],
    mut verify: impl FnMut(&[u32], SetsView<'_>) -> Result<ScoredPairs>,
) -> Result<Verified> {
    let count = chunk.iter().max().map_or(0, |&c| (c + 1) as usize);
    let mut members: Vec<Vec<u32>> = vec![Vec::new(); count];
    for (doc, &c) in chunk.iter().enumerate() {
        if c >= 0 {
            members[c as usize].push(doc as u32);
        }
    }
    let chunks: Vec<Vec<i64>> = members
        .iter()
        .map(|docs| docs.iter().map(|&d| d as i64).collect())
        .collect();
    // One buffer, as large as the largest chunk's sets, takes every chunk in turn: a fresh one
    // per chunk was fresh pages each time, faulted in by the read (at 1,000,000 documents,
    // most of the command line's kernel time).
    let mut totals = Vec::with_capacity(chunks.len());
    for wide in &chunks {
        totals.push(*spill.read_offsets(wide)?.last().expect("m + 1 offsets") as usize);
    }
    let largest = totals.iter().copied().max().unwrap_or(0);
    probe_allocation(largest, 8, "the sets read from the spill")?;
    let mut hashes = vec![0u64; largest];
    let mut found: Vec<((u32, u32), f32)> = Vec::new();
    for ((docs, wide), &total) in members.iter().zip(&chunks).zip(&totals) {
        crate::parallel::check_interrupt()?;
        let offsets = spill.read_into(wide, &mut hashes[..total])?;
        let (pairs, similarity) = verify(docs, SetsView::new(&offsets, &hashes[..total])?)?;
        reserve(&mut found, pairs.len(), "the pairs verified")?;
        found.extend(
            pairs
                .into_iter()
                .map(|(a, b)| (docs[a as usize], docs[b as usize]))
                .zip(similarity),
        );
    }
    drop(hashes);
    trim_heap();
    found.sort_unstable_by_key(|&(pair, _)| pair);
    let (pairs, similarity) = found.into_iter().unzip();
    Ok(Verified {
        pairs,
        similarity,
        sets_read: None,
        chunks: count,
    })
}

/// Hands the C heap's free pages back to the system after the chunks (glibc's `malloc_trim`;
/// elsewhere nothing): the memory verification freed would otherwise stay in the peak RSS of
/// the stages after it.
fn trim_heap() {
    // SAFETY: malloc_trim only releases free memory of glibc's heap; it reads no pointer of
    // ours and has no precondition.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    unsafe {
        libc::malloc_trim(0);
    }
}

/// The rows of `members` of a row-major matrix `width` wide, gathered.
pub fn gather<T: Copy>(rows: Rows<'_, T>, members: &[u32]) -> Result<Vec<T>> {
    let mut out = Vec::new();
    reserve(&mut out, members.len() * rows.width(), "the rows gathered")?;
    for &m in members {
        out.extend_from_slice(rows.row(m as usize));
    }
    Ok(out)
}

/// The `candidates` (sorted pairs of unique documents) whose exact Jaccard reaches `threshold`,
/// with it: on the held sets, else on the candidates' sets read back from the spill, at once
/// (`sets_read`) or, past `budget` shingles, in chunks of whole components of the candidate
/// graph, each read and verified alone.
pub fn verify_candidates(
    candidates: &[(u32, u32)],
    sets: SetSource<'_>,
    threshold: f64,
    threads: usize,
    budget: u64,
) -> Result<Verified> {
    crate::progress::begin("verify", "pairs");
    let spill = match sets {
        SetSource::Held(view) => {
            check_pairs(candidates, view.len())?;
            return Ok(Verified::held(exact_pairs_at_least(
                view, candidates, threshold, threads,
            )?));
        }
        SetSource::Spilled(spill) => spill,
    };
    let sizes = spill.sizes()?;
    let n = sizes.len();
    check_pairs(candidates, n)?;
    let wanted = in_pairs(candidates, n);
    let mut components = crate::cluster::UnionFind::new(n)?;
    for &(a, b) in candidates {
        components.union(a, b);
    }
    let Some(chunk) = chunk_of(&components.labels()?, &wanted, &sizes, budget) else {
        let (offsets, hashes) = wanted_sets(spill, &wanted)?;
        let (pairs, similarity) = exact_pairs_at_least(
            SetsView::new(&offsets, &hashes)?,
            candidates,
            threshold,
            threads,
        )?;
        return Ok(Verified {
            pairs,
            similarity,
            sets_read: Some((offsets, hashes)),
            chunks: 0,
        });
    };
    // Each chunk's candidates, as rows of the chunk (both ends lie in one component).
    let mut at = vec![0u32; n];
    let count = chunk.iter().max().map_or(0, |&c| (c + 1) as usize);
    let mut of_chunk: Vec<Vec<(u32, u32)>> = vec![Vec::new(); count];
    let mut next = vec![0u32; count];
    for (doc, &c) in chunk.iter().enumerate() {
        if c >= 0 {
            at[doc] = next[c as usize];
            next[c as usize] += 1;
        }
    }
    for &(a, b) in candidates {
        of_chunk[chunk[a as usize] as usize].push((at[a as usize], at[b as usize]));
    }
    let mut chunks = of_chunk.into_iter();
    in_chunks(spill, &chunk, |_, view| {
        let pairs = chunks.next().expect("one list of candidates a chunk");
        exact_pairs_at_least(view, &pairs, threshold, threads)
    })
}

fn check_pairs(pairs: &[(u32, u32)], n: usize) -> Result<()> {
    match pairs
        .iter()
        .position(|&(a, b)| a as usize >= n || b as usize >= n)
    {
        None => Ok(()),
        Some(row) => Err(Error::new(format!(
            "pairs[{row}] = {:?} is out of range for {n} documents",
            pairs[row]
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_are_whole_components_packed_to_the_budget() {
        let labels = [0, 0, 2, 2, 4];
        let wanted = [true, true, true, true, false];
        let sizes = [4, 4, 4, 4, 9];
        assert_eq!(chunk_of(&labels, &wanted, &sizes, 16), None);
        assert_eq!(
            chunk_of(&labels, &wanted, &sizes, 8),
            Some(vec![0, 0, 1, 1, -1])
        );
        // a component past the budget skips multiples: the numbers stay consecutive
        let sizes = [40, 4, 4, 4, 9];
        assert_eq!(
            chunk_of(&labels, &wanted, &sizes, 8),
            Some(vec![0, 0, 1, 1, -1])
        );
        assert_eq!(
            chunk_of(&labels, &wanted, &sizes, 0),
            Some(vec![0, 0, 1, 1, -1])
        );
    }

    /// A small generator (xorshift) for the randomised cases.
    fn next(state: &mut u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }

    #[test]
    fn random_chunks_hold_whole_components_within_the_budget_and_its_last_one() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..50 {
            let n = 1 + (next(&mut state) % 60) as usize;
            let mut sets = crate::cluster::UnionFind::new(n).unwrap();
            let mut wanted = vec![false; n];
            for _ in 0..n / 2 {
                let (a, b) = (next(&mut state) as usize % n, next(&mut state) as usize % n);
                sets.union(a as u32, b as u32);
                wanted[a] = true;
                wanted[b] = true;
            }
            let labels = sets.labels().unwrap();
            let sizes: Vec<i64> = (0..n).map(|_| (next(&mut state) % 40) as i64).collect();
            let budget = next(&mut state) % 100;
            let total: i64 = (0..n).filter(|&d| wanted[d]).map(|d| sizes[d]).sum();
            let Some(chunk) = chunk_of(&labels, &wanted, &sizes, budget) else {
                assert!(total as u64 <= budget);
                continue;
            };
            let count = chunk.iter().max().map_or(0, |&c| c + 1);
            for c in 0..count {
                let members: Vec<usize> = (0..n).filter(|&d| chunk[d] == c).collect();
                assert!(!members.is_empty(), "numbered without gaps");
                let weight: i64 = members.iter().map(|&d| sizes[d]).sum();
                let biggest = members
                    .iter()
                    .map(|&d| {
                        let label = labels[d];
                        (0..n)
                            .filter(|&e| wanted[e] && labels[e] == label)
                            .map(|e| sizes[e])
                            .sum::<i64>()
                    })
                    .max()
                    .unwrap();
                assert!(weight as u64 <= budget.max(1) + biggest as u64);
            }
            for d in 0..n {
                assert_eq!(chunk[d] >= 0, wanted[d]);
                for e in 0..n {
                    if wanted[d] && wanted[e] && labels[d] == labels[e] {
                        assert_eq!(chunk[d], chunk[e], "a component lies in one chunk");
                    }
                }
            }
        }
    }

    #[test]
    fn spilled_sets_verify_as_the_held_ones_at_once_or_in_chunks() {
        // 40 sets over a small alphabet, so that many pairs pass a low threshold
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut offsets = vec![0i64];
        let mut hashes = Vec::new();
        for _ in 0..40 {
            let mut set: Vec<u64> = (0..next(&mut state) % 12)
                .map(|_| next(&mut state) % 16)
                .collect();
            set.sort_unstable();
            set.dedup();
            hashes.extend(set);
            offsets.push(hashes.len() as i64);
        }
        let held = SetsView::new(&offsets, &hashes).unwrap();
        let mut candidates: Vec<(u32, u32)> = (0..40u32)
            .flat_map(|a| (a + 1..40).map(move |b| (a, b)))
            .filter(|&(a, b)| (a * 7 + b * 3) % 5 == 0)
            .collect();
        candidates.sort_unstable();
        let want = verify_candidates(&candidates, SetSource::Held(held), 0.2, 1, 0).unwrap();
        assert!(!want.pairs.is_empty() && want.sets_read.is_none() && want.chunks == 0);
        let dir = std::env::temp_dir().join(format!("neardup-near-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir(&dir).unwrap();
        let mut spill = SetSpill::new(Some(dir.clone()));
        let rows: Vec<i64> = (0..40).collect();
        spill.add(&offsets, &hashes, &rows, &rows).unwrap();
        spill.finish(40).unwrap();
        for (budget, chunked) in [(u64::MAX, false), (10, true), (0, true)] {
            let got =
                verify_candidates(&candidates, SetSource::Spilled(&spill), 0.2, 2, budget).unwrap();
            assert_eq!(got.pairs, want.pairs);
            assert_eq!(got.similarity, want.similarity);
            assert_eq!(got.chunks > 1, chunked);
            assert_eq!(got.sets_read.is_some(), !chunked);
        }
        spill.close();
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_rows_of_pairs_are_marked() {
        assert_eq!(
            in_pairs(&[(0, 2), (2, 3)], 5),
            vec![true, false, true, true, false]
        );
    }
}
