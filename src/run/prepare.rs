//! Prepare: a [`Record`] in, a [`SegmentedPage`] (with its HTML as segmented and where its
//! record lies) out, on a worker thread — and the page lookup by URL that detectors comparing
//! a page with the pages it links to (`menu`) read through [`PageSource`].

use std::sync::RwLock;

use rustc_hash::FxHashMap;

use crate::detect::{Detector, PageSource, normalized_url};
use crate::read::{InputSet, Record, RecordLocation, Skip, SkipReason, page_from_record};
use crate::segment::{SegmentLimits, SegmentOptions, SegmentedPage, html_read, segment_with};

/// What a worker made of one record.
pub(super) enum Prepared<T> {
    /// A segmented page, with what the stage made of it.
    Page(SegmentedPage, T),
    /// A record that holds no page, why, and where it lies.
    Skipped(Skip),
}

/// Bytes a page's body may decode to: pages somewhat over the page-size limit are decoded
/// and cut short (and counted as limited); only bodies that decode to far more, such as
/// compression bombs, are skipped as too large.
pub(crate) fn decode_cap(limits: &SegmentLimits) -> usize {
    limits.max_page_bytes.saturating_mul(8)
}

/// Where a page's record lies, and whether the file ended inside it.
#[derive(Debug, Clone, Copy)]
pub(super) struct Origin {
    pub(super) location: RecordLocation,
    /// The page is the part of a record read before its file ended.
    pub(super) truncated: bool,
}

/// A record read, decoded and segmented: the page, its HTML as segmented, and where the
/// record lies. The part of a record cut short by the end of its file is a page when it
/// decodes to at least one block of text, and a skip for truncation otherwise.
pub(super) fn prepare(
    item: Result<Record, Skip>,
    limits: &SegmentLimits,
    options: SegmentOptions,
) -> Result<(SegmentedPage, String, Origin), Skip> {
    let record = item?;
    let origin = Origin {
        location: RecordLocation::of(&record),
        truncated: record.truncated,
    };
    let location = origin.location;
    let truncation = |detail: &str, url: Option<String>| {
        Skip::new(
            SkipReason::TruncatedRecord,
            url,
            format!("the file ends inside the record, and the part read holds no page ({detail})"),
        )
        .at(location.input, Some(location.offset))
    };
    let mut page = page_from_record(record, decode_cap(limits)).map_err(|skip| {
        if origin.truncated {
            truncation(&skip.detail, skip.url)
        } else {
            skip
        }
    })?;
    let segmented = segment_with(&page, limits, options).map_err(|error| {
        Skip::new(
            SkipReason::HtmlParserFailed,
            Some(page.url.clone()),
            error.to_string(),
        )
        .at(location.input, Some(location.offset))
    })?;
    if origin.truncated && segmented.blocks.iter().all(|block| block.text.is_empty()) {
        return Err(truncation("no text", Some(page.url.clone())));
    }
    let mut html = std::mem::take(&mut page.html);
    html.truncate(segmented.html_bytes);
    Ok((segmented, html, origin))
}

/// A record read and segmented as a build does it (the page view of `serve` shows a page
/// again this way), or why it holds no page.
pub fn segment_record(
    record: Record,
    limits: &SegmentLimits,
    options: SegmentOptions,
) -> Result<SegmentedPage, Skip> {
    prepare(Ok(record), limits, options).map(|(page, _, _)| page)
}

/// A page with its observation and where its record lies.
pub(super) struct Observed<O> {
    pub(super) observation: O,
    pub(super) origin: Origin,
}

/// A record prepared and observed by `detector`, on a worker.
pub(super) fn observe<D: Detector>(
    item: Result<Record, Skip>,
    limits: &SegmentLimits,
    options: SegmentOptions,
    detector: &RwLock<D>,
) -> Prepared<Observed<D::Observation>> {
    match prepare(item, limits, options) {
        Ok((page, html, origin)) => {
            let observation = read_lock(detector).observe(&page, &html);
            Prepared::Page(
                page,
                Observed {
                    observation,
                    origin,
                },
            )
        }
        Err(skip) => Prepared::Skipped(skip),
    }
}

/// The input's pages by URL, read again from where the first pass found them.
pub(super) struct InputPages<'a> {
    inputs: &'a InputSet,
    /// Where each page lies, and the URL its record has, by URL as stored and as linked.
    locations: FxHashMap<String, (RecordLocation, String)>,
    limits: SegmentLimits,
    options: SegmentOptions,
}

impl<'a> InputPages<'a> {
    /// No pages yet; pages of `inputs` are found again as [`remember`](Self::remember) says.
    pub(super) fn new(
        inputs: &'a InputSet,
        limits: SegmentLimits,
        options: SegmentOptions,
    ) -> Self {
        InputPages {
            inputs,
            locations: FxHashMap::default(),
            limits,
            options,
        }
    }

    /// Notes where the page `url` lies, by its URL as stored and as links to it are written.
    pub(super) fn remember(&mut self, url: &str, location: RecordLocation) {
        let normalized = normalized_url(url);
        let found = (location, url.to_string());
        if normalized != url {
            self.locations
                .entry(normalized)
                .or_insert_with(|| found.clone());
        }
        self.locations.entry(url.to_string()).or_insert(found);
    }
}

impl PageSource for InputPages<'_> {
    fn load(&self, url: &str) -> Option<SegmentedPage> {
        let (location, stored_url) = self.locations.get(url)?;
        let record = self.inputs.record_at(*location, stored_url)?;
        prepare(Ok(record), &self.limits, self.options)
            .ok()
            .map(|(page, _, _)| page)
    }

    fn load_html(&self, url: &str) -> Option<String> {
        let (location, stored_url) = self.locations.get(url)?;
        let record = self.inputs.record_at(*location, stored_url)?;
        let mut page = page_from_record(record, decode_cap(&self.limits)).ok()?;
        let read = html_read(&page.html, &self.limits).len();
        page.html.truncate(read);
        Some(page.html)
    }
}

/// The value behind `lock`, read even if a worker panicked while holding it (the pipeline
/// reports that panic itself).
pub(super) fn read_lock<D>(lock: &RwLock<D>) -> std::sync::RwLockReadGuard<'_, D> {
    lock.read().unwrap_or_else(|poisoned| poisoned.into_inner())
}
