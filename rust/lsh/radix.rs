//! LSD radix sort of u64 codes with few significant bits.

use crate::error::{reserve, Result};

/// Sorts u64 values whose bits above `significant` are zero: LSD radix sort with digits of at
/// most 12 bits (as few passes as that allows), skipping every digit on which all values agree.
pub fn radix_sort(values: &mut Vec<u64>, significant: usize) -> Result<()> {
    radix_sort_with(values, &mut Vec::new(), significant)
}

/// [`radix_sort`] with a caller-owned scratch buffer (resized as needed, fallibly).
pub(super) fn radix_sort_with(
    values: &mut Vec<u64>,
    buffer: &mut Vec<u64>,
    significant: usize,
) -> Result<()> {
    const MAX_DIGIT: usize = 12;
    let significant = significant.clamp(1, 64);
    let passes = significant.div_ceil(MAX_DIGIT);
    let digit = significant.div_ceil(passes);
    let buckets = 1usize << digit;
    if values.len() < 256 {
        values.sort_unstable();
        return Ok(());
    }
    buffer.clear();
    reserve(buffer, values.len(), "the sort buffer")?;
    buffer.resize(values.len(), 0);
    let mut shift = 0;
    let mut counts = vec![0usize; buckets];
    while shift < significant {
        counts.fill(0);
        for &v in values.iter() {
            counts[((v >> shift) as usize) & (buckets - 1)] += 1;
        }
        if counts.contains(&values.len()) {
            shift += digit;
            continue;
        }
        let mut total = 0;
        for c in counts.iter_mut() {
            let here = *c;
            *c = total;
            total += here;
        }
        for &v in values.iter() {
            let d = ((v >> shift) as usize) & (buckets - 1);
            buffer[counts[d]] = v;
            counts[d] += 1;
        }
        std::mem::swap(values, buffer);
        shift += digit;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn radix_sort_sorts() {
        let mut v: Vec<u64> = (0..10_000u64)
            .map(|i| crate::hashing::mix64(i) >> 20)
            .collect();
        let mut want = v.clone();
        want.sort_unstable();
        radix_sort(&mut v, 44).unwrap();
        assert_eq!(v, want);
        let mut w: Vec<u64> = (0..5_000u64).map(crate::hashing::mix64).collect();
        let mut want = w.clone();
        want.sort_unstable();
        radix_sort(&mut w, 64).unwrap();
        assert_eq!(w, want);
    }
}
