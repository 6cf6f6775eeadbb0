//! Background work (the start-up sync, embedding, store maintenance) runs at the lowest CPU
//! priority (nice 19 and, on Linux, the SCHED_IDLE policy), so a tool call never queues behind
//! it for a core.
//!
//! On two cores, a start-up sync chunking and embedding a project kept both cores busy, and
//! the first tool calls after start took ten to fifty times their idle time. Lowered threads
//! still get every cycle nobody else wants, so background work is not slower on an idle
//! machine. Threads started by a lowered thread inherit its priority; the parallel loops of
//! background work run on their own rayon pool whose threads are lowered (`parallel`), not on
//! the global pool that tool calls use.
//!
//! What a tool call waits for is not background work, because a lowered thread gets nothing
//! while other processes keep the cores busy: the model's load runs at normal priority
//! ([`spawn_unlowered`], `embed::handle`), and so does ONNX Runtime's pool, started while it
//! loads. Embedding a
//! chunk from a lowered thread still runs half its work there, and gives way between batches
//! to a tool call's inference (`embed::onnx`).

use std::io;
use std::sync::mpsc::{Sender, channel};
use std::sync::{LazyLock, Mutex, OnceLock, PoisonError};
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
        // SCHED_IDLE on top: the scheduler then preempts the thread as soon as a normal one
        // wakes up, where nice 19 alone still let a waking tool call wait for the running
        // background thread's turn to end (a few milliseconds, on every call while a sync
        // runs). Threads the lowered one starts inherit the policy.
        // SAFETY: sched_setscheduler with pid 0 changes only the calling thread's policy;
        // the parameter is a valid, zeroed sched_param as SCHED_IDLE requires.
        let idle = unsafe {
            let param: libc::sched_param = std::mem::zeroed();
            libc::sched_setscheduler(0, libc::SCHED_IDLE, &param)
        };
        if idle != 0 {
            tracing::debug!(
                "background scheduling policy not set: {}",
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

/// A thread body and name, with where to say whether the thread started.
type Start = (String, Box<dyn FnOnce() + Send>, Sender<io::Result<()>>);

/// The thread that starts [`spawn_unlowered`]'s threads, once [`init`] has run. A thread
/// inherits its creator's priority, and a lowered thread can never raise its own again, so
/// threads that must run at normal priority are started by one that was never lowered.
static STARTER: OnceLock<Mutex<Sender<Start>>> = OnceLock::new();

/// Starts the thread behind [`spawn_unlowered`]; `main` calls it first thing. Called from a
/// lowered thread it does nothing, since its starter would be lowered too.
pub fn init() {
    if is_lowered() || STARTER.get().is_some() {
        return;
    }
    let (requests, incoming) = channel::<Start>();
    let spawned = std::thread::Builder::new()
        .name("code-intel-starter".into())
        .spawn(move || {
            for (name, work, started) in incoming {
                let spawned = std::thread::Builder::new().name(name).spawn(work);
                let _ = started.send(spawned.map(drop));
            }
        });
    match spawned {
        // Two racing calls start two starters; one is kept, the other ends with its channel.
        Ok(_) => drop(STARTER.set(Mutex::new(requests))),
        Err(err) => tracing::warn!("no thread starter: {err}"),
    }
}

/// Starts a named thread at normal priority, whichever thread asks, a background one included:
/// for work that a tool call waits for (the model's load), which a lowered thread would not get
/// done on a busy machine. Before [`init`] (or without a starter) the calling thread starts it.
pub fn spawn_unlowered(name: &str, work: impl FnOnce() + Send + 'static) -> io::Result<()> {
    let Some(starter) = STARTER.get() else {
        return std::thread::Builder::new()
            .name(name.to_string())
            .spawn(work)
            .map(drop);
    };
    let stopped = || io::Error::other("the thread starter has stopped");
    let (started, reply) = channel();
    starter
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .send((name.to_string(), Box::new(work), started))
        .map_err(|_| stopped())?;
    reply.recv().map_err(|_| stopped())?
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

    /// The nice value and scheduling policy of the calling thread (Linux).
    #[cfg(target_os = "linux")]
    fn priority_of_this_thread() -> (i32, i32) {
        // SAFETY: see lower_this_thread; both calls only read the calling thread's settings.
        unsafe {
            (
                libc::getpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t),
                libc::sched_getscheduler(0),
            )
        }
    }

    /// The priorities of the threads a parallel loop of 64 items ran on, through [`parallel`].
    #[cfg(target_os = "linux")]
    fn priorities_in_a_parallel_loop() -> Vec<(i32, i32)> {
        use rayon::prelude::*;
        parallel(|| {
            (0..64)
                .into_par_iter()
                .map(|_| priority_of_this_thread())
                .collect()
        })
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn background_threads_and_their_pool_run_lowered() {
        let before = priority_of_this_thread();
        assert_ne!(before.1, libc::SCHED_IDLE);
        let lowered = (BACKGROUND_NICE, libc::SCHED_IDLE);
        let (own, in_pool) = spawn("test-bg", || {
            (priority_of_this_thread(), priorities_in_a_parallel_loop())
        })
        .unwrap()
        .join()
        .unwrap();
        assert_eq!(own, lowered);
        assert!(in_pool.iter().all(|p| *p == lowered), "{in_pool:?}");
        // The caller is untouched, and its loops stay on the global pool.
        assert_eq!(priority_of_this_thread(), before);
        let outside = priorities_in_a_parallel_loop();
        assert!(outside.iter().all(|p| *p == before), "{outside:?}");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn unlowered_threads_run_at_normal_priority_whoever_asks() {
        init();
        let before = priority_of_this_thread();
        let (tx, rx) = channel();
        spawn("test-bg-asker", move || {
            spawn_unlowered("test-unlowered", move || {
                let _ = tx.send((priority_of_this_thread(), is_lowered()));
            })
        })
        .unwrap()
        .join()
        .unwrap()
        .unwrap();
        let (priority, lowered) = rx.recv().unwrap();
        assert_eq!(priority, before);
        assert!(!lowered);
    }
}
