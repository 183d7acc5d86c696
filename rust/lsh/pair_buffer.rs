//! The buffer candidate pairs go through: pair codes, radix-sorted, de-duplicated and merged
//! into one sorted result in batches.

use super::radix::radix_sort_with;
use crate::error::{reserve, Error, Result};

/// Pair codes buffered before sorting; see [`candidate_pairs`]. 2^18 (2 MiB, and as much
/// again to radix-sort it) rather than 2^20: the same LSH time at 100,000 documents, 16 MiB
/// less peak memory.
pub(super) const FLUSH_PAIRS: usize = 1 << 18;

/// Pair codes gathered in `pending` and merged, sorted and de-duplicated, into `sorted`. Every
/// allocation is fallible: when memory runs out the buffer stops taking codes and
/// [`PairBuffer::finish`] reports the error (the hot `push` stays free of `Result`s).
pub(super) struct PairBuffer {
    pending: Vec<u64>,
    scratch: Vec<u64>,
    sorted: Vec<u64>,
    merged: Vec<u64>,
    significant: usize,
    failed: Option<Error>,
}

impl PairBuffer {
    pub fn new(significant: usize, capacity: usize) -> Self {
        let mut buffer = PairBuffer {
            pending: Vec::new(),
            scratch: Vec::new(),
            sorted: Vec::new(),
            merged: Vec::new(),
            significant,
            failed: None,
        };
        let room = reserve(&mut buffer.pending, capacity, WHAT);
        buffer.fail_on(room);
        buffer
    }

    #[inline]
    pub fn push(&mut self, code: u64) {
        if self.pending.len() == self.pending.capacity() {
            self.make_room();
            if self.failed.is_some() {
                return;
            }
        }
        self.pending.push(code);
    }

    /// Flushes when the buffer holds FLUSH_PAIRS codes or as many as are already sorted,
    /// whichever is more: every merge then at least doubles what is merged, so a result of
    /// m pairs costs O(m) merging in all, even when giant buckets make m huge. Below that the
    /// buffer grows.
    #[cold]
    fn make_room(&mut self) {
        if self.failed.is_some() {
            return;
        }
        let len = self.pending.len();
        if len >= FLUSH_PAIRS && len >= self.sorted.len() {
            self.flush(true);
        } else {
            let grow = len.max(16);
            let result = self
                .pending
                .try_reserve(grow)
                .map_err(|_| Error::resource(WHAT, len + grow, 8));
            self.fail_on(result);
        }
    }

    fn fail_on(&mut self, result: Result<()>) {
        if let Err(error) = result {
            self.failed.get_or_insert(error);
        }
    }

    /// Sorts and de-duplicates the pending codes and merges them into `sorted`; leaves room in
    /// `pending` for the next flush when `more` codes will come.
    fn flush(&mut self, more: bool) {
        let sorted = radix_sort_with(&mut self.pending, &mut self.scratch, self.significant);
        self.fail_on(sorted);
        if self.failed.is_some() {
            return;
        }
        self.pending.dedup();
        if self.sorted.is_empty() {
            std::mem::swap(&mut self.sorted, &mut self.pending);
        } else {
            self.merged.clear();
            let room = reserve(
                &mut self.merged,
                self.sorted.len() + self.pending.len(),
                WHAT,
            );
            self.fail_on(room);
            if self.failed.is_some() {
                return;
            }
            let (a, b) = (&self.sorted, &self.pending);
            let (mut x, mut y) = (0, 0);
            while x < a.len() && y < b.len() {
                let (u, v) = (a[x], b[y]);
                self.merged.push(u.min(v));
                x += (u <= v) as usize;
                y += (v <= u) as usize;
            }
            self.merged.extend_from_slice(&a[x..]);
            self.merged.extend_from_slice(&b[y..]);
            std::mem::swap(&mut self.sorted, &mut self.merged);
        }
        self.pending.clear();
        if more {
            let next = FLUSH_PAIRS.max(self.sorted.len());
            let room = reserve(&mut self.pending, next, WHAT);
            self.fail_on(room);
        }
    }

    /// The sorted, distinct codes pushed, or the allocation that failed.
    pub fn finish(mut self) -> Result<Vec<u64>> {
        if self.failed.is_none() {
            self.flush(false);
        }
        match self.failed {
            Some(error) => Err(error),
            None => Ok(self.sorted),
        }
    }
}

const WHAT: &str = "the candidate pairs";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_come_out_sorted_and_distinct() {
        let mut buffer = PairBuffer::new(8, 4);
        for code in [5, 1, 5, 3, 200, 1] {
            buffer.push(code);
        }
        assert_eq!(buffer.finish().unwrap(), vec![1, 3, 5, 200]);
    }

    #[test]
    fn an_allocation_that_fails_is_an_error_at_finish_not_an_abort() {
        let mut buffer = PairBuffer::new(40, usize::MAX / 16);
        buffer.push(3);
        assert!(matches!(buffer.finish(), Err(Error::Resource(_))));
    }
}
