//! Arguments: the command line parsed into a [`Cli`] and one [`Command`], whose flags live
//! beside its run in `cli/commands/` (the groups several commands share are in
//! [`super::flags`]).

use clap::{Parser, Subcommand, ValueEnum};

use indexer::detect::DetectorKind;

use super::commands;

/// Exit codes of the whole tool (`indexer --help`).
const EXIT_CODES: &str = "Exit codes: 0 success; 1 failure (see each command's --help); 2 invalid \
arguments; 130 stopped by Ctrl-C.";

/// Exit codes of `build`.
const BUILD_EXIT_CODES: &str = "Exit codes: 0 success; 1 failure (unreadable input, nothing to \
index, index not writable — the previous index is kept as it was); 2 invalid arguments; 130 \
stopped by Ctrl-C (the previous index is kept).";

/// Exit codes of `add` and `delete`.
const UPDATE_EXIT_CODES: &str = "Exit codes: 0 success (a delete that finds nothing, an add of \
pages all indexed already too); 1 failure (no index, another writer holds its lock, other \
detector options than the index's, unreadable input — the index is kept as it was); 2 invalid \
arguments; 130 stopped by Ctrl-C (the index is kept as it was).";

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
#[command(
    version = VERSION_LINE,
    after_help = EXIT_CODES,
    arg_required_else_help = true
)]
pub struct Cli {
    /// No progress, warnings or notes on stderr; errors only.
    #[arg(short, long, global = true)]
    pub quiet: bool,
    /// Write a reference generated from these definitions on stdout and stop: the man page,
    /// the Markdown command-line reference (docs/CLI.md) or a shell's completions.
    #[arg(long, value_enum, value_name = "WHAT")]
    pub generate: Option<Generate>,
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The commands; each one's flags and its run are in `cli/commands/<name>.rs`.
#[derive(Subcommand)]
pub enum Command {
    /// Build (or rebuild) an index from WARC files and folders of HTML pages.
    #[command(after_help = BUILD_EXIT_CODES)]
    Build(commands::build::BuildArgs),
    /// Add the pages of new crawls to an index built before: a page whose URL the index
    /// holds replaces it when fetched as late or later, and is passed over when its HTML is
    /// the same.
    ///
    /// The pages are decided as the index's build decided them: give the same detector
    /// options (add refuses others).
    #[command(after_help = UPDATE_EXIT_CODES)]
    Add(commands::add::AddArgs),
    /// Delete pages from an index: by URL, by site, or the URLs listed in a file.
    #[command(after_help = UPDATE_EXIT_CODES)]
    Delete(commands::delete::DeleteArgs),
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
    /// Print the kept text of every HTML page as JSON lines: {"url","site","title", the
    /// record's provenance, language, block counts, "text"} (docs/GUIDE.md, "Formats").
    #[command(after_help = RUN_EXIT_CODES)]
    Extract(commands::extract::ExtractArgs),
    /// Print every page an index holds as JSON lines {"url","site","title", the record's
    /// provenance, "text"}: its kept text as stored, without reading the crawl again.
    #[command(after_help = INDEX_EXIT_CODES)]
    Export(commands::export::ExportArgs),
}

impl Command {
    /// The detector flags given that the detectors this command runs do not read, each as a
    /// sentence (none for commands that run no detector).
    pub fn idle_detector_flags(&self) -> Vec<String> {
        let (run, detectors) = match self {
            Command::Build(args) => (&args.run, vec![args.detector.chosen(&args.run)]),
            Command::Add(args) => (&args.run, vec![args.detector.chosen(&args.run)]),
            Command::Extract(args) => (&args.run, vec![args.detector.chosen(&args.run)]),
            Command::Eval(args) => (&args.run, args.detectors.clone()),
            Command::Train(args) => (&args.run, vec![DetectorKind::Hybrid]),
            _ => return Vec::new(),
        };
        run.idle_detector_flags(&detectors)
    }
}

/// What `--generate` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Generate {
    /// The man page (roff), as `docs/indexer.1` holds it.
    Man,
    /// The command-line reference in Markdown, as `docs/CLI.md` holds it.
    Reference,
    /// Completions for bash.
    CompleteBash,
    /// Completions for zsh.
    CompleteZsh,
    /// Completions for fish.
    CompleteFish,
    /// Completions for PowerShell.
    CompletePowershell,
    /// Completions for elvish.
    CompleteElvish,
}
