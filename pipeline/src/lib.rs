//! A stage graph of three named stages joined by bounded channels:
//!
//! ```text
//! source (1 thread) ──▶ transform (N worker threads) ──▶ sink (the calling thread, in input order)
//! ```
//!
//! Items in: anything an iterator yields. Items out: whatever the transform makes, handed to
//! the sink in the order the source produced them, so the result of a run never depends on
//! the number of workers.
//!
//! Back-pressure: at most [`Pipeline::window`] items are in flight between the source and the
//! sink at any time (read ahead, being transformed, or waiting to be put back in order), so
//! memory stays bounded however slow one item is.
//!
//! Errors: the first error of the transform or the sink stops the whole graph — the source
//! stops reading, the workers stop taking work — and is returned once. A panic in a worker
//! is caught and returned as [`PipelineError::Panicked`].
//!
//! Beside the sink, a [`SideStage`] takes serial work off it: one thread doing, in the order
//! given, what the sink hands it, its outputs taken back when the sink asks ([`side`]). An
//! [`OrderedPool`] does the same on several threads of its own, for a caller outside any run
//! ([`pool`]).
//!
//! This crate knows stages and channels, nothing about what flows through them.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};

use crossbeam_channel::{Receiver, Sender, bounded};

pub mod pool;
pub mod side;

pub use pool::OrderedPool;
pub use side::SideStage;

/// How a run failed.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError<E> {
    /// A transform or the sink returned an error; the graph stopped.
    #[error("{stage}: {error}")]
    Stage {
        /// The stage that failed: `"transform"` or `"sink"`.
        stage: &'static str,
        /// What it returned.
        error: E,
    },
    /// A worker panicked while transforming an item; the graph stopped.
    #[error("{stage} panicked: {message}")]
    Panicked {
        /// The stage that panicked.
        stage: &'static str,
        /// The panic payload, when it was a string.
        message: String,
    },
}

/// The shape of a run: how many workers, how many items in flight.
#[derive(Debug, Clone, Copy)]
pub struct Pipeline {
    workers: usize,
    window: usize,
}

impl Default for Pipeline {
    fn default() -> Self {
        Pipeline::new(1)
    }
}

impl Pipeline {
    /// A pipeline with `workers` transform threads (at least one) and a window of four items
    /// per worker.
    pub fn new(workers: usize) -> Self {
        let workers = workers.max(1);
        Pipeline {
            workers,
            window: workers * 4,
        }
    }

    /// Sets how many items may be in flight at once (at least one per worker).
    pub fn with_window(mut self, window: usize) -> Self {
        self.window = window.max(self.workers);
        self
    }

    /// The number of transform threads.
    pub fn workers(&self) -> usize {
        self.workers
    }

    /// The most items in flight at once.
    pub fn window(&self) -> usize {
        self.window
    }

    /// Runs `source → transform → sink` until the source is exhausted or a stage fails.
    ///
    /// `transform` runs on the worker threads; `sink` runs on the calling thread and sees the
    /// transformed items in source order.
    pub fn run<I, O, E, Src, T, S>(
        &self,
        source: Src,
        transform: T,
        mut sink: S,
    ) -> Result<(), PipelineError<E>>
    where
        Src: IntoIterator<Item = I>,
        Src::IntoIter: Send,
        I: Send,
        O: Send,
        E: Send,
        T: Fn(I) -> Result<O, E> + Sync,
        S: FnMut(O) -> Result<(), E>,
    {
        let stop = AtomicBool::new(false);
        // Each in-flight item holds one permit; the sink hands it back once the item is consumed.
        let (permit_tx, permit_rx) = bounded::<()>(self.window);
        for _ in 0..self.window {
            permit_tx
                .send(())
                .expect("permit channel has room for the window");
        }
        let (work_tx, work_rx) = bounded::<(u64, I)>(self.window);
        let (done_tx, done_rx) = bounded::<(u64, Outcome<O, E>)>(self.window);
        let source = source.into_iter();

        std::thread::scope(|scope| {
            let stop = &stop;
            let source_panic = scope.spawn(move || {
                catch_unwind(AssertUnwindSafe(|| feed(source, work_tx, permit_rx, stop)))
                    .map_err(|payload| panic_message(payload.as_ref()))
            });
            for _ in 0..self.workers {
                let work_rx = work_rx.clone();
                let done_tx = done_tx.clone();
                let transform = &transform;
                scope.spawn(move || work(work_rx, done_tx, transform, stop));
            }
            drop(work_rx);
            drop(done_tx);

            let result = drain_in_order(&done_rx, &permit_tx, &mut sink);
            if result.is_err() {
                stop.store(true, Ordering::SeqCst);
            }
            // Dropping our ends wakes every thread still blocked on a channel.
            drop(done_rx);
            drop(permit_tx);
            match source_panic.join() {
                Ok(Err(message)) => Err(PipelineError::Panicked {
                    stage: "source",
                    message,
                }),
                _ => result,
            }
        })
    }
}

enum Outcome<O, E> {
    Done(O),
    Failed(E),
    Panicked(String),
}

fn feed<I>(
    source: impl Iterator<Item = I>,
    work_tx: Sender<(u64, I)>,
    permit_rx: Receiver<()>,
    stop: &AtomicBool,
) {
    for (sequence, item) in (0u64..).zip(source) {
        if stop.load(Ordering::SeqCst) || permit_rx.recv().is_err() {
            return;
        }
        if work_tx.send((sequence, item)).is_err() {
            return;
        }
    }
}

fn work<I, O, E>(
    work_rx: Receiver<(u64, I)>,
    done_tx: Sender<(u64, Outcome<O, E>)>,
    transform: &(impl Fn(I) -> Result<O, E> + Sync),
    stop: &AtomicBool,
) {
    for (sequence, item) in work_rx {
        if stop.load(Ordering::SeqCst) {
            return;
        }
        let outcome = match catch_unwind(AssertUnwindSafe(|| transform(item))) {
            Ok(Ok(output)) => Outcome::Done(output),
            Ok(Err(error)) => Outcome::Failed(error),
            Err(payload) => Outcome::Panicked(panic_message(payload.as_ref())),
        };
        if done_tx.send((sequence, outcome)).is_err() {
            return;
        }
    }
}

fn drain_in_order<O, E>(
    done_rx: &Receiver<(u64, Outcome<O, E>)>,
    permit_tx: &Sender<()>,
    sink: &mut impl FnMut(O) -> Result<(), E>,
) -> Result<(), PipelineError<E>> {
    let mut waiting: BTreeMap<u64, Outcome<O, E>> = BTreeMap::new();
    let mut next = 0u64;
    for (sequence, outcome) in done_rx {
        waiting.insert(sequence, outcome);
        while let Some(outcome) = waiting.remove(&next) {
            next += 1;
            match outcome {
                Outcome::Done(output) => sink(output).map_err(|error| PipelineError::Stage {
                    stage: "sink",
                    error,
                })?,
                Outcome::Failed(error) => {
                    return Err(PipelineError::Stage {
                        stage: "transform",
                        error,
                    });
                }
                Outcome::Panicked(message) => {
                    return Err(PipelineError::Panicked {
                        stage: "transform",
                        message,
                    });
                }
            }
            // The source may have finished and dropped its receiver; nothing is lost then.
            let _ = permit_tx.send(());
        }
    }
    Ok(())
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_string()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "non-string panic payload".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    #[test]
    fn output_order_matches_input_order_for_any_worker_count() {
        for workers in [1, 2, 3, 8] {
            let mut seen = Vec::new();
            Pipeline::new(workers)
                .run(
                    0..500u64,
                    |n| {
                        // Uneven work so that workers finish out of order.
                        if n % 7 == 0 {
                            std::thread::sleep(std::time::Duration::from_micros(200));
                        }
                        Ok::<_, ()>(n * 2)
                    },
                    |n| {
                        seen.push(n);
                        Ok(())
                    },
                )
                .unwrap();
            assert_eq!(seen, (0..500u64).map(|n| n * 2).collect::<Vec<_>>());
        }
    }

    #[test]
    fn transform_error_stops_the_source_early_and_is_reported_once() {
        let produced = AtomicUsize::new(0);
        let source = (0..1_000_000u64).inspect(|_| {
            produced.fetch_add(1, Ordering::SeqCst);
        });
        let result = Pipeline::new(2).with_window(8).run(
            source,
            |n| if n == 10 { Err("bad item 10") } else { Ok(n) },
            |_| Ok(()),
        );
        match result {
            Err(PipelineError::Stage { stage, error }) => {
                assert_eq!(stage, "transform");
                assert_eq!(error, "bad item 10");
            }
            other => panic!("unexpected {other:?}"),
        }
        assert!(produced.load(Ordering::SeqCst) < 100);
    }

    #[test]
    fn sink_error_stops_the_graph() {
        let result = Pipeline::new(2).run(0..1_000_000u64, Ok::<_, String>, |n| {
            if n == 3 {
                Err(format!("sink refused {n}"))
            } else {
                Ok(())
            }
        });
        assert!(matches!(
            result,
            Err(PipelineError::Stage { stage: "sink", .. })
        ));
    }

    #[test]
    fn worker_panic_becomes_an_error() {
        let result = Pipeline::new(2).run(
            0..100u64,
            |n| {
                if n == 5 {
                    panic!("boom at {n}");
                }
                Ok::<_, ()>(n)
            },
            |_| Ok(()),
        );
        match result {
            Err(PipelineError::Panicked { message, .. }) => assert_eq!(message, "boom at 5"),
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn source_panic_becomes_an_error() {
        let source = (0..100u64).inspect(|&n| {
            if n == 7 {
                panic!("reader broke at {n}");
            }
        });
        let result = Pipeline::new(2).run(source, Ok::<_, ()>, |_| Ok(()));
        match result {
            Err(PipelineError::Panicked { stage, message }) => {
                assert_eq!(stage, "source");
                assert_eq!(message, "reader broke at 7");
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn in_flight_items_never_exceed_the_window() {
        let in_flight = AtomicUsize::new(0);
        let peak = AtomicUsize::new(0);
        let source = (0..2_000u64).inspect(|_| {
            let now = in_flight.fetch_add(1, Ordering::SeqCst) + 1;
            peak.fetch_max(now, Ordering::SeqCst);
        });
        Pipeline::new(2)
            .with_window(6)
            .run(source, Ok::<_, ()>, |_| {
                in_flight.fetch_sub(1, Ordering::SeqCst);
                Ok(())
            })
            .unwrap();
        // One extra: the source produces an item before it waits for a permit.
        assert!(
            peak.load(Ordering::SeqCst) <= 7,
            "peak {}",
            peak.load(Ordering::SeqCst)
        );
    }
}
