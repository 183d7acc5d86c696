//! Sets `cfg(neardup_avx512)` when the compiler can compile functions for AVX-512 (the
//! `avx512*` target features are stable from Rust 1.89; the crate supports older compilers,
//! which then simply build without the AVX-512 variant of the MinHash kernel).

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rustc-check-cfg=cfg(neardup_avx512)");
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".to_string());
    let minor = std::process::Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|out| String::from_utf8(out.stdout).ok())
        .and_then(|version| {
            version
                .split('.')
                .nth(1)
                .and_then(|m| m.parse::<u32>().ok())
        });
    if minor.is_some_and(|m| m >= 89) {
        println!("cargo:rustc-cfg=neardup_avx512");
    }
}
