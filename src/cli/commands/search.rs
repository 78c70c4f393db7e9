//! `indexer search`: an index (and more with `--index`) and a query in, ranked hits with
//! snippets out (text or JSON). The query's words are moved behind a `--` before parsing
//! ([`with_search_words_last`]), so query syntax that starts with a hyphen is read as the query.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use anyhow::Result;
use clap::{Args, ValueEnum};

use crate::cli::open_indexes;
use crate::cli::print::{mark, printable};
use indexer::search::SearchError;

/// `search`'s flags.
#[derive(Args)]
pub struct SearchArgs {
    /// The index directory (a folder holding an index's CURRENT file).
    #[arg(value_name = "INDEX")]
    index: PathBuf,
    /// The query (no quotes needed): words (pages with any of them), "a phrase", +required,
    /// -excluded, title:word, owner* (words starting owner: owner, owners, ownership),
    /// ownershp~1 (words one edit away; ~2: two). site:docs.python.org filters the pages:
    /// the rest of the query is searched among that site's pages (its subdomains too;
    /// several site: terms, any of those sites), and site:docs.python.org alone lists them;
    /// url:https://docs.python.org/3/library/ keeps the pages whose URL starts so (without
    /// a scheme: http and https); -site: and -url: leave pages out. A query that is not
    /// valid syntax (print(), std::vec, a URL) is searched as its plain words, and stderr
    /// says so; a query asking what search cannot do (own*ship, word~3) is refused, with
    /// why. A word is never taken for an index: give further indexes with --index (paths to
    /// indexes right after the first, shards/*, are read as indexes too).
    #[arg(required = true, value_name = "QUERY")]
    query: Vec<String>,
    /// Another index to search with the first, as one (shards of one crawl score as one
    /// index); repeat for more: --index shard-1 --index shard-2.
    #[arg(short = 'i', long = "index", value_name = "INDEX")]
    more_indexes: Vec<PathBuf>,
    /// How many results; 0 prints only how many pages match. --offset plus -n is at most
    /// 10000.
    #[arg(short = 'n', long, default_value_t = 10, value_parser = count)]
    limit: usize,
    /// Results to skip first (the next page of results: --offset 10).
    #[arg(long, default_value_t = 0, value_parser = count)]
    offset: usize,
    /// Mark matched words in colour: auto (when stdout is a terminal and NO_COLOR is
    /// not set), always or never.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
    /// Print results as JSON: {query, fallback, notes, total, offset, hits: [{rank, score,
    /// url, title, site, snippet, highlights (character offsets), highlight_bytes}],
    /// hidden_duplicates (when indexes searched together hold a URL twice: the pages not
    /// shown again)}.
    #[arg(long)]
    json: bool,
}

/// The deepest result `search` gives: `--offset` plus `-n` at most this. Each hit reads its
/// stored page and makes a snippet, and ranking keeps `offset + n` pages in memory per index
/// segment; past ten thousand (Elasticsearch's default `max_result_window`) a query is a dump,
/// which `extract` does better. `serve` stops at the same offset.
pub const MAX_RESULTS: usize = 10_000;

/// A count given to `-n` or `--offset`: a whole number, 0 or more.
fn count(text: &str) -> Result<usize, String> {
    let too_many = || format!("at most {MAX_RESULTS} (--offset and -n together)");
    match text.parse::<usize>() {
        Ok(count) if count > MAX_RESULTS => Err(too_many()),
        Ok(count) => Ok(count),
        Err(_) if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) => Err(too_many()),
        Err(_) => Err("give a whole number, 0 or more".to_string()),
    }
}

/// Searches and prints the hits.
pub fn run(args: SearchArgs) -> Result<()> {
    if args.offset.saturating_add(args.limit) > MAX_RESULTS {
        clap::Error::raw(
            clap::error::ErrorKind::ValueValidation,
            format!(
                "--offset {} plus --limit {} goes past result {MAX_RESULTS}, the deepest search \
                 gives; ask for fewer\n",
                args.offset, args.limit
            ),
        )
        .exit()
    }
    let (indexes, query) = indexes_and_query(args.index, args.more_indexes, args.query);
    let opens = open_indexes(&indexes)?;
    let request = indexer::search::SearchRequest {
        query: &query,
        limit: args.limit,
        offset: args.offset,
        site: None,
        count_sites: false,
    };
    // A panic inside tantivy (a damaged index) comes back as an error naming the damage;
    // its hook's report would only repeat it.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let results = indexer::search::search_many(&opens, &request);
    std::panic::set_hook(hook);
    let results = match results {
        Err(error @ SearchError::Syntax(_)) => clap::Error::raw(
            clap::error::ErrorKind::ValueValidation,
            format!("{error}\n"),
        )
        .exit(),
        results => results?,
    };
    if let Some(complaint) = &results.fallback {
        notice!(
            "note: not query syntax ({}); searched as plain words",
            printable(complaint)
        );
    }
    for note in &results.notes {
        notice!("note: {}", printable(note));
    }
    if args.json {
        println!("{}", crate::cli::print::pretty_json(&results)?);
        return Ok(());
    }
    let bold = args.color.colours_stdout();
    for hit in &results.hits {
        println!("{:>3}. {:.3}  {}", hit.rank, hit.score, printable(&hit.url));
        if !hit.title.is_empty() {
            println!("     {}", printable(&hit.title));
        }
        if !hit.snippet.is_empty() {
            println!("     {}", mark(&hit.snippet, &hit.highlight_bytes, bold));
        }
    }
    let shown = match results.hits.len() {
        0 => String::new(),
        n => format!(", {}–{} shown", args.offset + 1, args.offset + n),
    };
    let pages = if results.total == 1 {
        "page matches"
    } else {
        "pages match"
    };
    let hidden = match results.hidden_duplicates {
        0 => String::new(),
        n => format!(" ({n} of a URL shown from another index not shown again)"),
    };
    println!("{} {pages}{shown}{hidden}", results.total);
    Ok(())
}

/// The indexes to search and the query. The words are the query, except the first ones that
/// are paths to an index (they hold a `/` and a CURRENT file: `shards/1`, `./rust`, a shell
/// glob `shards/*`), which are further indexes, as command lines before `--index` wrote them.
/// A bare word is always a query word, even when a folder of that name in the current
/// directory is an index (a note says how to search that index).
fn indexes_and_query(
    first: PathBuf,
    more: Vec<PathBuf>,
    words: Vec<String>,
) -> (Vec<PathBuf>, String) {
    let mut indexes = vec![first];
    let mut words = words.into_iter().peekable();
    while let Some(word) = words.next_if(|word| is_index_path(word)) {
        indexes.push(PathBuf::from(word));
    }
    indexes.extend(more);
    let query: Vec<String> = words.collect();
    if let Some(word) = query
        .iter()
        .find(|word| Path::new(word).join("CURRENT").is_file())
    {
        notice!(
            "note: {word} is searched as a query word; to search the index {word} too, give \
             --index {word}"
        );
    }
    (indexes, query.join(" "))
}

/// Whether `word` is written as a path (it holds a path separator) to an index directory.
fn is_index_path(word: &str) -> bool {
    word.contains(['/', std::path::MAIN_SEPARATOR]) && Path::new(word).join("CURRENT").is_file()
}

/// The options of `search` (and the global ones) and whether each takes a value.
const SEARCH_OPTIONS: &[(&str, bool)] = &[
    ("-n", true),
    ("--limit", true),
    ("--offset", true),
    ("-i", true),
    ("--index", true),
    ("--color", true),
    ("--json", false),
    ("-q", false),
    ("--quiet", false),
    ("-h", false),
    ("--help", false),
];

/// The long name of an option that takes a value.
fn long_name(option: &str) -> &str {
    match option {
        "-n" => "--limit",
        "-i" => "--index",
        long => long,
    }
}

/// The command line with `search`'s query words moved behind a `--`, so that query syntax
/// starting with a hyphen (`-loop +asyncio`, `-excluded`) is read as the query, and options
/// may stand before, among or after the words. An option's value is joined to it
/// (`--limit=-1`), so that a value starting with a hyphen is the option's, and a wrong one is
/// said to be wrong for that option. Other commands pass unchanged.
pub fn with_search_words_last(args: impl IntoIterator<Item = OsString>) -> Vec<OsString> {
    let mut args = args.into_iter();
    let mut out: Vec<OsString> = args.by_ref().take(1).collect();
    let mut args = args.peekable();
    // Global flags may stand before the command.
    while let Some(flag) = args.next_if(|arg| arg == "-q" || arg == "--quiet") {
        out.push(flag);
    }
    match args.next() {
        Some(command) if command == "search" => out.push(command),
        command => {
            out.extend(command);
            out.extend(args);
            return out;
        }
    }
    let mut words = Vec::new();
    let mut rest = args;
    while let Some(arg) = rest.next() {
        let text = arg.to_string_lossy();
        if text == "--" {
            words.extend(rest.by_ref());
            break;
        }
        let option = SEARCH_OPTIONS.iter().find(|(name, _)| {
            text == *name
                || (text.starts_with("--") && text.starts_with(&format!("{name}=")))
                || (*name == "-n" && is_joined_count(&text))
        });
        match option {
            Some(&(name, true)) if text == name => match rest.next() {
                Some(value) => {
                    let mut joined = OsString::from(format!("{}=", long_name(name)));
                    joined.push(value);
                    out.push(joined);
                }
                None => out.push(arg),
            },
            Some(_) => out.push(arg),
            None => words.push(arg),
        }
    }
    out.push("--".into());
    out.extend(words);
    out
}

/// Whether `text` is `-n` with a number joined to it (`-n5`, `-n-1`), not an excluded word
/// (`-new`).
fn is_joined_count(text: &str) -> bool {
    text.strip_prefix("-n").is_some_and(|number| {
        let digits = number.strip_prefix(['-', '+']).unwrap_or(number);
        !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit())
    })
}

/// When to mark matched words with terminal colours.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// When stdout is a terminal and NO_COLOR is not set.
    Auto,
    /// Always.
    Always,
    /// Never (matches are shown in [brackets]).
    Never,
}

impl ColorChoice {
    /// Whether to colour output written to stdout.
    pub fn colours_stdout(self) -> bool {
        match self {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => {
                std::io::IsTerminal::is_terminal(&std::io::stdout())
                    && std::env::var_os("NO_COLOR").is_none_or(|value| value.is_empty())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn normalized(line: &str) -> String {
        let args = line.split('|').map(OsString::from);
        let out: Vec<String> = with_search_words_last(args)
            .into_iter()
            .map(|arg| arg.to_string_lossy().into_owned())
            .collect();
        out.join("|")
    }

    #[test]
    fn search_words_go_last_and_options_stay_options() {
        assert_eq!(
            normalized("indexer|search|IDX|-loop +asyncio|-n|5"),
            "indexer|search|--limit=5|--|IDX|-loop +asyncio"
        );
        assert_eq!(
            normalized("indexer|search|IDX|ownership|rules|--json|--offset=10|-n3"),
            "indexer|search|--json|--offset=10|-n3|--|IDX|ownership|rules"
        );
        assert_eq!(
            normalized("indexer|search|--color|never|IDX|-x|--|--json"),
            "indexer|search|--color=never|--|IDX|-x|--json"
        );
        assert_eq!(
            normalized("indexer|-q|search|IDX|-new|-i|B|--index=C|-q"),
            "indexer|-q|search|--index=B|--index=C|-q|--|IDX|-new"
        );
        assert_eq!(normalized("indexer|build|-n|x"), "indexer|build|-n|x");
        assert_eq!(normalized("indexer|-q|build|-n|x"), "indexer|-q|build|-n|x");
    }

    #[test]
    fn a_negative_count_stays_with_its_option() {
        assert_eq!(
            normalized("indexer|search|IDX|rust|-n|-1"),
            "indexer|search|--limit=-1|--|IDX|rust"
        );
        assert_eq!(
            normalized("indexer|search|IDX|rust|--offset|-1|-n-2"),
            "indexer|search|--offset=-1|-n-2|--|IDX|rust"
        );
        assert_eq!(
            normalized("indexer|search|IDX|rust|-n"),
            "indexer|search|-n|--|IDX|rust"
        );
    }
}
