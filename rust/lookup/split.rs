//! The bucket rule of `rust/lsh/groups.rs` in a band table: a bucket of more stored rows
//! than the rule's limit that is not dense (shared boilerplate: a footer, a licence) is split
//! by the grouper itself, once, when the table is built, and kept as its parts
//! ([`SplitTree`]). A query whose band key is that bucket's follows its own slot values down
//! the parts and meets the members of the one it lands in, as it would have had it been
//! grouped with them, so the candidates of n queries against n rows that share a footer stay
//! linear in n. What the splits cost in recall is charged per row as the grouper charges it.

use crate::lsh::groups::{path_step, split_slot, BucketRule, Grouper, SplitTree};
use crate::rows::Rows;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// A part of a split bucket, by its path.
enum Part {
    /// Split again: follow the query's next slot value.
    Inner,
    /// Kept whole: `members[start..end]`.
    Leaf(usize, usize),
}

/// Band keys and paths are hashes already: the map uses them as they are.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = x;
    }
}

/// The split buckets of one band table.
#[derive(Default)]
pub(super) struct Splits {
    parts: HashMap<u64, Part, BuildHasherDefault<KeyHasher>>,
    members: Vec<u32>,
    /// The table's first row: `log_miss[r - first]` is row r's charge.
    first: usize,
    log_miss: Vec<i64>,
    /// Parts split (as `SplitCost::splits` counts them).
    pub splits: u64,
}

/// What [`Splits::find`] needs of the mirror.
pub(super) struct Layout<'a> {
    /// Every stored row's signature, row-major.
    pub signatures: &'a [u32],
    /// Every stored row's band keys, row-major.
    pub keys: &'a [u64],
    pub num_perm: usize,
    pub bands: usize,
    pub rows: usize,
}

impl Splits {
    /// The splits of the buckets of `entries` ((band key, row), sorted; rows from `first`
    /// on) larger than the rule's limit, as `rust/lsh/groups.rs` splits them.
    pub fn find(entries: &[(u64, u32)], first: usize, at: &Layout, rule: BucketRule) -> Splits {
        let mut out = Splits {
            first,
            ..Splits::default()
        };
        let p = at.num_perm;
        let view = Rows::new(&at.signatures[first * p..], p);
        let mut grouper: Option<Grouper> = None;
        let mut members: Vec<u32> = Vec::new();
        let mut start = 0;
        while start < entries.len() {
            let key = entries[start].0;
            let end = start + entries[start..].iter().take_while(|e| e.0 == key).count();
            if end - start > rule.limit {
                let row = entries[start].1 as usize;
                let own = &at.keys[row * at.bands..(row + 1) * at.bands];
                let band = own.iter().position(|&k| k == key).unwrap_or(0);
                members.clear();
                members.extend(entries[start..end].iter().map(|e| e.1 - first as u32));
                let g = grouper.get_or_insert_with(|| {
                    Grouper::new(view, at.rows, &[], rule, true).with_tree()
                });
                g.bucket(band, key, &members, &mut |_| {});
            }
            start = end;
        }
        if let Some(g) = grouper {
            let cost = g.cost.unwrap_or_default();
            out.splits = cost.splits;
            out.log_miss = cost.log_miss;
            let tree: SplitTree = g.tree.unwrap_or_default();
            for path in tree.inner {
                out.parts.insert(path, Part::Inner);
            }
            for (path, a, b) in tree.leaves {
                out.parts.insert(path, Part::Leaf(a, b));
            }
            out.members = tree.members.iter().map(|&m| m + first as u32).collect();
        }
        out
    }

    /// Whether the bucket of band key `key` was split (its rows are then found by
    /// [`Splits::follow`], not by the key alone).
    #[inline]
    pub fn has(&self, key: u64) -> bool {
        !self.parts.is_empty() && self.parts.contains_key(&key)
    }

    /// Appends the rows of the part of the split bucket `key` (band `band`) that a query of
    /// signature `sig` lands in (none when its slot values lead out of the bucket).
    pub fn follow(&self, key: u64, band: usize, rows: usize, sig: &[u32], out: &mut Vec<u32>) {
        let mut path = key;
        let mut depth = 0;
        while let Some(part) = self.parts.get(&path) {
            match *part {
                Part::Leaf(a, b) => {
                    out.extend_from_slice(&self.members[a..b]);
                    return;
                }
                Part::Inner => {
                    path = path_step(path, sig[split_slot(band, rows, depth, sig.len())]);
                    depth += 1;
                }
            }
        }
    }

    /// What the splits cost row `row` (in `SplitCost` units; 0 for a row of another table).
    pub fn charge(&self, row: usize) -> i64 {
        row.checked_sub(self.first)
            .and_then(|r| self.log_miss.get(r))
            .copied()
            .unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Mirror, Selection};
    use crate::hashing::mix64;
    use crate::lsh::BucketRule;

    const P: usize = 16;

    /// `n` unrelated rows that all agree on band 0 (slots 0 and 1: a shared footer), then a
    /// near copy of row 5 that shares no other band with it (slots 3, 4 and 6 changed), but
    /// the first slot band 0's bucket is split by (slot 2).
    fn footer_rows(n: usize) -> Vec<u32> {
        let mut sigs = Vec::new();
        for r in 0..n {
            for s in 0..P {
                sigs.push(if s < 2 {
                    7
                } else {
                    mix64((r * P + s) as u64) as u32
                });
            }
        }
        let mut copy = sigs[5 * P..6 * P].to_vec();
        for s in [3, 4, 6] {
            copy[s] ^= 1;
        }
        sigs.extend(copy);
        sigs
    }

    fn mirror(sigs: &[u32], rule: BucketRule) -> Mirror {
        let mut m = Mirror::new(P, 4, 2, rule).unwrap();
        let ids: Vec<String> = (0..sigs.len() / P).map(|i| i.to_string()).collect();
        m.append(sigs, &ids).unwrap();
        m
    }

    /// Candidates of each query (threshold 0 keeps every one).
    fn candidates(m: &Mirror, queries: &[u32]) -> Vec<usize> {
        let all = Selection {
            threshold: 0.0,
            top_k: 0,
        };
        let found = m.lookup(queries, all).unwrap();
        found.offsets.windows(2).map(|w| w[1] - w[0]).collect()
    }

    #[test]
    fn a_shared_footer_bucket_is_split_and_near_copies_still_meet() {
        let n = 3000;
        let sigs = footer_rows(n);
        let whole = mirror(&sigs, BucketRule::WHOLE);
        let rule = BucketRule {
            limit: 32,
            threshold: 0.5,
        };
        let split = mirror(&sigs, rule);
        let probe = &sigs[..50 * P];
        // every stored row is a candidate of every query with the bucket whole
        assert!(candidates(&whole, probe).iter().all(|&c| c > n));
        assert_eq!(whole.bucket_splits(), 0);
        // split: itself, and at most a stray row that shares a slot value by chance
        let bounded = candidates(&split, probe);
        assert!(bounded.iter().all(|&c| (1..=3).contains(&c)), "{bounded:?}");
        assert!(split.bucket_splits() > 0);
        // the near copy (row n) finds row 5 in the part of the split bucket it lands in
        let select = Selection {
            threshold: 0.5,
            top_k: 0,
        };
        let found = split.lookup(&sigs[n * P..], select).unwrap();
        assert!(found.rows.contains(&5), "{:?}", found.rows);
        // what the splits cost is counted: lower than the banding's own P(T)
        let unsplit = mirror(
            &sigs,
            BucketRule {
                limit: usize::MAX,
                threshold: 0.5,
            },
        );
        let plain = 1.0 - (1.0 - 0.5f64.powi(2)).powi(4);
        assert!((unsplit.expected_recall() - plain).abs() < 1e-9);
        assert!(split.expected_recall() < plain - 1e-4);
    }

    #[test]
    fn a_bucket_of_near_copies_stays_whole() {
        // 100 rows that agree on 14 of 16 slots: dense, so never split
        let mut sigs = Vec::new();
        for r in 0..100u32 {
            for s in 0..P as u32 {
                sigs.push(if s == 15 || s == 3 { r } else { s });
            }
        }
        let rule = BucketRule {
            limit: 32,
            threshold: 0.5,
        };
        let m = mirror(&sigs, rule);
        assert!(candidates(&m, &sigs[..P]).iter().all(|&c| c == 100));
        assert_eq!(m.bucket_splits(), 0);
    }

    #[test]
    fn delta_and_main_tables_split_alike() {
        // appended one row at a time: the rows land in the delta, then in main
        let n = 2500;
        let sigs = footer_rows(n);
        let rule = BucketRule {
            limit: 32,
            threshold: 0.5,
        };
        let mut m = Mirror::new(P, 4, 2, rule).unwrap();
        for (r, row) in sigs.chunks_exact(P).enumerate() {
            m.append(row, &[r.to_string()]).unwrap();
        }
        let c = candidates(&m, &sigs[..50 * P]);
        assert!(c.iter().all(|&c| (1..=3).contains(&c)), "{c:?}");
    }
}
