//! `indexer export`: an index in, every page it holds out as a JSON line
//! `{"url","site","title", provenance, "text"}` (keys in the order of `extract`'s lines) — the
//! kept text as the index stores it, without reading the crawl or deciding anything again.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;

use indexer::index::OpenIndex;

/// `export`'s flags.
#[derive(Args)]
pub struct ExportArgs {
    /// The index directory (as `search` and `stats` take it).
    #[arg(
        value_name = "INDEX",
        required_unless_present = "index",
        conflicts_with = "index"
    )]
    index_given: Option<PathBuf>,
    /// The index directory, as `build` and `add` name it.
    #[arg(long, short, value_name = "INDEX")]
    index: Option<PathBuf>,
}

/// Writes every live page of the index to stdout, one JSON line each.
pub fn run(args: ExportArgs) -> Result<()> {
    let index = (args.index_given.or(args.index)).expect("clap requires one of the two");
    let open = OpenIndex::open_checked(&index)?;
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
