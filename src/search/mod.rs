//! Search: a query string and an open index in, ranked hits with snippets out.
//!
//! BM25 over the title and body fields, a title match weighted by [`TITLE_BOOST`], in tantivy's
//! query language: words (any of them), `"phrases"`, `+required`, `-excluded`, `title:word`,
//! `site:host`. A query that does not parse as that syntax is searched as its plain words
//! ([`SearchResults::fallback`] says so).

use std::collections::BTreeMap;

use serde::Serialize;
use tantivy::collector::{Collector, Count, SegmentCollector};
use tantivy::columnar::StrColumn;
use tantivy::query::{
    Bm25StatisticsProvider, BooleanQuery, BoostQuery, Occur, PhraseQuery, Query, QueryParser,
    TermQuery, Weight,
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
    /// BM25 score (with the title bonuses), its last bits cleared as ranking compares it
    /// ([`tie_class`]).
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
/// boost of 2 raised title-query MRR@10 by at most 0.001 and cut phrase-query MRR@10 by 0.16
/// (docs, `hybrid`: 0.817 → 0.661) and 0.08 (news), so titles and bodies count alike.
pub const TITLE_BOOST: f32 = 1.0;

/// How much title matches count against body matches.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Weights {
    /// A title match of a query word, against a body match ([`TITLE_BOOST`]).
    pub title: f32,
    /// The query's words as a phrase in the title ([`TITLE_PHRASE_BOOST`]; 0: not asked).
    pub title_phrase: f32,
    /// The query's words as a whole part of the title ([`TITLE_PART_BOOST`]; 0: not asked).
    pub title_part: f32,
}

impl Default for Weights {
    fn default() -> Self {
        Weights {
            title: TITLE_BOOST,
            title_phrase: TITLE_PHRASE_BOOST,
            title_part: TITLE_PART_BOOST,
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
    let words = crate::analyze::words(text);
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
        query: with_title_bonuses(open, query, &words, weights),
        fallback,
    })
}

/// `parsed` plus two bonuses for a query that names a page by its title (`words`, analysed):
/// the words as a phrase in the title, when there are two or more, weighted
/// `weights.title_phrase` — a query that is a page's title (or a run of it) puts that page
/// first, while a query whose words are merely scattered over titles gains nothing — and the
/// words as a whole part of the title ([`Fields::title_parts`](crate::index::Fields)),
/// weighted `weights.title_part`, so that "spiders" puts "Spiders — Scrapy" above "Deploying
/// Spiders — Scrapy". The bonuses only add to the score of pages `parsed` matches. `words`
/// are the words of the text as typed, so a query in query syntax (`title:spiders`,
/// `spiders AND scrapy`) carries its field names and operators into both and gains neither.
fn with_title_bonuses(
    open: &OpenIndex,
    parsed: Box<dyn Query>,
    words: &[String],
    weights: Weights,
) -> Box<dyn Query> {
    let mut bonuses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
    if words.len() >= 2 && weights.title_phrase > 0.0 {
        let terms = words
            .iter()
            .map(|word| Term::from_field_text(open.fields.title, word))
            .collect();
        let phrase = BoostQuery::new(Box::new(PhraseQuery::new(terms)), weights.title_phrase);
        bonuses.push((Occur::Should, Box::new(phrase)));
    }
    if let Some(field) = open.fields.title_parts
        && weights.title_part > 0.0
    {
        let part = TermQuery::new(
            Term::from_field_text(field, &words.join(" ")),
            IndexRecordOption::Basic,
        );
        bonuses.push((
            Occur::Should,
            Box::new(BoostQuery::new(Box::new(part), weights.title_part)),
        ));
    }
    if bonuses.is_empty() {
        return parsed;
    }
    let mut clauses = vec![(Occur::Must, parsed)];
    clauses.extend(bonuses);
    Box::new(BooleanQuery::new(clauses))
}

/// How much a title phrase match counts (see [`with_title_bonuses`]). Measured with
/// `benches/title_boost.sh` (`indexer eval --title-phrase-boost`) on docs
/// (`benches/results/title-boost.md`, no title part bonus): title-query MRR@10 of `hybrid`
/// 0.952 without the phrase, 0.972 at 2 and 4; phrase-query MRR@10 unchanged (0.817).
pub const TITLE_PHRASE_BOOST: f32 = 2.0;

/// How much a query that is a whole part of a page's title counts (see
/// [`with_title_bonuses`]). Measured with `benches/title_boost.sh` on docs
/// (`benches/results/title-boost.md`): title-query MRR@10 of `hybrid` 0.9716 without it,
/// 0.9819, 0.9823 and 0.9825 at 1, 2 and 4 (`none` 0.9723 → 0.9823 at 2); phrase queries
/// unchanged (0.8174); news unchanged (1.000).
pub const TITLE_PART_BOOST: f32 = 2.0;

/// URLs of the best `limit` pages for `query`, best first, without snippets, title matches
/// weighted by `weights`; pages of equal score are ranked by URL, as [`search`] ranks them.
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
    let found = searcher.search(&*parsed.query, &BestByScoreThenUrl(limit))?;
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
    let wanted = offset.saturating_add(limit);
    if limit == 0 {
        for (_, searcher) in shards {
            results.total += searcher.search(&*query, &Count)?;
        }
        return Ok(results);
    }
    let mut found: Vec<Found> = Vec::new();
    for (shard, (_, searcher)) in shards.iter().enumerate() {
        let (best, count) = searcher.search_with_statistics_provider(
            &*query,
            &(BestByScoreThenUrl(wanted), Count),
            &statistics,
        )?;
        results.total += count;
        found.extend(best.into_iter().map(|page| Found { shard, ..page }));
    }
    let found = best_first(found, wanted);
    if found.len() <= offset {
        return Ok(results);
    }
    let end = found.len().min(wanted);
    let mut snippets: Vec<Option<(SnippetGenerator, SnippetGenerator)>> =
        shards.iter().map(|_| None).collect();
    for (at, page) in found[offset..end].iter().enumerate() {
        let address = page.address;
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
        let document: TantivyDocument = searcher.doc(address)?;
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

/// A page found: its score, which shard, where in it, and its URL as an ordinal of its
/// segment's sorted URL dictionary (read as text only where pages of two segments tie).
#[derive(Clone)]
struct Found {
    score: Score,
    shard: usize,
    address: DocAddress,
    url: u64,
    urls: Option<StrColumn>,
}

impl Found {
    /// The page's URL as text (empty in an index built before `url` was a fast field).
    fn url_text(&self) -> String {
        let mut url = String::new();
        if let Some(urls) = &self.urls
            && self.url != u64::MAX
            && !urls.ord_to_str(self.url, &mut url).unwrap_or(false)
        {
            url.clear();
        }
        url
    }
}

/// The best `wanted` of `found`: higher score first, equal scores by URL, then by place (a URL
/// in two indexes).
fn best_first(mut found: Vec<Found>, wanted: usize) -> Vec<Found> {
    found.sort_by(|a, b| b.score.total_cmp(&a.score));
    let mut best = Vec::with_capacity(wanted.min(found.len()));
    let mut rest = found.into_iter().peekable();
    while best.len() < wanted {
        let Some(first) = rest.next() else { break };
        let mut run = vec![first];
        while let Some(page) = rest.next_if(|page| page.score == run[0].score) {
            run.push(page);
        }
        let room = wanted - best.len();
        if run.len() == 1 {
            best.extend(run);
        } else {
            best.extend(by_url(run, room));
        }
    }
    best
}

/// The first `room` pages of a run of equal score, by URL. Within a segment the dictionary
/// ordinals are in URL order, so URLs are read as text only to merge segments: the head of
/// each segment's list, as it is taken.
fn by_url(run: Vec<Found>, room: usize) -> Vec<Found> {
    let mut lists: BTreeMap<(usize, SegmentOrdinal), Vec<Found>> = BTreeMap::new();
    for page in run {
        lists
            .entry((page.shard, page.address.segment_ord))
            .or_default()
            .push(page);
    }
    let mut lists: Vec<std::collections::VecDeque<Found>> = lists
        .into_values()
        .map(|mut list| {
            list.sort_by_key(|page| (page.url, page.address.doc_id));
            list.into()
        })
        .collect();
    if let [list] = lists.as_mut_slice() {
        return list.drain(..).take(room).collect();
    }
    let mut heads: Vec<Option<String>> = lists
        .iter()
        .map(|list| list.front().map(Found::url_text))
        .collect();
    let mut out = Vec::with_capacity(room);
    while out.len() < room {
        let next = (0..lists.len())
            .filter_map(|at| {
                let page = lists[at].front()?;
                Some((heads[at].as_deref()?, page.shard, page.address, at))
            })
            .min()
            .map(|(_, _, _, at)| at);
        let Some(at) = next else { break };
        out.extend(lists[at].pop_front());
        heads[at] = lists[at].front().map(Found::url_text);
    }
    out
}

/// The best pages by score, pages of equal score ranked by URL: what
/// [`TopDocs`](tantivy::collector::TopDocs) does, with ties broken by the `url` fast field
/// instead of by where a page lies, so that the ranking
/// of a page does not depend on how pages are spread over indexes and segments. A page's URL
/// is read only when its score could put it among the best. Indexes built before `url` was a
/// fast field rank ties by place.
struct BestByScoreThenUrl(usize);

/// [`BestByScoreThenUrl`] in one segment: the best so far, the worst on top of the heap.
struct SegmentBest {
    limit: usize,
    segment: SegmentOrdinal,
    urls: Option<StrColumn>,
    best: std::collections::BinaryHeap<Candidate>,
}

/// A page of one segment among the best: its URL as the ordinal of the segment's sorted URL
/// dictionary, so URLs compare without being read.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Candidate {
    score: Score,
    url: u64,
    doc: DocId,
}

impl Eq for Candidate {}

impl Ord for Candidate {
    /// Greater is worse: lower score, then later URL, then later place.
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        other
            .score
            .total_cmp(&self.score)
            .then_with(|| self.url.cmp(&other.url))
            .then_with(|| self.doc.cmp(&other.doc))
    }
}

impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Collector for BestByScoreThenUrl {
    type Fruit = Vec<Found>;
    type Child = SegmentBest;

    fn for_segment(
        &self,
        segment: SegmentOrdinal,
        reader: &SegmentReader,
    ) -> tantivy::Result<SegmentBest> {
        let urls = reader.fast_fields().str("url").ok().flatten();
        Ok(SegmentBest {
            limit: self.0,
            segment,
            urls,
            best: std::collections::BinaryHeap::with_capacity(self.0.min(1 << 16)),
        })
    }

    fn requires_scoring(&self) -> bool {
        true
    }

    /// As [`TopDocs`](tantivy::collector::TopDocs) does, lets the query skip pages that cannot score enough (block-max
    /// WAND): once the best are full, only pages scoring at least the worst of them are
    /// visited.
    fn collect_segment(
        &self,
        weight: &dyn Weight,
        segment: SegmentOrdinal,
        reader: &SegmentReader,
    ) -> tantivy::Result<Vec<Found>> {
        let mut best = self.for_segment(segment, reader)?;
        if self.0 > 0 {
            let alive = reader.alive_bitset();
            weight.for_each_pruning(Score::MIN, reader, &mut |doc, score| {
                if alive.is_none_or(|alive| alive.is_alive(doc)) {
                    best.collect(doc, score);
                }
                best.threshold()
            })?;
        }
        Ok(best.harvest())
    }

    /// Every segment's best: ordering them needs URLs across segments, read by
    /// [`best_first`] only where scores tie.
    fn merge_fruits(&self, fruits: Vec<Self::Fruit>) -> tantivy::Result<Self::Fruit> {
        Ok(fruits.into_iter().flatten().collect())
    }
}

/// Low bits of a positive score's mantissa that [`tie_class`] clears.
const SCORE_NOISE_BITS: u32 = 10;

/// `score` rounded down to a multiple of 2¹⁰ units in the last place (a step of 0.006–0.012 %
/// of the score), so that pages of the same text almost always score the same. A page's score
/// is a float sum whose order tantivy takes from the page's neighbours in its segment (the
/// order of the scorers as block-max WAND or an intersection advances them), so two identical
/// pages could differ in the last bits by where each landed, and two builds of one crawl rank
/// them apart; with the bits cleared they tie and rank by URL, unless a step boundary falls
/// between them (odds of about their distance in units over 1024). Rounding down keeps the
/// pruning threshold safe: a cleared score is never above the score the query computed. Zero
/// and negative scores (a negative weight) are left as they are.
fn tie_class(score: Score) -> Score {
    if score > 0.0 && score.is_finite() {
        Score::from_bits(score.to_bits() & !((1 << SCORE_NOISE_BITS) - 1))
    } else {
        score
    }
}

impl SegmentBest {
    /// Scores a page must exceed to be visited once the best are full: the bottom of the
    /// [`tie_class`] step below the worst of the best, so that a page of equal class and earlier
    /// URL still gets in with a whole step to spare against the rounding of tantivy's
    /// pruning bounds (pages of the step below are turned away by `collect`).
    fn threshold(&self) -> Score {
        match self.best.peek() {
            Some(worst) if self.best.len() >= self.limit => {
                tie_class(worst.score.next_down()).next_down()
            }
            _ => Score::MIN,
        }
    }
}

impl SegmentCollector for SegmentBest {
    type Fruit = Vec<Found>;

    fn collect(&mut self, doc: DocId, score: Score) {
        if self.limit == 0 {
            return;
        }
        let score = tie_class(score);
        let full = self.best.len() >= self.limit;
        if full && self.best.peek().is_some_and(|worst| score < worst.score) {
            return;
        }
        let url = self
            .urls
            .as_ref()
            .and_then(|urls| urls.term_ords(doc).next())
            .unwrap_or(u64::MAX);
        let candidate = Candidate { score, url, doc };
        if !full {
            self.best.push(candidate);
        } else if self.best.peek().is_some_and(|worst| candidate < *worst) {
            self.best.pop();
            self.best.push(candidate);
        }
    }

    fn harvest(self) -> Self::Fruit {
        let (segment, urls) = (self.segment, self.urls);
        self.best
            .into_iter()
            .map(|candidate| Found {
                score: candidate.score,
                shard: 0,
                address: DocAddress::new(segment, candidate.doc),
                url: candidate.url,
                urls: urls.clone(),
            })
            .collect()
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
    use crate::index::{IndexBuild, IndexedPage};

    /// An index of `pages` (URL, title, body) of one site, in a temporary folder kept alive
    /// beside it.
    fn index_of(pages: &[(&str, &str, &str)]) -> (tempfile::TempDir, OpenIndex) {
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

    #[test]
    fn a_query_that_is_a_whole_title_part_ranks_that_page_first() {
        let (_dir, open) = index_of(&[
            (
                "https://docs.example/deploy.html",
                "Deploying Spiders — Example 2.8 documentation",
                "Deploying spiders: run your spiders on a server. Spiders scheduled, spiders listed.",
            ),
            (
                "https://docs.example/spiders.html",
                "Spiders — Example 2.8 documentation",
                "Spiders are classes that define how a site is crawled.",
            ),
        ]);
        let first = |weights| top_urls(&open, "spiders", 2, weights).unwrap()[0].clone();
        let without = Weights {
            title_part: 0.0,
            ..Weights::default()
        };
        assert_eq!(first(without), "https://docs.example/deploy.html");
        assert_eq!(
            first(Weights::default()),
            "https://docs.example/spiders.html"
        );
        assert_eq!(
            top_urls(&open, "spiders -deploying", 2, Weights::default()).unwrap(),
            ["https://docs.example/spiders.html"],
            "the bonus adds to the score of pages the query matches, never a page"
        );
    }

    #[test]
    fn a_title_s_head_before_a_double_hyphen_or_a_closing_parenthesis_is_a_whole_part() {
        for (page_title, other_title) in [
            ("Example -- widgets", "Example -- widgets_extra"),
            ("Widgets (Example API)", "Widgets.Extra (Example API)"),
        ] {
            let (_dir, open) = index_of(&[
                (
                    "https://docs.example/extra.html",
                    other_title,
                    "Widgets extra: widgets with extras. Widgets listed, widgets sorted.",
                ),
                (
                    "https://docs.example/widgets.html",
                    page_title,
                    "Widgets are the parts a window is made of.",
                ),
            ]);
            let first = |weights| top_urls(&open, "widgets", 2, weights).unwrap()[0].clone();
            let without = Weights {
                title_part: 0.0,
                ..Weights::default()
            };
            assert_eq!(
                first(without),
                "https://docs.example/extra.html",
                "{page_title}"
            );
            assert_eq!(
                first(Weights::default()),
                "https://docs.example/widgets.html",
                "{page_title}"
            );
        }
    }

    #[test]
    fn scores_a_few_last_bits_apart_tie_and_distinct_scores_stay_apart() {
        let score: Score = 17.25;
        let mut noisy = score;
        for _ in 0..8 {
            noisy = noisy.next_up();
        }
        assert_ne!(score, noisy);
        assert_eq!(tie_class(score), tie_class(noisy));
        assert!(tie_class(17.26) > tie_class(17.25));
        assert!(tie_class(noisy) <= noisy, "never rounded up");
        assert_eq!(tie_class(0.0), 0.0);
        assert_eq!(tie_class(-1.5), -1.5);
    }

    #[test]
    fn the_best_few_are_the_head_of_the_whole_ranking_ties_by_url() {
        // Copies of two texts, added out of URL order: each copy of one text ties.
        let order = [7, 3, 11, 0, 9, 5, 1, 10, 2, 8, 6, 4];
        let urls = order.map(|at| format!("https://copies.example/{at:02}.html"));
        let pages: Vec<(&str, &str, &str)> = order
            .iter()
            .zip(&urls)
            .map(|(at, url)| {
                let body = if at % 3 == 0 {
                    "alpha alpha beta, a page about alpha"
                } else {
                    "alpha beta gamma delta, a page about other things"
                };
                (url.as_str(), "Copy", body)
            })
            .collect();
        let (_dir, open) = index_of(&pages);
        let all = top_urls(&open, "alpha beta", 12, Weights::default()).unwrap();
        assert_eq!(all.len(), 12);
        assert_eq!(all[0], "https://copies.example/00.html");
        assert_eq!(all[4], "https://copies.example/01.html");
        for limit in 1..12 {
            assert_eq!(
                top_urls(&open, "alpha beta", limit, Weights::default()).unwrap(),
                all[..limit],
                "the best {limit}"
            );
        }
    }

    #[test]
    fn highlights_are_merged_and_counted_in_characters() {
        let ranges = [(5, 9), (0, 3), (3, 4), (8, 12)];
        assert_eq!(merged(ranges.into_iter()), [(0, 4), (5, 12)]);
        // "ブリーフケース" is 7 characters in 21 bytes.
        let text = "ブリーフケース and more";
        assert_eq!(char_ranges(text, &[(0, 21), (22, 25)]), [(0, 7), (8, 11)]);
    }
}
