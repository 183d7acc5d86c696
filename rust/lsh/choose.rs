//! The choice of a banding (`neardup.choose_banding`): the recall-first search over (b, r),
//! and the cost model that predicts a banding's candidates from a sample of the corpus.
//!
//! Recall-first: every (b, r) with P(T) >= ρ and b·r <= P is admissible; for each r the fewest
//! bands that reach ρ. The choice is the steepest admissible r with bands over every slot
//! (b = P // r); the classic rule ([`super::params`]) when the MinHash estimate verifies.
//!
//! The cost model bands a uniform sample of m of the corpus's n signatures (the bottom-k
//! sample of [`super::sample`], or positions the caller drew), runs the engine's candidate
//! search on it (buckets split past the limit, the screen applied) and scales its count by
//! n(n-1) / (m(m-1)). Every float is computed as `neardup.banding` computed it in numpy
//! (sums pairwise, in numpy's order; the estimate compared in f32), so the decisions are the
//! same bits.

use super::{candidates, check_banding, check_threshold, collision_probability, params};
use super::{screen_min_equal, BucketRule, SCREEN_MISS};
use crate::error::{reserve, Error, Result};
use crate::minhash;

/// Recall at the threshold that [`choose`] guarantees when verification is exact.
pub const DEFAULT_RECALL: f64 = 0.99;
/// Buckets of more documents than this are split unless dense (`neardup.banding.BUCKET_LIMIT`).
pub const BUCKET_LIMIT: usize = 32;
/// Documents whose signatures the cost model bands (and the size of the bottom-k sample).
pub const SAMPLE_SIZE: usize = 1_000;
/// The reason [`choose`] gives for its recall-first banding.
pub const STEEPEST: &str =
    "recall-first: the steepest r with P(T) >= the target, bands over every slot";
/// The reason [`choose`] gives for the classic rule.
pub const CLASSIC: &str = "classic rule (S* at or below T): the estimate verifies the candidates";
/// The cost model's work, in units of shingling and signing one shingle (P = 128), fitted on
/// the real-text corpora (`neardup.banding` documents the fit): a document's fixed work in the
/// sign pass...
pub const DOCUMENT_COST: u64 = 100;
/// ...a candidate pair's (bucketing, the pair list, looking its sets up)...
pub const CANDIDATE_COST: f64 = 1.8;
/// ...and each shingle of the two sets that verifying a candidate intersects.
pub const MERGE_COST: f64 = 0.01;

/// Checks a recall target: it must lie in (0, 1).
pub fn check_recall(recall: f64) -> Result<()> {
    if recall > 0.0 && recall < 1.0 {
        Ok(())
    } else {
        Err(Error::new(format!(
            "recall must be in (0, 1), got {recall}"
        )))
    }
}

/// 1 - (1 - p)^b without the rounding of (1 - p) to 1 for tiny p.
fn collision(per_band: f64, bands: usize) -> f64 {
    -(bands as f64 * (-per_band).ln_1p()).exp_m1()
}

/// The smallest b <= `most` with 1 - (1 - T^r)^b >= `recall`, or None if there is none.
pub fn fewest_bands(threshold: f64, rows: usize, recall: f64, most: usize) -> Option<usize> {
    let per_band = threshold.powf(rows as f64);
    if per_band >= 1.0 {
        return Some(1);
    }
    if collision(per_band, most) < recall {
        return None;
    }
    let (mut low, mut high) = (1, most); // the curve rises with b: the first b that reaches it
    while low < high {
        let middle = (low + high) / 2;
        if collision(per_band, middle) >= recall {
            high = middle;
        } else {
            low = middle + 1;
        }
    }
    Some(low)
}

fn check_search(threshold: f64, num_perm: usize, recall: f64) -> Result<()> {
    check_threshold(threshold)?;
    check_recall(recall)?;
    if num_perm < 1 {
        return Err(Error::new("num_perm must be at least 1, got 0"));
    }
    Ok(())
}

/// Every admissible recall-first banding, steepest first: for each r the fewest bands b with
/// P(T) >= `recall` and b·r <= `num_perm`.
pub fn recall_bandings(
    threshold: f64,
    num_perm: usize,
    recall: f64,
) -> Result<Vec<(usize, usize)>> {
    check_search(threshold, num_perm, recall)?;
    Ok((1..=num_perm)
        .rev()
        .filter_map(|rows| {
            fewest_bands(threshold, rows, recall, num_perm / rows).map(|bands| (bands, rows))
        })
        .collect())
}

/// The recall-first banding: the first of [`recall_bandings`], or (P, 1) when none reaches it.
pub fn recall_params(threshold: f64, num_perm: usize, recall: f64) -> Result<(usize, usize)> {
    check_search(threshold, num_perm, recall)?;
    // the steepest admissible r is the first found going down from r = P
    Ok((1..=num_perm)
        .rev()
        .find_map(|rows| {
            fewest_bands(threshold, rows, recall, num_perm / rows).map(|bands| (bands, rows))
        })
        .unwrap_or((num_perm, 1)))
}

/// The banding [`choose`] picked and why (`neardup.Banding`).
#[derive(Debug, Clone, PartialEq)]
pub struct Banding {
    pub bands: usize,
    pub rows: usize,
    /// P(T): the chance that a pair exactly at the threshold becomes a candidate.
    pub expected_recall: f64,
    /// The cost model's candidate pairs (None without a sample); n(n-1)/2 < 2^127 at most.
    pub predicted_candidates: Option<u128>,
    pub reason: String,
}

/// What the cost model reads of a corpus: signatures (row-major, `width` slots a row), and
/// optionally which rows to band, the rows' shingle counts, the sign pass's
/// (documents, shingles) and the corpus size `n` the signatures are a uniform sample of.
#[derive(Debug, Clone, Copy)]
pub struct Corpus<'a> {
    pub signatures: &'a [u32],
    pub width: usize,
    /// Rows to band (a uniform sample by position); None: every row.
    pub positions: Option<&'a [usize]>,
    pub sizes: Option<&'a [f64]>,
    pub sign_pass: Option<(u64, u64)>,
    /// None: the signatures are the corpus.
    pub n: Option<u64>,
}

/// The cost model's prediction for one banding.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prediction {
    /// Candidate pairs of the corpus, scaled from the sample's (rounded half to even; past
    /// 2^64 for corpora of billions of sets, as Python's int was).
    pub candidates: u128,
    /// Verification work of the candidates whose estimate is below T, scaled (model units).
    pub excess_work: f64,
}

/// The cost model's view of a corpus: the sampled signatures and shingle counts, the corpus
/// size and the sign pass's work.
#[derive(Debug, Clone)]
pub struct CostModel {
    signatures: Vec<u32>,
    width: usize,
    sizes: Vec<f64>,
    n: u64,
    /// The sign pass's work in model units.
    pub sign_work: f64,
}

impl CostModel {
    /// Draws the sample the model bands from `corpus`, after checking it.
    pub fn draw(corpus: Corpus<'_>) -> Result<Self> {
        let width = corpus.width;
        if width < 1 || corpus.signatures.len() % width != 0 {
            return Err(Error::new("signatures must have at least one column"));
        }
        let m = corpus.signatures.len() / width;
        let known = match corpus.sizes {
            Some(sizes) => {
                if sizes.len() != m {
                    return Err(Error::new(format!(
                        "sizes must be {m} shingle counts, one per signature, got shape ({},)",
                        sizes.len()
                    )));
                }
                if sizes.iter().any(|s| !s.is_finite() || *s < 0.0) {
                    return Err(Error::new("sizes must be finite and non-negative"));
                }
                Some(sizes)
            }
            None => None,
        };
        let every: Vec<usize>;
        let rows = match corpus.positions {
            Some(rows) => {
                if let Some(&bad) = rows.iter().find(|&&row| row >= m) {
                    return Err(Error::new(format!(
                        "sample position {bad} is past the {m} signatures"
                    )));
                }
                rows
            }
            None => {
                every = (0..m).collect();
                &every
            }
        };
        let mut signatures = Vec::new();
        reserve(
            &mut signatures,
            rows.len().saturating_mul(width),
            "the sample",
        )?;
        let mut sizes = Vec::new();
        reserve(&mut sizes, rows.len(), "the sample's sizes")?;
        for &row in rows {
            signatures.extend_from_slice(&corpus.signatures[row * width..(row + 1) * width]);
            sizes.push(known.map_or(0.0, |k| k[row]));
        }
        let n = corpus.n.unwrap_or(m as u64);
        let mean = match known {
            Some(k) if m > 0 => numpy_sum(k) / m as f64,
            _ => 0.0,
        };
        let (documents, shingles) = match corpus.sign_pass {
            Some((documents, shingles)) => (documents, shingles as f64),
            None => (n, mean * n as f64),
        };
        let sign_work = (u128::from(DOCUMENT_COST) * u128::from(documents)) as f64 + shingles;
        Ok(CostModel {
            signatures,
            width,
            sizes,
            n,
            sign_work,
        })
    }

    /// Documents in the sample.
    pub fn len(&self) -> usize {
        self.sizes.len()
    }

    /// Whether the sample is empty.
    pub fn is_empty(&self) -> bool {
        self.sizes.is_empty()
    }

    /// Candidate pairs of the whole corpus, scaled from the sample's: a pair lands in a
    /// uniform sample of m of n with probability m(m-1) / (n(n-1)), so the scaled count is
    /// unbiased. The sample's candidates are those exact verification would see (buckets split
    /// past `bucket_limit`, the screen applied); `excess_work` weighs those whose MinHash
    /// estimate is below T.
    pub fn predict(
        &self,
        bands: usize,
        rows: usize,
        threshold: f64,
        bucket_limit: Option<usize>,
    ) -> Result<Prediction> {
        check_threshold(threshold)?;
        check_banding(bands, rows, self.width)?;
        let rule = BucketRule::new(threshold, bucket_limit)?;
        let screen = screen_min_equal(self.width, threshold, SCREEN_MISS);
        let found = candidates(
            &self.signatures,
            self.width,
            bands,
            rows,
            rule,
            Some(screen),
            1,
            None,
        )?;
        let m = self.len() as u64;
        let scale = if m >= self.n || m < 2 {
            1.0
        } else {
            ratio(
                u128::from(self.n) * u128::from(self.n - 1),
                u128::from(m) * u128::from(m - 1),
            )
        };
        // numpy compares the f32 estimates with the threshold cast to f32
        let at_least = threshold as f32;
        let row = |i: u32| &self.signatures[i as usize * self.width..(i as usize + 1) * self.width];
        let mut work = Vec::new();
        for &(i, j) in &found.pairs {
            if minhash::estimate(row(i), row(j)) < at_least {
                let merged = self.sizes[i as usize] + self.sizes[j as usize];
                crate::error::push(&mut work, CANDIDATE_COST + MERGE_COST * merged, "the work")?;
            }
        }
        Ok(Prediction {
            candidates: (found.pairs.len() as f64 * scale).round_ties_even() as u128,
            excess_work: numpy_sum(&work) * scale,
        })
    }
}

/// The banding for a threshold, `num_perm` slots and a verification: the one place that decides
/// it. `exact` false: the classic rule. Else recall-first, the steepest r that reaches `recall`
/// with bands over every slot, and with a `corpus` the cost model's prediction.
pub fn choose(
    threshold: f64,
    num_perm: usize,
    exact: bool,
    recall: f64,
    bucket_limit: Option<usize>,
    corpus: Option<Corpus<'_>>,
) -> Result<Banding> {
    check_search(threshold, num_perm, recall)?;
    let (bands, rows) = params(threshold, num_perm)?; // checked for either rule, as before
    if !exact {
        return Ok(Banding {
            bands,
            rows,
            expected_recall: collision_probability(threshold, bands, rows),
            predicted_candidates: None,
            reason: CLASSIC.to_owned(),
        });
    }
    let rows = recall_params(threshold, num_perm, recall)?.1;
    let bands = num_perm / rows;
    let expected_recall = collision_probability(threshold, bands, rows);
    let Some(corpus) = corpus else {
        return Ok(Banding {
            bands,
            rows,
            expected_recall,
            predicted_candidates: None,
            reason: STEEPEST.to_owned(),
        });
    };
    if corpus.width < num_perm {
        return Err(Error::new(format!(
            "signatures have {} slots, fewer than num_perm = {num_perm}",
            corpus.width
        )));
    }
    let model = CostModel::draw(corpus)?;
    let predicted = model.predict(bands, rows, threshold, bucket_limit)?;
    let ratio = predicted.excess_work
        / if 1.0 > model.sign_work {
            1.0
        } else {
            model.sign_work
        };
    Ok(Banding {
        bands,
        rows,
        expected_recall,
        predicted_candidates: Some(predicted.candidates),
        reason: format!(
            "{STEEPEST}; predicted verification work beyond the duplicate pairs {}x the sign \
             pass's",
            format_g2(ratio)
        ),
    })
}

/// The sum numpy's `np.add.reduce` computes for a contiguous float64 array: 0 plus the
/// pairwise sum (blocks of 128 summed in 8 lanes, halves split on multiples of 8).
pub fn numpy_sum(values: &[f64]) -> f64 {
    fn pairwise(a: &[f64]) -> f64 {
        let n = a.len();
        if n < 8 {
            a.iter().fold(0.0, |sum, &x| sum + x)
        } else if n <= 128 {
            let mut r = [0.0; 8];
            r.copy_from_slice(&a[..8]);
            let whole = n - n % 8;
            for block in a[8..whole].chunks_exact(8) {
                for (lane, &x) in r.iter_mut().zip(block) {
                    *lane += x;
                }
            }
            let mut sum = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
            for &x in &a[whole..] {
                sum += x;
            }
            sum
        } else {
            let half = n / 2;
            let half = half - half % 8;
            pairwise(&a[..half]) + pairwise(&a[half..])
        }
    }
    0.0 + pairwise(values)
}

/// `numerator / denominator` rounded once to the nearest f64 (ties to even), as Python's
/// `int / int` is: the sample's scale n(n-1) / (m(m-1)) exceeds 2^53 for n past ~9.5e7.
pub fn ratio(numerator: u128, denominator: u128) -> f64 {
    if denominator == 0 {
        return f64::INFINITY;
    }
    if numerator < 1 << 53 && denominator < 1 << 53 {
        return numerator as f64 / denominator as f64; // both exact: one rounding
    }
    let (mut quotient, mut rest) = (numerator / denominator, numerator % denominator);
    if quotient == 0 && rest == 0 {
        return 0.0;
    }
    // 55 significant bits of the quotient (53 kept, a round bit, a sticky bit), exponent `shift`
    let mut shift: i32 = 0;
    let bits = 128 - quotient.leading_zeros() as i32;
    let mut sticky = false;
    if bits > 55 {
        let drop = bits - 55;
        sticky = quotient & ((1u128 << drop) - 1) != 0;
        quotient >>= drop;
        shift = drop;
    } else {
        while quotient < 1 << 54 {
            // one more bit of the quotient from the remainder (rest < denominator < 2^127)
            rest <<= 1;
            quotient <<= 1;
            if rest >= denominator {
                rest -= denominator;
                quotient |= 1;
            }
            shift -= 1;
        }
    }
    sticky |= rest != 0;
    let (mut kept, round, low) = (quotient >> 2, quotient >> 1 & 1 == 1, quotient & 1 == 1);
    if round && (low || sticky || kept & 1 == 1) {
        kept += 1;
    }
    kept as f64 * 2f64.powi(shift + 2)
}

/// `format(value, ".2g")` as Python writes it: two significant digits rounded half to even on
/// the exact binary value, fixed notation for exponents -4..1, else `d.de±XX`, trailing zeros
/// dropped.
pub fn format_g2(value: f64) -> String {
    if value.is_nan() {
        return "nan".to_owned();
    }
    let sign = if value.is_sign_negative() { "-" } else { "" };
    let value = value.abs();
    if value.is_infinite() {
        return format!("{sign}inf");
    }
    if value == 0.0 {
        return format!("{sign}0");
    }
    // the exact decimal expansion (a double has at most 767 significant digits)
    let exact = format!("{value:.800e}");
    let (digits, exponent) = exact.split_once('e').expect("an exponent");
    let mut exponent: i32 = exponent.parse().expect("a decimal exponent");
    let digits: Vec<u8> = digits
        .bytes()
        .filter(u8::is_ascii_digit)
        .map(|d| d - b'0')
        .collect();
    let mut kept = u32::from(digits[0]) * 10 + u32::from(digits[1]);
    let rest = &digits[2..];
    let up = match rest.first() {
        Some(&d) if d > 5 => true,
        Some(&5) => rest[1..].iter().any(|&d| d != 0) || kept % 2 == 1,
        _ => false,
    };
    if up {
        kept += 1;
        if kept == 100 {
            kept = 10;
            exponent += 1;
        }
    }
    let (first, second) = (kept / 10, kept % 10);
    if !(-4..2).contains(&exponent) {
        let mantissa = if second == 0 {
            format!("{first}")
        } else {
            format!("{first}.{second}")
        };
        let mark = if exponent < 0 { '-' } else { '+' };
        return format!("{sign}{mantissa}e{mark}{:02}", exponent.abs());
    }
    // fixed: the two digits with the point after digit (exponent + 1)
    let mut text = if exponent >= 0 {
        let whole = format!("{kept}");
        let point = exponent as usize + 1;
        if point >= 2 {
            whole
        } else {
            format!("{}.{}", &whole[..point], &whole[point..])
        }
    } else {
        format!("0.{}{kept}", "0".repeat((-exponent - 1) as usize))
    };
    if text.contains('.') {
        text = text.trim_end_matches('0').trim_end_matches('.').to_owned();
    }
    format!("{sign}{text}")
}

#[cfg(test)]
#[path = "choose_tests.rs"]
mod tests;
