//! `indexer stats`: indexes in, their size figures and build summaries (summed over shards)
//! out.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use indexer::index::{OpenIndex, stats_of};
use indexer::report::{BuildSummary, RunKind};

use crate::cli::open_checked_indexes;
use crate::cli::print::{print_history, print_stats, print_summary};

/// `stats`'s flags.
#[derive(Args)]
pub struct StatsArgs {
    /// Index directories.
    #[arg(required = true)]
    indexes: Vec<PathBuf>,
    /// Print as JSON (sizes in bytes).
    #[arg(long)]
    json: bool,
    /// Print every setting of the detector in the summary, not only those that differ from
    /// the defaults.
    #[arg(long, short)]
    verbose: bool,
}

/// Prints the figures and the summary.
pub fn run(args: StatsArgs) -> Result<()> {
    let opens = open_checked_indexes(&args.indexes)?;
    let figures = stats_of(&opens)?;
    let summary = summed_summaries(&opens)?;
    if args.json {
        let both = serde_json::json!({ "index": figures, "build": summary });
        println!("{}", crate::cli::print::pretty_json(&both)?);
    } else {
        if args.indexes.len() > 1 {
            println!("{} indexes, taken as one\n", args.indexes.len());
        }
        print_stats(&figures);
        println!();
        print_summary(&summary, args.verbose);
        if summary.run_kind() == Some(RunKind::Add) {
            println!("(the figures of the last add alone; the history below has every run)");
        }
        println!();
        print_history(&summary.history);
    }
    Ok(())
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
