//! Headings that open a section of reader comments — "12 Comments", "3 thoughts on “…”",
//! "Leave a Reply", "Kommentare (4)" — told by their words alone: one heading's text in, yes or
//! no out; and blocks that only name such a section ("Comments»"), which open it when a
//! thread's shape follows ([`names_comments`]). Many blogs mark their threads with no class
//! name that says comments ([`crate::segment::evidence::names_reader_comments`] misses them),
//! but title them so.
//!
//! A heading that only names comments or responses does not count — `Comments` is also a
//! section of a template language's reference, `Responses` of an API's —: a count ("Comments
//! (12)"), the readers ("Reader comments") or a phrase that asks for a comment is needed.

/// Words of a comments heading after a count ("12 comments", "one response").
const COUNTED: &[&str] = &[
    "comment",
    "comments",
    "response",
    "responses",
    "reply",
    "replies",
    "thought",
    "thoughts",
    "kommentar",
    "kommentare",
    "kommentarer",
    "commentaire",
    "commentaires",
    "comentario",
    "comentarios",
    "commento",
    "commenti",
    "reactie",
    "reacties",
    "komentarz",
    "komentarze",
    "комментарий",
    "комментария",
    "комментариев",
    "комментарии",
];

/// Headings that are these words alone, or with a count after them.
const READERS: &[&[&str]] = &[
    &["reader", "comments"],
    &["user", "comments"],
    &["readers", "comments"],
    &["reader", "responses"],
];

/// Headings that are these words with a count after them ("Comments (12)").
const WITH_COUNT: &[&[&str]] = &[
    &["comments"],
    &["responses"],
    &["replies"],
    &["kommentare"],
    &["kommentarer"],
    &["commentaires"],
    &["comentarios"],
    &["commenti"],
    &["reacties"],
    &["komentarze"],
    &["комментарии"],
    &["评论"],
    &["評論"],
    &["コメント"],
    &["댓글"],
];

/// Phrases a comments heading starts with.
const OPENING: &[&[&str]] = &[
    &["leave", "a", "reply"],
    &["leave", "a", "comment"],
    &["post", "a", "comment"],
    &["add", "a", "comment"],
    &["add", "your", "comment"],
    &["join", "the", "discussion"],
    &["join", "the", "conversation"],
    &["have", "your", "say"],
    &["laisser", "un", "commentaire"],
    &["deja", "un", "comentario"],
    &["schreibe", "einen", "kommentar"],
    &["lascia", "un", "commento"],
];

/// The longest bare name of comments with what may surround it, in bytes.
const MAX_NAME_BYTES: usize = 40;

/// Count words that may stand for a number before [`COUNTED`] words.
const COUNT_WORDS: &[&str] = &[
    "no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
];

/// The most words a comments heading has ("12 Responses to “A title of some length”" is cut
/// by this, and a paragraph that happens to start so is not a heading).
pub const MAX_WORDS: usize = 12;

/// Whether `text`, a heading's text, opens a section of reader comments.
pub fn opens_comments(text: &str) -> bool {
    let lowered = text.to_lowercase();
    // "5. Comments", "4.2 Responses": a numbered section of a document, not a count.
    let numbered_section = lowered.split_whitespace().next().is_some_and(|first| {
        first.contains('.') && first.starts_with(|c: char| c.is_ascii_digit())
    });
    let words: Vec<&str> = words(&lowered).collect();
    if numbered_section || words.is_empty() || words.len() > MAX_WORDS {
        return false;
    }
    let is_number = |word: &str| word.chars().all(|c| c.is_ascii_digit());
    if words.len() >= 2
        && (is_number(words[0]) || COUNT_WORDS.contains(&words[0]))
        && COUNTED.contains(&words[1])
    {
        return true;
    }
    // The phrase, then nothing or a count (`count_needed`: then a count).
    let phrase_then_count = |phrases: &[&[&str]], count_needed: bool| {
        phrases
            .iter()
            .any(|phrase| match words.strip_prefix(*phrase) {
                Some([]) => !count_needed,
                Some([count]) => is_number(count),
                _ => false,
            })
    };
    phrase_then_count(READERS, false)
        || phrase_then_count(WITH_COUNT, true)
        || OPENING.iter().any(|phrase| words.starts_with(phrase))
}

/// Whether `text`, a block's whole text, only names a section of reader comments: the words of
/// [`READERS`] or [`WITH_COUNT`] without a count ("Comments", "Responses»", "Reader comments").
/// Too common in documentation to open comments alone, such a name does when a thread follows
/// ([`super::comment_thread`]). Not "Comment" (a link under every post of a listing) nor
/// "Discussion" (a section of every paper).
pub fn names_comments(text: &str) -> bool {
    if text.len() > MAX_NAME_BYTES {
        return false;
    }
    let lowered = text.to_lowercase();
    let words: Vec<&str> = words(&lowered).collect();
    READERS.contains(&words.as_slice()) || WITH_COUNT.contains(&words.as_slice())
}

/// The words of `text`: its runs of letters and digits.
pub fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_plurals_and_invitations_open_comments() {
        for heading in [
            "12 Comments",
            "One Response to “Why the sky is blue”",
            "3 thoughts on \"A post\"",
            "Comments (12)",
            "Reader comments",
            "Reader comments 191",
            "COMMENTS: 4",
            "Leave a Reply",
            "Leave a Reply Cancel reply",
            "Post a Comment",
            "Join the discussion",
            "Kommentare (4)",
            "4 Kommentare",
            "Laisser un commentaire",
            "评论 (3)",
            "No comments",
        ] {
            assert!(opens_comments(heading), "{heading}");
        }
    }

    #[test]
    fn a_singular_name_or_a_sentence_does_not() {
        for heading in [
            "Comment",
            "Comments",
            "Comments¶",
            "Response",
            "Responses",
            "Comments and docstrings",
            "2.1.3. Comments in source code",
            "Responses from the server",
            "How comments are stored",
            "COMMENT",
            "5. Comments",
            "3. Responses",
            "4.2 Comments",
            "What do you think of the new API?",
            "",
            "Leave",
            "Comments are closed for this post because it is older than thirty days, sorry",
        ] {
            assert!(!opens_comments(heading), "{heading}");
        }
    }

    #[test]
    fn a_bare_name_names_comments_and_nothing_longer_does() {
        for name in [
            "Comments",
            "Comments»",
            "COMMENTS:",
            "Responses",
            "Reader Comments",
            "评论",
        ] {
            assert!(names_comments(name), "{name}");
        }
        for text in [
            "Comments and docstrings",
            "Recent Comments",
            "Comment",
            "Discussion",
            "12 Comments",
            "Comments are closed.",
            "",
        ] {
            assert!(!names_comments(text), "{text}");
        }
    }
}
