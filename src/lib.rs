//! # indexer
//!
//! Builds a full-text search index (tantivy) from web crawls and strips each site's
//! *template* — navigation, headers, footers, sidebars — while it indexes.
//!
//! Data flows one way through one module per stage:
//!
//! | stage | in | out |
//! |---|---|---|
//! | [`read`] | WARC files or a folder of pages | [`read::Record`]s, then decoded [`read::Page`]s |
//! | [`segment`] | a [`read::Page`] | [`segment::SegmentedPage`]: title and [`segment::Block`]s |
//! | [`detect`] | blocks of one site | a keep/drop decision per block ([`detect::Detector`]) |
//! | [`index`] | kept text | a tantivy index with a stored build summary |
//! | [`search`] | a query | ranked hits with snippets |
//! | [`output`] | decided pages | `extract`'s records: JSON lines or WET, with language, to a file |
//! | [`eval`] | inputs and labelled pages | quality, index size and retrieval per detector |
//! | [`learn`] | inputs and labelled pages | a `hybrid` model |
//! | `serve` | indexes | an HTTP server: search, page view with verdicts, index view |
//! | [`shard`] | inputs, then shard indexes | host buckets (the map step); one index from shards |
//!
//! [`run`] wires the stages into the [`indexer_pipeline`] stage graph and decides, in one
//! place, whether a build makes one pass over the input or two.

// The modules' docs walk the code, private parts included, for the engineers who work on it:
// they are read with `cargo doc --document-private-items`, where every link resolves (CI
// checks it), so a public item's doc may name a private one.
#![allow(rustdoc::private_intra_doc_links)]

/// The tool and the commit it was built from: "indexer 0.1.0 (commit 1a2b3c4d5e6f)".
pub const VERSION: &str = concat!(
    "indexer ",
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("INDEXER_COMMIT"),
    ")"
);

pub mod analyze;
pub mod detect;
pub mod eval;
pub mod index;
pub mod learn;
pub mod lifecycle;
pub mod output;
pub mod read;
pub mod report;
pub mod run;
pub mod search;
pub mod segment;
#[cfg(feature = "serve")]
pub mod serve;
pub mod shard;
