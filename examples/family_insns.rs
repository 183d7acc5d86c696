//! Issue 25 part 2 on aarch64: a fixed MinHash workload for instruction counts under qemu-user
//! (`-d in_asm,exec,nochain`; benches/family_insns.py does the counting): 200 documents of 350
//! SplitMix64 shingle hashes, 128 slots, signed ROUNDS times (default 1) with hash version 1's
//! family (`v1`), version 2's (`v2`), or not at all (`none`, the baseline to subtract).
//!
//!     cargo run --release --example family_insns -- v2
//!
//! Not a test; nothing here is used by the library.
use _core::hashing::SplitMix64;
use _core::minhash::MinHasher;
use _core::minhash::MinHasher32;

fn main() {
    let family = std::env::args().nth(1).unwrap_or_else(|| "v2".into());
    let rounds: usize = std::env::var("ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(1);
    let mut rng = SplitMix64::new(1);
    let docs: Vec<Vec<u64>> = (0..200)
        .map(|_| (0..350).map(|_| rng.next_u64()).collect())
        .collect();
    let v1 = MinHasher::new(128, 0).unwrap();
    let v2 = MinHasher32::new(128, 0).unwrap();
    let mut sig = vec![0u32; 128];
    let mut check = 0u64;
    for _ in 0..rounds {
        for d in &docs {
            match family.as_str() {
                "v1" => v1.signature_into(d, &mut sig),
                "v2" => v2.signature_into(d, &mut sig),
                _ => sig.fill(d[0] as u32),
            }
            check = check.wrapping_add(sig.iter().map(|&v| v as u64).sum::<u64>());
        }
    }
    println!(
        "{family}: {} signatures, checksum {check}",
        docs.len() * rounds
    );
}
