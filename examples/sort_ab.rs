//! A/B of the shingle-set sort (`sort_unstable` then de-duplication against
//! `shingle::SetSorter`) on the shingle hashes of a corpus file (documents separated by NUL
//! bytes), rounds interleaved: `cargo run --release --example sort_ab -- texts.bin`. Under
//! callgrind, `SORT=std|buckets ROUNDS=1` runs one of them. A profiling aid, not a test.
use _core::hashing::HashVersion;
use _core::shingle::{SetSorter, Shingler, Unit};
use std::time::Instant;

fn main() {
    let path = std::env::args().nth(1).expect("usage: sort_ab FILE");
    let data = std::fs::read_to_string(path).expect("readable UTF-8 file");
    let mut shingler = Shingler::new(5, Unit::Word, HashVersion::V2).unwrap();
    let (mut hashes, mut offsets) = (Vec::new(), vec![0usize]);
    for text in data.split('\0') {
        shingler.hashes_into(text, &mut hashes);
        offsets.push(hashes.len());
    }
    let rounds: usize = std::env::var("ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(5);
    let only = std::env::var("SORT").ok();
    let mut sorter = SetSorter::default();
    let mut work = hashes.clone();
    let (mut best_std, mut best_buckets) = (f64::MAX, f64::MAX);
    for _ in 0..rounds {
        for method in ["std", "buckets"] {
            if only.as_deref().is_some_and(|o| o != method) {
                continue;
            }
            work.copy_from_slice(&hashes);
            let t = Instant::now();
            let mut unique = 0;
            for w in offsets.windows(2) {
                let set = &mut work[w[0]..w[1]];
                unique += if method == "std" {
                    set.sort_unstable();
                    let mut u = usize::from(!set.is_empty());
                    for i in 1..set.len() {
                        if set[i] != set[u - 1] {
                            set[u] = set[i];
                            u += 1;
                        }
                    }
                    u
                } else {
                    sorter.sort_dedup(set)
                };
            }
            let secs = t.elapsed().as_secs_f64();
            let best = if method == "std" {
                &mut best_std
            } else {
                &mut best_buckets
            };
            *best = best.min(secs);
            println!(
                "{method:<8} {secs:.4} s ({unique} unique of {})",
                hashes.len()
            );
        }
    }
    println!(
        "best: std {best_std:.4} s, buckets {best_buckets:.4} s, ratio {:.2}",
        best_std / best_buckets
    );
}
