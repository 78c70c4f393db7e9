//! `indexer add`: an existing index and new inputs in, a new generation of the index (the
//! pages added, replaced or found unchanged) and its summary out.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};

use indexer::report::Redecision;
use indexer::run::{BuildError, BuildOptions};

use crate::cli::flags::{DetectorChoice, Inputs, RunArgs, SkipLogArgs};
use crate::cli::interrupt::stop_on_interrupt;
use crate::cli::print::print_summary;
use crate::cli::progress::TerminalProgress;
use crate::cli::{print_warnings, report_skips};

/// `add`'s flags: `build`'s, with an index that must exist.
#[derive(Args)]
pub struct AddArgs {
    #[command(flatten)]
    inputs: Inputs,
    /// The index to add to (made by `indexer build`); replaced only when the new generation
    /// is complete.
    #[arg(long)]
    index: PathBuf,
    /// The detector options the index was built with (add refuses others).
    #[command(flatten)]
    pub detector: DetectorChoice,
    #[command(flatten)]
    pub run: RunArgs,
    #[command(flatten)]
    skips: SkipLogArgs,
    /// Which sites to decide again whole after the add, from every page of theirs the index
    /// holds (read back from the files it was built from): `grown` (two passes: each site
    /// the add takes past a power of two in pages, so every page is decided with at least
    /// half of its site), `touched` (every site the index held and the add brings new or
    /// changed pages to, in either mode: the index then holds what one build of all the
    /// pages would — for one pass, reading them as re-decision does, the index's pages by
    /// file path and offset, then the add's — at the cost of reading those sites again),
    /// `never`.
    #[arg(long, value_enum, default_value_t = RedecideChoice::Grown)]
    redecide: RedecideChoice,
    /// Print the summary as JSON.
    #[arg(long, help_heading = "Output")]
    json: bool,
    /// Print every setting of the detector in the summary, not only those that differ from
    /// the defaults.
    #[arg(long, short, help_heading = "Output")]
    verbose: bool,
}

/// Adds the inputs' pages to the index and prints the summary.
pub fn run(args: AddArgs) -> Result<()> {
    args.skips.check_writable(Some(&args.index))?;
    let options = BuildOptions {
        stop: Some(stop_on_interrupt()),
        ..args.run.options(args.detector.chosen(&args.run))?
    };
    let progress = TerminalProgress::new();
    let added = indexer::lifecycle::add_to_index(
        &args.inputs.inputs,
        &args.index,
        &options,
        args.redecide.into(),
        &progress,
    );
    if let Err(BuildError::NoPages { summary }) = &added {
        report_skips(args.skips.skip_log.as_deref(), summary)?;
    }
    let summary = added.with_context(|| format!("adding to {}", args.index.display()))?;
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

/// `--redecide`'s values.
#[derive(Clone, Copy, ValueEnum)]
enum RedecideChoice {
    Grown,
    Touched,
    Never,
}

impl From<RedecideChoice> for Redecision {
    fn from(choice: RedecideChoice) -> Redecision {
        match choice {
            RedecideChoice::Grown => Redecision::Grown,
            RedecideChoice::Touched => Redecision::Touched,
            RedecideChoice::Never => Redecision::Never,
        }
    }
}
