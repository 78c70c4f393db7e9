//! Arguments: the command line parsed ([`Cli`], one [`Command`] whose flags live beside its
//! run in `cli/commands/`), the flag groups several commands share ([`Inputs`], [`RunArgs`],
//! [`InputArgs`], [`TruthArgs`]), and [`RunArgs::options`], which resolves them once into the
//! library's [`BuildOptions`].

use std::path::PathBuf;

use clap::{Args, CommandFactory, Parser, Subcommand};

use indexer::detect::DetectorKind;
use indexer::run::BuildOptions;
use indexer::segment::SegmentLimits;

use super::choice::choice;
use super::commands;
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

/// Examples and exit codes of `search`.
const SEARCH_EXIT_CODES: &str = "Examples:
  indexer search docs-idx site:docs.python.org exception   (the Python docs' pages only)
  indexer search docs-idx 'owner*' ownershp~1              (quote * for the shell)
  indexer search shard-0 ownership rules --index shard-1   (two indexes as one)

Exit codes: 0 success (a query that matches nothing too); 1 the \
index is missing or unreadable; 2 invalid arguments, and a query search refuses (own*ship, \
word~3, site: without a host), with why.";

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

/// The commands; each one's flags and its run are in `cli/commands/<name>.rs`.
#[derive(Subcommand)]
pub enum Command {
    /// Build (or rebuild) an index from WARC files and folders of HTML pages.
    #[command(after_help = BUILD_EXIT_CODES)]
    Build(commands::build::BuildArgs),
    /// Search an index, or several as one (BM25 over title and body).
    #[command(
        after_help = SEARCH_EXIT_CODES,
        override_usage = "indexer search [OPTIONS] <INDEX> <QUERY>... [--index <INDEX>]..."
    )]
    Search(commands::search::SearchArgs),
    /// Size figures of an index and the summary of the build that made it.
    ///
    /// Of several indexes (shards of one crawl), the figures and summaries summed.
    #[command(after_help = INDEX_EXIT_CODES)]
    Stats(commands::stats::StatsArgs),
    /// Search indexes in the browser and see on each page what was dropped and why.
    #[command(after_help = SERVE_EXIT_CODES)]
    Serve(commands::serve::ServeArgs),
    /// Two indexes side by side, with ratios (B / A).
    ///
    /// Either side may be several indexes (shards), summed: `compare A1 A2 --against B1 B2`.
    #[command(after_help = INDEX_EXIT_CODES)]
    Compare(commands::compare::CompareArgs),
    /// Measure detectors on labelled pages: extraction quality, index size, known-item retrieval.
    #[command(after_help = RUN_EXIT_CODES)]
    Eval(commands::eval::EvalArgs),
    /// Train a `hybrid` model on labelled pages (labels with `content_text`, or snippets).
    #[command(after_help = RUN_EXIT_CODES)]
    Train(commands::train::TrainArgs),
    /// The map step past one machine: WARC inputs split into a WARC file per host bucket.
    ///
    /// Writes bucket-K.warc.gz for each bucket with records, and manifest.json, into a folder
    /// of this map task's. Then build each bucket's files from every map task (in map order)
    /// into a shard, and `combine` the shards.
    #[command(after_help = PARTITION_EXIT_CODES)]
    Partition(commands::partition::PartitionArgs),
    /// One index from shard indexes built with the same settings, without indexing again.
    #[command(after_help = COMBINE_EXIT_CODES)]
    Combine(commands::combine::CombineArgs),
    /// Print the kept text of every HTML page as JSON lines {"url","site","title","text"}.
    #[command(after_help = RUN_EXIT_CODES)]
    Extract(commands::extract::ExtractArgs),
}

impl Command {
    /// The detector flags given that the detectors this command runs do not read, each as a
    /// sentence (none for commands that run no detector).
    pub fn idle_detector_flags(&self) -> Vec<String> {
        let (run, detectors) = match self {
            Command::Build(args) => (&args.run, vec![args.detector.chosen(&args.run)]),
            Command::Extract(args) => (&args.run, vec![args.detector.chosen(&args.run)]),
            Command::Eval(args) => (&args.run, args.detectors.clone()),
            Command::Train(args) => (&args.run, vec![DetectorKind::Hybrid]),
            _ => return Vec::new(),
        };
        run.detectors.idle(&detectors)
    }
}

/// The inputs of every command that reads a crawl.
#[derive(Args)]
pub struct Inputs {
    /// WARC files (.warc, .warc.gz) and folders (walked for .html/.htm pages and WARC files).
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
}

/// `--detector` of the commands that run one detector (`build`, `extract`).
#[derive(Args)]
pub struct DetectorChoice {
    /// Template detector [default: hybrid]. Pick hybrid for real crawls (it learned from
    /// labelled pages and works from one page of a site up); the others are the papers'
    /// methods, for comparison, and none keeps everything.
    #[arg(long, value_parser = choice::<DetectorKind>())]
    detector: Option<DetectorKind>,
}

impl DetectorChoice {
    /// The detector a run uses (see [`indexer::run::choose_detector`]); a two-pass detector
    /// under `--one-pass` is a usage error.
    pub fn chosen(&self, run: &RunArgs) -> DetectorKind {
        indexer::run::choose_detector(self.detector, run.one_pass).unwrap_or_else(|refused| {
            Cli::command()
                .error(clap::error::ErrorKind::ArgumentConflict, refused)
                .exit()
        })
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
    /// How inputs are read, as the flags say.
    pub fn options(&self) -> indexer::read::InputOptions {
        indexer::read::InputOptions {
            base_url: self.base_url.clone(),
            walk: indexer::read::Walk {
                hidden: self.hidden,
                follow_links: self.follow,
            },
            ..indexer::read::InputOptions::default()
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
            input: self.input.options(),
            batch_memory: self.batch_memory.saturating_mul(1 << 20),
            memory_budget: usize::try_from(self.memory_budget)
                .unwrap_or(usize::MAX)
                .saturating_mul(1 << 20),
            one_pass: self.one_pass,
            stop: None,
            command_line: std::env::args().collect(),
        })
    }
}
