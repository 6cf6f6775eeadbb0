//! Background work (the start-up sync, embedding, the model load, store maintenance) runs at
//! the lowest CPU priority, so a tool call never queues behind it for a core.
//!
//! On two cores, a start-up sync chunking and embedding a project kept both cores busy, and
//! the first tool calls after start took ten to fifty times their idle time. Lowered threads
//! still get every cycle nobody else wants, so background work is not slower on an idle
//! machine. Threads started by a lowered thread (ONNX Runtime's pool, created while the model
//! loads) inherit its priority; the parallel loops of background work run on their own rayon
//! pool whose threads are lowered (`parallel`), not on the global pool that tool calls use.

use std::io;
use std::sync::LazyLock;
use std::thread::JoinHandle;

/// The nice value of background threads: the lowest priority an unprivileged process can set.
const BACKGROUND_NICE: i32 = 19;

/// Lowers the calling thread's CPU priority (Linux: per-thread nice). Elsewhere, or when the
/// system refuses, the thread keeps its priority: background work is then only not yielding.
pub fn lower_this_thread() {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: gettid has no preconditions; setpriority with PRIO_PROCESS and a thread id
        // changes only that thread's nice value on Linux.
        let changed = unsafe {
            let tid = libc::gettid();
            libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, BACKGROUND_NICE)
        };
        if changed != 0 {
            tracing::debug!(
                "background priority not set: {}",
                io::Error::last_os_error()
            );
        }
    }
}

/// The rayon pool for parallel loops of background work, its threads lowered; `None` when it
/// cannot be built (the loops then run on the global pool).
fn pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: LazyLock<Option<rayon::ThreadPool>> = LazyLock::new(|| {
        rayon::ThreadPoolBuilder::new()
            .thread_name(|i| format!("code-intel-bg-{i}"))
            .start_handler(|_| lower_this_thread())
            .build()
            .map_err(|err| tracing::warn!("no background pool: {err}"))
            .ok()
    });
    POOL.as_ref()
}

thread_local! {
    /// Whether this thread was started by [`spawn`].
    static LOWERED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Starts a named background thread, lowered. The thread itself runs outside any rayon pool
/// (long, blocking work inside the pool would hold its few threads and starve the others);
/// its parallel loops go through [`parallel`].
pub fn spawn<T: Send + 'static>(
    name: &str,
    work: impl FnOnce() -> T + Send + 'static,
) -> io::Result<JoinHandle<T>> {
    std::thread::Builder::new()
        .name(name.to_string())
        .spawn(move || {
            lower_this_thread();
            LOWERED.with(|lowered| lowered.set(true));
            work()
        })
}

/// Whether the calling thread is a background thread (started by [`spawn`]).
pub fn is_lowered() -> bool {
    LOWERED.with(|lowered| lowered.get())
}

/// Runs `loop_` (a rayon parallel loop) on the lowered [`pool`] when called from a background
/// thread, and as it is (the global pool) otherwise.
pub fn parallel<R: Send>(loop_: impl FnOnce() -> R + Send) -> R {
    match pool().filter(|_| is_lowered()) {
        Some(pool) => pool.install(loop_),
        None => loop_(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The nice value of the calling thread (Linux).
    #[cfg(target_os = "linux")]
    fn nice_of_this_thread() -> i32 {
        // SAFETY: see lower_this_thread.
        unsafe { libc::getpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t) }
    }

    /// The nice values of the threads a parallel loop of 64 items ran on, through [`parallel`].
    #[cfg(target_os = "linux")]
    fn nices_of_a_parallel_loop() -> Vec<i32> {
        use rayon::prelude::*;
        parallel(|| {
            (0..64)
                .into_par_iter()
                .map(|_| nice_of_this_thread())
                .collect()
        })
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn background_threads_and_their_pool_run_lowered() {
        let before = nice_of_this_thread();
        let (own, in_pool) = spawn("test-bg", || {
            let own = nice_of_this_thread();
            let in_pool = nices_of_a_parallel_loop().into_iter().min().unwrap();
            (own, in_pool)
        })
        .unwrap()
        .join()
        .unwrap();
        assert_eq!(own, BACKGROUND_NICE);
        assert_eq!(in_pool, BACKGROUND_NICE);
        // The caller is untouched, and its loops stay on the global pool.
        assert_eq!(nice_of_this_thread(), before);
        let outside = nices_of_a_parallel_loop().into_iter().max().unwrap();
        assert_eq!(outside, before);
    }
}
