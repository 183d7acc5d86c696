//! Partitions (`within=`): MinHash signatures salted by each document's partition key, so one
//! LSH run over every partition finds candidates within a partition only.
//!
//! Slot `p` of a document with key `k` is XORed with the low 32 bits of
//! `mix64(k + p * 0x9E3779B97F4A7C15)` (the SplitMix64 step of [`crate::hashing`]): within a
//! partition equal slots stay equal (estimates, band keys and the screen are unchanged), across
//! two partitions a band collides only by chance. Empty signatures (every slot `u32::MAX`) stay
//! empty. Only compared within one run (the Ray engine salts its blocks the same way), never
//! stored.

use crate::error::{Error, Result};
use crate::hashing::mix64;

/// The golden-ratio step of SplitMix64 between two slots' salts.
const SLOT_STEP: u64 = 0x9E37_79B9_7F4A_7C15;

/// Salt `signatures` (row-major, `width` slots a row) in place with one partition key a row.
pub fn salt_signatures(signatures: &mut [u32], width: usize, partitions: &[u64]) -> Result<()> {
    if width == 0 {
        return if signatures.is_empty() {
            Ok(())
        } else {
            Err(Error::new("signatures must have at least one slot"))
        };
    }
    if signatures.len() != partitions.len() * width {
        return Err(Error::new(format!(
            "{} partition keys for {} signatures: one key per signature",
            partitions.len(),
            signatures.len() / width
        )));
    }
    for (row, &key) in signatures.chunks_exact_mut(width).zip(partitions) {
        if row.iter().all(|&v| v == u32::MAX) {
            continue;
        }
        for (slot, value) in row.iter_mut().enumerate() {
            let salt = mix64(key.wrapping_add((slot as u64).wrapping_mul(SLOT_STEP)));
            *value ^= salt as u32;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_partition_keeps_equal_slots_and_other_partitions_differ() {
        let mut sig = vec![1, 2, 1, 2, 1, 2, u32::MAX, u32::MAX];
        salt_signatures(&mut sig, 2, &[7, 7, 8, 8]).unwrap();
        assert_eq!(sig[0..2], sig[2..4]);
        assert!(sig[0] != sig[4] && sig[1] != sig[5]);
        assert_eq!(sig[6..8], [u32::MAX, u32::MAX]); // empty stays empty
                                                     // the documented formula, slot 1 of key 7
        assert_eq!(sig[1], 2 ^ mix64(7u64.wrapping_add(SLOT_STEP)) as u32);
    }

    #[test]
    fn salting_twice_restores_and_shapes_are_checked() {
        let mut sig = vec![5, 6, 7];
        salt_signatures(&mut sig, 3, &[u64::MAX]).unwrap();
        salt_signatures(&mut sig, 3, &[u64::MAX]).unwrap();
        assert_eq!(sig, [5, 6, 7]);
        assert!(salt_signatures(&mut sig, 3, &[1, 2]).is_err());
        assert!(salt_signatures(&mut sig, 0, &[1]).is_err());
        assert!(salt_signatures(&mut [], 0, &[]).is_ok());
    }
}
