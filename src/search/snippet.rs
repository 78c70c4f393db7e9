//! Hits out of the pages found: each page's stored URL, title and site, and a passage of its
//! body (its title when only the title matches) around the query terms, with where they match
//! as character and byte ranges.
//!
//! A highlight covers exactly what the query matched: a phrase — and a run of Chinese or
//! Japanese is one, `リュック` asking for the pairs `リュ ュッ ック` in a row — is highlighted where
//! all its terms stand in a row, never one of its terms alone (`ック` in `サック`). The passage is
//! chosen as tantivy's `SnippetGenerator` chooses it, counting whole matches: the text cut into
//! pieces of at most `max_bytes` at term starts, the piece whose matches weigh most (a term
//! 1 / (1 + its document frequency), a phrase the sum of its terms), the first of equal ones.
//! Indexes built with the legacy analyzer ([`Analyzer::Legacy`]) keep tantivy's snippets.

use rustc_hash::FxHashMap;
use tantivy::query::{BooleanQuery, Occur, PhraseQuery, Query, TermQuery};
use tantivy::schema::{Field, Value};
use tantivy::snippet::SnippetGenerator;
use tantivy::{Searcher, TantivyDocument, Term};

use super::collect::Found;
use super::{Hit, SearchError};
use crate::analyze::{Analyzer, Mode, TermKind, for_each_term, phrase_offsets};
use crate::index::{OpenIndex, stored_text};

/// Bytes of a body passage, at most (a match longer than that is shown whole).
const BODY_BYTES: usize = 200;

/// Bytes of a title passage, at most (tantivy's default).
const TITLE_BYTES: usize = 150;

/// The hits of `pages`, found in `shards` by `query`, the first ranked `offset + 1`.
pub(super) fn hits(
    shards: &[(&OpenIndex, Searcher)],
    query: &dyn Query,
    pages: &[Found],
    offset: usize,
) -> Result<Vec<Hit>, SearchError> {
    let mut hits = Vec::with_capacity(pages.len());
    // Each shard's highlighters (body, title), made when a page of it first needs them.
    let mut highlighters: Vec<Option<(Highlighter, Highlighter)>> =
        shards.iter().map(|_| None).collect();
    for (at, page) in pages.iter().enumerate() {
        let address = page.address;
        let (open, searcher) = &shards[page.shard];
        let (body, title) = match &mut highlighters[page.shard] {
            Some(highlighters) => highlighters,
            empty => empty.insert((
                Highlighter::new(open, searcher, query, open.fields.body, BODY_BYTES)?,
                Highlighter::new(open, searcher, query, open.fields.title, TITLE_BYTES)?,
            )),
        };
        let document: TantivyDocument = searcher.doc(address)?;
        let text = |field| stored_text(&document, field);
        let mut passage = body.passage(&document);
        if passage.highlighted.is_empty() {
            let in_title = title.passage(&document);
            if !in_title.highlighted.is_empty() {
                passage = in_title;
            }
        }
        let fragment = passage.text.replace('\n', " ");
        let bytes = merged(passage.highlighted.into_iter());
        hits.push(Hit {
            rank: offset + at + 1,
            index: page.shard,
            score: page.score,
            url: text(open.fields.url),
            title: text(open.fields.title),
            site: text(open.fields.site),
            provenance: crate::index::stored_provenance(&document, &open.fields),
            highlights: char_ranges(&fragment, &bytes),
            highlight_bytes: bytes,
            snippet: fragment,
        });
    }
    Ok(hits)
}

/// A passage of a field's text and the byte ranges in it that the query matches.
#[derive(Debug, Default, PartialEq)]
struct Passage {
    text: String,
    highlighted: Vec<(usize, usize)>,
}

/// What finds the passage of one field of a shard's pages.
enum Highlighter {
    /// tantivy's, for an index of the legacy analyzer.
    Tantivy(SnippetGenerator),
    /// Whole matches of the query's terms and phrases.
    Exact(ExactHighlighter),
}

impl Highlighter {
    fn new(
        open: &OpenIndex,
        searcher: &Searcher,
        query: &dyn Query,
        field: Field,
        max_bytes: usize,
    ) -> tantivy::Result<Highlighter> {
        if open.analyzer() == Analyzer::Legacy {
            let mut generator = SnippetGenerator::create(searcher, query, field)?;
            generator.set_max_num_chars(max_bytes);
            return Ok(Highlighter::Tantivy(generator));
        }
        // A run's characters are asked of the field of characters, which holds the title's
        // and the body's.
        let mut asked = vec![field];
        asked.extend(open.fields.chars);
        let mut patterns = Vec::new();
        patterns_of(query, &asked, &mut patterns);
        patterns.sort();
        patterns.dedup();
        let mut weighed = Vec::with_capacity(patterns.len());
        for (in_field, terms) in patterns {
            let mut weight = 0.0;
            for term in &terms {
                let documents = searcher.doc_freq(&Term::from_field_text(in_field, term))?;
                if documents == 0 {
                    weight = 0.0;
                    break;
                }
                weight += 1.0 / (1.0 + documents as f32);
            }
            if weight > 0.0 {
                weighed.push((terms, weight));
            }
        }
        Ok(Highlighter::Exact(ExactHighlighter::new(
            field, &weighed, max_bytes,
        )))
    }

    /// The passage of `document`'s field.
    fn passage(&self, document: &TantivyDocument) -> Passage {
        match self {
            Highlighter::Tantivy(generator) => {
                let snippet = generator.snippet_from_doc(document);
                Passage {
                    text: snippet.fragment().to_string(),
                    highlighted: snippet
                        .highlighted()
                        .iter()
                        .map(|range| (range.start, range.end))
                        .collect(),
                }
            }
            Highlighter::Exact(exact) => {
                // The field's values joined as tantivy's snippets join them.
                let mut text = String::new();
                for value in document.get_all(exact.field) {
                    if let Some(value) = value.as_str() {
                        text.push(' ');
                        text.push_str(value);
                    }
                }
                exact.passage(text.trim())
            }
        }
    }
}

/// The term texts of each term and phrase of `query` in one of `fields`, with that field (a
/// term alone is a phrase of one), leaving out excluded clauses. A query whose parts cannot be
/// seen (a boost) gives its terms that need positions, in a row, as one phrase, and the others
/// alone.
fn patterns_of(query: &dyn Query, fields: &[Field], patterns: &mut Vec<(Field, Vec<String>)>) {
    let text = |term: &Term| term.value().as_str().map(str::to_string);
    if let Some(boolean) = query.downcast_ref::<BooleanQuery>() {
        for (occur, clause) in boolean.clauses() {
            if *occur != Occur::MustNot {
                patterns_of(clause.as_ref(), fields, patterns);
            }
        }
    } else if let Some(term) = query.downcast_ref::<TermQuery>() {
        let field = term.term().field();
        if fields.contains(&field) {
            patterns.extend(text(term.term()).map(|term| (field, vec![term])));
        }
    } else if let Some(phrase) = query.downcast_ref::<PhraseQuery>() {
        if fields.contains(&phrase.field()) {
            let terms: Option<Vec<String>> = phrase.phrase_terms().iter().map(text).collect();
            patterns.extend(terms.map(|terms| (phrase.field(), terms)));
        }
    } else {
        let mut run: Option<(Field, Vec<String>)> = None;
        query.query_terms(&mut |term, positions| {
            let field = term.field();
            let in_field = fields.contains(&field);
            let goes_on = in_field && positions && run.as_ref().is_none_or(|run| run.0 == field);
            if !goes_on && let Some(ended) = run.take() {
                patterns.push(ended);
            }
            match (in_field, positions, text(term)) {
                (true, true, Some(term)) => {
                    run.get_or_insert_with(|| (field, Vec::new())).1.push(term)
                }
                (true, false, Some(term)) => patterns.push((field, vec![term])),
                _ => {}
            }
        });
        patterns.extend(run);
    }
}

/// A term or phrase to find: its terms (ids into [`ExactHighlighter::terms`]), their offsets
/// from the first, and its weight.
struct Pattern {
    terms: Vec<usize>,
    offsets: Vec<usize>,
    weight: f32,
}

/// Finds the passage with the whole matches of a query's terms and phrases in one field.
struct ExactHighlighter {
    field: Field,
    max_bytes: usize,
    /// The distinct terms of the patterns, and their ids.
    terms: FxHashMap<String, usize>,
    patterns: Vec<Pattern>,
}

/// A term of the query found in the text.
#[derive(Debug, Clone, Copy)]
struct Occurrence {
    position: usize,
    term: usize,
    from: usize,
    to: usize,
}

/// Where a match lies in the text, and what it weighs.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Span {
    from: usize,
    to: usize,
    weight: f32,
}

impl ExactHighlighter {
    fn new(field: Field, weighed: &[(Vec<String>, f32)], max_bytes: usize) -> Self {
        let mut terms = FxHashMap::default();
        let patterns = weighed
            .iter()
            .map(|(texts, weight)| {
                let ids = texts
                    .iter()
                    .map(|text| {
                        let next = terms.len();
                        *terms.entry(text.clone()).or_insert(next)
                    })
                    .collect();
                Pattern {
                    terms: ids,
                    offsets: phrase_offsets(texts),
                    weight: *weight,
                }
            })
            .collect();
        ExactHighlighter {
            field,
            max_bytes,
            terms,
            patterns,
        }
    }

    fn passage(&self, text: &str) -> Passage {
        if self.patterns.is_empty() {
            return Passage::default();
        }
        choose_passage(text, &self.matches(text), self.max_bytes)
    }

    /// The whole matches of the patterns in `text`, sorted, overlapping ones merged (their
    /// weights added).
    fn matches(&self, text: &str) -> Vec<Span> {
        let mut found: Vec<Occurrence> = Vec::new();
        for_each_term(text, Mode::Index, |term, span| {
            if let Some(&id) = self.terms.get(term) {
                found.push(Occurrence {
                    position: span.position,
                    term: id,
                    from: span.from,
                    to: span.to,
                });
            }
        });
        let at = |position: usize, term: usize| {
            let first = found.partition_point(|occurrence| occurrence.position < position);
            found[first..]
                .iter()
                .take_while(|occurrence| occurrence.position == position)
                .find(|occurrence| occurrence.term == term)
        };
        let mut spans = Vec::new();
        for pattern in &self.patterns {
            for start in found
                .iter()
                .filter(|occurrence| occurrence.term == pattern.terms[0])
            {
                let mut span = Span {
                    from: start.from,
                    to: start.to,
                    weight: pattern.weight,
                };
                let whole =
                    pattern
                        .terms
                        .iter()
                        .zip(&pattern.offsets)
                        .skip(1)
                        .all(|(&term, &offset)| match at(start.position + offset, term) {
                            Some(occurrence) => {
                                span.from = span.from.min(occurrence.from);
                                span.to = span.to.max(occurrence.to);
                                true
                            }
                            None => false,
                        });
                if whole {
                    spans.push(span);
                }
            }
        }
        spans.sort_by_key(|span| (span.from, span.to));
        let mut merged: Vec<Span> = Vec::with_capacity(spans.len());
        for span in spans {
            match merged.last_mut() {
                Some(last) if span.from < last.to => {
                    last.to = last.to.max(span.to);
                    last.weight += span.weight;
                }
                _ => merged.push(span),
            }
        }
        merged
    }
}

/// A piece of text considered for the passage.
#[derive(Debug, Default)]
struct Candidate {
    weight: f32,
    start: usize,
    stop: usize,
    highlighted: Vec<(usize, usize)>,
}

/// The passage of `text` with the heaviest `matches` (sorted, apart), as tantivy's
/// `SnippetGenerator` cuts and chooses it: the text's terms (a match counting as one) are
/// taken in order into a piece until one would end more than `max_bytes` past its start,
/// which starts the next piece.
fn choose_passage(text: &str, matches: &[Span], max_bytes: usize) -> Passage {
    let mut best: Option<Candidate> = None;
    let mut piece = Candidate::default();
    let mut next_match = 0;
    let mut covered_until = 0;
    let mut add = |from: usize, to: usize, weight: Option<f32>| {
        if to.saturating_sub(piece.start) > max_bytes {
            let full = std::mem::replace(
                &mut piece,
                Candidate {
                    start: from,
                    stop: from,
                    ..Candidate::default()
                },
            );
            offer(&mut best, full);
        }
        piece.stop = to;
        if let Some(weight) = weight {
            piece.weight += weight;
            piece.highlighted.push((from, to));
        }
    };
    for_each_term(text, Mode::Index, |_, term| {
        if term.kind == TermKind::Pair || term.from < covered_until {
            return;
        }
        match matches.get(next_match) {
            Some(found) if found.from <= term.from => {
                add(found.from, found.to, Some(found.weight));
                covered_until = found.to;
                next_match += 1;
            }
            _ => add(term.from, term.to, None),
        }
    });
    offer(&mut best, piece);
    best.map(|best| Passage {
        text: text[best.start..best.stop].to_string(),
        highlighted: best
            .highlighted
            .iter()
            .map(|&(from, to)| (from - best.start, to - best.start))
            .collect(),
    })
    .unwrap_or_default()
}

/// Keeps `piece` as the best when it weighs more than the best so far (pieces come in text
/// order, so the first of equal ones stays).
fn offer(best: &mut Option<Candidate>, piece: Candidate) {
    if piece.weight > 0.0 && best.as_ref().is_none_or(|best| piece.weight > best.weight) {
        *best = Some(piece);
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

    fn marked(index: &OpenIndex, query: &str) -> Vec<String> {
        let results = crate::search::search(index, query, 10, 0).unwrap();
        let mut marked = Vec::new();
        for hit in results.hits {
            for (from, to) in hit.highlight_bytes {
                marked.push(hit.snippet[from..to].to_string());
            }
        }
        marked
    }

    #[test]
    fn a_phrase_is_highlighted_whole_and_never_one_of_its_terms_alone() {
        let (_dir, open) = crate::search::index_of(&[(
            "https://shop.example/bag",
            "鞄",
            "サックとリュック。ブラウニー リュック、ｻｯｸ。borrow the checker, borrow checker.",
        )]);
        assert_eq!(marked(&open, "リュック"), ["リュック", "リュック"]);
        assert_eq!(marked(&open, "ﾌﾞﾗｳﾆｰﾘｭｯｸ"), ["ブラウニー リュック"]);
        assert_eq!(marked(&open, "サック"), ["サック", "ｻｯｸ"]);
        assert_eq!(marked(&open, "\"borrow checker\""), ["borrow checker"]);
        assert_eq!(
            marked(&open, "checker -nothing"),
            ["checker", "checker"],
            "an excluded term is not looked for"
        );
    }

    #[test]
    fn the_passage_is_the_first_heaviest_piece() {
        let text = "aa bb cc dd ee ff";
        let span = |from, to, weight| Span { from, to, weight };
        let passage = choose_passage(text, &[span(0, 2, 1.0), span(9, 11, 2.0)], 5);
        assert_eq!(
            passage,
            Passage {
                text: "cc dd".into(),
                highlighted: vec![(3, 5)],
            }
        );
        let passage = choose_passage(text, &[span(3, 5, 1.0), span(12, 14, 1.0)], 5);
        assert_eq!(passage.text, "aa bb");
        assert_eq!(choose_passage(text, &[], 5), Passage::default());
    }
}
