//! The golden vectors of tests/golden/vectors.json, checked from Rust alone, so that every
//! platform that can run `cargo test` (x86_64, aarch64 under qemu or natively) proves it gives
//! the stored bits. The Python suite checks the same file through the bindings.

use crate::hashing::HASH_VERSION;
use crate::lsh::band_keys;
use crate::minhash::Algorithm;
use crate::shingle::{ShingleSets, Unit};
use crate::signing::{minhash_texts, simhash_texts};
use serde_json::Value;

const VECTORS: &str = include_str!("../tests/golden/vectors.json");

fn hex_le<T: Copy>(values: &[T], to_bytes: impl Fn(T) -> Vec<u8>) -> String {
    values
        .iter()
        .flat_map(|&v| to_bytes(v))
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn every_golden_vector_matches() {
    let golden: Value = serde_json::from_str(VECTORS).expect("vectors.json parses");
    assert_eq!(golden["hash_version"].as_u64(), Some(HASH_VERSION as u64));
    let texts: Vec<&str> = golden["texts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    for case in golden["cases"].as_array().unwrap() {
        let k = case["k"].as_u64().unwrap() as usize;
        let unit = Unit::parse(case["unit"].as_str().unwrap()).unwrap();
        let sets = ShingleSets::build(&texts, k, unit).unwrap();
        for (i, want) in case["shingles"].as_array().unwrap().iter().enumerate() {
            let got: Vec<String> = sets.hashes
                [sets.offsets[i] as usize..sets.offsets[i + 1] as usize]
                .iter()
                .map(|h| format!("{h:016x}"))
                .collect();
            let want: Vec<&str> = want
                .as_array()
                .unwrap()
                .iter()
                .map(|h| h.as_str().unwrap())
                .collect();
            assert_eq!(got, want, "shingles of text {i}, k={k}");
        }
        for (field, algorithm) in [
            ("minhash", Algorithm::Classic),
            ("minhash_oph", Algorithm::Oph),
        ] {
            for (key, want) in case[field].as_object().unwrap() {
                let (num_perm, seed) = key.split_once('/').unwrap();
                let (num_perm, seed) = (num_perm.parse().unwrap(), seed.parse().unwrap());
                let sig = minhash_texts(&texts, num_perm, seed, k, unit, 1, algorithm).unwrap();
                assert_eq!(
                    hex_le(&sig, |v: u32| v.to_le_bytes().to_vec()),
                    want.as_str().unwrap(),
                    "{field} {key}, k={k}"
                );
            }
        }
        for (key, want) in case["simhash"].as_object().unwrap() {
            let (bits, weights) = key.split_once('/').unwrap();
            let fp =
                simhash_texts(&texts, bits.parse().unwrap(), weights == "tf", k, unit, 1).unwrap();
            assert_eq!(
                hex_le(&fp, |v: u64| v.to_le_bytes().to_vec()),
                want.as_str().unwrap(),
                "simhash {key}, k={k}"
            );
        }
        let sig = minhash_texts(&texts, 128, 7, k, unit, 1, Algorithm::Classic).unwrap();
        let keys = band_keys(&sig, 128, 42, 3).unwrap();
        assert_eq!(
            hex_le(&keys, |v: u64| v.to_le_bytes().to_vec()),
            case["band_hashes_42x3"].as_str().unwrap()
        );
    }
}
