//! The sign pass of a run, batch after batch: each batch's texts shingled, digested and
//! signed in one call ([`crate::signing`]), exact copies collapsed ([`Collapse`]), and the
//! unique documents' shingle sets kept where exact verification will want them: held in
//! memory while they fit the budget (written straight into the held buffer by the signing
//! call, then compacted in place), else appended to the [`SetSpill`] file, else dropped when
//! only an estimate is wanted. The boilerplate shingles of the run, when it strips them, are
//! taken out of each set after its digest, before it is signed and kept (their counts kept for
//! the run's statistics); exact Jaccard keeps the sets unsigned; the SHA-256 methods key each
//! document by its SHA-256 alone, without sets.

use crate::boilerplate::Dropped;
use crate::collapse::{Collapse, SignedRows};
use crate::error::{filled_vec, reserve_amortized, Error, Result};
use crate::exact::sha256_digests;
use crate::hashing::HashVersion;
use crate::minhash::Algorithm;
use crate::rows::{gather_rows, gather_rows_in_place};
use crate::shingle::Unit;
use crate::signing::{self, KeptSets};
use crate::spill::SetSpill;

/// Hashes of the scratch buffer a spilling pass signs each batch's sets into (64 MB, reused;
/// a larger batch gets a vector of its own).
pub const SCRATCH_HASHES: usize = 1 << 23;

/// What the one signing call of a batch computes besides the sets and digests.
#[derive(Clone, Copy, Debug)]
pub enum Signature {
    MinHash {
        num_perm: usize,
        seed: u64,
        algorithm: Algorithm,
    },
    SimHash {
        bits: usize,
    },
    /// Nothing: the sets and their digests alone (exact Jaccard).
    None,
}

/// What a batch's documents are keyed (and signed) by.
#[derive(Clone, Copy, Debug)]
pub enum Method {
    /// Their shingle sets: a set's digest is the exact-copy key, and the set (without the
    /// boilerplate shingles, when the pass strips them) is signed and kept.
    Shingles(Signature),
    /// The SHA-256 of each document's bytes, or of its normalised text (`normalized`): the
    /// exact-copy key alone, no sets (the SHA-256 methods).
    Sha256 { normalized: bool },
}

/// How a batch of texts is shingled and signed (the plan's options, checked once by it).
#[derive(Clone, Copy, Debug)]
pub struct SignOptions {
    pub k: usize,
    pub unit: Unit,
    pub version: HashVersion,
    pub threads: usize,
    pub method: Method,
    /// Count each document's characters (the `longest` keep policy's measure).
    pub count_chars: bool,
}

/// Per document read, its set size before the boilerplate shingles were stripped and how
/// many were (the run's boilerplate statistics).
#[derive(Debug, Default)]
pub struct StripCounts {
    pub sizes: Vec<i64>,
    pub removed: Vec<i64>,
}

/// Which unique documents' sets the pass keeps for exact verification, and the memory it may
/// hold them in.
#[derive(Clone, Copy, Debug)]
pub struct SetPolicy {
    /// Hold sets at all (exact verification, or a method that may brute-force).
    pub hold: bool,
    /// While there are at most this many unique documents, their sets are held whatever the
    /// budget (exact Jaccard: all; `auto`: its brute-force limit; else 0).
    pub needed_up_to: usize,
    /// Past the budget, the sets go to the spill file (exact verification); else they are
    /// dropped (an estimate needs none).
    pub spill_past_budget: bool,
    /// Only the estimate verifies: sets are held only while needed.
    pub estimate_only: bool,
    /// Hashes the held sets may take before the pass spills or drops them.
    pub budget: usize,
}

/// Where the unique documents' sets are going.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Keeping {
    Held,
    Spilled,
    Dropped,
}

/// One batch's sets as the keep step sees them: CSR offsets and where its hashes are.
#[derive(Clone, Copy)]
enum BatchSets<'a> {
    /// In the held buffer, from the first free slot on (written there by the signing call).
    InHeld,
    /// In the scratch buffer, from its start.
    InScratch,
    /// Anywhere else.
    Slice(&'a [u64]),
}

/// The sign pass; see the module documentation.
pub struct SignPass {
    options: SignOptions,
    policy: SetPolicy,
    /// First exact duplicates, and the unique documents' digests, set sizes and signatures.
    pub collapse: Collapse,
    keeping: Keeping,
    /// The held sets, front to back, then zeroed room (allocated zeroed, so untouched pages
    /// cost no memory).
    held: Vec<u64>,
    used: usize,
    /// How far into `held` the pages were populated ahead of the writes ([`populate`]).
    populated: usize,
    scratch: Vec<u64>,
    /// Each document's partition key, XORed into its digest (empty: no partitions), so a copy
    /// only of another partition's document is never found.
    salts: Vec<u64>,
    /// The boilerplate shingles stripped from every set before it is signed and kept.
    strip: Option<Dropped>,
    /// What stripping removed (None: nothing is stripped).
    pub stripped: Option<StripCounts>,
}

/// A zeroed vector of `len` hashes, or an error: the allocator's zeroed memory (`calloc`: a
/// large block is fresh pages the kernel zeroes at their first touch), so the room never
/// written costs no memory and no time. Writing the zeros (`filled_vec`) touched the whole
/// budget at every run: 8 % of SimHash's sign pass at 100,000 article documents.
fn zeroed(len: usize, what: &str) -> Result<Vec<u64>> {
    if len == 0 {
        return Ok(Vec::new());
    }
    let layout =
        std::alloc::Layout::array::<u64>(len).map_err(|_| Error::resource(what, len, 8))?;
    // SAFETY: `layout` has a non-zero size (len > 0). A non-null pointer from `alloc_zeroed` is
    // a block of the global allocator with exactly that layout (size len * 8, u64's
    // alignment), all zero bytes, which are valid u64s; the Vec takes ownership of it with
    // length and capacity `len`, and frees it with the same layout.
    unsafe {
        let block = std::alloc::alloc_zeroed(layout) as *mut u64;
        if block.is_null() {
            return Err(Error::resource(what, len, 8));
        }
        Ok(Vec::from_raw_parts(block, len, len))
    }
}

/// [`zeroed`], on small pages where the system would give huge ones. The held sets are
/// written once, front to back: each huge page's first touch zeroes 2 MB taken from the
/// kernel's free blocks, often memory a virtual machine's host has not backed yet (SimHash on
/// 200,000 article documents spent 1.1 s in the kernel with huge pages, 0.3 s with small
/// ones; docs/performance.md).
fn zeroed_small_pages(len: usize, what: &str) -> Result<Vec<u64>> {
    #[allow(unused_mut)] // advised on Linux only
    let mut buffer = zeroed(len, what)?;
    #[cfg(target_os = "linux")]
    advise_pages(&mut buffer, libc::MADV_NOHUGEPAGE);
    Ok(buffer)
}

/// The most hashes of the held buffer populated ahead of a batch's writes (32 MB): a batch of
/// the default 8,192 documents of a few KB each fits, and a guess that overshoots costs at
/// most this much memory.
const POPULATE_AHEAD: usize = 1 << 22;

/// Asks the kernel to back `room`'s whole pages with memory now, in one call
/// (`MADV_POPULATE_WRITE`, Linux 5.14), instead of one page fault at each page's first write:
/// the held sets are written front to back, a page at a time, and on a virtual machine each
/// fault is a trap the host sees too. The contents are unchanged (zeros stay zeros); where
/// the call is not supported, the pages fault in as before.
fn populate(room: &mut [u64]) {
    #[cfg(target_os = "linux")]
    advise_pages(room, libc::MADV_POPULATE_WRITE);
    #[cfg(not(target_os = "linux"))]
    let _ = room;
}

/// `madvise(advice)` over the whole pages inside `room`.
#[cfg(target_os = "linux")]
fn advise_pages(room: &mut [u64], advice: libc::c_int) {
    const PAGE: usize = 4096;
    let start = (room.as_ptr() as usize).div_ceil(PAGE) * PAGE;
    let end = (room.as_ptr() as usize + room.len() * 8) / PAGE * PAGE;
    if end > start {
        // SAFETY: [start, end) holds whole pages inside `room`, which the caller borrows
        // mutably (nothing else reads or writes them meanwhile). The advices given here,
        // MADV_NOHUGEPAGE (how the kernel backs the pages) and MADV_POPULATE_WRITE (backed
        // now), change neither the contents nor the mapping, and a failure (an older kernel)
        // leaves the pages as they were.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, advice);
        }
    }
}

fn as_i64(rows: &[usize]) -> Vec<i64> {
    rows.iter().map(|&row| row as i64).collect()
}

impl SignPass {
    /// A pass that signs texts with `options` and keeps sets by `policy`, the shingles `drop`
    /// (any order; none: nothing stripped) stripped from every set first.
    pub fn new(
        options: SignOptions,
        policy: SetPolicy,
        salts: Vec<u64>,
        drop: &[u64],
    ) -> Result<Self> {
        let strip = if drop.is_empty() {
            None
        } else {
            Some(Dropped::new(drop)?)
        };
        Ok(SignPass {
            options,
            policy,
            collapse: Collapse::new(),
            keeping: if policy.hold {
                Keeping::Held
            } else {
                Keeping::Dropped
            },
            held: Vec::new(),
            used: 0,
            populated: 0,
            scratch: Vec::new(),
            salts,
            stripped: strip.as_ref().map(|_| StripCounts::default()),
            strip,
        })
    }

    /// XORs the partition keys of the next `digests.len() / 2` documents into their digests.
    fn salt(&self, digests: &mut [u64]) -> Result<()> {
        if self.salts.is_empty() {
            return Ok(());
        }
        let start = self.collapse.len();
        let n = digests.len() / 2;
        let salts = self.salts.get(start..start + n).ok_or_else(|| {
            Error::new(format!(
                "{} partition keys for documents up to {}",
                self.salts.len(),
                start + n
            ))
        })?;
        for (pair, &salt) in digests.chunks_exact_mut(2).zip(salts) {
            pair[0] ^= salt;
            pair[1] ^= salt;
        }
        Ok(())
    }

    /// Whether the sets go to the spill file (its `finish` comes after the pass).
    pub fn spilled(&self) -> bool {
        self.keeping == Keeping::Spilled
    }

    /// Whether the sets of every unique document are held ([`SignPass::take_held`]).
    pub fn held(&self) -> bool {
        self.keeping == Keeping::Held
    }

    /// Shingles, digests and signs the next batch in one call (its sets stripped of the
    /// boilerplate shingles first, when the pass has them; the SHA-256 methods: digests
    /// alone), collapses its exact copies (within partitions, when the pass has their keys)
    /// and keeps its unique documents' sets; counts their characters when the options say.
    pub fn sign(&mut self, texts: &[&str], spill: &mut SetSpill) -> Result<()> {
        let options = self.options;
        let lengths = match options.count_chars {
            true => crate::keep::char_counts(texts)?,
            false => Vec::new(),
        };
        let lengths = &lengths[..];
        let signature = match options.method {
            Method::Shingles(signature) => signature,
            Method::Sha256 { normalized } => {
                return self.sign_sha256(texts, lengths, normalized, options)
            }
        };
        let where_to = match self.keeping {
            Keeping::Held => {
                if self.held.len() < self.policy.budget {
                    self.grow_held(self.policy.budget)?;
                }
                // The batch's sets, about one hash per six bytes of text (a word and its
                // separator), are written here next: their pages populated in one call, at
                // most POPULATE_AHEAD hashes of them (text with few words would otherwise
                // leave pages populated and never written, resident until the run ends).
                let expected = texts.iter().map(|t| t.len() / 6).sum::<usize>();
                let ahead = (self.used + expected.min(POPULATE_AHEAD)).min(self.held.len());
                if ahead > self.populated {
                    populate(&mut self.held[self.populated..ahead]);
                    self.populated = ahead;
                }
                BatchSets::InHeld
            }
            Keeping::Spilled => {
                if self.scratch.is_empty() {
                    self.scratch = zeroed(SCRATCH_HASHES, "the spill's scratch buffer")?;
                }
                BatchSets::InScratch
            }
            Keeping::Dropped => BatchSets::Slice(&[]),
        };
        let keep = match where_to {
            BatchSets::InHeld => KeptSets::Into(&mut self.held[self.used..]),
            BatchSets::InScratch => KeptSets::Into(&mut self.scratch[..]),
            BatchSets::Slice(_) => KeptSets::Not,
        };
        let o = options;
        let strip = self.strip.as_ref();
        let (signatures, mut digests, offsets, own, before) = match signature {
            Signature::MinHash {
                num_perm,
                seed,
                algorithm,
            } => Sig::parts(
                signing::sign_texts(
                    texts, o.k, o.unit, o.version, num_perm, seed, algorithm, o.threads, keep,
                    strip,
                )?,
                Sig::MinHash,
            ),
            Signature::SimHash { bits } => Sig::parts(
                signing::simhash_sign_texts(
                    texts, o.k, o.unit, o.version, bits, o.threads, keep, strip,
                )?,
                Sig::SimHash,
            ),
            Signature::None => Sig::parts(
                signing::set_texts(texts, o.k, o.unit, o.version, o.threads, keep, strip)?,
                |_| Sig::None,
            ),
        };
        self.salt(&mut digests)?;
        // Sizes after stripping: a document with shingles left takes part in the near pairs;
        // one with shingles before may be an exact copy (its digest is of the whole set).
        let sizes: Vec<i64> = offsets.windows(2).map(|w| w[1] - w[0]).collect();
        let live: Vec<bool> = sizes.iter().map(|&size| size > 0).collect();
        let groupable: Vec<bool> = match &self.stripped {
            Some(_) => before.iter().map(|&size| size > 0).collect(),
            None => live.clone(),
        };
        let chosen = self.collapse.add(&SignedRows {
            digests: &digests,
            groupable: &groupable,
            live: &live,
            lengths,
            set_sizes: &sizes,
        })?;
        if let Some(counts) = &mut self.stripped {
            reserve_amortized(&mut counts.sizes, before.len(), "set sizes")?;
            reserve_amortized(&mut counts.removed, before.len(), "stripped counts")?;
            counts.sizes.extend_from_slice(&before);
            let removed = before.iter().zip(&sizes).map(|(&was, &is)| was - is);
            counts.removed.extend(removed);
        }
        match &signatures {
            Sig::MinHash(matrix) => self.collapse.add_minhash(matrix, texts.len(), &chosen)?,
            Sig::SimHash(matrix) => self.collapse.add_simhash(matrix, texts.len(), &chosen)?,
            Sig::None => {}
        }
        let sets = match (&own, where_to) {
            (Some(hashes), _) => BatchSets::Slice(hashes),
            (None, place) => place,
        };
        self.keep(&offsets, sets, &chosen, spill)
    }

    /// The SHA-256 methods' batch: each document's digest (of its bytes, or its normalised
    /// text) the exact-copy key; every document groupable, none with sets.
    fn sign_sha256(
        &mut self,
        texts: &[&str],
        lengths: &[i64],
        normalized: bool,
        o: SignOptions,
    ) -> Result<()> {
        let mut digests = sha256_digests(texts, normalized, o.version, o.threads)?;
        self.salt(&mut digests)?;
        let every = filled_vec(texts.len(), true, "documents")?;
        let none = filled_vec(texts.len(), false, "documents")?;
        self.collapse.add(&SignedRows {
            digests: &digests,
            groupable: &every,
            live: &none,
            lengths,
            set_sizes: &[],
        })?;
        Ok(())
    }

    /// Grows the held buffer to `len` hashes (a zeroed block, the held ones copied over).
    fn grow_held(&mut self, len: usize) -> Result<()> {
        let mut grown = zeroed_small_pages(len, "the held shingle sets")?;
        grown[..self.used].copy_from_slice(&self.held[..self.used]);
        self.held = grown;
        self.populated = self.used;
        Ok(())
    }

    /// Keeps the sets of the batch's new unique documents `chosen` (its rows) by the policy.
    fn keep(
        &mut self,
        offsets: &[i64],
        sets: BatchSets,
        chosen: &[usize],
        spill: &mut SetSpill,
    ) -> Result<()> {
        if chosen.is_empty() || self.keeping == Keeping::Dropped {
            return Ok(());
        }
        let unique = self.collapse.selected.len();
        let before = unique - chosen.len();
        let rows = as_i64(chosen);
        let at: Vec<i64> = (before as i64..unique as i64).collect();
        let total = offsets.last().copied().unwrap_or(0) as usize;
        if self.keeping == Keeping::Spilled {
            let hashes = match sets {
                BatchSets::InScratch => &self.scratch[..total],
                BatchSets::Slice(hashes) => hashes,
                BatchSets::InHeld => unreachable!("nothing is held while spilling"),
            };
            return spill.add(offsets, hashes, &rows, &at);
        }
        let incoming: i64 = chosen
            .iter()
            .map(|&row| offsets[row + 1] - offsets[row])
            .sum();
        let needed = unique <= self.policy.needed_up_to;
        let too_many =
            self.used + incoming as usize > self.policy.budget || self.policy.estimate_only;
        if needed || !too_many {
            let added = match sets {
                BatchSets::InHeld => {
                    gather_rows_in_place(offsets, &rows, &mut self.held[self.used..][..total])?
                }
                BatchSets::Slice(hashes) => {
                    let need = self.used + incoming as usize;
                    if need > self.held.len() {
                        let len = need.max(2 * self.held.len()).max(self.policy.budget);
                        self.grow_held(len)?;
                    }
                    gather_rows(offsets, &rows, hashes, &mut self.held[self.used..])?
                }
                BatchSets::InScratch => unreachable!("the scratch buffer is the spill's"),
            };
            self.used += added;
            return Ok(());
        }
        if self.policy.spill_past_budget {
            // From here on every set goes to the spill: the held ones first, then the batch's.
            let held_offsets = self.held_offsets(before);
            let everyone: Vec<i64> = (0..before as i64).collect();
            spill.add(&held_offsets, &self.held[..self.used], &everyone, &everyone)?;
            let hashes = match sets {
                BatchSets::InHeld => &self.held[self.used..][..total],
                BatchSets::Slice(hashes) => hashes,
                BatchSets::InScratch => unreachable!("the scratch buffer is the spill's"),
            };
            spill.add(offsets, hashes, &rows, &at)?;
            self.keeping = Keeping::Spilled;
        } else {
            self.keeping = Keeping::Dropped;
        }
        self.held = Vec::new();
        self.used = 0;
        self.populated = 0;
        Ok(())
    }

    /// The offsets of the first `n` unique documents' held sets.
    fn held_offsets(&self, n: usize) -> Vec<i64> {
        let mut offsets = Vec::with_capacity(n + 1);
        offsets.push(0);
        let mut at = 0;
        for &size in &self.collapse.set_sizes[..n] {
            at += size;
            offsets.push(at);
        }
        offsets
    }

    /// The held sets of every unique document (offsets, hashes), when they are held; the
    /// buffer's unused room is given back.
    pub fn take_held(&mut self) -> Option<(Vec<i64>, Vec<u64>)> {
        if self.keeping != Keeping::Held {
            return None;
        }
        let offsets = self.held_offsets(self.collapse.selected.len());
        let mut hashes = std::mem::take(&mut self.held);
        self.populated = 0;
        // Truncated, not shrunk: the room past it was never touched, so costs no memory.
        hashes.truncate(self.used);
        self.used = 0;
        Some((offsets, hashes))
    }
}

/// A batch's signatures, of one kind, or none.
enum Sig {
    MinHash(Vec<u32>),
    SimHash(Vec<u64>),
    None,
}

/// A batch's [`signing::SignedTexts`] taken apart: its signatures (as `Sig`), digests, set
/// offsets, the sets when not written into the pass's buffer, and the sizes before stripping.
type BatchParts = (Sig, Vec<u64>, Vec<i64>, Option<Vec<u64>>, Vec<i64>);

impl Sig {
    fn parts<W>(signed: signing::SignedTexts<W>, sig: impl FnOnce(Vec<W>) -> Sig) -> BatchParts {
        let s = signed;
        (sig(s.signatures), s.digests, s.offsets, s.hashes, s.before)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zeroed_buffers_are_zero_and_too_large_ones_an_error() {
        assert!(zeroed(0, "nothing").unwrap().is_empty());
        let small = zeroed(1000, "a few").unwrap();
        assert_eq!(small.len(), 1000);
        assert!(small.iter().all(|&h| h == 0));
        let mut held = zeroed_small_pages(1 << 20, "held").unwrap();
        held[(1 << 20) - 1] = 7;
        assert_eq!(held.iter().sum::<u64>(), 7);
        assert!(matches!(
            zeroed(1 << 58, "too many"),
            Err(Error::Resource(_))
        ));
        assert!(matches!(
            zeroed(usize::MAX / 4, "overflow"),
            Err(Error::Resource(_))
        ));
    }
}
