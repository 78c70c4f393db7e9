//! What a query's text says beyond tantivy's query language, read before tantivy parses it:
//! the `site:` and `url:` filters (taken out of the text: they restrict the pages, they are
//! not words to score), and the words that end in a wildcard (`owner*`) or a fuzzy distance
//! (`ownershp~1`).

use std::borrow::Cow;

/// Where the pages of a query must be: its `site:` and `url:` terms. A page passes when it is
/// on one of `sites` (or a subdomain of one) and under one of `urls`, each where given, and on
/// none of `not_sites` and under none of `not_urls`.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(super) struct Filters {
    /// Hosts, lower-cased (`docs.python.org`); a page of a subdomain passes too.
    pub(super) sites: Vec<String>,
    /// URL prefixes (`https://docs.python.org/3/library/`).
    pub(super) urls: Vec<String>,
    /// Hosts excluded (`-site:`).
    pub(super) not_sites: Vec<String>,
    /// URL prefixes excluded (`-url:`).
    pub(super) not_urls: Vec<String>,
}

impl Filters {
    /// Whether the query had no filter.
    pub(super) fn is_empty(&self) -> bool {
        self.sites.is_empty()
            && self.urls.is_empty()
            && self.not_sites.is_empty()
            && self.not_urls.is_empty()
    }
}

/// A query's text with its filters taken out.
#[derive(Debug)]
pub(super) struct Split<'a> {
    /// The text without its filters (the text itself when it has none).
    pub(super) rest: Cow<'a, str>,
    /// `rest` without its wildcard and fuzzy words: the words the title bonuses look for.
    pub(super) plain: Cow<'a, str>,
    /// The filters.
    pub(super) filters: Filters,
    /// Whether `rest` has a wildcard or fuzzy word.
    pub(super) special: bool,
}

/// A word that asks for more than its own text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Special {
    /// `owner*`: words starting with the stem.
    Prefix(String),
    /// `ownershp~1`: words within the distance (0 to 2 edits) of the stem.
    Fuzzy(String, u8),
}

/// Most edits a fuzzy word may ask for (what tantivy's Levenshtein automata support).
pub(super) const MAX_FUZZY_DISTANCE: u8 = 2;

/// A query the search refuses, and why, in words meant for the person who typed it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Refusal(pub(super) String);

/// `text` read: its filters taken out, and whether it has wildcard or fuzzy words.
pub(super) fn split(text: &str) -> Result<Split<'_>, Refusal> {
    let tokens = top_level_tokens(text);
    let mut filters = Filters::default();
    let mut removed = vec![false; tokens.len()];
    let mut negated = vec![false; tokens.len()];
    for (at, &(start, end)) in tokens.iter().enumerate() {
        let token = &text[start..end];
        let Some(filter) = filter_of(token)? else {
            if let Some(inner) = filter_inside_group(token) {
                return Err(Refusal(format!(
                    "{inner} filters the whole query: write it outside parentheses \
                     (site:a site:b means either site)"
                )));
            }
            continue;
        };
        removed[at] = true;
        // An operator before the filter goes with it (`NOT site:x` excludes x; `a AND site:x`,
        // `site:x OR site:y`: filters always restrict, and several of a kind mean any).
        let before = at.checked_sub(1).filter(|&before| !removed[before]);
        let word = |at: usize| &text[tokens[at].0..tokens[at].1];
        if let Some(before) = before.filter(|&before| is_operator(word(before))) {
            removed[before] = true;
            negated[at] = word(before) == "NOT";
        } else if let Some(after) = (at + 1 < tokens.len()).then_some(at + 1)
            && is_operator(word(after))
            && word(after) != "NOT"
        {
            removed[after] = true;
        }
        let negative = filter.negative != negated[at];
        let list = match (filter.kind, negative) {
            (FilterKind::Site, false) => &mut filters.sites,
            (FilterKind::Site, true) => &mut filters.not_sites,
            (FilterKind::Url, false) => &mut filters.urls,
            (FilterKind::Url, true) => &mut filters.not_urls,
        };
        list.extend(filter.values);
    }
    for list in [
        &mut filters.sites,
        &mut filters.urls,
        &mut filters.not_sites,
        &mut filters.not_urls,
    ] {
        list.sort();
        list.dedup();
    }
    let rest = without(
        text,
        tokens
            .iter()
            .zip(&removed)
            .filter(|(_, r)| **r)
            .map(|(t, _)| *t),
    );
    let mut special = false;
    let mut special_spans = Vec::new();
    for (start, end) in bare_words(&rest) {
        match special_word(&rest[start..end]) {
            Ok(None) => {}
            Ok(Some(_)) => {
                special = true;
                special_spans.push((start, end));
            }
            Err(refusal) => return Err(refusal),
        }
    }
    let plain = match &rest {
        Cow::Borrowed(rest) => without(rest, special_spans.into_iter()),
        Cow::Owned(rest) => Cow::Owned(without(rest, special_spans.into_iter()).into_owned()),
    };
    Ok(Split {
        rest,
        plain,
        filters,
        special,
    })
}

/// `text` without the byte ranges `spans` (in order), each replaced by a space; `text` itself
/// when there are none.
fn without(text: &str, spans: impl Iterator<Item = (usize, usize)>) -> Cow<'_, str> {
    let mut out = String::new();
    let mut from = 0;
    for (start, end) in spans {
        out.push_str(&text[from..start]);
        out.push(' ');
        from = end;
    }
    if from == 0 && out.is_empty() {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[from..]);
    Cow::Owned(out)
}

/// tantivy's operators between clauses.
fn is_operator(word: &str) -> bool {
    matches!(word, "AND" | "OR" | "NOT" | "&&" | "||")
}

/// The byte ranges of the query's top-level tokens: runs of text split at whitespace outside
/// quotes and parentheses (a phrase or a group in parentheses is one token, with whatever is
/// glued to it: `title:"a b"`, `-(a b)`).
fn top_level_tokens(text: &str) -> Vec<(usize, usize)> {
    let mut tokens = Vec::new();
    let mut start = None;
    let mut nesting = Nesting::default();
    let mut chars = text.char_indices();
    while let Some((at, c)) = chars.next() {
        if c.is_whitespace() && !nesting.quote && nesting.depth == 0 {
            if let Some(from) = start.take() {
                tokens.push((from, at));
            }
            continue;
        }
        start.get_or_insert(at);
        if nesting.read(c) {
            chars.next();
        }
    }
    if let Some(from) = start {
        tokens.push((from, text.len()));
    }
    tokens
}

/// The byte ranges of the query's bare words: runs of text outside quotes, split at
/// whitespace and parentheses (`title:owner*` and `-owner*` are words; a phrase is not).
fn bare_words(text: &str) -> Vec<(usize, usize)> {
    let mut words = Vec::new();
    let mut start = None;
    let mut quote = false;
    let mut chars = text.char_indices();
    while let Some((at, c)) = chars.next() {
        if quote {
            match c {
                '\\' => {
                    chars.next();
                }
                '"' => quote = false,
                _ => {}
            }
            continue;
        }
        match c {
            c if c.is_whitespace() || c == '(' || c == ')' || c == '"' => {
                if let Some(from) = start.take() {
                    words.push((from, at));
                }
                quote = c == '"';
            }
            '\\' => {
                start.get_or_insert(at);
                chars.next();
            }
            _ => {
                start.get_or_insert(at);
            }
        }
    }
    if let Some(from) = start {
        words.push((from, text.len()));
    }
    words
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum FilterKind {
    Site,
    Url,
}

/// One `site:` or `url:` token.
struct Filter {
    kind: FilterKind,
    negative: bool,
    /// What it matches: a host, or URL prefixes (a prefix without a scheme gives two, `http`
    /// and `https`).
    values: Vec<String>,
}

/// The filter `token` is, if it is one: `site:HOST` or `url:PREFIX`, with an optional `+` or
/// `-` before and the value optionally in double quotes.
fn filter_of(token: &str) -> Result<Option<Filter>, Refusal> {
    let (negative, body) = match token.as_bytes().first() {
        Some(b'-') => (true, &token[1..]),
        Some(b'+') => (false, &token[1..]),
        _ => (false, token),
    };
    let (kind, value) = if let Some(value) = body.strip_prefix("site:") {
        (FilterKind::Site, value)
    } else if let Some(value) = body.strip_prefix("url:") {
        (FilterKind::Url, value)
    } else {
        return Ok(None);
    };
    let value = value
        .strip_prefix('"')
        .and_then(|value| value.strip_suffix('"'))
        .unwrap_or(value)
        .trim();
    let values = match kind {
        FilterKind::Site => {
            let value = value.trim_start_matches("*.");
            if value.is_empty() {
                return Err(Refusal(
                    "site: needs a host right after it, without a space: site:docs.python.org"
                        .into(),
                ));
            }
            let url = if value.contains("://") {
                value.to_string()
            } else {
                format!("http://{value}")
            };
            let host = crate::read::site_of(&url);
            if host == "local" && !value.contains("local") {
                return Err(Refusal(format!(
                    "site:{value} names no host; give one as site:docs.python.org"
                )));
            }
            vec![host]
        }
        FilterKind::Url => {
            let value = value.trim_end_matches('*');
            if value.is_empty() {
                return Err(Refusal(
                    "url: needs the start of a URL right after it, without a space: \
                     url:https://docs.python.org/3/library/"
                        .into(),
                ));
            }
            if value.contains("://") {
                vec![value.to_string()]
            } else {
                vec![format!("http://{value}"), format!("https://{value}")]
            }
        }
    };
    Ok(Some(Filter {
        kind,
        negative,
        values,
    }))
}

/// A `site:` or `url:` that starts a word inside parentheses of `token`, outside quotes.
fn filter_inside_group(token: &str) -> Option<&'static str> {
    let mut nesting = Nesting::default();
    let mut previous = ' ';
    let mut chars = token.char_indices();
    while let Some((at, c)) = chars.next() {
        let starts_word = previous.is_whitespace() || matches!(previous, '(' | '+' | '-');
        if !matches!(c, '\\' | '"' | '(' | ')')
            && !nesting.quote
            && nesting.depth > 0
            && starts_word
        {
            for name in ["site:", "url:"] {
                if token[at..].starts_with(name) {
                    return Some(name);
                }
            }
        }
        if nesting.read(c) {
            chars.next();
        }
        previous = c;
    }
    None
}

/// Where a scan of query text stands: how deep inside parentheses, and whether inside quotes.
#[derive(Default)]
struct Nesting {
    depth: usize,
    quote: bool,
}

impl Nesting {
    /// Takes `c` into account; `true` when it is a backslash, which escapes the next
    /// character.
    fn read(&mut self, c: char) -> bool {
        match c {
            '\\' => return true,
            '"' => self.quote = !self.quote,
            '(' if !self.quote => self.depth += 1,
            ')' if !self.quote => self.depth = self.depth.saturating_sub(1),
            _ => {}
        }
        false
    }
}

/// What a bare word of the query asks for beyond its text: `Ok(None)` for a plain word. An
/// optional `+`/`-` before, a field (`title:`) and a boost after (`^2`) are allowed. A `*`
/// is a wildcard at the end of a word (`owner*`) and punctuation at its start (`*args`,
/// `**kwargs`, as Python writes them); a `*` inside a word, or a `*` at both ends, is refused.
/// `~N` at the end of a word asks for the words within N edits (0, 1 or 2; `~` alone: 2).
pub(super) fn special_word(word: &str) -> Result<Option<Special>, Refusal> {
    let word = word.strip_prefix(['+', '-']).unwrap_or(word);
    let word = match word.split_once(':') {
        Some((field, rest))
            if !field.is_empty()
                && field
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.') =>
        {
            rest
        }
        _ => word,
    };
    let word = match word.rsplit_once('^') {
        Some((head, boost)) if !head.is_empty() && boost.parse::<f64>().is_ok() => head,
        _ => word,
    };
    literal_special(word)
}

/// [`special_word`] of a literal's text as tantivy's grammar reads it (no field, no boost).
pub(super) fn literal_special(word: &str) -> Result<Option<Special>, Refusal> {
    if !word.contains(['*', '~']) {
        return Ok(None);
    }
    let core = word.trim_start_matches('*');
    let leading = core.len() < word.len();
    if core.is_empty() {
        return Ok(None);
    }
    if let Some(stem) = core.strip_suffix('*') {
        let stem = stem.trim_end_matches('*');
        if leading || stem.contains('*') {
            return Err(inner_wildcard(word));
        }
        if stem.contains('~') {
            return Err(Refusal(format!(
                "{word}: a word is either a wildcard (owner*) or fuzzy (ownershp~1), not both"
            )));
        }
        return Ok(Some(Special::Prefix(stem.to_string())));
    }
    if core.contains('*') {
        return Err(inner_wildcard(word));
    }
    let Some((stem, distance)) = core.rsplit_once('~') else {
        return Ok(None);
    };
    if stem.is_empty() || stem.contains('~') || !distance.chars().all(|c| c.is_ascii_digit()) {
        return Ok(None);
    }
    let distance = match distance {
        "" => MAX_FUZZY_DISTANCE,
        digits => match digits.parse::<u8>() {
            Ok(distance) if distance <= MAX_FUZZY_DISTANCE => distance,
            _ => {
                return Err(Refusal(format!(
                    "{word}: a fuzzy word allows 0, 1 or 2 edits ({stem}~1, {stem}~2)"
                )));
            }
        },
    };
    Ok(Some(Special::Fuzzy(stem.to_string(), distance)))
}

fn inner_wildcard(word: &str) -> Refusal {
    Refusal(format!(
        "{word}: a wildcard * stands at the end of a word (owner* finds owner, owners, \
         ownership); to search the text as it is, quote it: \"{word}\""
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn filters(text: &str) -> (String, Filters) {
        let split = split(text).unwrap();
        let rest: Vec<&str> = split.rest.split_whitespace().collect();
        (rest.join(" "), split.filters)
    }

    #[test]
    fn a_query_without_filters_or_special_words_is_left_as_it_is() {
        for text in [
            "ownership rules",
            "\"exact phrase\" -excluded title:word",
            "print() std::vec [1,2] https://docs.python.org/3/",
            "Understanding Ownership - The Rust Programming Language",
            "*args and **kwargs",
            "what is ownership?",
        ] {
            let split = split(text).unwrap();
            assert!(
                matches!(split.rest, Cow::Borrowed(rest) if rest == text),
                "{text}"
            );
            assert!(
                matches!(split.plain, Cow::Borrowed(plain) if plain == text),
                "{text}"
            );
            assert!(split.filters.is_empty() && !split.special, "{text}");
        }
    }

    #[test]
    fn site_and_url_terms_are_taken_out_as_filters() {
        let (rest, found) = filters("site:docs.python.org asyncio");
        assert_eq!(rest, "asyncio");
        assert_eq!(found.sites, ["docs.python.org"]);
        let (rest, found) = filters(
            "\"exact phrase\" -site:Docs.Scrapy.org url:https://docs.python.org/3/library/ x",
        );
        assert_eq!(rest, "\"exact phrase\" x");
        assert_eq!(found.not_sites, ["docs.scrapy.org"]);
        assert_eq!(found.urls, ["https://docs.python.org/3/library/"]);
        let (rest, found) = filters("site:a.org OR site:b.org loop");
        assert_eq!(rest, "loop");
        assert_eq!(found.sites, ["a.org", "b.org"]);
        let (rest, found) = filters("loop NOT site:a.org");
        assert_eq!(rest, "loop");
        assert_eq!(found.not_sites, ["a.org"]);
        let (_, found) = filters("site:https://docs.python.org/3/ url:docs.python.org/3/");
        assert_eq!(found.sites, ["docs.python.org"]);
        assert_eq!(
            found.urls,
            ["http://docs.python.org/3/", "https://docs.python.org/3/"]
        );
        assert_eq!(filters("\"site:a.org\" b").0, "\"site:a.org\" b");
    }

    #[test]
    fn filters_without_a_value_or_inside_parentheses_are_refused() {
        assert!(split("site: asyncio").unwrap_err().0.contains("site:docs"));
        assert!(split("url: x").unwrap_err().0.contains("url:https"));
        assert!(
            split("(site:a.org OR x) y")
                .unwrap_err()
                .0
                .contains("outside parentheses")
        );
    }

    #[test]
    fn wildcards_and_fuzzy_words_are_found_and_odd_ones_refused() {
        let special = |word| literal_special(word).unwrap();
        assert_eq!(special("owner*"), Some(Special::Prefix("owner".into())));
        assert_eq!(special("owner**"), Some(Special::Prefix("owner".into())));
        assert_eq!(
            special("ownershp~1"),
            Some(Special::Fuzzy("ownershp".into(), 1))
        );
        assert_eq!(
            special("ownershp~"),
            Some(Special::Fuzzy("ownershp".into(), 2))
        );
        for plain in ["owner", "*args", "**kwargs", "*", "~/.bashrc", "a~b", "~2"] {
            assert_eq!(special(plain), None, "{plain}");
        }
        for refused in ["own*ship", "*owner*", "2*3", "ownershp~3", "a~1*"] {
            assert!(literal_special(refused).is_err(), "{refused}");
        }
        assert_eq!(
            special_word("+title:owner*^2").unwrap(),
            Some(Special::Prefix("owner".into()))
        );
        let split = split("rust (owner* OR borrow) \"a*b\"").unwrap();
        assert!(split.special);
        assert_eq!(
            crate::analyze::words(&split.plain),
            ["rust", "or", "borrow", "a", "b"]
        );
    }
}
