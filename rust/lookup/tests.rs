//! Tests of the index's lookup tables.

use super::*;

/// A band table with every bucket whole.
fn whole(entries: Vec<(u64, u32)>) -> BandTable {
    let layout = Layout {
        signatures: &[],
        keys: &[],
        num_perm: 1,
        bands: 1,
        rows: 1,
    };
    BandTable::build(entries, 0, &layout, BucketRule::WHOLE)
}

const ALL: Selection = Selection {
    threshold: 0.0,
    top_k: 0,
};

#[test]
fn finds_verifies_ranks_and_forgets() {
    // 2 bands of 2 rows: rows 0 and 1 identical, row 2 shares band 0, row 3 empty
    let mut m = Mirror::new(4, 2, 2, BucketRule::WHOLE).unwrap();
    let sigs = [
        1,
        2,
        3,
        4,
        1,
        2,
        3,
        4,
        1,
        2,
        9,
        9,
        u32::MAX,
        u32::MAX,
        u32::MAX,
        u32::MAX,
    ];
    assert_eq!(m.append(&sigs, &["r0", "r1", "r2", "r3"]).unwrap(), 0);
    assert_eq!(m.entry_count(), 6);
    let query = [
        1,
        2,
        3,
        4,
        5,
        5,
        5,
        5,
        u32::MAX,
        u32::MAX,
        u32::MAX,
        u32::MAX,
    ];
    let r = m.lookup(&query, ALL).unwrap();
    assert_eq!(r.offsets, vec![0, 3, 3, 3]);
    assert_eq!(r.rows, vec![0, 1, 2]);
    assert_eq!(r.similarity, vec![1.0, 1.0, 0.5]);
    let high = Selection {
        threshold: 0.75,
        top_k: 0,
    };
    assert_eq!(m.lookup(&query[..4], high).unwrap().rows, vec![0, 1]);
    // top 1: rows 0 and 1 tie, the smaller id wins
    let top1 = Selection {
        threshold: 0.0,
        top_k: 1,
    };
    assert_eq!(m.lookup(&query[..4], top1).unwrap().rows, vec![0]);
    m.forget(&[0]).unwrap();
    assert_eq!(m.lookup(&query[..4], top1).unwrap().rows, vec![1]);
    assert!(m.forget(&[4]).is_err());
}

#[test]
fn equal_similarities_are_ordered_by_id_bytes() {
    let mut m = Mirror::new(2, 1, 2, BucketRule::WHOLE).unwrap();
    // ids in code point order: "b" < "é" (U+00E9) < "中" (U+4E2D) < "😀" (U+1F600)
    m.append(&[5, 5, 5, 5, 5, 5, 5, 5], &["😀", "中", "b", "é"])
        .unwrap();
    let all = m.lookup(&[5, 5], ALL).unwrap();
    assert_eq!(all.rows, vec![2, 3, 1, 0]);
    let top = Selection {
        threshold: 0.0,
        top_k: 2,
    };
    assert_eq!(m.lookup(&[5, 5], top).unwrap().rows, vec![2, 3]);
    assert_eq!(m.id(1), "中".as_bytes());
}

#[test]
fn band_table_finds_exactly_the_rows_of_a_key() {
    // few distinct keys, many repeated, crowded at both ends of the key range
    let mut state = 7u64;
    let mut next = || {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z ^ (z >> 27)
    };
    let distinct: Vec<u64> = (0..300)
        .map(|i| match i % 3 {
            0 => next(),
            1 => i,                // near 0: many keys share the first homes
            _ => u64::MAX - i / 2, // near the end of the table
        })
        .collect();
    let entries: Vec<(u64, u32)> = (0..3000u32)
        .map(|row| (distinct[(next() % 300) as usize], row))
        .collect();
    let table = whole(entries.clone());
    let mut spans = Vec::new();
    assert_eq!(table.len(), 3000);
    for key in distinct.iter().copied().chain([0, 1, u64::MAX, 12345]) {
        let mut found = Vec::new();
        table.rows_of(&[key], &[0], 1, &mut spans, &mut found);
        found.sort_unstable();
        let expected: Vec<u32> = entries.iter().filter(|e| e.0 == key).map(|e| e.1).collect();
        assert_eq!(found, expected, "key {key}");
    }
    let mut none = Vec::new();
    whole(Vec::new()).rows_of(&[0, u64::MAX], &[0, 0], 1, &mut spans, &mut none);
    assert!(none.is_empty());
    let mut two = Vec::new();
    whole(vec![(1, 0), (2, 1)]).rows_of(&[u64::MAX, 2], &[0, 0], 1, &mut spans, &mut two);
    assert_eq!(two, vec![1]);
}

#[test]
fn band_number_is_mixed_into_the_key() {
    let k = index_band_keys(&[7, 7], 2, 2, 1).unwrap();
    let plain = lsh::band_keys(&[7, 7], 2, 2, 1).unwrap();
    assert_eq!(k[0], plain[0]);
    assert_eq!(k[1], plain[1] ^ BAND_MIX);
}

#[test]
fn delta_merges_into_main_without_changing_answers() {
    let mut m = Mirror::new(2, 1, 2, BucketRule::WHOLE).unwrap();
    for i in 0..5000u32 {
        m.append(&[i, i + 1], &[i.to_string()]).unwrap();
    }
    assert!(m.main_rows > 0 && m.entry_count() == 5000);
    for i in [0u32, 2100, 4999] {
        assert_eq!(m.lookup(&[i, i + 1], ALL).unwrap().rows, vec![i]);
    }
    // a batch, on a mirror with and without a main table
    let batch: Vec<u32> = (0..40u32).flat_map(|i| [i * 100, i * 100 + 1]).collect();
    let expected: Vec<u32> = (0..40).map(|i| i * 100).collect();
    assert_eq!(m.lookup(&batch, ALL).unwrap().rows, expected);
    let mut small = Mirror::new(2, 1, 2, BucketRule::WHOLE).unwrap();
    small.append(&[0, 1, 100, 101], &["a", "b"]).unwrap();
    assert_eq!(small.lookup(&batch, ALL).unwrap().rows, vec![0, 1]);
}

#[test]
fn containment_estimates_from_sizes() {
    let mut m = Mirror::new(4, 2, 2, BucketRule::WHOLE).unwrap();
    // row 0 shares 2 of 4 slots with the query, row 1 none, row 2 all (then forgotten)
    m.append(&[1, 2, 8, 9, 7, 7, 7, 7, 1, 2, 3, 4], &["a", "b", "c"])
        .unwrap();
    let query = [1, 2, 3, 4];
    // J = 0.5, |Q| = 10, |D| = 50: |Q ∩ D| = 0.5 * 60 / 1.5 = 20 > 10, so 1 (clipped)
    let r = m.containment(&query, &[10], &[50, 50, 10], ALL).unwrap();
    assert_eq!(
        (r.rows.clone(), r.similarity.clone()),
        (vec![0, 2], vec![1.0, 1.0])
    );
    // |D| = 2: |Q ∩ D| = 0.5 * 12 / 1.5 = 4, containment 0.4
    let high = Selection {
        threshold: 0.5,
        top_k: 0,
    };
    let r = m.containment(&query, &[10], &[2, 50, 10], high).unwrap();
    assert_eq!(r.rows, vec![2]);
    m.forget(&[2]).unwrap();
    let r = m.containment(&query, &[10], &[2, 50, 10], ALL).unwrap();
    assert_eq!((r.rows, r.similarity), (vec![0], vec![0.4]));
    assert!(m.containment(&query, &[10], &[2], ALL).is_err());
    assert!(m.containment(&query, &[], &[2, 50, 10], ALL).is_err());
}

#[test]
fn bad_shapes_are_errors() {
    assert!(Mirror::new(0, 1, 1, BucketRule::WHOLE).is_err());
    assert!(Mirror::new(4, 3, 2, BucketRule::WHOLE).is_err()); // bands * rows > num_perm
    let mut m = Mirror::new(2, 1, 2, BucketRule::WHOLE).unwrap();
    assert!(m.append(&[1, 1, 1], &["a"]).is_err());
    assert!(m.append(&[1, 1], &["a", "b"]).is_err());
    assert!(m.lookup(&[1], ALL).is_err());
}
