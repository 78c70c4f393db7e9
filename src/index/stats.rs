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
    /// All bytes on disk.
    pub total_bytes: u64,
}

/// Computes the size figures of an open index.
pub fn stats(open: &OpenIndex) -> Result<IndexStats, IndexError> {
    let directory = &open.directory;
    let reader = open.index.reader().map_err(tantivy_error(directory))?;
    let searcher = reader.searcher();
    let mut result = IndexStats {
        documents: searcher.num_docs(),
        ..IndexStats::default()
    };
    let segments = searcher.segment_readers();
    let mut distinct: BTreeSet<Vec<u8>> = BTreeSet::new();
    for segment in segments {
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
            if segments.len() > 1 {
                distinct.insert(stream.key().to_vec());
            } else {
                result.unique_terms += 1;
            }
        }
    }
    if segments.len() > 1 {
        result.unique_terms = distinct.len() as u64;
    }

    for entry in fs::read_dir(directory).map_err(io_error("read", directory))? {
        let entry = entry.map_err(io_error("read", directory))?;
        let metadata = entry.metadata().map_err(io_error("stat", &entry.path()))?;
        if !metadata.is_file() {
            continue;
        }
        let name = entry.file_name().to_string_lossy().into_owned();
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
    Ok(result)
}
