//! `indexer serve`: indexes and an address in, an HTTP server until Ctrl-C or SIGTERM.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

/// `serve`'s flags.
#[derive(Args)]
pub struct ServeArgs {
    /// Index directories (a query searches them all; the hits are merged by score).
    #[arg(required = true)]
    indexes: Vec<PathBuf>,
    /// Address to listen on (port 0: any free port). The first line on stdout names the
    /// address taken: "listening on http://ADDRESS".
    #[arg(long, default_value = "127.0.0.1:8080")]
    listen: std::net::SocketAddr,
}

/// Opens the indexes and serves them.
pub fn run(args: ServeArgs) -> Result<()> {
    let catalog = indexer::serve::Catalog::open(&args.indexes)?;
    let count = args.indexes.len();
    indexer::serve::serve(catalog, args.listen, |address| {
        println!("listening on http://{address}");
        let _ = std::io::Write::flush(&mut std::io::stdout());
        notice!("serving {count} index(es); Ctrl-C stops");
    })?;
    Ok(())
}
