//! The `indexer` command line: parses arguments, calls the library, prints.

use std::io::{BufWriter, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use anyhow::{Context, Result};
use clap::{Args, CommandFactory, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use indexer::build::{self, BuildOptions, BuildSummary, Progress};
use indexer::detect::bloom::BloomSettings;
use indexer::detect::incremental::IncrementalSettings;
use indexer::detect::menu::MenuSettings;
use indexer::detect::sandwich::{SandwichSettings, Unit};
use indexer::detect::table_chunk::{Cluster, TableChunkSettings};
use indexer::detect::{DetectorKind, Passes};
use indexer::eval;
use indexer::index::{IndexStats, OpenIndex, stats};
use indexer::search::search;
use indexer::segment::SegmentLimits;

const EXIT_CODES: &str = "Exit codes: 0 success; 1 failure (bad input, unreadable index, nothing to index — \
a failed build leaves the previous index as it was); 2 invalid arguments; 130 stopped by Ctrl-C \
(the previous index is kept).";

/// Build a full-text search index from web crawls, stripping each site's template
/// (navigation, headers, footers, sidebars) while indexing.
#[derive(Parser)]
#[command(version, after_help = EXIT_CODES)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Build (or rebuild) an index from WARC files and folders of HTML pages.
    #[command(after_help = EXIT_CODES)]
    Build {
        /// WARC files (.warc, .warc.gz) and folders of .html files.
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// The index directory; replaced only when the new index is complete.
        #[arg(long)]
        index: PathBuf,
        /// Template detector [default: bloom; with --one-pass: incremental].
        #[arg(long, value_enum)]
        detector: Option<DetectorKind>,
        /// Read the input once, deciding each page as it arrives (for crawlers that cannot
        /// make a second pass): needs a one-pass detector (incremental, sandwich, none).
        #[arg(long)]
        one_pass: bool,
        #[command(flatten)]
        run: RunArgs,
        /// Print the build summary as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Search an index (BM25 over title and body).
    #[command(after_help = EXIT_CODES)]
    Search {
        /// The index directory.
        index: PathBuf,
        /// The query: words, "phrases", +required, -excluded.
        query: String,
        /// How many results.
        #[arg(short = 'n', long, default_value_t = 10)]
        limit: usize,
        /// Print results as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Size figures of an index and the summary of the build that made it.
    #[command(after_help = EXIT_CODES)]
    Stats {
        /// The index directory.
        index: PathBuf,
        /// Print as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Two indexes side by side, with ratios (B / A).
    #[command(after_help = EXIT_CODES)]
    Compare {
        /// The index compared against (usually built with `--detector none`).
        a: PathBuf,
        /// The other index.
        b: PathBuf,
        /// Print as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Measure detectors on labelled pages: extraction quality, index size, known-item retrieval.
    #[command(after_help = EXIT_CODES)]
    Eval {
        /// WARC files (.warc, .warc.gz) and folders of .html files.
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// Label files (JSON lines, .gz allowed); glob patterns are expanded.
        #[arg(long, required = true)]
        labels: Vec<String>,
        /// Detectors to measure, comma-separated; `none` is always measured as the baseline.
        #[arg(long = "detector", value_enum, value_delimiter = ',', default_values_t = [DetectorKind::Bloom])]
        detectors: Vec<DetectorKind>,
        /// Seed for the sampled phrase queries.
        #[arg(long, default_value_t = 1)]
        seed: u64,
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
        #[command(flatten)]
        run: RunArgs,
    },
    /// Print the kept text of every HTML page as JSON lines {"url","site","title","text"}.
    #[command(after_help = EXIT_CODES)]
    Extract {
        /// WARC files (.warc, .warc.gz) and folders of .html files.
        #[arg(required = true)]
        inputs: Vec<PathBuf>,
        /// Template detector.
        #[arg(long, value_enum, default_value_t = DetectorKind::Bloom)]
        detector: DetectorKind,
        #[command(flatten)]
        run: RunArgs,
    },
}

#[derive(Args)]
struct RunArgs {
    /// Segmenting threads (default: the number of cores).
    #[arg(long)]
    threads: Option<usize>,
    /// Base URL for pages read from a folder (default: file:// + the folder's path).
    #[arg(long)]
    base_url: Option<String>,
    /// bloom: two offset signatures are similar when they share this share of set bits.
    #[arg(long, default_value_t = BloomSettings::default().similarity, value_parser = share)]
    bloom_similarity: f64,
    /// bloom: a word is template when this many blocks of its style cluster share its signature.
    #[arg(long, default_value_t = BloomSettings::default().min_cluster_blocks)]
    bloom_min_blocks: u32,
    /// bloom: a block is dropped when its share of template words reaches this.
    #[arg(long, default_value_t = BloomSettings::default().drop_ratio, value_parser = share)]
    bloom_drop_ratio: f64,
    /// bloom: words in fewer blocks of a style cluster than this are not looked up.
    #[arg(long, default_value_t = BloomSettings::default().min_word_frequency)]
    bloom_min_word_frequency: u32,
    /// Two-pass detectors: MiB of pages held while waiting for their decision; beyond it,
    /// waiting pages are decided with what has been learned so far.
    #[arg(long, default_value_t = BuildOptions::default().batch_memory >> 20)]
    batch_memory: usize,
    /// MiB of memory for detector state, pages waiting for a decision and the index writer;
    /// a crawl that could need more is handled in rounds of sites (one read of the input
    /// each).
    #[arg(long, default_value_t = (BuildOptions::default().memory_budget >> 20) as u64, value_parser = clap::value_parser!(u64).range(64..))]
    memory_budget: u64,
    /// bloom: distinct (style, word) pairs learned per site at most (about 40 bytes each).
    #[arg(long, default_value_t = BloomSettings::default().max_site_words)]
    bloom_max_site_words: u32,
    /// bloom: judge headings by the block they title, as in the paper (no rescue of a heading
    /// whose following block is kept).
    #[arg(long)]
    bloom_paper_headings: bool,
    /// sandwich: compare pages by source lines or by HTML tokens (for pages on few lines).
    #[arg(long, value_enum, default_value_t = Unit::Line)]
    sandwich_unit: Unit,
    /// sandwich: differences explored per comparison before the rest counts as not shared.
    #[arg(long, default_value_t = SandwichSettings::default().max_cost)]
    sandwich_max_cost: u32,
    /// sandwich: pages remembered per URL directory as peers.
    #[arg(long, default_value_t = SandwichSettings::default().peers_per_directory)]
    sandwich_peers: u32,
    /// table-chunk: a chunk on at least this many pages of its cluster is template.
    #[arg(long, default_value_t = TableChunkSettings::default().min_documents)]
    table_chunk_min_documents: u32,
    /// table-chunk: how pages are clustered.
    #[arg(long, value_enum, default_value_t = Cluster::Site)]
    table_chunk_cluster: Cluster,
    /// table-chunk: cut chunks at layout elements (div, p, lists…) as well as table elements.
    #[arg(long)]
    table_chunk_layout_tags: bool,
    /// table-chunk: count chunks by element position and attributes as well as text.
    #[arg(long)]
    table_chunk_key_by_path: bool,
    /// incremental: a text segment on at least this many pages is template.
    #[arg(long, default_value_t = IncrementalSettings::default().min_frequency)]
    incremental_min_frequency: u32,
    /// incremental: a block whose template share of text exceeds this is dropped.
    #[arg(long, default_value_t = IncrementalSettings::default().drop_ratio, value_parser = share)]
    incremental_drop_ratio: f64,
    /// incremental: Tb, pages a segment seen once survives unseen.
    #[arg(long, default_value_t = IncrementalSettings::default().base_lifetime)]
    incremental_base_lifetime: u32,
    /// incremental: N, how many times Tb a frequent segment survives unseen.
    #[arg(long, default_value_t = IncrementalSettings::default().lifetime_factor)]
    incremental_lifetime_factor: f64,
    /// incremental: text segments held per site at most.
    #[arg(long, default_value_t = IncrementalSettings::default().max_segments_per_site)]
    incremental_max_segments: u32,
    /// menu: pages in the complete subdigraph, the key page included.
    #[arg(long, default_value_t = MenuSettings::default().pages, value_parser = clap::value_parser!(u32).range(2..))]
    menu_pages: u32,
    /// menu: links of a page considered, in document order.
    #[arg(long, default_value_t = MenuSettings::default().max_links)]
    menu_max_links: u32,
    /// Per page: HTML bytes read; the rest is cut off and counted.
    #[arg(long, default_value_t = SegmentLimits::default().max_page_bytes)]
    max_page_bytes: usize,
    /// Per page: nesting depth tracked; deeper elements count as inline.
    #[arg(long, default_value_t = SegmentLimits::default().max_depth)]
    max_depth: usize,
    /// Per page: blocks; further layout elements count as inline.
    #[arg(long, default_value_t = SegmentLimits::default().max_blocks)]
    max_blocks: usize,
    /// Per page: words; blocks after the one that reaches it are left out and counted.
    #[arg(long, default_value_t = SegmentLimits::default().max_words)]
    max_words: usize,
}

/// Parses a share between 0 and 1.
fn share(text: &str) -> Result<f64, String> {
    let value: f64 = text
        .parse()
        .map_err(|_| format!("`{text}` is not a number"))?;
    if (0.0..=1.0).contains(&value) {
        Ok(value)
    } else {
        Err(format!("{value} is not between 0 and 1"))
    }
}

impl RunArgs {
    fn options(&self, detector: DetectorKind) -> Result<BuildOptions> {
        let defaults = BuildOptions::default();
        Ok(BuildOptions {
            detector,
            bloom: BloomSettings {
                similarity: self.bloom_similarity,
                min_cluster_blocks: self.bloom_min_blocks,
                drop_ratio: self.bloom_drop_ratio,
                min_word_frequency: self.bloom_min_word_frequency,
                keep_headings_of_kept_blocks: !self.bloom_paper_headings,
                max_site_words: self.bloom_max_site_words,
            },
            sandwich: SandwichSettings {
                unit: self.sandwich_unit,
                max_cost: self.sandwich_max_cost,
                peers_per_directory: self.sandwich_peers,
                ..SandwichSettings::default()
            },
            table_chunk: TableChunkSettings {
                min_documents: self.table_chunk_min_documents,
                cluster: self.table_chunk_cluster,
                layout_tags: self.table_chunk_layout_tags,
                key_by_path: self.table_chunk_key_by_path,
                ..TableChunkSettings::default()
            },
            incremental: IncrementalSettings {
                min_frequency: self.incremental_min_frequency,
                drop_ratio: self.incremental_drop_ratio,
                base_lifetime: self.incremental_base_lifetime.max(1),
                lifetime_factor: self.incremental_lifetime_factor.max(1.0),
                max_segments_per_site: self.incremental_max_segments,
            },
            menu: MenuSettings {
                pages: self.menu_pages,
                max_links: self.menu_max_links,
                ..MenuSettings::default()
            },
            threads: self.threads.unwrap_or(defaults.threads).max(1),
            limits: SegmentLimits {
                max_page_bytes: self.max_page_bytes,
                max_depth: self.max_depth,
                max_blocks: self.max_blocks,
                max_words: self.max_words,
            },
            base_url: self.base_url.clone(),
            batch_memory: self.batch_memory.saturating_mul(1 << 20),
            scratch_dir: None,
            one_pass: false,
            memory_budget: usize::try_from(self.memory_budget)
                .unwrap_or(usize::MAX)
                .saturating_mul(1 << 20),
            stop: None,
        })
    }
}

/// Exit code of a run stopped by SIGINT (128 + the signal's number, as shells report it).
const INTERRUPTED: u8 = 130;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error:#}");
            let interrupted = error
                .chain()
                .any(|cause| matches!(cause.downcast_ref(), Some(build::BuildError::Interrupted)));
            ExitCode::from(if interrupted { INTERRUPTED } else { 1 })
        }
    }
}

/// A flag set by the first Ctrl-C (SIGINT); a second one ends the process at once.
fn stop_on_interrupt() -> Arc<AtomicBool> {
    let stop = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&stop);
    let installed = ctrlc::set_handler(move || {
        if flag.swap(true, Ordering::SeqCst) {
            std::process::exit(i32::from(INTERRUPTED));
        }
        eprintln!("\ninterrupted: stopping (press Ctrl-C again to quit at once)");
    });
    if let Err(error) = installed {
        eprintln!("warning: Ctrl-C will end the process abruptly ({error})");
    }
    stop
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Build {
            inputs,
            index,
            detector,
            one_pass,
            run,
            json,
        } => {
            let detector = if one_pass {
                let detector = detector.unwrap_or(DetectorKind::Incremental);
                if build::passes_of(detector) != Passes::One {
                    let message = format!(
                        "--one-pass needs a one-pass detector (incremental, sandwich, none); \
                         {} learns from every page before deciding",
                        detector.as_str()
                    );
                    Cli::command()
                        .error(clap::error::ErrorKind::ArgumentConflict, message)
                        .exit();
                }
                detector
            } else {
                detector.unwrap_or(DetectorKind::Bloom)
            };
            let mut options = run.options(detector)?;
            options.one_pass = one_pass;
            options.stop = Some(stop_on_interrupt());
            let progress = TerminalProgress::new();
            let summary = build::build_index(&inputs, &index, &options, &progress)
                .with_context(|| format!("building {}", index.display()))?;
            for warning in &summary.warnings {
                eprintln!("warning: {warning}");
            }
            if json {
                println!("{}", serde_json::to_string_pretty(&summary)?);
            } else {
                print_summary(&summary);
                println!("index: {}", index.display());
            }
        }
        Command::Extract {
            inputs,
            detector,
            run,
        } => {
            let mut options = run.options(detector)?;
            options.stop = Some(stop_on_interrupt());
            let progress = TerminalProgress::new();
            let stdout = std::io::stdout();
            let mut out = BufWriter::new(stdout.lock());
            let summary = build::extract(&inputs, &options, &progress, &mut |decided| {
                let line = serde_json::json!({
                    "url": decided.page.url,
                    "site": decided.page.site,
                    "title": decided.page.title,
                    "text": decided.kept_text(),
                });
                serde_json::to_writer(&mut out, &line).map_err(std::io::Error::from)?;
                out.write_all(b"\n")?;
                Ok(())
            })?;
            out.flush()?;
            for warning in &summary.warnings {
                eprintln!("warning: {warning}");
            }
            eprintln!(
                "extracted {} pages with {} ({} records{}) in {:.1}s",
                summary.pages,
                summary.detector,
                summary.records,
                build::format_skips(&summary.skipped),
                summary.seconds
            );
        }
        Command::Eval {
            inputs,
            labels,
            detectors,
            seed,
            sites,
            json,
            report,
            chart,
            run,
        } => {
            let options = run.options(DetectorKind::Bloom)?;
            let labels = eval::load_labels(&eval::expand_patterns(&labels)?)?;
            anyhow::ensure!(
                !labels.is_empty(),
                "the label files hold no usable labelled page"
            );
            let progress = TerminalProgress::new();
            let figures = eval::evaluate(&inputs, &labels, &detectors, &options, seed, &progress)?;
            let markdown = figures.to_markdown(sites);
            if json {
                println!("{}", serde_json::to_string_pretty(&figures)?);
            } else {
                print!("{markdown}");
            }
            if let Some(path) = report {
                std::fs::write(&path, &markdown)
                    .with_context(|| format!("writing {}", path.display()))?;
            }
            if let Some(path) = chart {
                eval::write_chart(&figures, &path)?;
            }
        }
        Command::Search {
            index,
            query,
            limit,
            json,
        } => {
            let open = OpenIndex::open(&index)?;
            let hits = search(&open, &query, limit)?;
            if json {
                println!("{}", serde_json::to_string_pretty(&hits)?);
            } else if hits.is_empty() {
                println!("no results");
            } else {
                let bold = std::io::stdout().is_terminal();
                for hit in &hits {
                    println!("{:>3}. {:.3}  {}", hit.rank, hit.score, hit.url);
                    if !hit.title.is_empty() {
                        println!("     {}", hit.title);
                    }
                    println!("     {}", mark(&hit.snippet, &hit.highlights, bold));
                }
            }
        }
        Command::Stats { index, json } => {
            let open = OpenIndex::open(&index)?;
            let figures = stats(&open)?;
            let summary: BuildSummary = open.summary()?;
            if json {
                let both = serde_json::json!({ "index": figures, "build": summary });
                println!("{}", serde_json::to_string_pretty(&both)?);
            } else {
                print_stats(&figures);
                println!();
                print_summary(&summary);
            }
        }
        Command::Compare { a, b, json } => {
            let (open_a, open_b) = (OpenIndex::open(&a)?, OpenIndex::open(&b)?);
            let (stats_a, stats_b) = (stats(&open_a)?, stats(&open_b)?);
            let rows = compare_rows(&stats_a, &stats_b);
            if json {
                let rows: Vec<_> = rows
                    .iter()
                    .map(|(name, x, y)| serde_json::json!({"figure": name, "a": x, "b": y, "ratio": ratio(*x, *y)}))
                    .collect();
                let out = serde_json::json!({"a": a, "b": b, "figures": rows});
                println!("{}", serde_json::to_string_pretty(&out)?);
            } else {
                println!("A = {}\nB = {}\n", a.display(), b.display());
                println!(
                    "{:<24} {:>14} {:>14} {:>8} {:>8}",
                    "figure", "A", "B", "B/A", "change"
                );
                for (name, x, y) in rows {
                    let r = ratio(x, y);
                    println!(
                        "{:<24} {:>14} {:>14} {:>8} {:>8}",
                        name,
                        x,
                        y,
                        r.map_or("-".into(), |r| format!("{r:.3}")),
                        r.map_or("-".into(), |r| format!("{:+.1}%", (r - 1.0) * 100.0)),
                    );
                }
            }
        }
    }
    Ok(())
}

fn ratio(a: u64, b: u64) -> Option<f64> {
    (a > 0).then(|| b as f64 / a as f64)
}

fn compare_rows(a: &IndexStats, b: &IndexStats) -> Vec<(String, u64, u64)> {
    let mut rows = vec![
        ("documents".to_string(), a.documents, b.documents),
        ("unique terms".to_string(), a.unique_terms, b.unique_terms),
        ("postings".to_string(), a.postings, b.postings),
        ("tokens".to_string(), a.tokens, b.tokens),
    ];
    let components: std::collections::BTreeSet<&String> =
        a.bytes.keys().chain(b.bytes.keys()).collect();
    for component in components {
        rows.push((
            format!("bytes: {component}"),
            a.bytes.get(component).copied().unwrap_or(0),
            b.bytes.get(component).copied().unwrap_or(0),
        ));
    }
    rows.push(("bytes: total".to_string(), a.total_bytes, b.total_bytes));
    rows
}

fn mark(snippet: &str, highlights: &[(usize, usize)], bold: bool) -> String {
    let (open, close) = if bold {
        ("\x1b[1m", "\x1b[0m")
    } else {
        ("[", "]")
    };
    let mut out = String::new();
    let mut at = 0;
    for &(start, end) in highlights {
        if start < at
            || end > snippet.len()
            || !snippet.is_char_boundary(start)
            || !snippet.is_char_boundary(end)
        {
            continue;
        }
        out.push_str(&snippet[at..start]);
        out.push_str(open);
        out.push_str(&snippet[start..end]);
        out.push_str(close);
        at = end;
    }
    out.push_str(&snippet[at..]);
    out
}

fn print_stats(figures: &IndexStats) {
    println!("documents      {}", figures.documents);
    println!("unique terms   {}", figures.unique_terms);
    println!("postings       {}", figures.postings);
    println!("tokens         {}", figures.tokens);
    println!("bytes on disk  {}", figures.total_bytes);
    for (component, bytes) in &figures.bytes {
        println!("  {component:<20} {bytes}");
    }
}

fn print_summary(summary: &BuildSummary) {
    let blocks = summary.blocks_kept + summary.blocks_dropped;
    let text = summary.text_bytes_kept + summary.text_bytes_dropped;
    let share = |part: u64, whole: u64| {
        if whole == 0 {
            0.0
        } else {
            100.0 * part as f64 / whole as f64
        }
    };
    let passes = if summary.passes == 2 {
        "learns from every page, then decides"
    } else {
        "decides each page as it arrives"
    };
    println!(
        "detector       {} ({passes}) {}",
        summary.detector, summary.settings
    );
    println!(
        "pages          {} of {} records",
        summary.pages, summary.records
    );
    for (reason, count) in &summary.skipped {
        println!("  skipped      {count} {reason}");
    }
    for (limit, count) in &summary.limited {
        println!("  cut short    {count} by {limit} limit");
    }
    println!(
        "blocks         {} kept, {} dropped ({:.1}% dropped)",
        summary.blocks_kept,
        summary.blocks_dropped,
        share(summary.blocks_dropped, blocks)
    );
    println!(
        "text bytes     {} kept, {} dropped ({:.1}% dropped)",
        summary.text_bytes_kept,
        summary.text_bytes_dropped,
        share(summary.text_bytes_dropped, text)
    );
    for (name, count) in &summary.counters {
        println!("  {name:<28} {count}");
    }
    println!(
        "memory         {} bytes of detector state, {} bytes of pages waiting ({} batch{}) at peak",
        summary.peak_state_bytes,
        summary.peak_batch_bytes,
        summary.batches,
        if summary.batches == 1 { "" } else { "es" }
    );
    if summary.rounds > 1 {
        println!(
            "rounds         {} rounds of sites (split by host) to stay within {} MiB",
            summary.rounds,
            summary.memory_budget >> 20
        );
    }
    let mb = summary.html_bytes as f64 / 1e6;
    println!(
        "time           {:.2}s for {:.1} MB of HTML ({:.1} MB/s, {} threads)",
        summary.seconds,
        mb,
        if summary.seconds > 0.0 {
            mb / summary.seconds
        } else {
            0.0
        },
        summary.threads
    );
}

/// Progress on stderr when it is a terminal; nothing otherwise.
struct TerminalProgress {
    bar: ProgressBar,
    pass_started: std::sync::Mutex<Instant>,
    records: AtomicU64,
    html_bytes: AtomicU64,
}

impl TerminalProgress {
    fn new() -> Self {
        let bar = ProgressBar::new_spinner();
        if std::io::stderr().is_terminal() {
            bar.set_draw_target(ProgressDrawTarget::stderr_with_hz(5));
        } else {
            bar.set_draw_target(ProgressDrawTarget::hidden());
        }
        if let Ok(style) = ProgressStyle::with_template("{spinner} {prefix} {msg}") {
            bar.set_style(style);
        }
        TerminalProgress {
            bar,
            pass_started: std::sync::Mutex::new(Instant::now()),
            records: AtomicU64::new(0),
            html_bytes: AtomicU64::new(0),
        }
    }
}

impl Progress for TerminalProgress {
    fn start_pass(&self, name: &str) {
        self.records.store(0, Ordering::Relaxed);
        self.html_bytes.store(0, Ordering::Relaxed);
        if let Ok(mut started) = self.pass_started.lock() {
            *started = Instant::now();
        }
        self.bar.set_prefix(name.to_string());
    }

    fn record_done(&self, html_bytes: usize) {
        let records = self.records.fetch_add(1, Ordering::Relaxed) + 1;
        let bytes = self
            .html_bytes
            .fetch_add(html_bytes as u64, Ordering::Relaxed)
            + html_bytes as u64;
        if records.is_multiple_of(32) && !self.bar.is_hidden() {
            let seconds = self
                .pass_started
                .lock()
                .map(|started| started.elapsed().as_secs_f64())
                .unwrap_or(0.0)
                .max(1e-6);
            self.bar.set_message(format!(
                "{records} records, {:.0} pages/s, {:.1} MB/s of HTML",
                records as f64 / seconds,
                bytes as f64 / 1e6 / seconds
            ));
            self.bar.tick();
        }
    }

    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
