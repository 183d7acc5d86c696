//! Issue 25 part 2, speed: hash version 1's MinHash family (classic, `MinHasher`) against
//! version 2's (mla32, `MinHasher32`: slot p = lo32(a_p·lo32(s) + b_p), a_p odd), 128 slots,
//! one thread, interleaved in every round (best of ROUNDS, default 15):
//!
//!     cargo run --release --example family_ab -- tests/data/realtext_*.jsonl [texts.bin]
//!
//! Prints (1) the kernel alone in ns per shingle on the corpus's own shingle hashes, per path
//! (classic: the library's dispatch = AVX-512 on a CPU with it, its AVX2 kernel, its generic
//! loop; mla32: its loop compiled for AVX-512, for AVX2, and for the x86_64 baseline), and
//! (2) text -> signatures in MB/s (normalise, shingle hashes, signature per document, as
//! rust/signing.rs does). Files ending in .jsonl are read for their "text" fields, others split
//! at NUL bytes (examples/stage_times.rs's format). Not a test; nothing here is used by the
//! library.

fn main() {
    #[cfg(target_arch = "x86_64")]
    ab::main();
    #[cfg(not(target_arch = "x86_64"))]
    println!("family_ab compares x86_64 builds only");
}

#[cfg(target_arch = "x86_64")]
mod ab {
    use _core::hashing::HashVersion;
    use _core::minhash::MinHasher;
    use _core::minhash::MinHasher32;
    use _core::shingle::{Shingler, Unit};
    use std::time::Instant;

    const P: usize = 128;

    fn read(path: &str) -> Vec<String> {
        let data = std::fs::read_to_string(path).expect("readable UTF-8 file");
        if path.ends_with(".jsonl") {
            data.lines()
                .filter(|l| !l.trim().is_empty())
                .map(|l| {
                    let v: serde_json::Value = serde_json::from_str(l).expect("JSON line");
                    v["text"].as_str().expect("a text field").to_string()
                })
                .collect()
        } else {
            data.split('\0').map(str::to_string).collect()
        }
    }

    pub fn main() {
        let avx512 = is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512vl")
            && is_x86_feature_detected!("avx512dq");
        assert!(
            avx512,
            "compares the AVX-512 and AVX2 paths: needs AVX-512 F, VL, DQ"
        );
        let rounds: usize = std::env::var("ROUNDS")
            .ok()
            .and_then(|r| r.parse().ok())
            .unwrap_or(15);
        let texts: Vec<String> = std::env::args().skip(1).flat_map(|p| read(&p)).collect();
        let mb = texts.iter().map(|t| t.len()).sum::<usize>() as f64 / 1e6;
        let mut shingler = Shingler::new(5, Unit::Word, HashVersion::V2).unwrap();
        let docs: Vec<Vec<u64>> = texts
            .iter()
            .map(|t| {
                let mut h = Vec::new();
                shingler.hashes_into(t, &mut h);
                h
            })
            .collect();
        let shingles: usize = docs.iter().map(|d| d.len()).sum();
        println!(
            "{} documents, {mb:.1} MB, {shingles} shingle hashes, {P} slots, best of {rounds}",
            docs.len()
        );
        let classic = MinHasher::new(P, 0).unwrap();
        let mla = MinHasher32::new(P, 0).unwrap();
        let kernels = [
            ("classic dispatch (avx512)", "classic", "dispatch"),
            ("classic avx2", "classic", "avx2"),
            ("classic generic", "classic", "generic"),
            ("mla32 avx512", "mla32", "avx512"),
            ("mla32 avx2", "mla32", "avx2"),
            ("mla32 generic (baseline)", "mla32", "generic"),
        ];
        let sign = |family: &str, kernel: &str, d: &[u64], sig: &mut [u32]| {
            if family == "mla32" {
                assert!(mla.signature_kernel(kernel, d, sig));
            } else if kernel == "dispatch" {
                classic.signature_into(d, sig);
            } else {
                assert!(classic.signature_kernel(kernel, d, sig));
            }
        };
        let text_paths = [
            ("classic", "dispatch"),
            ("mla32", "avx512"),
            ("classic", "avx2"),
            ("mla32", "avx2"),
        ];
        let mut best_kernel = [f64::MAX; 6];
        let mut best_text = [f64::MAX; 4];
        let mut sig = vec![0u32; P];
        let mut check = 0u64;
        let mut hashes = Vec::new();
        for _ in 0..rounds {
            for (k, &(_, family, kernel)) in kernels.iter().enumerate() {
                let t = Instant::now();
                for d in &docs {
                    sign(family, kernel, d, &mut sig);
                    check = check.wrapping_add(sig[0] as u64);
                }
                best_kernel[k] = best_kernel[k].min(t.elapsed().as_secs_f64());
            }
            for (k, &(family, kernel)) in text_paths.iter().enumerate() {
                let t = Instant::now();
                for text in &texts {
                    hashes.clear();
                    shingler.hashes_into(text, &mut hashes);
                    sign(family, kernel, &hashes, &mut sig);
                    check = check.wrapping_add(sig[0] as u64);
                }
                best_text[k] = best_text[k].min(t.elapsed().as_secs_f64());
            }
        }
        println!("kernel alone (ns per shingle, {P} slots):");
        for (k, (name, _, _)) in kernels.iter().enumerate() {
            println!("  {name:<28}{:8.2}", best_kernel[k] * 1e9 / shingles as f64);
        }
        println!("text -> signatures (MB/s, one thread):");
        for (k, (family, kernel)) in text_paths.iter().enumerate() {
            println!(
                "  {:<28}{:8.1}",
                format!("{family} {kernel}"),
                mb / best_text[k]
            );
        }
        println!("(checksum {check})");
    }
}
