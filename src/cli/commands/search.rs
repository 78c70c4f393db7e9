//! `indexer search`: indexes and a query in, ranked hits with snippets out (text or JSON).
//! The query's words are moved behind a `--` before parsing ([`with_search_words_last`]),
//! so query syntax that starts with a hyphen is read as the query.

use std::ffi::OsString;

use anyhow::Result;
use clap::{Args, ValueEnum};

use crate::cli::open_indexes;
use crate::cli::print::mark;

/// `search`'s flags.
#[derive(Args)]
pub struct SearchArgs {
    /// The index directory, then any further index directories (each a folder holding
    /// an index's CURRENT file; shards of one crawl are scored as one index), then the
    /// query: words (any of them), "phrases", +required, -excluded, title:word,
    /// site:host. A query that is not valid syntax (print(), std::vec, a URL) is
    /// searched as its plain words, and stderr says so.
    #[arg(required = true, num_args = 2.., value_name = "INDEX|QUERY")]
    indexes_and_query: Vec<String>,
    /// How many results; 0 prints only how many pages match.
    #[arg(short = 'n', long, default_value_t = 10)]
    limit: usize,
    /// Results to skip first (the next page of results: --offset 10).
    #[arg(long, default_value_t = 0)]
    offset: usize,
    /// Mark matched words in colour: auto (when stdout is a terminal and NO_COLOR is
    /// not set), always or never.
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
    /// Print results as JSON: {query, fallback, total, offset, hits: [{rank, score, url,
    /// title, snippet, highlights (character offsets), highlight_bytes}]}.
    #[arg(long)]
    json: bool,
}

/// Searches and prints the hits.
pub fn run(args: SearchArgs) -> Result<()> {
    let (indexes, query) = split_indexes_and_query(args.indexes_and_query)?;
    let opens = open_indexes(&indexes)?;
    let request = indexer::search::SearchRequest {
        query: &query,
        limit: args.limit,
        offset: args.offset,
        site: None,
        count_sites: false,
    };
    let results = indexer::search::search_many(&opens, &request)?;
    if let Some(complaint) = &results.fallback {
        notice!("note: not query syntax ({complaint}); searched as plain words");
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&results)?);
        return Ok(());
    }
    let bold = args.color.colours_stdout();
    for hit in &results.hits {
        println!("{:>3}. {:.3}  {}", hit.rank, hit.score, hit.url);
        if !hit.title.is_empty() {
            println!("     {}", hit.title);
        }
        println!("     {}", mark(&hit.snippet, &hit.highlight_bytes, bold));
    }
    let shown = match results.hits.len() {
        0 => String::new(),
        n => format!(", {}–{} shown", args.offset + 1, args.offset + n),
    };
    let pages = if results.total == 1 { "page" } else { "pages" };
    println!("{} {pages} match{shown}", results.total);
    Ok(())
}

/// `search`'s words: the first is an index; each next one that is an index directory (it
/// holds a CURRENT file) is another; the rest are the query.
fn split_indexes_and_query(words: Vec<String>) -> Result<(Vec<std::path::PathBuf>, String)> {
    let mut words = words.into_iter();
    let mut indexes: Vec<std::path::PathBuf> = words.next().into_iter().map(Into::into).collect();
    let mut query = Vec::new();
    for word in words.by_ref() {
        let path = std::path::Path::new(&word);
        if query.is_empty() && path.join("CURRENT").is_file() {
            indexes.push(path.to_path_buf());
        } else {
            query.push(word);
        }
    }
    anyhow::ensure!(
        !query.is_empty(),
        "no query: give words to search for after the indexes"
    );
    Ok((indexes, query.join(" ")))
}

/// The options of `search` and whether each takes a value.
const SEARCH_OPTIONS: &[(&str, bool)] = &[
    ("-n", true),
    ("--limit", true),
    ("--offset", true),
    ("--color", true),
    ("--json", false),
    ("-h", false),
    ("--help", false),
];

/// The command line with `search`'s query words moved behind a `--`, so that query syntax
/// starting with a hyphen (`-loop +asyncio`, `-excluded`) is read as the query, and options
/// may stand before, among or after the words. Other commands pass unchanged.
pub fn with_search_words_last(args: impl IntoIterator<Item = OsString>) -> Vec<OsString> {
    let mut args = args.into_iter();
    let mut out: Vec<OsString> = args.by_ref().take(2).collect();
    if out.get(1).and_then(|command| command.to_str()) != Some("search") {
        out.extend(args);
        return out;
    }
    let mut words = Vec::new();
    let mut rest = args.peekable();
    while let Some(arg) = rest.next() {
        let text = arg.to_string_lossy();
        if text == "--" {
            words.extend(rest.by_ref());
            break;
        }
        let option = SEARCH_OPTIONS.iter().find(|(name, _)| {
            text == *name
                || (text.starts_with("--") && text.starts_with(&format!("{name}=")))
                || (*name == "-n" && text.starts_with("-n") && text[2..].parse::<usize>().is_ok())
        });
        match option {
            Some(&(name, takes_value)) => {
                let joined = text.len() > name.len();
                out.push(arg);
                if takes_value && !joined {
                    out.extend(rest.next());
                }
            }
            None => words.push(arg),
        }
    }
    out.push("--".into());
    out.extend(words);
    out
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
            "indexer|search|-n|5|--|IDX|-loop +asyncio"
        );
        assert_eq!(
            normalized("indexer|search|IDX|ownership|rules|--json|--offset=10|-n3"),
            "indexer|search|--json|--offset=10|-n3|--|IDX|ownership|rules"
        );
        assert_eq!(
            normalized("indexer|search|--color|never|IDX|-x|--|--json"),
            "indexer|search|--color|never|--|IDX|-x|--json"
        );
        assert_eq!(normalized("indexer|build|-n|x"), "indexer|build|-n|x");
    }
}
