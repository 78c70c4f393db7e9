//! Export: an open index in, each live document's stored URL, site, title and kept text out
//! (in the index's own order: segment by segment) — the clean text of a crawl taken from its
//! index, as it was decided when each page went in, without deciding anything again.

use tantivy::TantivyDocument;
use tantivy::collector::Count;

use super::{IndexError, OpenIndex, Provenance, stored_provenance, stored_text, tantivy_error};

/// One document of an index, as stored.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct StoredPage {
    /// The page URL.
    pub url: String,
    /// Its site.
    pub site: String,
    /// Its title.
    pub title: String,
    /// Where its record lies.
    #[serde(flatten)]
    pub provenance: Provenance,
    /// The kept text, a block per line.
    pub text: String,
}

impl OpenIndex {
    /// Live documents.
    pub fn documents(&self) -> Result<u64, IndexError> {
        let reader = self
            .index
            .reader()
            .map_err(tantivy_error(&self.directory))?;
        let count = reader
            .searcher()
            .search(&tantivy::query::AllQuery, &Count)
            .map_err(tantivy_error(&self.directory))?;
        Ok(count as u64)
    }

    /// Hands every live document to `each`, segment by segment; stops at `each`'s first
    /// error, which is returned as `Ok(Err(..))`.
    pub fn for_each_page<E>(
        &self,
        mut each: impl FnMut(StoredPage) -> Result<(), E>,
    ) -> Result<Result<(), E>, IndexError> {
        let reader = self
            .index
            .reader()
            .map_err(tantivy_error(&self.directory))?;
        let searcher = reader.searcher();
        let fields = self.fields;
        for segment in searcher.segment_readers() {
            let store = segment
                .get_store_reader(64)
                .map_err(|source| tantivy_error(&self.directory)(source.into()))?;
            for doc_id in segment.doc_ids_alive() {
                let document: TantivyDocument =
                    store.get(doc_id).map_err(tantivy_error(&self.directory))?;
                let page = StoredPage {
                    url: stored_text(&document, fields.url),
                    site: stored_text(&document, fields.site),
                    title: stored_text(&document, fields.title),
                    provenance: stored_provenance(&document, &fields),
                    text: stored_text(&document, fields.body),
                };
                if let Err(error) = each(page) {
                    return Ok(Err(error));
                }
            }
        }
        Ok(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use crate::index::{IndexBuild, IndexedPage, OpenIndex};

    #[test]
    fn every_live_page_comes_out_once_as_stored() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("idx");
        let mut build = IndexBuild::begin(&root, 1, 15_000_000).unwrap();
        build
            .add(&IndexedPage::text("http://a/1", "a", "One", "first\ntext"))
            .unwrap();
        build
            .add(&IndexedPage::text("http://a/2", "a", "Two", "old"))
            .unwrap();
        build
            .replace(&IndexedPage::text("http://a/2", "a", "Two", "new"))
            .unwrap();
        build.commit(&serde_json::json!({})).unwrap();

        let open = OpenIndex::open(&root).unwrap();
        let mut pages = Vec::new();
        open.for_each_page(|page| {
            pages.push(page);
            Ok::<(), ()>(())
        })
        .unwrap()
        .unwrap();
        pages.sort_by(|a, b| a.url.cmp(&b.url));
        let texts: Vec<(&str, &str, &str)> = pages
            .iter()
            .map(|page| (page.url.as_str(), page.title.as_str(), page.text.as_str()))
            .collect();
        assert_eq!(
            texts,
            [
                ("http://a/1", "One", "first\ntext"),
                ("http://a/2", "Two", "new")
            ]
        );
        assert_eq!(open.documents().unwrap(), 2);
    }
}
