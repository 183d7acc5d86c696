//! Issue 25 part 2: may a cheaper MinHash family replace the classic one in hash version 2?
//! Prints the three acceptance tables for every family below, the classic one included:
//!
//! (a) estimator RMSE per set size (5 to 10,000 shingles) and Jaccard level, as a ratio to the
//!     classic family's, on three inputs: real shingle hashes (word 5-shingles of the real-text
//!     corpora), consecutive integers 0, 1, 2, ... given as the hashes (what a caller of
//!     `neardup.minhash(sets)` may pass), and SplitMix64 random hashes;
//! (b) band-collision probability against P(s) = 1 - (1 - s^r)^b for s = 0.10 .. 0.95 at the
//!     bandings 49x2 (recall-first at T = 0.3), 42x3 (the classic rule's at 0.3) and the
//!     classic rule's at 0.8, 128 slots;
//! (c) recall of banding + exact verification against brute-force exact Jaccard on real text
//!     at T = 0.3, 0.5, 0.8.
//!
//!     cargo run --release --example family_eval -- tests/data/realtext_*.jsonl [MORE.jsonl]
//!
//! Environment: TRIALS (per cell of (a), default 2000), BAND_TRIALS (per s of (b), default
//! 20000), SEEDS (per corpus of (c), default 100), FAMILIES (comma list, default all),
//! TABLES (default abc).
//! Every trial uses its own family seed (the trial number); inputs are drawn from a fixed-seed
//! SplitMix64, so a rerun prints the same numbers. Not a test; nothing here is used by the
//! library (the classic and OPH families are the library's own).

#[path = "family_eval/families.rs"]
mod families;

use _core::hashing::{HashVersion, SplitMix64};
use _core::jaccard::jaccard_u64;
use _core::shingle::{ShingleSets, Unit};
use families::{Family, P};
use std::collections::{HashMap, HashSet};

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn read_texts(path: &str) -> Vec<String> {
    let data = std::fs::read_to_string(path).expect("readable JSONL");
    data.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("JSON line");
            v["text"].as_str().expect("a text field").to_string()
        })
        .collect()
}

/// Uniform in [0, n).
fn below(rng: &mut SplitMix64, n: usize) -> usize {
    (((rng.next_u64() >> 32) * n as u64) >> 32) as usize
}

/// A pair of sets of `n` shingles each sharing `common`, drawn without replacement from `pool`
/// (a partial Fisher-Yates shuffle of its front), or the consecutive integers when `pool` is
/// None: A = [0, n), B = [n - common, 2n - common).
fn pair(pool: Option<&mut [u64]>, rng: &mut SplitMix64, n: usize, common: usize) -> [Vec<u64>; 2] {
    let union = 2 * n - common;
    let drawn: Vec<u64> = match pool {
        None => (0..union as u64).collect(),
        Some(pool) => {
            for i in 0..union {
                let j = i + below(rng, pool.len() - i);
                pool.swap(i, j);
            }
            pool[..union].to_vec()
        }
    };
    [drawn[..n].to_vec(), drawn[n - common..].to_vec()]
}

fn equal_share(a: &[u32], b: &[u32]) -> f64 {
    a.iter().zip(b).filter(|(x, y)| x == y).count() as f64 / a.len() as f64
}

/// Sums of squared errors and of their squares (for the standard error of the RMSE).
#[derive(Default, Clone, Copy)]
struct Err2 {
    n: f64,
    s2: f64,
    s4: f64,
}

impl Err2 {
    fn add(&mut self, e: f64) {
        self.n += 1.0;
        self.s2 += e * e;
        self.s4 += e * e * e * e;
    }
    fn rmse(&self) -> f64 {
        (self.s2 / self.n).sqrt()
    }
    /// Relative standard error of the RMSE (delta method on the mean of squared errors).
    fn rel_se(&self) -> f64 {
        let m2 = self.s2 / self.n;
        let var = (self.s4 / self.n - m2 * m2).max(0.0) / self.n;
        0.5 * var.sqrt() / m2.max(1e-300)
    }
}

fn table_a(families: &[Family], pool: &mut [u64]) -> Vec<(String, usize)> {
    let trials = env("TRIALS", 2000);
    let sizes = [5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000];
    let levels = [0.1, 0.3, 0.5, 0.7, 0.9];
    println!("\n(a) estimator RMSE, {P} slots, {trials} trials a cell (family seed = trial)");
    println!(
        "    ratio = family RMSE / classic RMSE (+- two standard errors); FAIL when the ratio"
    );
    println!("    exceeds 1.05 by more than two standard errors (a resolvable excess)");
    let mut fails: Vec<(String, usize)> = families.iter().map(|f| (f.name(), 0)).collect();
    let mut worst = vec![0.0f64; families.len()];
    for input in ["real", "consecutive", "random"] {
        println!("\n  input: {input}");
        print!("  {:>6} {:>5} {:>8} {:>8}", "n", "J", "theory", "classic");
        for f in &families[1..] {
            print!(" {:>18}", f.name());
        }
        println!();
        let mut random_pool: Vec<u64> = {
            let mut g = SplitMix64::new(0xA11CE);
            (0..pool.len().max(40_000)).map(|_| g.next_u64()).collect()
        };
        for &n in &sizes {
            for &level in &levels {
                let common = ((2.0 * n as f64 * level) / (1.0 + level)).round() as usize;
                if common == 0 || common >= n {
                    continue;
                }
                let jaccard = common as f64 / (2 * n - common) as f64;
                let mut errs = vec![Err2::default(); families.len()];
                let mut rng = SplitMix64::new(n as u64 * 1000 + (level * 100.0) as u64);
                let (mut sa, mut sb) = (vec![0u32; P], vec![0u32; P]);
                for trial in 0..trials {
                    let [a, b] = match input {
                        "real" => pair(Some(pool), &mut rng, n, common),
                        "random" => pair(Some(&mut random_pool), &mut rng, n, common),
                        _ => pair(None, &mut rng, n, common),
                    };
                    for (f, e) in families.iter().zip(errs.iter_mut()) {
                        let h = f.hasher(trial as u64);
                        h.sign(&a, &mut sa);
                        h.sign(&b, &mut sb);
                        e.add(equal_share(&sa, &sb) - jaccard);
                    }
                }
                let theory = (jaccard * (1.0 - jaccard) / P as f64).sqrt();
                let classic = errs[0];
                print!(
                    "  {n:>6} {jaccard:>5.3} {theory:>8.4} {:>8.4}",
                    classic.rmse()
                );
                for (i, e) in errs.iter().enumerate().skip(1) {
                    let ratio = e.rmse() / classic.rmse();
                    let se = ratio * (e.rel_se().powi(2) + classic.rel_se().powi(2)).sqrt();
                    let fail = ratio - 2.0 * se > 1.05;
                    if fail {
                        fails[i].1 += 1;
                    }
                    worst[i] = worst[i].max(ratio);
                    print!(
                        " {:>6.3}+-{:<5.3}{:>5}",
                        ratio,
                        2.0 * se,
                        if fail { "FAIL" } else { "" }
                    );
                }
                println!();
            }
        }
    }
    println!("\n  summary (a): resolvable failures / worst ratio");
    for (i, f) in families.iter().enumerate().skip(1) {
        println!(
            "    {:<10} {:>4} cells FAIL, worst ratio {:.3}",
            f.name(),
            fails[i].1,
            worst[i]
        );
    }
    fails
}

fn table_b(families: &[Family], pool: &mut [u64]) -> Vec<(String, usize)> {
    let trials = env("BAND_TRIALS", 20_000);
    let n = 400;
    let high = _core::lsh::banding::params(0.8, P).unwrap();
    let bandings = [(49usize, 2usize), (42, 3), high];
    println!("\n(b) band-collision probability vs P(s) = 1 - (1 - s^r)^b, sets of {n} real");
    println!("    shingles, {trials} pairs per s (family seed = pair); cell = measured/formula;");
    println!("    FAIL when |measured - formula| > 5 % of formula + two binomial standard errors");
    let mut fails: Vec<(String, usize)> = families.iter().map(|f| (f.name(), 0)).collect();
    for &(bands, rows) in &bandings {
        // Per family: the largest |per-band collision rate / s^r - 1| over the s where s^r is
        // resolvable to 2 % (two standard errors), and at which s.
        let mut band_rate = vec![(0.0f64, 0.0f64); families.len()];
        println!("\n  banding {bands}x{rows}");
        print!("  {:>5} {:>10}", "s", "P(s)");
        for f in families {
            print!(" {:>15}", f.name());
        }
        println!();
        for step in 2..=19 {
            let level = step as f64 * 0.05;
            let common = ((2.0 * n as f64 * level) / (1.0 + level)).round() as usize;
            let s = common as f64 / (2 * n - common) as f64;
            let formula = 1.0 - (1.0 - s.powi(rows as i32)).powi(bands as i32);
            let mut hits = vec![0usize; families.len()];
            let mut band_hits = vec![0usize; families.len()];
            let mut rng = SplitMix64::new(0xB0 + step);
            let (mut sa, mut sb) = (vec![0u32; P], vec![0u32; P]);
            for trial in 0..trials {
                let [a, b] = pair(Some(pool), &mut rng, n, common);
                for (i, f) in families.iter().enumerate() {
                    let h = f.hasher(1_000_000 + trial as u64);
                    h.sign(&a, &mut sa);
                    h.sign(&b, &mut sb);
                    let equal = (0..bands)
                        .filter(|band| sa[band * rows..][..rows] == sb[band * rows..][..rows])
                        .count();
                    hits[i] += (equal > 0) as usize;
                    band_hits[i] += equal;
                }
            }
            let per_band = s.powi(rows as i32);
            let draws = (trials * bands) as f64;
            if 2.0 * (per_band * (1.0 - per_band) / draws).sqrt() <= 0.02 * per_band {
                for (i, &hit) in band_hits.iter().enumerate() {
                    let off = hit as f64 / draws / per_band - 1.0;
                    if off.abs() > band_rate[i].0.abs() {
                        band_rate[i] = (off, s);
                    }
                }
            }
            print!("  {s:>5.3} {formula:>10.3e}");
            let se = (formula * (1.0 - formula) / trials as f64).sqrt();
            for (i, &hit) in hits.iter().enumerate() {
                let measured = hit as f64 / trials as f64;
                let fail = (measured - formula).abs() > 0.05 * formula + 2.0 * se;
                if fail {
                    fails[i].1 += 1;
                }
                print!(
                    " {:>10.4}{:>5}",
                    measured / formula,
                    if fail { "FAIL" } else { "" }
                );
            }
            println!();
        }
        print!("  per-band rate / s^{rows} - 1, largest where resolvable to 2 %:");
        for (off, s) in &band_rate {
            print!(" {:+.3} (s {s:.2})", off);
        }
        println!();
    }
    println!("\n  summary (b): resolvable failures");
    for (name, count) in &fails {
        println!("    {name:<10} {count:>4} cells FAIL");
    }
    fails
}

fn table_c(families: &[Family], corpora: &[(String, ShingleSets)]) -> Vec<(String, f64)> {
    let seeds = env("SEEDS", 100);
    let levels = [(0.3, 49usize, 2usize), (0.5, 35, 3), (0.8, 16, 6)];
    println!("\n(c) recall of banding + exact verification vs brute-force exact Jaccard,");
    println!("    word 5-shingles (hash version 2), {P} slots, family seeds 0..{seeds}: per cell");
    println!("    the lowest/mean recall over the seeds (pairs found / pairs at or above T); the");
    println!("    criterion is the mean (expected recall): one seed's recall swings with the");
    println!("    corpus's large clusters near T, for every family");
    // Per family: the lowest mean recall (the criterion) and the lowest single seed's.
    let mut worst: Vec<(String, f64, f64)> =
        families.iter().map(|f| (f.name(), 1.0, 1.0)).collect();
    for (name, sets) in corpora {
        let docs = sets.offsets.len() - 1;
        let set = |i: usize| &sets.hashes[sets.offsets[i] as usize..sets.offsets[i + 1] as usize];
        let mut scored = Vec::new();
        for i in 0..docs {
            for j in i + 1..docs {
                if !set(i).is_empty() && !set(j).is_empty() {
                    let jac = jaccard_u64(set(i), set(j));
                    if jac >= 0.3 {
                        scored.push((i as u32, j as u32, jac));
                    }
                }
            }
        }
        println!("\n  corpus {name}: {docs} documents");
        print!("  {:>4} {:>6} {:>7}", "T", "band", "pairs");
        for f in families {
            print!(" {:>13}", f.name());
        }
        println!();
        for &(threshold, bands, rows) in &levels {
            let truth: HashSet<(u32, u32)> = scored
                .iter()
                .filter(|p| p.2 >= threshold)
                .map(|p| (p.0, p.1))
                .collect();
            print!(
                "  {threshold:>4} {:>6} {:>7}",
                format!("{bands}x{rows}"),
                truth.len()
            );
            for (fi, f) in families.iter().enumerate() {
                let (mut lowest, mut sum) = (1.0f64, 0.0f64);
                for seed in 0..seeds as u64 {
                    let h = f.hasher(seed);
                    let mut sigs = vec![0u32; docs * P];
                    for i in 0..docs {
                        h.sign(set(i), &mut sigs[i * P..(i + 1) * P]);
                    }
                    let mut found = HashSet::new();
                    for band in 0..bands {
                        let mut buckets: HashMap<&[u32], Vec<u32>> = HashMap::new();
                        for i in 0..docs {
                            if set(i).is_empty() {
                                continue;
                            }
                            let key = &sigs[i * P + band * rows..][..rows];
                            buckets.entry(key).or_default().push(i as u32);
                        }
                        for members in buckets.values() {
                            for (x, &i) in members.iter().enumerate() {
                                for &j in &members[x + 1..] {
                                    if truth.contains(&(i, j)) {
                                        found.insert((i, j));
                                    }
                                }
                            }
                        }
                    }
                    let recall = if truth.is_empty() {
                        1.0
                    } else {
                        found.len() as f64 / truth.len() as f64
                    };
                    lowest = lowest.min(recall);
                    sum += recall;
                }
                let mean = sum / seeds as f64;
                worst[fi].1 = worst[fi].1.min(mean);
                worst[fi].2 = worst[fi].2.min(lowest);
                print!(" {lowest:>6.4}/{mean:<6.4}");
            }
            println!();
        }
    }
    println!("\n  summary (c): lowest mean recall (FAIL below 0.99), and lowest single seed");
    for (name, mean, lowest) in &worst {
        let fail = if *mean < 0.99 { "FAIL" } else { "" };
        println!("    {name:<10} {mean:.4} {fail:<5} (lowest seed {lowest:.4})");
    }
    worst
        .into_iter()
        .map(|(name, mean, _)| (name, mean))
        .collect()
}

fn main() {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    assert!(!paths.is_empty(), "usage: family_eval CORPUS.jsonl...");
    let wanted = std::env::var("FAMILIES").ok();
    let families: Vec<Family> = families::all()
        .into_iter()
        .filter(|f| {
            f.name() == "classic" || wanted.as_deref().map_or(true, |w| w.contains(&f.name()))
        })
        .collect();
    let corpora: Vec<(String, ShingleSets)> = paths
        .iter()
        .map(|p| {
            let texts = read_texts(p);
            let refs: Vec<&str> = texts.iter().map(|t| t.as_str()).collect();
            let name = p.rsplit('/').next().unwrap_or(p).to_string();
            (
                name,
                ShingleSets::build(&refs, 5, Unit::Word, HashVersion::V2).unwrap(),
            )
        })
        .collect();
    let mut pool: Vec<u64> = corpora.iter().flat_map(|c| c.1.hashes.clone()).collect();
    pool.sort_unstable();
    pool.dedup();
    println!(
        "families: {}",
        families
            .iter()
            .map(|f| f.name())
            .collect::<Vec<_>>()
            .join(", ")
    );
    println!(
        "real shingle pool: {} distinct hashes from {} corpora",
        pool.len(),
        corpora.len()
    );
    let only = std::env::var("TABLES").unwrap_or_else(|_| "abc".into());
    let a = only.contains('a').then(|| table_a(&families, &mut pool));
    let b = only.contains('b').then(|| table_b(&families, &mut pool));
    let c = only.contains('c').then(|| table_c(&families, &corpora));
    println!("\nverdict (a: RMSE within 5 % of classic, b: band probabilities within 5 %, c: recall >= 0.99)");
    for (i, f) in families.iter().enumerate() {
        let pa = a.as_ref().map(|v| v[i].1 == 0);
        let pb = b.as_ref().map(|v| v[i].1 == 0);
        let pc = c.as_ref().map(|v| v[i].1 >= 0.99);
        let show = |p: Option<bool>| match p {
            None => "-",
            Some(true) => "pass",
            Some(false) => "FAIL",
        };
        println!(
            "  {:<10} a {:<5} b {:<5} c {:<5}",
            f.name(),
            show(pa),
            show(pb),
            show(pc)
        );
    }
}
