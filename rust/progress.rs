//! Progress of one long call, read by another thread: the work names its steps
//! ([`begin`]) and counts what it has done in each ([`advance`]); the thread that waits for
//! it takes the counts made since it last looked ([`Progress::updates`]) and shows them.
//!
//! The work finds its [`Progress`] through the thread it runs on ([`reporting`]); the
//! parallel helpers hand it to their pool threads ([`current`]), so a stage deep in the
//! call reports without a parameter through every function between. Without one, [`begin`]
//! and [`advance`] do nothing.

use std::cell::RefCell;
use std::sync::{Arc, Mutex};

/// One step of the work: its name, the unit it counts in, what it has done, what of that
/// was already taken by [`Progress::updates`], and whether that has seen it at all.
struct Step {
    name: &'static str,
    unit: &'static str,
    done: u64,
    taken: u64,
    seen: bool,
}

/// The steps of one call, in the order they began.
#[derive(Default)]
pub struct Progress {
    steps: Mutex<Vec<Step>>,
}

impl Progress {
    pub fn new() -> Arc<Self> {
        Arc::new(Progress::default())
    }

    fn steps(&self) -> std::sync::MutexGuard<'_, Vec<Step>> {
        // a thread that panicked holding it left counts only: they are still good to show
        self.steps
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Starts the step `name`, counted in `unit` (a step begun again goes on counting).
    pub fn begin(&self, name: &'static str, unit: &'static str) {
        let mut steps = self.steps();
        if steps.last().is_some_and(|step| step.name == name) {
            return;
        }
        steps.push(Step {
            name,
            unit,
            done: 0,
            taken: 0,
            seen: false,
        });
    }

    /// Counts `n` more done in the current step (none begun: nothing).
    pub fn advance(&self, n: u64) {
        if let Some(step) = self.steps().last_mut() {
            step.done += n;
        }
    }

    /// (step, unit, done since the last call) of every step that began or moved since then,
    /// in order: a step begun and ended between two calls is still seen once.
    pub fn updates(&self) -> Vec<(&'static str, &'static str, u64)> {
        let mut steps = self.steps();
        let mut out = Vec::new();
        for step in steps.iter_mut() {
            let new = step.done - step.taken;
            if new > 0 || !step.seen {
                out.push((step.name, step.unit, new));
            }
            step.taken = step.done;
            step.seen = true;
        }
        out
    }
}

thread_local! {
    /// The progress of the call running on this thread (set by [`reporting`]).
    static CURRENT: RefCell<Option<Arc<Progress>>> = const { RefCell::new(None) };
}

/// `work()`, with `progress` as this thread's until it returns (or unwinds).
pub fn reporting<T>(progress: Option<Arc<Progress>>, work: impl FnOnce() -> T) -> T {
    /// Puts the thread's earlier progress back when dropped, even by a panic that a caller
    /// catches: the thread goes on serving other calls.
    struct Restore(Option<Arc<Progress>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let before = self.0.take();
            CURRENT.with(|current| *current.borrow_mut() = before);
        }
    }
    let _restore = Restore(CURRENT.with(|current| current.replace(progress)));
    work()
}

/// The progress of the call running on this thread, to hand to the threads that help it.
pub fn current() -> Option<Arc<Progress>> {
    CURRENT.with(|current| current.borrow().clone())
}

/// Starts the step `name` of this thread's call (see [`Progress::begin`]).
pub fn begin(name: &'static str, unit: &'static str) {
    if let Some(progress) = current() {
        progress.begin(name, unit);
    }
}

/// Counts `n` more done in this thread's call (see [`Progress::advance`]).
pub fn advance(n: u64) {
    if let Some(progress) = current() {
        progress.advance(n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn updates_are_what_was_done_since_the_last_look_step_by_step() {
        let progress = Progress::new();
        reporting(Some(progress.clone()), || {
            begin("search", "bands");
            advance(2);
            advance(3);
        });
        assert_eq!(progress.updates(), vec![("search", "bands", 5)]);
        assert_eq!(progress.updates(), vec![]);
        reporting(Some(progress.clone()), || {
            advance(1);
            begin("verify", "pairs");
            advance(7);
            begin("cluster", "documents"); // begun, nothing done yet: still shown
        });
        assert_eq!(
            progress.updates(),
            vec![
                ("search", "bands", 1),
                ("verify", "pairs", 7),
                ("cluster", "documents", 0)
            ]
        );
        assert_eq!(progress.updates(), vec![]);
    }

    #[test]
    fn without_a_progress_nothing_is_counted_and_the_outer_one_comes_back() {
        begin("search", "bands"); // no progress on this thread: nothing happens
        advance(3);
        let (outer, inner) = (Progress::new(), Progress::new());
        reporting(Some(outer.clone()), || {
            reporting(Some(inner.clone()), || {
                begin("inner", "x");
                advance(1);
            });
            begin("outer", "y");
            advance(2);
        });
        assert_eq!(inner.updates(), vec![("inner", "x", 1)]);
        assert_eq!(outer.updates(), vec![("outer", "y", 2)]);
        assert!(current().is_none());
        // a panic inside the call (caught by its caller) leaves the thread as it was
        let caught = std::panic::catch_unwind(|| reporting(Some(Progress::new()), || panic!()));
        assert!(caught.is_err() && current().is_none());
    }
}
