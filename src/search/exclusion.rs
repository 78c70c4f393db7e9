//! An excluded clause (`-word`, `-"two words"`) in, the same clause out, asked about each
//! candidate page only by plain seeks.
//!
//! tantivy 0.27 asks an exclusion whether it holds a page with `DocSet::seek_danger`, and its
//! phrase scorer asserts (in builds with debug assertions) that it is never asked about a page
//! before the one it stands on — which it is, when the phrase matched nothing in a segment and
//! the scorer stands at the end (found by the `query` fuzz target; `fuzz/findings/README.md`).
//! The answer tantivy computes is right either way; the assertion stops a debug build. An
//! [`Excluded`] clause hides the inner scorer's own `seek_danger` behind `DocSet`'s plain one,
//! which seeks only forward and answers the same.

use tantivy::query::{EnableScoring, Explanation, Query, Scorer, Weight};
use tantivy::{DocId, DocSet, Score, SegmentReader, Term};

/// A clause of a boolean query that pages must not match, asked by plain seeks.
#[derive(Debug)]
pub(super) struct Excluded(pub(super) Box<dyn Query>);

impl Clone for Excluded {
    fn clone(&self) -> Self {
        Excluded(self.0.box_clone())
    }
}

impl Query for Excluded {
    fn weight(&self, enable_scoring: EnableScoring<'_>) -> tantivy::Result<Box<dyn Weight>> {
        Ok(Box::new(ExcludedWeight(self.0.weight(enable_scoring)?)))
    }

    fn query_terms<'a>(&'a self, visitor: &mut dyn FnMut(&'a Term, bool)) {
        self.0.query_terms(visitor);
    }
}

struct ExcludedWeight(Box<dyn Weight>);

impl Weight for ExcludedWeight {
    fn scorer(&self, reader: &SegmentReader, boost: Score) -> tantivy::Result<Box<dyn Scorer>> {
        Ok(Box::new(PlainSeeks(self.0.scorer(reader, boost)?)))
    }

    fn explain(&self, reader: &SegmentReader, doc: DocId) -> tantivy::Result<Explanation> {
        self.0.explain(reader, doc)
    }
}

/// A scorer whose `seek_danger` is `DocSet`'s default: a seek when the page asked about is
/// ahead, nothing when the scorer already stands on or past it.
struct PlainSeeks(Box<dyn Scorer>);

impl DocSet for PlainSeeks {
    fn advance(&mut self) -> DocId {
        self.0.advance()
    }

    fn seek(&mut self, target: DocId) -> DocId {
        self.0.seek(target)
    }

    fn doc(&self) -> DocId {
        self.0.doc()
    }

    fn size_hint(&self) -> u32 {
        self.0.size_hint()
    }

    fn cost(&self) -> u64 {
        self.0.cost()
    }
}

impl Scorer for PlainSeeks {
    fn score(&mut self) -> Score {
        self.0.score()
    }
}

#[cfg(test)]
mod tests {
    use tantivy::collector::Count;
    use tantivy::query::{BooleanQuery, Occur, PhraseQuery, QueryParser};
    use tantivy::schema::{Schema, TEXT};
    use tantivy::{DocSet, Index, SeekDangerResult, TERMINATED, TantivyDocument};

    use super::*;

    /// An index of one segment whose phrase "red fox" matches no page, though both words are
    /// in it: the phrase scorer is made, and stands at the end from the start.
    fn index() -> (Index, tantivy::schema::Field) {
        let mut schema = Schema::builder();
        let body = schema.add_text_field("body", TEXT);
        let index = Index::create_in_ram(schema.build());
        let mut writer = index.writer_with_num_threads(1, 15_000_000).unwrap();
        for text in ["red apple and a fox", "fox red", "red wine"] {
            let mut document = TantivyDocument::default();
            document.add_text(body, text);
            writer.add_document(document).unwrap();
        }
        writer.commit().unwrap();
        (index, body)
    }

    #[test]
    fn a_finished_phrase_asked_about_an_earlier_page_answers_not_found() {
        let (index, body) = index();
        let searcher = index.reader().unwrap().searcher();
        let phrase = PhraseQuery::new(vec![
            Term::from_field_text(body, "red"),
            Term::from_field_text(body, "fox"),
        ]);
        let excluded = Excluded(Box::new(phrase));
        let weight = excluded
            .weight(EnableScoring::disabled_from_searcher(&searcher))
            .unwrap();
        let mut scorer = weight.scorer(searcher.segment_reader(0), 1.0).unwrap();
        assert_eq!(scorer.doc(), TERMINATED);
        assert_eq!(
            scorer.seek_danger(0),
            SeekDangerResult::SeekLowerBound(TERMINATED)
        );
    }

    #[test]
    fn a_query_excluding_a_phrase_that_matches_nothing_finds_every_other_page() {
        let (index, body) = index();
        let searcher = index.reader().unwrap().searcher();
        let parser = QueryParser::for_index(&index, vec![body]);
        let query = BooleanQuery::new(vec![
            (Occur::Should, parser.parse_query("red").unwrap()),
            (
                Occur::MustNot,
                Box::new(Excluded(parser.parse_query("\"red fox\"").unwrap())),
            ),
        ]);
        assert_eq!(searcher.search(&query, &Count).unwrap(), 3);
        let query = BooleanQuery::new(vec![
            (Occur::Should, parser.parse_query("red").unwrap()),
            (
                Occur::MustNot,
                Box::new(Excluded(parser.parse_query("\"fox red\"").unwrap())),
            ),
        ]);
        assert_eq!(searcher.search(&query, &Count).unwrap(), 2);
    }
}
