//! Which vector instruction sets the kernels may use: the best the CPU has (each kernel still
//! checks the features it needs), capped by the environment variable `NEARDUP_SIMD`, read once
//! per process. `avx2` leaves AVX-512 out, `none` leaves AVX2 out too (the portable loops); any
//! other value, or none, caps nothing. Every kernel gives the same bits, so the cap changes
//! speed only: one machine can measure, and test, the paths a smaller CPU takes.

use std::sync::OnceLock;

/// The environment variable that caps the instruction sets.
pub const ENV: &str = "NEARDUP_SIMD";

/// The largest instruction set the kernels may use, in increasing order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Simd {
    /// The portable loops (on aarch64, NEON is the baseline and stays).
    None,
    Avx2,
    Avx512,
}

/// The cap a value of [`ENV`] sets (`None`: the variable is unset).
pub fn parse(value: Option<&str>) -> Simd {
    match value.map(|v| v.trim().to_ascii_lowercase()).as_deref() {
        Some("avx2") => Simd::Avx2,
        Some("none") => Simd::None,
        _ => Simd::Avx512,
    }
}

/// This process's cap: [`ENV`] read on first use.
pub fn cap() -> Simd {
    static CAP: OnceLock<Simd> = OnceLock::new();
    *CAP.get_or_init(|| parse(std::env::var(ENV).ok().as_deref()))
}

/// Whether kernels may use AVX-512 (if the CPU has it).
#[inline]
pub fn allows_avx512() -> bool {
    cap() >= Simd::Avx512
}

/// Whether kernels may use AVX2 (if the CPU has it).
#[inline]
pub fn allows_avx2() -> bool {
    cap() >= Simd::Avx2
}

/// The widest set the MinHash kernel uses here under the cap: "avx512", "avx2", "neon" or
/// "none" (reports and benchmarks say which paths they measured).
pub fn in_use() -> &'static str {
    #[cfg(all(target_arch = "x86_64", neardup_avx512))]
    if allows_avx512()
        && std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512vl")
    {
        return "avx512";
    }
    #[cfg(target_arch = "x86_64")]
    if allows_avx2() && std::arch::is_x86_feature_detected!("avx2") {
        return "avx2";
    }
    #[cfg(target_arch = "aarch64")]
    return "neon";
    #[allow(unreachable_code)]
    "none"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_variable_caps_only_what_it_names() {
        assert_eq!(parse(None), Simd::Avx512);
        assert_eq!(parse(Some("AVX2 ")), Simd::Avx2);
        assert_eq!(parse(Some("none")), Simd::None);
        assert_eq!(parse(Some("sse9")), Simd::Avx512);
        assert!(Simd::None < Simd::Avx2 && Simd::Avx2 < Simd::Avx512);
    }
}
