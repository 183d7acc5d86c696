//! The signing drivers' tests: texts and sets agree, on every thread count, and the
//! unsorted digest equals the sorted one.

use super::*;
use crate::hashing::mix64;
use crate::shingle::ShingleSets;

#[test]
fn texts_and_sets_give_the_same_signatures() {
    let texts = ["a b c d e f g", "a b c d e f h", "", "x y"];
    let sets = ShingleSets::build(&texts, 3, Unit::Word, crate::hashing::HashVersion::V2).unwrap();
    let view = SetsView::new(&sets.offsets, &sets.hashes).unwrap();
    for threads in [1, 2] {
        for algorithm in [Algorithm::Classic, Algorithm::Oph] {
            assert_eq!(
                minhash_texts(
                    &texts,
                    16,
                    5,
                    3,
                    Unit::Word,
                    threads,
                    algorithm,
                    HashVersion::V2
                )
                .unwrap(),
                minhash_sets(view, 16, 5, threads, algorithm, HashVersion::V2).unwrap()
            );
        }
        assert_eq!(
            simhash_texts(&texts, 128, false, 3, Unit::Word, threads, HashVersion::V2).unwrap(),
            simhash_sets(view, 128, threads).unwrap()
        );
    }
}

#[test]
fn one_pass_signing_equals_sets_then_signatures() {
    let texts: Vec<String> = (0..1100)
        .map(|i| match i % 5 {
            0 => String::new(),
            1 => format!("w{} a b c d e f g", i / 3),
            2 => "Ünïcödé 中文字 text, with NFD e\u{301} here".repeat(i % 4 + 1),
            _ => format!("doc {i} has some words in it, doc {i}"),
        })
        .collect();
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    for version in [HashVersion::V1, HashVersion::V2] {
        let sets = ShingleSets::build(&texts, 3, Unit::Word, version).unwrap();
        let view = SetsView::new(&sets.offsets, &sets.hashes).unwrap();
        for algorithm in [Algorithm::Classic, Algorithm::Oph] {
            let want = minhash_sets(view, 16, 9, 1, algorithm, version).unwrap();
            for threads in [1, 2] {
                // Not kept, kept in a vector, in a buffer with room, in one without.
                for case in 0..4 {
                    let mut buffer = vec![0u64; if case == 2 { sets.hashes.len() + 3 } else { 40 }];
                    let keep = match case {
                        0 => KeptSets::Not,
                        1 => KeptSets::Own,
                        _ => KeptSets::Into(&mut buffer),
                    };
                    let got = sign_texts(
                        &texts,
                        3,
                        Unit::Word,
                        version,
                        16,
                        9,
                        algorithm,
                        threads,
                        keep,
                        None,
                    )
                    .unwrap();
                    assert_eq!(got.signatures, want);
                    assert_eq!(got.offsets, sets.offsets);
                    let in_buffer = case == 2;
                    assert_eq!(got.hashes.is_some(), case != 0 && !in_buffer);
                    if let Some(hashes) = &got.hashes {
                        assert_eq!(hashes, &sets.hashes);
                    }
                    if in_buffer {
                        assert_eq!(buffer[..sets.hashes.len()], sets.hashes[..]);
                    }
                    for i in 0..texts.len() {
                        assert_eq!(got.digests[2 * i..2 * i + 2], set_digest(view.get(i)));
                    }
                }
            }
        }
    }
    // SimHash: the fingerprints of simhash_sets over the same sets, kept or not, unsorted
    // (not kept) or sorted, on any thread count; bits other than 64 and 128 refused.
    for version in [HashVersion::V1, HashVersion::V2] {
        let sets = ShingleSets::build(&texts, 3, Unit::Word, version).unwrap();
        let view = SetsView::new(&sets.offsets, &sets.hashes).unwrap();
        for bits in [64, 128] {
            let want = simhash_sets(view, bits, 1).unwrap();
            for threads in [1, 2] {
                for case in 0..4 {
                    let mut buffer = vec![0u64; if case == 2 { sets.hashes.len() + 3 } else { 40 }];
                    let keep = match case {
                        0 => KeptSets::Not,
                        1 => KeptSets::Own,
                        _ => KeptSets::Into(&mut buffer),
                    };
                    let got = simhash_sign_texts(
                        &texts,
                        3,
                        Unit::Word,
                        version,
                        bits,
                        threads,
                        keep,
                        None,
                    )
                    .unwrap();
                    assert_eq!(got.signatures, want);
                    assert_eq!(got.offsets, sets.offsets);
                    assert_eq!(got.hashes.is_some(), case == 1 || case == 3);
                    if let Some(hashes) = &got.hashes {
                        assert_eq!(hashes, &sets.hashes);
                    }
                    if case == 2 {
                        assert_eq!(buffer[..sets.hashes.len()], sets.hashes[..]);
                    }
                    for i in 0..texts.len() {
                        assert_eq!(got.digests[2 * i..2 * i + 2], set_digest(view.get(i)));
                    }
                }
            }
        }
    }
    assert!(simhash_sign_texts(
        &["a"],
        1,
        Unit::Word,
        HashVersion::V2,
        32,
        1,
        KeptSets::Not,
        None
    )
    .is_err());
    // Equal sets, equal digests; the empty set is (0, 0).
    let got = sign_texts(
        &["a b a b", "b a b a b", ""],
        1,
        Unit::Word,
        HashVersion::V2,
        4,
        0,
        Algorithm::Classic,
        1,
        KeptSets::Not,
        None,
    )
    .unwrap();
    assert_eq!(got.digests[0..2], got.digests[2..4]);
    assert_eq!(got.digests[4..6], [0, 0]);
    // k, num_perm and threads of zero are refused, each alone
    let sign = |k, num_perm, threads| {
        sign_texts(
            &["a"],
            k,
            Unit::Word,
            HashVersion::V2,
            num_perm,
            0,
            Algorithm::Classic,
            threads,
            KeptSets::Not,
            None,
        )
    };
    assert!(sign(1, 4, 1).is_ok());
    assert!(sign(0, 4, 1).is_err());
    assert!(sign(1, 0, 1).is_err());
    assert!(sign(1, 4, 0).is_err());
}

#[test]
fn stripped_signing_equals_remove_shingles_then_signatures() {
    use crate::boilerplate::{frequent_shingles, remove_shingles, Dropped};
    let texts: Vec<String> = (0..700)
        .map(|i| match i % 4 {
            0 => String::new(),
            1 => "menu home about contact".to_string(), // boilerplate alone: emptied
            _ => format!("doc {} words {} menu home about contact", i / 3, i % 11),
        })
        .collect();
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    let whole = ShingleSets::build(&texts, 2, Unit::Word, HashVersion::V2).unwrap();
    let view = SetsView::new(&whole.offsets, &whole.hashes).unwrap();
    let drop = frequent_shingles(view, 0.3).unwrap();
    assert!(!drop.is_empty());
    let stripped = remove_shingles(view, &drop).unwrap();
    let after = SetsView::new(&stripped.offsets, &stripped.hashes).unwrap();
    let dropped = Dropped::new(&drop).unwrap();
    let sizes: Vec<i64> = whole.offsets.windows(2).map(|w| w[1] - w[0]).collect();
    let minhash = minhash_sets(after, 8, 3, 1, Algorithm::Classic, HashVersion::V2).unwrap();
    let simhash = simhash_sets(after, 64, 1).unwrap();
    for threads in [1, 2] {
        for own in [false, true] {
            let keep = || if own { KeptSets::Own } else { KeptSets::Not };
            let v2 = HashVersion::V2;
            let classic = Algorithm::Classic;
            let got = sign_texts(
                &texts,
                2,
                Unit::Word,
                v2,
                8,
                3,
                classic,
                threads,
                keep(),
                Some(&dropped),
            )
            .unwrap();
            assert_eq!(got.signatures, minhash);
            let sim = simhash_sign_texts(
                &texts,
                2,
                Unit::Word,
                v2,
                64,
                threads,
                keep(),
                Some(&dropped),
            )
            .unwrap();
            assert_eq!(sim.signatures, simhash);
            let sets =
                set_texts(&texts, 2, Unit::Word, v2, threads, keep(), Some(&dropped)).unwrap();
            assert!(sets.signatures.is_empty());
            for out in [&got.offsets, &sim.offsets, &sets.offsets] {
                assert_eq!(out, &stripped.offsets);
            }
            assert_eq!(got.before, sizes);
            assert_eq!(sets.before, sizes);
            // the digests are of the whole sets: identical documents stay exact copies
            assert_eq!(got.digests, set_digests(view).unwrap());
            assert_eq!(sets.digests, got.digests);
            let kept = if own { Some(&stripped.hashes) } else { None };
            assert_eq!(got.hashes.as_ref(), kept);
        }
    }
    let plain = set_texts(
        &texts,
        2,
        Unit::Word,
        HashVersion::V2,
        2,
        KeptSets::Own,
        None,
    )
    .unwrap();
    assert!(plain.before.is_empty());
    assert_eq!(plain.hashes.as_ref(), Some(&whole.hashes));
}

#[test]
fn unsorted_digests_equal_sorted_ones_whatever_the_hashes() {
    let mut digester = UnsortedDigest::default();
    let mut state = 5u64;
    for len in [1usize, 2, 17, 300, 5000] {
        // Uniform hashes with repeats; hashes sharing their top bits (the table's probes
        // grow past the limit: the sort takes over); a zero hash among them.
        for kind in 0..3 {
            let hashes: Vec<u64> = (0..len)
                .map(|i| {
                    state = crate::hashing::mix64(state.wrapping_add(i as u64));
                    match kind {
                        0 => (state % (len as u64 / 2 + 1)).wrapping_mul(0x9E37_79B9_7F4A_7C15),
                        1 => state >> 20,
                        _ => state * u64::from(i % 7 != 0),
                    }
                })
                .collect();
            let mut set = hashes.clone();
            set.sort_unstable();
            set.dedup();
            assert_eq!(
                digester.digest(&hashes),
                (set_digest(&set), set.len()),
                "len {len} kind {kind}"
            );
        }
    }
    assert_eq!(digester.digest(&[]), ([0, 0], 0));
}

#[test]
fn impossible_sizes_are_errors_not_aborts() {
    use crate::error::Error;
    let texts = ["a b c", "d e f"];
    let sets = ShingleSets::build(&texts, 2, Unit::Word, crate::hashing::HashVersion::V2).unwrap();
    let view = SetsView::new(&sets.offsets, &sets.hashes).unwrap();
    for num_perm in [1usize << 40, usize::MAX / 2, usize::MAX] {
        let classic = Algorithm::Classic;
        assert!(matches!(
            minhash_texts(
                &texts,
                num_perm,
                0,
                2,
                Unit::Word,
                1,
                classic,
                HashVersion::V2
            ),
            Err(Error::Resource(_))
        ));
        assert!(matches!(
            minhash_sets(view, num_perm, 0, 1, classic, HashVersion::V2),
            Err(Error::Resource(_))
        ));
        assert!(matches!(
            minhash_sets(view, num_perm, 0, 1, Algorithm::Oph, HashVersion::V2),
            Err(Error::InvalidArgument(_))
        ));
    }
    // Rows × width overflows usize before any allocation.
    assert!(matches!(
        signature_matrix(usize::MAX / 2, 4, Algorithm::Oph),
        Err(Error::Resource(_))
    ));
    assert!(matches!(
        simhash_sets(view, 256, 1),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        minhash_sets(
            view,
            8,
            0,
            crate::parallel::MAX_THREADS + 1,
            Algorithm::Classic,
            HashVersion::V2
        ),
        Err(Error::InvalidArgument(_))
    ));
}

/// The digest formula as `neardup.sign.set_digests` wrote it in numpy before it called the
/// crate (sums of the hashes and of their squares per set, wrapping; the mixed size folded into
/// the first word; empty sets (0, 0)), restated here so that `set_digests` keeps its bits.
#[test]
fn set_digests_keep_the_numpy_formula() {
    let offsets = [0i64, 3, 3, 5];
    let hashes = [1u64, 2, 3, 5, u64::MAX];
    let view = SetsView::new(&offsets, &hashes).unwrap();
    // computed by the numpy implementation (np.add.reduceat, mix64 of size ^ 0x9E37...)
    let golden = [10451216379200822471u64, 14, 0, 0, 10905525725756348106, 26];
    assert_eq!(set_digests(view).unwrap(), golden);
    // the same formula on real sets of every size, against a restatement with u128 sums
    let texts = [
        "a b c d e f g",
        "a b c d e f h",
        "",
        "x y",
        "x",
        "the cat the cat the",
    ];
    let sets = ShingleSets::build(&texts, 2, Unit::Word, crate::hashing::HashVersion::V2).unwrap();
    let view = SetsView::new(&sets.offsets, &sets.hashes).unwrap();
    let got = set_digests(view).unwrap();
    for i in 0..view.len() {
        let set = view.get(i);
        let want = if set.is_empty() {
            [0, 0]
        } else {
            let sum = set.iter().map(|&v| v as u128).sum::<u128>() as u64;
            let squares = set
                .iter()
                .map(|&v| (v as u128 * v as u128) as u64 as u128)
                .sum::<u128>() as u64;
            [
                sum ^ mix64(set.len() as u64 ^ 0x9E37_79B9_7F4A_7C15),
                squares,
            ]
        };
        assert_eq!(got[2 * i..2 * i + 2], want, "set {i}");
    }
}
