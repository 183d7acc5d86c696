//! A fingerprint as one integer: `u64` for 64 bits, `u128` for 128 (word 0 in the low half),
//! so that masking a table's key and counting differing bits are single operations.

use std::ops::{BitAnd, BitOr, BitXor, Not};

/// The operations the search needs on a fingerprint.
pub trait Bits:
    Copy
    + Ord
    + Eq
    + Send
    + Sync
    + std::fmt::Debug
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Not<Output = Self>
    + 'static
{
    /// u64 words per fingerprint.
    const WORDS: usize;
    /// Bits per fingerprint.
    const BITS: u32;
    /// No bit set.
    fn zero() -> Self;
    /// Every bit set.
    fn all() -> Self {
        !Self::zero()
    }
    /// Only bit `i` set.
    fn bit(i: u32) -> Self;
    /// Bits set.
    fn ones(self) -> u32;
    /// The fingerprint of one row of `WORDS` words.
    fn from_row(row: &[u64]) -> Self;
    /// The low `BITS` bits of `x`.
    fn from_u128(x: u128) -> Self;
    /// The bits as a u128 (zero-extended).
    fn to_u128(self) -> u128;
    /// Positions of the set bits, increasing.
    fn positions(self) -> Vec<u32> {
        (0..Self::BITS)
            .filter(|&i| self & Self::bit(i) != Self::zero())
            .collect()
    }
}

impl Bits for u64 {
    const WORDS: usize = 1;
    const BITS: u32 = 64;
    #[inline]
    fn zero() -> Self {
        0
    }
    #[inline]
    fn bit(i: u32) -> Self {
        1 << i
    }
    #[inline(always)]
    fn ones(self) -> u32 {
        self.count_ones()
    }
    #[inline]
    fn from_row(row: &[u64]) -> Self {
        row[0]
    }
    #[inline]
    fn from_u128(x: u128) -> Self {
        x as u64
    }
    #[inline]
    fn to_u128(self) -> u128 {
        self as u128
    }
}

impl Bits for u128 {
    const WORDS: usize = 2;
    const BITS: u32 = 128;
    #[inline]
    fn zero() -> Self {
        0
    }
    #[inline]
    fn bit(i: u32) -> Self {
        1 << i
    }
    #[inline(always)]
    fn ones(self) -> u32 {
        self.count_ones()
    }
    #[inline]
    fn from_row(row: &[u64]) -> Self {
        row[0] as u128 | (row[1] as u128) << 64
    }
    #[inline]
    fn from_u128(x: u128) -> Self {
        x
    }
    #[inline]
    fn to_u128(self) -> u128 {
        self
    }
}

/// Hamming distance of two fingerprints.
#[inline(always)]
pub fn distance<B: Bits>(a: B, b: B) -> u32 {
    (a ^ b).ones()
}
