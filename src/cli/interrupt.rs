//! Ctrl-C: the first SIGINT sets a flag the library's run polls (it stops cleanly, keeping
//! the previous index); a second ends the process at once.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Exit code of a run stopped by SIGINT (128 + the signal's number, as shells report it).
pub const INTERRUPTED: u8 = 130;

/// A flag set by the first Ctrl-C (SIGINT); a second one ends the process at once.
pub fn stop_on_interrupt() -> Arc<AtomicBool> {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    let installed = ctrlc::set_handler(move || {
        if flag.swap(true, Ordering::SeqCst) {
            std::process::exit(i32::from(INTERRUPTED));
        }
        eprintln!("\ninterrupted: stopping (press Ctrl-C again to quit at once)");
    });
    if let Err(error) = installed {
        notice!("warning: Ctrl-C will end the process abruptly ({error})");
    }
    stop
}
