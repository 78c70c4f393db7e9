//! `indexer build`: inputs and options in, a new index generation and its summary out.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;

use indexer::run::{BuildError, BuildOptions};

use crate::cli::flags::{DetectorChoice, Inputs, RunArgs, SkipLogArgs};
use crate::cli::interrupt::stop_on_interrupt;
use crate::cli::print::print_summary;
use crate::cli::progress::TerminalProgress;
use crate::cli::{print_warnings, report_skips};

/// `build`'s flags.
#[derive(Args)]
pub struct BuildArgs {
    #[command(flatten)]
    inputs: Inputs,
    /// The index directory; replaced only when the new index is complete.
    #[arg(long)]
    index: PathBuf,
    #[command(flatten)]
    pub detector: DetectorChoice,
    #[command(flatten)]
    pub run: RunArgs,
    #[command(flatten)]
    skips: SkipLogArgs,
    /// Print the build summary as JSON.
    #[arg(long, help_heading = "Output")]
    json: bool,
    /// Print every setting of the detector in the summary, not only those that differ from
    /// the defaults.
    #[arg(long, short, help_heading = "Output")]
    verbose: bool,
}

/// Builds the index and prints its summary.
pub fn run(args: BuildArgs) -> Result<()> {
    args.skips.check_writable(Some(&args.index))?;
    let options = BuildOptions {
        stop: Some(stop_on_interrupt()),
        ..args.run.options(args.detector.chosen(&args.run))?
    };
    let progress = TerminalProgress::new();
    let built =
        indexer::lifecycle::build_index(&args.inputs.inputs, &args.index, &options, &progress);
    if let Err(BuildError::NoPages { summary }) = &built {
        // A first build that found nothing removed the folder it made; a log asked for
        // inside that folder makes it again, and a log that cannot be written does not hide
        // why the build failed.
        let skip_log = args.skips.skip_log.as_deref();
        if let Some(folder) = skip_log.and_then(std::path::Path::parent)
            && folder.starts_with(&args.index)
            && !folder.exists()
        {
            let _ = std::fs::create_dir_all(folder);
        }
        if let Err(error) = report_skips(skip_log, summary) {
            notice!("warning: {error:#}");
        }
    }
    let summary = built.with_context(|| format!("building {}", args.index.display()))?;
    report_skips(args.skips.skip_log.as_deref(), &summary)?;
    print_warnings(&summary);
    if args.json {
        println!("{}", crate::cli::print::pretty_json(&summary)?);
    } else {
        print_summary(&summary, args.verbose);
        println!("index: {}", args.index.display());
    }
    Ok(())
}
