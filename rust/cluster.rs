//! Union-find: pairs become clusters; every cluster is labelled by its lowest document index,
//! over the near pairs of the first occurrences and the exact groups ([`labels_over_groups`]).

use crate::error::{reserve, Error, Result};

/// Disjoint sets over 0..n whose roots are always the lowest index of their set.
#[derive(Debug, Clone)]
pub struct UnionFind {
    parent: Vec<u32>,
}

impl UnionFind {
    /// The n singletons 0..n, or an error when n exceeds the u32 indices or memory.
    pub fn new(n: usize) -> Result<Self> {
        if n > u32::MAX as usize {
            return Err(Error::new(format!("n must be below 2**32, got {n}")));
        }
        let mut parent = Vec::new();
        reserve(&mut parent, n, "the clusters")?;
        parent.extend(0..n as u32);
        Ok(UnionFind { parent })
    }

    pub fn find(&mut self, mut x: u32) -> u32 {
        // Path halving: every other node on the way points to its grandparent.
        while self.parent[x as usize] != x {
            let grandparent = self.parent[self.parent[x as usize] as usize];
            self.parent[x as usize] = grandparent;
            x = grandparent;
        }
        x
    }

    /// Joins the sets of a and b; returns false when they were already one.
    pub fn union(&mut self, a: u32, b: u32) -> bool {
        let (ra, rb) = (self.find(a), self.find(b));
        if ra == rb {
            return false;
        }
        let (low, high) = if ra < rb { (ra, rb) } else { (rb, ra) };
        self.parent[high as usize] = low;
        true
    }

    /// Cluster label of every element: the lowest index of its set.
    pub fn labels(mut self) -> Result<Vec<i64>> {
        let mut labels = Vec::new();
        reserve(&mut labels, self.parent.len(), "the cluster labels")?;
        labels.extend((0..self.parent.len() as u32).map(|x| self.find(x) as i64));
        Ok(labels)
    }
}

/// Labels of the connected components of the graph on 0..n with edges `pairs`.
pub fn clusters(pairs: &[(i64, i64)], n: usize) -> Result<Vec<i64>> {
    let mut sets = UnionFind::new(n)?;
    for (row, &(a, b)) in pairs.iter().enumerate() {
        if a < 0 || b < 0 || a as usize >= n || b as usize >= n {
            return Err(Error::new(format!(
                "pairs[{row}] = ({a}, {b}) is out of range for n = {n}"
            )));
        }
        sets.union(a as u32, b as u32);
    }
    sets.labels()
}

/// int64[n] cluster labels (the lowest position of each cluster) of the documents whose first
/// exact duplicates are `first`, from the near `pairs` among the `selected` positions (first
/// occurrences, increasing; a pair holds indices into `selected`).
pub fn labels_over_groups(
    first: &[i64],
    selected: &[i64],
    pairs: &[(i64, i64)],
) -> Result<Vec<i64>> {
    let n = first.len();
    let mut last = -1;
    for (k, &s) in selected.iter().enumerate() {
        if s <= last || s as u64 >= n as u64 {
            return Err(Error::new(format!(
                "selected[{k}] = {s} is not an increasing position of the {n} documents"
            )));
        }
        last = s;
    }
    crate::rows::check_positions("first", first, n)?;
    let local = clusters(pairs, selected.len())?;
    let mut labels = Vec::new();
    reserve(&mut labels, n, "the cluster labels")?;
    labels.extend(0..n as i64);
    for (&s, &l) in selected.iter().zip(&local) {
        labels[s as usize] = selected[l as usize];
    }
    Ok(first.iter().map(|&f| labels[f as usize]).collect())
}

/// An order of `pairs` (edges on 0..n; every index < n) that visits each connected component's
/// pairs together, and keeps their given order within a component: a permutation of
/// 0..pairs.len().
///
/// Verifying pairs in this order reads each document's data from memory about once: near
/// duplicates come in small groups, so a group's data stays in cache while its pairs are
/// verified, where pairs sorted by first index return to each group once per member.
/// O(n + pairs) (union-find, then a counting sort by component).
pub fn component_order(pairs: &[(u32, u32)], n: usize) -> Result<Vec<u32>> {
    let mut sets = UnionFind::new(n)?;
    for &(a, b) in pairs {
        sets.union(a, b);
    }
    let component: Vec<u32> = pairs.iter().map(|&(a, _)| sets.find(a)).collect();
    // Counting sort by component: starts[c] is where component c's pairs begin.
    let mut starts = vec![0u32; n + 1];
    for &c in &component {
        starts[c as usize + 1] += 1;
    }
    for c in 0..n {
        starts[c + 1] += starts[c];
    }
    let mut order = vec![0u32; pairs.len()];
    for (k, &c) in component.iter().enumerate() {
        order[starts[c as usize] as usize] = k as u32;
        starts[c as usize] += 1;
    }
    Ok(order)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_are_labelled_by_lowest_member() {
        let labels = clusters(&[(4, 2), (2, 5), (1, 3)], 7).unwrap();
        assert_eq!(labels, vec![0, 1, 2, 1, 2, 2, 6]);
    }

    #[test]
    fn component_order_groups_components_and_keeps_order_within() {
        let pairs = [(0, 5), (1, 2), (3, 5), (2, 4), (0, 3), (6, 7)];
        // Components {0, 3, 5}, {1, 2, 4}, {6, 7}, labelled 0, 1 and 6.
        assert_eq!(component_order(&pairs, 8).unwrap(), vec![0, 2, 4, 1, 3, 5]);
        assert!(component_order(&[], 3).unwrap().is_empty());
    }

    #[test]
    fn labels_over_groups_join_the_copies_to_their_first() {
        // documents 0 and 2 are one set; 1 and 3 (positions of selected 1, 2) are near
        let first = [0, 1, 0, 3];
        assert_eq!(
            labels_over_groups(&first, &[0, 1, 3], &[(1, 2)]).unwrap(),
            vec![0, 1, 0, 1]
        );
        assert!(labels_over_groups(&first, &[0, 0], &[]).is_err());
        assert!(labels_over_groups(&first, &[4], &[]).is_err());
        assert!(labels_over_groups(&[0, 5], &[0], &[]).is_err());
        assert!(labels_over_groups(&first, &[0, 1], &[(0, 2)]).is_err());
    }

    #[test]
    fn out_of_range_pairs_are_errors() {
        assert!(clusters(&[(0, 3)], 3).is_err());
        assert!(clusters(&[(-1, 0)], 3).is_err());
    }

    #[test]
    fn n_beyond_u32_indices_is_an_error() {
        if usize::BITS > 32 {
            assert!(matches!(
                clusters(&[], u32::MAX as usize + 1),
                Err(crate::error::Error::InvalidArgument(_))
            ));
        }
    }
}
