//! The cost model: multi-index hashing or brute force, and with how many blocks.
//!
//! Brute force compares the `N (N - 1) / 2` pairs of the `N` distinct fingerprints. An index
//! of `m` blocks has `T = C(m, d)` tables of about `k = (m - d) f / m` key bits (`f` the bits
//! that vary among the fingerprints); each table costs a sort and a scan of the `N` rows plus
//! the pairs its buckets hold. A pair at distance `δ` shares a table's `k` key bits with
//! probability `C(f - k, δ) / C(f, δ)` (its differing bits placed at random), so the buckets
//! hold about `N (N - 1) / 2 · Σ_δ h(δ) C(f - k, δ) / C(f, δ)` pairs, where `h` is the
//! distribution of distances between random pairs, measured on a sample of them: skewed
//! fingerprints (a footer every document shares pulls them together) are closer than
//! uniform ones, and fill buckets faster. The cheapest of brute force and every `m` with at
//! most [`MAX_TABLES`] tables is chosen.

use super::bits::Bits;

/// Nanoseconds per pair brute force compares (XOR and popcount of two fingerprints):
/// measured 1.6 (64 bits) and 1.9 (128 bits) on the 2-vCPU development machine; the
/// constants choose the search, never its results.
const PAIR_NS: f64 = 1.6;
/// Nanoseconds per row per table of an index: the counting sort by key and the scan of the
/// buckets (measured 26-32 on 100,000-200,000 fingerprints of the article's corpus, 28 tables).
const ROW_NS: f64 = 28.0;
/// Nanoseconds per pair a bucket holds (compared on the full distance).
const CANDIDATE_NS: f64 = 1.5;
/// Most tables an index may have.
pub const MAX_TABLES: usize = 1024;
/// Fewest distinct fingerprints for which an index is considered (below, brute force costs
/// at most 131,000 comparisons).
pub const MIN_INDEX_ROWS: usize = 512;
/// Random pairs sampled for the distance distribution.
const SAMPLE_PAIRS: u64 = 1 << 14;

/// How the pairs are searched.
#[derive(Debug, Clone, PartialEq)]
pub enum Search {
    /// Every pair of distinct fingerprints compared.
    BruteForce,
    /// Multi-index hashing.
    Index(Scheme),
}

/// The blocks and tables of a multi-index search.
#[derive(Debug, Clone, PartialEq)]
pub struct Scheme {
    /// The bits the blocks cover (those not known to agree).
    pub free: u128,
    /// The block masks, `m` of them.
    pub blocks: Vec<u128>,
    /// Each table's blocks (increasing), the subsets in lexicographic order.
    pub tables: Vec<Vec<usize>>,
    /// Each table's key mask (the union of its blocks).
    pub keys: Vec<u128>,
}

impl Scheme {
    /// `free`'s bits cut into `blocks` consecutive blocks of nearly equal size, a table per
    /// subset of `blocks - max_distance` of them (None unless `max_distance < blocks <=`
    /// bits of `free`).
    pub fn new(free: u128, blocks: usize, max_distance: u32) -> Option<Scheme> {
        let positions: Vec<u32> = (0..128).filter(|&i| free >> i & 1 == 1).collect();
        let f = positions.len();
        let d = max_distance as usize;
        if blocks <= d || blocks > f {
            return None;
        }
        let masks: Vec<u128> = (0..blocks)
            .map(|b| {
                positions[f * b / blocks..f * (b + 1) / blocks]
                    .iter()
                    .fold(0u128, |mask, &p| mask | 1u128 << p)
            })
            .collect();
        let tables = combinations(blocks, blocks - d);
        let keys = tables
            .iter()
            .map(|subset| subset.iter().fold(0u128, |key, &b| key | masks[b]))
            .collect();
        Some(Scheme {
            free,
            blocks: masks,
            tables,
            keys,
        })
    }

    /// Whether table `t` is the first table a pair whose fingerprints differ in bits `x`
    /// agrees on, given that it agrees on table `t`: the first subset (lexicographically) of
    /// the blocks they agree on is their lowest `m - d`, so every block below table `t`'s last
    /// that is not one of its own must differ.
    #[inline]
    pub fn first_table(&self, t: usize, x: u128) -> bool {
        let subset = &self.tables[t];
        let last = subset[subset.len() - 1];
        let mut own = subset.iter().peekable();
        for block in 0..last {
            if own.peek() == Some(&&block) {
                own.next();
            } else if x & self.blocks[block] == 0 {
                return false;
            }
        }
        true
    }

    /// "K tables of B-bit keys" (B a range when the tables' keys differ in width).
    pub fn describe(&self) -> String {
        let widths = self.keys.iter().map(|k| k.count_ones());
        let (low, high) = (widths.clone().min().unwrap_or(0), widths.max().unwrap_or(0));
        let bits = if low == high {
            format!("{low}")
        } else {
            format!("{low}-{high}")
        };
        format!("{} tables of {bits}-bit keys", self.tables.len())
    }
}

/// Every `r`-subset of `0..m`, each increasing, in lexicographic order.
fn combinations(m: usize, r: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut subset: Vec<usize> = (0..r).collect();
    loop {
        out.push(subset.clone());
        let Some(i) = (0..r).rev().find(|&i| subset[i] < m - r + i) else {
            return out;
        };
        subset[i] += 1;
        for j in i + 1..r {
            subset[j] = subset[j - 1] + 1;
        }
    }
}

/// `C(n, k)` as a float (0 when `k > n`).
fn choose_f(n: usize, k: usize) -> f64 {
    if k > n {
        return 0.0;
    }
    (0..k).fold(1.0, |c, i| c * (n - i) as f64 / (i + 1) as f64)
}

/// The search chosen for some fingerprints, and what it is predicted to cost.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchPlan {
    pub search: Search,
    /// Distinct fingerprints searched (identical ones collapsed).
    pub distinct: usize,
    /// Pairs the search is predicted to compare (all pairs for brute force, the buckets'
    /// pairs for an index).
    pub comparisons: f64,
    /// Predicted time, in seconds on one thread.
    pub seconds: f64,
    /// What brute force would compare.
    pub brute_force_comparisons: f64,
}

impl SearchPlan {
    /// `"index (K tables of B-bit keys)"` or `"brute force"`.
    pub fn describe(&self) -> String {
        match &self.search {
            Search::BruteForce => "brute force".to_string(),
            Search::Index(scheme) => format!("index ({})", scheme.describe()),
        }
    }
}

/// The cheapest search for the fingerprints `values` (distinct) over the bits `free` (the
/// bits outside it are known to agree): the bits that take one value in all of them are left
/// out, then brute force and every index of at most [`MAX_TABLES`] tables are costed.
pub fn choose<B: Bits>(values: &[B], free: B, max_distance: u32) -> SearchPlan {
    choose_for(values, free, max_distance, values.len())
}

/// [`choose`] for `n` distinct fingerprints of which `values` are a uniform sample (all of
/// them when `n == values.len()`, then the same plan as [`choose`]): the varying bits and the
/// distance distribution come from the sample, the counts from `n`. The Ray engine plans its
/// search this way from a bounded sample of the corpus's fingerprints.
pub fn choose_for<B: Bits>(values: &[B], free: B, max_distance: u32, n: usize) -> SearchPlan {
    let pairs = n as f64 * (n as f64 - 1.0).max(0.0) / 2.0;
    let brute = SearchPlan {
        search: Search::BruteForce,
        distinct: n,
        comparisons: pairs,
        seconds: pairs * PAIR_NS * 1e-9,
        brute_force_comparisons: pairs,
    };
    if n < MIN_INDEX_ROWS || values.len() < 2 {
        return brute;
    }
    let (all_set, any_set) = values
        .iter()
        .fold((B::all(), B::zero()), |(a, o), &v| (a & v, o | v));
    let free = free & (any_set ^ all_set);
    let free_mask = free
        .positions()
        .iter()
        .fold(0u128, |mask, &p| mask | 1u128 << p);
    let f = free_mask.count_ones() as usize;
    let d = max_distance as usize;
    if f <= d {
        return brute; // every pair is within the radius: nothing to index
    }
    let histogram = distance_histogram(values, free, f);
    let mut best = brute.clone();
    for blocks in d + 1..=f {
        let tables = choose_f(blocks, d);
        if tables > MAX_TABLES as f64 {
            break;
        }
        let key_bits = (blocks - d) * f / blocks;
        let agree: f64 = histogram
            .iter()
            .enumerate()
            .map(|(delta, &share)| share * choose_f(f - key_bits, delta) / choose_f(f, delta))
            .sum();
        let candidates = tables * pairs * agree;
        let seconds = (tables * n as f64 * ROW_NS + candidates * CANDIDATE_NS) * 1e-9;
        if seconds < best.seconds {
            let scheme = Scheme::new(free_mask, blocks, max_distance).expect("blocks in range");
            best = SearchPlan {
                search: Search::Index(scheme),
                distinct: n,
                comparisons: candidates,
                seconds,
                brute_force_comparisons: pairs,
            };
        }
    }
    best
}

/// The share of random pairs of `values` at each distance 0..=f over the bits `free`, from a
/// fixed sample (the same fingerprints give the same histogram).
fn distance_histogram<B: Bits>(values: &[B], free: B, f: usize) -> Vec<f64> {
    let n = values.len() as u64;
    let mut counts = vec![0u64; f + 1];
    let mut state = 0x9E37_79B9_7F4A_7C15u64 ^ n;
    for _ in 0..SAMPLE_PAIRS {
        let a = splitmix(&mut state) % n;
        let b = (a + 1 + splitmix(&mut state) % (n - 1)) % n;
        let delta = ((values[a as usize] ^ values[b as usize]) & free).ones() as usize;
        counts[delta.min(f)] += 1;
    }
    counts
        .iter()
        .map(|&c| c as f64 / SAMPLE_PAIRS as f64)
        .collect()
}

/// The next value of a splitmix64 sequence.
pub(crate) fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
