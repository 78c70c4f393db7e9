//! BM25 statistics of the pages the indexes hold now: searchers in; the number of pages, each
//! term's document frequency and each field's total length out — the same however the pages
//! came to be spread over indexes and segments (one build, a build and adds, deletes,
//! merges, shards).
//!
//! tantivy's own statistics depend on that history. A deleted document counts in document
//! frequencies and lengths until its segment is merged. A segment written at once records its
//! field's exact token count, but a merge of a segment with deletes estimates it from the live
//! documents' field norms (lengths rounded down to one of 256 steps), and keeps that estimate
//! through later merges. So an index built once and the same pages reached by adds scored
//! pages apart in the last digits, enough to reorder pages of nearly equal score. Here the
//! total length of a field is always the sum of its live documents' field norms, and a
//! segment with deletes counts only its live documents' postings.

use std::sync::{LazyLock, Mutex, PoisonError};

use rustc_hash::FxHashMap;
use tantivy::fieldnorm::FieldNormReader;
use tantivy::index::SegmentId;
use tantivy::query::Bm25StatisticsProvider;
use tantivy::schema::{Field, IndexRecordOption};
use tantivy::{DocId, Searcher, SegmentReader, Term};

/// The statistics of the live pages of several searchers (one or more) summed: BM25 over them
/// equals BM25 over one index holding all their pages.
pub(crate) struct LiveStatistics<'a>(pub(crate) Vec<&'a Searcher>);

impl Bm25StatisticsProvider for LiveStatistics<'_> {
    fn total_num_tokens(&self, field: Field) -> tantivy::Result<u64> {
        let mut total = 0;
        for searcher in &self.0 {
            for segment in searcher.segment_readers() {
                total += field_length(segment, field)?;
            }
        }
        Ok(total)
    }

    fn total_num_docs(&self) -> tantivy::Result<u64> {
        Ok(self.0.iter().map(|searcher| searcher.num_docs()).sum())
    }

    fn doc_freq(&self, term: &Term) -> tantivy::Result<u64> {
        let mut documents = 0;
        for searcher in &self.0 {
            for segment in searcher.segment_readers() {
                let inverted = segment.inverted_index(term.field())?;
                documents += u64::from(match segment.alive_bitset() {
                    None => inverted.doc_freq(term)?,
                    Some(alive) => inverted
                        .read_postings(term, IndexRecordOption::Basic)?
                        .map_or(0, |postings| postings.doc_freq_given_deletes(alive)),
                });
            }
        }
        Ok(documents)
    }
}

/// A segment's field lengths, by segment, its deleted documents and field: a segment never
/// changes but by deletes, so a length once summed holds while they do not.
type LengthKey = (SegmentId, DocId, Field);

/// Lengths summed so far in this process (a server answers many queries on one index).
static LENGTHS: LazyLock<Mutex<FxHashMap<LengthKey, u64>>> = LazyLock::new(Default::default);

/// Past this many lengths the memory of them starts again: segments come and go as an
/// index served is updated.
const MOST_LENGTHS: usize = 4096;

/// The total length of `field` over the live documents of `segment`: their field norms summed,
/// or, for a field that keeps none, the segment's token count in proportion to its live
/// documents.
fn field_length(segment: &SegmentReader, field: Field) -> tantivy::Result<u64> {
    let key = (segment.segment_id(), segment.num_deleted_docs(), field);
    let known = LENGTHS
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get(&key)
        .copied();
    if let Some(length) = known {
        return Ok(length);
    }
    let length = match segment.fieldnorms_readers().get_field(field)? {
        Some(norms) => sum_of_norms(&norms, segment),
        None => {
            let tokens = segment.inverted_index(field)?.total_num_tokens();
            let live = u128::from(tokens) * u128::from(segment.num_docs());
            live.checked_div(u128::from(segment.max_doc()))
                .map_or(0, |length| length as u64)
        }
    };
    let mut lengths = LENGTHS.lock().unwrap_or_else(PoisonError::into_inner);
    if lengths.len() >= MOST_LENGTHS {
        lengths.clear();
    }
    lengths.insert(key, length);
    Ok(length)
}

/// The live documents' field norms of one field summed (counted by norm, then weighed).
fn sum_of_norms(norms: &FieldNormReader, segment: &SegmentReader) -> u64 {
    let mut count = [0u64; 256];
    for doc in segment.doc_ids_alive() {
        count[usize::from(norms.fieldnorm_id(doc))] += 1;
    }
    count
        .iter()
        .enumerate()
        .map(|(id, &documents)| documents * u64::from(FieldNormReader::id_to_fieldnorm(id as u8)))
        .sum()
}

#[cfg(test)]
mod tests {
    use tantivy::schema::{STORED, Schema, TEXT};
    use tantivy::{Index, IndexWriter, TantivyDocument, doc};

    use super::*;

    /// An index in memory of `texts`, one document each, written as `segments` commits; then
    /// the documents whose text is in `deleted` deleted (committed, not merged).
    fn index_of(texts: &[&str], segments: usize, deleted: &[&str]) -> (Index, Field) {
        let mut schema = Schema::builder();
        let body = schema.add_text_field("body", TEXT | STORED);
        let key = schema.add_text_field("key", tantivy::schema::STRING);
        let index = Index::create_in_ram(schema.build());
        let mut writer: IndexWriter<TantivyDocument> = index.writer(15_000_000).unwrap();
        writer.set_merge_policy(Box::new(tantivy::indexer::NoMergePolicy));
        let per_segment = texts.len().div_ceil(segments);
        for chunk in texts.chunks(per_segment) {
            for text in chunk {
                writer
                    .add_document(doc!(body => *text, key => *text))
                    .unwrap();
            }
            writer.commit().unwrap();
        }
        for text in deleted {
            writer.delete_term(Term::from_field_text(key, text));
        }
        writer.commit().unwrap();
        (index, body)
    }

    fn statistics_of(index: &Index, field: Field, word: &str) -> (u64, u64, u64) {
        let searcher = index.reader().unwrap().searcher();
        let statistics = LiveStatistics(vec![&searcher]);
        (
            statistics.total_num_docs().unwrap(),
            statistics.total_num_tokens(field).unwrap(),
            statistics
                .doc_freq(&Term::from_field_text(field, word))
                .unwrap(),
        )
    }

    #[test]
    fn deleted_documents_and_segments_do_not_change_the_statistics() {
        let long = "rust ".repeat(300);
        let kept = [
            "rust book",
            "a rust guide to owning",
            long.as_str(),
            "cargo",
        ];
        let gone = ["rust gone", "another rust page gone for good"];
        let all: Vec<&str> = kept.iter().chain(&gone).copied().collect();
        let (alone, field) = index_of(&kept, 1, &[]);
        let expected = statistics_of(&alone, field, "rust");
        assert_eq!(expected.0, 4);
        assert_eq!(expected.2, 3);
        for segments in [1, 2, 3] {
            let (index, field) = index_of(&all, segments, &gone);
            assert_eq!(statistics_of(&index, field, "rust"), expected, "{segments}");
        }
        // tantivy's own count holds the deleted pages.
        let (index, field) = index_of(&all, 2, &gone);
        let searcher = index.reader().unwrap().searcher();
        let term = Term::from_field_text(field, "rust");
        assert_eq!(searcher.doc_freq(&term).unwrap(), 5);
    }

    #[test]
    fn a_field_length_is_its_documents_norms_summed() {
        // Up to 40 tokens a norm is the exact length; 300 is rounded down to a step.
        let long = "word ".repeat(300);
        let (index, field) = index_of(&["one two three", long.as_str()], 1, &[]);
        let searcher = index.reader().unwrap().searcher();
        let length = LiveStatistics(vec![&searcher])
            .total_num_tokens(field)
            .unwrap();
        let step = u64::from(FieldNormReader::id_to_fieldnorm(
            tantivy::fieldnorm::FieldNormReader::fieldnorm_to_id(300),
        ));
        assert!(step <= 300);
        assert_eq!(length, 3 + step);
    }
}
