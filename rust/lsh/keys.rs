//! Band keys: band t of a signature hashes to XXH3-64(little-endian bytes of its r slots,
//! seed = t); documents with equal keys in a band share that band's bucket.

use super::banding::check_banding;
use super::copies::IdenticalRows;
use super::groups::{BucketRule, Grouper};
use crate::error::{reserve, Result};
use crate::hashing::hash_with_seed;
use crate::minhash::is_empty_signature;
use crate::parallel::{check_threads, for_row_blocks, share_tasks};
use crate::rows::Rows;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

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

/// An upper bound on the candidate pairs of a banding without listing them: the sum over
/// bands of w(w - 1)/2 for every group of w documents ([`Grouper`] under `rule`, copies of a
/// signature counted with their representative, which they follow into every bucket; with
/// every bucket whole, the sum of m(m - 1)/2 over the buckets of m documents), counted band by
/// band and stopped as soon as it passes `limit`.
///
/// On `threads` threads each takes the next band not yet taken, with its own buffers; the
/// threads stop once the bands counted so far from band 0 on, without a gap, pass `limit`,
/// and the total is added in band order up to the band where it passes: the same total
/// whatever the thread count (at most a band per thread past the stop is counted for nothing).
/// The candidate search counts the same total as it lists ([`super::candidates`] with a
/// limit), so a caller that would list the pairs anyway needs no pass of its own.
pub fn bucket_pairs_bound(
    signatures: &[u32],
    num_perm: usize,
    bands: usize,
    rows: usize,
    rule: BucketRule,
    limit: u64,
    threads: usize,
) -> Result<u64> {
    check_banding(bands, rows, num_perm)?;
    check_threads(threads)?;
    let active = non_empty_rows(signatures, num_perm);
    let all: Vec<u32> = (0..active.len() as u32)
        .filter(|&i| active[i as usize])
        .collect();
    let copies = IdenticalRows::find(signatures, num_perm, &all, threads)?;
    let counter = BandPairs::new(active.len(), &copies, bands, limit);
    let ids = &copies.representatives;
    let signature_rows = Rows::new(signatures, num_perm);
    share_tasks(
        bands,
        threads,
        || Grouper::new(signature_rows, rows, ids, rule, false),
        |grouper, band| {
            if counter.passed() {
                return;
            }
            let mut pairs = counter.band_start();
            grouper.band(band, &mut |group| {
                pairs = pairs.saturating_add(counter.of(group))
            });
            counter.record(band, pairs);
        },
        |_| (),
    )?;
    Ok(counter.total())
}

/// The bucket pairs of a banding counted band by band, as [`bucket_pairs_bound`] defines
/// them, shared by the threads that group the bands: a band's count is recorded once it is
/// grouped, and the count has passed its limit once the bands recorded from band 0 on, without
/// a gap, add up past it (the same decision whatever the thread count).
pub(super) struct BandPairs {
    /// Per row: 1, plus its copies for a representative (copies follow it into every bucket).
    weight: Vec<u64>,
    /// The pairs among copies of one signature: in every band's buckets.
    copy_pairs: u64,
    limit: u64,
    counts: Mutex<Vec<Option<u64>>>,
    passed: AtomicBool,
}

impl BandPairs {
    pub(super) fn new(n: usize, copies: &IdenticalRows, bands: usize, limit: u64) -> Self {
        let mut weight = vec![1u64; n];
        let mut copy_pairs = 0u64;
        for &(rep, _) in &copies.members {
            // the w-th member of a group pairs with the w earlier ones
            copy_pairs = copy_pairs.saturating_add(weight[rep as usize]);
            weight[rep as usize] += 1;
        }
        BandPairs {
            weight,
            copy_pairs,
            limit,
            counts: Mutex::new(vec![None; bands]),
            passed: AtomicBool::new(false),
        }
    }

    /// Where a band's count starts: the pairs among copies.
    pub(super) fn band_start(&self) -> u64 {
        self.copy_pairs
    }

    /// The pairs of one group (representatives), across their copies: pairs within one
    /// signature's copies are counted once a band by `band_start`.
    pub(super) fn of(&self, group: &[u32]) -> u64 {
        let clique = |w: u64| w * (w - 1) / 2;
        let w: u64 = group.iter().map(|&i| self.weight[i as usize]).sum();
        let within: u64 = group.iter().map(|&i| clique(self.weight[i as usize])).sum();
        clique(w) - within
    }

    /// Records band `band`'s count.
    pub(super) fn record(&self, band: usize, pairs: u64) {
        let mut counts = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        counts[band] = Some(pairs);
        if self.in_order(&counts).1 {
            self.passed.store(true, Ordering::Relaxed);
        }
    }

    /// Whether the bands recorded from band 0 on have passed the limit.
    pub(super) fn passed(&self) -> bool {
        self.passed.load(Ordering::Relaxed)
    }

    /// The total of the bands recorded from band 0 on, up to the band where it passes the limit.
    pub(super) fn total(&self) -> u64 {
        let counts = self.counts.lock().unwrap_or_else(|p| p.into_inner());
        self.in_order(&counts).0
    }

    fn in_order(&self, counts: &[Option<u64>]) -> (u64, bool) {
        let mut total = 0u64;
        for count in counts.iter().map_while(|c| *c) {
            total = total.saturating_add(count);
            if total > self.limit {
                return (total, true);
            }
        }
        (total, false)
    }
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
    fn keys_and_bounds_do_not_depend_on_threads() {
        // 1,037 documents (not a multiple of any block), slots from a small alphabet so that
        // buckets are large.
        let (n, num_perm) = (1037, 8);
        let sigs: Vec<u32> = (0..n * num_perm)
            .map(|x| (crate::hashing::mix64(x as u64) % 5) as u32)
            .collect();
        let keys = band_keys(&sigs, num_perm, 4, 2).unwrap();
        for threads in [2, 3] {
            assert_eq!(band_keys_on(&sigs, num_perm, 4, 2, threads).unwrap(), keys);
        }
        for limit in [0, 10_000, 200_000, u64::MAX] {
            let want =
                bucket_pairs_bound(&sigs, num_perm, 8, 1, BucketRule::WHOLE, limit, 1).unwrap();
            assert!(want > limit || limit == u64::MAX);
            for threads in [2, 3] {
                let got =
                    bucket_pairs_bound(&sigs, num_perm, 8, 1, BucketRule::WHOLE, limit, threads)
                        .unwrap();
                assert_eq!(got, want, "limit={limit} threads={threads}");
            }
        }
    }
}
