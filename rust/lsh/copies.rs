//! Documents with identical signatures share every band: banding sees one of each group.

use crate::error::{reserve, Result};
use crate::hashing::hash_with_seed;
use crate::parallel::{map_blocks, sort_unstable};
use crate::rows::Rows;

/// Groups of rows with identical signatures among `ids` (ascending).
pub(crate) struct IdenticalRows {
    /// The first row of every group (and every row without a copy), ascending.
    pub representatives: Vec<u32>,
    /// (representative, row) for every other row of a group, sorted.
    pub members: Vec<(u32, u32)>,
}

impl IdenticalRows {
    /// The groups, hashing and sorting on `threads` threads (the same groups whatever their
    /// number: the (hash, row) keys are distinct, so their sorted order is unique).
    pub(crate) fn find(
        signatures: &[u32],
        num_perm: usize,
        ids: &[u32],
        threads: usize,
    ) -> Result<Self> {
        let signature_rows = Rows::new(signatures, num_perm);
        let row = |i: u32| signature_rows.row(i as usize);
        let blocks = map_blocks(ids.len(), threads, |block| {
            let mut bytes = vec![0u8; num_perm * 4];
            ids[block]
                .iter()
                .map(|&i| {
                    for (chunk, slot) in bytes.chunks_exact_mut(4).zip(row(i)) {
                        chunk.copy_from_slice(&slot.to_le_bytes());
                    }
                    (hash_with_seed(&bytes, 0x1D), i)
                })
                .collect::<Vec<_>>()
        })?;
        let mut keyed: Vec<(u64, u32)> = Vec::new();
        reserve(&mut keyed, ids.len(), "the signature hashes")?;
        blocks.into_iter().for_each(|block| keyed.extend(block));
        sort_unstable(&mut keyed, threads)?;
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
            return Ok(IdenticalRows {
                representatives: ids.to_vec(),
                members,
            });
        }
        members.sort_unstable();
        let mut copy = vec![false; ids.last().map_or(0, |&i| i as usize + 1)];
        for &(_, i) in &members {
            copy[i as usize] = true;
        }
        let representatives = ids.iter().copied().filter(|&i| !copy[i as usize]).collect();
        Ok(IdenticalRows {
            representatives,
            members,
        })
    }
}
