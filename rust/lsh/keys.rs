//! Band keys: band t of a signature hashes to XXH3-64(little-endian bytes of its r slots,
//! seed = t); documents with equal keys in a band share that band's bucket.

use super::banding::check_banding;
use crate::error::{reserve, Result};
use crate::hashing::hash_with_seed;
use crate::minhash::is_empty_signature;
use crate::parallel::for_row_blocks;
use crate::rows::Rows;

/// The key of band `band` of one signature; `bytes` is scratch of `rows * 4` bytes.
#[inline(always)]
pub(super) fn band_key(signature: &[u32], band: usize, rows: usize, bytes: &mut [u8]) -> u64 {
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
    band_keys_on(signatures, num_perm, bands, rows, 1)
}

/// [`band_keys`] computed on `threads` threads (the same keys).
pub fn band_keys_on(
    signatures: &[u32],
    num_perm: usize,
    bands: usize,
    rows: usize,
    threads: usize,
) -> Result<Vec<u64>> {
    check_banding(bands, rows, num_perm)?;
    let signatures = Rows::new(signatures, num_perm);
    let mut keys = Vec::new();
    reserve(&mut keys, signatures.len() * bands, "the band keys")?;
    keys.resize(signatures.len() * bands, 0);
    for_row_blocks(&mut keys, bands, threads, |first, out| {
        let mut bytes = vec![0u8; rows * 4];
        for (k, row_keys) in out.chunks_exact_mut(bands).enumerate() {
            let signature = signatures.row(first + k);
            for (band, key) in row_keys.iter_mut().enumerate() {
                *key = band_key(signature, band, rows, &mut bytes);
            }
        }
    })?;
    Ok(keys)
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

/// Which rows of a signature matrix are not the empty set's signature.
pub fn non_empty_rows(signatures: &[u32], num_perm: usize) -> Vec<bool> {
    Rows::new(signatures, num_perm)
        .iter()
        .map(|s| !is_empty_signature(s))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn too_many_bands_is_an_error() {
        assert!(band_keys(&[0; 8], 4, 3, 2).is_err());
    }

    #[test]
    fn keys_do_not_depend_on_threads() {
        // 1,037 documents (not a multiple of any block).
        let (n, num_perm) = (1037, 8);
        let sigs: Vec<u32> = (0..n * num_perm)
            .map(|x| (crate::hashing::mix64(x as u64) % 5) as u32)
            .collect();
        let keys = band_keys(&sigs, num_perm, 4, 2).unwrap();
        for threads in [2, 3] {
            assert_eq!(band_keys_on(&sigs, num_perm, 4, 2, threads).unwrap(), keys);
        }
    }
}
