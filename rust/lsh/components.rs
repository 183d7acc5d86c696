//! The connected components of the LSH bucket graph, without listing candidate pairs: what
//! exact verification in chunks needs to cut the documents into whole components.

use super::banding::check_banding;
use super::keys::{band_key, non_empty_rows};
use crate::cluster::UnionFind;
use crate::error::Result;
use crate::parallel::{check_threads, share_tasks};
use crate::rows::Rows;
use crate::shingle::SetSorter;

/// (component label of every document: the lowest document of its component, whether it
/// shares a bucket with another document in some band) of the graph linking documents whose
/// band keys (the keys of [`super::candidates`]) agree in some band. Empty signatures are in
/// no bucket. On `threads` threads each takes the next band not yet taken into a union-find
/// of its own; the union of their partitions is the same whatever the thread count.
///
/// A band's documents are grouped by one sort of u64 values, the key's top bits with the
/// document's index in the low `index_bits` (the bucket sort on top bits of the pair bound,
/// faster than sorting (key, index) pairs): two documents whose keys agree in those top bits
/// only are linked too. That only joins components, which verification then treats as one
/// chunk (its pairs come from the real buckets), with a chance of about
/// n^2 / 2^(65 - index_bits) per band: 3e-2 at n = 10^6, 3e-11 at 10^3.
pub fn bucket_components(
    signatures: &[u32],
    num_perm: usize,
    bands: usize,
    rows: usize,
    threads: usize,
) -> Result<(Vec<i64>, Vec<bool>)> {
    check_banding(bands, rows, num_perm)?;
    check_threads(threads)?;
    let active = non_empty_rows(signatures, num_perm);
    let n = active.len();
    let ids: Vec<u32> = (0..n as u32).filter(|&i| active[i as usize]).collect();
    let signature_rows = Rows::new(signatures, num_perm);
    let index_bits = (usize::BITS - n.max(2).saturating_sub(1).leading_zeros()) as u64;
    let index_mask = (1u64 << index_bits) - 1;
    let parts = share_tasks(
        bands,
        threads,
        || {
            let sets = UnionFind::new(n);
            let scratch = (Vec::with_capacity(ids.len()), vec![0u8; rows * 4]);
            (sets, vec![false; n], scratch, SetSorter::default())
        },
        |(sets, found, (bucket, bytes), sorter), band| {
            let Ok(sets) = sets else { return };
            bucket.clear();
            bucket.extend(ids.iter().map(|&i| {
                let key = band_key(signature_rows.row(i as usize), band, rows, bytes);
                (key & !index_mask) | i as u64
            }));
            sorter.sort(bucket);
            for run in bucket
                .chunk_by(|a, b| a >> index_bits == b >> index_bits)
                .filter(|run| run.len() > 1)
            {
                for pair in run.windows(2) {
                    sets.union((pair[0] & index_mask) as u32, (pair[1] & index_mask) as u32);
                }
                for &v in run {
                    found[(v & index_mask) as usize] = true;
                }
            }
        },
        |(sets, found, _, _)| sets.map(|sets| (sets, found)),
    )?;
    let mut all = UnionFind::new(n)?;
    let mut wanted = vec![false; n];
    for part in parts {
        let (mut sets, found) = part?;
        for i in 0..n as u32 {
            let root = sets.find(i);
            if root != i {
                all.union(i, root);
            }
        }
        wanted.iter_mut().zip(found).for_each(|(a, b)| *a |= b);
    }
    Ok((all.labels()?, wanted))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_are_those_of_the_candidate_pairs() {
        // Slots from a small alphabet: large buckets, chains across bands.
        let (n, num_perm, bands, rows) = (600, 12, 6, 2);
        let sigs: Vec<u32> = (0..n * num_perm)
            .map(|x| (crate::hashing::mix64(x as u64 * 7 + 1) % 9) as u32)
            .collect();
        let pairs = super::super::candidates(&sigs, num_perm, bands, rows, 1).unwrap();
        let edges: Vec<(i64, i64)> = pairs.iter().map(|&(a, b)| (a as i64, b as i64)).collect();
        let want_labels = crate::cluster::clusters(&edges, n).unwrap();
        let want_rows = super::super::rows_in_candidates(&sigs, num_perm, bands, rows, 1).unwrap();
        for threads in [1, 2, 3] {
            let (labels, wanted) =
                bucket_components(&sigs, num_perm, bands, rows, threads).unwrap();
            assert_eq!(labels, want_labels, "threads={threads}");
            assert_eq!(wanted, want_rows, "threads={threads}");
        }
    }
}
