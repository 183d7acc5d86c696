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

fn check_threads(threads: usize) -> Result<()> {
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
