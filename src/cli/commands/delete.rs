//! `indexer delete`: an index and the pages to remove (by URL, by site, or a file of URLs)
//! in, a new generation of the index without them and the counts out.

use std::io::Read;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;

use indexer::index::{DeleteTarget, url_list};

/// `delete`'s flags.
#[derive(Args)]
#[command(group = clap::ArgGroup::new("targets").required(true).multiple(true))]
pub struct DeleteArgs {
    /// The index to delete from; replaced only when the new generation is complete.
    #[arg(long)]
    index: PathBuf,
    /// Delete the page of this URL (exactly as indexed; the flag once per URL).
    #[arg(long = "url", value_name = "URL", group = "targets")]
    urls: Vec<String>,
    /// Delete every page of this site (host; the flag once per site).
    #[arg(long = "site", value_name = "HOST", group = "targets")]
    sites: Vec<String>,
    /// Delete the pages of the URLs listed in FILE, one a line (blank lines and lines
    /// starting with # are passed over); `-` reads standard input.
    #[arg(long = "urls", value_name = "FILE", group = "targets")]
    url_files: Vec<PathBuf>,
    /// Print the counts as JSON.
    #[arg(long)]
    json: bool,
}

/// Deletes the pages and prints what was deleted and what was not found.
pub fn run(args: DeleteArgs) -> Result<()> {
    let mut targets: Vec<DeleteTarget> = args.urls.into_iter().map(DeleteTarget::Url).collect();
    targets.extend(args.sites.into_iter().map(DeleteTarget::Site));
    for file in &args.url_files {
        let mut text = String::new();
        if file.as_os_str() == "-" {
            std::io::stdin()
                .read_to_string(&mut text)
                .context("reading URLs from standard input")?;
        } else {
            text = std::fs::read_to_string(file)
                .with_context(|| format!("reading {}", file.display()))?;
        }
        targets.extend(url_list(&text));
    }
    let deleted = indexer::lifecycle::delete_from_index(&args.index, &targets)
        .with_context(|| format!("deleting from {}", args.index.display()))?;
    if args.json {
        println!("{}", crate::cli::print::pretty_json(&deleted)?);
    } else {
        let sites = (targets.iter())
            .filter(|target| matches!(target, DeleteTarget::Site(_)))
            .count();
        let asked: Vec<String> = [(sites, "site"), (targets.len() - sites, "URL")]
            .into_iter()
            .filter(|&(count, _)| count > 0)
            .map(|(count, what)| indexer::report::counted(count as u64, what))
            .collect();
        let asked = match asked.as_slice() {
            [] => "nothing asked for".to_string(),
            asked => format!("of the {} asked for", asked.join(" and ")),
        };
        println!(
            "deleted        {} ({asked})",
            indexer::report::counted(deleted.deleted, "document"),
        );
        println!("not found      {}", deleted.not_found.len());
        for target in deleted.not_found.iter().take(10) {
            println!("  {}", crate::cli::print::printable(target));
        }
        if deleted.not_found.len() > 10 {
            println!("  … and {} more", deleted.not_found.len() - 10);
        }
        println!("documents      {}", deleted.documents);
        println!("index: {}", args.index.display());
    }
    Ok(())
}
