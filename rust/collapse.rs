//! The collapse stage over a whole pass: batch after batch of the sign pass's per-document
//! outputs (exact-copy digest, whether it may group, whether it has shingles, its length, its
//! set size, its signature), it finds each document's first exact duplicate
//! ([`FirstSeen`]) and keeps, in input order, what the later stages need: every document's
//! first duplicate, emptiness and length, and, of the unique documents with shingles only,
//! their digests, set sizes and signatures, grown in place (no list of batches joined at the
//! end, so a million documents' signatures peak at about their own size).

use crate::error::{reserve_amortized, Error, Result};
use crate::first_seen::FirstSeen;

/// One batch of the sign pass, row for row (`n` documents).
pub struct SignedRows<'a> {
    /// Two words a document: the exact-copy key (set digest, SHA-256 prefix, salted).
    pub digests: &'a [u64],
    /// May join an exact group (documents without shingles may not).
    pub groupable: &'a [bool],
    /// Has shingles after stripping: takes part in the near-duplicate search.
    pub live: &'a [bool],
    /// Characters (for `keep="longest"`), or empty when not measured.
    pub lengths: &'a [i64],
    /// The sizes of the sets signed, or empty for the SHA-256 methods.
    pub set_sizes: &'a [i64],
}

/// What the pass has collected; see the module documentation.
#[derive(Default)]
pub struct Collapse {
    seen: FirstSeen,
    /// Each document's first exact duplicate (input positions).
    pub first: Vec<i64>,
    /// Each document's `groupable` flag (false: empty, never an exact duplicate).
    pub groupable: Vec<bool>,
    /// Each document's length (zeros when not measured).
    pub lengths: Vec<i64>,
    /// The unique documents with shingles (first occurrences), increasing.
    pub selected: Vec<i64>,
    /// Their digests, two words each.
    pub digests: Vec<u64>,
    /// Their set sizes (when the batches gave them).
    pub set_sizes: Vec<i64>,
    /// Shingles of every document the pass read (exact duplicates too): the pass's work.
    pub shingled: i64,
    /// MinHash signatures (u32) of the selected documents, `width` a row.
    pub minhash: Vec<u32>,
    /// SimHash fingerprints (u64 words) of the selected documents, `width` a row.
    pub simhash: Vec<u64>,
    /// Words of a signature row (0 until the first signatures arrive).
    pub width: usize,
}

/// Appends `rows` of a row-major matrix of `width` columns to `out`.
fn take_rows<T: Copy>(out: &mut Vec<T>, matrix: &[T], width: usize, rows: &[usize]) -> Result<()> {
    reserve_amortized(out, rows.len() * width, "signatures")?;
    if rows.len() * width == matrix.len() {
        out.extend_from_slice(matrix); // every row, in order
    } else {
        for &row in rows {
            out.extend_from_slice(&matrix[row * width..(row + 1) * width]);
        }
    }
    Ok(())
}

impl Collapse {
    pub fn new() -> Self {
        Self::default()
    }

    /// Documents added so far.
    pub fn len(&self) -> usize {
        self.first.len()
    }

    pub fn is_empty(&self) -> bool {
        self.first.is_empty()
    }

    /// Adds the next batch; returns its rows that are new unique documents with shingles
    /// (batch positions, increasing), whose signatures [`Collapse::add_minhash`] or
    /// [`Collapse::add_simhash`] expects next.
    pub fn add(&mut self, batch: &SignedRows) -> Result<Vec<usize>> {
        let n = batch.groupable.len();
        if batch.live.len() != n
            || (!batch.lengths.is_empty() && batch.lengths.len() != n)
            || (!batch.set_sizes.is_empty() && batch.set_sizes.len() != n)
        {
            return Err(Error::new(format!(
                "a batch of {n} documents came with {} live flags, {} lengths and {} set sizes",
                batch.live.len(),
                batch.lengths.len(),
                batch.set_sizes.len()
            )));
        }
        let start = self.seen.len() as i64;
        let first = self.seen.add(batch.digests, batch.groupable)?;
        let chosen: Vec<usize> = (0..n)
            .filter(|&row| batch.live[row] && first[row] == start + row as i64)
            .collect();
        reserve_amortized(&mut self.first, n, "first duplicates")?;
        reserve_amortized(&mut self.groupable, n, "documents")?;
        reserve_amortized(&mut self.lengths, n, "lengths")?;
        reserve_amortized(&mut self.selected, chosen.len(), "unique documents")?;
        reserve_amortized(&mut self.digests, 2 * chosen.len(), "digests")?;
        self.first.extend_from_slice(&first);
        self.groupable.extend_from_slice(batch.groupable);
        if batch.lengths.is_empty() {
            self.lengths.resize(self.lengths.len() + n, 0);
        } else {
            self.lengths.extend_from_slice(batch.lengths);
        }
        for &row in &chosen {
            self.selected.push(start + row as i64);
            self.digests
                .extend_from_slice(&batch.digests[2 * row..2 * row + 2]);
        }
        if !batch.set_sizes.is_empty() {
            reserve_amortized(&mut self.set_sizes, chosen.len(), "set sizes")?;
            self.set_sizes
                .extend(chosen.iter().map(|&row| batch.set_sizes[row]));
            self.shingled += batch.set_sizes.iter().sum::<i64>();
        }
        Ok(chosen)
    }

    /// The row width of a signature matrix of `words` words in `matrix_rows` rows, checked
    /// against earlier batches' (and `other`: the other kind came before), with `rows` in it.
    fn width_of(
        &mut self,
        words: usize,
        matrix_rows: usize,
        rows: &[usize],
        other: bool,
    ) -> Result<usize> {
        if other {
            return Err(Error::new("MinHash and SimHash signatures in one pass"));
        }
        if let Some(row) = rows.iter().find(|&&row| row >= matrix_rows) {
            return Err(Error::new(format!(
                "row {row} of a matrix of {matrix_rows} rows"
            )));
        }
        if matrix_rows == 0 {
            return Ok(self.width);
        }
        if words % matrix_rows != 0 || (self.width != 0 && words / matrix_rows != self.width) {
            return Err(Error::new(format!(
                "signatures of {words} words for {matrix_rows} rows, after rows of {} words",
                self.width
            )));
        }
        self.width = words / matrix_rows;
        Ok(self.width)
    }

    /// Appends MinHash signatures: `rows` of `matrix` (rows of the batch just added, or all
    /// of a matrix of `rows.len()` rows already taken).
    pub fn add_minhash(
        &mut self,
        matrix: &[u32],
        matrix_rows: usize,
        rows: &[usize],
    ) -> Result<()> {
        let width = self.width_of(matrix.len(), matrix_rows, rows, !self.simhash.is_empty())?;
        take_rows(&mut self.minhash, matrix, width, rows)
    }

    /// Appends SimHash fingerprints, as [`Collapse::add_minhash`].
    pub fn add_simhash(
        &mut self,
        matrix: &[u64],
        matrix_rows: usize,
        rows: &[usize],
    ) -> Result<()> {
        let width = self.width_of(matrix.len(), matrix_rows, rows, !self.minhash.is_empty())?;
        take_rows(&mut self.simhash, matrix, width, rows)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_unique_documents_with_shingles_across_batches() {
        let mut pass = Collapse::new();
        // documents 0 and 2 are copies; 1 has no shingles (ungroupable, not live)
        let chosen = pass
            .add(&SignedRows {
                digests: &[1, 1, 0, 0, 1, 1],
                groupable: &[true, false, true],
                live: &[true, false, true],
                lengths: &[],
                set_sizes: &[3, 0, 3],
            })
            .unwrap();
        assert_eq!(chosen, [0]);
        pass.add_minhash(&[7, 8, 9, 10, 7, 8], 3, &chosen).unwrap();
        // document 3 copies 0 across batches; 4 is new; 5 is live-less but groupable
        let chosen = pass
            .add(&SignedRows {
                digests: &[1, 1, 5, 6, 2, 2],
                groupable: &[true, true, true],
                live: &[true, true, false],
                lengths: &[4, 5, 6],
                set_sizes: &[3, 2, 1],
            })
            .unwrap();
        assert_eq!(chosen, [1]);
        pass.add_minhash(&[11, 12], 1, &[0]).unwrap();
        assert_eq!(pass.first, [0, 1, 0, 0, 4, 5]);
        assert_eq!(pass.selected, [0, 4]);
        assert_eq!(pass.digests, [1, 1, 5, 6]);
        assert_eq!(pass.set_sizes, [3, 2]);
        assert_eq!(pass.shingled, 12);
        assert_eq!(pass.lengths, [0, 0, 0, 4, 5, 6]);
        assert_eq!(pass.minhash, [7, 8, 11, 12]);
        assert_eq!(pass.width, 2);
    }

    #[test]
    fn refuses_inconsistent_batches() {
        let mut pass = Collapse::new();
        let bad = SignedRows {
            digests: &[1, 1],
            groupable: &[true],
            live: &[true, true],
            lengths: &[],
            set_sizes: &[],
        };
        assert!(pass.add(&bad).is_err());
        pass.add_minhash(&[1, 2, 3, 4], 2, &[0, 1]).unwrap();
        assert!(pass.add_minhash(&[1, 2, 3], 1, &[0]).is_err()); // another width
        assert!(pass.add_minhash(&[1, 2], 1, &[1]).is_err()); // no such row
        assert!(pass.add_simhash(&[1, 2], 1, &[0]).is_err()); // another kind
    }
}
