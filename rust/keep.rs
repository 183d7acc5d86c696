//! The keep policy: which document of each duplicate cluster is kept. `first` keeps the lowest
//! position (the cluster's label), `longest` and `priority` the document with the largest
//! measure (characters, or the caller's priorities), ties to the lowest position.

use crate::error::{filled_vec, reserve, Error, Result};

/// The characters (Unicode scalar values) of each text, `longest`'s measure: its bytes less
/// its UTF-8 continuation bytes, counted while the text is in cache (the sign pass's batch).
pub fn char_counts(texts: &[&str]) -> Result<Vec<i64>> {
    let mut counts = Vec::new();
    reserve(&mut counts, texts.len(), "the character counts")?;
    counts.extend(texts.iter().map(|text| {
        let continuation = text.bytes().filter(|&b| b & 0xC0 == 0x80).count();
        (text.len() - continuation) as i64
    }));
    Ok(counts)
}

/// Which document of a cluster is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    First,
    Longest,
    Priority,
}

impl Policy {
    pub fn parse(policy: &str) -> Result<Self> {
        match policy {
            "first" => Ok(Policy::First),
            "longest" => Ok(Policy::Longest),
            "priority" => Ok(Policy::Priority),
            _ => Err(Error::new(format!(
                "keep must be 'first', 'longest' or 'priority', got {policy:?}"
            ))),
        }
    }
}

/// One number per document that `longest`/`priority` compare, compared exactly in its own
/// type (a NaN above every number, NaNs equal; -0.0 equal to 0.0).
#[derive(Debug, Clone, Copy)]
pub enum Measure<'a> {
    I64(&'a [i64]),
    U64(&'a [u64]),
    F64(&'a [f64]),
}

impl Measure<'_> {
    fn len(&self) -> usize {
        match self {
            Measure::I64(v) => v.len(),
            Measure::U64(v) => v.len(),
            Measure::F64(v) => v.len(),
        }
    }

    /// Whether document `i`'s value is above document `j`'s.
    #[inline]
    fn above(&self, i: usize, j: usize) -> bool {
        match self {
            Measure::I64(v) => v[i] > v[j],
            Measure::U64(v) => v[i] > v[j],
            Measure::F64(v) => v[i] > v[j] || (v[i].is_nan() && !v[j].is_nan()),
        }
    }
}

/// (keep, representative): one kept document per cluster of `labels` (each in 0..n) and,
/// for every document, the position of the one kept for its cluster.
pub type Kept = (Vec<bool>, Vec<i64>);

/// The documents `policy` keeps: for `first` the label itself, else the one with the largest
/// `measure` (required), ties to the lowest position.
pub fn keep(labels: &[i64], policy: Policy, measure: Option<Measure<'_>>) -> Result<Kept> {
    let n = labels.len();
    crate::rows::check_positions("labels", labels, n)?;
    let representative = match (policy, measure) {
        (Policy::First, _) => labels.to_vec(),
        (_, None) => {
            return Err(Error::new(format!(
                "keep='{}' needs one measure per document",
                format!("{policy:?}").to_lowercase()
            )))
        }
        (_, Some(measure)) => {
            if measure.len() != n {
                return Err(Error::new(format!(
                    "measure has {} values for {n} documents",
                    measure.len()
                )));
            }
            let mut best = filled_vec(n, -1i64, "the kept documents")?;
            for (i, &label) in labels.iter().enumerate() {
                let b = &mut best[label as usize];
                if *b < 0 || measure.above(i, *b as usize) {
                    *b = i as i64;
                }
            }
            labels.iter().map(|&l| best[l as usize]).collect()
        }
    };
    let keep = representative
        .iter()
        .enumerate()
        .map(|(i, &r)| r == i as i64)
        .collect();
    Ok((keep, representative))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn characters_are_counted_as_unicode_scalar_values() {
        let texts = ["", "abc", "héllo", "日本語", "a😀b"];
        let expected: Vec<i64> = texts.iter().map(|t| t.chars().count() as i64).collect();
        assert_eq!(char_counts(&texts).unwrap(), expected);
        assert_eq!(expected, [0, 3, 5, 3, 3]);
    }

    #[test]
    fn each_policy_keeps_one_per_cluster() {
        let labels = [0, 0, 2, 0, 2];
        let (keep, rep) = keep(&labels, Policy::First, None).unwrap();
        assert_eq!(
            (keep, rep),
            (vec![true, false, true, false, false], labels.to_vec())
        );
        let lengths = Measure::I64(&[3, 9, 1, 9, 4]);
        let (keep, rep) = super::keep(&labels, Policy::Longest, Some(lengths)).unwrap();
        assert_eq!(keep, vec![false, true, false, false, true]);
        assert_eq!(rep, vec![1, 1, 4, 1, 4]);
    }

    #[test]
    fn numbers_compare_in_their_own_type() {
        let labels = [0, 0, 0];
        let big = Measure::U64(&[u64::MAX, u64::MAX - 1, 0]);
        assert_eq!(
            keep(&labels, Policy::Priority, Some(big)).unwrap().1,
            vec![0; 3]
        );
        let low = Measure::I64(&[i64::MIN, i64::MIN, i64::MIN + 1]);
        assert_eq!(
            keep(&labels, Policy::Priority, Some(low)).unwrap().1,
            vec![2; 3]
        );
        let zeros = Measure::F64(&[-0.0, 0.0, f64::NAN]);
        assert_eq!(
            keep(&labels, Policy::Priority, Some(zeros)).unwrap().1,
            vec![2; 3]
        );
        let zeros = Measure::F64(&[-0.0, 0.0, -1.0]);
        assert_eq!(
            keep(&labels, Policy::Priority, Some(zeros)).unwrap().1,
            vec![0; 3]
        );
    }

    #[test]
    fn bad_labels_measures_and_policies_are_errors() {
        assert!(keep(&[0, 2], Policy::First, None).is_err());
        assert!(keep(&[0, -1], Policy::First, None).is_err());
        assert!(keep(&[0, 0], Policy::Longest, None).is_err());
        assert!(keep(&[0, 0], Policy::Priority, Some(Measure::F64(&[1.0]))).is_err());
        assert!(Policy::parse("last").is_err());
    }
}
