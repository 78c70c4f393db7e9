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
//! Back-pressure: at most `capacity` items wait for a thread, and at most `capacity` plus one
//! a thread are given and not yet taken back (waiting, being worked on, or done behind an
//! earlier one); `give` blocks beyond either. A panic in `work` is caught and returned as
//! [`PipelineError::Panicked`] with stage `"pool"` by the next `give`, `ready` or `settle`,
//! and by every one after it. Dropping the pool lets its threads finish the items given and
//! joins them.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::thread::JoinHandle;

use crossbeam_channel::{Receiver, Sender, TryRecvError, bounded, unbounded};

use crate::PipelineError;
use crate::side::work_in_order_given;

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
    /// The most items given and not yet taken back.
    most_outstanding: u64,
    /// The message of a panic in `work`, once one is seen.
    panicked: Option<String>,
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
        let (threads, capacity) = (threads.max(1), capacity.max(1));
        let (given_tx, given_rx) = bounded::<(u64, I)>(capacity);
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
            most_outstanding: (capacity + threads) as u64,
            panicked: None,
            threads: Vec::new(),
        };
        for _ in 0..threads {
            let (given, done, work) = (given_rx.clone(), done_tx.clone(), Arc::clone(&work));
            let thread = std::thread::Builder::new()
                .name(name.to_string())
                .spawn(move || work_in_order_given(&given, &done, |item| work(item)))?;
            pool.threads.push(thread);
        }
        Ok(pool)
    }

    /// Hands `item` to the pool; waits while `capacity` items wait for a thread, or while
    /// the items given and not taken back are as many as the pool holds (the outputs that
    /// came back meanwhile are taken by the next [`ready`](Self::ready)).
    pub fn give<E>(&mut self, item: I) -> Result<(), PipelineError<E>> {
        self.failed()?;
        while self.next_given - self.next_taken >= self.most_outstanding
            && !self.early.contains_key(&self.next_taken)
        {
            match self.done.recv() {
                Ok((place, output)) => self.arrived(place, output)?,
                Err(_) => return Err(self.stopped()),
            }
        }
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
        self.failed()?;
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
        self.failed()?;
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
        match output {
            Ok(output) => {
                self.early.insert(place, output);
                Ok(())
            }
            Err(message) => {
                self.panicked = Some(message);
                self.failed()
            }
        }
    }

    /// The panic seen in `work`, if any: it stops the pool for good.
    fn failed<E>(&self) -> Result<(), PipelineError<E>> {
        match &self.panicked {
            Some(message) => Err(PipelineError::Panicked {
                stage: "pool",
                message: message.clone(),
            }),
            None => Ok(()),
        }
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
                self.panicked = Some(message);
                break;
            }
        }
        let message = self
            .panicked
            .get_or_insert_with(|| "the pool's threads stopped".into());
        PipelineError::Panicked {
            stage: "pool",
            message: message.clone(),
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
        let is_the_panic = |result: Result<Vec<u64>, PipelineError<()>>| {
            matches!(result, Err(PipelineError::Panicked { stage: "pool", message })
                if message == "pool broke at 3")
        };
        assert!(is_the_panic(result));
        // And again, whatever is asked next, without waiting for the item that never came.
        assert!(is_the_panic(pool.settle()));
        assert!(is_the_panic(pool.ready()));
        assert!(is_the_panic(pool.give(200).map(|()| Vec::new())));
        // Dropped, the pool joins the thread left.
        drop(pool);

        // Every thread dead: a give fails rather than waits.
        let mut pool = OrderedPool::start("test", 1, 1, |n: u64| -> u64 {
            panic!("pool broke at {n}")
        })
        .unwrap();
        let mut result = Ok(());
        for n in 0..10u64 {
            result = pool.give::<()>(n);
            if result.is_err() {
                break;
            }
        }
        assert!(matches!(
            result,
            Err(PipelineError::Panicked { message, .. }) if message == "pool broke at 0"
        ));
    }

    #[test]
    fn a_slow_item_holds_back_the_gives_after_it() {
        let mut pool = OrderedPool::start("test", 2, 1, |n: u64| {
            if n == 0 {
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
            n
        })
        .unwrap();
        // While the first item is worked on, the other thread could finish every later one:
        // they wait in the pool, at most capacity plus threads given and not taken back.
        let mut outputs = Vec::new();
        for n in 0..50u64 {
            pool.give::<()>(n).unwrap();
            outputs.extend(pool.ready::<()>().unwrap());
            let outstanding = pool.next_given - pool.next_taken;
            assert!(outstanding <= 3, "{outstanding} after item {n}");
        }
        outputs.extend(pool.settle::<()>().unwrap());
        assert_eq!(outputs, (0..50).collect::<Vec<_>>());
    }
}
