//! The flag groups several commands share — the inputs ([`Inputs`], [`InputArgs`]), the
//! detector chosen ([`DetectorChoice`]), how a run goes ([`RunArgs`], with every detector's
//! flags) and the labelled pages ([`TruthArgs`]) — and [`RunArgs::options`], which resolves
//! them once into the library's [`BuildOptions`].

use std::path::PathBuf;

use clap::Args;

use indexer::detect::DetectorKind;
use indexer::run::BuildOptions;
use indexer::segment::SegmentLimits;

use super::choice::choice;
use super::detectors::DetectorFlags;

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
            clap::Error::raw(
                clap::error::ErrorKind::ArgumentConflict,
                format!("{refused}\n"),
            )
            .exit()
        })
    }
}

/// The labelled pages of `eval` and `train`.
#[derive(Args)]
pub struct TruthArgs {
    /// Label files with `content_text` (JSON lines, .gz or .zst allowed); glob patterns are
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

/// `--skip-log`: a flag of the commands that report what they pass over (`build`, `add`,
/// `extract`).
#[derive(Args)]
pub struct SkipLogArgs {
    /// Write one JSON line per record passed over or page cut short (input, offset, url,
    /// reason, detail) to this file (gzip or zstd when named .gz or .zst).
    #[arg(long, value_name = "FILE", help_heading = "Output")]
    pub skip_log: Option<PathBuf>,
}

impl SkipLogArgs {
    /// Fails at once when the file asked for cannot be written, not after the run — unless
    /// it lies in `made_by_the_run`, a folder the run makes (an index, a dolma folder), where
    /// it is checked when written.
    pub fn check_writable(
        &self,
        made_by_the_run: Option<&std::path::Path>,
    ) -> Result<(), indexer::output::OutputError> {
        match &self.skip_log {
            Some(path) if !made_by_the_run.is_some_and(|folder| path.starts_with(folder)) => {
                indexer::output::OutputFile::check_writable(path)
            }
            _ => Ok(()),
        }
    }
}

/// Flags shared by the commands that run detection (`build`, `add`, `extract`, `eval`,
/// `train`).
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
    /// Detectors that decide site by site (bloom, hybrid): threads that learn the pages (in
    /// one pass, decide and learn them), each holding its share of the sites; 0 or absent:
    /// one per 8 segmenting threads in two passes, one per 2 in one pass. The output is the
    /// same whatever their number.
    #[arg(help_heading = "Memory and limits", long, value_parser = clap::value_parser!(u16).range(0..=64))]
    learning_threads: Option<u16>,
    #[command(flatten)]
    input: InputArgs,
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
    /// The detector flags given that none of `detectors` reads, each as a sentence.
    pub fn idle_detector_flags(&self, detectors: &[DetectorKind]) -> Vec<String> {
        self.detectors.idle(detectors)
    }

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
            learning_threads: usize::from(self.learning_threads.unwrap_or(0)),
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
