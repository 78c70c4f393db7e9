//! Search: a query string and an open index in, ranked hits with snippets out.
//!
//! BM25 over the title and body fields, a title match weighted by [`TITLE_BOOST`] (tantivy's
//! query language: words, `"phrases"`, `+required`, `-excluded`, `field:term`).

use serde::Serialize;
use tantivy::collector::TopDocs;
use tantivy::query::{BooleanQuery, BoostQuery, Occur, PhraseQuery, Query, QueryParser};
use tantivy::snippet::SnippetGenerator;
use tantivy::{DocAddress, Searcher, TantivyDocument, TantivyError, Term};

use crate::index::{OpenIndex, stored_text};

/// One result.
#[derive(Debug, Clone, Serialize)]
pub struct Hit {
    /// 1-based rank.
    pub rank: usize,
    /// BM25 score.
    pub score: f32,
    /// Page URL.
    pub url: String,
    /// Page title.
    pub title: String,
    /// A passage of the body around the query terms.
    pub snippet: String,
    /// Byte ranges of `snippet` that match query terms.
    pub highlights: Vec<(usize, usize)>,
}

/// Why a search failed.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// The query does not parse.
    #[error("invalid query: {0}")]
    Query(#[from] tantivy::query::QueryParserError),
    /// The index could not be searched.
    #[error("search failed: {0}")]
    Index(#[from] TantivyError),
}

/// How much more a title match counts than a body match. Measured with
/// `benches/title_boost.sh` (`indexer eval --title-boost`) on the docs and news corpora: a
/// boost of 2 raised title-query MRR@10 by at most 0.01 and cut phrase-query MRR@10 by 0.16
/// (docs, `hybrid`: 0.818 → 0.662) and 0.08 (news), so titles and bodies count alike.
pub const TITLE_BOOST: f32 = 1.0;

/// A query run: the searcher it ran on, the parsed query, the best (score, document) pairs.
struct Ranked {
    searcher: Searcher,
    query: Box<dyn Query>,
    top: Vec<(f32, DocAddress)>,
}

fn ranked(
    open: &OpenIndex,
    query: &str,
    limit: usize,
    title_boost: f32,
) -> Result<Ranked, SearchError> {
    let searcher = open.index.reader()?.searcher();
    let mut parser = QueryParser::for_index(&open.index, vec![open.fields.title, open.fields.body]);
    parser.set_field_boost(open.fields.title, title_boost);
    let parsed = parser.parse_query(query)?;
    let query = with_title_phrase(open, parsed, query);
    let top = if limit == 0 {
        Vec::new()
    } else {
        searcher.search(&query, &TopDocs::with_limit(limit).order_by_score())?
    };
    Ok(Ranked {
        searcher,
        query,
        top,
    })
}

/// `parsed` plus, when the query has two words or more, the same words as a phrase in the
/// title, weighted [`TITLE_PHRASE_BOOST`]: a query that is a page's title (or a run of it)
/// puts that page first, while a query whose words are merely scattered over titles gains
/// nothing.
fn with_title_phrase(open: &OpenIndex, parsed: Box<dyn Query>, text: &str) -> Box<dyn Query> {
    let mut terms = Vec::new();
    crate::analyze::for_each_word(text, |word, _, _| {
        terms.push(Term::from_field_text(open.fields.title, word))
    });
    if terms.len() < 2 {
        return parsed;
    }
    let phrase = BoostQuery::new(Box::new(PhraseQuery::new(terms)), TITLE_PHRASE_BOOST);
    Box::new(BooleanQuery::new(vec![
        (Occur::Should, parsed),
        (Occur::Should, Box::new(phrase)),
    ]))
}

/// How much a title phrase match counts (see [`with_title_phrase`]). Measured with `indexer
/// eval` on docs (`benches/results/title-boost.md`): title-query MRR@10 of `hybrid` 0.941
/// without the phrase, 0.958, 0.959 and 0.960 at 1, 2 and 4; phrase-query MRR@10 unchanged
/// (0.818) at every weight.
pub const TITLE_PHRASE_BOOST: f32 = 2.0;

/// URLs of the best `limit` pages for `query`, best first, without snippets; title matches
/// count `title_boost` times a body match.
pub fn top_urls(
    open: &OpenIndex,
    query: &str,
    limit: usize,
    title_boost: f32,
) -> Result<Vec<String>, SearchError> {
    let Ranked { searcher, top, .. } = ranked(open, query, limit, title_boost)?;
    let mut urls = Vec::with_capacity(top.len());
    for (_, address) in top {
        let document: TantivyDocument = searcher.doc(address)?;
        urls.push(stored_text(&document, open.fields.url));
    }
    Ok(urls)
}

/// Runs `query` and returns the best `limit` hits.
pub fn search(open: &OpenIndex, query: &str, limit: usize) -> Result<Vec<Hit>, SearchError> {
    let Ranked {
        searcher,
        query,
        top,
    } = ranked(open, query, limit, TITLE_BOOST)?;
    if top.is_empty() {
        return Ok(Vec::new());
    }
    let mut snippets = SnippetGenerator::create(&searcher, &*query, open.fields.body)?;
    snippets.set_max_num_chars(200);

    let mut hits = Vec::with_capacity(top.len());
    for (rank, (score, address)) in top.into_iter().enumerate() {
        let document: TantivyDocument = searcher.doc(address)?;
        let text = |field| stored_text(&document, field);
        let snippet = snippets.snippet_from_doc(&document);
        hits.push(Hit {
            rank: rank + 1,
            score,
            url: text(open.fields.url),
            title: text(open.fields.title),
            snippet: snippet.fragment().replace('\n', " "),
            highlights: snippet
                .highlighted()
                .iter()
                .map(|range| (range.start, range.end))
                .collect(),
        });
    }
    Ok(hits)
}
