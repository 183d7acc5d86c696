//! Tests of the banding choice: the recall-first search, numpy's sum, Python's division and
//! `.2g`, and the cost model on samples whose candidates are known.

use super::*;

#[test]
fn recall_first_takes_the_fewest_bands_for_each_r() {
    assert_eq!(
        recall_bandings(0.3, 128, 0.99).unwrap(),
        vec![(49, 2), (13, 1)]
    );
    assert_eq!(recall_params(0.3, 128, 0.99).unwrap(), (49, 2));
    for (threshold, num_perm, recall) in [(0.5, 64, 0.9), (0.8, 256, 0.999), (0.95, 16, 0.99)] {
        for (bands, rows) in recall_bandings(threshold, num_perm, recall).unwrap() {
            assert!(bands * rows <= num_perm);
            assert!(collision_probability(threshold, bands, rows) >= recall - 1e-12);
            if bands > 1 {
                assert!(collision(threshold.powf(rows as f64), bands - 1) < recall);
            }
        }
    }
    // no banding of 4 slots reaches 0.999 at T = 0.05: the flattest curve
    assert!(recall_bandings(0.05, 4, 0.999).unwrap().is_empty());
    assert_eq!(recall_params(0.05, 4, 0.999).unwrap(), (4, 1));
    assert_eq!(fewest_bands(1.0, 3, 0.99, 5), Some(1));
}

#[test]
fn choose_without_a_sample_follows_the_rules() {
    let exact = choose(0.3, 128, true, DEFAULT_RECALL, Some(BUCKET_LIMIT), None).unwrap();
    assert_eq!(
        (exact.bands, exact.rows, exact.reason.as_str()),
        (64, 2, STEEPEST)
    );
    assert!((exact.expected_recall - 0.9976).abs() < 1e-4);
    let classic = choose(0.3, 128, false, DEFAULT_RECALL, None, None).unwrap();
    assert_eq!((classic.bands, classic.rows), (42, 3));
    assert_eq!(classic.reason, CLASSIC);
    assert_eq!(classic.predicted_candidates, None);
}

#[test]
fn bad_arguments_are_errors() {
    assert!(choose(0.0, 128, true, 0.99, None, None).is_err());
    assert!(choose(0.5, 0, true, 0.99, None, None).is_err());
    assert!(choose(0.5, 128, true, 1.0, None, None).is_err());
    assert!(recall_bandings(f64::NAN, 8, 0.9).is_err());
    let signatures = [0u32; 6 * 4];
    let corpus = |width| Corpus {
        signatures: &signatures,
        width,
        positions: None,
        sizes: None,
        sign_pass: None,
        n: None,
    };
    let narrow = choose(0.5, 8, true, 0.99, None, Some(corpus(4))).unwrap_err();
    assert_eq!(
        narrow.message(),
        "signatures have 4 slots, fewer than num_perm = 8"
    );
    assert!(choose(0.5, 4, true, 0.99, Some(1), Some(corpus(4))).is_err());
    assert!(choose(0.5, 4, true, 0.99, None, Some(corpus(5))).is_err()); // 24 slots, 5 a row
    let short = Corpus {
        sizes: Some(&[1.0, 2.0]),
        ..corpus(4)
    };
    let error = choose(0.5, 4, true, 0.99, None, Some(short)).unwrap_err();
    assert_eq!(
        error.message(),
        "sizes must be 6 shingle counts, one per signature, got shape (2,)"
    );
    let negative = [1.0, 2.0, -1.0, 0.0, 0.0, 0.0];
    let signed = Corpus {
        sizes: Some(&negative),
        ..corpus(4)
    };
    assert!(choose(0.5, 4, true, 0.99, None, Some(signed)).is_err());
    let past = Corpus {
        positions: Some(&[0, 6]),
        ..corpus(4)
    };
    assert!(choose(0.5, 4, true, 0.99, None, Some(past)).is_err());
}

#[test]
fn numpy_sum_is_pairwise_in_numpys_order() {
    let x: Vec<f64> = (0..8)
        .map(|i| 0.1 * i as f64 + 1e-3 * (i % 7) as f64)
        .collect();
    assert_eq!(numpy_sum(&x), 2.8209999999999997); // a sum in order gives ...006
    assert_eq!(numpy_sum(&[0.1; 10]), 1.0);
    assert_eq!(numpy_sum(&[0.1; 200]), 20.0);
    let long: Vec<f64> = (0..1000).map(|i| i as f64 * 0.1).collect();
    assert_eq!(numpy_sum(&long), 49950.0);
    assert_eq!(numpy_sum(&[]), 0.0);
}

#[test]
fn ratio_rounds_once_as_python_does() {
    let cases = [
        (623447347957u128, 518u128, 1.451373739475565e18),
        (130044532028, 4060, 1026216770022189.5),
        (419510398235, 1721, 5.945332426620163e16),
    ];
    for (n, m, want) in cases {
        assert_eq!(ratio(n * (n - 1), m * (m - 1)), want);
    }
    assert_eq!(ratio(6, 3), 2.0);
    assert_eq!(ratio(1, 3), 1.0 / 3.0);
    assert_eq!(ratio((1 << 60) + 1, 1), (1u64 << 60) as f64);
    assert_eq!(ratio(0, 5), 0.0);
}

#[test]
fn format_g2_writes_what_python_writes() {
    let cases = [
        (0.0, "0"),
        (0.125, "0.12"),
        (0.375, "0.38"),
        (1.25, "1.2"),
        (2.5, "2.5"),
        (12.5, "12"),
        (13.5, "14"),
        (0.0625, "0.062"),
        (125.0, "1.2e+02"),
        (99.5, "1e+02"),
        (9.95, "9.9"),
        (1.234e-05, "1.2e-05"),
        (0.0001234, "0.00012"),
        (1e-05, "1e-05"),
        (1e16, "1e+16"),
        (123456.0, "1.2e+05"),
        (0.5, "0.5"),
        (1.0, "1"),
        (10.0, "10"),
        (0.0052, "0.0052"),
        (3e-07, "3e-07"),
        (95.0, "95"),
        (0.99951, "1"),
        (1e100, "1e+100"),
        (9.9999e-05, "0.0001"),
    ];
    for (value, want) in cases {
        assert_eq!(format_g2(value), want, "{value}");
    }
}

/// `m` rows: `families` groups of identical signatures, 8 slots each.
fn families(m: usize, families: usize) -> Vec<u32> {
    (0..m)
        .flat_map(|i| (0..8).map(move |s| ((i % families * 8 + s) as u32).wrapping_mul(2654435761)))
        .collect()
}

#[test]
fn the_cost_model_counts_and_scales_the_sample_candidates() {
    let signatures = families(40, 4); // 4 families of 10: 4 * 45 candidate pairs, all equal
    let sizes: Vec<f64> = (0..40).map(|i| i as f64).collect();
    let corpus = Corpus {
        signatures: &signatures,
        width: 8,
        positions: None,
        sizes: Some(&sizes),
        sign_pass: None,
        n: None,
    };
    let model = CostModel::draw(corpus).unwrap();
    assert_eq!(model.sign_work, 100.0 * 40.0 + 780.0);
    let alone = model.predict(4, 2, 0.5, None).unwrap();
    assert_eq!(
        alone,
        Prediction {
            candidates: 180,
            excess_work: 0.0
        }
    );
    let scaled = CostModel::draw(Corpus {
        n: Some(80),
        ..corpus
    })
    .unwrap();
    // 180 * 80 * 79 / (40 * 39) = 729.2...
    assert_eq!(scaled.predict(4, 2, 0.5, None).unwrap().candidates, 729);
    let read = CostModel::draw(Corpus {
        sign_pass: Some((90, 7)),
        ..corpus
    })
    .unwrap();
    assert_eq!(read.sign_work, 9007.0);
    // Half the slots of every odd row changed: pairs across the halves estimate 0.5 < 0.6.
    let mut mixed = signatures.clone();
    for row in (1..40).step_by(2) {
        for slot in 4..8 {
            mixed[row * 8 + slot] ^= 0xdead;
        }
    }
    let model = CostModel::draw(Corpus {
        signatures: &mixed,
        ..corpus
    })
    .unwrap();
    let predicted = model.predict(8, 1, 0.6, None).unwrap();
    // every family pair shares the first 4 slots; 25 per family are mixed (odd, even)
    assert_eq!(predicted.candidates, 180);
    let mut below = Vec::new();
    for i in 0..40usize {
        for j in i + 1..40 {
            if i % 4 == j % 4 && i % 2 != j % 2 {
                below.push(CANDIDATE_COST + MERGE_COST * (sizes[i] + sizes[j]));
            }
        }
    }
    assert_eq!(predicted.excess_work, numpy_sum(&below));
}
