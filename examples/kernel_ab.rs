//! A/B of MinHash kernels on random shingle hashes (128 slots, 350 shingles a document), best of
//! 40 interleaved rounds: `cargo run --release --example kernel_ab` (x86_64 with AVX-512).
//!
//! The measurement behind hash version 2 keeping version 1's MinHash formula: the NH-style
//! candidate slot p = hi32((lo32(s) + a_p mod 2^32) · (hi32(s) + b_p mod 2^32)), one 32×32→64
//! multiply (`vpmuludq`) per slot, beat the classic kernel's AVX2 build (about 12 vs 16
//! ns/shingle on an AMD EPYC) but lost to its AVX-512 build (`vpmullq`, about 11-12 vs 9), so
//! it did not go into version 2. Not a test; nothing here is used by the library.

fn main() {
    #[cfg(target_arch = "x86_64")]
    ab::main();
    #[cfg(not(target_arch = "x86_64"))]
    println!("kernel_ab compares x86_64 builds only");
}

#[cfg(target_arch = "x86_64")]
mod ab {
    use _core::hashing::{mix64, SplitMix64};
    use _core::minhash::MinHasher;
    use std::time::Instant;

    const BLOCK: usize = 32;

    struct Nh {
        a: Vec<u64>,
        b: Vec<u64>,
    }

    impl Nh {
        fn new(p: usize, seed: u64) -> Nh {
            let mut rng = SplitMix64::new(seed);
            let (mut a, mut b) = (Vec::new(), Vec::new());
            for _ in 0..p {
                let r = rng.next_u64();
                a.push(r & 0xFFFF_FFFF);
                b.push(r >> 32);
            }
            Nh { a, b }
        }
        #[inline(always)]
        fn generic(&self, shingles: &[u64], out: &mut [u32]) {
            for start in (0..out.len()).step_by(BLOCK) {
                let a: &[u64; BLOCK] = self.a[start..start + BLOCK].try_into().unwrap();
                let b: &[u64; BLOCK] = self.b[start..start + BLOCK].try_into().unwrap();
                let mut acc = [u64::MAX; BLOCK];
                for &s in shingles {
                    let x = s & 0xFFFF_FFFF;
                    let y = s >> 32;
                    for l in 0..BLOCK {
                        let t = (x.wrapping_add(a[l]) & 0xFFFF_FFFF)
                            * (y.wrapping_add(b[l]) & 0xFFFF_FFFF);
                        acc[l] = acc[l].min(t);
                    }
                }
                for (o, v) in out[start..start + BLOCK].iter_mut().zip(acc) {
                    *o = (v >> 32) as u32;
                }
            }
        }
        // SAFETY (all `unsafe fn` below): they only enable target features; main checks nothing,
        // so run this example only on a CPU with AVX-512 (F, VL, DQ) and AVX2.
        #[target_feature(enable = "avx512f,avx512vl,avx512dq,avx2")]
        unsafe fn avx512(&self, shingles: &[u64], out: &mut [u32]) {
            self.generic(shingles, out)
        }
        #[target_feature(enable = "avx2")]
        unsafe fn avx2(&self, shingles: &[u64], out: &mut [u32]) {
            self.generic(shingles, out)
        }
        /// 32-bit lanes: hi32 per product, min in u32.
        #[inline(always)]
        fn narrow(&self, shingles: &[u64], out: &mut [u32], a32: &[u32], b32: &[u32]) {
            for start in (0..out.len()).step_by(BLOCK) {
                let a: &[u32; BLOCK] = a32[start..start + BLOCK].try_into().unwrap();
                let b: &[u32; BLOCK] = b32[start..start + BLOCK].try_into().unwrap();
                let mut acc = [u32::MAX; BLOCK];
                for &s in shingles {
                    let x = s as u32;
                    let y = (s >> 32) as u32;
                    for l in 0..BLOCK {
                        let t = (x.wrapping_add(a[l]) as u64) * (y.wrapping_add(b[l]) as u64);
                        acc[l] = acc[l].min((t >> 32) as u32);
                    }
                }
                out[start..start + BLOCK].copy_from_slice(&acc);
            }
        }
        #[target_feature(enable = "avx512f,avx512vl,avx512dq,avx2")]
        unsafe fn narrow512(&self, s: &[u64], out: &mut [u32], a: &[u32], b: &[u32]) {
            self.narrow(s, out, a, b)
        }
        #[target_feature(enable = "avx2")]
        unsafe fn narrow2(&self, s: &[u64], out: &mut [u32], a: &[u32], b: &[u32]) {
            self.narrow(s, out, a, b)
        }
    }

    /// Copy of the v1 32-bit-lane kernel (rust/minhash/mod.rs block_kernel) for an AVX2 timing.
    #[inline(always)]
    fn v1_generic(shingles: &[u64], out: &mut [u32], a: &[u64], b: &[u64]) {
        for start in (0..out.len()).step_by(BLOCK) {
            let mut acc = [u32::MAX; BLOCK];
            let al: [u32; BLOCK] = std::array::from_fn(|l| a[start + l] as u32);
            let ah: [u32; BLOCK] = std::array::from_fn(|l| (a[start + l] >> 32) as u32);
            let bl: [u32; BLOCK] = std::array::from_fn(|l| b[start + l] as u32);
            let bh: [u32; BLOCK] = std::array::from_fn(|l| (b[start + l] >> 32) as u32);
            for &s in shingles {
                let x = s as u32;
                for l in 0..BLOCK {
                    let t = al[l] as u64 * x as u64 + bl[l] as u64;
                    let h = ((t >> 32) as u32)
                        .wrapping_add(ah[l].wrapping_mul(x))
                        .wrapping_add(bh[l]);
                    acc[l] = acc[l].min(h);
                }
            }
            out[start..start + BLOCK].copy_from_slice(&acc);
        }
    }
    #[target_feature(enable = "avx2")]
    unsafe fn v1_avx2(s: &[u64], out: &mut [u32], a: &[u64], b: &[u64]) {
        v1_generic(s, out, a, b)
    }

    pub fn main() {
        let mut rng = SplitMix64::new(0);
        let (mut pa, mut pb) = (Vec::new(), Vec::new());
        for _ in 0..128 {
            pa.push(rng.next_u64());
            pb.push(rng.next_u64());
        }
        let docs: Vec<Vec<u64>> = (0..300u64)
            .map(|d| (0..350u64).map(|i| mix64(d * 1000 + i)).collect())
            .collect();
        let v1 = MinHasher::new(128, 0).unwrap();
        let nh = Nh::new(128, 0);
        let a32: Vec<u32> = nh.a.iter().map(|&v| v as u32).collect();
        let b32: Vec<u32> = nh.b.iter().map(|&v| v as u32).collect();
        let mut sig = vec![0u32; 128];
        let mut check = 0u64;
        let names = [
            "v1 dispatch",
            "nh64 avx512",
            "nh64 avx2",
            "nh32 avx512",
            "nh32 avx2",
            "nh32 baseline",
            "v1 avx2",
            "v1 baseline",
        ];
        let mut best = [f64::MAX; 8];
        for _round in 0..40 {
            for (v, best) in best.iter_mut().enumerate() {
                let t = Instant::now();
                for d in &docs {
                    match v {
                        0 => v1.signature_into(d, &mut sig),
                        1 => unsafe { nh.avx512(d, &mut sig) },
                        2 => unsafe { nh.avx2(d, &mut sig) },
                        3 => unsafe { nh.narrow512(d, &mut sig, &a32, &b32) },
                        4 => unsafe { nh.narrow2(d, &mut sig, &a32, &b32) },
                        5 => nh.narrow(d, &mut sig, &a32, &b32),
                        6 => unsafe { v1_avx2(d, &mut sig, &pa, &pb) },
                        _ => v1_generic(d, &mut sig, &pa, &pb),
                    }
                    check = check.wrapping_add(sig[0] as u64);
                }
                *best = best.min(t.elapsed().as_secs_f64() * 1e9 / (docs.len() * 350) as f64);
            }
        }
        for (name, b) in names.iter().zip(best) {
            println!("{name:<16} best {b:6.2} ns/shingle (128 slots)");
        }
        println!("{check}");
    }
}
