//! The searches that run on each partition alone (`within=`): exact Jaccard of all pairs and
//! the SimHash search within a radius, one call per partition of two or more documents, with
//! no pair across two (MinHash needs none of this: its salted signatures keep one LSH run
//! within the partitions).

use super::chunks::{gather, verify_candidates, SetSource, Verified};
use crate::error::{reserve, Result};
use crate::rows::Rows;
use crate::shingle::SetsView;

/// Pairs found within the partitions, sorted, with their values and the partitions' sizes.
pub struct WithinPartitions<V> {
    pub pairs: Vec<(u32, u32)>,
    pub values: Vec<V>,
    /// Every partition's size, in order of its key (one of all the rows without partitions).
    pub sizes: Vec<u64>,
}

/// `search(rows)` (pairs into `rows`, their values) on the rows of each partition of two or
/// more, `search(None)` on all `n` rows without `partitions`: the pairs as row numbers, sorted.
pub fn per_partition<V: Copy>(
    partitions: Option<&[u64]>,
    n: usize,
    mut search: impl FnMut(Option<&[u32]>) -> Result<(Vec<(u32, u32)>, Vec<V>)>,
) -> Result<WithinPartitions<V>> {
    let Some(keys) = partitions else {
        let (pairs, values) = search(None)?;
        return Ok(WithinPartitions {
            pairs,
            values,
            sizes: vec![n as u64],
        });
    };
    let mut order: Vec<u32> = (0..keys.len() as u32).collect();
    order.sort_by_key(|&row| keys[row as usize]); // stable: each partition's rows increasing
    let mut found: Vec<((u32, u32), V)> = Vec::new();
    let mut sizes = Vec::new();
    for rows in order.chunk_by(|&a, &b| keys[a as usize] == keys[b as usize]) {
        sizes.push(rows.len() as u64);
        if rows.len() < 2 {
            continue;
        }
        let (pairs, values) = search(Some(rows))?;
        reserve(&mut found, pairs.len(), "the pairs found")?;
        found.extend(
            pairs
                .into_iter()
                .map(|(a, b)| (rows[a as usize], rows[b as usize]))
                .zip(values),
        );
    }
    found.sort_unstable_by_key(|&(pair, _)| pair);
    let (pairs, values) = found.into_iter().unzip();
    Ok(WithinPartitions {
        pairs,
        values,
        sizes,
    })
}

/// The sets of `rows` (increasing) as CSR arrays of their own.
fn subset(sets: SetsView<'_>, rows: &[u32]) -> Result<(Vec<i64>, Vec<u64>)> {
    let mut offsets = Vec::new();
    reserve(
        &mut offsets,
        rows.len() + 1,
        "the offsets of a partition's sets",
    )?;
    offsets.push(0i64);
    let total: usize = rows.iter().map(|&r| sets.get(r as usize).len()).sum();
    let mut hashes = Vec::new();
    reserve(&mut hashes, total, "a partition's sets")?;
    for &r in rows {
        hashes.extend_from_slice(sets.get(r as usize));
        offsets.push(hashes.len() as i64);
    }
    Ok((offsets, hashes))
}

/// Every pair of the same partition whose exact Jaccard reaches `threshold` (brute force),
/// sorted, with it.
pub fn exact_jaccard_pairs(
    sets: SetsView<'_>,
    threshold: f64,
    partitions: Option<&[u64]>,
) -> Result<WithinPartitions<f32>> {
    per_partition(partitions, sets.len(), |rows| match rows {
        None => crate::jaccard::all_pairs(sets, threshold),
        Some(rows) => {
            let (offsets, hashes) = subset(sets, rows)?;
            crate::jaccard::all_pairs(SetsView::new(&offsets, &hashes)?, threshold)
        }
    })
}

/// The SimHash options of a run (checked once, by the plan).
#[derive(Clone, Copy, Debug)]
pub struct SimHashNear {
    pub max_distance: u32,
    pub bits: usize,
    pub threshold: f64,
    pub threads: usize,
    pub verify_budget: u64,
}

/// SimHash near pairs: the fingerprints within the radius of each other in each partition
/// ([`crate::hamming::within`]), with the similarity their distance estimates, or (`sets`
/// given) verified by exact Jaccard ([`verify_candidates`]); and the candidates found.
pub fn simhash_pairs(
    fingerprints: &[u64],
    words: usize,
    options: &SimHashNear,
    partitions: Option<&[u64]>,
    sets: Option<SetSource<'_>>,
) -> Result<(Verified, u64)> {
    let o = options;
    let all = Rows::new(fingerprints, words);
    if let Some(sets) = &sets {
        sets.check_documents(all.len())?;
    }
    let within = |part: &[u64]| {
        let active = vec![true; Rows::new(part, words).len()];
        crate::hamming::within(part, words, o.max_distance, &active, o.threads)
    };
    let found = per_partition(partitions, all.len(), |rows| match rows {
        None => within(fingerprints),
        Some(rows) => within(&gather(all, rows)?),
    })?;
    let candidates = found.pairs.len() as u64;
    let verified = match sets {
        Some(sets) => {
            verify_candidates(&found.pairs, sets, o.threshold, o.threads, o.verify_budget)?
        }
        None => Verified {
            similarity: found
                .values
                .iter()
                .map(|&d| (1.0 - d as f64 / o.bits as f64) as f32)
                .collect(),
            pairs: found.pairs,
            sets_read: None,
            chunks: 0,
        },
    };
    Ok((verified, candidates))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions_are_searched_alone_and_their_pairs_sorted() {
        // every pair of a partition, as its search would list them
        let keys = [7u64, 9, 7, 9, 3, 7];
        let found = per_partition(Some(&keys), 6, |rows| {
            let rows = rows.expect("partitioned");
            let n = rows.len() as u32;
            let pairs: Vec<(u32, u32)> = (0..n)
                .flat_map(|a| (a + 1..n).map(move |b| (a, b)))
                .collect();
            let values = pairs
                .iter()
                .map(|&(a, b)| rows[a as usize] * 10 + rows[b as usize])
                .collect();
            Ok((pairs, values))
        })
        .unwrap();
        assert_eq!(found.pairs, vec![(0, 2), (0, 5), (1, 3), (2, 5)]);
        assert_eq!(found.values, vec![2, 5, 13, 25]);
        assert_eq!(found.sizes, vec![1, 3, 2]);
    }
}
