//! Times exact verification of the LSH candidates of a corpus file (documents separated by NUL
//! bytes), one thread: `cargo run --release --example verify_times -- texts.bin`. Besides the
//! real candidates it times the same number of merges on sets already in cache (each set with
//! itself, and pairs among the first 100 documents), which separates the merge's own cost
//! from the memory stalls of visiting random sets. A profiling aid, not a test.
use _core::jaccard::intersection_size_u64;
use _core::rows::{prefetch, PREFETCH_AHEAD};
use _core::shingle::{SetsView, ShingleSets, Unit};
use std::time::Instant;

fn main() {
    let path = std::env::args().nth(1).expect("usage: verify_times FILE");
    let data = std::fs::read_to_string(path).expect("readable UTF-8 file");
    let texts: Vec<&str> = data.split('\0').collect();
    let sets = ShingleSets::build(&texts, 5, Unit::Word, _core::hashing::HashVersion::V2).unwrap();
    let view = SetsView::new(&sets.offsets, &sets.hashes).unwrap();
    let algorithm = _core::minhash::Algorithm::Classic;
    let signatures = _core::signing::minhash_texts(
        &texts,
        128,
        0,
        5,
        Unit::Word,
        1,
        algorithm,
        _core::hashing::HashVersion::V2,
    )
    .unwrap();
    let candidates = _core::lsh::candidates(
        &signatures,
        128,
        42,
        3,
        _core::lsh::BucketRule::WHOLE,
        None,
        1,
        None,
    )
    .unwrap()
    .pairs;
    let rounds: usize = std::env::var("ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(20);

    let merge_all = |pairs: &[(u32, u32)]| {
        let mut common = 0;
        for (k, &(a, b)) in pairs.iter().enumerate() {
            if let Some(&(_, ahead)) = pairs.get(k + PREFETCH_AHEAD) {
                prefetch(view.get(ahead as usize));
            }
            common += intersection_size_u64(view.get(a as usize), view.get(b as usize));
        }
        common
    };
    let with_itself: Vec<(u32, u32)> = candidates.iter().map(|&(a, _)| (a, a)).collect();
    let in_cache: Vec<(u32, u32)> = candidates
        .iter()
        .map(|&(a, b)| (a % 100, b % 100))
        .collect();
    let as_i64: Vec<(i64, i64)> = candidates
        .iter()
        .map(|&(a, b)| (a as i64, b as i64))
        .collect();
    let cases: [(&str, &[(u32, u32)]); 4] = [
        ("verify::jaccard_pairs", &candidates),
        ("candidates, sorted order", &candidates),
        ("each set with itself", &with_itself),
        ("among 100 sets (cache)", &in_cache),
    ];
    // Rounds interleave the cases, so that a noisy moment of a shared machine hits all alike.
    let mut best = [f64::MAX; 4];
    for _ in 0..rounds {
        for (case, (_, pairs)) in cases.iter().enumerate() {
            let start = Instant::now();
            if case == 0 {
                std::hint::black_box(_core::verify::jaccard_pairs(view, &as_i64, 1).unwrap());
            } else {
                std::hint::black_box(merge_all(pairs));
            }
            best[case] = best[case].min(start.elapsed().as_secs_f64());
        }
    }
    println!(
        "{} candidate pairs, best of {rounds} rounds",
        candidates.len()
    );
    for (case, (name, pairs)) in cases.iter().enumerate() {
        println!(
            "{name:<26}{:8.3} ms {:6.0} ns/pair",
            best[case] * 1e3,
            best[case] / pairs.len() as f64 * 1e9
        );
    }
}
