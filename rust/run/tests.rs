//! Tests of the run's decisions and its passes (`rust/run/mod.rs`).

use super::*;

fn plan(method: Method) -> RunPlan {
    RunPlan {
        method,
        threshold: 0.5,
        k: 1,
        unit: Unit::Word,
        version: HashVersion::new(2).unwrap(),
        num_perm: 32,
        seed: 0,
        algorithm: Algorithm::Classic,
        simhash_bits: 64,
        bands: None,
        rows: None,
        max_hamming: None,
        exact: true,
        bucket_limit: Some(BUCKET_LIMIT),
        pairs: PairsMode::Auto,
        spanning_limit: 1 << 20,
        threads: 1,
        auto_exact_limit: 2,
        keep: Policy::First,
        strip: None,
    }
}

#[test]
fn auto_brute_forces_up_to_its_limit_then_uses_minhash() {
    let auto = plan(Method::Auto);
    assert_eq!(auto.resolve(2).unwrap().method, Method::ExactJaccard);
    let above = auto.resolve(3).unwrap();
    assert_eq!(above.method, Method::MinHash);
    let chosen = choose::choose(0.5, 32, true, DEFAULT_RECALL, Some(BUCKET_LIMIT), None);
    let chosen = chosen.unwrap();
    assert_eq!(
        (above.bands, above.rows),
        (Some(chosen.bands), Some(chosen.rows))
    );
}

#[test]
fn a_given_banding_or_radius_is_kept() {
    let mut given = plan(Method::MinHash);
    (given.bands, given.rows) = (Some(4), Some(8));
    assert_eq!(given.resolve(10).unwrap().bands, Some(4));
    let mut simhash = plan(Method::SimHash);
    assert_eq!(simhash.resolve(10).unwrap().max_hamming, Some(17)); // threshold 0.5
    simhash.max_hamming = Some(3);
    assert_eq!(simhash.resolve(10).unwrap().max_hamming, Some(3));
}

#[test]
fn the_radius_follows_charikar() {
    // 2J/(1+J) = 0.4615 at J = 0.3: arccos = 1.0908 rad, 64 bits → 22.2
    assert_eq!(simhash_radius(0.3, 64), 22);
    assert_eq!(simhash_radius(1.0, 64), 0);
    assert_eq!(simhash_radius(0.3, 128), 44);
}

#[test]
fn a_run_collapses_copies_and_resolves_for_the_unique_documents() {
    let mut spill = SetSpill::new(None);
    let mut run = Run::new(plan(Method::Auto), Vec::new(), 1 << 20).unwrap();
    run.sign(&["a b c", "a b c", "a b d"], &mut spill).unwrap();
    run.sign(&["x y"], &mut spill).unwrap();
    let mut signed = run.finish(&mut spill).unwrap();
    assert_eq!(signed.first, vec![0, 0, 2, 3]);
    assert_eq!(signed.selected, vec![0, 2, 3]);
    assert_eq!(signed.resolved.method, Method::MinHash); // 3 unique > the limit of 2
    let unique = signed.unique(&spill, true).unwrap();
    assert!(matches!(unique.sets, Some(SetSource::Held(_))));
    assert!(matches!(
        unique.signatures,
        Signatures::MinHash { width: 32, .. }
    ));
    assert!(run.is_empty());
}

#[test]
fn partition_keys_follow_the_unique_documents() {
    let mut spill = SetSpill::new(None);
    let mut run = Run::new(plan(Method::MinHash), vec![7, 7, 9], 1 << 20).unwrap();
    run.sign(&["a b", "a b", "a b"], &mut spill).unwrap();
    let signed = run.finish(&mut spill).unwrap();
    assert_eq!(signed.first, vec![0, 0, 2]); // the copy in another partition stays
    assert_eq!(signed.partitions, Some(vec![7, 9]));
}

#[test]
fn batches_give_the_digests_and_set_sizes_of_the_whole_corpus() {
    let texts = ["a b c", "", "b c d", "a b c", "x", "b c d e", "c d"];
    let mut whole = plan(Method::MinHash);
    whole.k = 2;
    let sets = ShingleSets::build(&texts, 2, Unit::Word, whole.version).unwrap();
    let view = SetsView::new(&sets.offsets, &sets.hashes).unwrap();
    for batch in [1, 3, 7] {
        let mut spill = SetSpill::new(None);
        let mut run = Run::new(whole, Vec::new(), 1 << 20).unwrap();
        for part in texts.chunks(batch) {
            run.sign(part, &mut spill).unwrap();
        }
        let signed = run.finish(&mut spill).unwrap();
        // "" has no shingle: never selected ("x", shorter than k, is one shingle); "a b c"
        // again is a copy of document 0
        assert_eq!(signed.selected, vec![0, 2, 4, 5, 6]);
        let mut want_digests = Vec::new();
        for &i in &signed.selected {
            want_digests.extend_from_slice(&crate::signing::set_digest(view.get(i as usize)));
        }
        assert_eq!(signed.digests, want_digests);
        let sizes: Vec<i64> = signed
            .selected
            .iter()
            .map(|&i| view.get(i as usize).len() as i64)
            .collect();
        assert_eq!(signed.set_sizes, sizes);
        assert_eq!(signed.shingled, view.hashes().len() as u64);
    }
}
