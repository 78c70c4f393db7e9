//! Arguments: the command line parsed ([`Cli`], [`RunArgs`]), then resolved once into the
//! library's [`BuildOptions`].

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

use indexer::detect::DetectorKind;
use indexer::learn::{BoostSettings, Evidence, Family};
use indexer::run::{BuildOptions, DEFAULT_DETECTOR};
use indexer::segment::SegmentLimits;

use super::choice::choice;
use super::detectors::DetectorFlags;

/// Exit codes of the whole tool (`indexer --help`).
const EXIT_CODES: &str = "Exit codes: 0 success; 1 failure (see each command's --help); 2 invalid \
arguments; 130 stopped by Ctrl-C.";

/// Exit codes of `build`.
const BUILD_EXIT_CODES: &str = "Exit codes: 0 success; 1 failure (unreadable input, nothing to \
index, index not writable — the previous index is kept as it was); 2 invalid arguments; 130 \
stopped by Ctrl-C (the previous index is kept).";

/// Exit codes of `extract`, `eval` and `train`.
const RUN_EXIT_CODES: &str = "Exit codes: 0 success; 1 failure (unreadable input, no page found, \
bad labels or model file, output not writable); 2 invalid arguments; 130 stopped by Ctrl-C.";

/// Exit codes of the commands that read an index.
const INDEX_EXIT_CODES: &str = "Exit codes: 0 success (a query that matches nothing too); 1 the \
index is missing or unreadable; 2 invalid arguments.";

/// Exit codes of `partition`.
const PARTITION_EXIT_CODES: &str = "Exit codes: 0 success; 1 failure (unreadable input, output \
not writable — no half-written file is left under a bucket's name); 2 invalid arguments; 130 \
stopped by Ctrl-C.";

/// Exit codes of `combine`.
const COMBINE_EXIT_CODES: &str = "Exit codes: 0 success; 1 failure (a shard missing or built \
with other settings, output not writable — the previous index is kept as it was); 2 invalid \
arguments.";

/// Exit codes of `serve`.
const SERVE_EXIT_CODES: &str = "Exit codes: 0 stopped by Ctrl-C or SIGTERM; 1 an index is \
missing or unreadable, or the address cannot be listened on; 2 invalid arguments.";

/// `--version`: the version and the commit ([`indexer::VERSION`] without the name).
const VERSION_LINE: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("INDEXER_COMMIT"),
    ")"
);

/// Build a full-text search index from web crawls, stripping each site's template
/// (navigation, headers, footers, sidebars) while indexing.
#[derive(Parser)]
#[command(version = VERSION_LINE, after_help = EXIT_CODES)]
pub struct Cli {
    /// No progress, warnings or notes on stderr; errors only.
    #[arg(short, long, global = true)]
    pub quiet: bool,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand)]
pub enum Command {
    /// Build (or rebuild) an index from WARC files and folders of HTML pages.
    #[command(after_help = BUILD_EXIT_CODES)]
    Build {
        /// WARC files (.warc, .warc.gz) and folders (walked for .html/.htm pages and WARC files).
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// The index directory; replaced only when the new index is complete.
        #[arg(long)]
        index: PathBuf,
        /// Template detector [default: hybrid]. Pick hybrid for real crawls (it learned from
        /// labelled pages and works from one page of a site up); the others are the papers'
        /// methods, for comparison, and none keeps everything.
        #[arg(long, value_parser = choice::<DetectorKind>())]
        detector: Option<DetectorKind>,
        #[command(flatten)]
        run: RunArgs,
        /// Print the build summary as JSON.
        #[arg(long, help_heading = "Output")]
        json: bool,
    },
    /// Search an index, or several as one (BM25 over title and body).
    #[command(
        after_help = INDEX_EXIT_CODES,
        override_usage = "indexer search [OPTIONS] <INDEX> [INDEX]... <QUERY>..."
    )]
    Search {
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
    },
    /// Size figures of an index and the summary of the build that made it.
    ///
    /// Of several indexes (shards of one crawl), the figures and summaries summed.
    #[command(after_help = INDEX_EXIT_CODES)]
    Stats {
        /// Index directories.
        #[arg(required = true)]
        indexes: Vec<PathBuf>,
        /// Print as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Search indexes in the browser and see on each page what was dropped and why.
    #[command(after_help = SERVE_EXIT_CODES)]
    Serve {
        /// Index directories (a query searches them all; the hits are merged by score).
        #[arg(required = true)]
        indexes: Vec<PathBuf>,
        /// Address to listen on (port 0: any free port). The first line on stdout names the
        /// address taken: "listening on http://ADDRESS".
        #[arg(long, default_value = "127.0.0.1:8080")]
        listen: std::net::SocketAddr,
    },
    /// Two indexes side by side, with ratios (B / A).
    ///
    /// Either side may be several indexes (shards), summed: `compare A1 A2 --against B1 B2`.
    #[command(after_help = INDEX_EXIT_CODES)]
    Compare {
        /// A, the index compared against (usually built with `--detector none`), then B;
        /// with --against, all of these are A.
        #[arg(required = true)]
        a: Vec<PathBuf>,
        /// B, the other side, when A is several indexes.
        #[arg(long, num_args = 1..)]
        against: Vec<PathBuf>,
        /// Print as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Measure detectors on labelled pages: extraction quality, index size, known-item retrieval.
    #[command(after_help = RUN_EXIT_CODES)]
    Eval {
        /// WARC files (.warc, .warc.gz) and folders (walked for .html/.htm pages and WARC files).
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        #[command(flatten)]
        truth: TruthArgs,
        /// Also measure kept text from a file (`NAME=FILE`, JSON lines with `url` and `text`,
        /// as `extract` or `train --cross-validate` write it) as an index of its own.
        #[arg(long, value_name = "NAME=FILE")]
        predictions: Vec<String>,
        /// Detectors to measure, comma-separated; `none` is always measured as the baseline.
        #[arg(long = "detector", value_parser = choice::<DetectorKind>(), value_delimiter = ',', default_values_t = [DEFAULT_DETECTOR])]
        detectors: Vec<DetectorKind>,
        /// Seed for the sampled phrase queries.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// How much a title match counts against a body match in the known-item queries.
        #[arg(long, default_value_t = indexer::search::TITLE_BOOST)]
        title_boost: f32,
        /// How much the query's words as a phrase in a page's title count in the known-item
        /// queries (0: not asked).
        #[arg(long, default_value_t = indexer::search::TITLE_PHRASE_BOOST)]
        title_phrase_boost: f32,
        /// How much the query's words as a whole part of a page's title (cut at its
        /// separators and before a closing group in parentheses) count in the known-item
        /// queries (0: not asked).
        #[arg(long, default_value_t = indexer::search::TITLE_PART_BOOST)]
        title_part_boost: f32,
        /// Add per-site F1 to the table.
        #[arg(long)]
        sites: bool,
        /// Print the figures as JSON.
        #[arg(long)]
        json: bool,
        /// Also write the table as a markdown report to this file.
        #[arg(long)]
        report: Option<PathBuf>,
        /// Also draw an SVG bar chart (F1, postings reduction, title MRR per index) to this file.
        #[arg(long)]
        chart: Option<PathBuf>,
        /// Also write every known-item query to this file, a JSON line each: the index, the
        /// kind (title or phrase), the query, the page's URL, its rank (null: not in the first
        /// ten) and the first result.
        #[arg(long, value_name = "FILE")]
        queries: Option<PathBuf>,
        #[command(flatten)]
        run: RunArgs,
    },
    /// Train a `hybrid` model on labelled pages (labels with `content_text`, or snippets).
    #[command(after_help = RUN_EXIT_CODES)]
    Train {
        /// WARC files (.warc, .warc.gz) and folders (walked for .html/.htm pages and WARC files).
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        #[command(flatten)]
        truth: TruthArgs,
        /// Where to write the model (replaced only when complete).
        #[arg(long)]
        out: PathBuf,
        /// The model family.
        #[arg(long, value_parser = choice::<Family>(), default_value = "trees")]
        family: Family,
        /// Which evidence the model may use (for ablations).
        #[arg(long, value_parser = choice::<Evidence>(), default_value = "both")]
        evidence: Evidence,
        /// Seed of the training's random choices.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Trees: how many.
        #[arg(long, default_value_t = BoostSettings::default().trees)]
        trees: usize,
        /// Trees: levels of splits at most.
        #[arg(long, default_value_t = BoostSettings::default().depth)]
        depth: usize,
        /// Trees: learning rate.
        #[arg(long, default_value_t = BoostSettings::default().learning_rate)]
        learning_rate: f32,
        /// The keep threshold written into the model (0.6 measured best of 0.5 and 0.6 in
        /// leave-one-site-out runs on all three shared corpora).
        #[arg(long, default_value_t = 0.6, value_parser = super::detectors::share)]
        threshold: f64,
        /// Also hold out each site in turn (sites with fewer than 20 labelled pages in ten
        /// folds of sites), fit on the rest, and write the held-out pages' kept text to this
        /// file as JSON lines {"url","text","fold"} — the figures to quote for unseen sites.
        #[arg(long)]
        cross_validate: Option<PathBuf>,
        /// Print the result as JSON.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        run: RunArgs,
    },
    /// The map step past one machine: WARC inputs split into a WARC file per host bucket.
    ///
    /// Writes bucket-K.warc.gz for each bucket with records, and manifest.json, into a folder
    /// of this map task's. Then build each bucket's files from every map task (in map order)
    /// into a shard, and `combine` the shards.
    #[command(after_help = PARTITION_EXIT_CODES)]
    Partition {
        /// WARC files (.warc, .warc.gz) and folders (walked for .html/.htm pages and WARC files).
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// Host buckets: a site's pages all go to one bucket (a hash of its host).
        #[arg(long)]
        buckets: usize,
        /// The folder to write (one per map task); files appear complete or not at all,
        /// manifest.json last.
        #[arg(long)]
        out: PathBuf,
        #[command(flatten)]
        input: InputArgs,
        /// Print the manifest as JSON.
        #[arg(long, help_heading = "Output")]
        json: bool,
    },
    /// One index from shard indexes built with the same settings, without indexing again.
    #[command(after_help = COMBINE_EXIT_CODES)]
    Combine {
        /// Shard index directories.
        #[arg(required = true)]
        shards: Vec<PathBuf>,
        /// The index directory to write; replaced only when the new index is complete.
        #[arg(long)]
        index: PathBuf,
        /// Merge the shards' segments into one (slower; a smaller index, faster searches).
        #[arg(long)]
        merge: bool,
        /// A manifest of the partition step (manifest.json; the flag once per file): the
        /// records it passed over are added to the combined summary, which then counts what
        /// one build over the whole crawl would.
        #[arg(long = "manifest", value_name = "FILE")]
        manifests: Vec<PathBuf>,
        /// Threads for --merge; 0 or absent: the number of cores.
        #[arg(long)]
        threads: Option<usize>,
        /// Print the combined summary as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Print the kept text of every HTML page as JSON lines {"url","site","title","text"}.
    #[command(after_help = RUN_EXIT_CODES)]
    Extract {
        /// WARC files (.warc, .warc.gz) and folders (walked for .html/.htm pages and WARC files).
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// Template detector [default: hybrid]. Pick hybrid for real crawls (it learned from
        /// labelled pages and works from one page of a site up); the others are the papers'
        /// methods, for comparison, and none keeps everything.
        #[arg(long, value_parser = choice::<DetectorKind>())]
        detector: Option<DetectorKind>,
        /// Also print every block of the page in order with its decision and the evidence:
        /// "blocks": [{"text", "kept", "rule", "score", "threshold"}] — the rule that decided
        /// (template_word_ratio, content_probability, title_heading, …; see the README), the
        /// figure it compared and its threshold. To check a site before trusting a build.
        #[arg(long, visible_alias = "show-dropped", help_heading = "Output")]
        explain: bool,
        #[command(flatten)]
        run: RunArgs,
    },
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

/// The labelled pages of `eval` and `train`.
#[derive(Args)]
pub struct TruthArgs {
    /// Label files with `content_text` (JSON lines, .gz allowed); glob patterns are
    /// expanded (quote them, or the shell expands them first).
    #[arg(long)]
    pub labels: Vec<String>,
    /// Snippet label files (`with`/`without` passages, as `shared/tools/snippets.py`); glob
    /// patterns are expanded.
    #[arg(long)]
    pub snippets: Vec<String>,
}

/// How inputs are read: flags of every command that reads WARC files and folders.
#[derive(Args)]
pub struct InputArgs {
    /// Base URL for pages read from a folder (default: file:// + the folder's path).
    #[arg(long, help_heading = "Input")]
    pub base_url: Option<String>,
    /// Folders: also read hidden files and enter hidden folders (names starting with ".").
    #[arg(long, help_heading = "Input")]
    hidden: bool,
    /// Folders: follow symbolic links (each folder is entered once).
    #[arg(long, help_heading = "Input")]
    follow: bool,
}

impl InputArgs {
    /// How folders are walked.
    pub fn walk(&self) -> indexer::read::Walk {
        indexer::read::Walk {
            hidden: self.hidden,
            follow_links: self.follow,
        }
    }
}

/// Flags shared by the commands that run detection (`build`, `extract`, `eval`, `train`).
#[derive(Args)]
pub struct RunArgs {
    /// Read the input once, deciding each page as it arrives (for crawlers that cannot make
    /// a second pass): needs a detector that can run in one pass (hybrid, incremental,
    /// sandwich, none).
    #[arg(long, help_heading = "Detection")]
    pub one_pass: bool,
    /// Segmenting threads; 0 or absent: the number of cores (at most 1024).
    #[arg(help_heading = "Memory and limits", long, value_parser = clap::value_parser!(u16).range(0..=1024))]
    threads: Option<u16>,
    #[command(flatten)]
    input: InputArgs,
    /// Write one JSON line per record passed over or page cut short (input, offset, url,
    /// reason, detail) to this file.
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub skip_log: Option<PathBuf>,
    /// Two-pass detectors: MiB of pages held while waiting for their decision; beyond it,
    /// waiting pages are decided with what has been learned so far. Never more than an
    /// eighth of --memory-budget (256 MiB under the default budget).
    #[arg(help_heading = "Memory and limits", long, default_value_t = BuildOptions::default().batch_memory >> 20)]
    batch_memory: usize,
    /// MiB of memory for detector state, pages waiting for a decision and the index writer;
    /// a crawl that could need more is handled in rounds of sites (one read of the input
    /// each).
    #[arg(help_heading = "Memory and limits", long, default_value_t = (BuildOptions::default().memory_budget >> 20) as u64, value_parser = clap::value_parser!(u64).range(64..))]
    memory_budget: u64,
    /// Per page: HTML bytes read; the rest is cut off and counted.
    #[arg(help_heading = "Memory and limits", long, default_value_t = SegmentLimits::default().max_page_bytes)]
    max_page_bytes: usize,
    /// Per page: nesting depth tracked; deeper elements count as inline.
    #[arg(help_heading = "Memory and limits", long, default_value_t = SegmentLimits::default().max_depth)]
    max_depth: usize,
    /// Per page: blocks; further layout elements count as inline.
    #[arg(help_heading = "Memory and limits", long, default_value_t = SegmentLimits::default().max_blocks)]
    max_blocks: usize,
    /// Per page: words; blocks after the one that reaches it are left out and counted.
    #[arg(help_heading = "Memory and limits", long, default_value_t = SegmentLimits::default().max_words)]
    max_words: usize,
    #[command(flatten)]
    detectors: DetectorFlags,
}

impl RunArgs {
    /// The options of a run of `detector`, made once from the flags.
    pub fn options(&self, detector: DetectorKind) -> anyhow::Result<BuildOptions> {
        let defaults = BuildOptions::default();
        Ok(BuildOptions {
            detector,
            settings: self.detectors.settings()?,
            threads: match self.threads {
                None | Some(0) => defaults.threads,
                Some(threads) => usize::from(threads),
            },
            limits: SegmentLimits {
                max_page_bytes: self.max_page_bytes,
                max_depth: self.max_depth,
                max_blocks: self.max_blocks,
                max_words: self.max_words,
            },
            base_url: self.input.base_url.clone(),
            batch_memory: self.batch_memory.saturating_mul(1 << 20),
            memory_budget: usize::try_from(self.memory_budget)
                .unwrap_or(usize::MAX)
                .saturating_mul(1 << 20),
            one_pass: self.one_pass,
            stop: None,
            command_line: std::env::args().collect(),
            walk: self.input.walk(),
        })
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
