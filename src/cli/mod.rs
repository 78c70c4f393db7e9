//! The command line: arguments ([`args`]; each command's flags and run in [`commands`]; every
//! detector's flags in [`detectors`]), printing ([`print`]), progress ([`progress`]) and
//! Ctrl-C ([`interrupt`]). It parses, calls the library and prints; it decides nothing the
//! library could. [`main`] parses and [`run`] only dispatches.

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
mod commands;
mod detectors;
mod flags;
mod generate;
mod interrupt;
mod print;
mod progress;

use std::process::ExitCode;

use anyhow::Result;
use clap::Parser;

use indexer::eval;
use indexer::index::OpenIndex;
use indexer::output::{Compression, OutputError, OutputFile};
use indexer::report::BuildSummary;
use indexer::run;

use args::{Cli, Command};
use interrupt::INTERRUPTED;

/// Parses the command line, runs it and says how it ended.
pub fn main() -> ExitCode {
    quiet_on_closed_pipe();
    let cli = Cli::parse_from(commands::search::with_search_words_last(std::env::args_os()));
    QUIET.store(cli.quiet, std::sync::atomic::Ordering::Relaxed);
    let usage_error = |kind, message: &str| -> ! {
        use clap::CommandFactory;
        Cli::command().error(kind, message).exit()
    };
    let command = match (cli.generate, cli.command) {
        (Some(what), None) => return finish(generate::write(what, &mut std::io::stdout().lock())),
        (Some(_), Some(_)) => usage_error(
            clap::error::ErrorKind::ArgumentConflict,
            "--generate takes no command",
        ),
        (None, Some(command)) => command,
        (None, None) => usage_error(
            clap::error::ErrorKind::MissingSubcommand,
            "give a command (indexer --help lists them)",
        ),
    };
    for warning in command.idle_detector_flags() {
        notice!("warning: {warning}");
    }
    finish(run(command))
}

/// How a run ended, said on stderr, as the process's exit code.
fn finish(outcome: Result<()>) -> ExitCode {
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {}", error_message(&error));
            let interrupted = error.chain().any(|cause| {
                matches!(cause.downcast_ref(), Some(run::BuildError::Interrupted))
                    || matches!(
                        cause.downcast_ref(),
                        Some(indexer::shard::PartitionError::Interrupted)
                    )
                    || matches!(
                        cause.downcast_ref(),
                        Some(indexer::learn::TrainError::Interrupted)
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

/// Skipped records (and pages cut short) shown on stderr, at most.
const SKIPS_SHOWN: usize = 5;

/// Says on stderr what a run passed over or cut short — the first few, where and why — and
/// writes them all to `skip_log` as JSON lines (if asked): also when the run found no page.
fn report_skips(skip_log: Option<&std::path::Path>, summary: &BuildSummary) -> Result<()> {
    if let Some(path) = skip_log {
        let mut lines = Vec::new();
        for record in &summary.skipped_records {
            serde_json::to_writer(&mut lines, record)?;
            lines.push(b'\n');
        }
        write_atomically(path, &lines, Compression::of_path(path))?;
    }
    let rest = match skip_log {
        Some(path) => format!("listed in {}", path.display()),
        None => "--skip-log FILE lists them all".to_string(),
    };
    print_skips(&summary.skipped_records, &rest);
    Ok(())
}

/// The first few of `records` on stderr, then how many more and where they are (`rest`).
fn print_skips(records: &[indexer::report::SkippedRecord], rest: &str) {
    for record in records.iter().take(SKIPS_SHOWN) {
        let what = if record.passed_over() {
            "skipped"
        } else {
            "note:"
        };
        notice!("{what} {}", print::printable(&record.describe()));
    }
    if records.len() > SKIPS_SHOWN {
        notice!("… and {} more; {rest}", records.len() - SKIPS_SHOWN);
    }
}

/// Runs the command the line names.
fn run(command: Command) -> Result<()> {
    match command {
        Command::Build(args) => commands::build::run(args),
        Command::Add(args) => commands::add::run(args),
        Command::Delete(args) => commands::delete::run(args),
        Command::Extract(args) => commands::extract::run(args),
        Command::Eval(args) => commands::eval::run(args),
        Command::Train(args) => commands::train::run(args),
        Command::Search(args) => commands::search::run(args),
        Command::Stats(args) => commands::stats::run(args),
        Command::Export(args) => commands::export::run(args),
        Command::Compare(args) => commands::compare::run(args),
        Command::Serve(args) => commands::serve::run(args),
        Command::Partition(args) => commands::partition::run(args),
        Command::Combine(args) => commands::combine::run(args),
    }
}

/// The indexes at `paths`, opened.
fn open_indexes(paths: &[std::path::PathBuf]) -> Result<Vec<OpenIndex>> {
    paths
        .iter()
        .map(|path| OpenIndex::open(path).map_err(anyhow::Error::from))
        .collect()
}

/// The indexes at `paths`, opened, with every file checked against its checksum
/// ([`OpenIndex::open_checked`]): for commands that read each index once through (`stats`,
/// `compare`), where a damaged file would give wrong figures rather than a panic.
fn open_checked_indexes(paths: &[std::path::PathBuf]) -> Result<Vec<OpenIndex>> {
    paths
        .iter()
        .map(|path| OpenIndex::open_checked(path).map_err(anyhow::Error::from))
        .collect()
}

/// The run's warnings (a memory budget too small, …), on stderr.
fn print_warnings(summary: &BuildSummary) {
    for warning in &summary.warnings {
        notice!("warning: {warning}");
    }
}

/// Writes `bytes` to `path` compressed as `compression` (`Compression::of_path` for what its
/// name says), atomically ([`OutputFile`]: a temporary file beside it, renamed over `path`
/// once whole; straight to a device or a pipe such as `/dev/stdout`).
fn write_atomically(
    path: &std::path::Path,
    bytes: &[u8],
    compression: Compression,
) -> Result<(), OutputError> {
    let mut file = OutputFile::create_as(path, compression, false)?;
    file.write_record(bytes)?;
    file.commit().map(drop)
}

/// Content labels and snippet labels from their patterns; at least one labelled page.
fn load_truth(truth: &flags::TruthArgs) -> Result<(Vec<eval::Label>, Vec<eval::SnippetLabel>)> {
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

    #[cfg(unix)]
    #[test]
    fn a_file_written_atomically_is_an_ordinary_readable_file_written_whole() {
        use std::os::unix::fs::PermissionsExt;
        let folder = tempfile::tempdir().unwrap();
        let path = folder.path().join("report.md");
        std::fs::write(&path, "an older, longer report").unwrap();
        super::write_atomically(&path, b"# new", Compression::None).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "# new");
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o644, "{mode:o}");
        assert_eq!(
            std::fs::read_dir(folder.path()).unwrap().count(),
            1,
            "no temporary left"
        );
    }

    #[test]
    fn each_cause_is_said_once() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "no such directory");
        let error = anyhow::Error::new(io).context("open /x: no such directory");
        assert_eq!(error_message(&error), "open /x: no such directory");
        let error = anyhow::anyhow!("disk full").context("writing /y");
        assert_eq!(error_message(&error), "writing /y: disk full");
    }
}
