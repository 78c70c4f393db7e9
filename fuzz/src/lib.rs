//! What each fuzz target does with its input.
//!
//! The targets in `fuzz_targets/` call these functions, and `tests/fuzz_regressions.rs`
//! includes this file to replay the committed inputs in `tests/data/fuzz/<target>/` through
//! exactly the same calls. Each function only has to return: any panic, hang or runaway
//! allocation is a finding.

use std::sync::OnceLock;

use indexer::detect::hybrid::{CompiledTrees, Model};
use indexer::index::{IndexBuild, IndexedPage, OpenIndex};
use indexer::read::{
    Blocks, Page, Record, RecordKind, page_from_record, records_in_bytes, records_in_bytes_with,
};
use indexer::search::{SearchError, SearchRequest};
use indexer::segment::{Granularity, SegmentLimits, SegmentOptions, segment_with};
use tantivy::Searcher;

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
/// to a page; and the file read again as a two-pass run counts it, its blocks left out
/// where the gzip framing allows.
pub fn warc_records(data: &[u8]) {
    for record in records_in_bytes(data, MAX_RECORD_BYTES)
        .into_iter()
        .flatten()
    {
        let _ = page_from_record(record, MAX_PAGE_BYTES);
    }
    let _ = records_in_bytes_with(data, MAX_RECORD_BYTES, Blocks::MayBeLeftOut);
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
        source_length: None,
        source_input: 0,
        truncated: false,
        date: None,
        record_id: None,
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
        record_id: None,
        date: None,
        charset: "UTF-8",
        plain_text: false,
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

/// Pages of the small index `query` searches: words, a phrase, titles with parts, sites and
/// URLs for the filters, and words that wildcards and fuzzy words expand to.
const QUERY_PAGES: [(&str, &str, &str, &str); 4] = [
    (
        "https://docs.python.org/3/library/asyncio.html",
        "docs.python.org",
        "asyncio — Asynchronous I/O — Python 3 documentation",
        "asyncio is a library to write concurrent code using the async/await syntax",
    ),
    (
        "https://doc.rust-lang.org/book/ch04-01-what-is-ownership.html",
        "doc.rust-lang.org",
        "What is Ownership? - The Rust Programming Language",
        "Ownership is a set of rules that govern how a Rust program manages memory; owners own",
    ),
    (
        "http://www.example.jp/ページ",
        "www.example.jp",
        "日本語のページ (テスト)",
        "東京都の天気は晴れ。漢字とひらがなの混じった文章です。",
    ),
    (
        "https://docs.scrapy.org/en/latest/topics/selectors.html",
        "docs.scrapy.org",
        "Selectors | Scrapy 2.8 documentation",
        "Scrapy comes with its own mechanism for extracting data: selectors, XPath and CSS",
    ),
];

/// The index of [`QUERY_PAGES`] and a searcher of it, made once per process (the index in
/// a folder of the system's temporary directory named by the process id): a reader per
/// input would cost more than the search.
fn query_index() -> &'static (OpenIndex, Searcher) {
    static INDEX: OnceLock<(OpenIndex, Searcher)> = OnceLock::new();
    INDEX.get_or_init(|| {
        let root = std::env::temp_dir().join(format!("indexer-fuzz-query-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        let mut build = IndexBuild::begin(&root, 1, 15_000_000).expect("begin the query index");
        for (url, site, title, body) in QUERY_PAGES {
            build
                .add(&IndexedPage::text(url, site, title, body))
                .expect("add a page");
        }
        build.commit(&"fuzz").expect("commit the query index");
        let open = OpenIndex::open(&root).expect("open the query index");
        let searcher = open.index.reader().expect("a reader").searcher();
        (open, searcher)
    })
}

/// `query`: the bytes (lossy UTF-8) as a query of `indexer search`: its syntax (filters,
/// wildcard and fuzzy words, phrases, fields), the tantivy query made of it, the search and
/// the snippets. A refusal is an answer; a panic inside tantivy, which `search` catches and
/// returns, is a finding.
pub fn query(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let (open, searcher) = query_index();
    let request = SearchRequest {
        query: &text,
        limit: 3,
        offset: 0,
        site: None,
        count_sites: true,
    };
    if let Err(error @ SearchError::Panicked { .. }) =
        indexer::search::search_in(open, searcher, &request)
    {
        panic!("{error}");
    }
}

/// `model_file`: the bytes (lossy UTF-8) as a model file of the `hybrid` detector; a model
/// that loads is laid out for deciding and scores rows of every kind.
pub fn model_file(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let Ok(model) = Model::parse(&text, "fuzz") else {
        return;
    };
    let width = model.features.len();
    let compiled = CompiledTrees::compile(&model);
    for value in [0.0, 1.0, -1.0, 1e30, f32::NAN] {
        let row = vec![value; width];
        let _ = model.probability(&row);
        if let Some(compiled) = &compiled {
            let _ = compiled.probability(&row);
        }
    }
}
