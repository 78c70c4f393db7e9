//! The one word analyzer shared by segmentation (words for template detection) and the index
//! (tokens for search), so that a word the detector judged is the word the index stores.
//!
//! Text in, words out: runs of letters and digits, lower-cased. Scripts written without
//! spaces between words (Han, Hiragana, Katakana, Thai, Lao, Khmer, Myanmar) yield
//! overlapping character bigrams, so template detection and search still work on them.

use tantivy::tokenizer::{Token, TokenStream, Tokenizer};

/// Words longer than this many bytes are dropped (base64 blobs, minified junk).
pub const MAX_WORD_BYTES: usize = 64;

/// Name under which [`WebTokenizer`] is registered in the index.
pub const TOKENIZER_NAME: &str = "web";

/// Calls `emit(word, byte_start, byte_end)` for every word of `text`, in order.
///
/// `word` is lower-cased and valid only during the call.
pub fn for_each_word(text: &str, mut emit: impl FnMut(&str, usize, usize)) {
    let mut word = String::new();
    let mut word_start = 0;
    // The previous character of the current unspaced run, and whether the run made a bigram.
    let mut unspaced: Option<(char, usize)> = None;
    let mut bigram_made = false;

    for (at, c) in text.char_indices() {
        if is_unspaced_script(c) {
            flush_word(&mut word, word_start, at, &mut emit);
            if let Some((previous, previous_at)) = unspaced {
                word.push(previous);
                word.push(c);
                emit(&word, previous_at, at + c.len_utf8());
                word.clear();
                bigram_made = true;
            }
            unspaced = Some((c, at));
            continue;
        }
        flush_unspaced_run(&mut unspaced, &mut bigram_made, &mut emit);
        if c.is_ascii() {
            if c.is_ascii_alphanumeric() {
                if word.is_empty() {
                    word_start = at;
                }
                word.push(c.to_ascii_lowercase());
            } else {
                flush_word(&mut word, word_start, at, &mut emit);
            }
        } else if c.is_alphanumeric() {
            if word.is_empty() {
                word_start = at;
            }
            word.extend(c.to_lowercase());
        } else {
            flush_word(&mut word, word_start, at, &mut emit);
        }
    }
    flush_unspaced_run(&mut unspaced, &mut bigram_made, &mut emit);
    flush_word(&mut word, word_start, text.len(), &mut emit);
}

/// Ends a run of an unspaced script: a run of one character is a word of its own.
fn flush_unspaced_run(
    unspaced: &mut Option<(char, usize)>,
    bigram_made: &mut bool,
    emit: &mut impl FnMut(&str, usize, usize),
) {
    if let Some((c, at)) = unspaced.take()
        && !*bigram_made
    {
        let mut buffer = [0u8; 4];
        emit(c.encode_utf8(&mut buffer), at, at + c.len_utf8());
    }
    *bigram_made = false;
}

fn flush_word(
    word: &mut String,
    start: usize,
    end: usize,
    emit: &mut impl FnMut(&str, usize, usize),
) {
    if !word.is_empty() {
        if word.len() <= MAX_WORD_BYTES {
            emit(word, start, end);
        }
        word.clear();
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

/// The [`for_each_word`] analyzer as a tantivy tokenizer.
#[derive(Clone, Default)]
pub struct WebTokenizer;

/// Tokens of one text, produced eagerly by [`for_each_word`].
pub struct WebTokenStream {
    tokens: Vec<Token>,
    next: usize,
}

impl Tokenizer for WebTokenizer {
    type TokenStream<'a> = WebTokenStream;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> WebTokenStream {
        let mut tokens = Vec::new();
        for_each_word(text, |word, from, to| {
            tokens.push(Token {
                offset_from: from,
                offset_to: to,
                position: tokens.len(),
                text: word.to_string(),
                position_length: 1,
            });
        });
        WebTokenStream { tokens, next: 0 }
    }
}

impl TokenStream for WebTokenStream {
    fn advance(&mut self) -> bool {
        if self.next < self.tokens.len() {
            self.next += 1;
            true
        } else {
            false
        }
    }

    fn token(&self) -> &Token {
        &self.tokens[self.next - 1]
    }

    fn token_mut(&mut self) -> &mut Token {
        &mut self.tokens[self.next - 1]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
            ["hello", "world", "x86", "64", "ünïcode"]
        );
    }

    #[test]
    fn unspaced_scripts_yield_bigrams_and_single_characters() {
        assert_eq!(words("東京都"), ["東京", "京都"]);
        assert_eq!(words("本"), ["本"]);
        assert_eq!(words("ABC日本語def"), ["abc", "日本", "本語", "def"]);
        assert_eq!(words("ภาษาไทย")[0], "ภา");
    }

    #[test]
    fn overlong_words_are_dropped() {
        let long = "a".repeat(MAX_WORD_BYTES + 1);
        assert_eq!(words(&format!("keep {long} this")), ["keep", "this"]);
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
