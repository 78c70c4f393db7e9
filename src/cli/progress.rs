//! Progress: the library's [`Progress`] callbacks in, a spinner on stderr out (when stderr is
//! a terminal; nothing otherwise).

use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use indexer::run::Progress;

/// Progress on stderr when it is a terminal; nothing otherwise.
pub struct TerminalProgress {
    bar: ProgressBar,
    pass_started: std::sync::Mutex<Instant>,
    records: AtomicU64,
    html_bytes: AtomicU64,
    /// Bytes of the input read, and their total (0: not known for this pass).
    position: AtomicU64,
    total: AtomicU64,
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
            position: AtomicU64::new(0),
            total: AtomicU64::new(0),
        }
    }
}

impl TerminalProgress {
    /// Seconds since the current pass started.
    fn pass_seconds(&self) -> f64 {
        self.pass_started
            .lock()
            .map(|started| started.elapsed().as_secs_f64())
            .unwrap_or(0.0)
    }

    /// `done` of `total` steps of work that reads no input (a model's trees being fitted),
    /// with the time left at the pace so far.
    pub fn steps_done(&self, done: usize, total: usize, noun: &str) {
        if self.bar.is_hidden() {
            return;
        }
        let seconds = self.pass_seconds();
        let left = match done {
            0 => String::new(),
            done => format!(
                ", about {} left",
                duration(seconds * (total - done.min(total)) as f64 / done as f64)
            ),
        };
        self.bar
            .set_message(format!("{done} of {total} {noun}{left}"));
        self.bar.tick();
    }
}

impl Progress for TerminalProgress {
    fn start_pass(&self, name: &str) {
        self.records.store(0, Ordering::Relaxed);
        self.html_bytes.store(0, Ordering::Relaxed);
        self.position.store(0, Ordering::Relaxed);
        self.total.store(0, Ordering::Relaxed);
        if let Ok(mut started) = self.pass_started.lock() {
            *started = Instant::now();
        }
        // A pass after the run's end (train fits after reading) shows again.
        if self.bar.is_finished() {
            self.bar.reset();
        }
        self.bar.set_message("");
        self.bar.set_prefix(name.to_string());
    }

    fn record_done(&self, html_bytes: usize) {
        let records = self.records.fetch_add(1, Ordering::Relaxed) + 1;
        let bytes = self
            .html_bytes
            .fetch_add(html_bytes as u64, Ordering::Relaxed)
            + html_bytes as u64;
        if records.is_multiple_of(32) && !self.bar.is_hidden() {
            let seconds = self.pass_seconds().max(1e-6);
            let (position, total) = (
                self.position.load(Ordering::Relaxed),
                self.total.load(Ordering::Relaxed),
            );
            let share = if total > 0 && position > 0 {
                let done = position as f64 / total as f64;
                let left = seconds * (1.0 - done) / done;
                format!("{:.0}%, about {} left, ", 100.0 * done, duration(left))
            } else {
                String::new()
            };
            self.bar.set_message(format!(
                "{share}{records} records, {:.0} pages/s, {:.1} MB/s of HTML",
                records as f64 / seconds,
                bytes as f64 / 1e6 / seconds
            ));
            self.bar.tick();
        }
    }

    fn input_read(&self, position: u64, total: u64) {
        self.position.fetch_max(position, Ordering::Relaxed);
        self.total.store(total, Ordering::Relaxed);
    }

    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// Seconds as "42 s", "3 min", "1 h 5 min".
fn duration(seconds: f64) -> String {
    let seconds = seconds.max(0.0).round() as u64;
    match seconds {
        0..60 => format!("{seconds} s"),
        60..3600 => format!("{} min", seconds.div_ceil(60)),
        _ => format!("{} h {} min", seconds / 3600, seconds % 3600 / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_people_say_them() {
        assert_eq!(duration(41.6), "42 s");
        assert_eq!(duration(125.0), "3 min");
        assert_eq!(duration(3_900.0), "1 h 5 min");
    }
}
