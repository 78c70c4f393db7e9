//! The command line: arguments ([`args`], one flag group per detector in [`detectors`]),
//! printing ([`print`]), progress ([`progress`]) and Ctrl-C ([`interrupt`]). It parses,
//! calls the library and prints; it decides nothing the library could.

/// `--quiet`: no progress, warnings or notes on stderr (errors still go there).
static QUIET: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether `--quiet` was given.
fn quiet() -> bool {
    QUIET.load(std::sync::atomic::Ordering::Relaxed)
}

/// Prints a line on stderr unless `--quiet` was given (warnings, notes, summaries).
macro_rules! notice {
    ($($line:tt)*) => {
        if !crate::cli::quiet() {
            eprintln!($($line)*);
        }
    };
}

mod args;
mod choice;
mod detectors;
mod interrupt;
mod print;
mod progress;

use std::io::{BufWriter, Write};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::parser::ValueSource;
use clap::{ArgMatches, CommandFactory, FromArgMatches};

use indexer::detect::DetectorKind;
use indexer::eval;
use indexer::index::{OpenIndex, stats_of};
use indexer::learn;
use indexer::run::{self, BuildOptions, BuildSummary, DEFAULT_DETECTOR, Progress};

use args::{Cli, Command, RunArgs};
use interrupt::{INTERRUPTED, stop_on_interrupt};
use print::{compare_rows, mark, print_stats, print_summary, ratio};
use progress::TerminalProgress;

/// Parses the command line, runs it and says how it ended.
pub fn main() -> ExitCode {
    quiet_on_closed_pipe();
    let matches =
        Cli::command().get_matches_from(args::with_search_words_last(std::env::args_os()));
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|error| error.exit());
    QUIET.store(cli.quiet, std::sync::atomic::Ordering::Relaxed);
    if let Some(detectors) = detectors_used(&cli) {
        for warning in idle_detector_flags(&matches, &detectors) {
            notice!("warning: {warning}");
        }
    }
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {}", error_message(&error));
            let interrupted = error.chain().any(|cause| {
                matches!(cause.downcast_ref(), Some(run::BuildError::Interrupted))
                    || matches!(
                        cause.downcast_ref(),
                        Some(indexer::shard::PartitionError::Interrupted)
                    )
            });
            ExitCode::from(if interrupted { INTERRUPTED } else { 1 })
        }
    }
}

/// `error` and its causes, joined by ": ", each cause said once: a cause whose text the
/// message already holds (an error that prints its source as part of itself) is left out.
fn error_message(error: &anyhow::Error) -> String {
    let mut message = String::new();
    for cause in error.chain() {
        let text = cause.to_string();
        if message.contains(&text) {
            continue;
        }
        if !message.is_empty() {
            message.push_str(": ");
        }
        message.push_str(&text);
    }
    message
}

/// Writes the run's skipped records and cut pages to `path` as JSON lines (if asked).
fn write_skip_log(path: Option<&std::path::Path>, summary: &BuildSummary) -> Result<()> {
    let Some(path) = path else {
        return Ok(());
    };
    let mut lines = Vec::new();
    for record in &summary.skipped_records {
        serde_json::to_writer(&mut lines, record)?;
        lines.push(b'\n');
    }
    write_atomically(path, &lines).with_context(|| format!("writing {}", path.display()))
}

/// The detectors a command runs, if it runs any.
fn detectors_used(cli: &Cli) -> Option<Vec<DetectorKind>> {
    match &cli.command {
        Command::Build { detector, run, .. } | Command::Extract { detector, run, .. } => {
            Some(vec![chosen_detector(*detector, run)])
        }
        Command::Eval { detectors, .. } => Some(detectors.clone()),
        Command::Train { .. } => Some(vec![DetectorKind::Hybrid]),
        _ => None,
    }
}

/// The detector flags given on the command line that none of `detectors` reads, each as a
/// sentence: a flag group is headed by its detector's name (`cli/detectors.rs`).
fn idle_detector_flags(matches: &ArgMatches, detectors: &[DetectorKind]) -> Vec<String> {
    let Some((name, given)) = matches.subcommand() else {
        return Vec::new();
    };
    let command = Cli::command();
    let Some(subcommand) = command.find_subcommand(name) else {
        return Vec::new();
    };
    let used: Vec<&str> = detectors.iter().map(|kind| kind.name()).collect();
    let listed = used.join(", ");
    let mut warnings = Vec::new();
    for arg in subcommand.get_arguments() {
        let on_command_line =
            given.value_source(arg.get_id().as_str()) == Some(ValueSource::CommandLine);
        let Some(long) = arg.get_long().filter(|_| on_command_line) else {
            continue;
        };
        if long == "keep-title-headings" {
            if used.iter().all(|&kind| kind == "hybrid") {
                warnings.push(
                    "--keep-title-headings does nothing for hybrid, which keeps title headings \
                     itself (see --hybrid-no-title-rule)"
                        .to_string(),
                );
            }
            continue;
        }
        if let Some(owner) = arg.get_help_heading()
            && DetectorKind::ALL.iter().any(|kind| kind.name() == owner)
            && !used.contains(&owner)
        {
            warnings.push(format!(
                "--{long} does nothing here: it is a setting of {owner}, and this run uses {listed}"
            ));
        }
    }
    warnings
}

/// The detector a run uses (see [`run::choose_detector`]); a two-pass detector under
/// `--one-pass` is a usage error.
fn chosen_detector(requested: Option<DetectorKind>, run: &RunArgs) -> DetectorKind {
    run::choose_detector(requested, run.one_pass).unwrap_or_else(|refused| {
        Cli::command()
            .error(clap::error::ErrorKind::ArgumentConflict, refused)
            .exit()
    })
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Build {
            inputs,
            index,
            detector,
            run,
            json,
        } => {
            let options = BuildOptions {
                stop: Some(stop_on_interrupt()),
                ..run.options(chosen_detector(detector, &run))?
            };
            let progress = TerminalProgress::new();
            let summary = run::build_index(&inputs, &index, &options, &progress)
                .with_context(|| format!("building {}", index.display()))?;
            write_skip_log(run.skip_log.as_deref(), &summary)?;
            for warning in &summary.warnings {
                notice!("warning: {warning}");
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
            explain,
            run,
        } => {
            let options = BuildOptions {
                stop: Some(stop_on_interrupt()),
                ..run.options(chosen_detector(detector, &run))?
            };
            let progress = TerminalProgress::new();
            let stdout = std::io::stdout();
            let mut out = BufWriter::new(stdout.lock());
            let summary = run::extract(&inputs, &options, &progress, &mut |decided| {
                let mut line = serde_json::json!({
                    "url": decided.page.url,
                    "site": decided.page.site,
                    "title": decided.page.title,
                    "text": decided.kept_text(),
                });
                if explain {
                    line["blocks"] = print::explained_blocks(&decided).into();
                }
                serde_json::to_writer(&mut out, &line).map_err(std::io::Error::from)?;
                out.write_all(b"\n")?;
                Ok(())
            })?;
            out.flush()?;
            write_skip_log(run.skip_log.as_deref(), &summary)?;
            for warning in &summary.warnings {
                notice!("warning: {warning}");
            }
            let truncated = match summary.truncated_pages {
                0 => String::new(),
                count => format!("; {count} truncated, kept in part"),
            };
            notice!(
                "extracted {} pages with {} ({} records{}{truncated}) in {:.1}s",
                summary.pages,
                summary.detector,
                summary.records,
                run::format_skips(&summary.skipped),
                summary.seconds
            );
        }
        Command::Eval {
            inputs,
            truth,
            predictions,
            detectors,
            seed,
            title_boost,
            title_phrase_boost,
            title_part_boost,
            sites,
            json,
            report,
            chart,
            queries,
            run,
        } => {
            let options = run.options(DEFAULT_DETECTOR)?;
            let (labels, snippets) = load_truth(&truth)?;
            let predictions = predictions
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
            // Created before the indexes are built, so a path that cannot be written fails
            // at once, not after the whole evaluation.
            let queries_file = queries
                .map(|path| {
                    let file = std::fs::File::create(&path)
                        .with_context(|| format!("creating {}", path.display()))?;
                    anyhow::Ok((path, file))
                })
                .transpose()?;
            let figures = eval::evaluate(
                &inputs,
                truth,
                &detectors,
                &predictions,
                &options,
                eval::QuerySettings {
                    seed,
                    weights: indexer::search::Weights {
                        title: title_boost,
                        title_phrase: title_phrase_boost,
                        title_part: title_part_boost,
                    },
                },
                &progress,
            )?;
            if figures.labelled_pages_missing > 0 {
                notice!(
                    "warning: {} of {} labelled pages are not in the input and score as empty; \
                     check the inputs and the --labels patterns (quote globs)",
                    figures.labelled_pages_missing,
                    labels.len() + snippets.len()
                );
            }
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
            if let Some((path, file)) = queries_file {
                figures
                    .write_queries(std::io::BufWriter::new(file))
                    .with_context(|| format!("writing {}", path.display()))?;
            }
        }
        Command::Train {
            inputs,
            truth,
            out,
            family,
            evidence,
            seed,
            trees,
            depth,
            learning_rate,
            threshold,
            cross_validate,
            json,
            run,
        } => {
            let (labels, snippets) = load_truth(&truth)?;
            let options = learn::TrainOptions {
                build: BuildOptions {
                    stop: Some(stop_on_interrupt()),
                    ..run.options(DetectorKind::Hybrid)?
                },
                family,
                evidence,
                boost: learn::BoostSettings {
                    trees,
                    depth,
                    learning_rate,
                    ..learn::BoostSettings::default()
                },
                seed,
                threshold: threshold as f32,
                ..learn::TrainOptions::default()
            };
            let progress = TerminalProgress::new();
            let started = std::time::Instant::now();
            let collected = learn::collect(&inputs, &labels, &snippets, &options.build, &progress)?;
            let model = learn::fit(&collected.dataset(|_| true), &options, &inputs);
            write_atomically(&out, model.to_json().as_bytes())
                .with_context(|| format!("writing {}", out.display()))?;
            if let Some(path) = &cross_validate {
                let held_out = learn::cross_validate(&collected, &options, |fold, at, folds| {
                    progress.start_pass(&format!("cross-validation {}/{folds}: {fold}", at + 1));
                });
                progress.finish();
                let mut lines = Vec::new();
                for page in &held_out {
                    serde_json::to_writer(&mut lines, page)?;
                    lines.push(b'\n');
                }
                write_atomically(path, &lines)
                    .with_context(|| format!("writing {}", path.display()))?;
                notice!(
                    "wrote {} held-out pages to {}",
                    held_out.len(),
                    path.display()
                );
            }
            let summary = serde_json::json!({
                "model": out,
                "description": model.describe(),
                "labelled_pages_given": labels.len() + snippets.len(),
                "pages": model.provenance.pages,
                "blocks": model.provenance.blocks,
                "content_blocks": model.provenance.content_blocks,
                "seconds": started.elapsed().as_secs_f64(),
            });
            if json {
                println!("{}", serde_json::to_string_pretty(&summary)?);
            } else {
                println!(
                    "wrote {} ({}; {} of {} blocks content) in {:.1}s",
                    out.display(),
                    model.describe(),
                    model.provenance.content_blocks,
                    model.provenance.blocks,
                    started.elapsed().as_secs_f64()
                );
            }
            let found = model.provenance.pages as usize;
            let given = labels.len() + snippets.len();
            if found < given {
                notice!(
                    "warning: {} of {given} labelled pages were not found in the input or had no labelled block",
                    given - found
                );
            }
        }
        Command::Search {
            indexes_and_query,
            limit,
            offset,
            color,
            json,
        } => {
            let (indexes, query) = split_indexes_and_query(indexes_and_query)?;
            let opens = open_indexes(&indexes)?;
            let request = indexer::search::SearchRequest {
                query: &query,
                limit,
                offset,
                site: None,
                count_sites: false,
            };
            let results = indexer::search::search_many(&opens, &request)?;
            if let Some(complaint) = &results.fallback {
                notice!("note: not query syntax ({complaint}); searched as plain words");
            }
            if json {
                println!("{}", serde_json::to_string_pretty(&results)?);
            } else {
                let bold = color.colours_stdout();
                for hit in &results.hits {
                    println!("{:>3}. {:.3}  {}", hit.rank, hit.score, hit.url);
                    if !hit.title.is_empty() {
                        println!("     {}", hit.title);
                    }
                    println!("     {}", mark(&hit.snippet, &hit.highlight_bytes, bold));
                }
                let shown = match results.hits.len() {
                    0 => String::new(),
                    n => format!(", {}–{} shown", offset + 1, offset + n),
                };
                let pages = if results.total == 1 { "page" } else { "pages" };
                println!("{} {pages} match{shown}", results.total);
            }
        }
        Command::Stats { indexes, json } => {
            let opens = open_indexes(&indexes)?;
            let figures = stats_of(&opens)?;
            let summary = summed_summaries(&opens)?;
            if json {
                let both = serde_json::json!({ "index": figures, "build": summary });
                println!("{}", serde_json::to_string_pretty(&both)?);
            } else {
                if indexes.len() > 1 {
                    println!("{} indexes, taken as one\n", indexes.len());
                }
                print_stats(&figures);
                println!();
                print_summary(&summary);
            }
        }
        Command::Partition {
            inputs,
            buckets,
            out,
            input,
            json,
        } => {
            let options = indexer::shard::PartitionOptions {
                buckets,
                out: out.clone(),
                walk: input.walk(),
                base_url: input.base_url,
                stop: Some(stop_on_interrupt()),
            };
            let progress = TerminalProgress::new();
            let manifest = indexer::shard::partition(&inputs, &options, &progress)
                .with_context(|| format!("partitioning into {}", out.display()))?;
            if json {
                println!("{}", serde_json::to_string_pretty(&manifest)?);
            } else {
                let written: u64 = manifest.files.iter().map(|file| file.records).sum();
                let bytes: u64 = manifest.files.iter().map(|file| file.bytes).sum();
                println!(
                    "{} records into {} of {} buckets ({}) in {:.1}s{}",
                    written,
                    manifest.files.len(),
                    manifest.buckets,
                    run::human_bytes(bytes),
                    manifest.seconds,
                    run::format_skips(&manifest.skipped),
                );
                println!("manifest: {}", out.join(indexer::shard::MANIFEST).display());
            }
        }
        Command::Combine {
            shards,
            index,
            merge,
            manifests,
            threads,
            json,
        } => {
            let options = indexer::shard::CombineOptions {
                merge,
                manifests,
                threads: match threads {
                    None | Some(0) => BuildOptions::default().threads,
                    Some(threads) => threads,
                },
                command_line: std::env::args().collect(),
            };
            let combined = indexer::shard::combine(&shards, &index, &options)
                .with_context(|| format!("combining into {}", index.display()))?;
            if json {
                println!("{}", serde_json::to_string_pretty(&combined.summary)?);
            } else {
                println!(
                    "combined {} shards: {} pages in {} segments, in {:.1}s",
                    combined.shards, combined.documents, combined.segments, combined.seconds
                );
                print_summary(&combined.summary);
                println!("index: {}", index.display());
            }
        }
        Command::Serve { indexes, listen } => {
            let catalog = indexer::serve::Catalog::open(&indexes)?;
            indexer::serve::serve(catalog, listen, |address| {
                println!("listening on http://{address}");
                let _ = std::io::Write::flush(&mut std::io::stdout());
                notice!("serving {} index(es); Ctrl-C stops", indexes.len());
            })?;
        }
        Command::Compare { a, against, json } => {
            let (a, b) = if against.is_empty() {
                anyhow::ensure!(
                    a.len() == 2,
                    "compare takes two indexes, A and B (or A... --against B...), not {}",
                    a.len()
                );
                (vec![a[0].clone()], vec![a[1].clone()])
            } else {
                (a, against)
            };
            let stats_a = stats_of(&open_indexes(&a)?)?;
            let stats_b = stats_of(&open_indexes(&b)?)?;
            let (a, b) = (joined_paths(&a), joined_paths(&b));
            let rows = compare_rows(&stats_a, &stats_b);
            if json {
                let rows: Vec<_> = rows
                    .iter()
                    .map(|(name, x, y)| serde_json::json!({"figure": name, "a": x, "b": y, "ratio": ratio(*x, *y)}))
                    .collect();
                let out = serde_json::json!({"a": a, "b": b, "figures": rows});
                println!("{}", serde_json::to_string_pretty(&out)?);
            } else {
                println!("A = {a}\nB = {b}\n");
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

/// The indexes at `paths`, opened.
fn open_indexes(paths: &[std::path::PathBuf]) -> Result<Vec<OpenIndex>> {
    paths
        .iter()
        .map(|path| OpenIndex::open(path).map_err(anyhow::Error::from))
        .collect()
}

/// Paths as one line: "a, b, c".
fn joined_paths(paths: &[std::path::PathBuf]) -> String {
    let names: Vec<String> = paths
        .iter()
        .map(|path| path.display().to_string())
        .collect();
    names.join(", ")
}

/// The build summaries of `opens`, summed (one index: its own).
fn summed_summaries(opens: &[OpenIndex]) -> Result<BuildSummary> {
    if let [open] = opens {
        return Ok(open.summary()?);
    }
    let shards = opens
        .iter()
        .map(|open| open.summary())
        .collect::<Result<Vec<BuildSummary>, _>>()?;
    Ok(BuildSummary::of_shards(&shards))
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

/// Writes `bytes` to `path` through a temporary file in the same folder, renamed over `path`
/// only when complete.
fn write_atomically(path: &std::path::Path, bytes: &[u8]) -> Result<()> {
    let folder = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    let mut file = tempfile::NamedTempFile::new_in(folder)?;
    file.write_all(bytes)?;
    file.as_file().sync_all()?;
    file.persist(path).map_err(|error| error.error)?;
    Ok(())
}

/// Content labels and snippet labels from their patterns; at least one labelled page.
fn load_truth(truth: &args::TruthArgs) -> Result<(Vec<eval::Label>, Vec<eval::SnippetLabel>)> {
    let (labels, snippets) = (&truth.labels, &truth.snippets);
    anyhow::ensure!(
        !labels.is_empty() || !snippets.is_empty(),
        "give labelled pages: --labels FILE (content_text) or --snippets FILE"
    );
    let labels = if labels.is_empty() {
        Vec::new()
    } else {
        eval::load_labels(&eval::expand_patterns(labels)?)?
    };
    let snippets = if snippets.is_empty() {
        Vec::new()
    } else {
        eval::load_snippets(&eval::expand_patterns(snippets)?)?
    };
    anyhow::ensure!(
        !labels.is_empty() || !snippets.is_empty(),
        "the label files hold no usable labelled page"
    );
    Ok((labels, snippets))
}

/// A closed pipe (`indexer search … | head`) ends the process quietly, as it does `cat` or
/// `grep`, instead of a panic of `println!`: SIGPIPE is given back its default action, which
/// Rust's runtime replaces with "ignore".
fn quiet_on_closed_pipe() {
    #[cfg(unix)]
    // SAFETY: setting a signal's disposition to its default before any thread starts; no
    // handler runs our code.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_cause_is_said_once() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "no such directory");
        let error = anyhow::Error::new(io).context("open /x: no such directory");
        assert_eq!(error_message(&error), "open /x: no such directory");
        let error = anyhow::anyhow!("disk full").context("writing /y");
        assert_eq!(error_message(&error), "writing /y: disk full");
    }
}
