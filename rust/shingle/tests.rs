//! Tests of [`super`] (rust/shingle/mod.rs).
use super::*;

fn hashes(text: &str, k: usize, unit: Unit) -> Vec<u64> {
    let mut out = Vec::new();
    Shingler::new(k, unit, HashVersion::V1)
        .unwrap()
        .hashes_into(text, &mut out);
    out
}

#[test]
fn word_shingles_hash_the_space_joined_words() {
    let got = hashes("The quick, brown FOX jumps", 3, Unit::Word);
    let want: Vec<u64> = ["the quick brown", "quick brown fox", "brown fox jumps"]
        .iter()
        .map(|s| shingle_hash(s.as_bytes()))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn short_documents_are_one_shingle_and_empty_ones_none() {
    assert_eq!(
        hashes("Two words", 5, Unit::Word),
        vec![shingle_hash(b"two words")]
    );
    assert!(hashes(" !? ", 5, Unit::Word).is_empty());
    assert_eq!(hashes("ab", 3, Unit::Char), vec![shingle_hash(b"ab")]);
}

#[test]
fn char_shingles_count_characters_not_bytes() {
    let got = hashes("Été x", 3, Unit::Char);
    let want: Vec<u64> = ["été", "té ", "é x"]
        .iter()
        .map(|s| shingle_hash(s.as_bytes()))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn version_2_word_shingles_combine_token_hashes() {
    let mut out = Vec::new();
    let mut shingler = Shingler::new(2, Unit::Word, HashVersion::V2).unwrap();
    shingler.hashes_into("The quick, brown 狐", &mut out);
    let t = |s: &str| shingle_hash(s.as_bytes());
    let want: Vec<u64> = [["the", "quick"], ["quick", "brown"], ["brown", "狐"]]
        .iter()
        .map(|pair| combine_tokens(&[t(pair[0]), t(pair[1])]))
        .collect();
    assert_eq!(out, want);
    // The rolling window equals the direct formula for every k and length.
    let tokens: Vec<u64> = (0..40).map(mix64).collect();
    for k in 1..8 {
        for len in 0..40 {
            let mut rolled = Vec::new();
            combine_shingles(&tokens[..len], k, &mut rolled);
            let direct: Vec<u64> = if len < k {
                vec![combine_tokens(&tokens[..len])]
            } else {
                tokens[..len].windows(k).map(combine_tokens).collect()
            };
            assert_eq!(rolled, direct, "k {k} len {len}");
        }
    }
}

#[test]
fn the_table_and_the_bucket_sort_equal_sort_then_dedup() {
    let mut sorter = SetSorter::default();
    let mut state = 7u64;
    for len in (0..300).chain([1000, 5000, 65_536, 65_537, 200_000]) {
        // Uniform values; few distinct top bits (the table's probes run out: the buckets take
        // over, and the next set finds the table cleared); a few small values, 0 among them;
        // uniform values each about three times, 0 among them.
        for skew in [0u32, 20, 60, 1] {
            let values: Vec<u64> = (0..len)
                .map(|i| {
                    state = mix64(state.wrapping_add(i as u64));
                    match skew {
                        60 => state % 7,
                        1 if state % 50 == 0 => 0,
                        1 => mix64(state % (len as u64 / 3 + 1)),
                        _ => state >> skew,
                    }
                })
                .collect();
            let mut want = values.clone();
            want.sort_unstable();
            want.dedup();
            let mut got = values.clone();
            let unique = sorter.sort_dedup(&mut got);
            assert_eq!(&got[..unique], &want[..], "len {len} skew {skew}");
            let mut by_buckets = values.clone();
            let unique = sorter.sort_dedup_by_buckets(&mut by_buckets);
            assert_eq!(&by_buckets[..unique], &want[..], "len {len} skew {skew}");
            if (48..=65_536).contains(&len) {
                // The table sorts what is spread (uniform, or few values) and declines a
                // cluster longer than its probes (all of them in slot 0's).
                let mut by_table = values.clone();
                let tried = sorter.table_sort_dedup(&mut by_table);
                let clustered = skew == 20 && len > SetSorter::MAX_PROBE;
                assert_eq!(tried.is_some(), !clustered, "len {len} skew {skew}");
                if let Some(unique) = tried {
                    assert_eq!(&by_table[..unique], &want[..], "len {len} skew {skew}");
                }
            }
            let mut sorted = values.clone();
            sorter.sort(&mut sorted);
            let mut want_sorted = values.clone();
            want_sorted.sort_unstable();
            assert_eq!(sorted, want_sorted, "len {len} skew {skew}");
        }
    }
}

#[test]
fn sets_are_sorted_and_unique() {
    let sets =
        ShingleSets::build(&["a b a b a b", "", "x"], 2, Unit::Word, HashVersion::V2).unwrap();
    assert_eq!(sets.offsets, vec![0, 2, 2, 3]);
    assert!(sets.hashes[0] < sets.hashes[1]);
}

#[test]
fn unselected_documents_get_empty_sets() {
    let texts = ["a b c", "d e f", "g h i"];
    let all = ShingleSets::build(&texts, 2, Unit::Word, HashVersion::V2).unwrap();
    let some = ShingleSets::build_selected(
        &texts,
        2,
        Unit::Word,
        HashVersion::V2,
        Some(&[false, true, false]),
    )
    .unwrap();
    assert_eq!(some.offsets, vec![0, 0, 2, 2]);
    assert_eq!(some.hashes, all.hashes[2..4]);
    assert!(
        ShingleSets::build_selected(&texts, 2, Unit::Word, HashVersion::V2, Some(&[true])).is_err()
    );
}

#[test]
fn zero_k_and_bad_offsets_are_errors() {
    assert!(Shingler::new(0, Unit::Word, HashVersion::V2).is_err());
    assert!(SetsView::new(&[0, 3, 2], &[1, 2]).is_err());
    assert!(SetsView::new(&[1, 2], &[1, 2]).is_err());
    assert!(SetsView::new(&[0, 1], &[1, 2]).is_err());
}

#[test]
fn the_vectorised_order_check_accepts_exactly_the_sorted_duplicate_free_sets() {
    // small random arrays cut into sets (empty ones too): SetsView::new accepts them exactly
    // when every set is strictly increasing, whatever happens at the boundaries
    let mut state = 0x853c_49e6_748f_ea9bu64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for _ in 0..2000 {
        let len = (next() % 12) as usize;
        let hashes: Vec<u64> = (0..len).map(|_| next() % 6).collect();
        let mut offsets = vec![0i64];
        while (*offsets.last().unwrap() as usize) < len {
            let step = (next() % 4) as i64; // 0: an empty set
            offsets.push((offsets.last().unwrap() + step).min(len as i64));
        }
        let sorted = offsets.windows(2).all(|w| {
            hashes[w[0] as usize..w[1] as usize]
                .windows(2)
                .all(|p| p[0] < p[1])
        });
        assert_eq!(
            SetsView::new(&offsets, &hashes).is_ok(),
            sorted,
            "{offsets:?} {hashes:?}"
        );
    }
}

#[test]
fn strictly_increasing_finds_an_offence_anywhere_in_any_block() {
    // Lengths around the 64-element blocks; one repeat or one inversion at every position.
    for len in [0usize, 1, 2, 3, 63, 64, 65, 66, 127, 128, 129, 200] {
        let sorted: Vec<u64> = (0..len as u64).map(|i| 3 * i + 1).collect();
        assert!(strictly_increasing(&sorted), "len {len}");
        for at in 1..len {
            let mut repeat = sorted.clone();
            repeat[at] = repeat[at - 1];
            assert!(!strictly_increasing(&repeat), "repeat at {at} of {len}");
            let mut swapped = sorted.clone();
            swapped.swap(at - 1, at);
            assert!(!strictly_increasing(&swapped), "swap at {at} of {len}");
        }
    }
}

#[test]
fn of_sorted_sets_still_checks_the_offsets() {
    let hashes = [1u64, 2, 3];
    assert!(SetsView::of_sorted_sets(&[0, 2, 3], &hashes).is_ok());
    assert!(SetsView::of_sorted_sets(&[1, 3], &hashes).is_err());
    assert!(SetsView::of_sorted_sets(&[0, 2, 1, 3], &hashes).is_err());
    assert!(SetsView::of_sorted_sets(&[0, 2], &hashes).is_err());
}
