//! The binary's global allocator: the system allocator, counting the bytes allocated and the most
//! allocated at once, so that `ogham bench` can report the interpreter's peak memory
//! ([`measure`]). Counting costs two atomic operations per allocation.
//!
//! `unsafe` is allowed in this module alone: a `GlobalAlloc` implementation has no safe form
//! (its trait and methods are `unsafe`); it only forwards to `System` and counts.

#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Bytes allocated and not yet freed, by every thread.
static LIVE: AtomicUsize = AtomicUsize::new(0);
/// The most `LIVE` has been since the last [`measure`] started.
static PEAK: AtomicUsize = AtomicUsize::new(0);

pub struct Counting;

fn grew(bytes: usize) {
    let live = LIVE.fetch_add(bytes, Ordering::Relaxed).wrapping_add(bytes);
    if live > PEAK.load(Ordering::Relaxed) {
        PEAK.fetch_max(live, Ordering::Relaxed);
    }
}

fn shrank(bytes: usize) {
    LIVE.fetch_sub(bytes, Ordering::Relaxed);
}

// SAFETY: every method forwards to `System` with the caller's arguments, so `System`'s guarantees
// hold; the counters are plain atomics and never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for the impl.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for the impl.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: as for the impl.
        unsafe { System.dealloc(ptr, layout) };
        shrank(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as for the impl.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            shrank(layout.size());
            grew(new_size);
        }
        p
    }
}

/// Run `f` and return its result with the most heap bytes that were allocated at once during it,
/// beyond those allocated when it started (by any thread; `ogham bench` runs the interpreter on
/// one). What `f` returns is still allocated at the end, so it is counted.
pub fn measure<R>(f: impl FnOnce() -> R) -> (R, u64) {
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let r = f();
    let peak = PEAK.load(Ordering::Relaxed).max(LIVE.load(Ordering::Relaxed));
    (r, peak.saturating_sub(base) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_peak_counts_what_was_alive_at_once() {
        // Other test threads allocate and free meanwhile, so only bounds are certain: this
        // thread's 8 MiB at once, and not the 12 MiB it allocated in all.
        const MIB: usize = 1 << 20;
        let ((), peak) = measure(|| {
            let a = vec![1u8; 8 * MIB];
            drop(a);
            let b = vec![1u8; 4 * MIB];
            drop(b);
        });
        assert!((6 * MIB as u64..10 * MIB as u64).contains(&peak), "{peak}");
        // What the closure returns is still alive at the end.
        let (v, peak) = measure(|| vec![1u64; MIB]);
        assert_eq!(v.len(), MIB);
        assert!(peak >= 6 * MIB as u64, "{peak}");
    }
}
