//! Debug-level timing of the phases of a longer operation (a sync, a search), logged with
//! `CODE_INTEL_LOG=code_intel=debug` so a slow call can be taken apart without a profiler.

use std::time::Instant;

pub struct Phases {
    what: &'static str,
    last: Instant,
}

impl Phases {
    pub fn start(what: &'static str) -> Phases {
        Phases {
            what,
            last: Instant::now(),
        }
    }

    /// Logs the time since the previous phase ended under `name`.
    pub fn done(&mut self, name: &str) {
        let now = Instant::now();
        tracing::debug!(
            "{} phase {name}: {} ms",
            self.what,
            (now - self.last).as_millis()
        );
        self.last = now;
    }
}
