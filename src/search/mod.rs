//! Search: a query string and an open index in, ranked hits with snippets out.
//!
//! BM25 over the title and body fields, a title match weighted by [`TITLE_BOOST`], in tantivy's
//! query language: words (any of them), `"phrases"`, `+required`, `-excluded`, `title:word`,
//! `site:host`. A query that does not parse as that syntax is searched as its plain words
//! ([`SearchResults::fallback`] says so).

use std::collections::BTreeMap;

use serde::Serialize;
use tantivy::collector::{Collector, Count, SegmentCollector, TopDocs};
use tantivy::columnar::StrColumn;
use tantivy::query::{
    Bm25StatisticsProvider, BooleanQuery, BoostQuery, Occur, PhraseQuery, Query, QueryParser,
    TermQuery,
};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::snippet::SnippetGenerator;
use tantivy::{
    DocAddress, DocId, Score, Searcher, SegmentOrdinal, SegmentReader, TantivyDocument,
    TantivyError, Term,
};

use crate::index::{OpenIndex, stored_text};

/// One result.
#[derive(Debug, Clone, Serialize)]
pub struct Hit {
    /// 1-based rank, counting the results an offset skipped.
    pub rank: usize,
    /// BM25 score.
    pub score: f32,
    /// Page URL.
    pub url: String,
    /// Page title.
    pub title: String,
    /// Page site.
    pub site: String,
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
    /// Pages matching the query.
    pub total: usize,
    /// Results skipped before the first hit.
    pub offset: usize,
    /// The hits, best first.
    pub hits: Vec<Hit>,
    /// Matching pages per site, most first (only when asked for; before any site filter).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sites: Vec<(String, u64)>,
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
    /// Indexes searched together do not share one schema.
    #[error(
        "{0} has another schema than the first index (made by another version of indexer?); search it alone"
    )]
    Schemas(String),
}

/// How much more a title match counts than a body match. Measured with
/// `benches/title_boost.sh` (`indexer eval --title-boost`) on the docs and news corpora: a
/// boost of 2 raised title-query MRR@10 by at most 0.01 and cut phrase-query MRR@10 by 0.16
/// (docs, `hybrid`: 0.818 → 0.662) and 0.08 (news), so titles and bodies count alike.
pub const TITLE_BOOST: f32 = 1.0;

/// How much title matches count against body matches.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Weights {
    /// A title match of a query word, against a body match ([`TITLE_BOOST`]).
    pub title: f32,
    /// The query's words as a phrase in the title ([`TITLE_PHRASE_BOOST`]; 0: not asked).
    pub title_phrase: f32,
}

impl Default for Weights {
    fn default() -> Self {
        Weights {
            title: TITLE_BOOST,
            title_phrase: TITLE_PHRASE_BOOST,
        }
    }
}

/// A parsed query and what became of the text.
struct Parsed {
    query: Box<dyn Query>,
    fallback: Option<String>,
}

/// `text` as query syntax or, when it does not parse (`print()`, `std::vec`, `[1,2]`, a URL
/// naming no field), as its plain words; `None` when it has no words at all.
fn parse(open: &OpenIndex, text: &str, weights: Weights) -> Option<Parsed> {
    let mut words = Vec::new();
    crate::analyze::for_each_word(text, |word, _, _| words.push(word.to_string()));
    if words.is_empty() {
        return None;
    }
    let mut parser = QueryParser::for_index(&open.index, vec![open.fields.title, open.fields.body]);
    parser.set_field_boost(open.fields.title, weights.title);
    let (query, fallback) = match parser.parse_query(text) {
        Ok(query) => (query, None),
        Err(error) => (
            parser.parse_query(&words.join(" ")).ok()?,
            Some(error.to_string()),
        ),
    };
    Some(Parsed {
        query: with_title_phrase(open, query, &words, weights.title_phrase),
        fallback,
    })
}

/// `parsed` plus, when the query has two words or more (`words`, analysed), the same words as a phrase in the
/// title, weighted `weight` ([`TITLE_PHRASE_BOOST`] by default): a query that is a page's title (or a run of it)
/// puts that page first, while a query whose words are merely scattered over titles gains
/// nothing. The phrase only adds to the score of pages `parsed` matches.
fn with_title_phrase(
    open: &OpenIndex,
    parsed: Box<dyn Query>,
    words: &[String],
    weight: f32,
) -> Box<dyn Query> {
    if words.len() < 2 || weight <= 0.0 {
        return parsed;
    }
    let terms = words
        .iter()
        .map(|word| Term::from_field_text(open.fields.title, word))
        .collect();
    let phrase = BoostQuery::new(Box::new(PhraseQuery::new(terms)), weight);
    Box::new(BooleanQuery::new(vec![
        (Occur::Must, parsed),
        (Occur::Should, Box::new(phrase)),
    ]))
}

/// How much a title phrase match counts (see [`with_title_phrase`]). Measured with
/// `benches/title_boost.sh` (`indexer eval --title-phrase-boost`) on docs
/// (`benches/results/title-boost.md`): title-query MRR@10 of `hybrid` 0.942 without the
/// phrase, 0.958, 0.959 and 0.960 at 1, 2 and 4; phrase-query MRR@10 unchanged (0.818).
pub const TITLE_PHRASE_BOOST: f32 = 2.0;

/// URLs of the best `limit` pages for `query`, best first, without snippets, title matches
/// weighted by `weights`.
pub fn top_urls(
    open: &OpenIndex,
    query: &str,
    limit: usize,
    weights: Weights,
) -> Result<Vec<String>, SearchError> {
    let Some(parsed) = parse(open, query, weights) else {
        return Ok(Vec::new());
    };
    if limit == 0 {
        return Ok(Vec::new());
    }
    let searcher = open.index.reader()?.searcher();
    let top = searcher.search(&*parsed.query, &TopDocs::with_limit(limit).order_by_score())?;
    let mut urls = Vec::with_capacity(top.len());
    for (_, address) in top {
        let document: TantivyDocument = searcher.doc(address)?;
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
    /// Only pages of this site.
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

/// The statistics of several indexes summed: BM25 over them equals BM25 over one index
/// holding all their pages.
struct SummedStatistics<'a>(Vec<&'a Searcher>);

impl Bm25StatisticsProvider for SummedStatistics<'_> {
    fn total_num_tokens(&self, field: Field) -> tantivy::Result<u64> {
        self.0
            .iter()
            .map(|searcher| Bm25StatisticsProvider::total_num_tokens(*searcher, field))
            .sum()
    }

    fn total_num_docs(&self) -> tantivy::Result<u64> {
        self.0
            .iter()
            .map(|searcher| Bm25StatisticsProvider::total_num_docs(*searcher))
            .sum()
    }

    fn doc_freq(&self, term: &Term) -> tantivy::Result<u64> {
        self.0.iter().map(|searcher| searcher.doc_freq(term)).sum()
    }
}

/// A page found: its score, which shard, and where in it.
#[derive(Clone, Copy)]
struct Found {
    score: Score,
    shard: usize,
    address: DocAddress,
}

/// [`search_many`] with searchers the caller keeps. Pages of equal score are ranked by URL,
/// so the order does not depend on how pages are spread over indexes and segments.
pub fn search_shards(
    shards: &[(&OpenIndex, Searcher)],
    request: &SearchRequest<'_>,
) -> Result<SearchResults, SearchError> {
    let (limit, offset) = (request.limit, request.offset);
    let mut results = SearchResults {
        query: request.query.to_string(),
        fallback: None,
        total: 0,
        offset,
        hits: Vec::new(),
        sites: Vec::new(),
    };
    let Some(&(first, _)) = shards.first() else {
        return Ok(results);
    };
    let schema = first.index.schema();
    if let Some((other, _)) = shards[1..]
        .iter()
        .find(|(open, _)| open.index.schema() != schema)
    {
        return Err(SearchError::Schemas(other.directory.display().to_string()));
    }
    let Some(parsed) = parse(first, request.query, Weights::default()) else {
        return Ok(results);
    };
    results.fallback = parsed.fallback;
    if request.count_sites {
        let mut counts = BTreeMap::new();
        for (_, searcher) in shards {
            for (site, count) in searcher.search(&*parsed.query, &SiteCounts)? {
                *counts.entry(site).or_default() += count;
            }
        }
        let mut sites: Vec<(String, u64)> = counts.into_iter().collect();
        sites.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        results.sites = sites;
    }
    let query: Box<dyn Query> = match request.site {
        Some(site) => Box::new(BooleanQuery::new(vec![
            (Occur::Must, parsed.query),
            (
                Occur::Must,
                Box::new(TermQuery::new(
                    Term::from_field_text(first.fields.site, site),
                    IndexRecordOption::Basic,
                )),
            ),
        ])),
        None => parsed.query,
    };
    let statistics = SummedStatistics(shards.iter().map(|(_, searcher)| searcher).collect());
    let wanted = offset.saturating_add(limit.max(1));
    // One more than wanted: whether the last wanted page ties with a page after it.
    let top_docs = || TopDocs::with_limit(wanted.saturating_add(1)).order_by_score();
    let mut found = Vec::new();
    for (shard, (_, searcher)) in shards.iter().enumerate() {
        let (top, count) =
            searcher.search_with_statistics_provider(&*query, &(top_docs(), Count), &statistics)?;
        results.total += count;
        found.extend(top.into_iter().map(|(score, address)| Found {
            score,
            shard,
            address,
        }));
    }
    found.sort_by(|a, b| b.score.total_cmp(&a.score));
    if found.len() > wanted && found[wanted - 1].score == found[wanted].score {
        // Pages tie across the cut: take every page of that score, to rank them by URL.
        let floor = found[wanted - 1].score;
        found.retain(|page| page.score > floor);
        for (shard, (_, searcher)) in shards.iter().enumerate() {
            let tied = searcher.search_with_statistics_provider(
                &*query,
                &ScoresAtLeast(floor),
                &statistics,
            )?;
            found.extend(tied.into_iter().filter(|&(score, _)| score == floor).map(
                |(score, address)| Found {
                    score,
                    shard,
                    address,
                },
            ));
        }
        found.sort_by(|a, b| b.score.total_cmp(&a.score));
    }
    if limit == 0 || found.len() <= offset {
        return Ok(results);
    }
    let url_of = |page: &Found| -> Result<String, SearchError> {
        let (open, searcher) = &shards[page.shard];
        let document: TantivyDocument = searcher.doc(page.address)?;
        Ok(stored_text(&document, open.fields.url))
    };
    // Runs of equal score that reach into the page of results asked for, ordered by URL.
    let end = found.len().min(offset + limit);
    let mut at = 0;
    while at < end {
        let run = found[at..]
            .iter()
            .take_while(|page| page.score == found[at].score)
            .count();
        if run > 1 && at + run > offset {
            let mut keyed = found[at..at + run]
                .iter()
                .map(|page| Ok((url_of(page)?, *page)))
                .collect::<Result<Vec<_>, SearchError>>()?;
            keyed.sort_by(|a, b| a.0.cmp(&b.0));
            for (slot, (_, page)) in found[at..at + run].iter_mut().zip(keyed) {
                *slot = page;
            }
        }
        at += run;
    }
    let mut snippets: Vec<Option<(SnippetGenerator, SnippetGenerator)>> =
        shards.iter().map(|_| None).collect();
    for (at, page) in found[offset..end].iter().enumerate() {
        let (open, searcher) = &shards[page.shard];
        let generators = match &mut snippets[page.shard] {
            Some(generators) => generators,
            empty => {
                let mut body = SnippetGenerator::create(searcher, &*query, open.fields.body)?;
                body.set_max_num_chars(200);
                let title = SnippetGenerator::create(searcher, &*query, open.fields.title)?;
                empty.insert((body, title))
            }
        };
        let (body, title) = generators;
        let document: TantivyDocument = searcher.doc(page.address)?;
        let text = |field| stored_text(&document, field);
        let mut snippet = body.snippet_from_doc(&document);
        if snippet.highlighted().is_empty() {
            let in_title = title.snippet_from_doc(&document);
            if !in_title.highlighted().is_empty() {
                snippet = in_title;
            }
        }
        let fragment = snippet.fragment().replace('\n', " ");
        let bytes = merged(
            snippet
                .highlighted()
                .iter()
                .map(|range| (range.start, range.end)),
        );
        results.hits.push(Hit {
            rank: offset + at + 1,
            index: page.shard,
            score: page.score,
            url: text(open.fields.url),
            title: text(open.fields.title),
            site: text(open.fields.site),
            highlights: char_ranges(&fragment, &bytes),
            highlight_bytes: bytes,
            snippet: fragment,
        });
    }
    Ok(results)
}

/// Collects every matching page scoring at least the given score.
struct ScoresAtLeast(Score);

/// [`ScoresAtLeast`] in one segment.
struct SegmentScoresAtLeast {
    floor: Score,
    segment: SegmentOrdinal,
    found: Vec<(Score, DocAddress)>,
}

impl Collector for ScoresAtLeast {
    type Fruit = Vec<(Score, DocAddress)>;
    type Child = SegmentScoresAtLeast;

    fn for_segment(
        &self,
        segment: SegmentOrdinal,
        _reader: &SegmentReader,
    ) -> tantivy::Result<SegmentScoresAtLeast> {
        Ok(SegmentScoresAtLeast {
            floor: self.0,
            segment,
            found: Vec::new(),
        })
    }

    fn requires_scoring(&self) -> bool {
        true
    }

    fn merge_fruits(&self, fruits: Vec<Self::Fruit>) -> tantivy::Result<Self::Fruit> {
        Ok(fruits.into_iter().flatten().collect())
    }
}

impl SegmentCollector for SegmentScoresAtLeast {
    type Fruit = Vec<(Score, DocAddress)>;

    fn collect(&mut self, doc: DocId, score: Score) {
        if score >= self.floor {
            self.found.push((score, DocAddress::new(self.segment, doc)));
        }
    }

    fn harvest(self) -> Self::Fruit {
        self.found
    }
}

/// Counts matching pages by their `site` fast field.
struct SiteCounts;

/// [`SiteCounts`] in one segment: counts by the site's term ordinal.
struct SegmentSiteCounts {
    column: Option<StrColumn>,
    counts: Vec<u64>,
}

impl Collector for SiteCounts {
    type Fruit = BTreeMap<String, u64>;
    type Child = SegmentSiteCounts;

    fn for_segment(
        &self,
        _segment: SegmentOrdinal,
        reader: &SegmentReader,
    ) -> tantivy::Result<SegmentSiteCounts> {
        let column = reader.fast_fields().str("site")?;
        let terms = column.as_ref().map_or(0, |column| column.num_terms());
        Ok(SegmentSiteCounts {
            column,
            counts: vec![0; terms],
        })
    }

    fn requires_scoring(&self) -> bool {
        false
    }

    fn merge_fruits(&self, fruits: Vec<Self::Fruit>) -> tantivy::Result<Self::Fruit> {
        let mut all = BTreeMap::new();
        for fruit in fruits {
            for (site, count) in fruit {
                *all.entry(site).or_default() += count;
            }
        }
        Ok(all)
    }
}

impl SegmentCollector for SegmentSiteCounts {
    type Fruit = BTreeMap<String, u64>;

    fn collect(&mut self, doc: DocId, _score: Score) {
        if let Some(column) = &self.column {
            for ord in column.term_ords(doc) {
                if let Some(count) = self.counts.get_mut(ord as usize) {
                    *count += 1;
                }
            }
        }
    }

    fn harvest(self) -> Self::Fruit {
        let mut sites = BTreeMap::new();
        let Some(column) = self.column else {
            return sites;
        };
        let mut name = String::new();
        for (ord, &count) in self.counts.iter().enumerate() {
            if count > 0 && column.ord_to_str(ord as u64, &mut name).unwrap_or(false) {
                sites.insert(name.clone(), count);
            }
        }
        sites
    }
}

/// Byte ranges sorted, with overlapping and touching ones merged.
fn merged(ranges: impl Iterator<Item = (usize, usize)>) -> Vec<(usize, usize)> {
    let mut ranges: Vec<(usize, usize)> = ranges.filter(|(start, end)| start < end).collect();
    ranges.sort_unstable();
    let mut out: Vec<(usize, usize)> = Vec::with_capacity(ranges.len());
    for (start, end) in ranges {
        match out.last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(end),
            _ => out.push((start, end)),
        }
    }
    out
}

/// Byte ranges of `text` as character ranges.
fn char_ranges(text: &str, bytes: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let char_at = |byte: usize| text.char_indices().take_while(|&(at, _)| at < byte).count();
    bytes
        .iter()
        .map(|&(start, end)| (char_at(start), char_at(end.min(text.len()))))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn highlights_are_merged_and_counted_in_characters() {
        let ranges = [(5, 9), (0, 3), (3, 4), (8, 12)];
        assert_eq!(merged(ranges.into_iter()), [(0, 4), (5, 12)]);
        // "ブリーフケース" is 7 characters in 21 bytes.
        let text = "ブリーフケース and more";
        assert_eq!(char_ranges(text, &[(0, 21), (22, 25)]), [(0, 7), (8, 11)]);
    }
}
