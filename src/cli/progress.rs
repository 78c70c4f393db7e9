//! Progress: the library's [`Progress`] callbacks in, a spinner on stderr out (when stderr is
//! a terminal; nothing otherwise).

use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use indexer::build::Progress;

/// Progress on stderr when it is a terminal; nothing otherwise.
pub struct TerminalProgress {
    bar: ProgressBar,
    pass_started: std::sync::Mutex<Instant>,
    records: AtomicU64,
    html_bytes: AtomicU64,
}

impl TerminalProgress {
    pub fn new() -> Self {
        let bar = ProgressBar::new_spinner();
        if std::io::stderr().is_terminal() && !super::quiet() {
            bar.set_draw_target(ProgressDrawTarget::stderr_with_hz(5));
        } else {
            bar.set_draw_target(ProgressDrawTarget::hidden());
        }
        if let Ok(style) = ProgressStyle::with_template("{spinner} {prefix} {msg}") {
            bar.set_style(style);
        }
        TerminalProgress {
            bar,
            pass_started: std::sync::Mutex::new(Instant::now()),
            records: AtomicU64::new(0),
            html_bytes: AtomicU64::new(0),
        }
    }
}

impl Progress for TerminalProgress {
    fn start_pass(&self, name: &str) {
        self.records.store(0, Ordering::Relaxed);
        self.html_bytes.store(0, Ordering::Relaxed);
        if let Ok(mut started) = self.pass_started.lock() {
            *started = Instant::now();
        }
        self.bar.set_prefix(name.to_string());
    }

    fn record_done(&self, html_bytes: usize) {
        let records = self.records.fetch_add(1, Ordering::Relaxed) + 1;
        let bytes = self
            .html_bytes
            .fetch_add(html_bytes as u64, Ordering::Relaxed)
            + html_bytes as u64;
        if records.is_multiple_of(32) && !self.bar.is_hidden() {
            let seconds = self
                .pass_started
                .lock()
                .map(|started| started.elapsed().as_secs_f64())
                .unwrap_or(0.0)
                .max(1e-6);
            self.bar.set_message(format!(
                "{records} records, {:.0} pages/s, {:.1} MB/s of HTML",
                records as f64 / seconds,
                bytes as f64 / 1e6 / seconds
            ));
            self.bar.tick();
        }
    }

    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
