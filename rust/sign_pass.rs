//! The sign pass of a run, batch after batch: each batch's texts shingled, digested and
//! signed in one call ([`crate::signing`]), exact copies collapsed ([`Collapse`]), and the
//! unique documents' shingle sets kept where exact verification will want them: held in
//! memory while they fit the budget (written straight into the held buffer by the signing
//! call, then compacted in place), else appended to the [`SetSpill`] file, else dropped when
//! only an estimate is wanted. Batches the caller signed itself (boilerplate stripped, the
//! SHA-256 methods, exact Jaccard) come in through [`SignPass::add_signed`] and take the same
//! path from the collapse on.

use crate::collapse::{Collapse, SignedRows};
use crate::error::{Error, Result};
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
}

/// How a batch of texts is shingled and signed (the plan's options, checked once by it).
#[derive(Clone, Copy, Debug)]
pub struct SignOptions {
    pub k: usize,
    pub unit: Unit,
    pub version: HashVersion,
    pub threads: usize,
    pub signature: Signature,
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
    options: Option<SignOptions>,
    policy: SetPolicy,
    /// First exact duplicates, and the unique documents' digests, set sizes and signatures.
    pub collapse: Collapse,
    keeping: Keeping,
    /// The held sets, front to back, then zeroed room (allocated zeroed, so untouched pages
    /// cost no memory).
    held: Vec<u64>,
    used: usize,
    scratch: Vec<u64>,
    /// Each document's partition key, XORed into its digest (empty: no partitions), so a copy
    /// only of another partition's document is never found.
    salts: Vec<u64>,
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
    let buffer = zeroed(len, what)?;
    #[cfg(target_os = "linux")]
    {
        const PAGE: usize = 4096;
        let start = (buffer.as_ptr() as usize).div_ceil(PAGE) * PAGE;
        let end = (buffer.as_ptr() as usize + len * 8) / PAGE * PAGE;
        if end > start {
            // SAFETY: [start, end) holds whole pages inside `buffer`'s own allocation, which
            // lives on; MADV_NOHUGEPAGE only changes how the kernel backs them (no contents,
            // no mapping changed), and a failure (an old kernel) leaves them as they were.
            unsafe {
                libc::madvise(
                    start as *mut libc::c_void,
                    end - start,
                    libc::MADV_NOHUGEPAGE,
                );
            }
        }
    }
    Ok(buffer)
}

fn as_i64(rows: &[usize]) -> Vec<i64> {
    rows.iter().map(|&row| row as i64).collect()
}

impl SignPass {
    /// A pass that signs texts with `options` (None: every batch comes signed, through
    /// [`SignPass::add_signed`]) and keeps sets by `policy`.
    pub fn new(options: Option<SignOptions>, policy: SetPolicy, salts: Vec<u64>) -> Self {
        SignPass {
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
            scratch: Vec::new(),
            salts,
        }
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

    /// Shingles, digests and signs the next batch in one call, collapses its exact copies
    /// (within partitions, when the pass has their keys) and keeps its unique documents'
    /// sets; `lengths` per row, or empty.
    pub fn sign(&mut self, texts: &[&str], lengths: &[i64], spill: &mut SetSpill) -> Result<()> {
        let options = self
            .options
            .ok_or_else(|| Error::new("this sign pass takes signed batches only"))?;
        let where_to = match self.keeping {
            Keeping::Held => {
                if self.held.len() < self.policy.budget {
                    self.grow_held(self.policy.budget)?;
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
        let (signatures, mut digests, offsets, own) = match o.signature {
            Signature::MinHash {
                num_perm,
                seed,
                algorithm,
            } => {
                let s = signing::sign_texts(
                    texts, o.k, o.unit, o.version, num_perm, seed, algorithm, o.threads, keep,
                )?;
                (Sig::MinHash(s.signatures), s.digests, s.offsets, s.hashes)
            }
            Signature::SimHash { bits } => {
                let s = signing::simhash_sign_texts(
                    texts, o.k, o.unit, o.version, bits, o.threads, keep,
                )?;
                (Sig::SimHash(s.signatures), s.digests, s.offsets, s.hashes)
            }
        };
        self.salt(&mut digests)?;
        let sizes: Vec<i64> = offsets.windows(2).map(|w| w[1] - w[0]).collect();
        let live: Vec<bool> = sizes.iter().map(|&size| size > 0).collect();
        let chosen = self.collapse.add(&SignedRows {
            digests: &digests,
            groupable: &live,
            live: &live,
            lengths,
            set_sizes: &sizes,
        })?;
        match &signatures {
            Sig::MinHash(matrix) => self.collapse.add_minhash(matrix, texts.len(), &chosen)?,
            Sig::SimHash(matrix) => self.collapse.add_simhash(matrix, texts.len(), &chosen)?,
        }
        let sets = match (&own, where_to) {
            (Some(hashes), _) => BatchSets::Slice(hashes),
            (None, place) => place,
        };
        self.keep(&offsets, sets, &chosen, spill)
    }

    /// Adds a batch the caller signed (salted here, as `sign` does): as [`Collapse::add`], then
    /// keeps the sets (`offsets`/`hashes`, of every row) of its unique documents; returns
    /// those rows, whose signatures [`Collapse::add_minhash`] expects next.
    pub fn add_signed(
        &mut self,
        batch: &SignedRows,
        sets: Option<(&[i64], &[u64])>,
        spill: &mut SetSpill,
    ) -> Result<Vec<usize>> {
        if self.keeping != Keeping::Dropped
            && batch.set_sizes.is_empty()
            && !batch.groupable.is_empty()
        {
            return Err(Error::new(
                "a batch without set sizes while the pass keeps sets",
            ));
        }
        let mut digests = batch.digests.to_vec();
        self.salt(&mut digests)?;
        let chosen = self.collapse.add(&SignedRows {
            digests: &digests,
            ..*batch
        })?;
        match sets {
            Some((offsets, hashes)) => {
                if offsets.len() != batch.groupable.len() + 1 {
                    return Err(Error::new(format!(
                        "{} set offsets for {} documents",
                        offsets.len(),
                        batch.groupable.len()
                    )));
                }
                self.keep(offsets, BatchSets::Slice(hashes), &chosen, spill)?
            }
            None if self.keeping != Keeping::Dropped && !chosen.is_empty() => {
                return Err(Error::new("a batch without sets while the pass keeps them"));
            }
            None => {}
        }
        Ok(chosen)
    }

    /// Grows the held buffer to `len` hashes (a zeroed block, the held ones copied over).
    fn grow_held(&mut self, len: usize) -> Result<()> {
        let mut grown = zeroed_small_pages(len, "the held shingle sets")?;
        grown[..self.used].copy_from_slice(&self.held[..self.used]);
        self.held = grown;
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
        // Truncated, not shrunk: the room past it was never touched, so costs no memory.
        hashes.truncate(self.used);
        self.used = 0;
        Some((offsets, hashes))
    }
}

/// A batch's signatures, of one kind.
enum Sig {
    MinHash(Vec<u32>),
    SimHash(Vec<u64>),
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
