//! The command line: arguments ([`args`], one flag group per detector in [`detectors`]),
//! printing ([`print`]), progress ([`progress`]) and Ctrl-C ([`interrupt`]). It parses,
//! calls the library and prints; it decides nothing the library could.

mod args;
mod choice;
mod detectors;
mod interrupt;
mod print;
mod progress;

use std::io::{BufWriter, IsTerminal, Write};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{CommandFactory, Parser};

use indexer::build::{self, BuildOptions, BuildSummary, DEFAULT_DETECTOR};
use indexer::eval;
use indexer::index::{OpenIndex, stats};
use indexer::search::search;

use args::{Cli, Command};
use interrupt::{INTERRUPTED, stop_on_interrupt};
use print::{compare_rows, mark, print_stats, print_summary, ratio};
use progress::TerminalProgress;

/// Parses the command line, runs it and says how it ended.
pub fn main() -> ExitCode {
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
            let detector = build::choose_detector(detector, one_pass).unwrap_or_else(|refused| {
                Cli::command()
                    .error(clap::error::ErrorKind::ArgumentConflict, refused)
                    .exit()
            });
            let options = BuildOptions {
                stop: Some(stop_on_interrupt()),
                ..run.options(detector, one_pass)
            };
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
            let options = BuildOptions {
                stop: Some(stop_on_interrupt()),
                ..run.options(detector, false)
            };
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
            let options = run.options(DEFAULT_DETECTOR, false);
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
