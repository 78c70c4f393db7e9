//! Size figures of an index: what `stats` prints and `compare` sets side by side.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;

use serde::{Deserialize, Serialize};

use super::{IndexError, OpenIndex, io_error, tantivy_error};

/// The size of an index.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct IndexStats {
    /// Documents (pages).
    pub documents: u64,
    /// Distinct terms of the body field.
    pub unique_terms: u64,
    /// Postings of the body field: the sum over its terms of their document frequencies.
    pub postings: u64,
    /// Tokens indexed in the body field.
    pub tokens: u64,
    /// Bytes on disk by component (postings, positions, term dictionary, store, fast fields,
    /// field norms, other).
    pub bytes: BTreeMap<String, u64>,
    /// All bytes on disk of the search index (without the site models).
    pub total_bytes: u64,
    /// Bytes of the site models kept beside the index ([`super::site_models`]), apart from
    /// [`total_bytes`](Self::total_bytes) so that sizes compare across detectors.
    #[serde(default)]
    pub site_model_bytes: u64,
    /// Sites whose model is kept.
    #[serde(default)]
    pub site_models: u64,
}

impl IndexStats {
    /// Adds `other`'s figures, as of two indexes taken together: every count and size adds
    /// (a term of both counts in each one's [`unique_terms`](Self::unique_terms)).
    pub fn add(&mut self, other: &IndexStats) {
        self.documents += other.documents;
        self.unique_terms += other.unique_terms;
        self.postings += other.postings;
        self.tokens += other.tokens;
        for (component, bytes) in &other.bytes {
            *self.bytes.entry(component.clone()).or_default() += bytes;
        }
        self.total_bytes += other.total_bytes;
        self.site_model_bytes += other.site_model_bytes;
        self.site_models += other.site_models;
    }
}

/// Computes the size figures of an open index.
pub fn stats(open: &OpenIndex) -> Result<IndexStats, IndexError> {
    stats_of(std::slice::from_ref(open))
}

/// The size figures of several indexes (shards of one crawl) taken as one: counts and bytes
/// summed, distinct terms counted once over all of them.
pub fn stats_of(opens: &[OpenIndex]) -> Result<IndexStats, IndexError> {
    let mut result = IndexStats::default();
    let mut distinct: BTreeSet<Vec<u8>> = BTreeSet::new();
    let readers = opens
        .iter()
        .map(|open| {
            let searcher = open
                .index
                .reader()
                .map_err(tantivy_error(&open.directory))?
                .searcher();
            Ok((open, searcher))
        })
        .collect::<Result<Vec<_>, IndexError>>()?;
    let segment_count: usize = readers
        .iter()
        .map(|(_, searcher)| searcher.segment_readers().len())
        .sum();
    for (open, searcher) in &readers {
        let directory = &open.directory;
        result.documents += searcher.num_docs();
        for segment in searcher.segment_readers() {
            let inverted = segment
                .inverted_index(open.fields.body)
                .map_err(tantivy_error(directory))?;
            result.tokens += inverted.total_num_tokens();
            let mut stream = inverted
                .terms()
                .stream()
                .map_err(|source| tantivy_error(directory)(source.into()))?;
            while stream.advance() {
                result.postings += u64::from(stream.value().doc_freq);
                if segment_count > 1 {
                    distinct.insert(stream.key().to_vec());
                } else {
                    result.unique_terms += 1;
                }
            }
        }
        add_file_sizes(directory, &mut result)?;
        if let Some(models) = super::StoredSiteModels::open(directory)? {
            result.site_models += models.len() as u64;
        }
    }
    if segment_count > 1 {
        result.unique_terms = distinct.len() as u64;
    }
    Ok(result)
}

/// Adds the bytes on disk of the index in `directory`, by component.
fn add_file_sizes(directory: &std::path::Path, result: &mut IndexStats) -> Result<(), IndexError> {
    for entry in fs::read_dir(directory).map_err(io_error("read", directory))? {
        let entry = entry.map_err(io_error("read", directory))?;
        let metadata = entry.metadata().map_err(io_error("stat", &entry.path()))?;
        if !metadata.is_file() {
            continue;
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        if name == super::site_models::SITE_MODELS_FILE {
            result.site_model_bytes += metadata.len();
            continue;
        }
        let component = match name.rsplit('.').next() {
            Some("idx") => "postings",
            Some("pos") => "positions",
            Some("term") => "term dictionary",
            Some("store") => "store",
            Some("fast") => "fast fields",
            Some("fieldnorm") => "field norms",
            _ => "other",
        };
        *result.bytes.entry(component.to_string()).or_default() += metadata.len();
        result.total_bytes += metadata.len();
    }
    Ok(())
}
