//! Waiting: the pages of a two-pass read between their learning and their decision.
//!
//! In: pages learned (with their observations), plain-text pages and skips, in input order;
//! word that a site's last page has been learned. Out: decided pages, in input order, to the
//! read's `emit`.
//!
//! Before the read, one read of its source counts each site's records ([`SiteRecords`]), so
//! that a site is known to be complete when its last record arrives. Its waiting pages are
//! then decided at once — against every page of the site, as deciding after the whole input
//! would — and the detector lets go of the site. Pages leave in input order: a decided page
//! waits for the pages before it. A read of a crawl stored site by site so holds the state
//! and pages of about one site at a time; sites that never complete (a record that turned out
//! not to be a page, a file changed between the reads) are decided when the input ends.

use std::collections::VecDeque;

use rustc_hash::FxHashMap;

use indexer_pipeline::Pipeline;

use crate::detect::{Detector, PageSource, Verdict};
use crate::read::{Record, Skip, site_of};
use crate::run::prepare::{Observed, Origin, Prepared};
use crate::run::{BuildError, BuildSummary, DecidedPage};
use crate::segment::{SegmentedPage, stable_hash_bytes};

/// Sites with fewer waiting pages than this are decided on the calling thread: starting the
/// workers costs more than deciding a few pages.
const DECIDE_ON_WORKERS_FROM: usize = 8;

/// Records of each site still to come in a read.
pub(super) struct SiteRecords {
    remaining: FxHashMap<u64, u32>,
}

impl SiteRecords {
    /// Counts the records of each site that `records` yields — the same records, in the same
    /// order, that the read will see — by the site each will arrive with, skips included (a
    /// record is counted where [`last_of_site`](Self::last_of_site) will place it, or
    /// nowhere).
    pub(super) fn count(
        records: impl Iterator<Item = Result<Record, Skip>>,
        stopped: impl Fn() -> bool,
        mut counted: impl FnMut(),
    ) -> Result<Self, BuildError> {
        let mut remaining: FxHashMap<u64, u32> = FxHashMap::default();
        for item in records {
            if stopped() {
                return Err(BuildError::Interrupted);
            }
            let url = match &item {
                Ok(record) => Some(&record.url),
                Err(skip) => skip.url.as_ref(),
            };
            if let Some(url) = url {
                *remaining.entry(site_key(&site_of(url))).or_default() += 1;
            }
            counted();
        }
        Ok(SiteRecords { remaining })
    }

    /// A record has arrived, whatever became of it: its site, when it was the site's last.
    pub(super) fn last_of_site<T>(&mut self, prepared: &Prepared<T>) -> Option<String> {
        match prepared {
            Prepared::Page(page, _) | Prepared::Text(page, _) => {
                self.arrived(&page.site).then(|| page.site.clone())
            }
            Prepared::Skipped(skip) => {
                let site = site_of(skip.url.as_deref()?);
                self.arrived(&site).then_some(site)
            }
        }
    }

    /// One record of `site` has arrived: whether it was the site's last.
    fn arrived(&mut self, site: &str) -> bool {
        let key = site_key(site);
        match self.remaining.get_mut(&key) {
            Some(left) if *left > 1 => {
                *left -= 1;
                false
            }
            Some(_) => {
                self.remaining.remove(&key);
                true
            }
            // More records than counted: the input changed since. The site stays open.
            None => false,
        }
    }
}

fn site_key(site: &str) -> u64 {
    stable_hash_bytes(site.as_bytes())
}

/// One place in the line of waiting pages.
enum Slot<O> {
    /// A learned page waiting for its decision.
    Learned(SegmentedPage, Observed<O>, usize),
    /// Ready to leave: a decided page, a plain-text page or a skip; and the bytes it holds.
    Ready(Prepared<(Vec<Verdict>, Origin)>, usize),
    /// A page taken out to be decided.
    Deciding,
}

/// Pages between their learning and their emission, in input order.
pub(super) struct Waiting<O> {
    slots: VecDeque<Slot<O>>,
    /// Approximate bytes held by the pages waiting, decided or not.
    pub(super) bytes: usize,
}

impl<O: Send> Waiting<O> {
    pub(super) fn new() -> Self {
        Waiting {
            slots: VecDeque::new(),
            bytes: 0,
        }
    }

    /// Adds a learned page, which waits for its decision; `bytes` is what it holds.
    pub(super) fn push_learned(
        &mut self,
        page: SegmentedPage,
        observed: Observed<O>,
        bytes: usize,
    ) {
        self.bytes += bytes;
        self.slots.push_back(Slot::Learned(page, observed, bytes));
    }

    /// Adds a plain-text page or a skip, which needs no decision.
    pub(super) fn push_ready(&mut self, ready: Prepared<(Vec<Verdict>, Origin)>) {
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
        detector: &D,
        which: impl Fn(&SegmentedPage) -> bool,
        pipeline: &Pipeline,
        pages: &dyn PageSource,
        tally: &mut BuildSummary,
        emit: &mut dyn FnMut(DecidedPage) -> Result<(), BuildError>,
    ) -> Result<usize, BuildError> {
        let mut taken = Vec::new();
        for (at, slot) in self.slots.iter_mut().enumerate() {
            if matches!(slot, Slot::Learned(page, ..) if which(page))
                && let Slot::Learned(page, observed, bytes) =
                    std::mem::replace(slot, Slot::Deciding)
            {
                taken.push((at, page, observed, bytes));
            }
        }
        let decided = taken.len();
        let decide = |(at, page, observed, bytes): (usize, SegmentedPage, Observed<O>, usize)| {
            let verdicts = detector.decide(&page, &observed.observation, pages);
            (at, Prepared::Page(page, (verdicts, observed.origin)), bytes)
        };
        let slots = &mut self.slots;
        let mut put_back = |(at, decided, bytes)| slots[at] = Slot::Ready(decided, bytes);
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
                self.bytes -= bytes;
                super::tally_and_emit(tally, ready, emit)?;
            }
        }
        Ok(decided)
    }
}
