//! Units of many rows (`unit_of=`, `--unit-key`): rows sharing a key are one document, their
//! texts joined in row order with [`UNIT_SEPARATOR`] between them, fed to the run as UTF-8
//! buffers (no Python string per unit: a separator outside Latin-1 would widen each one,
//! and the sign pass would then encode it back to UTF-8).
//!
//! [`UnitJoiner`] takes the rows in order, batch by batch, and gives back each unit once its
//! last row has been read and every unit before it has been given: memory holds the units
//! still open (little when a unit's rows are close together, as in most files).

use crate::error::{Error, Result};
use std::collections::HashMap;

/// What joins the rows of a unit: a word of three Runic letters between two line breaks, a
/// word of its own after normalisation in every hash version, so a shingle that crosses a row
/// boundary holds it and a single row never could.
pub const UNIT_SEPARATOR: &str = "\n\u{16A0}\u{16A1}\u{16A2}\n";

/// Joins rows into units, streamed (see the module's documentation).
pub struct UnitJoiner {
    /// The unit of each row (units numbered from 0).
    of_row: Vec<usize>,
    /// Rows of each unit not read yet.
    left: Vec<u32>,
    /// The rows read of each unit not given yet.
    open: HashMap<usize, Vec<Box<[u8]>>>,
    /// Units given so far: the next to give.
    done: usize,
    /// Rows read so far.
    read: usize,
}

impl UnitJoiner {
    /// A joiner of `units` units whose rows belong to `of_row` (one unit number per row).
    pub fn new(of_row: &[i64], units: usize) -> Result<Self> {
        let mut left = vec![0u32; units];
        let mut owners = Vec::with_capacity(of_row.len());
        for (row, &unit) in of_row.iter().enumerate() {
            let Some(count) = usize::try_from(unit).ok().and_then(|u| left.get_mut(u)) else {
                return Err(Error::new(format!(
                    "row {row} belongs to unit {unit}, not one of the {units} units"
                )));
            };
            *count = count
                .checked_add(1)
                .ok_or_else(|| Error::new("a unit of more than 2**32 rows"))?;
            owners.push(unit as usize);
        }
        if let Some(empty) = left.iter().position(|&rows| rows == 0) {
            return Err(Error::new(format!("unit {empty} has no row")));
        }
        Ok(UnitJoiner {
            of_row: owners,
            left,
            open: HashMap::new(),
            done: 0,
            read: 0,
        })
    }

    /// Reads the next rows' `texts` (in row order); the units they complete, in unit order,
    /// as (UTF-8 bytes, int64 offsets).
    pub fn add(&mut self, texts: &[&str]) -> Result<(Vec<u8>, Vec<i64>)> {
        let end = self.read + texts.len();
        if end > self.of_row.len() {
            return Err(Error::new(format!(
                "{end} rows read, but the units were made from {}",
                self.of_row.len()
            )));
        }
        let mut out = (Vec::new(), vec![0i64]);
        for (row, text) in (self.read..end).zip(texts) {
            let unit = self.of_row[row];
            self.left[unit] -= 1;
            if unit == self.done && self.left[unit] == 0 {
                // the next unit to give, complete with this row: written out at once
                self.give(Some(text), &mut out);
                while self.done < self.left.len() && self.left[self.done] == 0 {
                    self.give(None, &mut out);
                }
            } else {
                // each row held apart, its bytes allocated exactly, until its unit is given
                self.open
                    .entry(unit)
                    .or_default()
                    .push(text.as_bytes().into());
            }
        }
        self.read = end;
        Ok(out)
    }

    /// Writes unit `done` (its rows held, then `last`) to `out`, and moves on to the next.
    fn give(&mut self, last: Option<&str>, out: &mut (Vec<u8>, Vec<i64>)) {
        let (data, offsets) = out;
        let held = self.open.remove(&self.done).unwrap_or_default();
        let rows = held
            .iter()
            .map(|row| &row[..])
            .chain(last.map(str::as_bytes));
        for (i, row) in rows.enumerate() {
            if i > 0 {
                data.extend_from_slice(UNIT_SEPARATOR.as_bytes());
            }
            data.extend_from_slice(row);
        }
        offsets.push(data.len() as i64);
        self.done += 1;
    }

    /// Units not given yet (0 once every row has been read).
    pub fn units_left(&self) -> usize {
        self.left.len() - self.done
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The units' texts of a joiner fed `batches`, as strings.
    fn joined(of_row: &[i64], units: usize, batches: &[&[&str]]) -> Vec<String> {
        let mut joiner = UnitJoiner::new(of_row, units).unwrap();
        let mut out = Vec::new();
        for batch in batches {
            let (data, offsets) = joiner.add(batch).unwrap();
            for w in offsets.windows(2) {
                out.push(String::from_utf8(data[w[0] as usize..w[1] as usize].to_vec()).unwrap());
            }
        }
        assert_eq!(joiner.units_left(), 0);
        out
    }

    #[test]
    fn rows_are_joined_in_row_order_and_units_given_in_unit_order() {
        let sep = UNIT_SEPARATOR;
        let want = vec![format!("a{sep}c{sep}"), "b".to_string(), format!("d{sep}e")];
        // unit 0 stays open across batches; unit 1 waits for it
        for batches in [
            &[&["a", "b", "c", ""][..], &["d", "e"][..]][..],
            &[&["a"][..], &["b"][..], &["c", "", "d"][..], &["e"][..]][..],
            &[&["a", "b", "c", "", "d", "e"][..]][..],
        ] {
            assert_eq!(joined(&[0, 1, 0, 0, 2, 2], 3, batches), want);
        }
    }

    #[test]
    fn rows_that_do_not_fit_the_units_are_refused() {
        let error = |r: Result<UnitJoiner>| r.err().unwrap().to_string();
        assert!(error(UnitJoiner::new(&[0, 3], 2)).contains("unit 3, not one of the 2"));
        assert!(error(UnitJoiner::new(&[0, -1], 2)).contains("unit -1"));
        assert!(error(UnitJoiner::new(&[0, 0], 2)).contains("unit 1 has no row"));
        let mut joiner = UnitJoiner::new(&[0, 0], 1).unwrap();
        assert_eq!(joiner.add(&["x"]).unwrap().1, vec![0]); // open: nothing given
        assert_eq!(joiner.units_left(), 1);
        let more = joiner.add(&["y", "z"]).err().unwrap().to_string();
        assert!(
            more.contains("3 rows read, but the units were made from 2"),
            "{more}"
        );
    }
}
