//! The MinHash families that examples/family_eval.rs compares, 128 slots each: the library's
//! three (version 1's classic, version 2's mla32, one-permutation hashing) and two rejected
//! candidates, whose loops are compiled for AVX2 on x86_64 (the eval's speed only;
//! examples/family_ab.rs times the kernels).

use _core::hashing::SplitMix64;
use _core::minhash::MinHasher32;
use _core::minhash::{MinHasher, OphHasher};

/// Slots of every signature.
pub const P: usize = 128;

/// A family: its name and the hash functions of one seed.
#[derive(Clone, Copy)]
pub enum Family {
    /// The library's, hash version 1's: hi32((a·lo32(s) + b) mod 2^64), a and b 64-bit.
    Classic,
    /// hi32(a·lo32(s) + b mod 2^64) with a 32-bit (odd) and b 64-bit: one 32×32→64 multiply.
    Mul32,
    /// lo32(a·lo32(s) + b) with a 32-bit odd and b 32-bit: one 32-bit multiply-add (the
    /// library's `MinHasher32`, hash version 2's family since this evaluation).
    Mla32,
    /// hi32((lo32(s) + a mod 2^32)·(hi32(s) + b mod 2^32)): one 32×32→64 multiply of both halves.
    Nh,
    /// The library's one-permutation hashing with optimal densification.
    Oph,
}

pub fn all() -> Vec<Family> {
    vec![
        Family::Classic,
        Family::Mul32,
        Family::Mla32,
        Family::Nh,
        Family::Oph,
    ]
}

impl Family {
    pub fn name(&self) -> String {
        match self {
            Family::Classic => "classic",
            Family::Mul32 => "mul32",
            Family::Mla32 => "mla32",
            Family::Nh => "nh",
            Family::Oph => "oph",
        }
        .to_string()
    }

    pub fn hasher(&self, seed: u64) -> Hasher {
        let mut rng = SplitMix64::new(seed);
        let mut a = [0u64; P];
        let mut b = [0u64; P];
        for p in 0..P {
            a[p] = rng.next_u64();
            b[p] = rng.next_u64();
        }
        match self {
            Family::Classic => Hasher::Classic(MinHasher::new(P, seed).unwrap()),
            Family::Oph => Hasher::Oph(OphHasher::new(P, seed).unwrap()),
            Family::Mul32 => Hasher::Mul32(Box::new((a.map(|v| v as u32 as u64 | 1), b))),
            Family::Mla32 => Hasher::Mla32(MinHasher32::new(P, seed).unwrap()),
            Family::Nh => Hasher::Nh(Box::new((a.map(|v| v as u32), a.map(|v| (v >> 32) as u32)))),
        }
    }
}

pub enum Hasher {
    Classic(MinHasher),
    Oph(OphHasher),
    Mul32(Box<([u64; P], [u64; P])>),
    Mla32(MinHasher32),
    Nh(Box<([u32; P], [u32; P])>),
}

impl Hasher {
    pub fn sign(&self, shingles: &[u64], out: &mut [u32]) {
        match self {
            Hasher::Classic(h) => h.signature_into(shingles, out),
            Hasher::Oph(h) => h.signature_into(shingles, out, &mut Vec::new()),
            Hasher::Mla32(h) => h.signature_into(shingles, out),
            Hasher::Mul32(ab) => fast(|| mul32(shingles, &ab.0, &ab.1, out)),
            Hasher::Nh(ab) => fast(|| nh(shingles, &ab.0, &ab.1, out)),
        }
    }
}

/// Runs `f` compiled with AVX2 when the CPU has it (the loops inline into it).
fn fast(f: impl FnOnce()) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        #[target_feature(enable = "avx2")]
        unsafe fn with_avx2(f: impl FnOnce()) {
            f()
        }
        // SAFETY: the CPU has AVX2 (checked just above).
        return unsafe { with_avx2(f) };
    }
    f()
}

#[inline(always)]
fn mul32(shingles: &[u64], a: &[u64; P], b: &[u64; P], out: &mut [u32]) {
    let mut acc = [u64::MAX; P];
    for &s in shingles {
        let x = s as u32 as u64;
        for l in 0..P {
            acc[l] = acc[l].min((a[l] * x).wrapping_add(b[l]));
        }
    }
    for (o, v) in out.iter_mut().zip(acc) {
        *o = if shingles.is_empty() {
            u32::MAX
        } else {
            (v >> 32) as u32
        };
    }
}

#[inline(always)]
fn nh(shingles: &[u64], a: &[u32; P], b: &[u32; P], out: &mut [u32]) {
    let mut acc = [u32::MAX; P];
    for &s in shingles {
        let (x, y) = (s as u32, (s >> 32) as u32);
        for l in 0..P {
            let t = x.wrapping_add(a[l]) as u64 * y.wrapping_add(b[l]) as u64;
            acc[l] = acc[l].min((t >> 32) as u32);
        }
    }
    out.copy_from_slice(&acc);
}
