//! The collapse stage: each document's first exact duplicate, found through a hash table of
//! 128-bit digests that lives across batches (the sign pass streams). One lookup a document,
//! so the pass stays linear in the corpus: the sorted-array merge it replaces re-sorted every
//! digest seen so far at each batch, quadratic in the number of batches (about 6 s of a
//! million-document run).

use crate::error::{reserve, Error, Result};
use crate::hashing::mix64;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};

/// A document's 128-bit digest (set digest or SHA-256 prefix), the key of the table.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Digest(u64, u64);

impl Hash for Digest {
    fn hash<H: Hasher>(&self, state: &mut H) {
        // One word per key: both lanes folded, mixed by the hasher below.
        state.write_u64(self.0 ^ self.1.rotate_left(29));
    }
}

/// Mixes the one word `Digest` writes: digests of near-uniform bits need no more than that,
/// and a structured one (the empty set's (0, 0)) still spreads.
#[derive(Default)]
struct DigestHasher(u64);

impl Hasher for DigestHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = mix64(self.0 ^ u64::from(b));
        }
    }
    fn write_u64(&mut self, word: u64) {
        self.0 = mix64(self.0 ^ word);
    }
}

/// The first position of every digest seen so far, over batches given in input order.
#[derive(Default)]
pub struct FirstSeen {
    first: HashMap<Digest, i64, BuildHasherDefault<DigestHasher>>,
    /// Documents added so far: the global position of the next batch's first row.
    seen: i64,
}

impl FirstSeen {
    pub fn new() -> Self {
        Self::default()
    }

    /// Documents added so far.
    pub fn len(&self) -> usize {
        self.seen as usize
    }

    pub fn is_empty(&self) -> bool {
        self.seen == 0
    }

    /// For each row of the next batch (`digests` two words a row), the global position of its
    /// first exact duplicate: an earlier row (of this batch or any before) with the same
    /// digest, else itself. Rows not `groupable` are always their own.
    pub fn add(&mut self, digests: &[u64], groupable: &[bool]) -> Result<Vec<i64>> {
        if digests.len() != 2 * groupable.len() {
            return Err(Error::new(format!(
                "digests hold {} words for {} documents (two a document)",
                digests.len(),
                groupable.len()
            )));
        }
        let mut first = Vec::new();
        reserve(&mut first, groupable.len(), "first duplicates")?;
        let more = groupable.iter().filter(|&&g| g).count();
        self.first
            .try_reserve(more)
            .map_err(|_| Error::new(format!("cannot allocate a table of {more} more digests")))?;
        for (row, (pair, &group)) in digests.chunks_exact(2).zip(groupable).enumerate() {
            let at = self.seen + row as i64;
            first.push(if group {
                *self.first.entry(Digest(pair[0], pair[1])).or_insert(at)
            } else {
                at
            });
        }
        self.seen += groupable.len() as i64;
        Ok(first)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_duplicates_across_batches() {
        let mut seen = FirstSeen::new();
        let a = seen.add(&[1, 2, 3, 4, 1, 2], &[true, true, true]).unwrap();
        assert_eq!(a, [0, 1, 0]);
        // (0, 0) ungroupable stays its own; (3, 4) was row 1; (1, 3) shares a lane only.
        let b = seen
            .add(&[0, 0, 3, 4, 1, 3, 0, 0], &[false, true, true, true])
            .unwrap();
        assert_eq!(b, [3, 1, 5, 6]);
        assert_eq!(seen.len(), 7);
        assert!(seen.add(&[1], &[true]).is_err());
    }

    #[test]
    fn equals_a_sort_by_digest_whatever_the_batches() {
        let mut state = 7u64;
        let digests: Vec<u64> = (0..4000)
            .map(|_| {
                state = mix64(state);
                state % 40 // many repeats, in both lanes
            })
            .collect();
        let groupable: Vec<bool> = (0..2000).map(|i| i % 7 != 3).collect();
        let mut expected = Vec::new();
        for i in 0..2000 {
            let same = (0..i).find(|&j| {
                groupable[j]
                    && groupable[i]
                    && digests[2 * j..2 * j + 2] == digests[2 * i..2 * i + 2]
            });
            expected.push(same.unwrap_or(i) as i64);
        }
        for batch in [1, 3, 64, 2000] {
            let mut seen = FirstSeen::new();
            let mut got = Vec::new();
            for (d, g) in digests.chunks(2 * batch).zip(groupable.chunks(batch)) {
                got.extend(seen.add(d, g).unwrap());
            }
            assert_eq!(got, expected, "batch {batch}");
        }
    }
}
