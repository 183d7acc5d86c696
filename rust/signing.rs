//! Signing drivers: MinHash signatures and SimHash fingerprints of every document (texts
//! shingled on the fly, or precomputed shingle sets), on one thread or several.

use crate::error::{filled_vec, matrix_len, probe_allocation, Error, Result};
use crate::hashing::HashVersion;
use crate::minhash::{Algorithm, Signer};
use crate::parallel::for_row_blocks;
use crate::rows::prefetch_bytes;
use crate::shingle::{SetsView, Shingler, Unit};
use crate::simhash;

/// Signatures (row-major, `texts.len() * num_perm`) of documents, shingled on the fly, with
/// classic MinHash or one-permutation hashing.
#[allow(clippy::too_many_arguments)]
pub fn minhash_texts(
    texts: &[&str],
    num_perm: usize,
    seed: u64,
    k: usize,
    unit: Unit,
    threads: usize,
    algorithm: Algorithm,
    version: HashVersion,
) -> Result<Vec<u32>> {
    let mut out = signature_matrix(texts.len(), num_perm, algorithm)?;
    let signer = Signer::new(algorithm, num_perm, seed)?;
    Shingler::new(k, unit, version)?;
    for_row_blocks(&mut out, num_perm, threads, |first, rows| {
        let mut shingler = Shingler::new(k, unit, version).expect("k was checked");
        let mut scratch = Vec::new();
        let mut bins = Vec::new();
        for (row, signature) in rows.chunks_exact_mut(num_perm).enumerate() {
            prefetch_next(texts, first + row);
            scratch.clear();
            shingler.hashes_into(texts[first + row], &mut scratch);
            signer.sign(&scratch, signature, &mut bins);
        }
    })?;
    Ok(out)
}

/// Bytes of hash parameters per slot the classic signer allocates (`minhash::MinHasher`: a and
/// b as u64, and their four u32 halves).
const PARAMETER_BYTES_PER_SLOT: usize = 32;

/// The zeroed output of `rows` signatures of `num_perm` slots, or an error instead of an abort
/// when `num_perm` (or `rows * num_perm`) is more than memory holds: the signature matrix is
/// allocated fallibly, and the hash parameters `Signer::new` allocates are probed first.
fn signature_matrix(rows: usize, num_perm: usize, algorithm: Algorithm) -> Result<Vec<u32>> {
    // One-permutation hashing picks a bin as (32-bit hash · P) >> 32, in 64 bits.
    if algorithm == Algorithm::Oph && num_perm as u64 > 1 << 32 {
        return Err(Error::new(format!(
            "num_perm must be at most 2**32 with algorithm='oph', got {num_perm}"
        )));
    }
    if algorithm == Algorithm::Classic {
        probe_allocation(
            num_perm,
            PARAMETER_BYTES_PER_SLOT,
            "the num_perm hash functions",
        )?;
    }
    filled_vec(matrix_len(rows, num_perm, "signatures")?, 0, "signatures")
}

/// Starts loading the document after `row` into cache while `row` is worked on: documents are
/// separate allocations, so each one's first lines would otherwise be a cache miss from memory.
#[inline]
fn prefetch_next(texts: &[&str], row: usize) {
    if let Some(next) = texts.get(row + 1) {
        prefetch_bytes(next.as_ptr(), next.len());
    }
}

/// Number of normalised words (version 2: tokens) of each document (0 means it can never be a
/// near-duplicate).
pub fn word_counts(texts: &[&str], version: HashVersion) -> Vec<i64> {
    let mut words = crate::normalize::Words::new(version);
    texts
        .iter()
        .map(|text| {
            words.fill(text);
            words.len() as i64
        })
        .collect()
}

/// Signatures of precomputed shingle sets.
pub fn minhash_sets(
    sets: SetsView<'_>,
    num_perm: usize,
    seed: u64,
    threads: usize,
    algorithm: Algorithm,
) -> Result<Vec<u32>> {
    let mut out = signature_matrix(sets.len(), num_perm, algorithm)?;
    let signer = Signer::new(algorithm, num_perm, seed)?;
    for_row_blocks(&mut out, num_perm, threads, |first, rows| {
        let mut bins = Vec::new();
        for (row, signature) in rows.chunks_exact_mut(num_perm).enumerate() {
            signer.sign(sets.get(first + row), signature, &mut bins);
        }
    })?;
    Ok(out)
}

/// SimHash fingerprints (`texts.len() * bits / 64` words) of documents, shingled on the fly.
pub fn simhash_texts(
    texts: &[&str],
    bits: usize,
    tf: bool,
    k: usize,
    unit: Unit,
    threads: usize,
    version: HashVersion,
) -> Result<Vec<u64>> {
    let words = simhash::words_for(bits)?;
    Shingler::new(k, unit, version)?;
    let mut out = filled_vec(
        matrix_len(texts.len(), words, "fingerprints")?,
        0,
        "fingerprints",
    )?;
    for_row_blocks(&mut out, words, threads, |first, rows| {
        let mut shingler = Shingler::new(k, unit, version).expect("k was checked");
        let mut hasher = simhash::SimHasher::new();
        let mut scratch = Vec::new();
        for (row, fingerprint) in rows.chunks_exact_mut(words).enumerate() {
            prefetch_next(texts, first + row);
            scratch.clear();
            shingler.hashes_into(texts[first + row], &mut scratch);
            hasher.fingerprint_into(&scratch, tf, fingerprint);
        }
    })?;
    Ok(out)
}

/// SimHash fingerprints of precomputed shingle sets (every shingle weighs 1).
pub fn simhash_sets(sets: SetsView<'_>, bits: usize, threads: usize) -> Result<Vec<u64>> {
    let words = simhash::words_for(bits)?;
    let mut out = filled_vec(
        matrix_len(sets.len(), words, "fingerprints")?,
        0,
        "fingerprints",
    )?;
    for_row_blocks(&mut out, words, threads, |first, rows| {
        for (row, fingerprint) in rows.chunks_exact_mut(words).enumerate() {
            simhash::fingerprint_sorted_into(sets.get(first + row), false, fingerprint);
        }
    })?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shingle::ShingleSets;

    #[test]
    fn texts_and_sets_give_the_same_signatures() {
        let texts = ["a b c d e f g", "a b c d e f h", "", "x y"];
        let sets =
            ShingleSets::build(&texts, 3, Unit::Word, crate::hashing::HashVersion::V2).unwrap();
        let view = SetsView::new(&sets.offsets, &sets.hashes).unwrap();
        for threads in [1, 2] {
            for algorithm in [Algorithm::Classic, Algorithm::Oph] {
                assert_eq!(
                    minhash_texts(
                        &texts,
                        16,
                        5,
                        3,
                        Unit::Word,
                        threads,
                        algorithm,
                        HashVersion::V2
                    )
                    .unwrap(),
                    minhash_sets(view, 16, 5, threads, algorithm).unwrap()
                );
            }
            assert_eq!(
                simhash_texts(&texts, 128, false, 3, Unit::Word, threads, HashVersion::V2).unwrap(),
                simhash_sets(view, 128, threads).unwrap()
            );
        }
    }

    #[test]
    fn impossible_sizes_are_errors_not_aborts() {
        use crate::error::Error;
        let texts = ["a b c", "d e f"];
        let sets =
            ShingleSets::build(&texts, 2, Unit::Word, crate::hashing::HashVersion::V2).unwrap();
        let view = SetsView::new(&sets.offsets, &sets.hashes).unwrap();
        for num_perm in [1usize << 40, usize::MAX / 2, usize::MAX] {
            let classic = Algorithm::Classic;
            assert!(matches!(
                minhash_texts(
                    &texts,
                    num_perm,
                    0,
                    2,
                    Unit::Word,
                    1,
                    classic,
                    HashVersion::V2
                ),
                Err(Error::Resource(_))
            ));
            assert!(matches!(
                minhash_sets(view, num_perm, 0, 1, classic),
                Err(Error::Resource(_))
            ));
            assert!(matches!(
                minhash_sets(view, num_perm, 0, 1, Algorithm::Oph),
                Err(Error::InvalidArgument(_))
            ));
        }
        // Rows × width overflows usize before any allocation.
        assert!(matches!(
            signature_matrix(usize::MAX / 2, 4, Algorithm::Oph),
            Err(Error::Resource(_))
        ));
        assert!(matches!(
            simhash_sets(view, 256, 1),
            Err(Error::InvalidArgument(_))
        ));
        assert!(matches!(
            minhash_sets(
                view,
                8,
                0,
                crate::parallel::MAX_THREADS + 1,
                Algorithm::Classic
            ),
            Err(Error::InvalidArgument(_))
        ));
    }
}
