//! Search: a query string and an open index in, ranked hits with snippets out.
//!
//! BM25 over the title and body fields, a title match weighted by [`TITLE_BOOST`], in tantivy's
//! query language: words (any of them), `"phrases"`, `+required`, `-excluded`, `title:word`,
//! wildcard words (`owner*`: owner, owners, ownership) and fuzzy ones (`ownershp~1`: the words
//! one edit away). `site:host` and `url:prefix` filter the pages: the query's other terms are
//! searched among the pages of those sites (subdomains too) or under those URLs, and a query of
//! filters alone lists their pages; `-site:` and `-url:` exclude. A query that does not parse
//! as that syntax is searched as its plain words ([`SearchResults::fallback`] says so).
//!
//! The public types and entry points are here; the work is in `syntax` (the filters and the
//! wildcard and fuzzy words, read from the text), `query` (the text to a tantivy query, with
//! the title bonuses and the filters), `exclusion` (an excluded clause that tantivy asks only by
//! plain seeks), `statistics` (BM25's statistics from the live pages only, the same however they
//! are spread over segments), `shards` (BM25 over several indexes as one), `collect`
//! (the best pages, ties ranked by URL, and the per-site counts) and `snippet` (a hit's
//! passage and where the query matches it).

mod collect;
mod exclusion;
mod query;
mod shards;
mod snippet;
mod statistics;
mod syntax;

pub use query::{MAX_EXPANSIONS, TITLE_BOOST, TITLE_PART_BOOST, TITLE_PHRASE_BOOST, Weights};
pub use shards::search_shards;

use serde::Serialize;
use tantivy::{Searcher, TantivyDocument, TantivyError};

use crate::index::{OpenIndex, stored_text};
use collect::{BestByScoreThenUrl, best_first};
use query::parse;

/// One result.
#[derive(Debug, Clone, Serialize)]
pub struct Hit {
    /// 1-based rank, counting the results an offset skipped.
    pub rank: usize,
    /// BM25 score (with the title bonuses), its last bits cleared as ranking compares it
    /// (`collect::tie_class`).
    pub score: f32,
    /// Page URL.
    pub url: String,
    /// Page title.
    pub title: String,
    /// Page site.
    pub site: String,
    /// Where the page's record lies.
    #[serde(flatten)]
    pub provenance: crate::index::Provenance,
    /// A passage of the body around the query terms; the title when only the title matches.
    pub snippet: String,
    /// Where `snippet` matches query terms: character offsets `[start, end)` (Unicode scalar
    /// values, as Python counts them), sorted, overlapping and touching ranges merged.
    pub highlights: Vec<(usize, usize)>,
    /// The same ranges as UTF-8 byte offsets.
    pub highlight_bytes: Vec<(usize, usize)>,
    /// Which of the indexes searched together holds the page (0 for one index).
    #[serde(skip)]
    pub index: usize,
}

/// The answer to a query: how many pages match, and one page of them.
#[derive(Debug, Clone, Serialize)]
pub struct SearchResults {
    /// The query as given.
    pub query: String,
    /// When the query did not parse as query syntax: the parser's complaint. The query was
    /// then searched as its plain words.
    pub fallback: Option<String>,
    /// What the query asked that no page can give: a `site:` or `url:` filter that no page of
    /// the indexes passes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Pages matching the query.
    pub total: usize,
    /// Results skipped before the first hit.
    pub offset: usize,
    /// The hits, best first.
    pub hits: Vec<Hit>,
    /// Matching pages per site, most first (only when asked for; before any site filter).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sites: Vec<(String, u64)>,
    /// Pages ranked up to the last hit but not shown, because a better page of the same URL
    /// (in another of the indexes searched together) was: each URL is shown once. `total`
    /// counts them.
    #[serde(skip_serializing_if = "is_zero")]
    pub hidden_duplicates: usize,
}

fn is_zero(count: &usize) -> bool {
    *count == 0
}

/// Why a search failed.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// The query does not parse.
    #[error("invalid query: {0}")]
    Query(#[from] tantivy::query::QueryParserError),
    /// The query asks for what search refuses (a `*` inside a word, a `site:` without a
    /// host, …): why, and what to write instead.
    #[error("invalid query: {0}")]
    Syntax(String),
    /// The index could not be searched.
    #[error("search failed: {0}")]
    Index(#[from] TantivyError),
    /// The search stopped on a damaged index (tantivy panicked, and files fail their
    /// checksums).
    #[error("{0}")]
    Damaged(#[from] crate::index::IndexError),
    /// tantivy panicked on indexes whose files pass their checksums.
    #[error("searching {indexes} failed inside tantivy: {message}")]
    Panicked {
        /// The indexes searched.
        indexes: String,
        /// The panic's message.
        message: String,
    },
    /// Indexes searched together do not share one schema.
    #[error(
        "{0} has another schema than the first index (made by another version of indexer?); search it alone"
    )]
    Schemas(String),
}

/// URLs of the best `limit` pages for `query`, best first, without snippets, title matches
/// weighted by `weights`; pages of equal score are ranked by URL, as [`search`] ranks them.
pub fn top_urls(
    open: &OpenIndex,
    query: &str,
    limit: usize,
    weights: Weights,
) -> Result<Vec<String>, SearchError> {
    let searcher = open.index.reader()?.searcher();
    let Some(parsed) = parse(open, &[&searcher], query, weights)? else {
        return Ok(Vec::new());
    };
    if limit == 0 {
        return Ok(Vec::new());
    }
    let found = searcher.search_with_statistics_provider(
        &*parsed.query,
        &BestByScoreThenUrl(limit),
        &statistics::LiveStatistics(vec![&searcher]),
    )?;
    let mut urls = Vec::with_capacity(limit.min(found.len()));
    for page in best_first(found, limit) {
        let document: TantivyDocument = searcher.doc(page.address)?;
        urls.push(stored_text(&document, open.fields.url));
    }
    Ok(urls)
}

/// Runs `query`: how many pages match, and the hits ranked `offset + 1` to `offset + limit`
/// (none when `limit` is 0).
pub fn search(
    open: &OpenIndex,
    query: &str,
    limit: usize,
    offset: usize,
) -> Result<SearchResults, SearchError> {
    let searcher = open.index.reader()?.searcher();
    search_in(
        open,
        &searcher,
        &SearchRequest {
            query,
            limit,
            offset,
            site: None,
            count_sites: false,
        },
    )
}

/// What to search for, and which part of the results to give.
#[derive(Debug, Clone, Copy)]
pub struct SearchRequest<'a> {
    /// The query, in the query language (or plain words).
    pub query: &'a str,
    /// Hits to give (0: only count).
    pub limit: usize,
    /// Hits to skip first.
    pub offset: usize,
    /// Only pages of this site (exactly this host: the query's own `site:` terms take
    /// subdomains too).
    pub site: Option<&'a str>,
    /// Also count the matching pages of each site (before the site filter).
    pub count_sites: bool,
}

/// [`search`] with a searcher the caller keeps (a server reuses one per index), a site
/// filter and per-site counts.
pub fn search_in(
    open: &OpenIndex,
    searcher: &Searcher,
    request: &SearchRequest<'_>,
) -> Result<SearchResults, SearchError> {
    search_shards(&[(open, searcher.clone())], request)
}

/// Searches several indexes as one: every page is scored with the statistics of all of them
/// summed (documents, tokens, document frequencies), so a page scores what it would in one
/// index holding every page, and the hits are ranked together. The indexes must share one
/// schema (indexes of one version of this tool).
pub fn search_many(
    indexes: &[OpenIndex],
    request: &SearchRequest<'_>,
) -> Result<SearchResults, SearchError> {
    let shards = indexes
        .iter()
        .map(|open| Ok((open, open.index.reader()?.searcher())))
        .collect::<Result<Vec<_>, SearchError>>()?;
    search_shards(&shards, request)
}

/// An index of `pages` (URL, title, body) of one site, in a temporary folder kept alive beside
/// it, for the tests of this module's parts.
#[cfg(test)]
fn index_of(pages: &[(&str, &str, &str)]) -> (tempfile::TempDir, OpenIndex) {
    use crate::index::{IndexBuild, IndexedPage};
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("index");
    let mut build = IndexBuild::begin(&root, 1, 15_000_000).unwrap();
    for &(url, title, body) in pages {
        build
            .add(&IndexedPage::text(url, "docs.example", title, body))
            .unwrap();
    }
    build.commit(&serde_json::json!({})).unwrap();
    let open = OpenIndex::open(&root).unwrap();
    (dir, open)
}
