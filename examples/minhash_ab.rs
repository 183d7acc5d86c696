//! A/B of loop orders of the classic MinHash kernel's AVX-512 build on random shingle hashes
//! (128 slots, 350 shingles a document), best of 40 interleaved rounds, with the clock measured
//! by a chain of dependent adds: `cargo run --release --example minhash_ab` (x86_64 with
//! AVX-512 F, VL, DQ). Every variant is checked bit-identical to the library's kernel; "lib
//! avx2" is the library's AVX2 kernel (rust/minhash/avx2.rs) and "lib avx2-generic" the
//! generic loop compiled for AVX2 that it replaced. Not a test; nothing here is used by the
//! library.

// Built only by Rust >= 1.89 (build.rs sets the cfg); index loops mirror the lanes.
#![allow(clippy::incompatible_msrv, clippy::needless_range_loop)]

fn main() {
    #[cfg(all(target_arch = "x86_64", neardup_avx512))]
    ab::main();
    #[cfg(not(all(target_arch = "x86_64", neardup_avx512)))]
    println!("minhash_ab compares x86_64 AVX-512 builds only");
}

#[cfg(all(target_arch = "x86_64", neardup_avx512))]
mod ab {
    use _core::hashing::{mix64, SplitMix64};
    use _core::minhash::MinHasher;
    use std::arch::x86_64::*;
    use std::time::Instant;

    // SAFETY (all `unsafe fn` below): they need AVX-512 F, VL, DQ; main checks for them.

    /// All 128 slots in one pass: 16 registers of minima, a and b read from memory (L1) as
    /// operands of the multiply and the add, one broadcast per shingle.
    #[target_feature(enable = "avx512f,avx512vl,avx512dq,avx2")]
    unsafe fn one_pass(shingles: &[u64], a: &[u64; 128], b: &[u64; 128], out: &mut [u32]) {
        let mut acc = [_mm512_set1_epi64(-1); 16];
        for &s in shingles {
            slot_minima(&mut acc, a, b, s);
        }
        store(&acc, out);
    }

    /// One pass; the high halves of two registers of sums packed into one of sixteen 32-bit
    /// lanes (`vpermt2d`), so the minimum is one `vpminud` per sixteen slots.
    #[target_feature(enable = "avx512f,avx512vl,avx512dq,avx2")]
    unsafe fn packed(shingles: &[u64], a: &[u64; 128], b: &[u64; 128], out: &mut [u32]) {
        let odd = _mm512_set_epi32(31, 29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
        let mut acc = [_mm512_set1_epi32(-1); 8];
        for &s in shingles {
            let x = _mm512_set1_epi64(s as u32 as i64);
            for l in 0..8 {
                let t = |h: usize| {
                    let av = _mm512_loadu_si512(a.as_ptr().add(16 * l + 8 * h) as *const _);
                    let bv = _mm512_loadu_si512(b.as_ptr().add(16 * l + 8 * h) as *const _);
                    _mm512_add_epi64(_mm512_mullo_epi64(av, x), bv)
                };
                let high = _mm512_permutex2var_epi32(t(0), odd, t(1));
                acc[l] = _mm512_min_epu32(acc[l], high);
            }
        }
        for (l, v) in acc.iter().enumerate() {
            _mm512_storeu_si512(out.as_mut_ptr().add(16 * l) as *mut _, *v);
        }
    }

    /// Two passes of 64 slots: a in 8 registers, b from memory.
    #[target_feature(enable = "avx512f,avx512vl,avx512dq,avx2")]
    unsafe fn two_pass(shingles: &[u64], a: &[u64; 128], b: &[u64; 128], out: &mut [u32]) {
        let mut all = [_mm512_set1_epi64(-1); 16];
        for half in 0..2 {
            let av: [__m512i; 8] = std::array::from_fn(|l| {
                _mm512_loadu_si512(a.as_ptr().add(64 * half + 8 * l) as *const _)
            });
            let mut acc = [_mm512_set1_epi64(-1); 8];
            for &s in shingles {
                let x = _mm512_set1_epi64(s as u32 as i64);
                for l in 0..8 {
                    let bv = _mm512_loadu_si512(b.as_ptr().add(64 * half + 8 * l) as *const _);
                    acc[l] = _mm512_min_epu64(
                        acc[l],
                        _mm512_add_epi64(_mm512_mullo_epi64(av[l], x), bv),
                    );
                }
            }
            all[8 * half..8 * half + 8].copy_from_slice(&acc);
        }
        store(&all, out);
    }

    /// One pass over pairs of shingles: each a and b load serves two shingles.
    #[target_feature(enable = "avx512f,avx512vl,avx512dq,avx2")]
    unsafe fn pairs(shingles: &[u64], a: &[u64; 128], b: &[u64; 128], out: &mut [u32]) {
        let mut acc = [_mm512_set1_epi64(-1); 16];
        let mut it = shingles.chunks_exact(2);
        for p in &mut it {
            let x0 = _mm512_set1_epi64(p[0] as u32 as i64);
            let x1 = _mm512_set1_epi64(p[1] as u32 as i64);
            for l in 0..16 {
                let av = _mm512_loadu_si512(a.as_ptr().add(8 * l) as *const _);
                let bv = _mm512_loadu_si512(b.as_ptr().add(8 * l) as *const _);
                let h0 = _mm512_add_epi64(_mm512_mullo_epi64(av, x0), bv);
                let h1 = _mm512_add_epi64(_mm512_mullo_epi64(av, x1), bv);
                acc[l] = _mm512_min_epu64(acc[l], _mm512_min_epu64(h0, h1));
            }
        }
        for &s in it.remainder() {
            slot_minima(&mut acc, a, b, s);
        }
        store(&acc, out);
    }

    /// As [`one_pass`] in 256-bit registers (two passes of 64 slots: 16 ymm minima).
    #[target_feature(enable = "avx512f,avx512vl,avx512dq,avx2")]
    unsafe fn ymm(shingles: &[u64], a: &[u64; 128], b: &[u64; 128], out: &mut [u32]) {
        for half in 0..2 {
            let mut acc = [_mm256_set1_epi64x(-1); 16];
            for &s in shingles {
                let x = _mm256_set1_epi64x(s as u32 as i64);
                for l in 0..16 {
                    let at = 64 * half + 4 * l;
                    let av = _mm256_loadu_si256(a.as_ptr().add(at) as *const _);
                    let bv = _mm256_loadu_si256(b.as_ptr().add(at) as *const _);
                    acc[l] =
                        _mm256_min_epu64(acc[l], _mm256_add_epi64(_mm256_mullo_epi64(av, x), bv));
                }
            }
            for l in 0..16 {
                let mut v = [0u64; 4];
                _mm256_storeu_si256(v.as_mut_ptr() as *mut _, acc[l]);
                for (j, w) in v.iter().enumerate() {
                    out[64 * half + 4 * l + j] = (w >> 32) as u32;
                }
            }
        }
    }

    /// The classic update of all 128 slots' minima by one shingle (the kernel's own loop).
    #[target_feature(enable = "avx512f,avx512vl,avx512dq,avx2")]
    #[inline]
    unsafe fn slot_minima(acc: &mut [__m512i; 16], a: &[u64; 128], b: &[u64; 128], s: u64) {
        let x = _mm512_set1_epi64(s as u32 as i64);
        for l in 0..16 {
            let av = _mm512_loadu_si512(a.as_ptr().add(8 * l) as *const _);
            let bv = _mm512_loadu_si512(b.as_ptr().add(8 * l) as *const _);
            acc[l] = _mm512_min_epu64(acc[l], _mm512_add_epi64(_mm512_mullo_epi64(av, x), bv));
        }
    }

    #[target_feature(enable = "avx512f,avx512vl,avx512dq,avx2")]
    unsafe fn store(acc: &[__m512i; 16], out: &mut [u32]) {
        for (l, v) in acc.iter().enumerate() {
            let hi = _mm512_cvtepi64_epi32(_mm512_srli_epi64(*v, 32));
            _mm256_storeu_si256(out.as_mut_ptr().add(8 * l) as *mut _, hi);
        }
    }

    /// Cycles per ns from a chain of 100 dependent adds (one cycle each) per loop trip.
    fn ghz() -> f64 {
        let mut best = f64::MAX;
        for _ in 0..20 {
            let t = Instant::now();
            let mut x = 1u64;
            for _ in 0..100_000u64 {
                // SAFETY: register arithmetic only.
                unsafe {
                    std::arch::asm!(
                        ".rept 100", "add {x}, 1", ".endr",
                        x = inout(reg) x,
                        options(nomem, nostack, pure)
                    );
                }
            }
            std::hint::black_box(x);
            best = best.min(t.elapsed().as_secs_f64());
        }
        1e7 / best / 1e9
    }

    /// Only the multiplies of the kernel (16 per shingle), to see what bounds it.
    #[target_feature(enable = "avx512f,avx512vl,avx512dq,avx2")]
    unsafe fn mul_only(shingles: &[u64], a: &[u64; 128], _b: &[u64; 128], out: &mut [u32]) {
        let mut acc = [_mm512_set1_epi64(-1); 16];
        for &s in shingles {
            let x = _mm512_set1_epi64(s as u32 as i64);
            for l in 0..16 {
                let av = _mm512_loadu_si512(a.as_ptr().add(8 * l) as *const _);
                acc[l] = _mm512_xor_si512(acc[l], _mm512_mullo_epi64(av, x));
            }
        }
        store(&acc, out);
    }

    /// Only the adds and minima (32 per shingle).
    #[target_feature(enable = "avx512f,avx512vl,avx512dq,avx2")]
    unsafe fn add_min_only(shingles: &[u64], a: &[u64; 128], b: &[u64; 128], out: &mut [u32]) {
        let mut acc = [_mm512_set1_epi64(-1); 16];
        for &s in shingles {
            let x = _mm512_set1_epi64(s as u32 as i64);
            for l in 0..16 {
                let av = _mm512_loadu_si512(a.as_ptr().add(8 * l) as *const _);
                let bv = _mm512_loadu_si512(b.as_ptr().add(8 * l) as *const _);
                acc[l] = _mm512_min_epu64(acc[l], _mm512_add_epi64(_mm512_xor_si512(av, x), bv));
            }
        }
        store(&acc, out);
    }

    pub fn main() {
        let mut rng = SplitMix64::new(0);
        let (mut pa, mut pb) = ([0u64; 128], [0u64; 128]);
        for p in 0..128 {
            pa[p] = rng.next_u64();
            pb[p] = rng.next_u64();
        }
        let docs: Vec<Vec<u64>> = (0..300u64)
            .map(|d| (0..(300 + d % 101)).map(|i| mix64(d * 1000 + i)).collect())
            .collect();
        let shingles: usize = docs.iter().map(Vec::len).sum();
        let lib = MinHasher::new(128, 0).unwrap();
        let names = [
            "library",
            "one pass",
            "two pass 64",
            "pairs",
            "ymm",
            "lib avx2",
            "lib avx2-generic",
            "packed 32",
            "mul only",
            "xor+add+min",
        ];
        let run = |v: usize, d: &[u64], sig: &mut [u32]| unsafe {
            match v {
                0 => lib.signature_into(d, sig),
                1 => one_pass(d, &pa, &pb, sig),
                2 => two_pass(d, &pa, &pb, sig),
                3 => pairs(d, &pa, &pb, sig),
                4 => ymm(d, &pa, &pb, sig),
                5 => assert!(lib.signature_kernel("avx2", d, sig)),
                6 => assert!(lib.signature_kernel("avx2-generic", d, sig)),
                7 => packed(d, &pa, &pb, sig),
                8 => mul_only(d, &pa, &pb, sig),
                _ => add_min_only(d, &pa, &pb, sig),
            }
        };
        let mut want = vec![0u32; 128];
        let mut got = vec![0u32; 128];
        for d in &docs {
            run(0, d, &mut want);
            for v in 1..8 {
                run(v, d, &mut got);
                assert_eq!(got, want, "{}", names[v]);
            }
        }
        let mut best = vec![f64::MAX; names.len()];
        let mut check = 0u64;
        for _round in 0..40 {
            for (v, best) in best.iter_mut().enumerate() {
                let t = Instant::now();
                for d in &docs {
                    run(v, d, &mut got);
                    check = check.wrapping_add(got[0] as u64);
                }
                *best = best.min(t.elapsed().as_secs_f64() * 1e9 / shingles as f64);
            }
        }
        let ghz = ghz();
        for (name, b) in names.iter().zip(&best) {
            println!(
                "{name:<12} best {b:6.2} ns/shingle (128 slots), ~{:5.1} cycles",
                b * ghz
            );
        }
        println!("clock bound ~{ghz:.2} GHz  ({check})");
    }
}
