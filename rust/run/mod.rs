//! A run as one object: the plan's options read once ([`RunPlan`]), the batches of texts
//! signed in input order ([`Run::sign`], the [`sign_pass`](crate::sign_pass)), then
//! [`Run::finish`]: the pass collapsed, the method resolved for the number of unique documents
//! ([`RunPlan::resolve`]), and what the [`near`](crate::near) stage reads ([`Signed::unique`],
//! [`RunPlan::search`]); then [`Decided::keep_and_report`]: the keep policy ([`crate::keep`])
//! and the reported pairs ([`crate::report`]).
//!
//! Everything a run decides from its plan is decided here, once: how the sign pass signs
//! (`auto` signs as MinHash does), which sets it holds or spills, which method runs for the
//! unique documents (`auto`: exact Jaccard up to its limit), the default banding and the
//! SimHash radius, and what the near stage searches with.

use crate::boilerplate::FrequencyCounter;
use crate::error::{Error, Result};
use crate::hashing::HashVersion;
use crate::keep::{self, Kept, Measure, Policy};
use crate::lsh::choose::{self, BUCKET_LIMIT, DEFAULT_RECALL};
use crate::minhash::Algorithm;
use crate::near::{
    MinHashNear, PairsMode, Search, SetSource, Signatures, SimHashNear, Stage, Unique,
};
use crate::report::{self, Mode, RunReport};
use crate::shingle::{SetsView, ShingleSets, Unit};
use crate::sign_pass::{self, SetPolicy, SignOptions, SignPass, Signature, StripCounts};
use crate::spill::SetSpill;

/// A plan's method: `Auto` until the run knows how many unique documents there are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    Auto,
    ExactJaccard,
    MinHash,
    SimHash,
    Sha256,
    Sha256Normalized,
}

impl Method {
    pub fn parse(name: &str) -> Result<Self> {
        Ok(match name {
            "auto" => Method::Auto,
            "exact-jaccard" => Method::ExactJaccard,
            "minhash" => Method::MinHash,
            "simhash" => Method::SimHash,
            "sha256" => Method::Sha256,
            "sha256-normalized" => Method::Sha256Normalized,
            other => {
                return Err(Error::new(format!(
                    "method must be 'auto', 'exact-jaccard', 'minhash', 'simhash', 'sha256' or \
                     'sha256-normalized', not {other:?}"
                )))
            }
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Method::Auto => "auto",
            Method::ExactJaccard => "exact-jaccard",
            Method::MinHash => "minhash",
            Method::SimHash => "simhash",
            Method::Sha256 => "sha256",
            Method::Sha256Normalized => "sha256-normalized",
        }
    }

    /// What the sign pass computes of each document for this method (`Auto` signs as MinHash
    /// does: it cannot know yet whether it will brute-force).
    pub fn signed(
        self,
        num_perm: usize,
        seed: u64,
        algorithm: Algorithm,
        simhash_bits: usize,
    ) -> sign_pass::Method {
        use sign_pass::Method::{Sha256, Shingles};
        match self {
            Method::Auto | Method::MinHash => Shingles(Signature::MinHash {
                num_perm,
                seed,
                algorithm,
            }),
            Method::SimHash => Shingles(Signature::SimHash { bits: simhash_bits }),
            Method::ExactJaccard => Shingles(Signature::None),
            Method::Sha256 => Sha256 { normalized: false },
            Method::Sha256Normalized => Sha256 { normalized: true },
        }
    }

    /// Whether documents are shingled (everything but SHA-256).
    pub fn uses_shingles(self) -> bool {
        !matches!(self, Method::Sha256 | Method::Sha256Normalized)
    }
}

/// The options of one run, checked once by the plan (`neardup.make_plan`) and read here.
#[derive(Clone, Copy, Debug)]
pub struct RunPlan {
    pub method: Method,
    pub threshold: f64,
    pub k: usize,
    pub unit: Unit,
    pub version: HashVersion,
    pub num_perm: usize,
    pub seed: u64,
    pub algorithm: Algorithm,
    pub simhash_bits: usize,
    /// The user's banding (both or neither), else the default chosen by [`RunPlan::resolve`].
    pub bands: Option<usize>,
    pub rows: Option<usize>,
    /// The user's SimHash radius, else the one matching the threshold.
    pub max_hamming: Option<u32>,
    /// Verification by exact Jaccard on the sets (else the signatures' estimate).
    pub exact: bool,
    pub bucket_limit: Option<usize>,
    pub pairs: PairsMode,
    pub spanning_limit: u64,
    pub threads: usize,
    /// `auto` brute-forces exact Jaccard up to this many unique documents.
    pub auto_exact_limit: usize,
    /// Which document of a cluster is kept (`Longest`: the sign pass counts characters).
    pub keep: Policy,
    /// Strip the shingles in more than this share of the documents before signing (the
    /// boilerplate, counted in two passes by [`Run::count_boilerplate`]); None: nothing.
    pub strip: Option<f64>,
}

/// What a plan becomes for a number of unique documents: a method other than `Auto`, with its
/// banding (MinHash) or radius (SimHash).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Resolved {
    pub method: Method,
    pub bands: Option<usize>,
    pub rows: Option<usize>,
    pub max_hamming: Option<u32>,
}

/// The Hamming radius of `bits`-bit SimHash fingerprints matching a Jaccard threshold: for
/// two sets of equal size with Jaccard J the cosine of their indicator vectors is 2J / (1 + J),
/// and a bit differs with probability arccos(cosine) / π (Charikar).
pub fn simhash_radius(threshold: f64, bits: usize) -> u32 {
    let cosine = (2.0 * threshold / (1.0 + threshold)).min(1.0);
    (bits as f64 * cosine.acos() / std::f64::consts::PI).floor() as u32
}

impl RunPlan {
    /// The plan for `unique` documents: `auto` becomes exact Jaccard up to its limit, else
    /// MinHash; MinHash without a given banding takes the default one (the recall-first rule
    /// with exact verification, the classic one with the estimate; a run refines it on a
    /// sample of its signatures), SimHash without a radius the one matching the threshold.
    pub fn resolve(&self, unique: usize) -> Result<Resolved> {
        let method = match self.method {
            Method::Auto if unique <= self.auto_exact_limit => Method::ExactJaccard,
            Method::Auto => Method::MinHash,
            method => method,
        };
        let mut resolved = Resolved {
            method,
            bands: self.bands,
            rows: self.rows,
            max_hamming: self.max_hamming,
        };
        if method == Method::MinHash && self.bands.is_none() {
            let chosen = choose::choose(
                self.threshold,
                self.num_perm,
                self.exact,
                DEFAULT_RECALL,
                Some(BUCKET_LIMIT),
                None,
            )?;
            (resolved.bands, resolved.rows) = (Some(chosen.bands), Some(chosen.rows));
        }
        if method == Method::SimHash && self.max_hamming.is_none() {
            resolved.max_hamming = Some(simhash_radius(self.threshold, self.simhash_bits));
        }
        Ok(resolved)
    }

    /// How the sign pass shingles and signs each batch.
    fn sign_options(&self) -> SignOptions {
        SignOptions {
            k: self.k,
            unit: self.unit,
            version: self.version,
            threads: self.threads,
            method: self
                .method
                .signed(self.num_perm, self.seed, self.algorithm, self.simhash_bits),
            count_chars: self.keep == Policy::Longest,
        }
    }

    /// Which unique documents' sets the sign pass keeps: every one while exact Jaccard needs
    /// them all (exact Jaccard; `auto` up to its limit), else while they fit `budget` hashes;
    /// past it, for exact verification, in the spill file (read back instead of a second pass
    /// over the store). An estimate needs none.
    fn set_policy(&self, budget: usize) -> SetPolicy {
        let shingled = self.method.uses_shingles();
        let brute_force = matches!(self.method, Method::Auto | Method::ExactJaccard);
        SetPolicy {
            hold: shingled && (self.exact || brute_force),
            needed_up_to: match self.method {
                Method::ExactJaccard => 1 << 62,
                Method::Auto => self.auto_exact_limit,
                _ => 0,
            },
            spill_past_budget: self.exact,
            estimate_only: !self.exact,
            budget,
        }
    }

    /// The near stage's search for the resolved plan; `verify_budget` shingles of the
    /// candidates' sets are read back from a spill at once (past it, in chunks).
    pub fn search(&self, resolved: &Resolved, verify_budget: u64) -> Search {
        match resolved.method {
            Method::Sha256 | Method::Sha256Normalized => Search::Copies,
            Method::Auto | Method::ExactJaccard => Search::ExactJaccard {
                threshold: self.threshold,
            },
            Method::MinHash => Search::MinHash {
                near: MinHashNear {
                    bands: resolved.bands.unwrap_or(1),
                    rows: resolved.rows.unwrap_or(1),
                    threshold: self.threshold,
                    bucket_limit: self.bucket_limit,
                    pairs: self.pairs,
                    spanning_limit: self.spanning_limit,
                    exact: self.exact,
                    screen: self.algorithm == Algorithm::Classic,
                    threads: self.threads,
                    verify_budget,
                },
                given: self.bands.is_some(),
            },
            Method::SimHash => Search::SimHash {
                near: SimHashNear {
                    max_distance: resolved.max_hamming.unwrap_or(0),
                    bits: self.simhash_bits,
                    threshold: self.threshold,
                    threads: self.threads,
                    verify_budget,
                },
                exact: self.exact,
            },
        }
    }
}

/// The unique documents' signatures the sign pass left, row-major.
pub enum SignatureRows {
    None,
    MinHash { slots: Vec<u32>, width: usize },
    SimHash { words: Vec<u64>, width: usize },
}

/// What the sign pass left, collapsed, and the plan resolved for it.
pub struct Signed {
    pub resolved: Resolved,
    /// Every document's first exact duplicate (input positions).
    pub first: Vec<i64>,
    /// Every document's flag: it has no shingles (never grouped).
    pub empty: Vec<bool>,
    /// Every document's characters (zeros unless the plan counts them).
    pub lengths: Vec<i64>,
    /// The unique documents with shingles, increasing positions.
    pub selected: Vec<i64>,
    pub digests: Vec<u64>,
    /// Their shingle counts (empty for the methods that choose no banding or search plan).
    pub set_sizes: Vec<i64>,
    pub shingled: u64,
    pub signatures: SignatureRows,
    /// Every unique document's set, held (offsets, hashes); None when spilled or dropped.
    pub held: Option<(Vec<i64>, Vec<u64>)>,
    /// Whether the sets went to the spill file (finished for `selected.len()` documents).
    pub spilled: bool,
    /// Per document, its set size before the boilerplate was stripped and the shingles
    /// stripped (None: nothing is stripped).
    pub stripped: Option<StripCounts>,
    /// The distinct boilerplate shingles stripped.
    pub dropped: usize,
    /// One partition key per unique document (None: one partition).
    pub partitions: Option<Vec<u64>>,
}

impl Signed {
    /// What the near stage reads, borrowed: the sets come from what the pass held, else from
    /// `spill`, and only when the resolved method verifies on them.
    pub fn unique<'a>(&'a mut self, spill: &'a SetSpill, exact: bool) -> Result<Unique<'a>> {
        let verifies_on_sets = exact || self.resolved.method == Method::ExactJaccard;
        let sets = match (&self.held, self.spilled) {
            _ if !verifies_on_sets => None,
            (Some((offsets, hashes)), _) => {
                Some(SetSource::Held(SetsView::of_sorted_sets(offsets, hashes)?))
            }
            (None, true) => Some(SetSource::Spilled(spill)),
            (None, false) => None,
        };
        let signatures = match &mut self.signatures {
            SignatureRows::None => Signatures::None,
            SignatureRows::MinHash { slots, width } => Signatures::MinHash {
                slots,
                width: *width,
            },
            SignatureRows::SimHash { words, width } => Signatures::SimHash {
                words,
                width: *width,
            },
        };
        Ok(Unique {
            first: &self.first,
            selected: &self.selected,
            digests: &self.digests,
            set_sizes: &self.set_sizes,
            shingled: self.shingled,
            signatures,
            sets,
            partitions: self.partitions.as_deref(),
        })
    }
}

/// What the near stage decided, kept for the keep policy and the report: every document's
/// `first` exact copy and cluster `labels`, the near `pairs` among the unique documents
/// (indices into `selected`) with their `similarity`, and whether a spanning forest was searched.
pub struct Decided {
    first: Vec<i64>,
    selected: Vec<i64>,
    labels: Vec<i64>,
    pairs: Vec<(u32, u32)>,
    similarity: Vec<f32>,
    spanning: bool,
}

/// The kept documents (`kept`: keep, representative) and the pairs reported (None when the
/// run was asked for none).
pub struct Outcome {
    pub kept: Kept,
    pub report: Option<RunReport>,
}

impl Decided {
    /// What `signed` (whose `first` and `selected` it takes) and `stage` decided.
    pub fn new(signed: &mut Signed, stage: &Stage) -> Self {
        Decided {
            first: std::mem::take(&mut signed.first),
            selected: std::mem::take(&mut signed.selected),
            labels: stage.labels.clone(),
            pairs: stage.verified.pairs.clone(),
            similarity: stage.verified.similarity.clone(),
            spanning: stage.spanning,
        }
    }

    /// The document the plan's keep policy keeps of each cluster (`measure`: one number per
    /// document for `longest` and `priority`) and, when `report`, the pairs the run reports:
    /// as asked, or spanning where the search chose a spanning forest or `auto` passed its
    /// limit; more than `max_pairs` of all pairs is an error.
    pub fn keep_and_report(
        &self,
        plan: &RunPlan,
        measure: Option<Measure<'_>>,
        report: bool,
        max_pairs: u64,
    ) -> Result<Outcome> {
        let kept = keep::keep(&self.labels, plan.keep, measure)?;
        if !report {
            return Ok(Outcome { kept, report: None });
        }
        let mut positions = Vec::new();
        crate::error::reserve(&mut positions, 2 * self.pairs.len(), "the reported pairs")?;
        let position = |row: u32| {
            let at = self.selected.get(row as usize).copied();
            at.ok_or_else(|| Error::new(format!("pair row {row} past the unique documents")))
        };
        for &(a, b) in &self.pairs {
            positions.push(position(a)?);
            positions.push(position(b)?);
        }
        let asked = match plan.pairs {
            PairsMode::Auto => None,
            PairsMode::All => Some(Mode::All),
            PairsMode::Spanning => Some(Mode::Spanning),
        };
        let report = report::run_report(
            &self.first,
            &positions,
            &self.similarity,
            asked,
            self.spanning,
            plan.spanning_limit,
            max_pairs,
        )?;
        Ok(Outcome {
            kept,
            report: Some(report),
        })
    }
}

/// One run's sign pass and the plan it was made from.
pub struct Run {
    plan: RunPlan,
    /// Made at the first batch signed, once the boilerplate (if any) is known.
    pass: Option<SignPass>,
    /// The boilerplate's two counting passes (the plan strips some), until the first batch
    /// is signed.
    counter: Option<FrequencyCounter>,
    /// The distinct shingles the pass strips.
    dropped: usize,
    /// Each document's partition key (empty: one partition).
    salts: Vec<u64>,
    /// Hashes of sets the pass may hold before it spills or drops them.
    budget: usize,
}

impl Run {
    /// A run of `plan` whose documents carry the partition keys `salts` (empty: none), holding
    /// at most `budget` hashes of sets before it spills (exact verification) or drops them.
    pub fn new(plan: RunPlan, salts: Vec<u64>, budget: usize) -> Result<Self> {
        let counter = match plan.strip {
            Some(max_df) if plan.method.uses_shingles() => Some(FrequencyCounter::new(max_df)?),
            _ => None,
        };
        Ok(Run {
            plan,
            pass: None,
            counter,
            dropped: 0,
            salts,
            budget,
        })
    }

    pub fn plan(&self) -> &RunPlan {
        &self.plan
    }

    /// Documents signed so far.
    pub fn len(&self) -> usize {
        self.pass.as_ref().map_or(0, |pass| pass.collapse.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Counts the boilerplate in the next batch: pass 1 (`second` false) keeps the shingles
    /// frequent within the batch, pass 2 counts those over every batch again. Both passes see
    /// every batch, in order, before the first is signed.
    pub fn count_boilerplate(&mut self, texts: &[&str], second: bool) -> Result<()> {
        let plan = &self.plan;
        let Some(counter) = self.counter.as_mut().filter(|_| self.pass.is_none()) else {
            return Err(Error::new(
                "count_boilerplate() comes before the first sign(), in a run that strips \
                 boilerplate",
            ));
        };
        let sets = ShingleSets::build(texts, plan.k, plan.unit, plan.version)?;
        let view = SetsView::of_sorted_sets(&sets.offsets, &sets.hashes)?;
        if second {
            counter.count(view)
        } else {
            counter.add_candidates(view)
        }
    }

    /// The sign pass, made at its first use with the boilerplate the counter found (the
    /// counter is done then).
    fn pass(&mut self) -> Result<&mut SignPass> {
        if self.pass.is_none() {
            let drop = match self.counter.take() {
                Some(counter) => counter.frequent()?,
                None => Vec::new(),
            };
            self.dropped = drop.len();
            let (options, policy) = (self.plan.sign_options(), self.plan.set_policy(self.budget));
            self.pass = Some(SignPass::new(options, policy, self.salts.clone(), &drop)?);
        }
        self.pass
            .as_mut()
            .ok_or_else(|| Error::new("the sign pass could not be made"))
    }

    /// Signs the next batch (see [`SignPass::sign`]); sets past the budget go to `spill`.
    pub fn sign(&mut self, texts: &[&str], spill: &mut SetSpill) -> Result<()> {
        self.pass()?.sign(texts, spill)
    }

    /// Ends the pass: its exact copies collapsed, the spill finished when it was written,
    /// and the plan resolved for the unique documents. The run is empty afterwards.
    pub fn finish(&mut self, spill: &mut SetSpill) -> Result<Signed> {
        let sign_pass = self.pass()?;
        let held = sign_pass.take_held();
        let spilled = sign_pass.spilled();
        let stripped = sign_pass.stripped.take();
        let pass = std::mem::take(&mut sign_pass.collapse);
        let unique = pass.selected.len();
        if spilled {
            spill.finish(unique)?;
        }
        let resolved = self.plan.resolve(unique)?;
        let signing = matches!(
            self.plan.method,
            Method::Auto | Method::MinHash | Method::SimHash
        );
        // the near stage's signatures: none when the resolved method needs none (`auto`
        // brute-forcing exact Jaccard signed for nothing), empty rows when nothing was signed
        let signatures = match resolved.method {
            Method::MinHash => SignatureRows::MinHash {
                width: if pass.minhash.is_empty() {
                    self.plan.num_perm
                } else {
                    pass.width
                },
                slots: pass.minhash,
            },
            Method::SimHash => SignatureRows::SimHash {
                width: if pass.simhash.is_empty() {
                    self.plan.simhash_bits / 64
                } else {
                    pass.width
                },
                words: pass.simhash,
            },
            _ => SignatureRows::None,
        };
        let partitions = (!self.salts.is_empty()).then(|| {
            pass.selected
                .iter()
                .map(|&row| self.salts[row as usize])
                .collect()
        });
        Ok(Signed {
            resolved,
            empty: pass.groupable.iter().map(|&g| !g).collect(),
            first: pass.first,
            lengths: pass.lengths,
            selected: pass.selected,
            digests: pass.digests,
            set_sizes: if signing { pass.set_sizes } else { Vec::new() },
            shingled: u64::try_from(pass.shingled).unwrap_or(0),
            signatures,
            held,
            spilled,
            stripped,
            dropped: self.dropped,
            partitions,
        })
    }
}

#[cfg(test)]
mod tests;
