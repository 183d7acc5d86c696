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

/// The chance bound of the screen: a pair of Jaccard at least the threshold is screened out
/// with probability at most this (per pair).
pub const SCREEN_MISS: f64 = 1e-9;

/// The fewest equal slots (of `num_perm`) a candidate needs to go on to exact verification:
/// the largest c with P(X < c) <= `miss` for X ~ Binomial(num_perm, threshold).
///
/// Under MinHash each slot of a pair of Jaccard s agrees independently with probability s, so a
/// pair with s >= threshold has fewer than c equal slots with probability at most `miss`. The
/// candidate stage only looks at pairs that agree on a whole band, an event that raises the
/// count (Harris' inequality: conditioning on an increasing event), so the bound holds for
/// candidates too. Slots that agree by a 32-bit collision of different minima only raise it.
pub fn screen_min_equal(num_perm: usize, threshold: f64, miss: f64) -> usize {
    // Lower tail summed term by term in log space (num_perm is at most a few thousand).
    let (n, p) = (num_perm as f64, threshold);
    if p >= 1.0 {
        return num_perm;
    }
    let ln_choose = |k: f64| ln_gamma(n + 1.0) - ln_gamma(k + 1.0) - ln_gamma(n - k + 1.0);
    let mut tail = 0.0;
    for c in 0..=num_perm {
        // tail = P(X < c) before adding P(X = c)
        let k = c as f64;
        let term = (ln_choose(k) + k * p.ln() + (n - k) * (-p).ln_1p()).exp();
        if tail + term > miss {
            return c;
        }
        tail += term;
    }
    num_perm
}

/// ln Γ(x) for x >= 1 (Lanczos, g = 7: relative error below 1e-13, ample for a tail bound).
fn ln_gamma(x: f64) -> f64 {
    const G: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    let x = x - 1.0;
    let mut a = G[0];
    let t = x + 7.5;
    for (i, g) in G.iter().enumerate().skip(1) {
        a += g / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn screen_bound_matches_the_binomial_tail() {
        // P(Bin(128, 0.3) <= 10) = 4.6e-10 <= 1e-9 < P(<= 11): keep 11 or more equal slots.
        assert_eq!(screen_min_equal(128, 0.3, 1e-9), 11);
        assert_eq!(screen_min_equal(128, 0.5, 1e-9), 31);
        assert_eq!(screen_min_equal(128, 0.8, 1e-9), 73);
        assert_eq!(screen_min_equal(128, 0.1, 1e-9), 0);
        assert_eq!(screen_min_equal(16, 1.0, 1e-9), 16);
        assert!((ln_gamma(11.0) - 3_628_800f64.ln()).abs() < 1e-10);
    }

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
