//! Allocator tuning: glibc malloc settings for a build's threads, and freed memory handed back
//! between rounds. Nothing flows through; this only shapes how memory is held.

/// Caps glibc's malloc arenas (by default eight per core) before the build's threads start.
/// Pages are built on the segmenting threads and freed after their batch is decided; memory
/// freed into one thread's arena is not reused by the others, and with the default arenas
/// resident memory outgrew the memory budget (docs/MEASUREMENTS.md, "Constants and the
/// figures behind them"). A quarter of the threads, at least two, keeps allocation
/// contention low.
pub(crate) fn limit_malloc_arenas(threads: usize) {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let arenas = libc::c_int::try_from(threads.div_ceil(4).max(2)).unwrap_or(libc::c_int::MAX);
        // SAFETY: mallopt only changes an allocator setting; glibc applies M_ARENA_MAX to
        // arenas created after the call and leaves existing allocations alone.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, arenas);
        }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    let _ = threads;
}

/// Hands memory freed by a round back to the system, so that the next round starts lean.
pub(crate) fn release_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only returns free heap pages to the kernel; it has no
    // preconditions and touches no live allocation.
    unsafe {
        libc::malloc_trim(0);
    }
}
