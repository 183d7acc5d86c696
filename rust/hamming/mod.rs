//! Every pair of fingerprints within a Hamming radius (the SimHash search), by multi-index
//! hashing where it pays and by brute force where it does not.
//!
//! Multi-index hashing (Manku, Jain & Das Sarma, WWW 2007; Norouzi, Punjani & Fleet, CVPR
//! 2012): cut the bits into `m` blocks. Two fingerprints at most `d` bits apart differ in at
//! most `d` blocks, so they agree exactly on at least `m - d` of them, hence on every block of
//! some `(m - d)`-subset. One table per subset, keyed by the fingerprint's bits in its blocks:
//! every pair within `d` shares a bucket of some table (nothing is missed), and each bucket's
//! pairs are checked on their full distance. A pair found in table `t` is kept only when `t` is
//! the first table (in lexicographic order of the subsets) it agrees on, so it is reported
//! once with no set of pairs seen.
//!
//! One file per step: [`bits`] (a fingerprint as one `u64` or `u128`), `copies` (identical
//! fingerprints collapsed first and their pairs listed at the end, so `m` copies cost O(m)
//! search), [`cost`] (the cost model: index or brute force, and which blocks) and `index`
//! (the tables, the buckets, and large buckets searched again on their other bits).

pub mod bits;
mod copies;
pub mod cost;
mod index;

/// The error of a fingerprint matrix that is neither 64 nor 128 bits wide.
fn bad_width(words: usize) -> Error {
    Error::new(format!(
        "fingerprints must be 1 or 2 words (64 or 128 bits) wide, got {words}"
    ))
}

#[cfg(test)]
mod tests;

use crate::error::{reserve, Error, Result};
use crate::parallel;
use crate::rows::{PairDistances, Rows};
use bits::Bits;
pub use cost::{Scheme, Search, SearchPlan};

/// Every pair i < j of active rows of `fingerprints` (`words` u64 each: 1 or 2) within
/// `max_distance` bits, sorted by (i, j), with the distances: the pairs brute force gives, by
/// the search [`plan`] chooses, on `threads` threads (the same pairs for every count).
pub fn within(
    fingerprints: &[u64],
    words: usize,
    max_distance: u32,
    active: &[bool],
    threads: usize,
) -> Result<PairDistances> {
    parallel::check_threads(threads)?;
    match words {
        1 => within_as::<u64>(fingerprints, max_distance, active, threads).map(|(p, _)| p),
        2 => within_as::<u128>(fingerprints, max_distance, active, threads).map(|(p, _)| p),
        _ => Err(bad_width(words)),
    }
}

/// The search [`within`] would run on these fingerprints (the same decision, made the same
/// way): for reporting it, and warning about its cost, before the work.
pub fn plan(
    fingerprints: &[u64],
    words: usize,
    max_distance: u32,
    active: &[bool],
    threads: usize,
) -> Result<SearchPlan> {
    parallel::check_threads(threads)?;
    match words {
        1 => plan_as::<u64>(fingerprints, max_distance, active, threads).map(|(p, _)| p),
        2 => plan_as::<u128>(fingerprints, max_distance, active, threads).map(|(p, _)| p),
        _ => Err(bad_width(words)),
    }
}

/// The distinct fingerprints and the plan over them.
fn plan_as<B: Bits>(
    fingerprints: &[u64],
    max_distance: u32,
    active: &[bool],
    threads: usize,
) -> Result<(SearchPlan, copies::Distinct<B>)> {
    let rows = Rows::new(fingerprints, B::WORDS);
    let n = rows.len();
    if active.len() != n {
        return Err(Error::new(format!(
            "active has {} rows but fingerprints {n}",
            active.len()
        )));
    }
    if n > u32::MAX as usize {
        return Err(Error::new(format!(
            "at most {} documents, got {n}",
            u32::MAX
        )));
    }
    let distinct = copies::Distinct::<B>::find(rows, active, threads)?;
    let plan = cost::choose(&distinct.values, B::all(), max_distance);
    Ok((plan, distinct))
}

/// [`within`] for fingerprints of one width, with the number of candidate pairs compared.
pub(crate) fn within_as<B: Bits>(
    fingerprints: &[u64],
    max_distance: u32,
    active: &[bool],
    threads: usize,
) -> Result<(PairDistances, u64)> {
    let (plan, distinct) = plan_as::<B>(fingerprints, max_distance, active, threads)?;
    let (found, compared) = match &plan.search {
        Search::BruteForce => {
            crate::progress::begin("SimHash brute force", "pairs");
            index::brute_force(&distinct.values, max_distance, threads)?
        }
        Search::Index(scheme) => {
            crate::progress::begin("SimHash tables", "tables");
            index::search(&distinct.values, scheme, max_distance, threads)?
        }
    };
    Ok((distinct.expand(found, threads)?, compared))
}

/// (distinct i, distinct j, distance) of the pairs found among distinct fingerprints.
pub(crate) type Found = Vec<(u32, u32, u32)>;

/// Appends the pairs of `more` to `out` (fallibly).
pub(crate) fn append(out: &mut Found, more: Found) -> Result<()> {
    reserve(out, more.len(), "the pairs found")?;
    out.extend(more);
    Ok(())
}

/// The search for `distinct` distinct fingerprints planned from `sample` (`words` u64 each),
/// a uniform sample of them: the same plan as [`plan`] when the sample holds every distinct
/// fingerprint (see [`cost::choose_for`]).
pub fn plan_from_sample(
    sample: &[u64],
    words: usize,
    max_distance: u32,
    distinct: usize,
) -> Result<SearchPlan> {
    match words {
        1 => sample_plan_as::<u64>(sample, max_distance, distinct),
        2 => sample_plan_as::<u128>(sample, max_distance, distinct),
        _ => Err(bad_width(words)),
    }
}

fn sample_plan_as<B: Bits>(
    sample: &[u64],
    max_distance: u32,
    distinct: usize,
) -> Result<SearchPlan> {
    let mut values = values_of::<B>(sample)?;
    values.sort_unstable();
    values.dedup();
    Ok(cost::choose_for(
        &values,
        B::all(),
        max_distance,
        distinct.max(values.len()),
    ))
}

/// Every pair i < j of `fingerprints` (copies allowed) within `max_distance` that table
/// `table` of the index `Scheme::new(free, blocks, max_distance)` finds first (so a pair is
/// reported by one table only), sorted, with the distances; with `blocks == 0` (the plan
/// chose brute force) every pair within the radius. The Ray engine calls this on each table's
/// documents that its shuffle gathered: the buckets of the local search, searched by its code.
pub fn table_within(
    fingerprints: &[u64],
    words: usize,
    max_distance: u32,
    free: u128,
    blocks: usize,
    table: usize,
) -> Result<PairDistances> {
    match words {
        1 => table_within_as::<u64>(fingerprints, max_distance, free, blocks, table),
        2 => table_within_as::<u128>(fingerprints, max_distance, free, blocks, table),
        _ => Err(bad_width(words)),
    }
}

fn table_within_as<B: Bits>(
    fingerprints: &[u64],
    max_distance: u32,
    free: u128,
    blocks: usize,
    table: usize,
) -> Result<PairDistances> {
    let values = values_of::<B>(fingerprints)?;
    let (mut found, _) = if blocks == 0 {
        if table != 0 {
            return Err(Error::new(format!(
                "brute force has one table, got table {table}"
            )));
        }
        index::brute_force(&values, max_distance, 1)?
    } else {
        let free = free & B::all().to_u128();
        let scheme = Scheme::new(free, blocks, max_distance).ok_or_else(|| {
            Error::new(format!(
                "no index of {blocks} blocks at radius {max_distance} over {} bits",
                free.count_ones()
            ))
        })?;
        if table >= scheme.tables.len() {
            return Err(Error::new(format!(
                "the index has {} tables, got table {table}",
                scheme.tables.len()
            )));
        }
        index::table_search(&values, &scheme, table, max_distance)?
    };
    found.sort_unstable();
    unzip(found)
}

/// The fingerprints of `words`-wide rows as values (at most `u32::MAX` of them).
fn values_of<B: Bits>(fingerprints: &[u64]) -> Result<Vec<B>> {
    let rows = Rows::new(fingerprints, B::WORDS);
    if rows.len() > u32::MAX as usize {
        return Err(Error::new(format!(
            "at most {} documents, got {}",
            u32::MAX,
            rows.len()
        )));
    }
    let mut values: Vec<B> = Vec::new();
    reserve(&mut values, rows.len(), "the fingerprints")?;
    values.extend((0..rows.len()).map(|i| B::from_row(rows.row(i))));
    Ok(values)
}

/// (pairs, distances) of (i, j, distance) triples, in their order.
pub(crate) fn unzip(all: Found) -> Result<PairDistances> {
    let mut pairs = Vec::new();
    let mut distances = Vec::new();
    reserve(&mut pairs, all.len(), "the pairs found")?;
    reserve(&mut distances, all.len(), "the pairs found")?;
    for (i, j, distance) in all {
        pairs.push((i, j));
        distances.push(distance as i32);
    }
    Ok((pairs, distances))
}
