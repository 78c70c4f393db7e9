//! `indexer eval`: inputs, labelled pages and detectors in; one index per detector (and an
//! oracle of the labelled content), then a table of quality, index size and known-item
//! retrieval out (markdown, JSON, an SVG chart, every query's rank) — with
//! `--pages-per-site`, all of it once per sampled size of the sites.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use indexer::detect::DetectorKind;
use indexer::eval;
use indexer::output::{Compression, OutputFile};
use indexer::run::{DEFAULT_DETECTOR, PagesPerSite, Sampling};

use crate::cli::choice::choice;
use crate::cli::flags::{Inputs, RunArgs, TruthArgs};
use crate::cli::load_truth;
use crate::cli::progress::TerminalProgress;

/// `eval`'s flags.
#[derive(Args)]
pub struct EvalArgs {
    #[command(flatten)]
    inputs: Inputs,
    #[command(flatten)]
    truth: TruthArgs,
    /// Also measure kept text from a file (`NAME=FILE`, JSON lines with `url` and `text`,
    /// as `extract` or `train --cross-validate` write it; .gz or .zst allowed) as an index of
    /// its own.
    #[arg(long, value_name = "NAME=FILE")]
    predictions: Vec<String>,
    /// Detectors to measure, comma-separated; `none` is always measured as the baseline.
    #[arg(long = "detector", value_parser = choice::<DetectorKind>(), value_delimiter = ',', default_values_t = [DEFAULT_DETECTOR])]
    pub detectors: Vec<DetectorKind>,
    /// Seed for the sampled phrase queries (and the sampled pages of --pages-per-site).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Sample each site (the host of its pages) down to K pages and measure on those pages
    /// alone, as if the crawl held only them; K, comma-separated, for a row per K and index
    /// (all: whole sites). A site's pages are chosen by a hash of --seed and their URL: the
    /// same seed, the same pages.
    #[arg(long, value_name = "K[,K...]", value_delimiter = ',')]
    pages_per_site: Vec<PagesPerSite>,
    /// With --pages-per-site, draw N disjoint samples of each size and score their pages
    /// together, each sample a run of its own: draw d (from 0; draw 0 is the seed's sample)
    /// holds the pages ranked d×K to (d+1)×K−1 of every site with the pages to fill it, so a
    /// size's row stands on up to N times the pages of one sample (at all: one). Predictions
    /// from `train --cross-validate` must hold the draws (`train --held-out-draws N`, or at
    /// one page per site --lone-page-draws N).
    #[arg(long, value_name = "N", default_value_t = 1, requires = "pages_per_site", value_parser = clap::value_parser!(u64).range(1..=1000))]
    draws: u64,
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
    /// Also write every known-item query to this file, a JSON line each: the index (and
    /// its pages per site), the kind (title or phrase), the query, the page's URL, its rank
    /// (null: not in the first ten) and the first result (gzip or zstd when named .gz or
    /// .zst).
    #[arg(long, value_name = "FILE")]
    queries: Option<PathBuf>,
    #[command(flatten)]
    pub run: RunArgs,
}

/// Measures the detectors and prints (and writes) the figures.
pub fn run(args: EvalArgs) -> Result<()> {
    let options = args.run.options(DEFAULT_DETECTOR)?;
    let (labels, snippets) = load_truth(&args.truth)?;
    let predictions = args
        .predictions
        .iter()
        .map(|given| {
            let (name, path) = given.split_once('=').unwrap_or(("predictions", given));
            Ok(eval::load_predictions(name, std::path::Path::new(path))?)
        })
        .collect::<Result<Vec<_>>>()?;
    let progress = TerminalProgress::new();
    let truth = eval::Truth {
        labels: &labels,
        snippets: &snippets,
    };
    // A path that cannot be written fails before the indexes are built, not after the whole
    // evaluation.
    for path in [&args.report, &args.chart, &args.queries]
        .into_iter()
        .flatten()
    {
        OutputFile::check_writable(path)?;
    }
    let plan = eval::EvalPlan {
        detectors: &args.detectors,
        predictions: &predictions,
        options: &options,
        queries: eval::QuerySettings {
            seed: args.seed,
            weights: indexer::search::Weights {
                title: args.title_boost,
                title_phrase: args.title_phrase_boost,
                title_part: args.title_part_boost,
            },
        },
        sampling: Sampling::new(&args.pages_per_site, args.seed),
        draws: args.draws as usize,
    };
    let figures = eval::evaluate(&args.inputs.inputs, truth, &plan, &progress)?;
    if figures.labelled_pages_missing > 0 {
        notice!(
            "warning: {} of {} labelled pages are not in the input and score as empty; \
             check the inputs and the --labels patterns (quote globs)",
            figures.labelled_pages_missing,
            labels.len() + snippets.len()
        );
    }
    if figures.labelled_pages_unpredicted > 0 {
        notice!(
            "note: {} labelled pages were left out of every row: the predictions hold no \
             kept text of them at their size",
            figures.labelled_pages_unpredicted
        );
    }
    let markdown = figures.to_markdown(args.sites);
    if args.json {
        println!("{}", crate::cli::print::pretty_json(&figures)?);
    } else {
        print!("{markdown}");
    }
    if let Some(path) = args.report {
        crate::cli::write_atomically(&path, markdown.as_bytes(), Compression::None)?;
    }
    if let Some(path) = args.chart {
        let chart = eval::chart_svg(&figures)?;
        crate::cli::write_atomically(&path, chart.as_bytes(), Compression::None)?;
    }
    if let Some(path) = &args.queries {
        let mut lines = Vec::new();
        figures.write_queries(&mut lines)?;
        crate::cli::write_atomically(path, &lines, Compression::of_path(path))?;
    }
    Ok(())
}
