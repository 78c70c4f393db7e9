//! A side stage: one thread beside the sink that does serial work the sink would otherwise do
//! itself, so that the thread keeping items in order only hands work over.
//!
//! ```text
//! sink ──(place, item)──▶ side stage (1 thread, in the order given) ──(place, output)──▶ sink
//! ```
//!
//! Items in: whatever the sink [`give`](SideStage::give)s, each with its place (a number the
//! sink chooses). Items out: the outputs of `work`, each with its place, in the order given,
//! read back when the sink asks ([`ready`](SideStage::ready)) or all at once when it needs
//! every piece of work given so far to be done ([`settle`](SideStage::settle)). What the work
//! has done when `settle` returns is exactly the items given before it — the same whatever
//! the timing of the threads.
//!
//! Back-pressure: at most `capacity` items wait for the side thread; `give` blocks beyond.
//! The side thread stops when its stage is dropped, once it has worked on the items given
//! before. A panic in `work` is caught and returned by the next `give`, `ready` or `settle` as
//! [`PipelineError::Panicked`] with stage `"side"`.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::thread::{Scope, ScopedJoinHandle};

use crossbeam_channel::{Receiver, Sender, TryRecvError, bounded, unbounded};

use crate::{PipelineError, panic_message};

/// A worker thread's loop: `work` applied to each item taken from `given`, its output (or its
/// panic's message) sent to `done` with the item's place; stops when `given` closes, `done`
/// is dropped, or `work` panics.
pub(crate) fn work_in_order_given<I, O>(
    given: &Receiver<(u64, I)>,
    done: &Sender<(u64, Result<O, String>)>,
    mut work: impl FnMut(I) -> O,
) {
    for (place, item) in given {
        let output = catch_unwind(AssertUnwindSafe(|| work(item)))
            .map_err(|payload| panic_message(payload.as_ref()));
        let failed = output.is_err();
        if done.send((place, output)).is_err() || failed {
            return;
        }
    }
}

/// The sink's end of a side stage: work given, outputs taken back.
pub struct SideStage<'scope, I, O> {
    given: Option<Sender<(u64, I)>>,
    done: Receiver<(u64, Result<O, String>)>,
    /// Items given and not yet taken back.
    outstanding: usize,
    thread: Option<ScopedJoinHandle<'scope, ()>>,
}

impl<'scope, I: Send + 'scope, O: Send + 'scope> SideStage<'scope, I, O> {
    /// Starts the side thread in `scope`, applying `work` to each item given, in order; at
    /// most `capacity` (at least one) items wait for it.
    pub fn start<'env>(
        scope: &'scope Scope<'scope, 'env>,
        capacity: usize,
        work: impl FnMut(I) -> O + Send + 'scope,
    ) -> Self {
        let (given_tx, given_rx) = bounded::<(u64, I)>(capacity.max(1));
        // Unbounded: the side thread never waits for the sink, so the sink may block on a
        // full `given` channel without both waiting on each other.
        let (done_tx, done_rx) = unbounded();
        let thread = scope.spawn(move || work_in_order_given(&given_rx, &done_tx, work));
        SideStage {
            given: Some(given_tx),
            done: done_rx,
            outstanding: 0,
            thread: Some(thread),
        }
    }

    /// Hands `item`, at `place`, to the side thread; waits while `capacity` items wait.
    pub fn give<E>(&mut self, place: u64, item: I) -> Result<(), PipelineError<E>> {
        let sent = self.given.as_ref().map(|given| given.send((place, item)));
        match sent {
            Some(Ok(())) => {
                self.outstanding += 1;
                Ok(())
            }
            // The side thread has stopped: only a panic stops it while the stage lives.
            _ => Err(self.stopped()),
        }
    }

    /// The outputs done so far and not yet taken, in the order given, without waiting.
    pub fn ready<E>(&mut self) -> Result<Vec<(u64, O)>, PipelineError<E>> {
        let mut outputs = Vec::new();
        loop {
            match self.done.try_recv() {
                Ok((place, output)) => outputs.push((place, self.taken(output)?)),
                Err(TryRecvError::Empty) => return Ok(outputs),
                Err(TryRecvError::Disconnected) if self.outstanding == 0 => return Ok(outputs),
                Err(TryRecvError::Disconnected) => return Err(self.stopped()),
            }
        }
    }

    /// Waits until every item given has been worked on; their outputs not yet taken, in the
    /// order given.
    pub fn settle<E>(&mut self) -> Result<Vec<(u64, O)>, PipelineError<E>> {
        let mut outputs = Vec::with_capacity(self.outstanding);
        while self.outstanding > 0 {
            match self.done.recv() {
                Ok((place, output)) => outputs.push((place, self.taken(output)?)),
                Err(_) => return Err(self.stopped()),
            }
        }
        Ok(outputs)
    }

    fn taken<E>(&mut self, output: Result<O, String>) -> Result<O, PipelineError<E>> {
        self.outstanding -= 1;
        output.map_err(|message| PipelineError::Panicked {
            stage: "side",
            message,
        })
    }

    /// Why the side thread stopped before its work was done.
    fn stopped<E>(&mut self) -> PipelineError<E> {
        // A panic's message came through `done` (taken by `ready` or `settle`) unless the
        // thread died some other way.
        while let Ok((_, output)) = self.done.try_recv() {
            if let Err(message) = output {
                return PipelineError::Panicked {
                    stage: "side",
                    message,
                };
            }
        }
        PipelineError::Panicked {
            stage: "side",
            message: "the side thread stopped".to_string(),
        }
    }
}

impl<I, O> Drop for SideStage<'_, I, O> {
    fn drop(&mut self) {
        // Closing the channel ends the side thread's loop once it has taken what was given.
        self.given.take();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn works_in_the_order_given_and_settles_everything_given() {
        std::thread::scope(|scope| {
            let mut total = 0u64;
            let mut side = SideStage::start(scope, 4, move |n: u64| {
                if n.is_multiple_of(5) {
                    std::thread::sleep(std::time::Duration::from_micros(100));
                }
                total += n;
                total
            });
            let mut outputs = Vec::new();
            for n in 0..200u64 {
                side.give::<()>(n, n).unwrap();
                outputs.extend(side.ready::<()>().unwrap());
            }
            outputs.extend(side.settle::<()>().unwrap());
            assert!(side.settle::<()>().unwrap().is_empty());
            let places: Vec<u64> = outputs.iter().map(|&(place, _)| place).collect();
            assert_eq!(places, (0..200).collect::<Vec<_>>());
            // Running sums: the work saw every item once, in order.
            assert_eq!(outputs.last().map(|&(_, sum)| sum), Some(199 * 200 / 2));
            assert!(
                outputs
                    .windows(2)
                    .all(|pair| pair[1].1 == pair[0].1 + pair[1].0)
            );
        });
    }

    #[test]
    fn a_panic_in_the_work_is_returned_not_raised() {
        std::thread::scope(|scope| {
            let mut side = SideStage::start(scope, 2, |n: u64| {
                if n == 3 {
                    panic!("side broke at {n}");
                }
                n
            });
            let mut result = Ok(Vec::new());
            for n in 0..100u64 {
                if let Err(error) = side.give::<()>(n, n) {
                    result = Err(error);
                    break;
                }
            }
            if result.is_ok() {
                result = side.settle::<()>();
            }
            match result {
                Err(PipelineError::Panicked { stage, message }) => {
                    assert_eq!(stage, "side");
                    assert_eq!(message, "side broke at 3");
                }
                other => panic!("unexpected {other:?}"),
            }
        });
    }
}
