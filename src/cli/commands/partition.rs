//! `indexer partition`: inputs in, a WARC file per host bucket and a manifest out (the map
//! step of a build over several machines).

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;

use crate::cli::flags::{InputArgs, Inputs};
use crate::cli::interrupt::stop_on_interrupt;
use crate::cli::print_skips;
use crate::cli::progress::TerminalProgress;

/// `partition`'s flags.
#[derive(Args)]
pub struct PartitionArgs {
    #[command(flatten)]
    inputs: Inputs,
    /// Host buckets: a site's pages all go to one bucket (a hash of its host).
    #[arg(long)]
    buckets: usize,
    /// The folder to write (one per map task); files appear complete or not at all,
    /// manifest.json last.
    #[arg(long)]
    out: PathBuf,
    #[command(flatten)]
    input: InputArgs,
    /// Print the manifest as JSON.
    #[arg(long, help_heading = "Output")]
    json: bool,
}

/// Splits the inputs into bucket files and says what was written.
pub fn run(args: PartitionArgs) -> Result<()> {
    let options = indexer::shard::PartitionOptions {
        buckets: args.buckets,
        out: args.out.clone(),
        input: args.input.options(),
        stop: Some(stop_on_interrupt()),
    };
    let progress = TerminalProgress::new();
    let manifest = indexer::shard::partition(&args.inputs.inputs, &options, &progress)
        .with_context(|| format!("partitioning into {}", args.out.display()))?;
    print_skips(&manifest.skipped_records, "listed in the manifest");
    if args.json {
        println!("{}", crate::cli::print::pretty_json(&manifest)?);
        return Ok(());
    }
    let written: u64 = manifest.files.iter().map(|file| file.records).sum();
    let bytes: u64 = manifest.files.iter().map(|file| file.bytes).sum();
    println!(
        "{} into {} of {} ({}) in {:.1}s{}",
        indexer::report::counted(written, "record"),
        manifest.files.len(),
        indexer::report::counted(manifest.buckets as u64, "bucket"),
        indexer::report::human_bytes(bytes),
        manifest.seconds,
        indexer::report::format_skips(&manifest.skipped),
    );
    println!(
        "manifest: {}",
        args.out.join(indexer::shard::MANIFEST).display()
    );
    Ok(())
}
