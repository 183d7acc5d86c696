//! Signing drivers: MinHash signatures and SimHash fingerprints of every document (texts
//! shingled on the fly, or precomputed shingle sets), on one thread or several.

use crate::boilerplate::Dropped;
use crate::error::{filled_vec, matrix_len, probe_allocation, reserve, Error, Result};
use crate::hashing::HashVersion;
use crate::minhash::{Algorithm, Signer};
use crate::parallel::{copy_concat, for_row_blocks, map_blocks};
use crate::rows::prefetch_bytes;
use crate::shingle::{SetsView, Shingler, Unit};
use crate::simhash;

mod digest;

use digest::UnsortedDigest;
pub use digest::{set_digest, set_digests};

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

/// What the sign pass of a batch needs, from one pass over its texts ([`sign_texts`], or
/// [`simhash_sign_texts`] with `W = u64`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedTexts<W = u32> {
    /// Row-major `n * width` signatures of the shingle sets: MinHash (`num_perm` u32 slots)
    /// or SimHash (`bits / 64` u64 words).
    pub signatures: Vec<W>,
    /// `n * 2`: the [`set_digest`] of each document's shingle set.
    pub digests: Vec<u64>,
    /// `n + 1` offsets of the sets (their sizes whether or not the sets are kept).
    pub offsets: Vec<i64>,
    /// The sorted, duplicate-free sets themselves (`offsets` index them), when kept and not
    /// written into the caller's buffer.
    pub hashes: Option<Vec<u64>>,
    /// `n` sizes of the sets before the boilerplate shingles were stripped from them (empty
    /// when nothing was stripped; `offsets` give the sizes after).
    pub before: Vec<i64>,
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

/// How [`sign_rows`] signs each document: `width` words per document.
trait RowSigner: Sync {
    type Word: Copy + Default + Send;
    /// Per-thread scratch state.
    type State: Default;
    /// Words per document.
    fn width(&self) -> usize;
    /// Signs one document: its sorted, duplicate-free set, or (`sorted` false) its shingle
    /// hashes in any order with repeats; the same words either way.
    fn sign(&self, hashes: &[u64], sorted: bool, out: &mut [Self::Word], state: &mut Self::State);
}

/// MinHash signatures: a signature is a minimum, blind to order and repeats.
struct MinHashRows(Signer, usize);

impl RowSigner for MinHashRows {
    type Word = u32;
    type State = Vec<bool>;
    fn width(&self) -> usize {
        self.1
    }
    fn sign(&self, hashes: &[u64], _: bool, out: &mut [u32], bins: &mut Vec<bool>) {
        self.0.sign(hashes, out, bins);
    }
}

/// Unweighted SimHash fingerprints (every distinct shingle votes once): the bits of
/// [`simhash_sets`], from the sorted set or (unsorted) through a [`simhash::SimHasher`].
struct SimHashRows(usize);

impl RowSigner for SimHashRows {
    type Word = u64;
    type State = simhash::SimHasher;
    fn width(&self) -> usize {
        self.0
    }
    fn sign(&self, hashes: &[u64], sorted: bool, out: &mut [u64], hasher: &mut Self::State) {
        if sorted {
            simhash::fingerprint_sorted_into(hashes, false, out);
        } else {
            hasher.fingerprint_into(hashes, false, out);
        }
    }
}

/// No signature: the sets and digests alone (exact Jaccard, [`set_texts`]).
struct NoRows;

impl RowSigner for NoRows {
    type Word = u32;
    type State = ();
    fn width(&self) -> usize {
        0
    }
    fn sign(&self, _: &[u64], _: bool, _: &mut [u32], _: &mut ()) {}
}

/// Shingle sets, their digests and their MinHash signatures in one pass over the texts: each
/// document is shingled, sorted and de-duplicated once into a scratch buffer, digested and
/// signed while it is in cache, and its set kept as `keep` says (exact verification holds
/// them). Same bits as `ShingleSets::build`, then `set_digest` of each set, then
/// [`minhash_sets`]. With `strip`, the digest is of the whole set (identical documents stay
/// exact copies) and the set signed and kept is the one without the dropped shingles: the
/// bits of `boilerplate::remove_shingles` over the sets, then [`minhash_sets`].
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
    strip: Option<&Dropped>,
) -> Result<SignedTexts> {
    signature_matrix(0, num_perm, algorithm)?; // the checks, before any work
    matrix_len(texts.len(), num_perm, "signatures")?;
    let signer = Signer::new(algorithm, num_perm, seed, version)?;
    sign_rows(
        texts,
        k,
        unit,
        version,
        threads,
        keep,
        strip,
        &MinHashRows(signer, num_perm),
    )
}

/// [`sign_texts`] with unweighted SimHash fingerprints of `bits` (64 or 128) instead of
/// MinHash signatures: same sets, digests and offsets; the fingerprints of
/// [`simhash_sets`] over the sets. The SimHash sign pass writes the sets it keeps straight
/// into the caller's buffer too, instead of a new vector per batch copied there after.
#[allow(clippy::too_many_arguments)]
pub fn simhash_sign_texts(
    texts: &[&str],
    k: usize,
    unit: Unit,
    version: HashVersion,
    bits: usize,
    threads: usize,
    keep: KeptSets<'_>,
    strip: Option<&Dropped>,
) -> Result<SignedTexts<u64>> {
    let words = simhash::words_for(bits)?;
    matrix_len(texts.len(), words, "fingerprints")?;
    let signer = SimHashRows(words);
    sign_rows(texts, k, unit, version, threads, keep, strip, &signer)
}

/// [`sign_texts`] without signatures (`signatures` empty): the sets, their digests and
/// offsets, for exact Jaccard.
pub fn set_texts(
    texts: &[&str],
    k: usize,
    unit: Unit,
    version: HashVersion,
    threads: usize,
    keep: KeptSets<'_>,
    strip: Option<&Dropped>,
) -> Result<SignedTexts> {
    sign_rows(texts, k, unit, version, threads, keep, strip, &NoRows)
}

/// The one pass of [`sign_texts`], [`simhash_sign_texts`] and [`set_texts`], signing each
/// document with `signer`, after stripping the `strip` shingles from its set.
#[allow(clippy::too_many_arguments)]
fn sign_rows<S: RowSigner>(
    texts: &[&str],
    k: usize,
    unit: Unit,
    version: HashVersion,
    threads: usize,
    keep: KeptSets<'_>,
    strip: Option<&Dropped>,
    signer: &S,
) -> Result<SignedTexts<S::Word>> {
    let width = signer.width();
    Shingler::new(k, unit, version)?;
    let keep_sets = !matches!(keep, KeptSets::Not);
    let block =
        |rows: std::ops::Range<usize>, mut sink: Sink<'_>| -> Result<SignedTexts<S::Word>> {
            let mut shingler = Shingler::new(k, unit, version).expect("k was checked");
            let mut block = SignedTexts {
                signatures: filled_vec(rows.len() * width, S::Word::default(), "signatures")?,
                digests: filled_vec(rows.len() * 2, 0, "set digests")?,
                offsets: Vec::new(),
                hashes: None,
                before: Vec::new(),
            };
            reserve(&mut block.offsets, rows.len(), "set offsets")?;
            if strip.is_some() {
                reserve(&mut block.before, rows.len(), "set sizes")?;
            }
            let mut scratch = Vec::new();
            let mut state = S::State::default();
            let mut digester = UnsortedDigest::default();
            let mut total = 0i64;
            for (row, i) in rows.enumerate() {
                prefetch_next(texts, i);
                scratch.clear();
                let digest = &mut block.digests[2 * row..2 * row + 2];
                // Stripping looks the set's distinct shingles up: it is sorted first.
                let sorted = !matches!(sink, Sink::Drop) || strip.is_some();
                let size = if !sorted {
                    // Sets not kept: digested and signed unsorted, repeats and all; no sort at all.
                    shingler.hashes_into(texts[i], &mut scratch);
                    let (set, size) = digester.digest(&scratch);
                    digest.copy_from_slice(&set);
                    size
                } else {
                    shingler.append_set(texts[i], &mut scratch);
                    digest.copy_from_slice(&set_digest(&scratch));
                    if let Some(dropped) = strip {
                        block.before.push(scratch.len() as i64);
                        dropped.strip(&mut scratch);
                    }
                    sink.put(&scratch);
                    scratch.len()
                };
                let signature = &mut block.signatures[row * width..(row + 1) * width];
                signer.sign(&scratch, sorted, signature, &mut state);
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
            join_blocks(blocks, texts.len(), width)
        }
        keep => {
            let blocks = map_blocks(texts.len(), threads, |rows| {
                block(rows.clone(), new_sink(&rows)?)
            })?;
            let mut blocks: Vec<SignedTexts<S::Word>> =
                blocks.into_iter().collect::<Result<_>>()?;
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
            join_blocks(blocks.into_iter().map(Ok).collect(), texts.len(), width)
        }
    }
}

/// The blocks of [`sign_texts`] as one [`SignedTexts`] (moved, not copied, when there is one).
fn join_blocks<W: Copy>(
    blocks: Vec<Result<SignedTexts<W>>>,
    n: usize,
    num_perm: usize,
) -> Result<SignedTexts<W>> {
    let blocks: Vec<SignedTexts<W>> = blocks.into_iter().collect::<Result<_>>()?;
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
        before: Vec::new(),
    };
    reserve(&mut joined.signatures, n * num_perm, "signatures")?;
    reserve(&mut joined.digests, n * 2, "set digests")?;
    if blocks.iter().any(|b| !b.before.is_empty()) {
        reserve(&mut joined.before, n, "set sizes")?;
    }
    if let Some(hashes) = joined.hashes.as_mut() {
        reserve(hashes, base as usize, "shingle sets")?;
    }
    for block in blocks {
        joined.signatures.extend_from_slice(&block.signatures);
        joined.digests.extend_from_slice(&block.digests);
        joined.before.extend_from_slice(&block.before);
        if let (Some(all), Some(part)) = (joined.hashes.as_mut(), block.hashes) {
            all.extend_from_slice(&part);
        }
    }
    Ok(joined)
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
mod tests;
