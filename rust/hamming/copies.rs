//! Identical fingerprints collapsed before the search (a cluster of `m` copies is one row of
//! it), and the pairs among distinct fingerprints expanded back into pairs of rows at the end.

use super::bits::Bits;
use super::Found;
use crate::error::{push, reserve, Error, Result};
use crate::parallel;
use crate::rows::{PairDistances, Rows};

/// The distinct fingerprints of the active rows, each with the rows that hold it.
pub(crate) struct Distinct<B> {
    /// Each distinct fingerprint once, in increasing order.
    pub values: Vec<B>,
    /// The rows of value `v` are `rows[starts[v]..starts[v + 1]]`, increasing.
    starts: Vec<u32>,
    rows: Vec<u32>,
}

impl<B: Bits> Distinct<B> {
    /// Sorts the active rows by fingerprint on `threads` threads (the (fingerprint, row) keys
    /// are distinct, so the order is the same for every count).
    pub fn find(fingerprints: Rows<'_, u64>, active: &[bool], threads: usize) -> Result<Self> {
        let count = active.iter().filter(|&&a| a).count();
        let mut keyed: Vec<(B, u32)> = Vec::new();
        reserve(&mut keyed, count, "the fingerprints")?;
        keyed.extend(
            (0..fingerprints.len())
                .filter(|&i| active[i])
                .map(|i| (B::from_row(fingerprints.row(i)), i as u32)),
        );
        parallel::sort_unstable(&mut keyed, threads)?;
        let mut values = Vec::new();
        let mut starts = Vec::new();
        let mut rows = Vec::new();
        reserve(&mut rows, count, "the fingerprints")?;
        for (k, &(value, row)) in keyed.iter().enumerate() {
            if k == 0 || keyed[k - 1].0 != value {
                push(&mut values, value, "the fingerprints")?;
                push(&mut starts, k as u32, "the fingerprints")?;
            }
            rows.push(row);
        }
        push(&mut starts, count as u32, "the fingerprints")?;
        Ok(Distinct {
            values,
            starts,
            rows,
        })
    }

    fn members(&self, value: u32) -> &[u32] {
        let v = value as usize;
        &self.rows[self.starts[v] as usize..self.starts[v + 1] as usize]
    }

    /// The pairs of rows: every pair of rows holding one fingerprint (distance 0) and, for
    /// every pair of distinct fingerprints `found`, every pair of their rows; sorted by (i, j).
    pub fn expand(&self, found: Found, threads: usize) -> Result<PairDistances> {
        let size = |v: u32| (self.starts[v as usize + 1] - self.starts[v as usize]) as u64;
        let copies: u64 = (0..self.values.len() as u32)
            .map(|v| size(v) * (size(v) - 1) / 2)
            .sum();
        let total = found
            .iter()
            .map(|&(a, b, _)| size(a) * size(b))
            .sum::<u64>()
            + copies;
        let total = usize::try_from(total)
            .map_err(|_| Error::resource("the pairs found", usize::MAX, 16))?;
        let mut all: Vec<(u32, u32, u32)> = Vec::new();
        reserve(&mut all, total, "the pairs found")?;
        if copies > 0 {
            for v in 0..self.values.len() as u32 {
                let rows = self.members(v);
                for (k, &a) in rows.iter().enumerate() {
                    all.extend(rows[k + 1..].iter().map(|&b| (a, b, 0)));
                }
            }
        }
        for (a, b, distance) in found {
            for &i in self.members(a) {
                all.extend(
                    self.members(b)
                        .iter()
                        .map(|&j| (i.min(j), i.max(j), distance)),
                );
            }
        }
        parallel::sort_unstable(&mut all, threads)?;
        super::unzip(all)
    }
}
