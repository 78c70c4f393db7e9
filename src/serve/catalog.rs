//! The catalog: the indexes a server answers from. Queries in, hits merged across the
//! indexes out; a URL in, the page's stored fields and decision record out; and each index's
//! build summary, statistics and text kept and dropped per site.
//!
//! [`LiveCatalog`] is the catalog a server holds: before each request it reads each index's
//! `CURRENT` (a few bytes) and, when a build has made another generation live since, opens
//! the indexes again and answers from them. A build names a generation in `CURRENT` only once
//! it is complete, so a request sees the old indexes or the new ones, never half of one.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};

use serde::Serialize;
use tantivy::collector::TopDocs;
use tantivy::query::TermQuery;
use tantivy::schema::IndexRecordOption;
use tantivy::schema::Value;
use tantivy::{IndexReader, ReloadPolicy, Searcher, TantivyDocument, Term};

use super::ServeError;
use crate::index::{IndexStats, OpenIndex, live_generation, stats, stored_record, stored_text};
use crate::report::BuildSummary;
use crate::search::{Hit, SearchRequest, search_shards};

/// One index being served.
pub struct ServedIndex {
    /// Its name in pages and answers: the last part of its path (never the whole path, which
    /// would tell every visitor where the machine keeps its files).
    pub name: String,
    /// Its directory, as given.
    pub root: PathBuf,
    /// Its live generation when it was opened (the name `CURRENT` held).
    pub generation: String,
    /// The open index.
    pub open: OpenIndex,
    reader: IndexReader,
    /// Its build summary.
    pub summary: BuildSummary,
    /// Its size figures.
    pub stats: IndexStats,
    /// Pages and text kept and dropped, per site, most text first.
    pub sites: Vec<SiteText>,
}

/// What an index holds of one site.
#[derive(Debug, Clone, Default, Serialize)]
pub struct SiteText {
    /// The site.
    pub site: String,
    /// Its pages.
    pub pages: u64,
    /// Bytes of its text kept.
    pub kept_text_bytes: u64,
    /// Bytes of its text dropped.
    pub dropped_text_bytes: u64,
}

/// A hit, with the index it came from.
#[derive(Debug, Clone, Serialize)]
pub struct CatalogHit {
    /// The hit.
    #[serde(flatten)]
    pub hit: Hit,
    /// The index it came from (its position in the catalog).
    pub index: usize,
}

/// The answer to a query over every index: the hits merged by score.
#[derive(Debug, Clone, Serialize)]
pub struct CatalogResults {
    /// The query as given.
    pub query: String,
    /// Why the query was searched as plain words, if it was.
    pub fallback: Option<String>,
    /// A `site:` or `url:` filter of the query that no page passes, said in words.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Pages matching, over every index (after the site filter).
    pub total: usize,
    /// Hits skipped before the first.
    pub offset: usize,
    /// The hits, best first.
    pub hits: Vec<CatalogHit>,
    /// Matching pages per site, most first (before the site filter).
    pub sites: Vec<SiteCount>,
}

/// Matching pages of one site.
#[derive(Debug, Clone, Serialize)]
pub struct SiteCount {
    /// The site.
    pub site: String,
    /// Matching pages.
    pub count: u64,
}

/// A page's stored fields, found by URL.
#[derive(Debug, Clone)]
pub struct FoundPage {
    /// The index it is in.
    pub index: usize,
    /// URL.
    pub url: String,
    /// Title.
    pub title: String,
    /// Site.
    pub site: String,
    /// Kept text.
    pub body: String,
    /// Blocks kept and dropped.
    pub kept_blocks: u64,
    /// Blocks dropped.
    pub dropped_blocks: u64,
    /// Bytes of text kept and dropped (0 in an index built before they were recorded).
    pub text_bytes: (u64, u64),
    /// The input file of the page's record, and its offset (absent in an index built
    /// before records were kept, or from standard input).
    pub source: Option<(PathBuf, u64)>,
    /// The decision record's bytes, if the index keeps them.
    pub decisions: Option<Vec<u8>>,
}

/// The indexes a server answers from.
pub struct Catalog {
    /// The indexes, in the order given.
    pub indexes: Vec<ServedIndex>,
}

impl Catalog {
    /// Opens every index of `paths` (each must be an index `indexer build` made).
    pub fn open(paths: &[PathBuf]) -> Result<Catalog, ServeError> {
        if paths.is_empty() {
            return Err(ServeError::NoIndex);
        }
        let mut indexes: Vec<ServedIndex> = Vec::with_capacity(paths.len());
        for path in paths {
            let served = ServedIndex::open(path)?;
            if let Some(first) = indexes.first()
                && first.open.index.schema() != served.open.index.schema()
            {
                return Err(ServeError::Query(crate::search::SearchError::Schemas(
                    served.name.clone(),
                )));
            }
            indexes.push(served);
        }
        Ok(Catalog { indexes })
    }

    /// Whether every index's live generation is still the one opened (an index whose
    /// `CURRENT` cannot be read now counts as unchanged: the open one goes on being served).
    pub fn is_current(&self) -> bool {
        self.indexes.iter().all(|served| {
            live_generation(&served.root).is_none_or(|live| live == served.generation)
        })
    }

    /// Runs `request` on every index as one ([`search_shards`]: each page scored with the
    /// indexes' statistics summed, pages of equal score ranked by URL).
    pub fn search(&self, request: &SearchRequest<'_>) -> Result<CatalogResults, ServeError> {
        let shards: Vec<_> = self
            .indexes
            .iter()
            .map(|served| (&served.open, served.searcher()))
            .collect();
        let results = search_shards(&shards, request)?;
        let mut sites: Vec<SiteCount> = results
            .sites
            .into_iter()
            .map(|(site, count)| SiteCount { site, count })
            .collect();
        sites.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.site.cmp(&b.site)));
        Ok(CatalogResults {
            query: results.query,
            fallback: results.fallback,
            notes: results.notes,
            total: results.total,
            offset: results.offset,
            hits: results
                .hits
                .into_iter()
                .map(|mut hit| {
                    // The source as the page view shows it: never the machine's absolute path.
                    if let (Some(filename), Some(served)) =
                        (&hit.provenance.warc_filename, self.indexes.get(hit.index))
                    {
                        let shown = shown_source(Path::new(filename), &served.root);
                        hit.provenance.warc_filename = Some(shown);
                    }
                    CatalogHit {
                        index: hit.index,
                        hit,
                    }
                })
                .collect(),
            sites,
        })
    }

    /// The page stored under `url`, from the first index (or index `only`) holding it.
    pub fn page(&self, url: &str, only: Option<usize>) -> Result<Option<FoundPage>, ServeError> {
        for (at, served) in self.indexes.iter().enumerate() {
            if only.is_some_and(|only| only != at) {
                continue;
            }
            if let Some(page) = served.page(url, at)? {
                return Ok(Some(page));
            }
        }
        Ok(None)
    }
}

impl ServedIndex {
    fn open(path: &Path) -> Result<ServedIndex, ServeError> {
        let open = OpenIndex::open_checked(path)?;
        // A generation never changes once live: no watcher thread to reload it.
        let reader = open
            .index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()
            .map_err(ServeError::Search)?;
        let summary: BuildSummary = open.summary()?;
        let stats = stats(&open)?;
        let sites = site_text(&open, &reader.searcher()).map_err(ServeError::Search)?;
        let generation = open
            .directory
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        Ok(ServedIndex {
            name: index_name(path),
            root: path.to_path_buf(),
            generation,
            open,
            reader,
            summary,
            stats,
            sites,
        })
    }

    fn searcher(&self) -> Searcher {
        self.reader.searcher()
    }

    fn page(&self, url: &str, at: usize) -> Result<Option<FoundPage>, ServeError> {
        let searcher = self.searcher();
        let fields = self.open.fields;
        let query = TermQuery::new(
            Term::from_field_text(fields.url, url),
            IndexRecordOption::Basic,
        );
        let top = searcher
            .search(&query, &TopDocs::with_limit(1).order_by_score())
            .map_err(ServeError::Search)?;
        let Some((_, address)) = top.first() else {
            return Ok(None);
        };
        let document: TantivyDocument = searcher.doc(*address).map_err(ServeError::Search)?;
        let number = |field| {
            document
                .get_first(field)
                .and_then(|value| value.as_u64())
                .unwrap_or(0)
        };
        let text_bytes = fields.record.map_or((0, 0), |record| {
            (
                number(record.kept_text_bytes),
                number(record.dropped_text_bytes),
            )
        });
        let (source, decisions) = stored_record(&document, &fields);
        Ok(Some(FoundPage {
            index: at,
            url: stored_text(&document, fields.url),
            title: stored_text(&document, fields.title),
            site: stored_text(&document, fields.site),
            body: stored_text(&document, fields.body),
            kept_blocks: number(fields.kept_blocks),
            dropped_blocks: number(fields.dropped_blocks),
            text_bytes,
            source,
            decisions,
        }))
    }
}

/// The catalog a server answers from: opened again when a build replaces the live
/// generation of one of its indexes.
pub struct LiveCatalog {
    paths: Vec<PathBuf>,
    current: RwLock<Arc<Catalog>>,
    /// Held while the indexes are opened again (one request opens them; the others answer
    /// from the catalog open until it is done). Holds the generations that last failed to
    /// open, not tried again until `CURRENT` names others.
    reopening: Mutex<Option<Vec<Option<String>>>>,
}

impl LiveCatalog {
    /// Opens the indexes of `paths`.
    pub fn open(paths: &[PathBuf]) -> Result<LiveCatalog, ServeError> {
        Ok(LiveCatalog::new(Catalog::open(paths)?))
    }

    /// Serves `catalog`, watching its indexes' directories.
    pub fn new(catalog: Catalog) -> LiveCatalog {
        LiveCatalog {
            paths: catalog
                .indexes
                .iter()
                .map(|served| served.root.clone())
                .collect(),
            current: RwLock::new(Arc::new(catalog)),
            reopening: Mutex::new(None),
        }
    }

    /// The catalog as open now, without looking for a new generation.
    pub fn open_now(&self) -> Arc<Catalog> {
        Arc::clone(
            &self
                .current
                .read()
                .unwrap_or_else(|poison| poison.into_inner()),
        )
    }

    /// The catalog to answer a request from: the one open, or, when a build has made another
    /// generation of an index live since, the indexes opened again. A catalog that cannot be
    /// opened again (a build removed the generation just named, a schema changed) leaves the
    /// open one served. Blocking: it reads a few bytes per index, and opens indexes again.
    pub fn current(&self) -> Arc<Catalog> {
        let open = self.open_now();
        if open.is_current() {
            return open;
        }
        let Ok(mut failed) = self.reopening.try_lock() else {
            return open;
        };
        let open = self.open_now();
        if open.is_current() {
            return open;
        }
        let live: Vec<Option<String>> = self
            .paths
            .iter()
            .map(|path| live_generation(path))
            .collect();
        if failed.as_ref() == Some(&live) {
            return open;
        }
        match Catalog::open(&self.paths) {
            Ok(catalog) => {
                let catalog = Arc::new(catalog);
                *self
                    .current
                    .write()
                    .unwrap_or_else(|poison| poison.into_inner()) = Arc::clone(&catalog);
                *failed = None;
                catalog
            }
            Err(error) => {
                eprintln!(
                    "indexer serve: a new generation could not be opened ({error}); serving the previous one"
                );
                *failed = Some(live);
                open
            }
        }
    }
}

/// An index's name in pages and answers: its directory's last part.
fn index_name(path: &Path) -> String {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let normal: Vec<&std::ffi::OsStr> = absolute
        .components()
        .filter_map(|part| match part {
            Component::Normal(name) => Some(name),
            _ => None,
        })
        .collect();
    normal.last().map_or_else(
        || "index".to_string(),
        |name| name.to_string_lossy().into_owned(),
    )
}

/// How a page's source file is shown to visitors: relative to the index directory `root`
/// when they share a directory below the file system's root (`../crawl/a.warc.gz`), else its
/// file name alone — never the absolute path.
pub fn shown_source(source: &Path, root: &Path) -> String {
    let absolute = |path: &Path| std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let normal = |path: &Path| -> Vec<std::ffi::OsString> {
        path.components()
            .filter_map(|part| match part {
                Component::Normal(name) => Some(name.to_os_string()),
                Component::ParentDir => Some("..".into()),
                _ => None,
            })
            .collect()
    };
    let (source_parts, root_parts) = (normal(&absolute(source)), normal(&absolute(root)));
    let shared = source_parts
        .iter()
        .zip(&root_parts)
        .take_while(|(a, b)| a == b)
        .count();
    let file_name = || {
        source
            .file_name()
            .map_or_else(String::new, |name| name.to_string_lossy().into_owned())
    };
    if shared == 0 || source_parts[shared..].iter().any(|part| part == "..") {
        return file_name();
    }
    let mut shown = PathBuf::new();
    for _ in shared..root_parts.len() {
        shown.push("..");
    }
    for part in &source_parts[shared..] {
        shown.push(part);
    }
    if shown.as_os_str().is_empty() {
        return ".".to_string();
    }
    shown.display().to_string()
}

/// Pages and text kept and dropped per site, from the fast fields, most text first.
fn site_text(open: &OpenIndex, searcher: &Searcher) -> tantivy::Result<Vec<SiteText>> {
    let mut sites: BTreeMap<String, SiteText> = BTreeMap::new();
    for segment in searcher.segment_readers() {
        let fast = segment.fast_fields();
        let Some(site_column) = fast.str("site")? else {
            continue;
        };
        let text_column = |name: &str| fast.u64(name).ok();
        let (kept, dropped) = match open.fields.record {
            Some(_) => (
                text_column("kept_text_bytes"),
                text_column("dropped_text_bytes"),
            ),
            None => (None, None),
        };
        let mut names: Vec<Option<String>> = vec![None; site_column.num_terms()];
        for doc in segment.doc_ids_alive() {
            let Some(ord) = site_column.term_ords(doc).next() else {
                continue;
            };
            let name = names.get_mut(ord as usize).and_then(|slot| {
                if slot.is_none() {
                    let mut name = String::new();
                    if site_column.ord_to_str(ord, &mut name).unwrap_or(false) {
                        *slot = Some(name);
                    }
                }
                slot.clone()
            });
            let Some(name) = name else { continue };
            let entry = sites.entry(name.clone()).or_insert_with(|| SiteText {
                site: name,
                ..SiteText::default()
            });
            entry.pages += 1;
            entry.kept_text_bytes += kept.as_ref().and_then(|c| c.first(doc)).unwrap_or(0);
            entry.dropped_text_bytes += dropped.as_ref().and_then(|c| c.first(doc)).unwrap_or(0);
        }
    }
    let mut sites: Vec<SiteText> = sites.into_values().collect();
    sites.sort_by(|a, b| {
        (b.kept_text_bytes + b.dropped_text_bytes)
            .cmp(&(a.kept_text_bytes + a.dropped_text_bytes))
            .then_with(|| a.site.cmp(&b.site))
    });
    Ok(sites)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::DetectorKind;
    use crate::run::test_support::{page_url, site_pages};
    use crate::serve::test_support::built_index;

    /// Two indexes: the first of three pages of a.example, the second of the first page of
    /// a.example again and two pages of b.example; built by `none`.
    fn two_indexes(dir: &Path) -> (Catalog, PathBuf, PathBuf) {
        let (first, first_input) = built_index(
            dir,
            "first",
            &site_pages("a.example", 3),
            DetectorKind::None,
        );
        let mut records = site_pages("a.example", 1);
        records.extend(site_pages("b.example", 2));
        let (second, second_input) = built_index(dir, "second", &records, DetectorKind::None);
        let catalog = Catalog::open(&[first, second]).unwrap();
        (catalog, first_input, second_input)
    }

    #[test]
    fn sources_are_shown_relative_to_the_index_or_by_name() {
        let shown = |source: &str, root: &str| shown_source(Path::new(source), Path::new(root));
        assert_eq!(
            shown("/data/crawl/a.warc.gz", "/data/idx"),
            "../crawl/a.warc.gz"
        );
        assert_eq!(shown("/data/idx/in/a.warc", "/data/idx"), "in/a.warc");
        assert_eq!(shown("/home/me/a.warc", "/srv/idx"), "a.warc");
        assert_eq!(shown("/a.warc", "/srv/idx"), "a.warc");
        assert_eq!(shown("/srv/idx", "/srv/idx"), ".");
        assert_eq!(shown("/srv", "/srv/idx"), "..");
        assert_eq!(index_name(Path::new("/srv/indexes/cc")), "cc");
        assert_eq!(index_name(Path::new("/")), "index");
    }

    #[test]
    fn a_catalog_needs_indexes() {
        assert!(matches!(Catalog::open(&[]), Err(ServeError::NoIndex)));
        let dir = tempfile::tempdir().unwrap();
        assert!(Catalog::open(&[dir.path().to_path_buf()]).is_err());
    }

    #[test]
    fn a_page_comes_from_the_first_index_holding_it_or_the_one_asked() {
        let dir = tempfile::tempdir().unwrap();
        let (catalog, first_input, second_input) = two_indexes(dir.path());
        let (a0, b1) = (page_url("a.example", 0), page_url("b.example", 1));
        let index_of = |url: &str, only| catalog.page(url, only).unwrap().map(|page| page.index);
        assert_eq!(index_of(&a0, None), Some(0));
        assert_eq!(index_of(&a0, Some(1)), Some(1));
        assert_eq!(index_of(&b1, None), Some(1));
        assert_eq!(index_of(&b1, Some(0)), None);
        assert_eq!(index_of("http://a.example/nowhere", None), None);

        let page = catalog.page(&b1, None).unwrap().unwrap();
        assert_eq!(page.url, b1);
        assert_eq!(page.site, "b.example");
        assert_eq!(page.title, "Chapter 1 of b.example");
        assert!(
            page.body.contains("Borrowing lends references"),
            "{}",
            page.body
        );
        assert_eq!((page.kept_blocks, page.dropped_blocks), (4, 0));
        assert_eq!(
            page.text_bytes,
            (page.body.len() as u64 - 3, 0),
            "no line breaks"
        );
        let (path, offset) = page.source.expect("a source");
        assert_eq!(path, std::path::absolute(&second_input).unwrap());
        let file_bytes = std::fs::read(&second_input).unwrap().len();
        assert!(offset > 0 && (offset as usize) < file_bytes);
        assert!(page.decisions.is_some());
        let first = catalog.page(&a0, None).unwrap().unwrap();
        let (path, offset) = first.source.unwrap();
        assert_eq!(
            (path, offset),
            (std::path::absolute(&first_input).unwrap(), 0)
        );
    }

    #[test]
    fn sites_are_listed_most_text_first_with_their_pages() {
        let dir = tempfile::tempdir().unwrap();
        let (catalog, _, _) = two_indexes(dir.path());
        let listed = |at: usize| -> Vec<(String, u64)> {
            let sites = &catalog.indexes[at].sites;
            sites
                .iter()
                .map(|site| (site.site.clone(), site.pages))
                .collect()
        };
        assert_eq!(listed(0), [("a.example".to_string(), 3)]);
        // b.example has two pages to a.example's one.
        assert_eq!(
            listed(1),
            [("b.example".to_string(), 2), ("a.example".to_string(), 1)]
        );
        let second = &catalog.indexes[1];
        let kept: u64 = second.sites.iter().map(|site| site.kept_text_bytes).sum();
        assert_eq!(kept, second.summary.text_bytes_kept);
        assert!(second.sites.iter().all(|site| site.dropped_text_bytes == 0));
        assert_eq!(second.stats.documents, 3);
        assert_eq!(second.name, "second");
    }

    #[test]
    fn a_search_covers_every_index_and_counts_sites() {
        let dir = tempfile::tempdir().unwrap();
        let (catalog, _, _) = two_indexes(dir.path());
        let request = SearchRequest {
            query: "chapter",
            limit: 10,
            offset: 0,
            site: None,
            count_sites: true,
        };
        let results = catalog.search(&request).unwrap();
        assert_eq!(results.total, 6);
        // a.example's first page is in both indexes: shown once, from one of them.
        assert_eq!(results.hits.len(), 5);
        let mut urls: Vec<&str> = results
            .hits
            .iter()
            .map(|hit| hit.hit.url.as_str())
            .collect();
        urls.sort_unstable();
        urls.dedup();
        assert_eq!(urls.len(), 5);
        let from = |index: usize| results.hits.iter().filter(|hit| hit.index == index).count();
        assert!(from(0) >= 2 && from(1) >= 2, "{:?}", (from(0), from(1)));
        let sites: Vec<(&str, u64)> = results
            .sites
            .iter()
            .map(|count| (count.site.as_str(), count.count))
            .collect();
        assert_eq!(sites, [("a.example", 4), ("b.example", 2)]);

        let on_b = catalog
            .search(&SearchRequest {
                site: Some("b.example"),
                ..request
            })
            .unwrap();
        assert_eq!(on_b.total, 2);
        assert!(
            on_b.hits
                .iter()
                .all(|hit| hit.index == 1 && hit.hit.site == "b.example")
        );
        assert_eq!(on_b.sites.len(), 2, "counted before the site filter");
    }
}
