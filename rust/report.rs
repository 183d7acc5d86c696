//! What a run reports after its pass, over the exact groups `first` (each document's first
//! exact duplicate) and the near pairs among first occurrences: the pairs of `pairs="all"`
//! (as if nothing had been collapsed) or `pairs="spanning"`, how many `"all"` would give, and
//! every pair within groups: the one copy of that loop (exact groups here, the documents of an
//! LSH bucket in the Ray engine, documents sharing a label in `neardup.pairs_within_groups`).
//!
//! Reported pairs are `(i, j)`, `i < j`, sorted by `(i, j)`; pairs that repeat keep the order
//! they were made in (near pairs first, then the pairs within groups), as a stable sort would.

use crate::error::{reserve, Error, Result};

/// Which pairs a run reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Every pair as if nothing had been collapsed: each exact copy inherits its first
    /// occurrence's near pairs, and every pair within an exact group (similarity 1).
    All,
    /// Each exact copy with its first occurrence (similarity 1), plus the near pairs.
    Spanning,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::All => "all",
            Mode::Spanning => "spanning",
        }
    }

    pub fn parse(mode: &str) -> Result<Self> {
        match mode {
            "all" => Ok(Mode::All),
            "spanning" => Ok(Mode::Spanning),
            _ => Err(Error::new(format!(
                "mode must be 'all' or 'spanning', got {mode:?}"
            ))),
        }
    }
}

/// Pairs `i < j` sorted by `(i, j)`, flat as `[i0, j0, i1, j1, ...]`, and the similarity of each.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Reported {
    pub pairs: Vec<i64>,
    pub similarity: Vec<f32>,
}

/// Checks groups `items[starts[g]..starts[g] + sizes[g]]` against `items`; the number of
/// pairs within them.
fn check_groups(starts: &[i64], sizes: &[i64], items: &[i64]) -> Result<usize> {
    if starts.len() != sizes.len() {
        return Err(Error::new(format!(
            "starts and sizes must have the same length, got {} and {}",
            starts.len(),
            sizes.len()
        )));
    }
    let mut total = 0usize;
    for (g, (&start, &size)) in starts.iter().zip(sizes).enumerate() {
        let fits = start >= 0
            && size >= 0
            && (start as u64).saturating_add(size as u64) <= items.len() as u64;
        if !fits {
            return Err(Error::new(format!(
                "group {g} (start {start}, size {size}) is outside the {} items",
                items.len()
            )));
        }
        let size = size as usize;
        total = size
            .checked_mul(size.saturating_sub(1))
            .and_then(|square| total.checked_add(square / 2))
            .ok_or_else(|| Error::resource("the pairs within groups", usize::MAX, 16))?;
    }
    Ok(total)
}

/// Calls `pair(a, b)` for every pair within the (checked) groups, in [`pairs_within_groups`]'
/// order.
fn each_pair_within(starts: &[i64], sizes: &[i64], items: &[i64], mut pair: impl FnMut(i64, i64)) {
    for (&start, &size) in starts.iter().zip(sizes) {
        let group = &items[start as usize..(start + size) as usize];
        for (u, &a) in group.iter().enumerate() {
            for &b in &group[u + 1..] {
                pair(a, b);
            }
        }
    }
}

/// Every pair within each group, flat as `[a0, b0, a1, b1, ...]`: group `g` is
/// `items[starts[g]..starts[g] + sizes[g]]`, and its pairs are `(items[start + u],
/// items[start + v])` for `u < v`, by group, then `u`, then `v`.
pub fn pairs_within_groups(starts: &[i64], sizes: &[i64], items: &[i64]) -> Result<Vec<i64>> {
    let total = check_groups(starts, sizes, items)?;
    let mut out = Vec::new();
    reserve(&mut out, total.saturating_mul(2), "the pairs within groups")?;
    each_pair_within(starts, sizes, items, |a, b| {
        out.push(a);
        out.push(b);
    });
    Ok(out)
}

/// The exact groups of `first`: the members of group `g` (documents whose first exact
/// duplicate is `g`) are `order[start[g]..start[g] + size[g]]`, ascending.
struct Groups {
    start: Vec<i64>,
    size: Vec<i64>,
    order: Vec<i64>,
}

impl Groups {
    /// The groups of a checked `first` (see [`check_first`]).
    fn new(first: &[i64]) -> Result<Self> {
        let n = first.len();
        let mut size = vec_of(n, 0i64, "the exact groups")?;
        for &f in first {
            size[f as usize] += 1;
        }
        let mut start = vec_of(n, 0i64, "the exact groups")?;
        let mut at = 0;
        for (s, &count) in start.iter_mut().zip(&size) {
            *s = at;
            at += count;
        }
        let mut order = vec_of(n, 0i64, "the exact groups")?;
        let mut cursor = start.clone();
        for (i, &f) in first.iter().enumerate() {
            order[cursor[f as usize] as usize] = i as i64;
            cursor[f as usize] += 1;
        }
        Ok(Groups { start, size, order })
    }

    fn members(&self, g: i64) -> &[i64] {
        let start = self.start[g as usize] as usize;
        &self.order[start..start + self.size[g as usize] as usize]
    }
}

fn vec_of<T: Clone>(len: usize, value: T, what: &str) -> Result<Vec<T>> {
    crate::error::filled_vec(len, value, what)
}

/// Checks that `first[i]` is document i's first exact duplicate: at most i, and a first
/// occurrence itself.
fn check_first(first: &[i64]) -> Result<()> {
    for (i, &f) in first.iter().enumerate() {
        if f < 0 || f as u64 > i as u64 || first[f as usize] != f {
            return Err(Error::new(format!(
                "first[{i}] = {f} is not a first exact duplicate (it must be at most {i} and \
                 a first occurrence itself)"
            )));
        }
    }
    Ok(())
}

/// Checks the near pairs (flat `[a0, b0, ...]`): two different first occurrences each.
fn check_pairs(first: &[i64], pairs: &[i64]) -> Result<()> {
    if pairs.len() % 2 != 0 {
        return Err(Error::new("pairs must have shape (m, 2)"));
    }
    for (k, pair) in pairs.chunks_exact(2).enumerate() {
        let (a, b) = (pair[0], pair[1]);
        let root = |x: i64| x >= 0 && (x as u64) < first.len() as u64 && first[x as usize] == x;
        if a == b || !root(a) || !root(b) {
            return Err(Error::new(format!(
                "pairs[{k}] = ({a}, {b}) must join two different first occurrences of the {} \
                 documents",
                first.len()
            )));
        }
    }
    Ok(())
}

/// How many pairs [`report_pairs`] gives in [`Mode::All`], without making them.
pub fn all_pairs_count(first: &[i64], pairs: &[i64]) -> Result<u64> {
    check_first(first)?;
    check_pairs(first, pairs)?;
    let mut size = vec_of(first.len(), 0u64, "the exact groups")?;
    for &f in first {
        size[f as usize] += 1;
    }
    let within: u128 = size
        .iter()
        .map(|&s| (s * s.saturating_sub(1) / 2) as u128)
        .sum();
    let across: u128 = pairs
        .chunks_exact(2)
        .map(|p| size[p[0] as usize] as u128 * size[p[1] as usize] as u128)
        .sum();
    Ok(u64::try_from(within + across).unwrap_or(u64::MAX))
}

/// The pairs a run reports (positions `i < j`, sorted) from the exact groups `first` and the
/// near `pairs` among first occurrences (flat `[a0, b0, ...]`) with their `similarity`.
pub fn report_pairs(
    first: &[i64],
    pairs: &[i64],
    similarity: &[f32],
    mode: Mode,
) -> Result<Reported> {
    check_first(first)?;
    check_pairs(first, pairs)?;
    if similarity.len() * 2 != pairs.len() {
        return Err(Error::new(format!(
            "similarity has {} values for {} pairs",
            similarity.len(),
            pairs.len() / 2
        )));
    }
    let near = || pairs.chunks_exact(2).zip(similarity);
    match mode {
        Mode::Spanning => {
            let copies = first.iter().enumerate().filter(|&(i, &f)| f != i as i64);
            let total = copies.clone().count() + similarity.len();
            sorted(first.len(), total, |emit| {
                for (c, &f) in copies.clone() {
                    emit(f, c as i64, 1.0);
                }
                for (p, &s) in near() {
                    emit(p[0], p[1], s);
                }
            })
        }
        Mode::All => {
            let total = all_pairs_count(first, pairs)?;
            let total = usize::try_from(total)
                .map_err(|_| Error::resource("the reported pairs", usize::MAX, 20))?;
            let groups = Groups::new(first)?;
            let wide = |p: &[i64]| groups.size[p[0] as usize] * groups.size[p[1] as usize] > 1;
            let starts = &groups.start;
            sorted(first.len(), total, |emit| {
                // each near pair (a, b) becomes every pair of a's group x b's group
                for (p, &s) in near().filter(|(p, _)| !wide(p)) {
                    emit(p[0], p[1], s);
                }
                for (p, &s) in near().filter(|(p, _)| wide(p)) {
                    for &x in groups.members(p[0]) {
                        for &y in groups.members(p[1]) {
                            emit(x, y, s);
                        }
                    }
                }
                // and every pair within each exact group
                each_pair_within(starts, &groups.size, &groups.order, |a, b| emit(a, b, 1.0));
            })
        }
    }
}

/// What a run reports and how it chose: the pairs, the mode used, and the count of all pairs
/// when `pairs="auto"` turned to spanning because they outnumbered its limit.
#[derive(Debug, Clone, PartialEq)]
pub struct RunReport {
    pub reported: Reported,
    pub mode: Mode,
    pub over_limit: Option<u64>,
}

/// The pairs a run reports, the decision made once for every executor: spanning when asked
/// (`asked`, None for auto) or when the near-pair stage already searched a spanning forest;
/// else every pair, unless auto's `spanning_limit` is passed (then spanning: the same clusters,
/// one pair per joined document); more than `max_pairs` of them is an error rather than an
/// output nobody can hold.
pub fn run_report(
    first: &[i64],
    pairs: &[i64],
    similarity: &[f32],
    asked: Option<Mode>,
    searched_spanning: bool,
    spanning_limit: u64,
    max_pairs: u64,
) -> Result<RunReport> {
    let mut over_limit = None;
    let mode = if searched_spanning || asked == Some(Mode::Spanning) {
        Mode::Spanning
    } else {
        let total = all_pairs_count(first, pairs)?;
        if asked.is_none() && total > spanning_limit {
            over_limit = Some(total);
            Mode::Spanning
        } else if total > max_pairs {
            return Err(Error::Resource(format!(
                "pairs='all' would report {total} pairs; use pairs='spanning' or 'auto' (same \
                 clusters, one pair per joined document)"
            )));
        } else {
            Mode::All
        }
    };
    let reported = report_pairs(first, pairs, similarity, mode)?;
    Ok(RunReport {
        reported,
        mode,
        over_limit,
    })
}

/// All pairs `i < j` of positions sharing a label, flat and sorted by `(i, j)`.
pub fn label_pairs(labels: &[i64]) -> Result<Vec<i64>> {
    let mut order: Vec<i64> = Vec::new();
    reserve(&mut order, labels.len(), "the labels' order")?;
    order.extend(0..labels.len() as i64);
    order.sort_unstable_by_key(|&i| (labels[i as usize], i));
    let (mut starts, mut sizes) = (Vec::new(), Vec::new());
    for (k, &i) in order.iter().enumerate() {
        if k == 0 || labels[order[k - 1] as usize] != labels[i as usize] {
            starts.push(k as i64);
            sizes.push(0);
        }
        *sizes.last_mut().expect("a group was opened") += 1;
    }
    let total = check_groups(&starts, &sizes, &order)?;
    let out = sorted(labels.len(), total, |emit| {
        each_pair_within(&starts, &sizes, &order, |a, b| emit(a, b, 1.0));
    })?;
    Ok(out.pairs)
}

/// The `total` pairs `make` emits (positions below `n`, either order) as `(min, max)`, sorted by
/// it, ties in the order made: a counting sort by the first position (`make` runs twice: to
/// count, then to place), then each position's few partners sorted.
fn sorted(
    n: usize,
    total: usize,
    make: impl Fn(&mut dyn FnMut(i64, i64, f32)),
) -> Result<Reported> {
    let mut pairs = Vec::new();
    reserve(&mut pairs, total.saturating_mul(2), "the reported pairs")?;
    let mut similarity = Vec::new();
    reserve(&mut similarity, total, "the reported pairs")?;
    let mut at = vec_of(n + 1, 0usize, "the reported pairs")?;
    make(&mut |a, b, _| at[a.min(b) as usize + 1] += 1);
    for i in 0..n {
        at[i + 1] += at[i];
    }
    debug_assert_eq!(at[n], total);
    pairs.resize(2 * total, 0);
    similarity.resize(total, 0.0);
    let mut cursor = at.clone();
    make(&mut |a, b, s| {
        let (lo, hi) = (a.min(b), a.max(b));
        let k = cursor[lo as usize];
        cursor[lo as usize] += 1;
        pairs[2 * k] = lo;
        pairs[2 * k + 1] = hi;
        similarity[k] = s;
    });
    let mut partners: Vec<(i64, f32)> = Vec::new();
    for w in at.windows(2) {
        let (from, to) = (w[0], w[1]);
        let in_order = (from + 1..to).all(|k| pairs[2 * k - 1] <= pairs[2 * k + 1]);
        if in_order {
            continue;
        }
        partners.clear();
        partners.extend((from..to).map(|k| (pairs[2 * k + 1], similarity[k])));
        partners.sort_by_key(|p| p.0); // stable: ties stay in the order made
        for (k, (j, s)) in (from..to).zip(&partners) {
            pairs[2 * k + 1] = *j;
            similarity[k] = *s;
        }
    }
    Ok(Reported { pairs, similarity })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_report_chooses_spanning_past_the_limit_and_refuses_past_the_maximum() {
        // documents 0,1 exact copies; 2,3 exact copies; the near pair (0, 2): 6 pairs in all
        let (first, pairs, sims) = ([0, 0, 2, 2], [0, 2], [0.5f32]);
        let all = run_report(&first, &pairs, &sims, None, false, 6, 6).unwrap();
        assert_eq!(
            (all.mode, all.over_limit, all.reported.similarity.len()),
            (Mode::All, None, 6)
        );
        let over = run_report(&first, &pairs, &sims, None, false, 5, 6).unwrap();
        assert_eq!((over.mode, over.over_limit), (Mode::Spanning, Some(6)));
        assert_eq!(over.reported.similarity.len(), 3);
        let searched = run_report(&first, &pairs, &sims, None, true, 100, 100).unwrap();
        assert_eq!((searched.mode, searched.over_limit), (Mode::Spanning, None));
        let asked = Some(Mode::All);
        assert!(matches!(
            run_report(&first, &pairs, &sims, asked, false, 0, 5),
            Err(Error::Resource(_))
        ));
        let fits = run_report(&first, &pairs, &sims, asked, false, 0, 6).unwrap();
        assert_eq!(fits.mode, Mode::All);
    }

    #[test]
    fn pairs_within_groups_by_group_then_rank() {
        let items = [7i64, 3, 9, 4, 5, 6];
        // groups [7, 3, 9], [] and [5, 6]; the item 4 is in none
        let got = pairs_within_groups(&[0, 3, 4], &[3, 0, 2], &items).unwrap();
        assert_eq!(got, vec![7, 3, 7, 9, 3, 9, 5, 6]);
        assert!(pairs_within_groups(&[0], &[1, 2], &items).is_err());
        assert!(pairs_within_groups(&[5], &[2], &items).is_err());
        assert!(pairs_within_groups(&[-1], &[1], &items).is_err());
        assert!(pairs_within_groups(&[], &[], &items).unwrap().is_empty());
    }

    /// The definition: every pair x < y whose groups are one, or joined by a near pair.
    fn all_by_definition(first: &[i64], pairs: &[i64], sims: &[f32]) -> Reported {
        let mut out = Reported::default();
        for y in 0..first.len() {
            for x in 0..y {
                let (a, b) = (first[x], first[y]);
                let near = pairs
                    .chunks_exact(2)
                    .zip(sims)
                    .find(|(p, _)| (p[0], p[1]) == (a, b) || (p[0], p[1]) == (b, a));
                let s = if a == b {
                    Some(1.0)
                } else {
                    near.map(|(_, &s)| s)
                };
                if let Some(s) = s {
                    out.pairs.extend([x as i64, y as i64]);
                    out.similarity.push(s);
                }
            }
        }
        let mut rows: Vec<_> = out
            .pairs
            .chunks_exact(2)
            .map(|p| (p[0], p[1]))
            .zip(out.similarity)
            .collect();
        rows.sort_by_key(|r| r.0);
        Reported {
            pairs: rows.iter().flat_map(|r| [r.0 .0, r.0 .1]).collect(),
            similarity: rows.iter().map(|r| r.1).collect(),
        }
    }

    #[test]
    fn all_pairs_are_those_of_the_uncollapsed_corpus() {
        let first = [0, 0, 2, 3, 2, 0, 6, 3];
        let pairs = [6, 2, 0, 3, 3, 6];
        let sims = [0.5, 0.75, 0.625];
        let got = report_pairs(&first, &pairs, &sims, Mode::All).unwrap();
        assert_eq!(got, all_by_definition(&first, &pairs, &sims));
        assert_eq!(
            all_pairs_count(&first, &pairs).unwrap(),
            got.similarity.len() as u64
        );
        let none = report_pairs(&[0, 1], &[], &[], Mode::All).unwrap();
        assert_eq!(none, Reported::default());
    }

    #[test]
    fn spanning_pairs_are_the_copies_and_the_near_pairs() {
        let first = [0, 0, 2, 0];
        let got = report_pairs(&first, &[2, 0], &[0.5], Mode::Spanning).unwrap();
        assert_eq!(got.pairs, vec![0, 1, 0, 2, 0, 3]);
        assert_eq!(got.similarity, vec![1.0, 0.5, 1.0]);
    }

    #[test]
    fn repeated_pairs_keep_the_order_they_were_made_in() {
        let got = report_pairs(&[0, 1], &[1, 0, 0, 1], &[0.25, 0.5], Mode::All).unwrap();
        assert_eq!(
            (got.pairs, got.similarity),
            (vec![0, 1, 0, 1], vec![0.25, 0.5])
        );
    }

    #[test]
    fn bad_groups_and_pairs_are_errors() {
        for first in [&[1, 1][..], &[0, 2, 0], &[-1], &[0, 0, 1]] {
            assert!(
                report_pairs(first, &[], &[], Mode::All).is_err(),
                "{first:?}"
            );
        }
        let first = [0, 0, 2];
        for pairs in [&[0, 1][..], &[0, 0], &[0, 3], &[-1, 2], &[0]] {
            assert!(
                report_pairs(&first, pairs, &[0.5], Mode::Spanning).is_err(),
                "{pairs:?}"
            );
            assert!(all_pairs_count(&first, pairs).is_err(), "{pairs:?}");
        }
        assert!(report_pairs(&first, &[0, 2], &[], Mode::All).is_err());
        assert!(Mode::parse("some").is_err());
    }

    #[test]
    fn label_pairs_are_sorted() {
        let got = label_pairs(&[5, -1, 5, 5, -1]).unwrap();
        assert_eq!(got, vec![0, 2, 0, 3, 1, 4, 2, 3]);
        assert!(label_pairs(&[]).unwrap().is_empty());
    }
}
