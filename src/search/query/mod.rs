//! A query's text in, a tantivy query out: tantivy's query language over the title and body
//! fields (its plain words when it does not parse), a title match weighted by [`Weights`],
//! bonuses for a query that names a page by its title, the `site:` and `url:` filters, the
//! wildcard (`owner*`) and fuzzy (`ownershp~1`) words, and the site filter of a request.
//!
//! A query without filters and without wildcard or fuzzy words goes to tantivy's
//! [`QueryParser`] as it is typed, as it always has. A query with them is read by
//! [`syntax::split`], and its rest parsed by tantivy's grammar, its clauses built one by one:
//! each plain one by the parser, each wildcard or fuzzy word into the words of the index it
//! stands for, each excluded one wrapped as [`Excluded`] (so is every query with an excluded
//! clause).

use std::collections::BTreeMap;
use std::ops::Bound;

use tantivy::query::{
    AllQuery, BooleanQuery, BoostQuery, ConstScoreQuery, EmptyQuery, FuzzyTermQuery,
    InvertedIndexRangeQuery, Occur, PhrasePrefixQuery, PhraseQuery, Query, QueryParser,
    QueryParserError, TermQuery, TermSetQuery,
};
use tantivy::query_grammar::{Delimiter, UserInputAst, UserInputLeaf};
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{Searcher, TantivyError, Term};

use super::SearchError;
use super::exclusion::Excluded;
use super::syntax::{self, Filters, Special};
use crate::index::OpenIndex;

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

/// Most words of the index one wildcard or fuzzy word stands for in the score, in each field:
/// the most frequent (for a fuzzy word, the nearest first). Pages with only rarer words it
/// matches are still found, scored 0 for it. 50 is what tantivy expands a phrase prefix to.
pub const MAX_EXPANSIONS: usize = 50;

/// A parsed query and what became of the text.
pub(super) struct Parsed {
    pub(super) query: Box<dyn Query>,
    pub(super) fallback: Option<String>,
    /// What the user may not expect: a filter no page of the indexes passes.
    pub(super) notes: Vec<String>,
}

/// `text` as query syntax or, when it does not parse (`print()`, `std::vec`, `[1,2]`, a URL
/// naming no field), as its plain words; `None` when it has nothing to search for. `site:`
/// and `url:` terms filter the pages (a query of filters alone lists their pages), and
/// wildcard and fuzzy words stand for the words of `searchers` they match. Refused (with
/// [`SearchError::Syntax`]): a filter without a value or inside parentheses, a `*` inside a
/// word, a fuzzy distance above 2.
pub(super) fn parse(
    open: &OpenIndex,
    searchers: &[&Searcher],
    text: &str,
    weights: Weights,
) -> Result<Option<Parsed>, SearchError> {
    let split = syntax::split(text).map_err(|refusal| SearchError::Syntax(refusal.0))?;
    let mut default_fields = vec![open.fields.title, open.fields.body];
    default_fields.extend(open.fields.chars);
    let mut parser = QueryParser::new(
        open.index.schema(),
        default_fields,
        crate::analyze::query_tokenizers(),
    );
    parser.set_field_boost(open.fields.title, weights.title);
    if split.filters.is_empty() && !split.special && !excludes_anything(text) {
        return Ok(parse_plain(open, &parser, text, weights));
    }
    let words = open.analyzer().query_terms(&split.plain);
    let builder = Builder {
        open,
        searchers,
        weights,
        parser: &parser,
        filtered: !split.filters.is_empty(),
    };
    let (query, fallback) = builder.text(&split.rest)?;
    let query = match query {
        Some(query) => with_title_bonuses(open, query, &words, weights),
        None if split.filters.is_empty() => return Ok(None),
        None => Box::new(AllQuery),
    };
    let (query, notes) = with_filters(open, searchers, query, &split.filters)?;
    Ok(Some(Parsed {
        query,
        fallback,
        notes,
    }))
}

/// Whether `text` reads as query syntax with an excluded clause (`-word`, `-"two words"`),
/// anywhere in it: such a text is built clause by clause, each excluded one as [`Excluded`].
fn excludes_anything(text: &str) -> bool {
    fn excludes(ast: &UserInputAst) -> bool {
        match ast {
            UserInputAst::Clause(clauses) => clauses
                .iter()
                .any(|(occur, clause)| *occur == Some(Occur::MustNot) || excludes(clause)),
            UserInputAst::Boost(inner, _) => excludes(inner),
            UserInputAst::Leaf(_) => false,
        }
    }
    text.contains('-') && tantivy::query_grammar::parse_query(text).is_ok_and(|ast| excludes(&ast))
}

/// A query without filters, wildcard, fuzzy words or excluded clauses: tantivy's parser on
/// the text, or on its plain words when it does not parse.
fn parse_plain(
    open: &OpenIndex,
    parser: &QueryParser,
    text: &str,
    weights: Weights,
) -> Option<Parsed> {
    let analyzer = open.analyzer();
    let words = analyzer.query_terms(text);
    if words.is_empty() {
        return None;
    }
    let (query, fallback) = match parser.parse_query(text) {
        Ok(query) => (query, None),
        Err(error) => (
            parser.parse_query(&analyzer.plain_words(text)).ok()?,
            Some(error.to_string()),
        ),
    };
    Some(Parsed {
        query: with_title_bonuses(open, query, &words, weights),
        fallback,
        notes: Vec::new(),
    })
}

/// Why a clause could not be built.
enum Problem {
    /// tantivy's parser did not take it: the text is searched as its plain words.
    Parser(QueryParserError),
    /// The query is refused.
    Refused(String),
    /// The index could not be read.
    Index(TantivyError),
}

impl From<TantivyError> for Problem {
    fn from(error: TantivyError) -> Self {
        Problem::Index(error)
    }
}

impl From<std::io::Error> for Problem {
    fn from(error: std::io::Error) -> Self {
        Problem::Index(error.into())
    }
}

/// A text's query (`None`: nothing to search for) and, when the text was searched as its plain
/// words, why.
type Reading = (Option<Box<dyn Query>>, Option<String>);

/// Builds the query of a text with filters, wildcard or fuzzy words.
struct Builder<'a> {
    open: &'a OpenIndex,
    searchers: &'a [&'a Searcher],
    weights: Weights,
    parser: &'a QueryParser,
    /// Whether the query has filters (then excluded words alone are a query: the filtered
    /// pages without them).
    filtered: bool,
}

impl Builder<'_> {
    /// The query of `text` (`None`: nothing to search for) and, when it was searched as its
    /// plain words, why.
    fn text(&self, text: &str) -> Result<Reading, SearchError> {
        if text.trim().is_empty() {
            return Ok((None, None));
        }
        let complaint = match self.grammar(text) {
            Ok(query) => return Ok((query, None)),
            Err(Problem::Parser(error)) => error.to_string(),
            Err(Problem::Refused(refusal)) => return Err(SearchError::Syntax(refusal)),
            Err(Problem::Index(error)) => return Err(error.into()),
        };
        // Not query syntax: its plain words, and its wildcard and fuzzy words as they are.
        let mut plain = Vec::new();
        for word in text.split_whitespace() {
            let bare = word.trim_start_matches(['+', '-']);
            match syntax::literal_special(bare) {
                Ok(Some(_)) if !bare.contains(['(', ')', '"', ':']) => plain.push(bare.to_string()),
                _ => plain.extend(crate::analyze::words(word)),
            }
        }
        let query = match self.grammar(&plain.join(" ")) {
            Ok(query) => query,
            Err(Problem::Refused(refusal)) => return Err(SearchError::Syntax(refusal)),
            Err(Problem::Index(error)) => return Err(error.into()),
            Err(Problem::Parser(_)) => {
                let words = self.open.analyzer().plain_words(text);
                if words.trim().is_empty() {
                    None
                } else {
                    self.parser.parse_query(&words).ok()
                }
            }
        };
        Ok((query, Some(complaint)))
    }

    /// `text` read by tantivy's grammar and built clause by clause.
    fn grammar(&self, text: &str) -> Result<Option<Box<dyn Query>>, Problem> {
        if text.trim().is_empty() {
            return Ok(None);
        }
        let mut ast = tantivy::query_grammar::parse_query(text)
            .map_err(|_| Problem::Parser(QueryParserError::SyntaxError(text.to_string())))?;
        if let UserInputAst::Clause(clauses) = &mut ast
            && !clauses.is_empty()
            && clauses
                .iter()
                .all(|(occur, _)| *occur == Some(Occur::MustNot))
        {
            if !self.filtered {
                return Err(Problem::Parser(QueryParserError::AllButQueryForbidden));
            }
            // `site:docs.python.org -asyncio`: the site's pages without the word.
            clauses.push((
                Some(Occur::Must),
                UserInputAst::Leaf(Box::new(UserInputLeaf::All)),
            ));
        }
        self.build(ast)
    }

    /// The query of one node of the grammar's tree; `None` for one with nothing to search
    /// (as tantivy's parser drops it).
    fn build(&self, ast: UserInputAst) -> Result<Option<Box<dyn Query>>, Problem> {
        match ast {
            UserInputAst::Clause(clauses) => {
                let mut built: Vec<(Occur, Box<dyn Query>)> = Vec::new();
                for (occur, clause) in clauses {
                    if let Some(query) = self.build(clause)? {
                        let occur = occur.unwrap_or(Occur::Should);
                        let query: Box<dyn Query> = match occur {
                            Occur::MustNot => Box::new(Excluded(query)),
                            _ => query,
                        };
                        built.push((occur, query));
                    }
                }
                Ok(match built.len() {
                    0 => None,
                    1 if built[0].0 != Occur::MustNot => built.pop().map(|(_, query)| query),
                    _ => Some(Box::new(BooleanQuery::new(built))),
                })
            }
            UserInputAst::Boost(inner, boost) => Ok(self
                .build(*inner)?
                .map(|query| Box::new(BoostQuery::new(query, boost.0 as f32)) as Box<dyn Query>)),
            UserInputAst::Leaf(leaf) => match *leaf {
                UserInputLeaf::Literal(literal) if literal.delimiter == Delimiter::None => {
                    match syntax::literal_special(&literal.phrase) {
                        Err(refusal) => Err(Problem::Refused(refusal.0)),
                        Ok(Some(special)) => self
                            .special(literal.field_name.as_deref(), &literal.phrase, &special)
                            .map(Some),
                        Ok(None) => self.leaf(UserInputLeaf::Literal(literal)),
                    }
                }
                leaf => self.leaf(leaf),
            },
        }
    }

    /// A leaf as tantivy's parser builds it.
    fn leaf(&self, leaf: UserInputLeaf) -> Result<Option<Box<dyn Query>>, Problem> {
        let query = self
            .parser
            .build_query_from_user_input_ast(UserInputAst::Leaf(Box::new(leaf)))
            .map_err(Problem::Parser)?;
        Ok((!query.is::<EmptyQuery>()).then_some(query))
    }

    /// A wildcard or fuzzy word (`word` as typed) in the field it names, or in the title and
    /// the body.
    fn special(
        &self,
        field_name: Option<&str>,
        word: &str,
        special: &Special,
    ) -> Result<Box<dyn Query>, Problem> {
        let fields = self.open.fields;
        let fields = match field_name {
            None => {
                let mut both = vec![(fields.title, self.weights.title), (fields.body, 1.0)];
                both.extend(fields.chars.map(|chars| (chars, 1.0)));
                both
            }
            Some("title") => vec![(fields.title, self.weights.title)],
            Some("body") => vec![(fields.body, 1.0)],
            Some(other) => {
                return Err(Problem::Refused(format!(
                    "{other}:{word}: wildcard and fuzzy words search the words of the title \
                     and body (owner*, title:owner*)"
                )));
            }
        };
        let stem = match special {
            Special::Prefix(stem) | Special::Fuzzy(stem, _) => stem,
        };
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        for (field, boost) in fields {
            let mut analyzer = self.open.index.tokenizer_for_field(field)?;
            let mut terms = Vec::new();
            analyzer
                .token_stream(stem)
                .process(&mut |token| terms.push(Term::from_field_text(field, &token.text)));
            let query: Box<dyn Query> = match (special, terms.len()) {
                // A field that holds none of the stem's terms (the characters' field, for a
                // word) is not asked.
                (_, 0) => continue,
                (Special::Prefix(_), 1) => {
                    let automaton = FuzzyTermQuery::new_prefix(terms.remove(0), 0, true);
                    self.expanded(field, automaton, None)?
                }
                (Special::Prefix(_), _) => Box::new(PhrasePrefixQuery::new(terms)),
                (Special::Fuzzy(_, distance), 1) => {
                    let term = terms.remove(0);
                    let text = term.value().as_str().unwrap_or_default().to_string();
                    let automaton = FuzzyTermQuery::new(term, *distance, true);
                    self.expanded(field, automaton, Some(&text))?
                }
                (Special::Fuzzy(_, distance), words) => {
                    return Err(Problem::Refused(format!(
                        "{word}: a fuzzy word is one word, and {stem} is {words} \
                         (search them as {stem:?}~{distance} for a phrase with room between)"
                    )));
                }
            };
            let query = if boost == 1.0 {
                query
            } else {
                Box::new(BoostQuery::new(query, boost))
            };
            clauses.push((Occur::Should, query));
        }
        Ok(match clauses.len() {
            0 => {
                return Err(Problem::Refused(format!(
                    "{word}: no word to search for before the {}",
                    if matches!(special, Special::Prefix(_)) {
                        "*"
                    } else {
                        "~"
                    }
                )));
            }
            1 => clauses.remove(0).1,
            _ => Box::new(BooleanQuery::new(clauses)),
        })
    }

    /// The words of `field` that `automaton` accepts, over every index searched, as a query:
    /// BM25 over the [`MAX_EXPANSIONS`] most frequent (of a fuzzy word's, whose text is
    /// `fuzzy`, the nearest first, each weighted by how near it is), and every page with any
    /// of them found.
    fn expanded(
        &self,
        field: Field,
        automaton: FuzzyTermQuery,
        fuzzy: Option<&str>,
    ) -> Result<Box<dyn Query>, Problem> {
        let dfa = automaton.automaton()?;
        let mut found: BTreeMap<Vec<u8>, u64> = BTreeMap::new();
        for searcher in self.searchers {
            for segment in searcher.segment_readers() {
                let inverted = segment.inverted_index(field)?;
                let mut stream = inverted.terms().search(&dfa).into_stream()?;
                while stream.advance() {
                    *found.entry(stream.key().to_vec()).or_default() +=
                        u64::from(stream.value().doc_freq);
                }
            }
        }
        let all = found.len();
        let mut ranked: Vec<(usize, u64, String)> = found
            .into_iter()
            .filter_map(|(key, pages)| {
                let text = String::from_utf8(key).ok()?;
                let distance = fuzzy.map_or(0, |stem| edit_distance(stem, &text));
                Some((distance, pages, text))
            })
            .collect();
        ranked.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
        ranked.truncate(MAX_EXPANSIONS);
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = ranked
            .into_iter()
            .map(|(distance, _, text)| {
                let term = TermQuery::new(
                    Term::from_field_text(field, &text),
                    IndexRecordOption::WithFreqs,
                );
                let query: Box<dyn Query> = match fuzzy {
                    Some(stem) if distance > 0 => Box::new(BoostQuery::new(
                        Box::new(term),
                        nearness(stem, &text, distance),
                    )),
                    _ => Box::new(term),
                };
                (Occur::Should, query)
            })
            .collect();
        if all > clauses.len() {
            clauses.push((
                Occur::Should,
                Box::new(ConstScoreQuery::new(Box::new(automaton), 0.0)),
            ));
        }
        Ok(match clauses.len() {
            0 => Box::new(EmptyQuery),
            1 => clauses.remove(0).1,
            _ => Box::new(BooleanQuery::new(clauses)),
        })
    }
}

/// Edits (insertions, deletions, substitutions, swaps of neighbours) from `a` to `b`, in
/// characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut rows = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in rows.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in rows[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (rows[i - 1][j] + 1)
                .min(rows[i][j - 1] + 1)
                .min(rows[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(rows[i - 2][j - 2] + 1);
            }
            rows[i][j] = best;
        }
    }
    rows[a.len()][b.len()]
}

/// How much a word `distance` edits from a fuzzy word's `stem` counts against the stem
/// itself: Lucene's `1 - edits / shorter length`, at least 0.1.
fn nearness(stem: &str, word: &str, distance: usize) -> f32 {
    let shorter = stem.chars().count().min(word.chars().count()).max(1);
    (1.0 - distance as f32 / shorter as f32).max(0.1)
}

/// `query` restricted by `filters`, which add nothing to a page's score; with a note for each
/// site and URL prefix that no page of `searchers` has.
fn with_filters(
    open: &OpenIndex,
    searchers: &[&Searcher],
    query: Box<dyn Query>,
    filters: &Filters,
) -> Result<(Box<dyn Query>, Vec<String>), SearchError> {
    if filters.is_empty() {
        return Ok((query, Vec::new()));
    }
    let (site, url) = (open.fields.site, open.fields.url);
    let mut notes = Vec::new();
    let mut clauses = vec![(Occur::Must, query)];
    if !filters.sites.is_empty() {
        let (terms, missing) = site_terms(searchers, site, &filters.sites)?;
        notes.extend(
            missing
                .into_iter()
                .map(|site| format!("no page of the site {site} is in the index")),
        );
        clauses.push((Occur::Must, filter(Box::new(TermSetQuery::new(terms)))));
    }
    if !filters.urls.is_empty() {
        if !any_url_under(searchers, url, &filters.urls)? {
            let prefixes: Vec<&str> = filters
                .urls
                .iter()
                .filter(|prefix| !prefix.starts_with("http://") || filters.urls.len() == 1)
                .map(String::as_str)
                .collect();
            notes.push(format!(
                "no page of the index has a URL starting {}",
                prefixes.join(" or ")
            ));
        }
        clauses.push((Occur::Must, filter(urls_under(url, &filters.urls))));
    }
    if !filters.not_sites.is_empty() {
        let (terms, _) = site_terms(searchers, site, &filters.not_sites)?;
        clauses.push((Occur::MustNot, Box::new(TermSetQuery::new(terms))));
    }
    if !filters.not_urls.is_empty() {
        clauses.push((Occur::MustNot, urls_under(url, &filters.not_urls)));
    }
    Ok((Box::new(BooleanQuery::new(clauses)), notes))
}

/// `query` as a filter: it matches what `query` matches and adds nothing to the score.
fn filter(query: Box<dyn Query>) -> Box<dyn Query> {
    Box::new(ConstScoreQuery::new(query, 0.0))
}

/// The sites of `searchers` that are one of `hosts` or a subdomain of one (`python.org`:
/// `docs.python.org` too), as terms of the `site` field, and the hosts with no such site.
fn site_terms(
    searchers: &[&Searcher],
    field: Field,
    hosts: &[String],
) -> Result<(Vec<Term>, Vec<String>), SearchError> {
    let mut sites = std::collections::BTreeSet::new();
    for searcher in searchers {
        for segment in searcher.segment_readers() {
            let inverted = segment.inverted_index(field)?;
            let mut stream = inverted.terms().stream().map_err(TantivyError::from)?;
            while stream.advance() {
                let Ok(site) = std::str::from_utf8(stream.key()) else {
                    continue;
                };
                if hosts.iter().any(|host| within_host(site, host)) {
                    sites.insert(site.to_string());
                }
            }
        }
    }
    let missing = hosts
        .iter()
        .filter(|host| !sites.iter().any(|site| within_host(site, host)))
        .cloned()
        .collect();
    let terms = sites
        .iter()
        .map(|site| Term::from_field_text(field, site))
        .collect();
    Ok((terms, missing))
}

/// Whether `site` is `host` or a subdomain of it.
fn within_host(site: &str, host: &str) -> bool {
    site.strip_suffix(host)
        .is_some_and(|head| head.is_empty() || head.ends_with('.'))
}

/// The pages whose URL starts with one of `prefixes`.
fn urls_under(field: Field, prefixes: &[String]) -> Box<dyn Query> {
    let mut clauses: Vec<(Occur, Box<dyn Query>)> = prefixes
        .iter()
        .map(|prefix| {
            let upper = match after_prefix(prefix) {
                Some(end) => Bound::Excluded(Term::from_field_text(field, &end)),
                None => Bound::Unbounded,
            };
            let range = InvertedIndexRangeQuery::new(
                Bound::Included(Term::from_field_text(field, prefix)),
                upper,
            );
            (Occur::Should, Box::new(range) as Box<dyn Query>)
        })
        .collect();
    if clauses.len() == 1 {
        clauses.remove(0).1
    } else {
        Box::new(BooleanQuery::new(clauses))
    }
}

/// The least text above every text starting with `prefix` (its last character raised by
/// one), or `None` when there is none.
fn after_prefix(prefix: &str) -> Option<String> {
    let mut chars: Vec<char> = prefix.chars().collect();
    while let Some(last) = chars.pop() {
        let next = (u32::from(last) + 1..=u32::from(char::MAX)).find_map(char::from_u32);
        if let Some(next) = next {
            chars.push(next);
            return Some(chars.into_iter().collect());
        }
    }
    None
}

/// Whether any page of `searchers` has a URL starting with one of `prefixes`.
fn any_url_under(
    searchers: &[&Searcher],
    field: Field,
    prefixes: &[String],
) -> Result<bool, SearchError> {
    for searcher in searchers {
        for segment in searcher.segment_readers() {
            let inverted = segment.inverted_index(field)?;
            for prefix in prefixes {
                let mut range = inverted.terms().range().ge(prefix.as_bytes());
                if let Some(end) = after_prefix(prefix) {
                    range = range.lt(end.as_bytes());
                }
                if range.into_stream().map_err(TantivyError::from)?.advance() {
                    return Ok(true);
                }
            }
        }
    }
    Ok(false)
}

/// `parsed` plus two bonuses for a query that names a page by its title (`words`, analysed,
/// with their positions):
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
    words: &[(usize, String)],
    weights: Weights,
) -> Box<dyn Query> {
    let mut bonuses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
    if words.len() >= 2 && weights.title_phrase > 0.0 {
        let terms = words
            .iter()
            .map(|(position, word)| (*position, Term::from_field_text(open.fields.title, word)))
            .collect();
        let phrase = BoostQuery::new(
            Box::new(PhraseQuery::new_with_offset(terms)),
            weights.title_phrase,
        );
        bonuses.push((Occur::Should, Box::new(phrase)));
    }
    if let Some(field) = open.fields.title_parts
        && weights.title_part > 0.0
    {
        let joined: Vec<&str> = words.iter().map(|(_, word)| word.as_str()).collect();
        let part = TermQuery::new(
            Term::from_field_text(field, &joined.join(" ")),
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

/// `query` restricted to the pages of `site` (in the `site` field `field`), when one is given;
/// the filter adds nothing to a page's score.
pub(super) fn within_site(
    query: Box<dyn Query>,
    field: Field,
    site: Option<&str>,
) -> Box<dyn Query> {
    match site {
        Some(site) => Box::new(BooleanQuery::new(vec![
            (Occur::Must, query),
            (
                Occur::Must,
                filter(Box::new(TermQuery::new(
                    Term::from_field_text(field, site),
                    IndexRecordOption::Basic,
                ))),
            ),
        ])),
        None => query,
    }
}

#[cfg(test)]
mod tests;
