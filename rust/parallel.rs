//! Optional multi-core execution. Single-threaded is the default and runs with no thread pool.

use crate::error::{Error, Result};
use rayon::prelude::*;

/// Documents per task when running on several threads: large enough to amortise scheduling,
/// small enough to balance uneven document lengths.
const ROWS_PER_TASK: usize = 512;

/// More threads than any machine has cores: a larger count is a mistake, and would spawn that
/// many OS threads before failing.
pub const MAX_THREADS: usize = 1024;

/// `work(rows)` over consecutive blocks of `0..rows` on `threads` threads (1 = one block, on
/// the caller's thread), the results in block order: for passes whose outputs are not one
/// matrix of fixed-width rows.
pub fn map_blocks<R, F>(rows: usize, threads: usize, work: F) -> Result<Vec<R>>
where
    R: Send,
    F: Fn(std::ops::Range<usize>) -> R + Sync + Send,
{
    check_threads(threads)?;
    if threads == 1 {
        return Ok(vec![work(0..rows)]);
    }
    let pool = pool(threads)?;
    Ok(pool.install(|| {
        (0..rows.div_ceil(ROWS_PER_TASK))
            .into_par_iter()
            .map(|block| work(block * ROWS_PER_TASK..((block + 1) * ROWS_PER_TASK).min(rows)))
            .collect()
    }))
}

/// `work(task)` for every task of `0..tasks` on `threads` threads (1 = in order, on the caller's
/// thread), the results in task order: for passes split into a few coarse tasks (bands, waves,
/// ranges of pairs) rather than blocks of rows.
pub fn map_tasks<R, F>(tasks: usize, threads: usize, work: F) -> Result<Vec<R>>
where
    R: Send,
    F: Fn(usize) -> R + Sync + Send,
{
    check_threads(threads)?;
    if threads == 1 || tasks < 2 {
        return Ok((0..tasks).map(work).collect());
    }
    let pool = pool(threads.min(tasks))?;
    Ok(pool.install(|| {
        (0..tasks)
            .into_par_iter()
            .with_max_len(1)
            .map(work)
            .collect()
    }))
}

/// Sorts `values` on `threads` threads (1 = `sort_unstable` on the caller's thread). The
/// result is the same sorted slice whatever the thread count when no two values are equal,
/// or when equal values are indistinguishable.
pub fn sort_unstable<T: Ord + Send>(values: &mut [T], threads: usize) -> Result<()> {
    check_threads(threads)?;
    if threads == 1 || values.len() < 1 << 14 {
        values.sort_unstable();
        return Ok(());
    }
    pool(threads)?.install(|| values.par_sort_unstable());
    Ok(())
}

/// `0..len` cut into at most `parts` consecutive ranges of nearly equal length (none empty
/// unless `len` is 0, then one empty range).
pub fn split(len: usize, parts: usize) -> Vec<std::ops::Range<usize>> {
    let parts = parts.clamp(1, len.max(1));
    (0..parts)
        .map(|p| len * p / parts..len * (p + 1) / parts)
        .collect()
}

/// Checks a thread count: 1 to [`MAX_THREADS`].
pub fn check_threads(threads: usize) -> Result<()> {
    if threads == 0 {
        return Err(Error::new("threads must be at least 1"));
    }
    if threads > MAX_THREADS {
        return Err(Error::new(format!(
            "threads must be at most {MAX_THREADS}, got {threads}"
        )));
    }
    Ok(())
}

fn pool(threads: usize) -> Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| Error::new(format!("could not start {threads} threads: {e}")))
}

/// Calls `work(first_row, rows)` over consecutive blocks of `row_len`-wide rows of `out`,
/// on `threads` threads (1 = on the caller's thread). `work` builds its own scratch state.
pub fn for_row_blocks<T, F>(out: &mut [T], row_len: usize, threads: usize, work: F) -> Result<()>
where
    T: Send,
    F: Fn(usize, &mut [T]) + Sync + Send,
{
    check_threads(threads)?;
    if row_len == 0 || out.is_empty() {
        return Ok(());
    }
    if threads == 1 {
        work(0, out);
        return Ok(());
    }
    let pool = pool(threads)?;
    pool.install(|| {
        out.par_chunks_mut(row_len * ROWS_PER_TASK)
            .enumerate()
            .for_each(|(block, rows)| work(block * ROWS_PER_TASK, rows));
    });
    Ok(())
}
