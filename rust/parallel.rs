//! Optional multi-core execution. Single-threaded is the default and runs with no thread pool.

use crate::error::{Error, Result};
use rayon::prelude::*;

/// Documents per task when running on several threads: large enough to amortise scheduling,
/// small enough to balance uneven document lengths.
const ROWS_PER_TASK: usize = 512;

/// More threads than any machine has cores: a larger count is a mistake, and would spawn that
/// many OS threads before failing.
pub const MAX_THREADS: usize = 1024;

/// Calls `work(first_row, rows)` over consecutive blocks of `row_len`-wide rows of `out`,
/// on `threads` threads (1 = on the caller's thread). `work` builds its own scratch state.
pub fn for_row_blocks<T, F>(out: &mut [T], row_len: usize, threads: usize, work: F) -> Result<()>
where
    T: Send,
    F: Fn(usize, &mut [T]) + Sync + Send,
{
    if threads == 0 {
        return Err(Error::new("threads must be at least 1"));
    }
    if threads > MAX_THREADS {
        return Err(Error::new(format!(
            "threads must be at most {MAX_THREADS}, got {threads}"
        )));
    }
    if row_len == 0 || out.is_empty() {
        return Ok(());
    }
    if threads == 1 {
        work(0, out);
        return Ok(());
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| Error::new(format!("could not start {threads} threads: {e}")))?;
    pool.install(|| {
        out.par_chunks_mut(row_len * ROWS_PER_TASK)
            .enumerate()
            .for_each(|(block, rows)| work(block * ROWS_PER_TASK, rows));
    });
    Ok(())
}
