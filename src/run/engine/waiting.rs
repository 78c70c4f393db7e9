//! Waiting: the pages of a two-pass read from their hand-over to be learned to their
//! decision.
//!
//! In: pages handed over to be learned, their observations back once learned (by their
//! place in the line), plain-text pages and skips, in input order; word that a site's last
//! page has been handed over. Out: decided pages, in input order, to the read's `emit`.
//!
//! Before the read, one read of its source counts each site's records ([`SiteRecords`]), so
//! that a site is known to be complete when its last record arrives. Its waiting pages are
//! then decided — against every page of the site, as deciding after the whole input would;
//! a small site with a few others ([`DECIDE_ON_WORKERS_FROM`]) — and the detector lets go
//! of the site. Pages leave in input order: a decided page
//! waits for the pages before it. A read of a crawl stored site by site so holds the state
//! and pages of about one site at a time; sites that never complete (a record that turned out
//! not to be a page, a file changed between the reads), and small complete sites still
//! waiting for others, are decided when the input ends.

use std::collections::VecDeque;

use rustc_hash::FxHashMap;

use indexer_pipeline::Pipeline;

use super::Decision;
use super::shards::ReadShards;
use crate::detect::{Detector, PageSource};
use crate::read::{Halves, RecordItem, site_of};
use crate::report::BuildSummary;
use crate::run::prepare::{Origin, Prepared};
use crate::run::rounds::RecordSource;
use crate::run::{BuildError, DecidedPage};
use crate::segment::{SegmentedPage, stable_hash_bytes};

/// Fewer waiting pages than this are decided on the calling thread: starting the workers
/// costs more than deciding a few pages. With two workers or more, complete sites of fewer
/// pages wait for others until their pages reach it, and are decided together on the workers.
pub(super) const DECIDE_ON_WORKERS_FROM: usize = 8;

/// Records of each site still to come in a read.
pub(super) struct SiteRecords {
    remaining: FxHashMap<u64, SiteCount>,
}

/// One site's records in a read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct SiteCount {
    /// Records of the site, skips included (while the read is on: those still to come).
    records: u32,
    /// Those the reader yields as records, not skips: the site's pages, or about.
    pages: u32,
}

/// A site whose every record has arrived.
pub(super) struct CompleteSite {
    pub(super) site: String,
    /// Its records that the reader did not skip: about its pages.
    pub(super) pages: u32,
}

impl SiteRecords {
    /// Counts the records of each site that `source` yields — the same records, in the same
    /// order, that the read will see — by the site each will arrive with, skips included (a
    /// record is counted where [`last_of_site`](Self::last_of_site) will place it, or
    /// nowhere). With two threads or more, the source is read as two halves at once when it
    /// can be cut ([`RecordSource::halves`]); the count is the same.
    pub(super) fn count(
        source: RecordSource<'_>,
        threads: usize,
        stopped: &(dyn Fn() -> bool + Sync),
        counted: &(dyn Fn() + Sync),
    ) -> Result<Self, BuildError> {
        let halves = if threads >= 2 { source.halves() } else { None };
        match halves {
            Some(halves) => Self::count_halves(halves, stopped, counted),
            None => {
                let mut remaining = FxHashMap::default();
                count_into(&mut remaining, source.records(), stopped, counted)?;
                Ok(SiteRecords { remaining })
            }
        }
    }

    /// [`count`](Self::count) of two halves, the second on a thread of its own.
    fn count_halves(
        Halves { first, second, cut }: Halves<'_>,
        stopped: &(dyn Fn() -> bool + Sync),
        counted: &(dyn Fn() + Sync),
    ) -> Result<Self, BuildError> {
        std::thread::scope(|scope| {
            let second = scope.spawn(move || {
                let mut second = second.peekable();
                let first_item = second.peek().cloned();
                let mut remaining = FxHashMap::default();
                count_into(&mut remaining, second, stopped, counted)
                    .map(|()| (remaining, first_item))
            });
            let mut first = first;
            let mut remaining = FxHashMap::default();
            let mut reached = None;
            let before_cut = first.by_ref().map_while(|item| {
                if cut.reached(&item) {
                    reached = Some(item);
                    None
                } else {
                    Some(item)
                }
            });
            count_into(&mut remaining, before_cut, stopped, counted)?;
            let (second_remaining, second_first) = second
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
            if cut.joins(reached.as_ref(), second_first.as_ref()) {
                for (site, count) in second_remaining {
                    let sum: &mut SiteCount = remaining.entry(site).or_default();
                    sum.records += count.records;
                    sum.pages += count.pages;
                }
            } else {
                count_into(
                    &mut remaining,
                    reached.into_iter().chain(first),
                    stopped,
                    counted,
                )?;
            }
            Ok(SiteRecords { remaining })
        })
    }

    /// A record has arrived, whatever became of it: its site, when it was the site's last.
    pub(super) fn last_of_site<T>(&mut self, prepared: &Prepared<T>) -> Option<CompleteSite> {
        let complete = |site: String, pages| CompleteSite { site, pages };
        match prepared {
            Prepared::Page(page, _) | Prepared::Text(page, _) => self
                .arrived(&page.site)
                .map(|pages| complete(page.site.clone(), pages)),
            Prepared::Skipped(skip) => {
                let site = site_of(skip.url.as_deref()?);
                self.arrived(&site).map(|pages| complete(site, pages))
            }
        }
    }

    /// One record of `site` has arrived: the site's pages, when it was the last.
    fn arrived(&mut self, site: &str) -> Option<u32> {
        let key = site_key(site);
        match self.remaining.get_mut(&key) {
            Some(count) if count.records > 1 => {
                count.records -= 1;
                None
            }
            Some(_) => self.remaining.remove(&key).map(|count| count.pages),
            // More records than counted: the input changed since. The site stays open.
            None => None,
        }
    }
}

/// Adds the records of `records` to the counts of their sites.
fn count_into(
    remaining: &mut FxHashMap<u64, SiteCount>,
    records: impl Iterator<Item = RecordItem>,
    stopped: &(dyn Fn() -> bool + Sync),
    counted: &(dyn Fn() + Sync),
) -> Result<(), BuildError> {
    for item in records {
        if stopped() {
            return Err(BuildError::Interrupted);
        }
        let url = match &item {
            Ok(record) => Some(&record.url),
            Err(skip) => skip.url.as_ref(),
        };
        if let Some(url) = url {
            let count = remaining.entry(site_key(&site_of(url))).or_default();
            count.records += 1;
            count.pages += u32::from(item.is_ok());
        }
        counted();
    }
    Ok(())
}

fn site_key(site: &str) -> u64 {
    stable_hash_bytes(site.as_bytes())
}

/// One place in the line of waiting pages.
enum Slot<O> {
    /// A page whose observation is being learned (and then trimmed), on the learning thread;
    /// and the bytes it will hold.
    Learning(SegmentedPage, Origin, usize),
    /// A learned page waiting for its decision, with its observation.
    Learned(SegmentedPage, O, Origin, usize),
    /// Ready to leave: a decided page, a plain-text page or a skip; and the bytes it holds.
    Ready(Prepared<Decision>, usize),
    /// A page taken out to be decided.
    Deciding,
}

/// Pages from their hand-over to be learned to their emission, in input order.
pub(super) struct Waiting<O> {
    slots: VecDeque<Slot<O>>,
    /// The place of the line's front: the pages that have left it.
    first_place: u64,
    /// Approximate bytes held by the pages waiting, decided or not.
    pub(super) bytes: usize,
    /// Whether a page's kept text is rendered where it is decided, on the workers.
    renders_kept_text: bool,
}

impl<O: Send> Waiting<O> {
    /// An empty line; `renders_kept_text`: [`RunPlan::renders_kept_text`].
    ///
    /// [`RunPlan::renders_kept_text`]: crate::run::RunPlan::renders_kept_text
    pub(super) fn new(renders_kept_text: bool) -> Self {
        Waiting {
            slots: VecDeque::new(),
            first_place: 0,
            bytes: 0,
            renders_kept_text,
        }
    }

    /// Adds a page whose observation is handed over to be learned; `bytes` is what it will
    /// hold once learned. Returns its place in the line, by which the observation comes back
    /// ([`learned`](Self::learned)).
    pub(super) fn push_learning(
        &mut self,
        page: SegmentedPage,
        origin: Origin,
        bytes: usize,
    ) -> u64 {
        self.bytes += bytes;
        self.slots.push_back(Slot::Learning(page, origin, bytes));
        self.first_place + self.slots.len() as u64 - 1
    }

    /// The observation of the page at `place`, learned: the page waits for its decision.
    /// An error when no page at `place` was being learned (a page left in the line would hold
    /// back every page after it).
    pub(super) fn learned(&mut self, place: u64, observation: O) -> Result<(), BuildError> {
        let at = place
            .checked_sub(self.first_place)
            .and_then(|at| usize::try_from(at).ok());
        if let Some(slot) = at.and_then(|at| self.slots.get_mut(at))
            && matches!(slot, Slot::Learning(..))
            && let Slot::Learning(page, origin, bytes) = std::mem::replace(slot, Slot::Deciding)
        {
            *slot = Slot::Learned(page, observation, origin, bytes);
            return Ok(());
        }
        Err(BuildError::Pipeline(format!(
            "a learned page came back to place {place}, where no page was being learned"
        )))
    }

    /// Adds a plain-text page or a skip, which needs no decision.
    pub(super) fn push_ready(&mut self, ready: Prepared<Decision>) {
        let bytes = match &ready {
            Prepared::Text(page, _) => page.heap_bytes(),
            _ => 0,
        };
        self.bytes += bytes;
        self.slots.push_back(Slot::Ready(ready, bytes));
    }

    /// Whether no page waits, decided or not.
    pub(super) fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Decides the learned pages that `which` picks, against what `detector` has learned so
    /// far, then hands every page ready at the front of the line to `emit`. Returns how many
    /// pages it decided.
    pub(super) fn decide<D: Detector<Observation = O>>(
        &mut self,
        detectors: &ReadShards<'_, D>,
        which: impl Fn(&SegmentedPage) -> bool,
        pipeline: &Pipeline,
        pages: &dyn PageSource,
        tally: &mut BuildSummary,
        emit: &mut dyn FnMut(DecidedPage) -> Result<(), BuildError>,
    ) -> Result<usize, BuildError> {
        debug_assert!(
            !self
                .slots
                .iter()
                .any(|slot| matches!(slot, Slot::Learning(..))),
            "pages are decided once every page before them is learned"
        );
        let mut taken = Vec::new();
        for (at, slot) in self.slots.iter_mut().enumerate() {
            if matches!(slot, Slot::Learned(page, ..) if which(page))
                && let Slot::Learned(page, observation, origin, bytes) =
                    std::mem::replace(slot, Slot::Deciding)
            {
                taken.push((at, page, observation, origin, bytes));
            }
        }
        let decided = taken.len();
        let render = self.renders_kept_text;
        // A page's bytes grow by its rendered text, counted while it waits to leave.
        let decide = |(at, mut page, observation, origin, bytes): (
            usize,
            SegmentedPage,
            O,
            Origin,
            usize,
        )| {
            let verdicts = detectors.of(&page.site).decide(&page, &observation, pages);
            let read_back = if render {
                0
            } else {
                // Written later on the one in-order thread: its marks are read back here.
                let packed_bytes = page.layout.heap_bytes();
                page.layout.unpack();
                page.layout.heap_bytes().saturating_sub(packed_bytes)
            };
            let decision = Decision::rendered(&page, verdicts, origin, render);
            let rendered = decision.rendered_bytes() + read_back;
            (at, Prepared::Page(page, decision), bytes, rendered)
        };
        let (slots, waiting_bytes) = (&mut self.slots, &mut self.bytes);
        let mut put_back = |(at, decided, bytes, rendered): (usize, _, usize, usize)| {
            *waiting_bytes += rendered;
            slots[at] = Slot::Ready(decided, bytes + rendered);
        };
        if taken.len() < DECIDE_ON_WORKERS_FROM {
            taken.into_iter().map(decide).for_each(&mut put_back);
        } else {
            pipeline.run(
                taken,
                |item| Ok::<_, BuildError>(decide(item)),
                |decided| {
                    put_back(decided);
                    Ok(())
                },
            )?;
        }
        while let Some(Slot::Ready(..)) = self.slots.front() {
            if let Some(Slot::Ready(ready, bytes)) = self.slots.pop_front() {
                self.first_place += 1;
                self.bytes -= bytes;
                super::tally_and_emit(tally, ready, emit)?;
            }
        }
        Ok(decided)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::test_support::fixture;
    use crate::read::{Cut, InputSet, RecordLocation, Skip, SkipReason};

    fn serial_count(inputs: &InputSet) -> FxHashMap<u64, SiteCount> {
        let mut remaining = FxHashMap::default();
        count_into(&mut remaining, inputs.records(), &|| false, &|| {}).unwrap();
        remaining
    }

    #[test]
    fn two_halves_count_as_one_read() {
        let inputs = InputSet::open(
            &[
                fixture("dolma-sample-0000.warc.gz"),
                fixture("dolma-sample-0001.warc.gz"),
            ],
            None,
        )
        .unwrap();
        let serial = serial_count(&inputs);
        assert!(serial.len() > 10, "{} sites", serial.len());
        let halves = inputs.halves_from(1).unwrap();
        assert_eq!(halves.cut, Cut::Input(1));
        let counted = SiteRecords::count_halves(halves, &|| false, &|| {}).unwrap();
        assert_eq!(counted.remaining, serial);

        // A cut the halves do not join at: the first half is counted on to its end instead.
        let items: Vec<RecordItem> = inputs.records().collect();
        let at = (items.len() / 2..items.len())
            .find(|&at| items[at].is_ok())
            .unwrap();
        let Ok(middle) = &items[at] else {
            unreachable!()
        };
        let stray = Skip::new(
            SkipReason::BrokenRecordHeaders,
            Some("http://stray.example/".into()),
            String::new(),
        );
        let halves = Halves {
            first: Box::new(inputs.records()),
            second: Box::new(std::iter::once(Err(stray)).chain(items[at..].to_vec())),
            cut: Cut::Within(RecordLocation::of(middle)),
        };
        let counted = SiteRecords::count_halves(halves, &|| false, &|| {}).unwrap();
        assert_eq!(counted.remaining, serial);
    }
}
