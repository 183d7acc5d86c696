//! The banding sample: the bottom-k distinct shingle sets by a hash of their digest.
//!
//! A row's key is `mix64(lo ^ mix64(hi))` of its set digest (two u64 lanes), so the key is a
//! function of the shingle set alone. The sample is the `size` distinct digests with the
//! smallest keys, in key order (ties broken by the digest): it depends only on the set of
//! distinct sets, never on their order or partitioning, and is closed under merging (the
//! sample of the concatenated samples of any partitioning is the sample of the whole), so the
//! local engine and the Ray engine (per partition, merged on the driver) draw the same rows.

use crate::error::{reserve, Error, Result};
use crate::hashing::mix64;

/// The key of a set digest `[lo, hi]` in the banding sample.
#[inline]
pub fn sample_key(digest: [u64; 2]) -> u64 {
    mix64(digest[0] ^ mix64(digest[1]))
}

/// The keys of every digest (two lanes a row, row-major).
pub fn sample_keys(digests: &[u64]) -> Result<Vec<u64>> {
    let mut keys = Vec::new();
    reserve(&mut keys, digests.len() / 2, "the sample keys")?;
    keys.extend(digests.chunks_exact(2).map(|d| sample_key([d[0], d[1]])));
    Ok(keys)
}

/// The `size`-th smallest distinct key, or None when there are no more than `size` distinct
/// keys. Copies share a key, so distinct keys are counted: the `m`-th smallest key is selected
/// (linear), `m` doubled until the keys up to it hold `size` distinct ones.
pub fn distinct_cut(keys: &[u64], size: usize) -> Result<Option<u64>> {
    let size = size.max(1);
    let mut scratch = Vec::new();
    reserve(&mut scratch, keys.len(), "the sample keys")?;
    let mut m = size;
    while m < keys.len() {
        scratch.clear();
        scratch.extend_from_slice(keys);
        let pivot = *scratch.select_nth_unstable(m - 1).1;
        let mut low: Vec<u64> = keys.iter().copied().filter(|&k| k <= pivot).collect();
        low.sort_unstable();
        low.dedup();
        if low.len() >= size {
            return Ok(Some(low[size - 1]));
        }
        m = m.saturating_mul(2);
    }
    scratch.clear();
    scratch.extend_from_slice(keys);
    scratch.sort_unstable();
    scratch.dedup();
    Ok((scratch.len() > size).then(|| scratch[size - 1]))
}

/// The rows of the bottom-`size` sample of distinct digests (two lanes a row), in key order,
/// ties by the digest; of rows with equal digests (copies of one set) the first is kept.
pub fn sample_rows(digests: &[u64], size: usize) -> Result<Vec<usize>> {
    if size < 1 {
        return Err(Error::new("size must be at least 1, got 0"));
    }
    if digests.len() % 2 != 0 {
        return Err(Error::new("digests must be uint64[n, 2]"));
    }
    let keys = sample_keys(digests)?;
    let cut = distinct_cut(&keys, size)?.unwrap_or(u64::MAX);
    let mut ranked: Vec<(u64, u64, u64, usize)> = Vec::new();
    reserve(&mut ranked, keys.len().min(4 * size), "the sample")?;
    for (row, &key) in keys.iter().enumerate() {
        if key <= cut {
            let pushed = (key, digests[2 * row], digests[2 * row + 1], row);
            crate::error::push(&mut ranked, pushed, "the sample")?;
        }
    }
    ranked.sort_unstable();
    ranked.dedup_by_key(|&mut (key, lo, hi, _)| (key, lo, hi));
    ranked.truncate(size);
    Ok(ranked.into_iter().map(|(.., row)| row).collect())
}

/// The bottom-`size` sample: (digests, signatures of `width` slots, shingle counts) of the rows
/// [`sample_rows`] picks, after checking that every row has one digest, one signature and
/// (when given) one count.
#[allow(clippy::type_complexity)] // the three columns of the sample
pub fn banding_sample(
    digests: &[u64],
    signatures: &[u32],
    width: usize,
    size: usize,
    sizes: Option<&[i64]>,
) -> Result<(Vec<u64>, Vec<u32>, Vec<i64>)> {
    let n = digests.len() / 2;
    let rows_of_signatures = signatures.len().checked_div(width).unwrap_or(0);
    if digests.len() % 2 != 0 || n != rows_of_signatures {
        return Err(Error::new(format!(
            "{n} digests for {rows_of_signatures} signatures: one digest per row"
        )));
    }
    if let Some(sizes) = sizes {
        if sizes.len() != n {
            return Err(Error::new(format!(
                "{} sizes for {n} digests: one per row",
                sizes.len()
            )));
        }
    }
    let rows = sample_rows(digests, size)?;
    let mut out = (Vec::new(), Vec::new(), Vec::new());
    reserve(&mut out.0, 2 * rows.len(), "the sample")?;
    reserve(&mut out.1, rows.len().saturating_mul(width), "the sample")?;
    reserve(&mut out.2, rows.len(), "the sample")?;
    for row in rows {
        out.0.extend_from_slice(&digests[2 * row..2 * row + 2]);
        out.1
            .extend_from_slice(&signatures[row * width..(row + 1) * width]);
        out.2.push(sizes.map_or(0, |s| s[row]));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn digests(n: usize, distinct: u64) -> Vec<u64> {
        (0..n as u64)
            .flat_map(|i| [mix64(i % distinct), (i % distinct) / 3])
            .collect()
    }

    /// The sample by its definition: every row ranked, copies dropped, the first `size`.
    fn brute(digests: &[u64], size: usize) -> Vec<usize> {
        let mut ranked: Vec<_> = digests
            .chunks_exact(2)
            .enumerate()
            .map(|(row, d)| (sample_key([d[0], d[1]]), d[0], d[1], row))
            .collect();
        ranked.sort();
        let mut seen = std::collections::HashSet::new();
        ranked
            .into_iter()
            .filter(|&(_, lo, hi, _)| seen.insert((lo, hi)))
            .take(size)
            .map(|(.., row)| row)
            .collect()
    }

    #[test]
    fn the_key_mixes_both_lanes() {
        assert_eq!(sample_key([1, 2]), mix64(1 ^ mix64(2)));
        assert_ne!(sample_key([1, 2]), sample_key([1, 3]));
        assert_ne!(sample_key([1, 2]), sample_key([2, 2]));
    }

    #[test]
    fn the_sample_is_the_bottom_k_distinct_digests() {
        for (n, distinct) in [(0, 1), (1, 1), (10, 3), (500, 37), (3000, 2500), (3000, 7)] {
            let d = digests(n, distinct);
            for size in [1, 2, 5, 36, 37, 38, 1000, 5000] {
                assert_eq!(
                    sample_rows(&d, size).unwrap(),
                    brute(&d, size),
                    "{n} {size}"
                );
            }
        }
    }

    #[test]
    fn the_cut_counts_distinct_keys() {
        let keys = [9u64, 3, 3, 7, 1, 1, 1];
        assert_eq!(distinct_cut(&keys, 2).unwrap(), Some(3));
        assert_eq!(distinct_cut(&keys, 3).unwrap(), Some(7));
        assert_eq!(distinct_cut(&keys, 4).unwrap(), None);
        assert_eq!(distinct_cut(&[], 1).unwrap(), None);
    }

    #[test]
    fn merging_partition_samples_gives_the_whole_sample() {
        let d = digests(2000, 900);
        let signatures: Vec<u32> = d.chunks_exact(2).map(|x| x[0] as u32).collect();
        let whole = banding_sample(&d, &signatures, 1, 100, None).unwrap();
        let (a, b) = (
            banding_sample(&d[..700], &signatures[..350], 1, 100, None).unwrap(),
            banding_sample(&d[700..], &signatures[350..], 1, 100, None).unwrap(),
        );
        let merged_d = [a.0, b.0].concat();
        let merged_s = [a.1, b.1].concat();
        let merged = banding_sample(&merged_d, &merged_s, 1, 100, None).unwrap();
        assert_eq!(merged, whole);
        assert_eq!(whole.0.len(), 200);
    }

    #[test]
    fn bad_inputs_are_errors() {
        let d = digests(3, 3);
        assert!(banding_sample(&d, &[0; 4], 2, 1, None).is_err()); // 3 digests, 2 signatures
        assert!(banding_sample(&d, &[0; 6], 2, 1, Some(&[1, 2])).is_err());
        assert!(banding_sample(&d, &[0; 6], 2, 0, None).is_err());
        assert!(sample_rows(&d[..5], 1).is_err());
    }
}
