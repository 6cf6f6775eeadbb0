//! Progress reporting for long tool calls, without changing every tool's signature.
//!
//! A front end that can show progress (MCP with a progress token, the CLI) installs a sink for
//! the duration of one call with [`with_progress`]; a tool asks [`super::Context::progress`]
//! for a reporter and calls it. Tools that never report are unaffected, and a call without a
//! sink gets a reporter that does nothing. The sink is per thread because a call runs on one
//! (blocking) thread; work the tool fans out receives the reporter explicitly.

use std::cell::RefCell;
use std::sync::{Arc, Mutex};

/// Receives `(progress, total, message)`; `progress` never decreases within one call.
pub type ProgressSink = Arc<dyn Fn(f64, Option<f64>, &str) + Send + Sync>;

thread_local! {
    static SINK: RefCell<Option<ProgressSink>> = const { RefCell::new(None) };
}

/// Runs `f` with `sink` receiving the progress its tool reports.
pub fn with_progress<T>(sink: ProgressSink, f: impl FnOnce() -> T) -> T {
    let previous = SINK.with(|s| s.replace(Some(sink)));
    struct Restore(Option<ProgressSink>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            SINK.with(|s| *s.borrow_mut() = previous);
        }
    }
    let _restore = Restore(previous);
    f()
}

/// A reporter for the current call: thread-safe, monotonic, a no-op without a sink.
#[derive(Clone)]
pub struct Reporter {
    sink: Option<ProgressSink>,
    last: Arc<Mutex<f64>>,
}

impl Reporter {
    pub(super) fn current() -> Reporter {
        Reporter {
            sink: SINK.with(|s| s.borrow().clone()),
            last: Arc::new(Mutex::new(f64::MIN)),
        }
    }

    /// Reports `progress` of `total`; values below an earlier report are raised to it.
    pub fn report(&self, progress: f64, total: Option<f64>, message: &str) {
        let Some(sink) = &self.sink else {
            return;
        };
        let mut last = self.last.lock().unwrap_or_else(|p| p.into_inner());
        let value = progress.max(*last);
        *last = value;
        sink(value, total, message);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_reach_the_installed_sink_monotonically_and_only_there() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let into = seen.clone();
        let sink: ProgressSink = Arc::new(move |p, t, m| {
            into.lock().unwrap().push((p, t, m.to_string()));
        });
        with_progress(sink, || {
            let r = Reporter::current();
            r.report(1.0, Some(4.0), "a");
            r.report(0.5, Some(4.0), "b");
            let moved = r.clone();
            std::thread::spawn(move || moved.report(3.0, Some(4.0), "c"))
                .join()
                .unwrap();
        });
        Reporter::current().report(9.0, None, "outside");
        let seen = seen.lock().unwrap();
        let values: Vec<f64> = seen.iter().map(|(p, _, _)| *p).collect();
        assert_eq!(values, [1.0, 1.0, 3.0]);
        assert_eq!(seen[1].2, "b");
    }
}
