//! The search itself: brute force over distinct fingerprints, or the tables of a [`Scheme`],
//! each sorted by its key and scanned bucket by bucket. A bucket of at least
//! [`MIN_INDEX_ROWS`] fingerprints (skewed fingerprints that agree on a table's key far more
//! often than random ones) is searched again on the bits outside the key, by the search the
//! cost model picks for it, so its cost is that of the cheaper search, not its size squared.

use super::bits::{distance, Bits};
use super::cost::{choose, Scheme, Search, MIN_INDEX_ROWS};
use super::{append, Found};
use crate::error::{push, reserve, Result};
use crate::hashing::mix64;
use crate::parallel;

/// A fingerprint and its number among the distinct ones.
type Entry<B> = (B, u32);

/// Every pair of `values` within `max_distance` by brute force, on `threads` threads (rows in
/// interleaved stripes, so each thread has about as many pairs), with the pairs compared (the
/// calling thread's progress advanced by them as it goes).
pub(crate) fn brute_force<B: Bits>(
    values: &[B],
    max_distance: u32,
    threads: usize,
) -> Result<(Found, u64)> {
    let n = values.len();
    let stripes = if threads == 1 { 1 } else { threads * 8 };
    let progress = crate::progress::current();
    let parts = parallel::map_tasks(stripes, threads, |stripe| -> Result<Found> {
        let mut found = Vec::new();
        let mut hits = Vec::new();
        let mut compared = 0u64; // since progress last heard of it
        for (count, i) in (stripe..n).step_by(stripes).enumerate() {
            if count % 1024 == 0 {
                parallel::check_interrupt()?;
                if let Some(progress) = &progress {
                    progress.advance(std::mem::take(&mut compared));
                }
            }
            compared += (n - i - 1) as u64;
            hits.clear();
            scan(values[i], &values[i + 1..], max_distance, &mut hits)?;
            for &(k, delta) in &hits {
                push(
                    &mut found,
                    (i as u32, i as u32 + 1 + k, delta),
                    "the pairs found",
                )?;
            }
        }
        if let Some(progress) = &progress {
            progress.advance(compared);
        }
        Ok(found)
    })?;
    let mut found = Vec::new();
    for part in parts {
        append(&mut found, part?)?;
    }
    let n = n as u64;
    Ok((found, n * n.saturating_sub(1) / 2))
}

/// Every pair of `values` within `max_distance` by the tables of `scheme`, the tables shared
/// among `threads` threads (each pair is found in one table only, whichever thread runs it).
pub(crate) fn search<B: Bits>(
    values: &[B],
    scheme: &Scheme,
    max_distance: u32,
    threads: usize,
) -> Result<(Found, u64)> {
    let entries = entries_of(values)?;
    let progress = crate::progress::current(); // one more table searched, one more heard
    let parts = parallel::map_tasks(scheme.tables.len(), threads, |t| {
        let pairs = table_pairs(&entries, scheme, t, max_distance);
        if let Some(progress) = &progress {
            progress.advance(1);
        }
        pairs
    })?;
    let mut found = Vec::new();
    let mut compared = 0;
    for part in parts {
        let (pairs, count) = part?;
        append(&mut found, pairs)?;
        compared += count;
    }
    Ok((found, compared))
}

/// The pairs of `values` (copies allowed) within `max_distance` that table `t` of `scheme`
/// finds first: one table of [`search`] run on some fingerprints only (the Ray engine runs
/// each table's buckets where its shuffle gathered them).
pub(crate) fn table_search<B: Bits>(
    values: &[B],
    scheme: &Scheme,
    t: usize,
    max_distance: u32,
) -> Result<(Found, u64)> {
    table_pairs(&entries_of(values)?, scheme, t, max_distance)
}

/// Each of `values` with its number.
fn entries_of<B: Bits>(values: &[B]) -> Result<Vec<Entry<B>>> {
    let mut entries: Vec<Entry<B>> = Vec::new();
    reserve(&mut entries, values.len(), "the fingerprint index")?;
    entries.extend(values.iter().enumerate().map(|(i, &v)| (v, i as u32)));
    Ok(entries)
}

/// The pairs of `entries` within `max_distance` that table `t` of `scheme` finds first.
fn table_pairs<B: Bits>(
    entries: &[Entry<B>],
    scheme: &Scheme,
    t: usize,
    max_distance: u32,
) -> Result<(Found, u64)> {
    let key = B::from_u128(scheme.keys[t]);
    let sorted = by_key(entries, key)?;
    let mut found = Vec::new();
    let mut compared = 0u64;
    let mut start = 0;
    let mut values: Vec<B> = Vec::new();
    let mut hits = Vec::new();
    while start < sorted.len() {
        let bucket_key = sorted[start].0 & key;
        let end = start
            + sorted[start..]
                .iter()
                .take_while(|e| e.0 & key == bucket_key)
                .count();
        let bucket = &sorted[start..end];
        start = end;
        if bucket.len() < MIN_INDEX_ROWS {
            values.clear();
            values.extend(bucket.iter().map(|e| e.0));
            for (a, &(va, ia)) in bucket.iter().enumerate() {
                hits.clear();
                scan(va, &values[a + 1..], max_distance, &mut hits)?;
                for &(k, delta) in &hits {
                    let (vb, ib) = bucket[a + 1 + k as usize];
                    if scheme.first_table(t, to_u128(va ^ vb)) {
                        push(
                            &mut found,
                            (ia.min(ib), ia.max(ib), delta),
                            "the pairs found",
                        )?;
                    }
                }
            }
            compared += (bucket.len() * (bucket.len() - 1) / 2) as u64;
            continue;
        }
        // A large bucket: its fingerprints agree on the key, so search the other bits.
        #[cfg(test)]
        BUCKETS_SEARCHED_AGAIN.with(|c| c.set(c.get() + 1));
        let (pairs, count) = within_entries(bucket, scheme.free & !scheme.keys[t], max_distance)?;
        compared += count;
        for (a, b, delta) in pairs {
            let x = to_u128(values_of(bucket, a) ^ values_of(bucket, b));
            if scheme.first_table(t, x) {
                let (ia, ib) = (bucket[a as usize].1, bucket[b as usize].1);
                push(
                    &mut found,
                    (ia.min(ib), ia.max(ib), delta),
                    "the pairs found",
                )?;
            }
        }
    }
    Ok((found, compared))
}

/// `entries` grouped by their bits under `key` (entries of one key consecutive, in their
/// order in `entries`) in time linear in their number: a counting sort on the top bits of a
/// hash of the key (about one slot per entry), then each slot, which holds one key or the few
/// its hash mixes up, sorted by key. The buckets come in the order of their hashes; which
/// table reports a pair depends on the pair only, and the pairs are sorted at the end, so the
/// order changes no result. (A comparison sort of every table cost 70 ns a row, a third of it
/// the logarithm, which grew the search faster than n.)
fn by_key<B: Bits>(entries: &[Entry<B>], key: B) -> Result<Vec<Entry<B>>> {
    let n = entries.len();
    let bits = (usize::BITS - n.max(2).leading_zeros()).min(24);
    let slot = |v: B| -> usize {
        let x = (v & key).to_u128();
        (mix64(x as u64 ^ mix64((x >> 64) as u64)) >> (64 - bits)) as usize
    };
    let mut starts = vec![0u32; (1usize << bits) + 1];
    for e in entries {
        starts[slot(e.0) + 1] += 1;
    }
    for s in 1..starts.len() {
        starts[s] += starts[s - 1];
    }
    let mut sorted: Vec<Entry<B>> = Vec::new();
    reserve(&mut sorted, n, "the fingerprint index")?;
    sorted.resize(n, entries.first().copied().unwrap_or((B::zero(), 0)));
    let mut fill = starts.clone();
    for &e in entries {
        let s = slot(e.0);
        sorted[fill[s] as usize] = e;
        fill[s] += 1;
    }
    for s in 0..starts.len() - 1 {
        let part = &mut sorted[starts[s] as usize..starts[s + 1] as usize];
        if part.len() > 1 {
            // Stable: the order within a bucket is the entries' order.
            part.sort_by_key(|&(v, _)| v & key);
        }
    }
    Ok(sorted)
}

#[cfg(test)]
thread_local! {
    /// Large buckets searched again on this thread (tests check that the path runs).
    pub(crate) static BUCKETS_SEARCHED_AGAIN: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

fn values_of<B: Bits>(bucket: &[Entry<B>], k: u32) -> B {
    bucket[k as usize].0
}

/// The pairs (positions in `bucket`) within `max_distance`, by the search the cost model
/// picks for them over the bits `free`, on one thread.
fn within_entries<B: Bits>(
    bucket: &[Entry<B>],
    free: u128,
    max_distance: u32,
) -> Result<(Found, u64)> {
    let mut values = Vec::new();
    reserve(&mut values, bucket.len(), "the fingerprint index")?;
    values.extend(bucket.iter().map(|e| e.0));
    match choose(&values, B::from_u128(free), max_distance).search {
        Search::BruteForce => brute_force(&values, max_distance, 1),
        Search::Index(scheme) => search(&values, &scheme, max_distance, 1),
    }
}

/// A fingerprint's bits as a u128 (for the scheme's masks).
#[inline]
fn to_u128<B: Bits>(x: B) -> u128 {
    x.to_u128()
}

/// Appends (offset, distance) of every fingerprint of `others` within `max_distance` of `v`
/// to `hits`: the inner loop of every comparison, compiled with the POPCNT instruction where
/// the CPU has it (the x86-64 baseline lacks it, and counts bits in a dozen instructions).
#[inline]
fn scan<B: Bits>(v: B, others: &[B], max_distance: u32, hits: &mut Vec<(u32, u32)>) -> Result<()> {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("popcnt") {
        // SAFETY: the CPU has POPCNT (checked just above).
        return unsafe { scan_popcnt(v, others, max_distance, hits) };
    }
    scan_body(v, others, max_distance, hits)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
unsafe fn scan_popcnt<B: Bits>(
    v: B,
    others: &[B],
    max_distance: u32,
    hits: &mut Vec<(u32, u32)>,
) -> Result<()> {
    scan_body(v, others, max_distance, hits)
}

#[inline(always)]
fn scan_body<B: Bits>(
    v: B,
    others: &[B],
    max_distance: u32,
    hits: &mut Vec<(u32, u32)>,
) -> Result<()> {
    for (k, &w) in others.iter().enumerate() {
        let delta = distance(v, w);
        if delta <= max_distance {
            push(hits, (k as u32, delta), "the pairs found")?;
        }
    }
    Ok(())
}
