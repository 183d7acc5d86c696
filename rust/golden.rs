//! The golden vectors of tests/golden (vectors.json for hash version 1, vectors_v2.json for
//! version 2), checked from Rust alone, so that every platform that can run `cargo test`
//! (x86_64, aarch64 under qemu or natively) proves it gives the stored bits. The Python suite
//! checks the same files through the bindings.

use crate::hashing::{HashVersion, HASH_VERSION};
use crate::lsh::band_keys;
use crate::minhash::Algorithm;
use crate::shingle::{ShingleSets, Unit};
use crate::signing::{minhash_texts, simhash_texts};
use serde_json::Value;

const VECTORS_V1: &str = include_str!("../tests/golden/vectors.json");
const VECTORS_V2: &str = include_str!("../tests/golden/vectors_v2.json");

fn hex_le<T: Copy>(values: &[T], to_bytes: impl Fn(T) -> Vec<u8>) -> String {
    values
        .iter()
        .flat_map(|&v| to_bytes(v))
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn every_version_1_golden_vector_matches() {
    check(VECTORS_V1, 1, HashVersion::V1);
}

#[test]
fn every_version_2_golden_vector_matches() {
    assert_eq!(HASH_VERSION, 2);
    check(VECTORS_V2, 2, HashVersion::V2);
}

fn check(vectors: &str, number: u64, version: HashVersion) {
    let golden: Value = serde_json::from_str(vectors).expect("golden vectors parse");
    assert_eq!(golden["hash_version"].as_u64(), Some(number));
    let texts: Vec<&str> = golden["texts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    if let Some(normalized) = golden["normalized"].as_array() {
        for (text, want) in texts.iter().zip(normalized) {
            assert_eq!(
                crate::normalize::normalize(text, version),
                want.as_str().unwrap()
            );
        }
    }
    for case in golden["cases"].as_array().unwrap() {
        let k = case["k"].as_u64().unwrap() as usize;
        let unit = Unit::parse(case["unit"].as_str().unwrap()).unwrap();
        let sets = ShingleSets::build(&texts, k, unit, version).unwrap();
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
                let sig =
                    minhash_texts(&texts, num_perm, seed, k, unit, 1, algorithm, version).unwrap();
                assert_eq!(
                    hex_le(&sig, |v: u32| v.to_le_bytes().to_vec()),
                    want.as_str().unwrap(),
                    "{field} {key}, k={k}"
                );
            }
        }
        for (key, want) in case["simhash"].as_object().unwrap() {
            let (bits, weights) = key.split_once('/').unwrap();
            let fp = simhash_texts(
                &texts,
                bits.parse().unwrap(),
                weights == "tf",
                k,
                unit,
                1,
                version,
            )
            .unwrap();
            assert_eq!(
                hex_le(&fp, |v: u64| v.to_le_bytes().to_vec()),
                want.as_str().unwrap(),
                "simhash {key}, k={k}"
            );
        }
        let sig = minhash_texts(&texts, 128, 7, k, unit, 1, Algorithm::Classic, version).unwrap();
        let keys = band_keys(&sig, 128, 42, 3).unwrap();
        assert_eq!(
            hex_le(&keys, |v: u64| v.to_le_bytes().to_vec()),
            case["band_hashes_42x3"].as_str().unwrap()
        );
    }
}
