//! Optional multi-core execution. Single-threaded is the default and runs with no thread pool.

use crate::error::{Error, Result};
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// Set while the work of the process should stop (Ctrl-C during a long call): the helpers
/// below check it before each task or block, so a stage returns [`Error::Interrupted`] within
/// one task's time. One flag for the process: an interrupt is meant for all of its work.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Asks every running stage to stop at its next task.
pub fn interrupt() {
    INTERRUPTED.store(true, Ordering::Relaxed);
}

/// Lets work run again (after the interrupted call has returned).
pub fn clear_interrupt() {
    INTERRUPTED.store(false, Ordering::Relaxed);
}

/// [`Error::Interrupted`] once [`interrupt`] was called: for loops that run long between the
/// helpers' checks.
pub fn check_interrupt() -> Result<()> {
    if INTERRUPTED.load(Ordering::Relaxed) {
        return Err(Error::Interrupted);
    }
    Ok(())
}

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
    check_interrupt()?;
    if threads == 1 {
        return Ok(vec![work(0..rows)]);
    }
    let pool = pool(threads)?;
    let blocks: Vec<Option<R>> = pool.install(|| {
        (0..rows.div_ceil(ROWS_PER_TASK))
            .into_par_iter()
            .map(|block| {
                let range = block * ROWS_PER_TASK..((block + 1) * ROWS_PER_TASK).min(rows);
                check_interrupt().ok().map(|()| work(range))
            })
            .collect()
    });
    completed(blocks)
}

/// The results of every task, or [`Error::Interrupted`] when some were skipped.
fn completed<R>(results: Vec<Option<R>>) -> Result<Vec<R>> {
    results
        .into_iter()
        .map(|r| r.ok_or(Error::Interrupted))
        .collect()
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
        return (0..tasks)
            .map(|task| check_interrupt().map(|()| work(task)))
            .collect();
    }
    let pool = pool(threads.min(tasks))?;
    let results: Vec<Option<R>> = pool.install(|| {
        (0..tasks)
            .into_par_iter()
            .with_max_len(1)
            .map(|task| check_interrupt().ok().map(|()| work(task)))
            .collect()
    });
    completed(results)
}

/// Tasks `0..tasks` taken in increasing order, each by the first of `workers` free, on
/// `threads` threads (1 = all in order by one worker on the caller's thread): every worker
/// builds its state with `init`, does `work(&mut state, task)` for each task it takes, and
/// gives `finish(state)`. Which worker did a task depends on timing, so the caller must
/// combine the results in a way that does not (a union, a sum): a slow thread, or one that
/// other jobs on the machine hold up, takes fewer tasks instead of holding up the rest. Each
/// task done advances the calling thread's progress ([`crate::progress`]) by one.
pub fn share_tasks<S, R, I, W, F>(
    tasks: usize,
    threads: usize,
    init: I,
    work: W,
    finish: F,
) -> Result<Vec<R>>
where
    R: Send,
    I: Fn() -> S + Sync + Send,
    W: Fn(&mut S, usize) + Sync + Send,
    F: Fn(S) -> R + Sync + Send,
{
    let next = std::sync::atomic::AtomicUsize::new(0);
    let workers = threads.min(tasks).max(1);
    let progress = crate::progress::current(); // each task done is one more of its step
    let results = map_tasks(workers, threads, |_| {
        let mut state = init();
        loop {
            let task = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            if task >= tasks || INTERRUPTED.load(Ordering::Relaxed) {
                break;
            }
            work(&mut state, task);
            if let Some(progress) = &progress {
                progress.advance(1);
            }
        }
        finish(state)
    })?;
    // a worker that stopped early left tasks undone: its state is not the whole answer
    check_interrupt()?;
    Ok(results)
}

/// `(a(), b())`, side by side on `threads` threads (1 = `a` then `b` on the caller's thread):
/// for a serial step that can overlap the parallel preparation of the next.
pub fn join<RA, RB, A, B>(threads: usize, a: A, b: B) -> Result<(RA, RB)>
where
    RA: Send,
    RB: Send,
    A: FnOnce() -> RA + Send,
    B: FnOnce() -> RB + Send,
{
    check_threads(threads)?;
    if threads == 1 {
        let first = a();
        return Ok((first, b()));
    }
    Ok(pool(threads)?.install(|| rayon::join(a, b)))
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

/// Copies `parts`, one after another, into the front of `dest` (which must hold them all), on
/// `threads` threads (1 = in order on the caller's thread). For buffers written once: the
/// copy faults in and zeroes the destination's fresh pages, work that a single thread would
/// do alone while the others wait.
pub fn copy_concat<T: Copy + Send + Sync>(
    dest: &mut [T],
    parts: &[&[T]],
    threads: usize,
) -> Result<()> {
    check_threads(threads)?;
    let total: usize = parts.iter().map(|p| p.len()).sum();
    if total > dest.len() {
        return Err(Error::new(format!(
            "{total} values do not fit a buffer of {}",
            dest.len()
        )));
    }
    let mut pairs = Vec::with_capacity(parts.len());
    let mut rest = dest;
    for part in parts {
        let (room, tail) = std::mem::take(&mut rest).split_at_mut(part.len());
        pairs.push((room, *part));
        rest = tail;
    }
    if threads == 1 || parts.len() < 2 {
        for (room, part) in pairs {
            room.copy_from_slice(part);
        }
        return Ok(());
    }
    pool(threads)?.install(|| {
        pairs
            .into_par_iter()
            .with_max_len(1)
            .for_each(|(room, part)| room.copy_from_slice(part))
    });
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

/// The pool of the thread count last asked for, with the process that started it: kept
/// (its threads sleep between calls) so that a stage called per batch, or a pass of short
/// parallel steps, does not start threads every time. Another count replaces it.
static POOL: Mutex<Option<(usize, u32, Arc<rayon::ThreadPool>)>> = Mutex::new(None);

/// A pool of `threads` threads, named `neardup-<i>` (benches/stage_threads.py reads their CPU
/// time by name).
fn pool(threads: usize) -> Result<Arc<rayon::ThreadPool>> {
    let mut slot = POOL.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let pid = std::process::id();
    match slot.take() {
        Some((count, owner, pool)) if count == threads && owner == pid => {
            *slot = Some((count, owner, Arc::clone(&pool)));
            return Ok(pool);
        }
        // A forked child holds the parent's pool without its threads: forget it (dropping
        // would signal threads that do not exist here) and start its own.
        Some((_, owner, pool)) if owner != pid => std::mem::forget(pool),
        _ => {}
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("neardup-{i}"))
        .build()
        .map_err(|e| Error::new(format!("could not start {threads} threads: {e}")))?;
    let pool = Arc::new(pool);
    *slot = Some((threads, pid, Arc::clone(&pool)));
    Ok(pool)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_concat_puts_the_parts_in_order_at_the_front_on_any_thread_count() {
        let parts: Vec<Vec<u64>> = (0..7u64)
            .map(|p| (0..p * 3).map(|v| p * 100 + v).collect())
            .collect();
        let views: Vec<&[u64]> = parts.iter().map(Vec::as_slice).collect();
        let expected: Vec<u64> = parts.concat();
        for threads in [1, 2, 3] {
            let mut dest = vec![u64::MAX; expected.len() + 5];
            copy_concat(&mut dest, &views, threads).unwrap();
            assert_eq!(&dest[..expected.len()], expected.as_slice());
            assert!(dest[expected.len()..].iter().all(|&v| v == u64::MAX));
        }
    }

    #[test]
    fn copy_concat_refuses_parts_that_do_not_fit() {
        let mut dest = vec![0u64; 3];
        let parts: [&[u64]; 2] = [&[1, 2], &[3, 4]];
        assert!(copy_concat(&mut dest, &parts, 2).is_err());
        assert_eq!(dest, [0, 0, 0]);
    }
}
