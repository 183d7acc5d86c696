//! The interrupt flag (`parallel::interrupt`, set by the binding on Ctrl-C during a long call)
//! stops the helpers at their next task. A test binary of its own, with one test: the flag is
//! the process's, and the tests of one binary run side by side.

use _core::error::Error;
use _core::lsh::{bucket_components, candidates, BucketRule};
use _core::parallel::{clear_interrupt, interrupt, map_tasks, share_tasks};
use std::sync::atomic::{AtomicUsize, Ordering};

#[test]
fn an_interrupt_stops_the_work_at_its_next_task_and_clearing_it_lets_work_run() {
    for threads in [1, 2] {
        let done = AtomicUsize::new(0);
        let out = map_tasks(1000, threads, |task| {
            if task == 10 {
                interrupt();
            }
            done.fetch_add(1, Ordering::Relaxed);
            task
        });
        assert_eq!(out.unwrap_err(), Error::Interrupted, "threads={threads}");
        assert!(done.load(Ordering::Relaxed) < 1000, "threads={threads}");
        clear_interrupt();

        let done = AtomicUsize::new(0);
        let out = share_tasks(
            1000,
            threads,
            || 0usize,
            |count, task| {
                if task == 10 {
                    interrupt();
                }
                *count += 1;
                done.fetch_add(1, Ordering::Relaxed);
            },
            |count| count,
        );
        assert_eq!(out.unwrap_err(), Error::Interrupted, "threads={threads}");
        assert!(done.load(Ordering::Relaxed) < 1000, "threads={threads}");
        clear_interrupt();
        assert_eq!(map_tasks(4, threads, |t| t * 2).unwrap(), vec![0, 2, 4, 6]);
    }

    // a stage asked to stop before it starts does no band at all
    let (n, num_perm) = (300, 8);
    let signatures: Vec<u32> = (0..n * num_perm)
        .map(|x| (_core::hashing::mix64(x as u64) % 7) as u32)
        .collect();
    let rule = BucketRule::WHOLE;
    interrupt();
    let stopped = bucket_components(&signatures, num_perm, 4, 2, rule, 1);
    assert_eq!(stopped.unwrap_err(), Error::Interrupted);
    let stopped = candidates(&signatures, num_perm, 4, 2, rule, None, 1, None);
    assert_eq!(stopped.err(), Some(Error::Interrupted));
    clear_interrupt();
    let whole = bucket_components(&signatures, num_perm, 4, 2, rule, 1).unwrap();
    assert_eq!(whole.labels.len(), n);
}
