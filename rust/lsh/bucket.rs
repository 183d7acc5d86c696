//! One bucket split on its own: the groups a band's bucket falls into, for an executor that
//! gathers a bucket's members elsewhere (the Ray engine) and must find exactly the groups the
//! local [`Grouper`] finds for it.

use super::banding::check_banding;
use super::copies::IdenticalRows;
use super::groups::{BucketRule, Grouper};
use crate::error::{Error, Result};
use crate::rows::Rows;

/// The groups of one gathered bucket ([`split_bucket`]).
#[derive(Debug, Clone, Default)]
pub struct BucketGroups {
    /// The members of every group (indices into the bucket's rows, ascending within a
    /// group), group after group.
    pub members: Vec<u32>,
    /// Where each group starts in `members`, and where the last ends (groups + 1 entries).
    pub offsets: Vec<usize>,
    /// Per row of the bucket: what the splits cost it, in [`SplitCost`]'s units (the
    /// increment of its `log_miss` from this band).
    pub charges: Vec<i64>,
    /// Parts split (as [`SplitCost::splits`] counts them).
    pub splits: u64,
}

/// The groups of one bucket of band `band` (band key `key`, `rows` slots a band), given the
/// signatures of its members (`num_perm` slots each, in ascending document order): exactly
/// the groups [`Grouper::band`] finds for that bucket over the whole corpus, with the same
/// costs, for an executor that gathers a bucket's members elsewhere (the Ray engine).
///
/// Rows with identical signatures are one document to the grouper, as `candidate_pairs`
/// collapses them: the first stands for them all, and the others join its groups (and form
/// one group with it, as copies are all candidates of each other).
pub fn split_bucket(
    signatures: &[u32],
    num_perm: usize,
    band: usize,
    rows: usize,
    key: u64,
    rule: BucketRule,
) -> Result<BucketGroups> {
    check_banding(band.saturating_add(1), rows, num_perm)?;
    if signatures.len() % num_perm != 0 {
        return Err(Error::new(format!(
            "the bucket's signatures hold {} slots, not a multiple of num_perm={num_perm}",
            signatures.len()
        )));
    }
    let m = signatures.len() / num_perm;
    let all: Vec<u32> = (0..m as u32).collect();
    let copies = IdenticalRows::find(signatures, num_perm, &all, 1)?;
    let reps = &copies.representatives;
    let mut copies_of: Vec<Vec<u32>> = vec![Vec::new(); m];
    let mut rep_of: Vec<u32> = all.clone();
    for &(rep, copy) in &copies.members {
        copies_of[rep as usize].push(copy);
        rep_of[copy as usize] = rep;
    }
    let mut out = BucketGroups {
        offsets: vec![0],
        ..BucketGroups::default()
    };
    let mut grouper = Grouper::new(Rows::new(signatures, num_perm), rows, reps, rule, true);
    let push = |group: &mut Vec<u32>, out: &mut BucketGroups| {
        group.sort_unstable();
        out.members.extend_from_slice(group);
        out.offsets.push(out.members.len());
    };
    let mut group = Vec::new();
    grouper.bucket(band, key, reps, &mut |found| {
        group.clear();
        for &r in found {
            group.push(r);
            group.extend_from_slice(&copies_of[r as usize]);
        }
        push(&mut group, &mut out);
    });
    for &rep in reps {
        if !copies_of[rep as usize].is_empty() {
            group.clear();
            group.push(rep);
            group.extend_from_slice(&copies_of[rep as usize]);
            push(&mut group, &mut out);
        }
    }
    let cost = grouper.cost.unwrap_or_default();
    out.splits = cost.splits;
    out.charges = rep_of
        .iter()
        .map(|&r| cost.log_miss.get(r as usize).copied().unwrap_or(0))
        .collect();
    Ok(out)
}
