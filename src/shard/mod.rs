//! Shards: a crawl too big for one machine, built as map → shuffle by host → reduce.
//!
//! | step | in | out |
//! |---|---|---|
//! | [`partition`](mod@partition) (map) | WARC files and folders | one WARC file per host bucket, and a [`Manifest`] |
//! | [`crate::lifecycle::build_index`] (reduce) | one bucket's files from every map task, in map order | a shard index |
//! | [`combine`](mod@combine) | shard indexes of the same schema and settings | one index, without re-indexing |
//!
//! A site's pages all land in one bucket, so one detector sees all of them, in input order
//! when the map tasks' files are given in map order: every page is decided as a build over
//! the whole crawl on one machine decides it. Searching several indexes at once, scored with
//! their summed statistics, is [`crate::search::search_many`].

mod combine;
mod partition;
mod warc_out;

pub use combine::{CombineError, CombineOptions, Combined, combine};
pub use partition::{
    BucketFile, MANIFEST, Manifest, PartitionError, PartitionOptions, bucket_file_name, partition,
};
