//! Background work (the start-up sync, embedding, the model's warm-up, store maintenance) runs
//! at the lowest CPU priority (nice 19 and, on Linux, the SCHED_IDLE policy), so a tool call
//! never queues behind it for a core.
//!
//! On two cores, a start-up sync chunking and embedding a project kept both cores busy, and
//! the first tool calls after start took ten to fifty times their idle time. Lowered threads
//! still get every cycle nobody else wants, so background work is not slower on an idle
//! machine. Threads started by a lowered thread (ONNX Runtime's pool, created while the model
//! loads) inherit its priority; the parallel loops of background work run on their own rayon
//! pool whose threads are lowered (`parallel`), not on the global pool that tool calls use.
//!
//! A lowered thread gets nothing while other processes keep the cores busy, and it can never
//! raise itself again; the threads it starts inherit its priority. So what a tool call waits for
//! must not be lowered, and must not run on threads a lowered one happened to start:
//! - a caller that waits for the model loads it at its own priority (`embed::handle`), and a
//!   tool call's inference goes before indexing's next batch (`embed::onnx`);
//! - pools that tool calls share with background work (the store's runtime, rayon's global
//!   pool, Lance's CPU pool) are started at normal priority, by [`init`], through
//!   [`unlowered`] or by `store::start_pools`, whichever thread first needs them. The store's runtime had been started by the start-up sync, and a
//!   verdict's searches then waited on lowered threads.

use std::io;
use std::sync::mpsc::{Sender, channel};
use std::sync::{LazyLock, Mutex, OnceLock, PoisonError};
use std::thread::JoinHandle;

/// The nice value of background threads: the lowest priority an unprivileged process can set.
const BACKGROUND_NICE: i32 = 19;

/// Lowers the calling thread's CPU priority (Linux: per-thread nice) and marks it as background
/// work ([`is_lowered`]). Elsewhere, or when the system refuses, the thread keeps its priority:
/// background work is then only not yielding.
pub fn lower_this_thread() {
    LOWERED.with(|lowered| lowered.set(true));
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
    /// Whether this thread lowered itself ([`lower_this_thread`]).
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
            work()
        })
}

/// Work for the starter thread: starting a thread.
type Job = Box<dyn FnOnce() + Send>;

/// A thread that was never lowered, started by [`init`], which starts [`unlowered`]'s threads.
static STARTER: OnceLock<Mutex<Sender<Job>>> = OnceLock::new();

/// Prepares the process for lowered threads; `main` calls it before any thread is lowered:
/// starts the thread behind [`unlowered`], and rayon's global pool, whose threads tool calls
/// use and whichever thread touches it first would start.
pub fn init() {
    if is_lowered() {
        return;
    }
    rayon::current_num_threads();
    if STARTER.get().is_some() {
        return;
    }
    let (jobs, incoming) = channel::<Job>();
    let spawned = std::thread::Builder::new()
        .name("code-intel-starter".into())
        .spawn(move || incoming.into_iter().for_each(|job| job()));
    match spawned {
        // Two racing calls start two starters; the one not kept ends with its channel.
        Ok(_) => drop(STARTER.set(Mutex::new(jobs))),
        Err(err) => tracing::warn!("no thread starter: {err}"),
    }
}

/// Runs `work` at normal priority and returns its result: on the calling thread unless it is a
/// background one, else on a thread started by the starter (so threads `work` starts, a pool's
/// workers, are not lowered either). Before [`init`], on the calling thread.
pub fn unlowered<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> io::Result<T> {
    let starter = STARTER.get().filter(|_| is_lowered());
    let Some(starter) = starter else {
        return Ok(work());
    };
    // The starter has ended, or could not start the thread (the work is dropped unrun).
    let stopped = || io::Error::other("no thread could be started at normal priority");
    let (result, reply) = channel();
    let job = move || {
        let started = std::thread::Builder::new()
            .name("code-intel-unlowered".into())
            .spawn(move || {
                let _ = result.send(work());
            });
        if let Err(err) = started {
            tracing::warn!("no unlowered thread: {err}");
        }
    };
    starter
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .send(Box::new(job))
        .map_err(|_| stopped())?;
    reply.recv().map_err(|_| stopped())
}

/// Whether the calling thread is a background thread: started by [`spawn`], of the pool behind
/// [`parallel`], or lowered otherwise.
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
    fn unlowered_work_runs_at_normal_priority_whoever_asks() {
        init();
        let before = priority_of_this_thread();
        let (in_work, in_its_thread) = spawn("test-bg-asker", || {
            unlowered(|| {
                let own = priority_of_this_thread();
                let started = std::thread::spawn(priority_of_this_thread).join().unwrap();
                (own, started)
            })
        })
        .unwrap()
        .join()
        .unwrap()
        .unwrap();
        assert_eq!(in_work, before);
        assert_eq!(in_its_thread, before);
        // On a thread that is not lowered, it runs in place.
        let here = std::thread::current().id();
        assert!(unlowered(move || std::thread::current().id() == here).unwrap());
    }
}
