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
    /// Answer requests for this host name too (repeatable). Loopback names (localhost,
    /// 127.0.0.1, [::1]) and the address listened on are answered; a request naming any other
    /// host is refused (403), so that a page whose name points at this machine (DNS
    /// rebinding) cannot read the answers. Give the name a browser uses when serving on a
    /// network (`--listen 0.0.0.0:8080 --allow-host search.lan`).
    #[arg(long = "allow-host", value_name = "NAME")]
    allow_hosts: Vec<String>,
}

/// Opens the indexes and serves them.
pub fn run(args: ServeArgs) -> Result<()> {
    let catalog = indexer::serve::LiveCatalog::open(&args.indexes)?;
    let count = args.indexes.len();
    let options = indexer::serve::ServeOptions {
        listen: args.listen,
        allow_hosts: args.allow_hosts,
    };
    indexer::serve::serve(catalog, &options, |address| {
        println!("listening on http://{address}");
        let _ = std::io::Write::flush(&mut std::io::stdout());
        notice!("serving {count} index(es); Ctrl-C stops");
    })?;
    Ok(())
}
