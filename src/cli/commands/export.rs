//! `indexer export`: an index in, every page it holds out as a JSON line
//! `{"url","site","title","text"}` (the keys and order of `extract`'s lines) — the kept text
//! as the index stores it, without reading the crawl or deciding anything again.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;

use indexer::index::OpenIndex;

/// `export`'s flags.
#[derive(Args)]
pub struct ExportArgs {
    /// The index directory.
    #[arg(long, short)]
    index: PathBuf,
}

/// Writes every live page of the index to stdout, one JSON line each.
pub fn run(args: ExportArgs) -> Result<()> {
    let open = OpenIndex::open_checked(&args.index)?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut pages = 0u64;
    open.for_each_page(|page| {
        serde_json::to_writer(&mut out, &page)?;
        out.write_all(b"\n")?;
        pages += 1;
        Ok::<(), anyhow::Error>(())
    })?
    .context("writing the pages")?;
    out.flush().context("writing the pages")?;
    notice!("exported {}", indexer::report::counted(pages, "page"));
    Ok(())
}
