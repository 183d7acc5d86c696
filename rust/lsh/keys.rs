//! Band keys: band t of a signature hashes to XXH3-64(little-endian bytes of its r slots,
//! seed = t); documents with equal keys in a band share that band's bucket.

use super::banding::check_banding;
use crate::error::Result;
use crate::hashing::hash_with_seed;
use crate::minhash::is_empty_signature;
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
    check_banding(bands, rows, num_perm)?;
    let signatures = Rows::new(signatures, num_perm);
    let mut keys = Vec::with_capacity(signatures.len() * bands);
    let mut bytes = vec![0u8; rows * 4];
    for signature in signatures.iter() {
        for band in 0..bands {
            keys.push(band_key(signature, band, rows, &mut bytes));
        }
    }
    Ok(keys)
}

/// An upper bound on the candidate pairs of a banding without listing them: the sum over
/// bands of m(m - 1)/2 for every bucket of m documents (a pair sharing several buckets counts
/// once per bucket), counted band by band and stopped as soon as it passes `limit`. Each
/// band's keys are sorted by a bucket pass on their top bits (they are uniform hashes).
pub fn bucket_pairs_bound(
    signatures: &[u32],
    num_perm: usize,
    bands: usize,
    rows: usize,
    limit: u64,
) -> Result<u64> {
    check_banding(bands, rows, num_perm)?;
    let signatures = Rows::new(signatures, num_perm);
    let mut keys = Vec::with_capacity(signatures.len());
    let mut bytes = vec![0u8; rows * 4];
    let mut sorter = crate::shingle::SetSorter::default();
    let mut total = 0u64;
    for band in 0..bands {
        keys.clear();
        keys.extend(
            signatures
                .iter()
                .map(|signature| band_key(signature, band, rows, &mut bytes)),
        );
        sorter.sort(&mut keys);
        let mut run = 0u64;
        for (i, &key) in keys.iter().enumerate() {
            // `run` counts the earlier equal keys: each pairs with this one.
            run = if i > 0 && keys[i - 1] == key {
                run + 1
            } else {
                0
            };
            total += run;
        }
        if total > limit {
            break;
        }
    }
    Ok(total)
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
}
