//! Prepare: a [`Record`] in, a [`SegmentedPage`] (with its HTML as segmented and where its
//! record lies) out, on a worker thread — and the page lookup by URL that detectors comparing
//! a page with the pages it links to (`menu`) read through [`PageSource`].

use std::sync::RwLock;

use rustc_hash::FxHashMap;

use crate::detect::{Detector, PageSource, normalized_url};
use crate::read::{
    FetchTime, InputSet, Page, Record, RecordLocation, Skip, SkipReason, page_from_record,
};
use crate::segment::{
    SegmentLimits, SegmentOptions, SegmentedPage, html_read, segment_with, stable_hash_bytes,
};

/// What a worker made of one record.
pub(super) enum Prepared<T> {
    /// A segmented page, with what the stage made of it.
    Page(SegmentedPage, T),
    /// A page of plain text (a WET record): no detector sees it, every block is kept.
    Text(SegmentedPage, Origin),
    /// A record that holds no page, why, and where it lies.
    Skipped(Skip),
}

/// Bytes a page's body may decode to: pages somewhat over the page-size limit are decoded
/// and cut short (and counted as limited); only bodies that decode to far more, such as
/// compression bombs, are skipped as too large.
pub(crate) fn decode_cap(limits: &SegmentLimits) -> usize {
    limits.max_page_bytes.saturating_mul(8)
}

/// Where a page's record lies, whether the file ended inside it, and what the record says of
/// it.
#[derive(Debug, Clone)]
pub(super) struct Origin {
    pub(super) location: RecordLocation,
    /// [`Record::source_length`].
    pub(super) length: Option<u64>,
    /// The page is the part of a record read before its file ended.
    pub(super) truncated: bool,
    /// When the page was fetched (`WARC-Date`), when the record says so readably.
    pub(super) fetched: Option<FetchTime>,
    /// [`crate::read::Page::date`], [`crate::read::Page::record_id`],
    /// [`crate::read::Page::charset`] and [`crate::read::Page::plain_text`].
    pub(super) date: Option<String>,
    pub(super) record_id: Option<String>,
    pub(super) charset: &'static str,
    pub(super) plain_text: bool,
    /// A stable hash of the page's decoded HTML (before any limit cut it), which tells an
    /// `add` whether the index holds the page as it is.
    pub(super) digest: u64,
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
    let mut origin = Origin {
        location: RecordLocation::of(&record),
        length: record.source_length,
        truncated: record.truncated,
        fetched: record.date.as_deref().and_then(FetchTime::parse),
        date: None,
        record_id: None,
        charset: "",
        plain_text: false,
        digest: 0,
    };
    let location = origin.location;
    let truncation = |detail: &str, url: Option<String>| {
        Skip::new(
            SkipReason::TruncatedRecord,
            url,
            format!(
                "the record is cut short (the file ends inside it, or its Content-Length stops before its end), and the part read holds no page ({detail})"
            ),
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
    origin.digest = stable_hash_bytes(page.html.as_bytes());
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
    origin.date = page.date;
    origin.record_id = page.record_id;
    origin.charset = page.charset;
    origin.plain_text = page.plain_text;
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

/// A record decoded into its page as a build decodes it, before it is segmented (`eval`
/// reads a labelled page's own HTML this way).
pub fn page_of_record(record: Record, limits: &SegmentLimits) -> Result<Page, Skip> {
    page_from_record(record, decode_cap(limits))
}

/// A page with its observation and where its record lies.
pub(super) struct Observed<O> {
    pub(super) observation: O,
    pub(super) origin: Origin,
    /// The bytes the observation holds, whole and once trimmed for waiting
    /// ([`Detector::observation_bytes`], [`Detector::trimmed_observation_bytes`]): counted
    /// here, on the worker, so that a two-pass read's in-order thread needs no lock of the
    /// detector to count a waiting page.
    pub(super) bytes: (usize, usize),
}

/// A record prepared and observed, on a worker, by the detector `detector_of` gives for the
/// page's site.
pub(super) fn observe<'d, D: Detector>(
    item: Result<Record, Skip>,
    limits: &SegmentLimits,
    options: SegmentOptions,
    detector_of: impl Fn(&str) -> &'d RwLock<D>,
) -> Prepared<Observed<D::Observation>> {
    match prepare(item, limits, options) {
        Ok((page, _, origin)) if origin.plain_text => Prepared::Text(page, origin),
        Ok((page, html, origin)) => {
            let detector = read_lock(detector_of(&page.site));
            let observation = detector.observe(&page, &html);
            let bytes = (
                detector.observation_bytes(&observation),
                detector.trimmed_observation_bytes(&observation),
            );
            Prepared::Page(
                page,
                Observed {
                    observation,
                    origin,
                    bytes,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::RecordKind;
    use crate::run::test_support::{html_response, page_html, request, write_warc};

    /// A record of `kind` holding `block`, found at byte 4096 of input 2.
    fn record(
        kind: RecordKind,
        content_type: Option<&str>,
        block: &[u8],
        truncated: bool,
    ) -> Record {
        Record {
            url: "http://a.example/x".to_string(),
            kind,
            content_type: content_type.map(str::to_string),
            block: block.to_vec(),
            source_offset: 4096,
            source_length: None,
            source_input: 2,
            truncated,
            date: None,
            record_id: None,
        }
    }

    fn http(content_type: &str, body: &str) -> Vec<u8> {
        format!("HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\n\r\n{body}").into_bytes()
    }

    fn prepared(record: Record) -> Result<(SegmentedPage, String, Origin), Skip> {
        prepare(
            Ok(record),
            &SegmentLimits::default(),
            SegmentOptions::default(),
        )
    }

    fn texts(page: &SegmentedPage) -> Vec<&str> {
        page.blocks
            .iter()
            .map(|block| block.text.as_str())
            .collect()
    }

    #[test]
    fn a_record_that_is_not_html_is_a_skip_with_its_reason_and_place() {
        let png = http("image/png", "\u{89}PNG\r\n");
        let skip = prepared(record(RecordKind::Response, None, &png, false)).unwrap_err();
        assert_eq!(skip.reason, SkipReason::NotHtml);
        assert_eq!(skip.url.as_deref(), Some("http://a.example/x"));
        assert_eq!((skip.input, skip.offset), (2, Some(4096)));
        // A skip the reader made passes through as it is.
        let read_skip = Skip::new(SkipReason::BadCompression, None, "bad gzip").at(1, Some(9));
        let passed = prepare(
            Err(read_skip.clone()),
            &SegmentLimits::default(),
            SegmentOptions::default(),
        );
        assert_eq!(passed.unwrap_err(), read_skip);
    }

    #[test]
    fn a_truncated_record_with_text_is_a_page_marked_truncated() {
        let block = http(
            "text/html",
            "<html><body><p>First paragraph</p><p>Second para",
        );
        let (page, html, origin) =
            prepared(record(RecordKind::Response, None, &block, true)).unwrap();
        assert_eq!(texts(&page), ["First paragraph", "Second para"]);
        assert!(origin.truncated);
        assert_eq!(
            origin.location,
            RecordLocation {
                input: 2,
                offset: 4096
            }
        );
        assert!(html.ends_with("Second para"), "{html}");
        // Whole, the same record is a page that is not marked.
        let (_, _, whole) = prepared(record(RecordKind::Response, None, &block, false)).unwrap();
        assert!(!whole.truncated);
    }

    #[test]
    fn a_truncated_record_without_text_is_a_truncation_skip() {
        let no_text = http("text/html", "<html><head><title>A title and nothing else");
        let cut_in_headers = b"HTTP/1.1 200 OK\r\nContent-Ty".to_vec();
        let cut_image = http("image/png", "\u{89}PN");
        for block in [no_text.clone(), cut_in_headers, cut_image] {
            let skip = prepared(record(RecordKind::Response, None, &block, true)).unwrap_err();
            assert_eq!(skip.reason, SkipReason::TruncatedRecord, "{skip}");
            assert_eq!((skip.input, skip.offset), (2, Some(4096)));
            assert!(skip.detail.contains("the record is cut short"), "{skip}");
        }
        // The page without text, not cut short, is a page (with no blocks).
        let (page, _, _) = prepared(record(RecordKind::Response, None, &no_text, false)).unwrap();
        assert!(page.blocks.is_empty());
        assert_eq!(page.title, "A title and nothing else");
    }

    #[test]
    fn the_html_returned_is_what_segmentation_read() {
        let html = page_html("Long", &"words of text ".repeat(100));
        let limits = SegmentLimits {
            max_page_bytes: 300,
            ..SegmentLimits::default()
        };
        let block = record(
            RecordKind::Resource,
            Some("text/html"),
            html.as_bytes(),
            false,
        );
        let (page, read, _) = prepare(Ok(block), &limits, SegmentOptions::default()).unwrap();
        assert_eq!(read.len(), page.html_bytes);
        assert!(read.len() <= 300 && html.starts_with(&read));
        assert!(page.limited.is_some());
    }

    #[test]
    fn input_pages_find_a_remembered_page_by_its_url_as_stored_and_as_linked() {
        let dir = tempfile::tempdir().unwrap();
        let stored = "http://A.Example:80/docs/first.html#top";
        let linked = "http://a.example/docs/first.html";
        let records = [
            html_response(stored, &page_html("First", "The first page")),
            html_response(
                "http://a.example/second.html",
                &page_html("Second", "The second page"),
            ),
            html_response(stored, &page_html("First again", "A later copy")),
            request("http://a.example/third.html"),
        ];
        let path = write_warc(dir.path(), "pages.warc", &records);
        let inputs = InputSet::open(&[path], None).unwrap();
        let mut pages =
            InputPages::new(&inputs, SegmentLimits::default(), SegmentOptions::default());
        let read: Vec<Record> = inputs.records().filter_map(Result::ok).collect();
        assert_eq!(read.len(), 3);
        // The first and the third record share a URL; the second is never remembered.
        pages.remember(&read[0].url, RecordLocation::of(&read[0]));
        pages.remember(&read[2].url, RecordLocation::of(&read[2]));

        for url in [stored, linked] {
            let page = pages.load(url).unwrap_or_else(|| panic!("{url} is found"));
            assert_eq!(page.url, stored);
            assert_eq!(
                page.title, "First",
                "the first record of a URL is the one found"
            );
            let html = pages.load_html(url).unwrap();
            assert!(html.contains("The first page"), "{html}");
        }
        assert!(pages.load("http://a.example/second.html").is_none());
        assert!(pages.load_html("http://a.example/second.html").is_none());
        assert!(
            pages
                .load("http://a.example/docs/first.html?page=2")
                .is_none()
        );
    }

    #[test]
    fn observe_gives_the_page_with_the_detectors_observation() {
        let detector = RwLock::new(crate::detect::none::KeepEverything);
        let block = http("text/html", "<p>Some text</p>");
        let limits = SegmentLimits::default();
        let page = observe(
            Ok(record(RecordKind::Response, None, &block, false)),
            &limits,
            SegmentOptions::default(),
            |_| &detector,
        );
        let Prepared::Page(page, observed) = page else {
            panic!("a page")
        };
        assert_eq!(texts(&page), ["Some text"]);
        assert_eq!(observed.origin.location.offset, 4096);
        let png = http("image/png", "\u{89}PNG");
        let skipped = observe(
            Ok(record(RecordKind::Response, None, &png, false)),
            &limits,
            SegmentOptions::default(),
            |_| &detector,
        );
        assert!(matches!(skipped, Prepared::Skipped(skip) if skip.reason == SkipReason::NotHtml));
    }
}
