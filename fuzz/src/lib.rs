//! What each fuzz target does with its input.
//!
//! The targets in `fuzz_targets/` call these functions, and `tests/fuzz_regressions.rs`
//! includes this file to replay the committed inputs in `tests/data/fuzz/<target>/` through
//! exactly the same calls. Each function only has to return: any panic, hang or runaway
//! allocation is a finding.

use indexer::read::{Page, Record, RecordKind, page_from_record, records_in_bytes};
use indexer::segment::{Granularity, SegmentLimits, SegmentOptions, segment_with};

/// Largest WARC record block read (`ReadLimits::max_record_bytes`).
pub const MAX_RECORD_BYTES: usize = 1 << 20;

/// Largest decoded body (`max_page_bytes` of `page_from_record`).
pub const MAX_PAGE_BYTES: usize = 1 << 20;

/// Small segmentation limits, so that every input stays fast.
pub fn segment_limits() -> SegmentLimits {
    SegmentLimits {
        max_page_bytes: 256 << 10,
        max_depth: 64,
        max_blocks: 2_000,
        ..SegmentLimits::default()
    }
}

/// Every granularity segmentation supports.
pub const GRANULARITIES: [Granularity; 5] = [
    Granularity::Layout,
    Granularity::Table { with_layout: false },
    Granularity::Table { with_layout: true },
    Granularity::TextNodes { split_lines: false },
    Granularity::TextNodes { split_lines: true },
];

/// `warc_records`: the bytes as a WARC file (plain or gzip), every record it yields decoded
/// to a page.
pub fn warc_records(data: &[u8]) {
    for record in records_in_bytes(data, MAX_RECORD_BYTES)
        .into_iter()
        .flatten()
    {
        let _ = page_from_record(record, MAX_PAGE_BYTES);
    }
}

/// `http_page`: the bytes as the block of a WARC `response` record: HTTP parsing, chunked
/// transfer coding, gzip/deflate/brotli content codings, charset detection and decoding.
pub fn http_page(data: &[u8]) {
    let record = Record {
        url: "http://www.fuzz.example.jp/page.html".to_string(),
        kind: RecordKind::Response,
        content_type: None,
        block: data.to_vec(),
        source_offset: 0,
        source_input: 0,
        truncated: false,
        date: None,
    };
    let _ = page_from_record(record, MAX_PAGE_BYTES);
}

/// `segment`: the bytes (lossy UTF-8) as a page's HTML, segmented at every granularity with
/// the DOM tree and links collected.
pub fn segment(data: &[u8]) {
    let html = String::from_utf8_lossy(data).into_owned();
    let page = Page {
        url: "http://www.fuzz.example/page.html".to_string(),
        site: "www.fuzz.example".to_string(),
        raw_bytes: html.len(),
        html,
    };
    let limits = segment_limits();
    for granularity in GRANULARITIES {
        let options = SegmentOptions {
            granularity,
            tree: true,
            links: true,
            evidence: true,
            image_alt: true,
            block_tree_positions: true,
        };
        let _ = segment_with(&page, &limits, options);
    }
}
