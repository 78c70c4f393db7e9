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
use crate::read::{Cut, Parts, RecordItem, RecordPlaces, site_of};
use crate::report::BuildSummary;
use crate::run::prepare::{Origin, Prepared};
use crate::run::rounds::RecordSource;
use crate::run::{BuildError, DecidedPage, RenderedAhead};
use crate::segment::{SegmentedPage, stable_hash_bytes};

/// Fewer waiting pages than this are decided on the calling thread: starting the workers
/// costs more than deciding a few pages. With two workers or more, complete sites of fewer
/// pages wait for others until their pages reach it, and are decided together on the workers.
pub(super) const DECIDE_ON_WORKERS_FROM: usize = 8;

/// Records of each site still to come in a read.
pub(super) struct SiteRecords {
    remaining: FxHashMap<u64, SiteCount>,
    /// Where the counted items lie, when the count read the input itself (not a round's
    /// partition): the read that follows hands each gzip record to a worker to inflate.
    places: Option<RecordPlaces>,
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
    /// Counts the records of each site that `source` yields — the records, in the same order,
    /// that the read will see; in a damaged file, maybe more ([`Blocks::MayBeLeftOut`]) — by
    /// the site each will arrive with, skips included (a record is counted where
    /// [`last_of_site`](Self::last_of_site) will place it, or nowhere). With two threads or
    /// more, the source is read in as many parts at once when it can be cut
    /// ([`RecordSource::parts_to_count`]); the count is the same.
    ///
    /// [`Blocks::MayBeLeftOut`]: crate::read::Blocks::MayBeLeftOut
    ///
    /// Counting the input itself, it also notes where each item lies ([`RecordPlaces`]), at
    /// most `most_places` of them.
    pub(super) fn count(
        source: RecordSource<'_>,
        threads: usize,
        most_places: usize,
        stopped: &(dyn Fn() -> bool + Sync),
        counted: &(dyn Fn() + Sync),
    ) -> Result<Self, BuildError> {
        let parts = if threads >= 2 {
            source.parts_to_count(threads)
        } else {
            None
        };
        let places = source.record_places(most_places);
        match parts {
            Some(parts) => Self::count_parts(parts, places, stopped, counted),
            None => {
                let mut tally = Tally {
                    remaining: FxHashMap::default(),
                    places,
                };
                tally.count(source.records_to_count(), stopped, counted)?;
                Ok(tally.into_site_records())
            }
        }
    }

    /// [`count`](Self::count) of the parts of a source, each later part on a thread of its
    /// own.
    fn count_parts(
        Parts { first, later }: Parts<'_>,
        places: Option<RecordPlaces>,
        stopped: &(dyn Fn() -> bool + Sync),
        counted: &(dyn Fn() + Sync),
    ) -> Result<Self, BuildError> {
        let cuts: Vec<Cut> = later.iter().map(|(cut, _)| *cut).collect();
        let room = places.as_ref().map(RecordPlaces::room);
        let places = places.map(|places| places.share(cuts.len() + 1));
        std::thread::scope(|scope| {
            let readers: Vec<_> = later
                .into_iter()
                .enumerate()
                .map(|(at, (_, records))| {
                    let (end, places) = (cuts.get(at + 1).copied(), places.clone());
                    scope.spawn(move || PartCount::of(records, end, places, stopped, counted))
                })
                .collect();
            let mut current =
                PartCount::of(first, cuts.first().copied(), places, stopped, counted)?;
            for (reader, cut) in readers.into_iter().zip(&cuts) {
                let next = reader
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
                if !cut.joins(current.reached.as_ref(), next.first_item.as_ref()) {
                    // The parts do not meet here: this part is read on to the end instead,
                    // with the room of the whole read for its places.
                    if let (Some(places), Some(room)) = (current.tally.places.as_mut(), room) {
                        places.widen(room);
                    }
                    let rest = current.reached.take().into_iter().chain(current.rest);
                    current.tally.count(rest, stopped, counted)?;
                    return Ok(current.tally.into_site_records());
                }
                current.tally.append(next.tally);
                current.reached = next.reached;
                current.rest = next.rest;
            }
            Ok(current.tally.into_site_records())
        })
    }

    /// Where the counted items lie, for the read that follows ([`RecordPlaces`]); `None` when
    /// the count did not read the input itself.
    pub(super) fn take_places(&mut self) -> Option<RecordPlaces> {
        self.places.take()
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
/// What one reader of a count has met: the records of each site, and where its items lie.
struct Tally {
    remaining: FxHashMap<u64, SiteCount>,
    places: Option<RecordPlaces>,
}

impl Tally {
    fn count(
        &mut self,
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
                let count = self.remaining.entry(site_key(&site_of(url))).or_default();
                count.records += 1;
                count.pages += u32::from(item.is_ok());
            }
            if let Some(places) = &mut self.places {
                places.note(&item);
            }
            counted();
        }
        Ok(())
    }

    /// Adds what the reader of the records that follow met.
    fn append(&mut self, later: Tally) {
        for (site, count) in later.remaining {
            let sum: &mut SiteCount = self.remaining.entry(site).or_default();
            sum.records += count.records;
            sum.pages += count.pages;
        }
        if let (Some(places), Some(later)) = (&mut self.places, later.places) {
            places.append(later);
        }
    }

    fn into_site_records(self) -> SiteRecords {
        SiteRecords {
            remaining: self.remaining,
            places: self.places,
        }
    }
}

/// One part of a count read up to where the next part starts.
struct PartCount<'a> {
    tally: Tally,
    /// The part's first item.
    first_item: Option<RecordItem>,
    /// Its first item at or past the next part's cut, not counted (`None` when it ended
    /// first, or is the last part).
    reached: Option<RecordItem>,
    /// Its items after `reached`, unread.
    rest: Box<dyn Iterator<Item = RecordItem> + Send + 'a>,
}

impl<'a> PartCount<'a> {
    /// Counts `records` up to the first item past `end` (the next part's cut), or to their
    /// end.
    fn of(
        records: Box<dyn Iterator<Item = RecordItem> + Send + 'a>,
        end: Option<Cut>,
        places: Option<RecordPlaces>,
        stopped: &(dyn Fn() -> bool + Sync),
        counted: &(dyn Fn() + Sync),
    ) -> Result<Self, BuildError> {
        let mut records = records.peekable();
        let first_item = records.peek().cloned();
        let mut tally = Tally {
            remaining: FxHashMap::default(),
            places,
        };
        let mut reached = None;
        let before_end = records.by_ref().map_while(|item| match end {
            Some(cut) if cut.reached(&item) => {
                reached = Some(item);
                None
            }
            _ => Some(item),
        });
        tally.count(before_end, stopped, counted)?;
        Ok(PartCount {
            tally,
            first_item,
            reached,
            rest: Box::new(records),
        })
    }
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
    /// What is rendered of a page where it is decided, on the workers.
    rendered_ahead: RenderedAhead,
    /// Whether the kept text as lines is all that is written of a page: with that text
    /// rendered ahead, its packed layout is then not read back.
    writes_lines_only: bool,
}

impl<O: Send> Waiting<O> {
    /// An empty line; `rendered_ahead` and `writes_lines_only`: [`RunPlan`]'s.
    ///
    /// [`RunPlan`]: crate::run::RunPlan
    pub(super) fn new(rendered_ahead: RenderedAhead, writes_lines_only: bool) -> Self {
        Waiting {
            slots: VecDeque::new(),
            first_place: 0,
            bytes: 0,
            rendered_ahead,
            writes_lines_only,
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
        let (ahead, writes_lines_only) = (self.rendered_ahead, self.writes_lines_only);
        // A page's bytes grow by its rendered text, counted while it waits to leave.
        let decide = |(at, mut page, observation, origin, bytes): (
            usize,
            SegmentedPage,
            O,
            Origin,
            usize,
        )| {
            let verdicts = detectors.of(&page.site).decide(&page, &observation, pages);
            let read_back = if ahead.text_form().is_some() && writes_lines_only {
                0
            } else {
                // Read later (to render Markdown here, dolma's spans or a text on the one
                // in-order thread): its marks are read back here.
                let packed_bytes = page.layout.heap_bytes();
                page.layout.unpack();
                page.layout.heap_bytes().saturating_sub(packed_bytes)
            };
            let decision = Decision::rendered(&page, verdicts, origin, ahead);
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
    use crate::read::{Blocks, InputSet, RecordLocation, Skip, SkipReason};

    fn serial_count(inputs: &InputSet) -> SiteRecords {
        let mut tally = Tally {
            remaining: FxHashMap::default(),
            places: Some(RecordPlaces::holding_at_most(usize::MAX)),
        };
        tally.count(inputs.records(), &|| false, &|| {}).unwrap();
        tally.into_site_records()
    }

    #[test]
    fn parts_count_as_one_read() {
        let inputs = InputSet::open(
            &[
                fixture("dolma-sample-0000.warc.gz"),
                fixture("dolma-sample-0001.warc.gz"),
            ],
            None,
        )
        .unwrap();
        let serial = serial_count(&inputs);
        assert!(
            serial.remaining.len() > 10,
            "{} sites",
            serial.remaining.len()
        );
        let places = serial.places.as_ref().unwrap();
        assert_eq!(places.placed_inputs(), 2);
        let count_parts = |parts| {
            SiteRecords::count_parts(
                parts,
                Some(RecordPlaces::holding_at_most(usize::MAX)),
                &|| false,
                &|| {},
            )
            .unwrap()
        };
        let parts = inputs.parts_from(2, 1, Blocks::MayBeLeftOut).unwrap();
        assert_eq!(parts.later.len(), 1);
        assert_eq!(parts.later[0].0, Cut::Input(1));
        let counted = count_parts(parts);
        assert_eq!(counted.remaining, serial.remaining);
        assert_eq!(counted.places.as_ref(), Some(places));

        // Cuts within the files too: their places are put together from the parts.
        for wanted in [3, 5, 8] {
            let parts = inputs.parts_from(wanted, 1, Blocks::MayBeLeftOut).unwrap();
            assert!(
                parts.later.len() >= wanted - 2,
                "{} parts",
                parts.later.len() + 1
            );
            assert!(
                parts
                    .later
                    .iter()
                    .any(|(cut, _)| matches!(cut, Cut::Within(_)))
            );
            let counted = count_parts(parts);
            assert_eq!(counted.remaining, serial.remaining);
            assert_eq!(counted.places.as_ref(), Some(places));
        }

        // A cut the parts do not join at: the part before it is counted on to the end, and
        // the parts after it are not counted.
        let items: Vec<RecordItem> = inputs.records().collect();
        let item_at = |share: usize| {
            let at = (items.len() * share / 4..items.len())
                .find(|&at| items[at].is_ok())
                .unwrap();
            let Ok(record) = &items[at] else {
                unreachable!()
            };
            (at, Cut::Within(RecordLocation::of(record)))
        };
        let ((second, second_cut), (third, third_cut)) = (item_at(1), item_at(2));
        let stray = Skip::new(
            SkipReason::BrokenRecordHeaders,
            Some("http://stray.example/".into()),
            String::new(),
        );
        let parts = || Parts {
            first: Box::new(inputs.records()),
            later: vec![
                (second_cut, Box::new(items[second..].iter().cloned())),
                (
                    third_cut,
                    Box::new(std::iter::once(Err(stray.clone())).chain(items[third..].to_vec())),
                ),
            ],
        };
        let counted = count_parts(parts());
        assert_eq!(counted.remaining, serial.remaining);
        assert_eq!(counted.places.as_ref(), Some(places));

        // With room for no more places than the whole read holds, the part read on to the end
        // takes the whole room back, not its third: every item is still placed.
        let room = places.held();
        let counted = SiteRecords::count_parts(
            parts(),
            Some(RecordPlaces::holding_at_most(room)),
            &|| false,
            &|| {},
        )
        .unwrap();
        assert_eq!(counted.places.as_ref(), Some(places));
    }
}
