//! The x86 kernels of [`super::intersection_size_u64`] (one loop written once, a macro,
//! compiled for AVX2 and for AVX-512VL) and of [`super::intersection_sizes`] (four merges
//! interleaved, AVX2); the callers choose at run time.

use super::intersection_size;

/// `super::intersection_size_u64_generic` written with x86 vector intrinsics, one function per
/// instruction set: `$name` with `$features` (and any attributes given first), combining
/// eight compare results with `$any8`.
///
/// A block of eight is two registers of four lanes; each `y` register is also taken with its
/// 64-bit halves swapped within each 128-bit lane (an in-lane shuffle), with its lanes swapped
/// (the one lane-crossing shuffle) and with both, so every `x` lane meets every `y` element in
/// 16 compares. An `x` element equals at most one `y` element (sets hold no repeats), so the
/// OR of its compares is all-ones exactly when it is common, and subtracting that mask counts
/// it in a vector accumulator: no mask leaves the vector registers inside the loop. (Rotating
/// with three lane-crossing permutes and counting with MOVEMASK + POPCNT, as before, was 1.5×
/// slower on Zen 4: the shuffle ports were the bottleneck.)
macro_rules! blocked_intersection {
    ($(#[$attribute:meta])* $name:ident, $features:literal, $any8:ident) => {
        $(#[$attribute])*
        #[target_feature(enable = $features)]
        pub(super) unsafe fn $name(a: &[u64], b: &[u64]) -> usize {
            use std::arch::x86_64::{
                __m256i, _mm256_add_epi64, _mm256_loadu_si256, _mm256_permute4x64_epi64,
                _mm256_setzero_si256, _mm256_shuffle_epi32, _mm256_storeu_si256, _mm256_sub_epi64,
            };
            const W: usize = 8;
            // Macros rather than helper functions: a nested function would not inherit the
            // target features. `y`, its halves swapped within 128-bit lanes, its lanes
            // swapped, and both.
            macro_rules! permutations {
                ($y:expr) => {{
                    let y = $y;
                    let lanes = _mm256_permute4x64_epi64::<0x4e>(y);
                    [
                        y,
                        _mm256_shuffle_epi32::<0x4e>(y),
                        lanes,
                        _mm256_shuffle_epi32::<0x4e>(lanes),
                    ]
                }};
            }
            let (mut i, mut j) = (0, 0);
            let (mut count0, mut count1) = (_mm256_setzero_si256(), _mm256_setzero_si256());
            while i + W <= a.len() && j + W <= b.len() {
                // SAFETY: i + 8 <= a.len() and j + 8 <= b.len() (the loop condition), so the
                // four unaligned 32-byte loads read a[i..i + 8] and b[j..j + 8], inside the
                // slices.
                let (x0, x1, y0, y1) = unsafe {
                    let (pa, pb) = (a.as_ptr().add(i), b.as_ptr().add(j));
                    (
                        _mm256_loadu_si256(pa as *const __m256i),
                        _mm256_loadu_si256(pa.add(4) as *const __m256i),
                        _mm256_loadu_si256(pb as *const __m256i),
                        _mm256_loadu_si256(pb.add(4) as *const __m256i),
                    )
                };
                let (y0, y1) = (permutations!(y0), permutations!(y1));
                count0 = _mm256_sub_epi64(count0, $any8!(x0, y0, y1));
                count1 = _mm256_sub_epi64(count1, $any8!(x1, y0, y1));
                let (xl, yl) = (a[i + W - 1], b[j + W - 1]);
                i += W * (xl <= yl) as usize;
                j += W * (yl <= xl) as usize;
            }
            let mut lanes = [0u64; 4];
            // SAFETY: `lanes` is 32 bytes, the size of the unaligned store.
            unsafe {
                _mm256_storeu_si256(
                    lanes.as_mut_ptr() as *mut __m256i,
                    _mm256_add_epi64(count0, count1),
                )
            };
            lanes.iter().sum::<u64>() as usize + intersection_size(&a[i..], &b[j..])
        }
    };
}

/// All-ones in the lanes of `x` that equal a lane of one of the four permutations of `y` or
/// of `z`: eight compares and a tree of seven ORs.
macro_rules! any8_or {
    ($x:expr, $y:expr, $z:expr) => {{
        use std::arch::x86_64::{_mm256_cmpeq_epi64 as eq, _mm256_or_si256 as or};
        let (x, y, z) = ($x, $y, $z);
        or(
            or(or(eq(x, y[0]), eq(x, y[1])), or(eq(x, y[2]), eq(x, y[3]))),
            or(or(eq(x, z[0]), eq(x, z[1])), or(eq(x, z[2]), eq(x, z[3]))),
        )
    }};
}

/// [`any8_or`] with AVX-512VL's three-input logic: three ternary ORs and one OR.
#[cfg(neardup_avx512)]
macro_rules! any8_ternary {
    ($x:expr, $y:expr, $z:expr) => {{
        use std::arch::x86_64::{
            _mm256_cmpeq_epi64 as eq, _mm256_or_si256 as or, _mm256_ternarylogic_epi64,
        };
        // 0xFE: the OR of the three inputs.
        let or3 = |p, q, r| _mm256_ternarylogic_epi64::<0xFE>(p, q, r);
        let (x, y, z) = ($x, $y, $z);
        let low = or3(eq(x, y[0]), eq(x, y[1]), eq(x, y[2]));
        let high = or3(eq(x, y[3]), eq(x, z[0]), eq(x, z[1]));
        or(or3(eq(x, z[2]), eq(x, z[3]), low), high)
    }};
}

blocked_intersection!(intersection_size_u64_avx2, "avx2", any8_or);
#[cfg(neardup_avx512)]
blocked_intersection!(
    #[allow(clippy::incompatible_msrv)] // compiled only by Rust >= 1.89 (build.rs sets the cfg)
    intersection_size_u64_avx512,
    "avx512f,avx512vl,avx2",
    any8_ternary
);

/// [`super::intersection_sizes`] with AVX2: four merges at once, each in blocks of four.
///
/// One merge's step is a chain (load the blocks' last elements, compare, move a cursor, load
/// again); four independent merges in one loop overlap their chains. Blocks of four take half
/// the lane compares per element of blocks of eight (one register against the four orders of
/// the other), though as many shuffles and more loads. A merge that runs out of whole blocks
/// ends one element at a time and its slot takes the next pair; when no pair is left, the
/// slots still running finish with [`super::intersection_size_u64`] from where they stand (the
/// blocked merge's state is a valid start for any merge of the rest). On Zen 4 this took the
/// article corpus's 279 k candidate merges from 349 to 327 ns each, memory included
/// (`cargo run --release --example verify_times`), against one AVX-512 merge at a time.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn intersection_sizes_avx2<'s>(
    count: usize,
    pair: &dyn Fn(usize) -> (&'s [u64], &'s [u64]),
    visit: &mut dyn FnMut(usize, usize),
) {
    use std::arch::x86_64::{
        __m256i, _mm256_cmpeq_epi64 as eq, _mm256_loadu_si256, _mm256_or_si256 as or,
        _mm256_permute4x64_epi64, _mm256_setzero_si256, _mm256_shuffle_epi32, _mm256_storeu_si256,
        _mm256_sub_epi64,
    };
    const SLOTS: usize = 4;
    const W: usize = 4;
    /// A merge in progress: the pair at `position`, its cursors, its vector count.
    #[derive(Clone, Copy)]
    struct Slot<'s> {
        a: &'s [u64],
        b: &'s [u64],
        i: usize,
        j: usize,
        position: usize,
        common: __m256i,
    }
    let total = |common: __m256i| {
        let mut lanes = [0u64; 4];
        // SAFETY: `lanes` is 32 bytes, the size of the unaligned store.
        unsafe { _mm256_storeu_si256(lanes.as_mut_ptr() as *mut __m256i, common) };
        lanes.iter().sum::<u64>() as usize
    };
    let start = |position: usize| {
        let (a, b) = pair(position);
        super::prefetch_ahead(count, position, pair);
        Slot {
            a,
            b,
            i: 0,
            j: 0,
            position,
            common: _mm256_setzero_si256(),
        }
    };
    if count < SLOTS {
        return super::one_at_a_time(count, pair, visit);
    }
    let mut slots: [Slot<'s>; SLOTS] = std::array::from_fn(start);
    let mut next = SLOTS;
    'merging: loop {
        for slot in slots.iter_mut() {
            while slot.i + W > slot.a.len() || slot.j + W > slot.b.len() {
                let tail = super::intersection_size(&slot.a[slot.i..], &slot.b[slot.j..]);
                visit(slot.position, total(slot.common) + tail);
                if next == count {
                    // Marks the slot done for the finish below.
                    slot.position = usize::MAX;
                    break 'merging;
                }
                *slot = start(next);
                next += 1;
            }
        }
        // The four merges step together, their state in registers, until one of them runs
        // out of whole blocks. A cursor is a pointer; `last_*` is the last position where a
        // whole block starts.
        macro_rules! cursors {
            ($slot:expr) => {{
                let slot = &$slot;
                let (a, b) = (slot.a.as_ptr(), slot.b.as_ptr());
                // SAFETY: i + 4 <= a.len() and j + 4 <= b.len() (the refill above), so every
                // pointer here is inside its slice.
                unsafe {
                    (
                        a.add(slot.i),
                        a.add(slot.a.len() - W),
                        b.add(slot.j),
                        b.add(slot.b.len() - W),
                        slot.common,
                    )
                }
            }};
        }
        let (mut x0, last_x0, mut y0, last_y0, mut c0) = cursors!(slots[0]);
        let (mut x1, last_x1, mut y1, last_y1, mut c1) = cursors!(slots[1]);
        let (mut x2, last_x2, mut y2, last_y2, mut c2) = cursors!(slots[2]);
        let (mut x3, last_x3, mut y3, last_y3, mut c3) = cursors!(slots[3]);
        // One block step of one merge: `y` in its four orders (as is, halves swapped within
        // 128-bit lanes, lanes swapped, both) so that every x lane meets every y lane once;
        // then the block with the smaller last element moves on (both when equal).
        macro_rules! step {
            ($x:ident, $y:ident, $c:ident) => {{
                // SAFETY: the loop condition keeps each cursor at or before its last whole
                // block, so the 32-byte loads and the reads of element 3 stay in the slices.
                let (x, y, xl, yl) = unsafe {
                    (
                        _mm256_loadu_si256($x as *const __m256i),
                        _mm256_loadu_si256($y as *const __m256i),
                        *$x.add(W - 1),
                        *$y.add(W - 1),
                    )
                };
                let lanes = _mm256_permute4x64_epi64::<0x4e>(y);
                let found = or(
                    or(eq(x, y), eq(x, _mm256_shuffle_epi32::<0x4e>(y))),
                    or(eq(x, lanes), eq(x, _mm256_shuffle_epi32::<0x4e>(lanes))),
                );
                $c = _mm256_sub_epi64($c, found);
                $x = $x.wrapping_add(W * (xl <= yl) as usize);
                $y = $y.wrapping_add(W * (yl <= xl) as usize);
            }};
        }
        while x0 <= last_x0
            && y0 <= last_y0
            && x1 <= last_x1
            && y1 <= last_y1
            && x2 <= last_x2
            && y2 <= last_y2
            && x3 <= last_x3
            && y3 <= last_y3
        {
            step!(x0, y0, c0);
            step!(x1, y1, c1);
            step!(x2, y2, c2);
            step!(x3, y3, c3);
        }
        for (slot, (x, y, c)) in
            slots
                .iter_mut()
                .zip([(x0, y0, c0), (x1, y1, c1), (x2, y2, c2), (x3, y3, c3)])
        {
            // SAFETY: both cursors point into (or one block past the last whole block of)
            // their slices, at or after the slices' starts.
            unsafe {
                slot.i = x.offset_from(slot.a.as_ptr()) as usize;
                slot.j = y.offset_from(slot.b.as_ptr()) as usize;
            }
            slot.common = c;
        }
    }
    for slot in slots.iter().filter(|slot| slot.position != usize::MAX) {
        let rest = super::intersection_size_u64(&slot.a[slot.i..], &slot.b[slot.j..]);
        visit(slot.position, total(slot.common) + rest);
    }
}
