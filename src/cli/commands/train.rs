//! `indexer train`: inputs and labelled pages in, a `hybrid` model file out (and, with
//! `--cross-validate`, each site's pages decided by a model that never saw it); with
//! `--pages-per-site`, the training set pooled from reads of each site sampled to each size.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, Result};
use clap::Args;

use indexer::detect::DetectorKind;
use indexer::eval;
use indexer::learn::{self, BoostSettings, Evidence, Family};
use indexer::output::{Compression, OutputFile};
use indexer::run::{BuildOptions, PagesPerSite, Progress, Sampling};

use crate::cli::choice::choice;
use crate::cli::detectors::share;
use crate::cli::flags::{Inputs, RunArgs, TruthArgs};
use crate::cli::interrupt::stop_on_interrupt;
use crate::cli::progress::TerminalProgress;
use crate::cli::{load_truth, write_atomically};

/// `train`'s flags.
#[derive(Args)]
pub struct TrainArgs {
    #[command(flatten)]
    inputs: Inputs,
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
    /// Seed of the training's random choices (and of the sampled pages of --pages-per-site).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Train on each site (the host of its pages) sampled down to K pages, as if the crawl
    /// held only them; K, comma-separated, for a read of each sample, all pooled into one
    /// training set (all: whole sites). Pages are chosen by --seed as `eval --pages-per-site`
    /// chooses them; --cross-validate holds a site's samples out together and writes each
    /// held-out page once per K.
    #[arg(long, value_name = "K[,K...]", value_delimiter = ',')]
    pages_per_site: Vec<PagesPerSite>,
    /// With --pages-per-site 1 (and a larger size): read N different pages of each site at
    /// one page per site, each in a read of its own, so the model learns lone pages of the
    /// kinds the labelled sites hold; a site's lone pages weigh together as one more site.
    /// 1: off. The built-in models are trained with 16 (docs/MEASUREMENTS.md, lone pages).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=1000))]
    lone_page_draws: u64,
    /// With --cross-validate and --pages-per-site: also decide held out draws 2 to N of each
    /// size — disjoint samples, as `eval --draws N` scores them — read for cross-validation
    /// alone (no model learns from them; the lone-page draws count among them at one page
    /// per site). The model written is the same.
    #[arg(long, value_name = "N", default_value_t = 1, requires_all = ["cross_validate", "pages_per_site"], value_parser = clap::value_parser!(u64).range(1..=1000))]
    held_out_draws: u64,
    /// Multiply the weight of the pages labelled in files matching PATTERN (a glob, as given
    /// to --labels or --snippets) by FACTOR, so that a labelled set of other conventions can
    /// teach without outweighing the rest (each page otherwise weighs as its site's share;
    /// docs/MEASUREMENTS.md). Repeatable; a page named by several patterns takes the last.
    #[arg(long, value_name = "PATTERN=FACTOR", value_parser = weighed_pattern)]
    weigh: Vec<(String, f32)>,
    /// Train without the feature NAME: its value is blanked before fitting, so the model never
    /// reads it (its name stays in the model's feature list). Repeatable. The built-in
    /// one-pass model is trained without `unlinked_words_before_share`, the two-pass model
    /// without `levels_to_boilerplate_name` and `levels_to_content_name` (docs/MEASUREMENTS.md).
    #[arg(long, value_name = "NAME", value_parser = feature_name)]
    without_feature: Vec<String>,
    /// Trees: how many (default 120).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=100_000))]
    trees: Option<u64>,
    /// Trees: levels of splits at most (default 6).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=32))]
    depth: Option<u64>,
    /// Trees: learning rate (default 0.15).
    #[arg(long, value_name = "RATE", value_parser = share)]
    learning_rate: Option<f64>,
    /// Trees: each tree may split only on features drawn for it, each with probability
    /// SHARE, at least one; 1 is every feature, nothing drawn (default 1).
    #[arg(long, value_name = "SHARE", value_parser = share)]
    feature_share: Option<f64>,
    /// Trees: rows a leaf holds at least (default 20).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    min_leaf_rows: Option<u64>,
    /// Trees: fit N ensembles, with seeds --seed to --seed + N − 1 (each its own rows per
    /// tree, its own features per tree with --feature-share and, above 50,000 blocks, its
    /// own sample for the bins' cuts; the pages sampled stay --seed's), and average their
    /// log-odds into one model of N × --trees trees: decisions turn less on the seed
    /// (docs/MEASUREMENTS.md, cross-validation).
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=64))]
    ensemble: u64,
    /// The keep threshold written into the model (chosen in leave-one-site-out runs:
    /// docs/MEASUREMENTS.md, cross-validation).
    #[arg(long, default_value_t = 0.6, value_parser = share)]
    threshold: f64,
    /// Also hold out each site in turn (sites with fewer than 20 labelled pages in ten
    /// folds of sites), fit on the rest, and write the held-out pages' kept text to this
    /// file as JSON lines {"url","text","fold"} (gzip or zstd when named .gz or .zst) — the
    /// figures to quote for unseen sites, by word F1: the text is each kept block on a line,
    /// without the page's layout. As many folds are fitted at once as --threads says
    /// (each holds its own copy of the training rows); the lines are the same whatever the
    /// number.
    #[arg(long)]
    cross_validate: Option<PathBuf>,
    /// Print the result as JSON.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    pub run: RunArgs,
}

/// Fits the model (and the held-out models) and says what was written.
pub fn run(args: TrainArgs) -> Result<()> {
    if args.family != Family::Trees {
        let given = [
            (args.ensemble > 1, "--ensemble"),
            (args.trees.is_some(), "--trees"),
            (args.depth.is_some(), "--depth"),
            (args.learning_rate.is_some(), "--learning-rate"),
            (args.feature_share.is_some(), "--feature-share"),
            (args.min_leaf_rows.is_some(), "--min-leaf-rows"),
        ];
        if let Some((_, flag)) = given.iter().find(|(given, _)| *given) {
            clap::Error::raw(
                clap::error::ErrorKind::ArgumentConflict,
                format!("{flag} shapes the trees; --family logistic fits one regression\n"),
            )
            .exit()
        }
    }
    let (labels, snippets) = load_truth(&args.truth)?;
    let labelled: HashSet<&str> = (labels.iter().map(|label| label.url.as_str()))
        .chain(snippets.iter().map(|label| label.url.as_str()))
        .collect();
    let defaults = BoostSettings::default();
    let options = learn::TrainOptions {
        build: BuildOptions {
            stop: Some(stop_on_interrupt()),
            ..args.run.options(DetectorKind::Hybrid)?
        },
        family: args.family,
        evidence: args.evidence,
        boost: learn::BoostSettings {
            trees: args.trees.map_or(defaults.trees, |trees| trees as usize),
            depth: args.depth.map_or(defaults.depth, |depth| depth as usize),
            learning_rate: args
                .learning_rate
                .map_or(defaults.learning_rate, |rate| rate as f32),
            feature_share: args
                .feature_share
                .map_or(defaults.feature_share, |share| share as f32),
            min_leaf_rows: args
                .min_leaf_rows
                .map_or(defaults.min_leaf_rows, |rows| rows as usize),
            ensembles: args.ensemble as usize,
            ..defaults
        },
        seed: args.seed,
        threshold: args.threshold as f32,
        sampling: Sampling::new(&args.pages_per_site, args.seed),
        lone_page_draws: args.lone_page_draws as usize,
        held_out_draws: args.held_out_draws as usize,
        page_weights: Arc::new(page_weights(&args.weigh, &labelled)?),
        without_features: args.without_feature.clone(),
        ..learn::TrainOptions::default()
    };
    let inputs = &args.inputs.inputs;
    let out = &args.out;
    // A path that cannot be written fails before the training, not after it.
    OutputFile::check_writable(out)?;
    if let Some(path) = &args.cross_validate {
        OutputFile::check_writable(path)?;
    }
    let progress = TerminalProgress::new();
    let started = std::time::Instant::now();
    let collected = learn::collect(inputs, &labels, &snippets, &options, &progress)?;
    let steps = match args.family {
        Family::Trees => "trees",
        Family::Logistic => "steps",
    };
    progress.start_pass("fitting");
    let model = learn::fit(
        &collected.dataset(|_| true),
        &options,
        inputs,
        &|done, of| {
            progress.steps_done(done, of, steps);
        },
    );
    progress.finish();
    let model = model.with_context(|| format!("{} was not written", out.display()))?;
    write_atomically(out, model.to_json().as_bytes(), Compression::None)?;
    if let Some(path) = &args.cross_validate {
        let held_out = learn::cross_validate(&collected, &options, |fold, at, folds| {
            progress.start_pass(&format!("cross-validation {}/{folds}: {fold}", at + 1));
        });
        progress.finish();
        let held_out = held_out.with_context(|| {
            format!(
                "wrote {}; the held-out pages were not written to {}",
                out.display(),
                path.display()
            )
        })?;
        let mut file = OutputFile::create(path, false)?;
        for page in &held_out {
            let mut line = serde_json::to_vec(page)?;
            line.push(b'\n');
            file.write_record(&line)?;
        }
        file.commit()?;
        notice!(
            "wrote {} held-out pages to {}",
            held_out.len(),
            path.display()
        );
    }
    let seconds = started.elapsed().as_secs_f64();
    let said;
    if args.json {
        let mut summary = serde_json::json!({
            "model": out,
            "description": model.describe(),
            "labelled_pages_given": labels.len() + snippets.len(),
            "pages": model.provenance.pages,
            "blocks": model.provenance.blocks,
            "content_blocks": model.provenance.content_blocks,
            "seconds": seconds,
        });
        if let Some(sampling) = &options.sampling {
            summary["pages_per_site"] = serde_json::json!(sampling.pages_per_site);
        }
        said = crate::cli::print::pretty_json(&summary)?;
    } else {
        said = format!(
            "wrote {} ({}; {} of {} blocks content) in {seconds:.1}s",
            out.display(),
            model.describe(),
            model.provenance.content_blocks,
            model.provenance.blocks,
        );
    }
    // A model written to standard output is all that standard output holds.
    if indexer::output::is_standard_output(out) {
        eprintln!("{said}");
    } else {
        println!("{said}");
    }
    // Sampled below whole sites, most labelled pages are left out on purpose.
    let whole_sites = (options.sampling.as_ref())
        .is_none_or(|sampling| sampling.pages_per_site.contains(&PagesPerSite::All));
    let found: HashSet<&str> = (collected.pages.iter())
        .filter(|page| page.labels.iter().any(Option::is_some))
        .map(|page| page.url.as_str())
        .collect();
    let (found, given) = (found.len(), labels.len() + snippets.len());
    if whole_sites && found < given {
        notice!(
            "warning: {} of {given} labelled pages were not found in the input or had no labelled block",
            given - found
        );
    }
    Ok(())
}

/// `--without-feature`'s value: the name of one of the model's features.
fn feature_name(value: &str) -> Result<String, String> {
    let names = indexer::detect::hybrid::features::names();
    if names.iter().any(|name| name == value) {
        Ok(value.to_string())
    } else {
        Err(format!(
            "no feature is named {value:?}; a model file's \"features\" lists them (e.g. {})",
            names[..3].join(", ")
        ))
    }
}

/// `--weigh`'s value: a pattern and a positive factor, split at the last `=`.
fn weighed_pattern(value: &str) -> Result<(String, f32), String> {
    let (pattern, factor) = value
        .rsplit_once('=')
        .ok_or_else(|| format!("expected PATTERN=FACTOR, got {value:?}"))?;
    match factor.trim().parse::<f32>() {
        Ok(factor) if factor.is_finite() && factor > 0.0 && !pattern.is_empty() => {
            Ok((pattern.to_string(), factor))
        }
        _ => Err(format!(
            "expected PATTERN=FACTOR with a pattern and a positive number, got {value:?}"
        )),
    }
}

/// The factor on the weight of each of the `labelled` pages named in the files `--weigh`'s
/// patterns match; a pattern that names none of them is warned of (it weighs nothing).
fn page_weights(
    weighed: &[(String, f32)],
    labelled: &HashSet<&str>,
) -> Result<HashMap<String, f32>> {
    let mut weights = HashMap::new();
    for (pattern, factor) in weighed {
        let files = eval::expand_patterns(std::slice::from_ref(pattern))?;
        let urls: Vec<String> = (eval::load_urls(&files)?.into_iter())
            .filter(|url| labelled.contains(url.as_str()))
            .collect();
        if urls.is_empty() {
            notice!(
                "warning: --weigh {pattern}={factor}: its files name none of the pages of --labels or --snippets"
            );
        }
        for url in urls {
            weights.insert(url, *factor);
        }
    }
    Ok(weights)
}

#[cfg(test)]
mod tests {
    use clap::{Args, Command};

    use super::*;

    /// The tree flags are `Option`s (so that `--family logistic` can refuse them when given),
    /// which shows no default in `--help`: their help text states it, and must say the
    /// learner's.
    #[test]
    fn the_tree_flags_help_states_the_learners_defaults() {
        let command = TrainArgs::augment_args(Command::new("train"));
        let help = |id: &str| {
            command
                .get_arguments()
                .find(|arg| arg.get_id() == id)
                .and_then(|arg| arg.get_help())
                .map(ToString::to_string)
                .unwrap_or_default()
        };
        let defaults = BoostSettings::default();
        for (id, default) in [
            ("trees", defaults.trees.to_string()),
            ("depth", defaults.depth.to_string()),
            ("learning_rate", defaults.learning_rate.to_string()),
            ("feature_share", defaults.feature_share.to_string()),
            ("min_leaf_rows", defaults.min_leaf_rows.to_string()),
        ] {
            let help = help(id);
            assert!(
                help.contains(&format!("(default {default})")),
                "--{id}: {help:?} does not say (default {default})"
            );
        }
    }

    #[test]
    fn weigh_takes_a_pattern_and_a_positive_factor() {
        assert_eq!(
            weighed_pattern("lone/dragnet*=0.25"),
            Ok(("lone/dragnet*".to_string(), 0.25))
        );
        assert_eq!(
            weighed_pattern("a=b/*.gz=2"),
            Ok(("a=b/*.gz".to_string(), 2.0))
        );
        for refused in ["lone/*", "=0.5", "x=0", "x=-1", "x=nan", "x=inf", "x=some"] {
            assert!(weighed_pattern(refused).is_err(), "{refused}");
        }
    }
}
