//! Signing drivers: MinHash signatures and SimHash fingerprints of every document (texts
//! shingled on the fly, or precomputed shingle sets), on one thread or several.

use crate::error::{filled_vec, matrix_len, probe_allocation, reserve, Error, Result};
use crate::hashing::{mix64, HashVersion};
use crate::minhash::{Algorithm, Signer};
use crate::parallel::{copy_concat, for_row_blocks, map_blocks};
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
    let signer = Signer::new(algorithm, num_perm, seed, version)?;
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

/// What the sign pass of a batch needs, from one pass over its texts ([`sign_texts`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedTexts {
    /// Row-major `n * num_perm` MinHash signatures of the shingle sets.
    pub signatures: Vec<u32>,
    /// `n * 2`: the [`set_digest`] of each document's shingle set.
    pub digests: Vec<u64>,
    /// `n + 1` offsets of the sets (their sizes whether or not the sets are kept).
    pub offsets: Vec<i64>,
    /// The sorted, duplicate-free sets themselves (`offsets` index them), when kept and not
    /// written into the caller's buffer.
    pub hashes: Option<Vec<u64>>,
}

/// Where [`sign_texts`] puts the sets it keeps.
#[derive(Debug)]
pub enum KeptSets<'a> {
    /// Nowhere: only sizes, digests and signatures.
    Not,
    /// A new vector (`SignedTexts::hashes`).
    Own,
    /// The front of the caller's buffer, when they fit (`SignedTexts::hashes` is then None);
    /// else, as `Own`. Exact verification holds the sets of a whole run in one buffer: this
    /// writes them there once, instead of into a new vector (whose fresh pages cost a fault
    /// each) and then again into the buffer. On several threads each block fills a vector of
    /// its own, copied there by every thread ([`copy_concat`]: the buffer's fresh pages are
    /// faulted in and zeroed in parallel, not by the caller's thread alone).
    Into(&'a mut [u64]),
}

/// The sets being kept by one block: dropped, in a vector, or in the caller's buffer.
enum Sink<'a> {
    Drop,
    Vec(Vec<u64>),
    Slice(&'a mut [u64], usize),
}

impl Sink<'_> {
    fn put(&mut self, set: &[u64]) {
        match self {
            Sink::Drop => {}
            Sink::Vec(all) => all.extend_from_slice(set),
            Sink::Slice(buffer, used) => {
                if let Some(room) = buffer.get_mut(*used..*used + set.len()) {
                    room.copy_from_slice(set);
                    *used += set.len();
                } else {
                    // Out of room: on in a vector of its own, from what the buffer holds.
                    let mut all = buffer[..*used].to_vec();
                    all.extend_from_slice(set);
                    *self = Sink::Vec(all);
                }
            }
        }
    }

    fn into_hashes(self) -> Option<Vec<u64>> {
        match self {
            Sink::Vec(all) => Some(all),
            Sink::Drop | Sink::Slice(..) => None,
        }
    }
}

/// Shingle sets, their digests and their MinHash signatures in one pass over the texts: each
/// document is shingled, sorted and de-duplicated once into a scratch buffer, digested and
/// signed while it is in cache, and its set kept as `keep` says (exact verification holds
/// them). Same bits as `ShingleSets::build`, then `set_digest` of each set, then
/// [`minhash_sets`].
#[allow(clippy::too_many_arguments)]
pub fn sign_texts(
    texts: &[&str],
    k: usize,
    unit: Unit,
    version: HashVersion,
    num_perm: usize,
    seed: u64,
    algorithm: Algorithm,
    threads: usize,
    keep: KeptSets<'_>,
) -> Result<SignedTexts> {
    signature_matrix(0, num_perm, algorithm)?; // the checks, before any work
    matrix_len(texts.len(), num_perm, "signatures")?;
    let signer = Signer::new(algorithm, num_perm, seed, version)?;
    Shingler::new(k, unit, version)?;
    let keep_sets = !matches!(keep, KeptSets::Not);
    let block = |rows: std::ops::Range<usize>, mut sink: Sink<'_>| -> Result<SignedTexts> {
        let mut shingler = Shingler::new(k, unit, version).expect("k was checked");
        let mut block = SignedTexts {
            signatures: filled_vec(rows.len() * num_perm, 0, "signatures")?,
            digests: filled_vec(rows.len() * 2, 0, "set digests")?,
            offsets: Vec::new(),
            hashes: None,
        };
        reserve(&mut block.offsets, rows.len(), "set offsets")?;
        let mut scratch = Vec::new();
        let mut bins = Vec::new();
        let mut digester = UnsortedDigest::default();
        let mut total = 0i64;
        for (row, i) in rows.enumerate() {
            prefetch_next(texts, i);
            scratch.clear();
            let digest = &mut block.digests[2 * row..2 * row + 2];
            let size = if matches!(sink, Sink::Drop) {
                // Sets not kept: digested and signed unsorted, repeats and all (a signature
                // is a minimum, blind to repeats); no sort at all.
                shingler.hashes_into(texts[i], &mut scratch);
                let (set, size) = digester.digest(&scratch);
                digest.copy_from_slice(&set);
                size
            } else {
                shingler.append_set(texts[i], &mut scratch);
                digest.copy_from_slice(&set_digest(&scratch));
                sink.put(&scratch);
                scratch.len()
            };
            let signature = &mut block.signatures[row * num_perm..(row + 1) * num_perm];
            signer.sign(&scratch, signature, &mut bins);
            total += size as i64;
            block.offsets.push(total); // the end of each set; made global below
        }
        block.hashes = sink.into_hashes();
        Ok(block)
    };
    let new_sink = |rows: &std::ops::Range<usize>| -> Result<Sink<'static>> {
        if !keep_sets {
            return Ok(Sink::Drop);
        }
        // A first guess at the kept sets (a word and its separator take about six bytes).
        let mut all = Vec::new();
        reserve(
            &mut all,
            rows.clone().map(|i| texts[i].len() / 6).sum(),
            "shingle sets",
        )?;
        Ok(Sink::Vec(all))
    };
    match keep {
        KeptSets::Into(buffer) if threads == 1 => {
            let blocks = vec![block(0..texts.len(), Sink::Slice(buffer, 0))];
            join_blocks(blocks, texts.len(), num_perm)
        }
        keep => {
            let blocks = map_blocks(texts.len(), threads, |rows| {
                block(rows.clone(), new_sink(&rows)?)
            })?;
            let mut blocks: Vec<SignedTexts> = blocks.into_iter().collect::<Result<_>>()?;
            // Several threads: each block kept its sets in a vector of its own; into the
            // caller's buffer with them when they all fit (no joined copy in between).
            if let KeptSets::Into(buffer) = keep {
                let total: usize = blocks.iter().flat_map(|b| &b.hashes).map(Vec::len).sum();
                if total <= buffer.len() {
                    let parts: Vec<&[u64]> =
                        blocks.iter().flat_map(|b| b.hashes.as_deref()).collect();
                    copy_concat(buffer, &parts, threads)?;
                    blocks.iter_mut().for_each(|b| b.hashes = None);
                }
            }
            join_blocks(blocks.into_iter().map(Ok).collect(), texts.len(), num_perm)
        }
    }
}

/// The blocks of [`sign_texts`] as one [`SignedTexts`] (moved, not copied, when there is one).
fn join_blocks(blocks: Vec<Result<SignedTexts>>, n: usize, num_perm: usize) -> Result<SignedTexts> {
    let blocks: Vec<SignedTexts> = blocks.into_iter().collect::<Result<_>>()?;
    let mut offsets = Vec::new();
    reserve(&mut offsets, n + 1, "set offsets")?;
    offsets.push(0);
    let mut base = 0;
    for block in &blocks {
        offsets.extend(block.offsets.iter().map(|&end| base + end));
        base = *offsets.last().expect("offsets start with 0");
    }
    if let [_] = blocks.as_slice() {
        let block = blocks.into_iter().next().expect("one block");
        return Ok(SignedTexts { offsets, ..block });
    }
    let mut joined = SignedTexts {
        signatures: Vec::new(),
        digests: Vec::new(),
        offsets,
        hashes: blocks
            .first()
            .and_then(|b| b.hashes.as_ref())
            .map(|_| Vec::new()),
    };
    reserve(&mut joined.signatures, n * num_perm, "signatures")?;
    reserve(&mut joined.digests, n * 2, "set digests")?;
    if let Some(hashes) = joined.hashes.as_mut() {
        reserve(hashes, base as usize, "shingle sets")?;
    }
    for block in blocks {
        joined.signatures.extend_from_slice(&block.signatures);
        joined.digests.extend_from_slice(&block.digests);
        if let (Some(all), Some(part)) = (joined.hashes.as_mut(), block.hashes) {
            all.extend_from_slice(&part);
        }
    }
    Ok(joined)
}

/// [`set_digest`] and size of the set of shingle hashes given with repeats, without sorting
/// them: each distinct hash is found once through an open-addressing table indexed by its top
/// bits (the hashes are uniform), about a tenth of the instructions of sorting a set of a few
/// hundred. A document whose hashes cluster in the table (a probe longer than
/// [`UnsortedDigest::MAX_PROBE`]) is sorted instead, so no input costs more than a sort.
#[derive(Debug, Default)]
struct UnsortedDigest {
    table: Vec<u64>,
    sorted: Vec<u64>,
    sorter: crate::shingle::SetSorter,
}

impl UnsortedDigest {
    const MAX_PROBE: usize = 64;

    fn digest(&mut self, hashes: &[u64]) -> ([u64; 2], usize) {
        if hashes.is_empty() {
            return ([0, 0], 0);
        }
        // At most half full; 0 marks an empty slot (a hash 0 is counted on the side).
        let bits = (2 * hashes.len())
            .next_power_of_two()
            .trailing_zeros()
            .max(4);
        let (mask, shift) = ((1usize << bits) - 1, 64 - bits);
        self.table.clear();
        self.table.resize(mask + 1, 0);
        let (mut sum, mut squares, mut size, mut zero) = (0u64, 0u64, 0usize, false);
        for &v in hashes {
            if v == 0 {
                zero = true;
                continue;
            }
            let mut at = (v >> shift) as usize;
            let mut probe = 0;
            loop {
                let slot = self.table[at];
                if slot == v {
                    break;
                }
                if slot == 0 {
                    self.table[at] = v;
                    sum = sum.wrapping_add(v);
                    squares = squares.wrapping_add(v.wrapping_mul(v));
                    size += 1;
                    break;
                }
                probe += 1;
                if probe > Self::MAX_PROBE {
                    return self.by_sorting(hashes);
                }
                at = (at + 1) & mask;
            }
        }
        size += usize::from(zero); // 0 adds nothing to either sum
        ([sum ^ mix64(size as u64 ^ DIGEST_SIZE_KEY), squares], size)
    }

    fn by_sorting(&mut self, hashes: &[u64]) -> ([u64; 2], usize) {
        self.sorted.clear();
        self.sorted.extend_from_slice(hashes);
        let size = self.sorter.sort_dedup(&mut self.sorted);
        (set_digest(&self.sorted[..size]), size)
    }
}

/// Mixed with a set's size in [`set_digest`] (engine.set_digests' `_MIX1`).
const DIGEST_SIZE_KEY: u64 = 0x9E37_79B9_7F4A_7C15;

/// A 128-bit digest of a sorted, duplicate-free shingle set; equal sets give equal digests,
/// and different sets collide with probability about 2^-128 (the hashes are uniform). The sums
/// of the hashes and of their squares modulo 2^64, the mixed size folded into the first; the
/// empty set gives (0, 0). The same formula as `neardup.engine.set_digests`; only compared
/// within one run, never stored.
pub fn set_digest(set: &[u64]) -> [u64; 2] {
    if set.is_empty() {
        return [0, 0];
    }
    let (mut sum, mut squares) = (0u64, 0u64);
    for &v in set {
        sum = sum.wrapping_add(v);
        squares = squares.wrapping_add(v.wrapping_mul(v));
    }
    [
        sum ^ mix64(set.len() as u64 ^ 0x9E37_79B9_7F4A_7C15),
        squares,
    ]
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

/// Signatures of precomputed shingle sets; `version` picks the MinHash family (the sets'
/// own hash version).
pub fn minhash_sets(
    sets: SetsView<'_>,
    num_perm: usize,
    seed: u64,
    threads: usize,
    algorithm: Algorithm,
    version: HashVersion,
) -> Result<Vec<u32>> {
    let mut out = signature_matrix(sets.len(), num_perm, algorithm)?;
    let signer = Signer::new(algorithm, num_perm, seed, version)?;
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
                    minhash_sets(view, 16, 5, threads, algorithm, HashVersion::V2).unwrap()
                );
            }
            assert_eq!(
                simhash_texts(&texts, 128, false, 3, Unit::Word, threads, HashVersion::V2).unwrap(),
                simhash_sets(view, 128, threads).unwrap()
            );
        }
    }

    #[test]
    fn one_pass_signing_equals_sets_then_signatures() {
        let texts: Vec<String> = (0..1100)
            .map(|i| match i % 5 {
                0 => String::new(),
                1 => format!("w{} a b c d e f g", i / 3),
                2 => "Ünïcödé 中文字 text, with NFD e\u{301} here".repeat(i % 4 + 1),
                _ => format!("doc {i} has some words in it, doc {i}"),
            })
            .collect();
        let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
        for version in [HashVersion::V1, HashVersion::V2] {
            let sets = ShingleSets::build(&texts, 3, Unit::Word, version).unwrap();
            let view = SetsView::new(&sets.offsets, &sets.hashes).unwrap();
            for algorithm in [Algorithm::Classic, Algorithm::Oph] {
                let want = minhash_sets(view, 16, 9, 1, algorithm, version).unwrap();
                for threads in [1, 2] {
                    // Not kept, kept in a vector, in a buffer with room, in one without.
                    for case in 0..4 {
                        let mut buffer =
                            vec![0u64; if case == 2 { sets.hashes.len() + 3 } else { 40 }];
                        let keep = match case {
                            0 => KeptSets::Not,
                            1 => KeptSets::Own,
                            _ => KeptSets::Into(&mut buffer),
                        };
                        let got = sign_texts(
                            &texts,
                            3,
                            Unit::Word,
                            version,
                            16,
                            9,
                            algorithm,
                            threads,
                            keep,
                        )
                        .unwrap();
                        assert_eq!(got.signatures, want);
                        assert_eq!(got.offsets, sets.offsets);
                        let in_buffer = case == 2;
                        assert_eq!(got.hashes.is_some(), case != 0 && !in_buffer);
                        if let Some(hashes) = &got.hashes {
                            assert_eq!(hashes, &sets.hashes);
                        }
                        if in_buffer {
                            assert_eq!(buffer[..sets.hashes.len()], sets.hashes[..]);
                        }
                        for i in 0..texts.len() {
                            assert_eq!(got.digests[2 * i..2 * i + 2], set_digest(view.get(i)));
                        }
                    }
                }
            }
        }
        // Equal sets, equal digests; the empty set is (0, 0).
        let got = sign_texts(
            &["a b a b", "b a b a b", ""],
            1,
            Unit::Word,
            HashVersion::V2,
            4,
            0,
            Algorithm::Classic,
            1,
            KeptSets::Not,
        )
        .unwrap();
        assert_eq!(got.digests[0..2], got.digests[2..4]);
        assert_eq!(got.digests[4..6], [0, 0]);
        // k, num_perm and threads of zero are refused, each alone
        let sign = |k, num_perm, threads| {
            sign_texts(
                &["a"],
                k,
                Unit::Word,
                HashVersion::V2,
                num_perm,
                0,
                Algorithm::Classic,
                threads,
                KeptSets::Not,
            )
        };
        assert!(sign(1, 4, 1).is_ok());
        assert!(sign(0, 4, 1).is_err());
        assert!(sign(1, 0, 1).is_err());
        assert!(sign(1, 4, 0).is_err());
    }

    #[test]
    fn unsorted_digests_equal_sorted_ones_whatever_the_hashes() {
        let mut digester = UnsortedDigest::default();
        let mut state = 5u64;
        for len in [1usize, 2, 17, 300, 5000] {
            // Uniform hashes with repeats; hashes sharing their top bits (the table's probes
            // grow past the limit: the sort takes over); a zero hash among them.
            for kind in 0..3 {
                let hashes: Vec<u64> = (0..len)
                    .map(|i| {
                        state = crate::hashing::mix64(state.wrapping_add(i as u64));
                        match kind {
                            0 => (state % (len as u64 / 2 + 1)).wrapping_mul(0x9E37_79B9_7F4A_7C15),
                            1 => state >> 20,
                            _ => state * u64::from(i % 7 != 0),
                        }
                    })
                    .collect();
                let mut set = hashes.clone();
                set.sort_unstable();
                set.dedup();
                assert_eq!(
                    digester.digest(&hashes),
                    (set_digest(&set), set.len()),
                    "len {len} kind {kind}"
                );
            }
        }
        assert_eq!(digester.digest(&[]), ([0, 0], 0));
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
                minhash_sets(view, num_perm, 0, 1, classic, HashVersion::V2),
                Err(Error::Resource(_))
            ));
            assert!(matches!(
                minhash_sets(view, num_perm, 0, 1, Algorithm::Oph, HashVersion::V2),
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
                Algorithm::Classic,
                HashVersion::V2
            ),
            Err(Error::InvalidArgument(_))
        ));
    }
}
