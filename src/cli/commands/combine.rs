//! `indexer combine`: shard indexes in, one index (their segments linked, or merged) out.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;

use indexer::report::counted;
use indexer::run::BuildOptions;

use crate::cli::print::print_summary;

/// `combine`'s flags.
#[derive(Args)]
pub struct CombineArgs {
    /// Shard index directories.
    #[arg(required = true)]
    shards: Vec<PathBuf>,
    /// The index directory to write; replaced only when the new index is complete.
    #[arg(long)]
    index: PathBuf,
    /// Merge the shards' segments into one (slower; a smaller index, faster searches).
    #[arg(long)]
    merge: bool,
    /// A manifest of the partition step (manifest.json; the flag once per file): the
    /// records it passed over are added to the combined summary, which then counts what
    /// one build over the whole crawl would.
    #[arg(long = "manifest", value_name = "FILE")]
    manifests: Vec<PathBuf>,
    /// Threads for --merge; 0 or absent: the number of cores.
    #[arg(long)]
    threads: Option<usize>,
    /// Print the combined summary as JSON.
    #[arg(long)]
    json: bool,
    /// Print every setting of the detector in the summary, not only those that differ from
    /// the defaults.
    #[arg(long, short)]
    verbose: bool,
}

/// Combines the shards and prints the combined summary.
pub fn run(args: CombineArgs) -> Result<()> {
    let options = indexer::shard::CombineOptions {
        merge: args.merge,
        manifests: args.manifests,
        threads: match args.threads {
            None | Some(0) => BuildOptions::default().threads,
            Some(threads) => threads,
        },
        command_line: std::env::args().collect(),
    };
    let combined = indexer::shard::combine(&args.shards, &args.index, &options)
        .with_context(|| format!("combining into {}", args.index.display()))?;
    crate::cli::print_warnings(&combined.summary);
    if args.json {
        println!("{}", crate::cli::print::pretty_json(&combined.summary)?);
        return Ok(());
    }
    println!(
        "combined {}: {} in {}, in {:.1}s",
        counted(combined.shards as u64, "shard"),
        counted(combined.documents, "page"),
        counted(combined.segments as u64, "segment"),
        combined.seconds
    );
    print_summary(&combined.summary, args.verbose);
    println!("index: {}", args.index.display());
    Ok(())
}
