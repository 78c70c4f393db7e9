//! The search analyzer: text in, the terms the index stores and a query asks for out, each
//! with its position and the byte range of the text it came from.
//!
//! It is the word analyzer of [`super`] (words lower-cased, accents folded) with two
//! differences that only the index and queries see — segmentation, and so what the detectors
//! decide, keeps [`Words`](super::Words):
//!
//! - The text is read in Unicode NFKC form (the `unicode-normalization` crate), so that width
//!   and compatibility forms are one: half-width `ﾘｭｯｸ` is `リュック`, `ＰＯＲＴＥＲ` is `porter`,
//!   `ｶﾞ` is `ガ`, `①` is `1`. Offsets stay those of the text as given.
//! - A run of an unspaced script (Han, Hiragana, Katakana, Thai, Lao, Khmer, Myanmar) is
//!   indexed as Lucene's `cjk_bigram` filter does with `output_unigrams`: every character at
//!   its position, and every pair of consecutive characters at the position of its first, so
//!   that one character (`吉`) finds the runs it stands in (`吉田`). A query asks for the pairs
//!   of a run in a row (`リュック` is `リュ ュッ ック`: a phrase), or for its character when the run
//!   has only one. Unlike Lucene's, a run goes on across what is not a word — spaces,
//!   punctuation, line breaks — as a phrase of Latin words does, so that `ブラウニーリュック`
//!   finds `ブラウニー リュック` and `ブラウニー・リュック`, and the other way round.
//!
//! The index keeps a run's characters in a field of their own ([`FieldTerms`]): in the title
//! and body they would lengthen the field and so lower every score of a page with a run, as
//! BM25 weighs matches against length, while only a query of one character needs them.
//!
//! Positions: a word takes one; a run of `n` characters takes `n` (its `i`-th character and the
//! pair it begins are at the run's first position plus `i`), in the index and in queries alike,
//! so phrases across words and runs stay exact.

use tantivy::tokenizer::{Token, TokenStream, Tokenizer};
use unicode_normalization::char::{
    canonical_combining_class, decompose_compatible, is_combining_mark,
};
use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfkc_quick};

use super::{Folder, MAX_WORD_BYTES, is_unspaced_script};

/// What the terms are made for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// A text going into the index: every character of a run, and every pair.
    Index,
    /// A query: the pairs of a run, or its one character.
    Query,
}

/// What a term is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TermKind {
    /// A word of a spaced script, or a number.
    Word,
    /// One character of an unspaced script.
    Char,
    /// Two consecutive characters of an unspaced script.
    Pair,
}

impl TermKind {
    /// The kind of a term made by this analyzer, told by its text.
    pub fn of(term: &str) -> TermKind {
        let mut chars = term.chars();
        match (chars.next(), chars.next(), chars.next()) {
            (Some(first), None, _) if joins_run(first) => TermKind::Char,
            (Some(first), Some(second), None) if joins_run(first) && joins_run(second) => {
                TermKind::Pair
            }
            _ => TermKind::Word,
        }
    }
}

/// Where a term stands: its kind, position, and byte range in the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TermSpan {
    /// What the term is.
    pub kind: TermKind,
    /// Its position (phrases compare positions).
    pub position: usize,
    /// Byte offset of its first character in the text.
    pub from: usize,
    /// Byte offset past its last character.
    pub to: usize,
}

/// Calls `emit(term, span)` for every term of `text`, in order of position.
pub fn for_each_term(text: &str, mode: Mode, mut emit: impl FnMut(&str, TermSpan)) {
    let mut terms = Terms::new(text, mode);
    let mut term = String::new();
    while let Some(span) = terms.next_into(&mut term) {
        emit(&term, span);
    }
}

/// The terms a query asks for in `text`, with their positions.
pub fn query_terms(text: &str) -> Vec<(usize, String)> {
    let mut terms = Vec::new();
    for_each_term(text, Mode::Query, |term, span| {
        terms.push((span.position, term.to_string()))
    });
    terms
}

/// The positions, from 0, that [`Mode::Query`] gave `terms` (the terms of one phrase, in
/// order), told from the terms alone: a pair followed by a pair is in the same run (runs are
/// parted only by words), and the last pair of a run is followed by its last character's
/// position.
pub fn phrase_offsets<S: AsRef<str>>(terms: &[S]) -> Vec<usize> {
    let mut offsets = Vec::with_capacity(terms.len());
    let mut offset = 0;
    for (at, term) in terms.iter().enumerate() {
        offsets.push(offset);
        let next_is_pair = terms
            .get(at + 1)
            .is_some_and(|next| TermKind::of(next.as_ref()) == TermKind::Pair);
        offset += match TermKind::of(term.as_ref()) {
            TermKind::Pair if !next_is_pair => 2,
            _ => 1,
        };
    }
    offsets
}

/// Which of the analyzer's terms a field holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldTerms {
    /// Every term: words, characters and pairs (the text fields of a `web-v2` index).
    All,
    /// Words and pairs (the title and body): a run's characters stay out of the field, so
    /// that they do not lengthen it — BM25 scores a page's words against its length — and a
    /// query's lone character is not asked of it.
    WordsAndPairs,
    /// The characters of runs alone (the field that finds one character).
    Chars,
}

impl FieldTerms {
    fn holds(self, kind: TermKind) -> bool {
        match self {
            FieldTerms::All => true,
            FieldTerms::WordsAndPairs => kind != TermKind::Char,
            FieldTerms::Chars => kind == TermKind::Char,
        }
    }
}

/// The search analyzer as a tantivy tokenizer, for the index or for queries, giving the terms
/// one field holds.
#[derive(Debug, Clone, Copy)]
pub struct SearchTokenizer {
    mode: Mode,
    field: FieldTerms,
}

impl SearchTokenizer {
    /// The tokenizer making every term for `mode`.
    pub fn new(mode: Mode) -> Self {
        SearchTokenizer::for_field(mode, FieldTerms::All)
    }

    /// The tokenizer making the terms for `mode` that `field` holds.
    pub fn for_field(mode: Mode, field: FieldTerms) -> Self {
        SearchTokenizer { mode, field }
    }
}

/// Tokens of one text, produced one at a time into a reused [`Token`].
pub struct SearchTokenStream<'a> {
    terms: Terms<'a>,
    field: FieldTerms,
    token: Token,
}

impl Tokenizer for SearchTokenizer {
    type TokenStream<'a> = SearchTokenStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> SearchTokenStream<'a> {
        SearchTokenStream {
            terms: Terms::new(text, self.mode),
            field: self.field,
            token: Token::default(),
        }
    }
}

impl TokenStream for SearchTokenStream<'_> {
    fn advance(&mut self) -> bool {
        while let Some(span) = self.terms.next_into(&mut self.token.text) {
            if self.field.holds(span.kind) {
                self.token.offset_from = span.from;
                self.token.offset_to = span.to;
                self.token.position = span.position;
                return true;
            }
        }
        false
    }

    fn token(&self) -> &Token {
        &self.token
    }

    fn token_mut(&mut self) -> &mut Token {
        &mut self.token
    }
}

/// Whether `text` may hold a run of an unspaced script once read in NFKC form: `false` only
/// when it surely holds none, which spares the field of characters the reading of texts
/// without runs (most of them).
pub fn may_hold_runs(text: &str) -> bool {
    // Every character that is of an unspaced script, or becomes one in NFKC form, is at
    // U+0E00 or above, so its UTF-8 form starts with a byte of 0xE0 or more.
    text.bytes().any(|byte| byte >= 0xE0)
        && text
            .chars()
            .any(|c| is_unspaced_script(c) || c >= '\u{2E80}')
}

/// Whether `c` belongs to a run of an unspaced script: a letter, digit or mark of one
/// (punctuation such as `・` parts words, as elsewhere).
fn joins_run(c: char) -> bool {
    is_unspaced_script(c) && (c.is_alphanumeric() || is_combining_mark(c))
}

/// A cursor over the terms of a text, writing each term into a caller's buffer.
pub struct Terms<'a> {
    chars: Normalized<'a>,
    mode: Mode,
    /// The position of the next word or run.
    position: usize,
    run: Option<Run>,
    /// Terms of a run made and not yet given, first first.
    queued: [Option<Queued>; 2],
    folder: Folder,
}

/// The run of an unspaced script being read.
struct Run {
    /// Position of its first character.
    start: usize,
    /// Characters so far.
    length: usize,
    /// Its last character and that character's byte range.
    last: (char, usize, usize),
}

/// A term of a run: one character, or two.
#[derive(Clone, Copy)]
struct Queued {
    first: char,
    second: Option<char>,
    position: usize,
    from: usize,
    to: usize,
}

impl<'a> Terms<'a> {
    /// A cursor at the start of `text`.
    pub fn new(text: &'a str, mode: Mode) -> Self {
        Terms {
            chars: Normalized::new(text),
            mode,
            position: 0,
            run: None,
            queued: [None, None],
            folder: Folder::default(),
        }
    }

    /// Writes the next term into `term` and returns where it stands.
    pub fn next_into(&mut self, term: &mut String) -> Option<TermSpan> {
        loop {
            if let Some(queued) = self.take_queued() {
                term.clear();
                term.push(queued.first);
                term.extend(queued.second);
                let kind = match queued.second {
                    Some(_) => TermKind::Pair,
                    None => TermKind::Char,
                };
                return Some(TermSpan {
                    kind,
                    position: queued.position,
                    from: queued.from,
                    to: queued.to,
                });
            }
            if self.run.is_none()
                && let Some(span) = self.next_ascii_word(term)
            {
                return Some(span);
            }
            let Some((c, from, to)) = self.chars.peek() else {
                if self.end_run() {
                    continue;
                }
                return None;
            };
            if joins_run(c) {
                self.chars.advance();
                self.extend_run(c, from, to);
                continue;
            }
            if !c.is_alphanumeric() {
                self.chars.advance();
                continue;
            }
            if self.end_run() {
                continue;
            }
            let to = self.read_word(term);
            if term.len() <= MAX_WORD_BYTES {
                let position = self.position;
                self.position += 1;
                return Some(TermSpan {
                    kind: TermKind::Word,
                    position,
                    from,
                    to,
                });
            }
        }
    }

    /// The common case made fast: skips the ASCII characters that are not letters or digits
    /// and, when an ASCII word follows that ends before an ASCII character or the text's end
    /// (so that NFKC leaves it as it is and nothing else joins it), reads it into `word` and
    /// gives it; `None` when a term is not that simple to find.
    fn next_ascii_word(&mut self, word: &mut String) -> Option<TermSpan> {
        loop {
            let (bytes, at) = self.chars.unread()?;
            let skipped = bytes[at..]
                .iter()
                .position(|byte| !byte.is_ascii() || byte.is_ascii_alphanumeric())
                .map_or(bytes.len(), |offset| at + offset);
            let start = skipped;
            let end = bytes[start..]
                .iter()
                .position(|byte| !byte.is_ascii_alphanumeric())
                .map_or(bytes.len(), |offset| start + offset);
            if start == end || bytes.get(end).is_some_and(|byte| !byte.is_ascii()) {
                self.chars.skip_to(skipped);
                return None;
            }
            self.chars.skip_to(end);
            if end - start > MAX_WORD_BYTES {
                continue;
            }
            word.clear();
            word.extend(
                bytes[start..end]
                    .iter()
                    .map(|byte| byte.to_ascii_lowercase() as char),
            );
            let position = self.position;
            self.position += 1;
            return Some(TermSpan {
                kind: TermKind::Word,
                position,
                from: start,
                to: end,
            });
        }
    }

    /// Reads the word that starts at the next character into `word`, lower-cased and folded;
    /// returns the byte offset past it.
    fn read_word(&mut self, word: &mut String) -> usize {
        word.clear();
        let mut end = 0;
        while let Some((c, _, to)) = self.chars.peek() {
            if !c.is_alphanumeric() || joins_run(c) {
                break;
            }
            if c.is_ascii() {
                word.push(c.to_ascii_lowercase());
            } else {
                word.extend(c.to_lowercase());
            }
            end = to;
            self.chars.advance();
        }
        if !word.is_ascii() {
            self.folder.fold(word);
        }
        end
    }

    /// Adds `c` (at `from..to`) to the run, queueing the terms it makes.
    fn extend_run(&mut self, c: char, from: usize, to: usize) {
        let index = self.mode == Mode::Index;
        let Some(run) = &mut self.run else {
            self.run = Some(Run {
                start: self.position,
                length: 1,
                last: (c, from, to),
            });
            if index {
                self.queue(c, None, self.position, from, to);
            }
            return;
        };
        let (previous, previous_from, _) = run.last;
        let pair_position = run.start + run.length - 1;
        let char_position = run.start + run.length;
        run.length += 1;
        run.last = (c, from, to);
        self.queue(previous, Some(c), pair_position, previous_from, to);
        if index {
            self.queue(c, None, char_position, from, to);
        }
    }

    /// Ends the run being read, if any (a query's one-character run gives its character);
    /// `false` when there was none.
    fn end_run(&mut self) -> bool {
        let Some(run) = self.run.take() else {
            return false;
        };
        if self.mode == Mode::Query && run.length == 1 {
            let (c, from, to) = run.last;
            self.queue(c, None, run.start, from, to);
        }
        self.position = run.start + run.length;
        true
    }

    fn queue(
        &mut self,
        first: char,
        second: Option<char>,
        position: usize,
        from: usize,
        to: usize,
    ) {
        let queued = Queued {
            first,
            second,
            position,
            from,
            to,
        };
        if self.queued[0].is_none() {
            self.queued[0] = Some(queued);
        } else {
            self.queued[1] = Some(queued);
        }
    }

    fn take_queued(&mut self) -> Option<Queued> {
        let first = self.queued[0].take()?;
        self.queued[0] = self.queued[1].take();
        Some(first)
    }
}

/// The characters of a text in NFKC form, each with the byte range of the characters of the
/// text it was made from: a character that NFKC leaves alone is its own range; a stretch that
/// it changes (a character and the marks that combine with it) gives every character made
/// from it the stretch's range.
struct Normalized<'a> {
    text: &'a str,
    /// Byte offset of the first character not read yet.
    at: usize,
    /// The normalized characters of the stretch being given, and its byte range.
    stretch: Vec<char>,
    given: usize,
    stretch_range: (usize, usize),
    /// The next character, when looked at and not taken yet.
    peeked: Option<(char, usize, usize)>,
}

impl<'a> Normalized<'a> {
    fn new(text: &'a str) -> Self {
        Normalized {
            text,
            at: 0,
            stretch: Vec::new(),
            given: 0,
            stretch_range: (0, 0),
            peeked: None,
        }
    }

    /// The next character, left to be taken by [`advance`](Self::advance).
    fn peek(&mut self) -> Option<(char, usize, usize)> {
        if self.peeked.is_none() {
            self.peeked = self.read();
        }
        self.peeked
    }

    /// Takes the character [`peek`](Self::peek) gave.
    fn advance(&mut self) {
        if self.peeked.take().is_none() {
            self.read();
        }
    }

    /// The text's bytes and the offset of the first not read, when nothing normalized waits
    /// to be given (what follows is the text as it is).
    fn unread(&self) -> Option<(&'a [u8], usize)> {
        (self.peeked.is_none() && self.given == self.stretch.len())
            .then_some((self.text.as_bytes(), self.at))
    }

    /// Goes on from byte `at` of the text (after [`unread`](Self::unread), at an ASCII
    /// character or the end).
    fn skip_to(&mut self, at: usize) {
        self.at = at;
    }

    fn read(&mut self) -> Option<(char, usize, usize)> {
        loop {
            if let Some(&c) = self.stretch.get(self.given) {
                self.given += 1;
                return Some((c, self.stretch_range.0, self.stretch_range.1));
            }
            let start = self.at;
            let bytes = self.text.as_bytes();
            let first = *bytes.get(start)?;
            if first.is_ascii() && bytes.get(start + 1).is_none_or(u8::is_ascii) {
                self.at = start + 1;
                return Some((first as char, start, start + 1));
            }
            let mut chars = self.text[start..].chars();
            let first = chars.next()?;
            let mut end = start + first.len_utf8();
            let mut alone = true;
            for c in chars {
                if starts_stretch(c) {
                    break;
                }
                end += c.len_utf8();
                alone = false;
            }
            self.at = end;
            if alone
                && (first.is_ascii() || is_nfkc_quick(std::iter::once(first)) == IsNormalized::Yes)
            {
                return Some((first, start, end));
            }
            self.stretch.clear();
            self.stretch.extend(self.text[start..end].nfkc());
            self.given = 0;
            self.stretch_range = (start, end);
        }
    }
}

/// Whether NFKC of a text can be had by normalizing the part before `c` and the part from
/// `c` on apart: `c` decomposes to a character that combines with nothing before it.
fn starts_stretch(c: char) -> bool {
    if c.is_ascii() {
        return true;
    }
    let mut first = None;
    decompose_compatible(c, |part| {
        first.get_or_insert(part);
    });
    let first = first.unwrap_or(c);
    canonical_combining_class(first) == 0
        && is_nfkc_quick(std::iter::once(first)) != IsNormalized::Maybe
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(text: &str, mode: Mode) -> Vec<(String, usize, &str)> {
        let mut out = Vec::new();
        for_each_term(text, mode, |term, span| {
            out.push((term.to_string(), span.position, &text[span.from..span.to]));
        });
        out
    }

    fn texts(text: &str, mode: Mode) -> Vec<String> {
        terms(text, mode)
            .into_iter()
            .map(|(term, ..)| term)
            .collect()
    }

    #[test]
    fn spaced_scripts_give_the_words_of_the_segmentation_analyzer() {
        for text in [
            "Hello, World! x86_64 Ünïcode",
            "Résumé NAÏVE Straße ﬁle Ελληνικά кириллица",
            "ＲＵＳＴ 1.89 — edition 2024",
        ] {
            assert_eq!(
                texts(text, Mode::Index),
                super::super::words(text),
                "{text}"
            );
            assert_eq!(
                texts(text, Mode::Query),
                super::super::words(text),
                "{text}"
            );
        }
    }

    #[test]
    fn no_character_that_joins_a_run_in_nfkc_form_is_missed_by_the_quick_test() {
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            let joins = c.to_string().nfkc().any(joins_run);
            if joins {
                assert!(may_hold_runs(&format!("a {c} b")), "U+{:04X}", c as u32);
            }
        }
        assert!(!may_hold_runs("plain — “quoted” Ünïcode кириллица"));
        assert!(may_hold_runs("ﾘｭｯｸ"));
        assert!(may_hold_runs("株 ㍿"));
    }

    #[test]
    fn the_title_and_body_hold_words_and_pairs_and_the_field_of_characters_the_characters() {
        use tantivy::tokenizer::{TokenStream, Tokenizer};
        let tokens = |field: FieldTerms, mode: Mode, text: &str| {
            let mut tokenizer = SearchTokenizer::for_field(mode, field);
            let mut stream = tokenizer.token_stream(text);
            let mut found = Vec::new();
            while stream.advance() {
                found.push((stream.token().text.clone(), stream.token().position));
            }
            found
        };
        let text = "吉田 bag 本";
        let words_and_pairs = tokens(FieldTerms::WordsAndPairs, Mode::Index, text);
        assert_eq!(
            words_and_pairs,
            [("吉田".to_string(), 0), ("bag".to_string(), 2)]
        );
        let chars = tokens(FieldTerms::Chars, Mode::Index, text);
        assert_eq!(
            chars,
            [
                ("吉".to_string(), 0),
                ("田".to_string(), 1),
                ("本".to_string(), 3)
            ]
        );
        assert_eq!(tokens(FieldTerms::All, Mode::Index, text).len(), 5);
        // A query's lone character is asked of the field of characters alone.
        assert_eq!(tokens(FieldTerms::WordsAndPairs, Mode::Query, "本"), []);
        assert_eq!(
            tokens(FieldTerms::Chars, Mode::Query, "本 bag"),
            [("本".to_string(), 0)]
        );
    }

    #[test]
    fn width_and_compatibility_forms_are_one() {
        assert_eq!(texts("ﾘｭｯｸ", Mode::Query), texts("リュック", Mode::Query));
        assert_eq!(texts("ｶﾞﾊﾞﾝ", Mode::Query), ["ガバ", "バン"]);
        assert_eq!(
            texts("ＰＯＲＴＥＲ ① ㍿", Mode::Query),
            ["porter", "1", "株式", "式会", "会社"]
        );
        assert_eq!(texts("e\u{301}te\u{301}", Mode::Index), ["ete"]);
    }

    #[test]
    fn offsets_are_those_of_the_text_as_given() {
        let found = terms("ｶﾞﾊﾞﾝ x", Mode::Index);
        assert_eq!(
            found,
            [
                ("ガ".to_string(), 0, "ｶﾞ"),
                ("ガバ".to_string(), 0, "ｶﾞﾊﾞ"),
                ("バ".to_string(), 1, "ﾊﾞ"),
                ("バン".to_string(), 1, "ﾊﾞﾝ"),
                ("ン".to_string(), 2, "ﾝ"),
                ("x".to_string(), 3, "x"),
            ]
        );
    }

    #[test]
    fn runs_are_characters_and_pairs_in_the_index_and_pairs_in_a_query() {
        assert_eq!(
            terms("吉田 bag", Mode::Index),
            [
                ("吉".to_string(), 0, "吉"),
                ("吉田".to_string(), 0, "吉田"),
                ("田".to_string(), 1, "田"),
                ("bag".to_string(), 2, "bag"),
            ]
        );
        assert_eq!(
            terms("吉田 bag", Mode::Query),
            [
                ("吉田".to_string(), 0, "吉田"),
                ("bag".to_string(), 2, "bag")
            ]
        );
        assert_eq!(terms("吉", Mode::Query), [("吉".to_string(), 0, "吉")]);
        assert_eq!(
            terms("a 本 b", Mode::Query),
            [
                ("a".to_string(), 0, "a"),
                ("本".to_string(), 1, "本"),
                ("b".to_string(), 2, "b")
            ]
        );
    }

    #[test]
    fn a_run_goes_on_across_spaces_and_punctuation_not_across_words() {
        let joined = texts("ブラウニーリュック", Mode::Query);
        assert_eq!(texts("ブラウニー リュック", Mode::Query), joined);
        assert_eq!(texts("ブラウニー・リュック", Mode::Query), joined);
        assert_eq!(texts("ﾌﾞﾗｳﾆｰ　ﾘｭｯｸ", Mode::Query), joined);
        let spaced = terms("ブラウニー リュック", Mode::Index);
        assert!(
            spaced.contains(&("ーリ".to_string(), 4, "ー リ")),
            "{spaced:?}"
        );
        assert_eq!(texts("日本abc本語", Mode::Query), ["日本", "abc", "本語"]);
    }

    #[test]
    fn phrase_offsets_are_the_query_positions() {
        for text in [
            "リュック",
            "日本 abc 東京",
            "吉 x 田中",
            "x86_64 東京都",
            "a 本 b",
        ] {
            let found = query_terms(text);
            let (positions, terms): (Vec<usize>, Vec<String>) = found.into_iter().unzip();
            assert_eq!(phrase_offsets(&terms), positions, "{text}");
        }
    }

    #[test]
    fn overlong_words_are_dropped() {
        let long = "a".repeat(MAX_WORD_BYTES + 1);
        assert_eq!(
            texts(&format!("keep {long} this"), Mode::Index),
            ["keep", "this"]
        );
    }
}
