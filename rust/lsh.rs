//! LSH banding over MinHash signatures.
//!
//! A signature of P slots is cut into b bands of r consecutive slots (b·r ≤ P; slots past b·r are
//! unused). Band t of a document hashes to the key XXH3-64(little-endian bytes of its r slots,
//! seed = t). Two documents whose keys agree in at least one band are a candidate pair; with
//! Jaccard s they become one with probability 1 - (1 - s^r)^b. The curve's usual landmark is
//! S* = (1/b)^(1/r), where that probability is 1 - (1 - 1/b)^b ≈ 1 - 1/e ≈ 0.63 (the exact
//! one-half point lies a little lower; `half_point` gives it).

use crate::error::{Error, Result};
use crate::hashing::hash_with_seed;
use crate::minhash::is_empty_signature;

/// Checks a similarity threshold: it must lie in (0, 1].
pub fn check_threshold(threshold: f64) -> Result<()> {
    if threshold > 0.0 && threshold <= 1.0 {
        Ok(())
    } else {
        Err(Error::new(format!("threshold must be in (0, 1], got {threshold}")))
    }
}

/// Checks a banding against the signature width.
pub fn check_banding(bands: usize, rows: usize, num_perm: usize) -> Result<()> {
    if bands < 1 || rows < 1 {
        return Err(Error::new(format!("bands and rows must be at least 1, got b={bands}, r={rows}")));
    }
    if bands.saturating_mul(rows) > num_perm {
        return Err(Error::new(format!(
            "bands * rows must not exceed num_perm: {bands} * {rows} > {num_perm}"
        )));
    }
    Ok(())
}

/// S* = (1/b)^(1/r): the landmark of the S-curve (collision probability ≈ 0.63 there).
pub fn s_star(bands: usize, rows: usize) -> f64 {
    (1.0 / bands as f64).powf(1.0 / rows as f64)
}

/// The similarity at which a pair collides in some band with probability exactly 1/2.
pub fn half_point(bands: usize, rows: usize) -> f64 {
    (1.0 - 0.5f64.powf(1.0 / bands as f64)).powf(1.0 / rows as f64)
}

/// Probability that a pair of Jaccard `s` shares at least one band: 1 - (1 - s^r)^b.
pub fn collision_probability(s: f64, bands: usize, rows: usize) -> f64 {
    1.0 - (1.0 - s.powi(rows as i32)).powi(bands as i32)
}

/// The banding for a threshold: the largest r whose S*, with b = floor(P / r), is still at or
/// below the threshold — the steepest S-curve that keeps the threshold on its high-recall side.
/// When no r qualifies (a threshold below 1/P), (P, 1) gives the most recall there is.
pub fn params(threshold: f64, num_perm: usize) -> Result<(usize, usize)> {
    check_threshold(threshold)?;
    if num_perm < 1 {
        return Err(Error::new(format!("num_perm must be at least 1, got {num_perm}")));
    }
    let best = (1..=num_perm)
        .map(|r| (num_perm / r, r))
        .filter(|&(b, r)| s_star(b, r) <= threshold + 1e-12)
        .max_by_key(|&(_, r)| r);
    Ok(best.unwrap_or((num_perm, 1)))
}

/// Band keys of `n` signatures of `num_perm` slots each: `n * bands` keys, row-major.
pub fn band_keys(signatures: &[u32], num_perm: usize, bands: usize, rows: usize) -> Result<Vec<u64>> {
    check_banding(bands, rows, num_perm)?;
    let n = signatures.len() / num_perm;
    let mut keys = Vec::with_capacity(n * bands);
    let mut bytes = vec![0u8; rows * 4];
    for signature in signatures.chunks_exact(num_perm) {
        for band in 0..bands {
            let slots = &signature[band * rows..(band + 1) * rows];
            for (chunk, slot) in bytes.chunks_exact_mut(4).zip(slots) {
                chunk.copy_from_slice(&slot.to_le_bytes());
            }
            keys.push(hash_with_seed(&bytes, band as u64));
        }
    }
    Ok(keys)
}

/// Calls `visit(i, j)` once for every candidate pair i < j, in the first band where the pair
/// collides (later collisions of the same pair are skipped by comparing earlier band keys, so no
/// set of seen pairs is kept). Documents with `active[i] == false` take no part.
pub fn for_each_candidate(keys: &[u64], bands: usize, active: &[bool], mut visit: impl FnMut(u32, u32)) {
    let n = active.len();
    let mut bucket: Vec<(u64, u32)> = Vec::with_capacity(n);
    for band in 0..bands {
        bucket.clear();
        bucket.extend((0..n).filter(|&i| active[i]).map(|i| (keys[i * bands + band], i as u32)));
        bucket.sort_unstable();
        let mut start = 0;
        while start < bucket.len() {
            let key = bucket[start].0;
            let end = start + bucket[start..].iter().take_while(|e| e.0 == key).count();
            for x in start..end {
                let i = bucket[x].1 as usize;
                for &(_, j) in &bucket[x + 1..end] {
                    let j = j as usize;
                    let seen_before =
                        (0..band).any(|t| keys[i * bands + t] == keys[j * bands + t]);
                    if !seen_before {
                        visit(i as u32, j as u32);
                    }
                }
            }
            start = end;
        }
    }
}

/// Which rows of a signature matrix are not the empty set's signature.
pub fn non_empty_rows(signatures: &[u32], num_perm: usize) -> Vec<bool> {
    signatures.chunks_exact(num_perm).map(|s| !is_empty_signature(s)).collect()
}

/// All candidate pairs (i < j), sorted.
pub fn candidates(signatures: &[u32], num_perm: usize, bands: usize, rows: usize) -> Result<Vec<(u32, u32)>> {
    let keys = band_keys(signatures, num_perm, bands, rows)?;
    let active = non_empty_rows(signatures, num_perm);
    let mut pairs = Vec::new();
    for_each_candidate(&keys, bands, &active, |i, j| pairs.push((i, j)));
    pairs.sort_unstable();
    Ok(pairs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn article_banding_at_threshold_0_3() {
        assert_eq!(params(0.3, 128).unwrap(), (42, 3));
        assert!((s_star(42, 3) - 0.2876).abs() < 1e-3);
        assert_eq!(params(1.0, 128).unwrap(), (1, 128));
        assert_eq!(params(0.001, 4).unwrap(), (4, 1));
        assert!(params(0.0, 128).is_err());
        assert!(params(1.5, 128).is_err());
    }

    #[test]
    fn collision_probability_at_the_landmarks() {
        let p = collision_probability(s_star(20, 5), 20, 5);
        assert!((p - (1.0 - (1.0 - 1.0 / 20.0f64).powi(20))).abs() < 1e-12, "{p}");
        let half = collision_probability(half_point(42, 3), 42, 3);
        assert!((half - 0.5).abs() < 1e-12, "{half}");
    }

    #[test]
    fn candidates_pair_documents_sharing_a_band_once() {
        // Doc 0 and 2 agree on band 0 and band 1; doc 1 shares nothing; doc 3 is empty.
        let sigs = [1, 2, 3, 4, 9, 9, 9, 9, 1, 2, 3, 4, u32::MAX, u32::MAX, u32::MAX, u32::MAX];
        assert_eq!(candidates(&sigs, 4, 2, 2).unwrap(), vec![(0, 2)]);
    }

    #[test]
    fn too_many_bands_is_an_error() {
        assert!(band_keys(&[0; 8], 4, 3, 2).is_err());
        assert!(check_banding(0, 1, 4).is_err());
    }
}
