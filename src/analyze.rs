//! The word analyzer of segmentation (words for template detection), and through [`terms`]
//! the search analyzer of the index and queries built on it.
//!
//! Text in, words out: runs of letters and digits, lower-cased, accents folded (`Résumé` is
//! `resume`, `Straße` is `strasse`: tantivy's port of Lucene's ASCII folding table, so a
//! query typed without accents finds the accented word and the other way round; letters
//! with no ASCII form stay as they are). Scripts written without
//! spaces between words (Han, Hiragana, Katakana, Thai, Lao, Khmer, Myanmar) yield
//! overlapping character bigrams, so template detection works on them.
//!
//! Segmentation's words ([`for_each_word`], [`Words`]) stay as the detectors and the `hybrid`
//! models were made with. The index and queries use [`terms`]: the same words read in NFKC
//! form, and runs of unspaced scripts as characters and pairs (`cjk_bigram`), registered as
//! [`TOKENIZER_NAME`]. An index built before that used these words as its tokens
//! ([`LEGACY_TOKENIZER_NAME`], [`WebTokenizer`]) and is still searched with them
//! ([`Analyzer::Legacy`]).

pub mod language;
pub mod terms;

use std::sync::OnceLock;

use tantivy::tokenizer::{
    AsciiFoldingFilter, RawTokenizer, Token, TokenFilter, TokenStream, Tokenizer, TokenizerManager,
};

pub use terms::{
    FieldTerms, Mode, SearchTokenizer, TermKind, TermSpan, for_each_term, phrase_offsets,
};

/// Words longer than this many bytes are dropped (base64 blobs, minified junk).
pub const MAX_WORD_BYTES: usize = 64;

/// Name under which the search analyzer ([`SearchTokenizer`]) is registered for the title
/// and body of a new index: words and pairs ([`FieldTerms::WordsAndPairs`]). It carries a
/// version, so that an index of other tokens is told apart.
pub const TOKENIZER_NAME: &str = "web-v3";

/// Name of the search analyzer of the field of characters of a new index
/// ([`FieldTerms::Chars`]).
pub const CHARS_TOKENIZER_NAME: &str = "web-v3-chars";

/// Name of the search analyzer of indexes built before the characters of runs had a field of
/// their own: every term in the title and body ([`FieldTerms::All`]).
pub const UNSPLIT_TOKENIZER_NAME: &str = "web-v2";

/// Name of the analyzer of indexes built before [`TOKENIZER_NAME`]: segmentation's words
/// ([`WebTokenizer`]).
pub const LEGACY_TOKENIZER_NAME: &str = "web";

/// Registers the analyzers an index may name, as an index uses them (to index text and to
/// cut stored text into terms again).
pub fn register_tokenizers(manager: &TokenizerManager) {
    register_search_tokenizers(manager, Mode::Index);
    manager.register(LEGACY_TOKENIZER_NAME, WebTokenizer);
}

/// Registers the search analyzer under each of its names, making terms for `mode`.
fn register_search_tokenizers(manager: &TokenizerManager, mode: Mode) {
    for (name, field) in [
        (TOKENIZER_NAME, FieldTerms::WordsAndPairs),
        (CHARS_TOKENIZER_NAME, FieldTerms::Chars),
        (UNSPLIT_TOKENIZER_NAME, FieldTerms::All),
    ] {
        manager.register(name, SearchTokenizer::for_field(mode, field));
    }
}

/// tantivy's tokenizers with the analyzers an index may name as a query uses them: what a
/// query parser needs.
pub fn query_tokenizers() -> TokenizerManager {
    static QUERY: OnceLock<TokenizerManager> = OnceLock::new();
    QUERY
        .get_or_init(|| {
            let manager = TokenizerManager::default();
            register_search_tokenizers(&manager, Mode::Query);
            manager.register(LEGACY_TOKENIZER_NAME, WebTokenizer);
            manager
        })
        .clone()
}

/// Which analyzer an index's text fields were built with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Analyzer {
    /// [`LEGACY_TOKENIZER_NAME`]: segmentation's words.
    Legacy,
    /// [`TOKENIZER_NAME`] (or [`UNSPLIT_TOKENIZER_NAME`]): the search analyzer of [`terms`].
    Current,
}

impl Analyzer {
    /// The analyzer registered as `name`.
    pub fn named(name: &str) -> Analyzer {
        if name == LEGACY_TOKENIZER_NAME {
            Analyzer::Legacy
        } else {
            Analyzer::Current
        }
    }

    /// The terms of a query's text, with their positions.
    pub fn query_terms(self, text: &str) -> Vec<(usize, String)> {
        match self {
            Analyzer::Legacy => words(text).into_iter().enumerate().collect(),
            Analyzer::Current => terms::query_terms(text),
        }
    }

    /// A query's text as plain words, for when it does not parse as query syntax: every
    /// character that is not part of a word a space, and the rest lower-cased (so that no
    /// `AND` or `OR` is left), keeping a run of an unspaced script whole.
    pub fn plain_words(self, text: &str) -> String {
        match self {
            Analyzer::Legacy => words(text).join(" "),
            Analyzer::Current => {
                let mut plain = String::with_capacity(text.len());
                for c in text.chars() {
                    if c.is_alphanumeric() || unicode_normalization::char::is_combining_mark(c) {
                        plain.extend(c.to_lowercase());
                    } else {
                        plain.push(' ');
                    }
                }
                plain
            }
        }
    }
}

/// Calls `emit(word, byte_start, byte_end)` for every word of `text`, in order.
///
/// `word` is lower-cased and valid only during the call.
pub fn for_each_word(text: &str, mut emit: impl FnMut(&str, usize, usize)) {
    let mut words = Words::new(text);
    let mut word = String::new();
    while let Some((start, end)) = words.next_into(&mut word) {
        emit(&word, start, end);
    }
}

/// The words of `text`, lower-cased, as [`for_each_word`] finds them.
pub fn words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    for_each_word(text, |word, _, _| words.push(word.to_string()));
    words
}

/// Separators between a title and the site name or section around it (" -- " is the ASCII
/// stand-in for a dash, as in "Erlang -- xmerl").
pub const TITLE_SEPARATORS: [&str; 9] = [
    " — ", " – ", " -- ", " - ", " | ", " :: ", " » ", " · ", " • ",
];

/// `title` cut at every [`TITLE_SEPARATORS`] occurrence, and each part's closing
/// parenthesis group cut off as a part of its own: "ThreadUtils (Apache Commons Lang 3.12.0
/// API)" has "ThreadUtils" and "Apache Commons Lang 3.12.0 API", as a site name or a
/// qualifier in parentheses ("Python (programming language)") follows what the page is
/// about.
pub fn title_parts(title: &str) -> Vec<&str> {
    let mut parts = vec![title];
    for separator in TITLE_SEPARATORS {
        parts = parts
            .into_iter()
            .flat_map(|part| part.split(separator))
            .collect();
    }
    parts
        .into_iter()
        .flat_map(|part| match closing_parenthesis_group(part) {
            Some((head, inside)) => [Some(head), Some(inside)],
            None => [Some(part), None],
        })
        .flatten()
        .collect()
}

/// `part` as what comes before its closing parenthesis group and what is inside it, when it
/// ends with one that follows a space and some text: "Variables (GNU Octave (version
/// 7.3.0))" → ("Variables", "GNU Octave (version 7.3.0)"); "print()" and "(1984)" → `None`.
fn closing_parenthesis_group(part: &str) -> Option<(&str, &str)> {
    let trimmed = part.trim_end();
    let before_close = trimmed.strip_suffix(')')?;
    let mut depth = 1usize;
    for (at, character) in before_close.char_indices().rev() {
        match character {
            ')' => depth += 1,
            '(' => {
                depth -= 1;
                if depth == 0 {
                    let head = &before_close[..at];
                    let spaced = head.ends_with(char::is_whitespace);
                    let head = head.trim();
                    return (spaced && !head.is_empty()).then_some((head, &before_close[at + 1..]));
                }
            }
            _ => {}
        }
    }
    None
}

/// A title part longer than this (in bytes of its joined words) is not a key: nobody types
/// it as a query.
pub const MAX_TITLE_PART_BYTES: usize = 1024;

/// The words of `text`, joined by single spaces: the form in which a whole title part and a
/// whole query were compared in an index of the legacy analyzer ([`joined_terms`] in a new
/// one), and in which `eval` writes its queries.
pub fn joined_words(text: &str) -> String {
    let mut joined = String::with_capacity(text.len());
    for_each_word(text, |word, _, _| {
        if !joined.is_empty() {
            joined.push(' ');
        }
        joined.push_str(word);
    });
    joined
}

/// The terms a query asks for in `text` ([`terms::query_terms`]) joined by single spaces:
/// the form in which a whole title part and a whole query are compared in an index of
/// [`TOKENIZER_NAME`]. "ﾘｭｯｸ 2" is "リュ ュッ ック 2".
pub fn joined_terms(text: &str) -> String {
    let mut joined = String::with_capacity(text.len());
    for_each_term(text, Mode::Query, |term, _| {
        if !joined.is_empty() {
            joined.push(' ');
        }
        joined.push_str(term);
    });
    joined
}

/// The distinct parts of `title` ([`title_parts`]) as [`joined_terms`], sorted; parts
/// without words or over [`MAX_TITLE_PART_BYTES`] left out. "Spiders — Scrapy 2.8
/// documentation" has "scrapy 2 8 documentation" and "spiders".
pub fn title_part_keys(title: &str) -> Vec<String> {
    let mut keys: Vec<String> = title_parts(title)
        .into_iter()
        .map(joined_terms)
        .filter(|key| !key.is_empty() && key.len() <= MAX_TITLE_PART_BYTES)
        .collect();
    keys.sort_unstable();
    keys.dedup();
    keys
}

/// A cursor over the words of a text, writing each lower-cased word into a caller's buffer.
pub struct Words<'a> {
    text: &'a str,
    at: usize,
    /// The previous character of the current unspaced run, and where it starts.
    unspaced: Option<(char, usize)>,
    /// Whether the current unspaced run has produced a bigram yet.
    bigram_made: bool,
    folder: Folder,
}

impl<'a> Words<'a> {
    /// A cursor at the start of `text`.
    pub fn new(text: &'a str) -> Self {
        Words {
            text,
            at: 0,
            unspaced: None,
            bigram_made: false,
            folder: Folder::default(),
        }
    }

    /// Writes the next word into `word` and returns its byte range in the text.
    pub fn next_into(&mut self, word: &mut String) -> Option<(usize, usize)> {
        loop {
            word.clear();
            if self.unspaced.is_none() {
                // ASCII between words: nothing ends, nothing starts.
                let bytes = self.text.as_bytes();
                while bytes
                    .get(self.at)
                    .is_some_and(|b| b.is_ascii() && !b.is_ascii_alphanumeric())
                {
                    self.at += 1;
                }
                // A word of ASCII letters and digits that ends at ASCII (or the text's end)
                // is itself, lower-cased.
                let at = self.at;
                let letters = ascii_letters_and_digits(&bytes[at..]);
                if letters > 0 && bytes.get(at + letters).is_none_or(u8::is_ascii) {
                    self.at += letters;
                    if letters <= MAX_WORD_BYTES {
                        word.push_str(&self.text[at..self.at]);
                        word.make_ascii_lowercase();
                        return Some((at, self.at));
                    }
                    continue;
                }
            }
            let rest = &self.text[self.at..];
            let Some(c) = rest.chars().next() else {
                return self.end_unspaced_run(word);
            };
            let at = self.at;
            if is_unspaced_script(c) {
                self.at += c.len_utf8();
                match self.unspaced.replace((c, at)) {
                    Some((previous, previous_at)) => {
                        self.bigram_made = true;
                        word.push(previous);
                        word.push(c);
                        return Some((previous_at, self.at));
                    }
                    None => self.bigram_made = false,
                }
                continue;
            }
            if let Some(range) = self.end_unspaced_run(word) {
                return Some(range);
            }
            if !c.is_alphanumeric() {
                self.at += c.len_utf8();
                continue;
            }
            let mut offset = 0;
            loop {
                let letters = ascii_letters_and_digits(&rest.as_bytes()[offset..]);
                let start = word.len();
                word.push_str(&rest[offset..offset + letters]);
                word[start..].make_ascii_lowercase();
                offset += letters;
                match rest[offset..].chars().next() {
                    Some(c) if !c.is_ascii() && c.is_alphanumeric() && !is_unspaced_script(c) => {
                        word.extend(c.to_lowercase());
                        offset += c.len_utf8();
                    }
                    _ => break,
                }
            }
            let end = at + offset;
            self.at = end;
            if !word.is_ascii() {
                self.folder.fold(word);
            }
            if word.len() <= MAX_WORD_BYTES {
                return Some((at, end));
            }
        }
    }

    /// Ends a run of an unspaced script: a run of one character is a word of its own.
    fn end_unspaced_run(&mut self, word: &mut String) -> Option<(usize, usize)> {
        let (c, at) = self.unspaced.take()?;
        if std::mem::take(&mut self.bigram_made) {
            return None;
        }
        word.push(c);
        Some((at, at + c.len_utf8()))
    }
}

/// How many bytes `bytes` starts with that are ASCII letters or digits.
fn ascii_letters_and_digits(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric())
        .count()
}

/// Accent folding, its buffers kept from one word to the next.
#[derive(Default)]
struct Folder {
    /// Made at the first word that needs it (most texts have none).
    folding: Option<<AsciiFoldingFilter as TokenFilter>::Tokenizer<RawTokenizer>>,
    folded: String,
}

impl Folder {
    /// Replaces the letters of `word` that have an ASCII form by it (`é` → `e`, `ß` → `ss`,
    /// `ﬁ` → `fi`), lower-cased; other letters stay.
    fn fold(&mut self, word: &mut String) {
        let folding = self
            .folding
            .get_or_insert_with(|| AsciiFoldingFilter.transform(RawTokenizer::default()));
        let mut stream = folding.token_stream(word);
        if stream.advance() {
            self.folded.clear();
            self.folded
                .extend(stream.token().text.chars().flat_map(char::to_lowercase));
            std::mem::swap(word, &mut self.folded);
        }
    }
}

/// Characters of scripts that do not separate words with spaces.
pub fn is_unspaced_script(c: char) -> bool {
    matches!(c as u32,
        0x0E00..=0x0EFF     // Thai, Lao
        | 0x1000..=0x109F   // Myanmar
        | 0x1780..=0x17FF   // Khmer
        | 0x3040..=0x30FF   // Hiragana, Katakana
        | 0x3400..=0x4DBF   // CJK extension A
        | 0x4E00..=0x9FFF   // CJK unified ideographs
        | 0xF900..=0xFAFF   // CJK compatibility ideographs
        | 0xFF66..=0xFF9F   // half-width Katakana
        | 0x20000..=0x2FA1F // CJK extensions B–F
    )
}

/// The [`for_each_word`] analyzer as a tantivy tokenizer: the tokens of indexes built before
/// [`TOKENIZER_NAME`] ([`LEGACY_TOKENIZER_NAME`]).
#[derive(Clone, Default)]
pub struct WebTokenizer;

/// Tokens of one text, produced one at a time into a reused [`Token`].
pub struct WebTokenStream<'a> {
    words: Words<'a>,
    token: Token,
}

impl Tokenizer for WebTokenizer {
    type TokenStream<'a> = WebTokenStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> WebTokenStream<'a> {
        WebTokenStream {
            words: Words::new(text),
            token: Token::default(),
        }
    }
}

impl TokenStream for WebTokenStream<'_> {
    fn advance(&mut self) -> bool {
        match self.words.next_into(&mut self.token.text) {
            Some((from, to)) => {
                self.token.offset_from = from;
                self.token.offset_to = to;
                self.token.position = self.token.position.wrapping_add(1);
                true
            }
            None => false,
        }
    }

    fn token(&self) -> &Token {
        &self.token
    }

    fn token_mut(&mut self) -> &mut Token {
        &mut self.token
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn title_part_keys_are_the_distinct_parts_as_words() {
        assert_eq!(
            title_part_keys("Spiders — Scrapy 2.8 documentation"),
            ["scrapy 2 8 documentation", "spiders"]
        );
        assert_eq!(title_part_keys("Home | Home | ---"), ["home"]);
        assert_eq!(
            title_part_keys("Variables (GNU Octave (version 7.3.0))"),
            ["gnu octave version 7 3 0", "variables"]
        );
        assert_eq!(title_part_keys("Erlang -- xmerl"), ["erlang", "xmerl"]);
        assert_eq!(title_part_keys("print() · Builtins"), ["builtins", "print"]);
        assert_eq!(title_part_keys("Mail • Example"), ["example", "mail"]);
        assert_eq!(title_part_keys("ﾘｭｯｸ — Shop"), ["shop", "リュ ュッ ック"]);
        assert!(title_part_keys("").is_empty());
        let long = "word ".repeat(MAX_TITLE_PART_BYTES);
        assert_eq!(title_part_keys(&format!("{long} | Site")), ["site"]);
    }

    #[test]
    fn only_a_closing_parenthesis_group_after_a_space_and_some_text_is_cut_off() {
        assert_eq!(title_parts("Film (1984)"), ["Film", "1984"]);
        assert_eq!(title_parts("A (B) (C)"), ["A (B)", "C"]);
        assert_eq!(title_parts("(1984)"), ["(1984)"]);
        assert_eq!(title_parts("  (1984)"), ["  (1984)"]);
        assert_eq!(title_parts("f(x)"), ["f(x)"]);
        assert_eq!(title_parts("a b)"), ["a b)"]);
        assert_eq!(title_parts("a (b"), ["a (b"]);
        assert_eq!(title_parts("Ünïcode (café) "), ["Ünïcode", "café"]);
    }

    fn words(text: &str) -> Vec<String> {
        let mut out = Vec::new();
        for_each_word(text, |w, from, to| {
            assert!(text.is_char_boundary(from) && text.is_char_boundary(to));
            out.push(w.to_string());
        });
        out
    }

    #[test]
    fn spaced_scripts_split_on_non_alphanumerics_and_lowercase() {
        assert_eq!(
            words("Hello, World! x86_64 Ünïcode"),
            ["hello", "world", "x86", "64", "unicode"]
        );
    }

    #[test]
    fn accents_fold_and_letters_without_an_ascii_form_stay() {
        assert_eq!(
            words("Résumé NAÏVE Straße ﬁle"),
            ["resume", "naive", "strasse", "file"]
        );
        assert_eq!(words("Ελληνικά кириллица"), ["ελληνικά", "кириллица"]);
        assert_eq!(words("Ｒｕｓｔ"), ["rust"]);
    }

    #[test]
    fn unspaced_scripts_yield_bigrams_and_single_characters() {
        assert_eq!(words("東京都"), ["東京", "京都"]);
        assert_eq!(words("本"), ["本"]);
        assert_eq!(words("本 abc 日、東京"), ["本", "abc", "日", "東京"]);
        assert_eq!(words("ABC日本語def"), ["abc", "日本", "本語", "def"]);
        assert_eq!(words("ภาษาไทย")[0], "ภา");
    }

    #[test]
    fn words_of_ascii_and_other_letters_mixed_have_their_byte_ranges() {
        let mut seen = Vec::new();
        for_each_word(
            "Café au LAIT, naïveté 日本abc x本 !?",
            |word, start, end| {
                seen.push((word.to_string(), start, end));
            },
        );
        let expected = [
            ("cafe", 0, 5),
            ("au", 6, 8),
            ("lait", 9, 13),
            ("naivete", 15, 24),
            ("日本", 25, 31),
            ("abc", 31, 34),
            ("x", 35, 36),
            ("本", 36, 39),
        ];
        let expected: Vec<(String, usize, usize)> = expected
            .iter()
            .map(|&(word, start, end)| (word.to_string(), start, end))
            .collect();
        assert_eq!(seen, expected);
    }

    #[test]
    fn overlong_words_are_dropped() {
        let long = "a".repeat(MAX_WORD_BYTES + 1);
        assert_eq!(words(&format!("keep {long} this")), ["keep", "this"]);
        let longest = "b".repeat(MAX_WORD_BYTES);
        assert_eq!(words(&format!("{long}é {longest}")), [longest]);
    }

    #[test]
    fn tokenizer_positions_and_offsets() {
        let mut tokenizer = WebTokenizer;
        let mut stream = tokenizer.token_stream("Rust 東京");
        let mut seen = Vec::new();
        while let Some(token) = stream.next() {
            seen.push((
                token.text.clone(),
                token.position,
                token.offset_from,
                token.offset_to,
            ));
        }
        assert_eq!(seen, [("rust".into(), 0, 0, 4), ("東京".into(), 1, 5, 11)]);
    }
}
