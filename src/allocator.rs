//! The process allocator (mimalloc, installed by the binary): tree-sitter's C core is handed
//! the same allocator, and freed memory goes back to the OS soon while the index is being
//! built.
//!
//! Why the purge switch: mimalloc (v3, what the sys crate builds) returns freed pages to the
//! OS one second after they are freed, and a sync frees and reallocates hundreds of MiB
//! (parse trees, store batches, embedding inputs) much faster than that, so the resident size
//! climbs well above what is live. Measured on a 3.5k-file project with the stand-in model, a
//! full index peaked at 1,356 MiB resident with the default, 1,045 MiB with a 10 ms delay and
//! 860 MiB with immediate purging; but immediate purging made tree-sitter parsing 25% slower
//! (every freed tree went back to the OS only to be faulted in again for the next file), and
//! any short delay costs each search its page faults again: warm `semantic_search` p50 went
//! from 22 ms to 28–34 ms. So the delay is [`BULK_PURGE_DELAY_MS`] only while bulk work runs
//! ([`bulk_work`]: every store write, through `Maintenance::writing`, and every maintenance
//! run) and back to the default when the last one ends. `MIMALLOC_PURGE_DELAY` set by the user
//! turns the switch off.
//!
//! Why no transparent huge pages (the sys crate's `no_thp` feature): mimalloc asks the kernel
//! for them on its regions (`MADV_HUGEPAGE`), and a purge of a few freed pages inside a 2 MiB
//! huge page returns nothing, so what a long index freed stayed resident. On Symfony's first
//! pass the live heap held steady at about 300 MiB while RSS went from 900 to 1,130 MiB in five
//! minutes, 690 MiB of it in huge pages; without them RSS stayed at 820 MiB, at the same
//! embedding rate.
//!
//! Why THP off for the whole process ([`without_huge_pages`]): dropping mimalloc's advice is not
//! enough on a kernel whose THP setting is `always` (the default of some distributions), where
//! the kernel gives huge pages to any large aligned region unasked. Measured on the same
//! Symfony pass with THP set to `always`: RSS peaked at 1,400 MB, 950 MB of it in huge pages at
//! the end, against 1,015 MB and none with THP off for the process; the pass ran at 226 and
//! 213 heads/s, within this machine's run-to-run spread, and warm searches took the same time.

use libmimalloc_sys as mi;
use std::os::raw::c_long;
use std::sync::Mutex;

/// Keeps transparent huge pages out of the whole process (see the module doc): on a kernel whose
/// THP setting is `always`, the kernel backs mimalloc's aligned regions with huge pages unasked,
/// and ONNX Runtime's arena too. Call first thing in `main`; the setting covers every mapping,
/// those made before it included, and a child process (the model's provisioning script)
/// inherits it. `MIMALLOC_ALLOW_THP` set by the user leaves THP to them.
pub fn without_huge_pages() {
    #[cfg(target_os = "linux")]
    if std::env::var_os("MIMALLOC_ALLOW_THP").is_none() {
        // SAFETY: PR_SET_THP_DISABLE takes integer arguments and changes only this process's
        // memory policy; a kernel without it returns an error, which leaves things as they were.
        unsafe { libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0) };
    }
}

/// mimalloc's `purge_delay` option: its index in `mi_option_t`, the same in mimalloc v2 and v3
/// (the sys crate exports no constant for it).
const PURGE_DELAY: mi::mi_option_t = 15;

/// Hands tree-sitter's C core the process allocator: a parse allocates and frees node by node,
/// and the system allocator was a tenth of the cold index's time. Call first thing in `main`,
/// before any parser exists or any other thread runs.
pub fn use_for_tree_sitter() {
    let allocator = tree_sitter::Allocator {
        malloc: mi::mi_malloc,
        calloc: mi::mi_calloc,
        realloc: mi::mi_realloc,
        free: mi::mi_free,
    };
    // SAFETY: called at the start of `main`, before any tree-sitter object exists or any other
    // thread runs; the four functions are one allocator family with malloc's alignment.
    unsafe { tree_sitter::set_allocator(Some(allocator)) };
}

/// The purge delay while bulk work runs (mimalloc v2's default): parsing keeps its speed (see
/// the module doc).
pub const BULK_PURGE_DELAY_MS: c_long = 10;

/// Bulk work under way, and the purge delay to restore when none is.
struct Switch {
    running: usize,
    /// `None` until the first guard (mimalloc's options are read then), and for good when the
    /// user set `MIMALLOC_PURGE_DELAY`.
    default_delay: Option<c_long>,
    decided: bool,
}

impl Switch {
    const fn new() -> Switch {
        Switch {
            running: 0,
            default_delay: None,
            decided: false,
        }
    }

    /// A guard begins: the delay to set now, if any.
    fn enter(&mut self, read_default: impl FnOnce() -> Option<c_long>) -> Option<c_long> {
        if !self.decided {
            self.decided = true;
            self.default_delay = read_default();
        }
        self.running += 1;
        if self.running == 1 {
            self.default_delay.map(|_| BULK_PURGE_DELAY_MS)
        } else {
            None
        }
    }

    /// A guard ends: the delay to set now, if any.
    fn leave(&mut self) -> Option<c_long> {
        self.running = self.running.saturating_sub(1);
        if self.running == 0 {
            self.default_delay
        } else {
            None
        }
    }
}

static SWITCH: Mutex<Switch> = Mutex::new(Switch::new());

/// While the returned guard lives, freed memory goes back to the OS within
/// [`BULK_PURGE_DELAY_MS`] (see the module doc). Guards nest and may be held on any thread.
pub fn bulk_work() -> BulkWork {
    let mut switch = SWITCH.lock().unwrap_or_else(|p| p.into_inner());
    let read_default = || {
        std::env::var_os("MIMALLOC_PURGE_DELAY")
            .is_none()
            // SAFETY: reading an option has no preconditions.
            .then(|| unsafe { mi::mi_option_get(PURGE_DELAY) })
    };
    if let Some(delay) = switch.enter(read_default) {
        set_purge_delay(delay);
    }
    BulkWork(())
}

/// See [`bulk_work`].
pub struct BulkWork(());

impl Drop for BulkWork {
    fn drop(&mut self) {
        let mut switch = SWITCH.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(delay) = switch.leave() {
            set_purge_delay(delay);
        }
    }
}

fn set_purge_delay(delay: c_long) {
    // SAFETY: the option was initialised by the `mi_option_get` of the first guard (the setter
    // is documented as unsafe against a concurrent first initialisation); afterwards it is one
    // aligned word that mimalloc re-reads on each purge decision, and `SWITCH` serialises the
    // writers.
    unsafe { mi::mi_option_set(PURGE_DELAY, delay) };
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The short delay starts with the outermost guard and the default comes back after the
    /// last one; a user's own setting is never touched.
    #[test]
    fn the_outermost_guard_switches() {
        let mut switch = Switch::new();
        let bulk = Some(BULK_PURGE_DELAY_MS);
        assert_eq!(switch.enter(|| Some(1000)), bulk);
        assert_eq!(switch.enter(|| unreachable!("read once")), None);
        assert_eq!(switch.leave(), None, "a guard is still held");
        assert_eq!(switch.leave(), Some(1000));
        assert_eq!(switch.enter(|| unreachable!("read once")), bulk);
        assert_eq!(switch.leave(), Some(1000));

        let mut users = Switch::new();
        assert_eq!(users.enter(|| None), None);
        assert_eq!(users.leave(), None);
    }

    /// The process asks the kernel for no transparent huge pages, whatever its THP setting.
    #[cfg(target_os = "linux")]
    #[test]
    fn huge_pages_are_off_for_the_process() {
        if std::env::var_os("MIMALLOC_ALLOW_THP").is_some() {
            return;
        }
        without_huge_pages();
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let line = status.lines().find(|l| l.starts_with("THP_enabled:"));
        // Kernels before 5.0 do not report it; the prctl call is what there is then.
        if let Some(line) = line {
            assert_eq!(line.split_whitespace().nth(1), Some("0"), "{line}");
        }
    }

    /// The option index is mimalloc's purge delay: what is set reads back.
    #[test]
    fn the_option_is_the_purge_delay() {
        let before = unsafe { mi::mi_option_get(PURGE_DELAY) };
        let guard = bulk_work();
        let during = unsafe { mi::mi_option_get(PURGE_DELAY) };
        drop(guard);
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
            assert_eq!(during, BULK_PURGE_DELAY_MS);
            // mimalloc v3's default; another test's guard may still be held.
            assert!([1000, BULK_PURGE_DELAY_MS].contains(&before), "{before}");
        }
    }
}
