//! Times the text stages on a corpus file (documents separated by NUL bytes), one thread, for
//! both hash versions interleaved in every round (compare versions within one run only):
//! `ROUNDS=7 cargo run --release --example stage_times -- texts.bin` prints the best of the
//! rounds per stage (version 2 by each path of `Shingler::set_path`: "v2" the default, the
//! batches of rust/wordhash.rs with the best the CPU has; "v2 batch-avx2" their AVX2 kernels;
//! "v2 word" one word at a time, as on aarch64). `VERSION=1|2` times one version and `STAGE=normalize|hashes|sets|minhash|
//! simhash` one stage (for per-stage instruction counts under callgrind). A profiling aid, not
//! a test.
use _core::hashing::HashVersion;
use _core::minhash::MinHasher;
use _core::normalize::Words;
use _core::shingle::{Shingler, Unit};
use std::time::Instant;

fn main() {
    let path = std::env::args().nth(1).expect("usage: stage_times FILE");
    let data = std::fs::read_to_string(path).expect("readable UTF-8 file");
    let texts: Vec<&str> = data.split('\0').collect();
    let mb = data.len() as f64 / 1e6;
    // Best of the rounds per stage (the machine may be shared: the minimum is the least noisy).
    let best = std::cell::RefCell::new(Vec::<(String, f64)>::new());
    let report = |name: &str, secs: f64| {
        let mut best = best.borrow_mut();
        match best.iter_mut().find(|(n, _)| n == name) {
            Some((_, b)) => *b = b.min(secs),
            None => best.push((name.to_string(), secs)),
        }
    };
    let rounds: usize = std::env::var("ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(3);
    let stage = std::env::var("STAGE").ok();
    let wanted = |name: &str| stage.as_deref().map_or(true, |s| s == name);
    for _ in 0..rounds {
        for (name, version, path) in [
            ("v1", HashVersion::V1, "batch"),
            ("v2", HashVersion::V2, "batch"),
            ("v2 batch-avx2", HashVersion::V2, "batch-avx2"),
            ("v2 word", HashVersion::V2, "word"),
        ] {
            // VERSION=1 or 2 times one version only (for instruction counts under callgrind);
            // V2_PATH=batch|batch-avx2|word one path of version 2 (Shingler::set_path).
            if std::env::var("VERSION").is_ok_and(|v| v != name[1..2]) {
                continue;
            }
            if std::env::var("V2_PATH").is_ok_and(|p| p != path) {
                continue;
            }
            let mut shingler = Shingler::new(5, Unit::Word, version).unwrap();
            if !shingler.set_path(path) {
                continue;
            }
            let mut hashes = Vec::new();
            if wanted("normalize") {
                let t = Instant::now();
                let mut words = Words::new(version);
                let mut count = 0;
                for text in &texts {
                    words.fill(text);
                    count += words.len();
                }
                report(
                    &format!("{name} normalize ({count} tokens)"),
                    t.elapsed().as_secs_f64(),
                );
            }
            if wanted("hashes") {
                let t = Instant::now();
                for text in &texts {
                    hashes.clear();
                    shingler.hashes_into(text, &mut hashes);
                }
                report(
                    &format!("{name} normalize + shingle hashes"),
                    t.elapsed().as_secs_f64(),
                );
            }
            if wanted("sets") {
                let t = Instant::now();
                let sets =
                    _core::shingle::ShingleSets::build(&texts, 5, Unit::Word, version).unwrap();
                report(
                    &format!("{name} shingle sets ({})", sets.hashes.len()),
                    t.elapsed().as_secs_f64(),
                );
            }
            if wanted("minhash") {
                let hasher = MinHasher::new(128, 0).unwrap();
                let mut sig = vec![0u32; 128];
                let t = Instant::now();
                for text in &texts {
                    hashes.clear();
                    shingler.hashes_into(text, &mut hashes);
                    hasher.signature_into(&hashes, &mut sig);
                }
                report(
                    &format!("{name} text -> minhash 128"),
                    t.elapsed().as_secs_f64(),
                );
            }
            if wanted("simhash") {
                let t = Instant::now();
                let mut fp = [0u64; 1];
                let mut simhasher = _core::simhash::SimHasher::new();
                for text in &texts {
                    hashes.clear();
                    shingler.hashes_into(text, &mut hashes);
                    simhasher.fingerprint_into(&hashes, false, &mut fp);
                }
                report(
                    &format!("{name} text -> simhash 64"),
                    t.elapsed().as_secs_f64(),
                );
            }
        }
    }
    for (name, secs) in best.borrow().iter() {
        println!("{name:<36}{secs:8.4} s {:8.1} MB/s", mb / secs);
    }
}
