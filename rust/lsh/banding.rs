//! The S-curve of banding: argument checks, its landmarks, and the banding for a threshold.

use crate::error::{reserve, Error, Result};

/// Checks a similarity threshold: it must lie in (0, 1].
pub fn check_threshold(threshold: f64) -> Result<()> {
    if threshold > 0.0 && threshold <= 1.0 {
        Ok(())
    } else {
        Err(Error::new(format!(
            "threshold must be in (0, 1], got {threshold}"
        )))
    }
}

/// Checks a banding against the signature width.
pub fn check_banding(bands: usize, rows: usize, num_perm: usize) -> Result<()> {
    if bands < 1 || rows < 1 {
        return Err(Error::new(format!(
            "bands and rows must be at least 1, got b={bands}, r={rows}"
        )));
    }
    if bands.saturating_mul(rows) > num_perm {
        return Err(Error::new(format!(
            "bands * rows must not exceed num_perm: {bands} * {rows} > {num_perm}"
        )));
    }
    Ok(())
}

/// S* = (1/b)^(1/r): the landmark of the S-curve (collision probability ≈ 0.63 there).
pub fn s_star(bands: usize, rows: usize) -> f64 {
    (1.0 / bands as f64).powf(1.0 / rows as f64)
}

/// The similarity at which a pair collides in some band with probability exactly 1/2.
pub fn half_point(bands: usize, rows: usize) -> f64 {
    (1.0 - 0.5f64.powf(1.0 / bands as f64)).powf(1.0 / rows as f64)
}

/// Probability that a pair of Jaccard `s` shares at least one band: 1 - (1 - s^r)^b.
pub fn collision_probability(s: f64, bands: usize, rows: usize) -> f64 {
    // powi takes an i32: beyond it (a banding no signature has), powf keeps the value right.
    let power = |x: f64, n: usize| match i32::try_from(n) {
        Ok(n) => x.powi(n),
        Err(_) => x.powf(n as f64),
    };
    1.0 - power(1.0 - power(s, rows), bands)
}

/// [`collision_probability`] of every similarity, after checking the banding.
pub fn collision_probabilities(similarity: &[f64], bands: usize, rows: usize) -> Result<Vec<f64>> {
    check_banding(bands, rows, usize::MAX)?;
    let mut out = Vec::new();
    reserve(&mut out, similarity.len(), "the probabilities")?;
    out.extend(
        similarity
            .iter()
            .map(|&s| collision_probability(s, bands, rows)),
    );
    Ok(out)
}

/// The widest signature [`params`] searches a banding for (one S* per candidate r).
pub const MAX_BANDING_NUM_PERM: usize = 1 << 24;

/// The banding for a threshold: the largest r whose S*, with b = floor(P / r), is still at or
/// below the threshold — the steepest S-curve that keeps the threshold on its high-recall side.
/// When no r qualifies (a threshold below 1/P), (P, 1) gives the most recall there is.
pub fn params(threshold: f64, num_perm: usize) -> Result<(usize, usize)> {
    check_threshold(threshold)?;
    if !(1..=MAX_BANDING_NUM_PERM).contains(&num_perm) {
        return Err(Error::new(format!(
            "num_perm must be in [1, {MAX_BANDING_NUM_PERM}] to choose a banding, got {num_perm}"
        )));
    }
    let best = (1..=num_perm)
        .map(|r| (num_perm / r, r))
        .filter(|&(b, r)| s_star(b, r) <= threshold + 1e-12)
        .max_by_key(|&(_, r)| r);
    Ok(best.unwrap_or((num_perm, 1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn article_banding_at_threshold_0_3() {
        assert_eq!(params(0.3, 128).unwrap(), (42, 3));
        assert!((s_star(42, 3) - 0.2876).abs() < 1e-3);
        assert_eq!(params(1.0, 128).unwrap(), (1, 128));
        assert_eq!(params(0.001, 4).unwrap(), (4, 1));
        assert!(params(0.0, 128).is_err());
        assert!(params(1.5, 128).is_err());
        assert!(params(0.5, 0).is_err());
        assert!(params(0.5, MAX_BANDING_NUM_PERM + 1).is_err());
    }

    #[test]
    fn collision_probability_beyond_i32_bandings() {
        let huge = i32::MAX as usize + 2;
        assert_eq!(collision_probability(1.0, huge, 1), 1.0);
        assert_eq!(collision_probability(0.0, 1, huge), 0.0);
        // 1 - (1 - 2^-40)^b ≈ 1 - exp(-b · 2^-40) (an i32 cast of b would make it negative).
        let p = collision_probability(0.5, huge, 40);
        let want = 1.0 - (-(huge as f64) * 0.5f64.powi(40)).exp();
        assert!((p - want).abs() < 1e-9, "{p} {want}");
    }

    #[test]
    fn collision_probability_at_the_landmarks() {
        let p = collision_probability(s_star(20, 5), 20, 5);
        assert!(
            (p - (1.0 - (1.0 - 1.0 / 20.0f64).powi(20))).abs() < 1e-12,
            "{p}"
        );
        let half = collision_probability(half_point(42, 3), 42, 3);
        assert!((half - 0.5).abs() < 1e-12, "{half}");
    }

    #[test]
    fn bandings_outside_the_signature_are_errors() {
        assert!(check_banding(0, 1, 4).is_err());
        assert!(check_banding(3, 2, 4).is_err());
        assert!(check_banding(usize::MAX, 2, 4).is_err());
    }
}
