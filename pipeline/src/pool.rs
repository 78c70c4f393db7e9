//! A worker pool that keeps order: items given one after another are worked on by several
//! threads the pool owns, and their outputs are taken back in the order the items were given.
//!
//! ```text
//! caller ──item──▶ pool (N threads, any order) ──output, reordered──▶ caller
//! ```
//!
//! Items in: whatever the caller [`give`](OrderedPool::give)s. Items out: the outputs of
//! `work`, in the order given — those ready at the front of the line when the caller asks
//! ([`ready`](OrderedPool::ready)), or all of them once every item given is worked on
//! ([`settle`](OrderedPool::settle)). Unlike [`crate::Pipeline::run`], the caller does not
//! hand over a source and wait: it keeps working between gives (a writer compressing what a
//! run's sink hands it, say), and the pool's threads live as long as the pool, not a scope.
//!
//! Back-pressure: at most `capacity` items wait for a thread; `give` blocks beyond. Outputs
//! wait until taken, so a caller that takes what is ready after each give holds at most
//! `capacity` items, one a thread, and the outputs not yet in order. A panic in `work` is
//! caught and returned by the next `give`, `ready` or `settle` as
//! [`PipelineError::Panicked`] with stage `"pool"`. Dropping the pool lets its threads finish
//! the items given and joins them.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::thread::JoinHandle;

use crossbeam_channel::{Receiver, Sender, TryRecvError, bounded, unbounded};

use crate::{PipelineError, panic_message};

/// The caller's end of an ordered worker pool.
pub struct OrderedPool<I, O> {
    given: Option<Sender<(u64, I)>>,
    done: Receiver<(u64, Result<O, String>)>,
    /// Outputs that came back before an earlier item's.
    early: BTreeMap<u64, O>,
    /// The place the next item given takes.
    next_given: u64,
    /// The place of the next output to take back.
    next_taken: u64,
    threads: Vec<JoinHandle<()>>,
}

impl<I: Send + 'static, O: Send + 'static> OrderedPool<I, O> {
    /// Starts `threads` (at least one) threads named `name`, each applying `work` to the items
    /// it takes; at most `capacity` (at least one) items wait for them. An error when the
    /// system refuses a thread.
    pub fn start(
        name: &str,
        threads: usize,
        capacity: usize,
        work: impl Fn(I) -> O + Send + Sync + 'static,
    ) -> std::io::Result<Self> {
        let (given_tx, given_rx) = bounded::<(u64, I)>(capacity.max(1));
        // Unbounded: a thread never waits for the caller, so the caller may block on a full
        // `given` channel without both waiting on each other.
        let (done_tx, done_rx) = unbounded();
        let work = Arc::new(work);
        let mut pool = OrderedPool {
            given: Some(given_tx),
            done: done_rx,
            early: BTreeMap::new(),
            next_given: 0,
            next_taken: 0,
            threads: Vec::new(),
        };
        for _ in 0..threads.max(1) {
            let (given, done, work) = (given_rx.clone(), done_tx.clone(), Arc::clone(&work));
            let thread = std::thread::Builder::new()
                .name(name.to_string())
                .spawn(move || {
                    for (place, item) in given {
                        let output = catch_unwind(AssertUnwindSafe(|| work(item)))
                            .map_err(|payload| panic_message(payload.as_ref()));
                        let failed = output.is_err();
                        if done.send((place, output)).is_err() || failed {
                            return;
                        }
                    }
                })?;
            pool.threads.push(thread);
        }
        Ok(pool)
    }

    /// Hands `item` to the pool; waits while `capacity` items wait for a thread.
    pub fn give<E>(&mut self, item: I) -> Result<(), PipelineError<E>> {
        let sent = self
            .given
            .as_ref()
            .map(|given| given.send((self.next_given, item)));
        match sent {
            Some(Ok(())) => {
                self.next_given += 1;
                Ok(())
            }
            // Every thread has stopped: only a panic stops one while the pool lives.
            _ => Err(self.stopped()),
        }
    }

    /// The outputs ready at the front of the line, in the order given, without waiting.
    pub fn ready<E>(&mut self) -> Result<Vec<O>, PipelineError<E>> {
        loop {
            match self.done.try_recv() {
                Ok((place, output)) => self.arrived(place, output)?,
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) if self.outstanding() == 0 => break,
                Err(TryRecvError::Disconnected) => return Err(self.stopped()),
            }
        }
        Ok(self.in_order())
    }

    /// Waits until every item given has been worked on; their outputs not yet taken, in the
    /// order given.
    pub fn settle<E>(&mut self) -> Result<Vec<O>, PipelineError<E>> {
        let mut outputs = Vec::new();
        while self.next_taken < self.next_given {
            if !self.early.contains_key(&self.next_taken) {
                match self.done.recv() {
                    Ok((place, output)) => self.arrived(place, output)?,
                    Err(_) => return Err(self.stopped()),
                }
            }
            outputs.extend(self.in_order());
        }
        Ok(outputs)
    }

    /// Items given whose outputs have not come back.
    fn outstanding(&self) -> usize {
        (self.next_given - self.next_taken) as usize - self.early.len()
    }

    fn arrived<E>(
        &mut self,
        place: u64,
        output: Result<O, String>,
    ) -> Result<(), PipelineError<E>> {
        let output = output.map_err(|message| PipelineError::Panicked {
            stage: "pool",
            message,
        })?;
        self.early.insert(place, output);
        Ok(())
    }

    /// The outputs at the front of the line, taken out of it.
    fn in_order(&mut self) -> Vec<O> {
        let mut outputs = Vec::new();
        while let Some(output) = self.early.remove(&self.next_taken) {
            outputs.push(output);
            self.next_taken += 1;
        }
        outputs
    }

    /// Why the threads stopped before their work was done.
    fn stopped<E>(&mut self) -> PipelineError<E> {
        // A panic's message came through `done` unless the thread died some other way.
        while let Ok((_, output)) = self.done.try_recv() {
            if let Err(message) = output {
                return PipelineError::Panicked {
                    stage: "pool",
                    message,
                };
            }
        }
        PipelineError::Panicked {
            stage: "pool",
            message: "the pool's threads stopped".to_string(),
        }
    }
}

impl<I, O> Drop for OrderedPool<I, O> {
    fn drop(&mut self) {
        // Closing the channel ends each thread's loop once the items given are taken.
        self.given.take();
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outputs_come_back_in_the_order_given() {
        let mut pool = OrderedPool::start("test", 3, 2, |n: u64| {
            // Later items often finish first.
            if n.is_multiple_of(7) {
                std::thread::sleep(std::time::Duration::from_micros(300));
            }
            n * n
        })
        .unwrap();
        let mut outputs = Vec::new();
        for n in 0..300u64 {
            pool.give::<()>(n).unwrap();
            outputs.extend(pool.ready::<()>().unwrap());
        }
        outputs.extend(pool.settle::<()>().unwrap());
        assert!(pool.settle::<()>().unwrap().is_empty());
        assert!(pool.ready::<()>().unwrap().is_empty());
        assert_eq!(outputs, (0..300u64).map(|n| n * n).collect::<Vec<_>>());
    }

    #[test]
    fn a_panic_in_the_work_is_returned_not_raised() {
        let mut pool = OrderedPool::start("test", 2, 1, |n: u64| {
            if n == 3 {
                panic!("pool broke at {n}");
            }
            n
        })
        .unwrap();
        let mut result = Ok(Vec::new());
        for n in 0..100u64 {
            if let Err(error) = pool.give::<()>(n) {
                result = Err(error);
                break;
            }
        }
        if result.is_ok() {
            result = pool.settle::<()>();
        }
        match result {
            Err(PipelineError::Panicked { stage, message }) => {
                assert_eq!(stage, "pool");
                assert_eq!(message, "pool broke at 3");
            }
            other => panic!("unexpected {other:?}"),
        }
    }
}
