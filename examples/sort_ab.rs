//! A/B of the shingle-set sort on the shingle hashes of a corpus file (documents separated by
//! NUL bytes), rounds interleaved: `sort_unstable` then de-duplication ("std"),
//! `shingle::SetSorter`'s buckets alone ("buckets") and its default, the ordered hash table
//! ("table"): `cargo run --release --example sort_ab -- texts.bin`. Under callgrind,
//! `SORT=std|buckets|table ROUNDS=1` runs one of them. A profiling aid, not a test.
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
    let methods = ["std", "buckets", "table"];
    let mut best = [f64::MAX; 3];
    for _ in 0..rounds {
        for (m, method) in methods.iter().enumerate() {
            if only.as_deref().is_some_and(|o| o != *method) {
                continue;
            }
            work.copy_from_slice(&hashes);
            let t = Instant::now();
            let mut unique = 0;
            for w in offsets.windows(2) {
                let set = &mut work[w[0]..w[1]];
                unique += match m {
                    0 => {
                        set.sort_unstable();
                        let mut u = usize::from(!set.is_empty());
                        for i in 1..set.len() {
                            if set[i] != set[u - 1] {
                                set[u] = set[i];
                                u += 1;
                            }
                        }
                        u
                    }
                    1 => sorter.sort_dedup_by_buckets(set),
                    _ => sorter.sort_dedup(set),
                };
            }
            let secs = t.elapsed().as_secs_f64();
            best[m] = best[m].min(secs);
            println!(
                "{method:<8} {secs:.4} s ({unique} unique of {})",
                hashes.len()
            );
        }
    }
    println!(
        "best: std {:.4} s, buckets {:.4} s, table {:.4} s; std/table {:.2}, buckets/table {:.2}",
        best[0],
        best[1],
        best[2],
        best[0] / best[2],
        best[1] / best[2]
    );
}
