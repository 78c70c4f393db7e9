//! A query's text in, a tantivy query out: tantivy's query language over the title and body
//! fields (its plain words when it does not parse), a title match weighted by [`Weights`],
//! bonuses for a query that names a page by its title, and the site filter.

use tantivy::Term;
use tantivy::query::{BooleanQuery, BoostQuery, Occur, PhraseQuery, Query, QueryParser, TermQuery};
use tantivy::schema::{Field, IndexRecordOption};

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

/// A parsed query and what became of the text.
pub(super) struct Parsed {
    pub(super) query: Box<dyn Query>,
    pub(super) fallback: Option<String>,
}

/// `text` as query syntax or, when it does not parse (`print()`, `std::vec`, `[1,2]`, a URL
/// naming no field), as its plain words; `None` when it has no words at all.
pub(super) fn parse(open: &OpenIndex, text: &str, weights: Weights) -> Option<Parsed> {
    let analyzer = open.analyzer();
    let words = analyzer.query_terms(text);
    if words.is_empty() {
        return None;
    }
    let mut parser = QueryParser::new(
        open.index.schema(),
        vec![open.fields.title, open.fields.body],
        crate::analyze::query_tokenizers(),
    );
    parser.set_field_boost(open.fields.title, weights.title);
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
    })
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

/// `query` restricted to the pages of `site` (in the `site` field `field`), when one is given.
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
                Box::new(TermQuery::new(
                    Term::from_field_text(field, site),
                    IndexRecordOption::Basic,
                )),
            ),
        ])),
        None => query,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{index_of, top_urls};

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
}
