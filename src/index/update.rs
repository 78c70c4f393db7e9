//! Update: the live generation of an index in, a new generation that starts as that one out —
//! its files hard-linked (copied across file systems), opened for writing — for `add` and
//! `delete`; plus what they read of the live index first (every page's URL, fetch time and
//! digest) and the deletes by URL or site.
//!
//! tantivy never writes a file twice: segment files and delete files are new files, and
//! `meta.json` / `.managed.json` are rewritten by writing a temporary file and renaming it over
//! (`atomic_write` in tantivy's `MmapDirectory`), which replaces the new generation's link and
//! leaves the live generation's file as it was. So until the new generation is published, the
//! live one is untouched, and a failed or killed update leaves it live; the new directory is
//! removed by [`Generation`]'s drop, or by the next writer if the process was killed.

use std::collections::hash_map::Entry;
use std::fs;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use tantivy::collector::Count;
use tantivy::query::TermQuery;
use tantivy::schema::IndexRecordOption;
use tantivy::{Index, Term};

use super::{
    Generation, IndexBuild, IndexError, SUMMARY, WRITER_HEAP_PER_THREAD_MIN, io_error,
    live_generation_name, tantivy_error,
};
use crate::analyze::register_tokenizers;

/// The share of a segment's documents that may be deleted (replaced by an `add`, removed by a
/// `delete`) before an update merges its level, dropping them: Lucene's `TieredMergePolicy`
/// allows a third by default. tantivy's own default (1.0) never merges for deletes, so an index
/// kept by adds grows with every replaced page (docs/MEASUREMENTS.md, "Constants and the
/// figures behind them"), and its BM25 statistics count pages long gone.
const DELETED_SHARE_BEFORE_MERGE: f32 = 1.0 / 3.0;

/// The live generation an update started from.
#[derive(Debug, Clone)]
pub struct PreviousGeneration {
    /// Its directory.
    pub directory: PathBuf,
    /// The documents it holds.
    pub documents: u64,
}

impl PreviousGeneration {
    /// The build summary stored with it.
    pub fn summary<T: DeserializeOwned>(&self) -> Result<T, IndexError> {
        let path = self.directory.join(SUMMARY);
        let bytes = fs::read(&path).map_err(io_error("read", &path))?;
        serde_json::from_slice(&bytes).map_err(|error| IndexError::Summary {
            path,
            message: error.to_string(),
        })
    }
}

/// What `delete` removes: the page of a URL, or every page of a site.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum DeleteTarget {
    /// The page whose URL is exactly this.
    Url(String),
    /// Every page of this site (host).
    Site(String),
}

impl std::fmt::Display for DeleteTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DeleteTarget::Url(url) => write!(f, "url {url}"),
            DeleteTarget::Site(site) => write!(f, "site {site}"),
        }
    }
}

/// The URLs listed in `text`, one a line (trimmed; blank lines and lines starting with `#`
/// passed over), as targets to delete.
pub fn url_list(text: &str) -> Vec<DeleteTarget> {
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| DeleteTarget::Url(line.to_string()))
        .collect()
}

/// Whether the file `name` of a live generation goes into the next one: everything tantivy
/// manages, but not the build summary (the update writes its own) nor tantivy's lock files
/// and temporary files.
fn carried_over(name: &str) -> bool {
    name != SUMMARY && !name.starts_with(".tantivy-") && !name.starts_with(".tmp")
}

/// A hard link where the file system allows one, a copy otherwise (synced). Only for files
/// never written again once made: tantivy's segment files, and the metadata it replaces by
/// rename.
pub fn link_or_copy(from: &Path, to: &Path) -> std::io::Result<()> {
    if fs::hard_link(from, to).is_ok() {
        return Ok(());
    }
    fs::copy(from, to)?;
    fs::File::open(to)?.sync_all()
}

impl IndexBuild {
    /// Begins a new [`Generation`] of the index at `root` holding what its live generation
    /// holds, open for writing by `threads` indexing threads; and the live generation it
    /// started from. Refuses a directory that is not an index.
    pub fn begin_update(
        root: &Path,
        threads: usize,
        heap_bytes: usize,
    ) -> Result<(IndexBuild, PreviousGeneration), IndexError> {
        if live_generation_name(root).is_none() {
            return Err(IndexError::NotAnIndex(
                root.to_path_buf(),
                "; build one with `indexer build`",
            ));
        }
        let generation = Generation::begin(root)?;
        // Read again under the lock: another writer may have published since.
        let live = live_generation_name(root).ok_or_else(|| {
            IndexError::NotAnIndex(root.to_path_buf(), "; its CURRENT file went away")
        })?;
        let live = root.join(live);
        let directory = generation.directory().to_path_buf();
        for entry in fs::read_dir(&live).map_err(io_error("read", &live))? {
            let entry = entry.map_err(io_error("read", &live))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if carried_over(&name) && entry.path().is_file() {
                let target = directory.join(&name);
                link_or_copy(&entry.path(), &target).map_err(io_error("link", &target))?;
            }
        }
        let index = Index::open_in_dir(&directory).map_err(tantivy_error(&directory))?;
        register_tokenizers(index.tokenizers());
        let fields = super::Fields::of(&index.schema()).map_err(tantivy_error(&directory))?;
        let documents = searcher_of(&index, &directory)?.num_docs();
        let threads = threads.clamp(1, super::MAX_WRITER_THREADS);
        let writer = index
            .writer_with_num_threads(
                threads,
                heap_bytes.max(threads * WRITER_HEAP_PER_THREAD_MIN),
            )
            .map_err(tantivy_error(&directory))?;
        let mut merges = tantivy::merge_policy::LogMergePolicy::default();
        merges.set_del_docs_ratio_before_merge(DELETED_SHARE_BEFORE_MERGE);
        writer.set_merge_policy(Box::new(merges));
        let previous = PreviousGeneration {
            directory: live,
            documents,
        };
        Ok((
            IndexBuild {
                writer: Some(writer),
                fields,
                generation,
            },
            previous,
        ))
    }

    /// Calls `each` with the site, URL, fetch time and digest of every page the index held
    /// when this update began (what is committed; nothing added since), in no set order. An
    /// index built before those fields existed is [`IndexError::Outdated`].
    pub fn for_each_indexed_page(
        &self,
        mut each: impl FnMut(&str, &str, i64, u64),
    ) -> Result<(), IndexError> {
        let directory = self.generation.directory().to_path_buf();
        if self.fields.crawl.is_none() {
            let root = self.generation.root().to_path_buf();
            return Err(IndexError::Outdated(root));
        }
        let Some(writer) = &self.writer else {
            return Ok(());
        };
        let failed = |error: std::io::Error| tantivy_error(&directory)(error.into());
        let searcher = searcher_of(writer.index(), &directory)?;
        for segment in searcher.segment_readers() {
            let fast = segment.fast_fields();
            let urls = fast.str("url").map_err(tantivy_error(&directory))?;
            let Some(urls) = urls else { continue };
            let fetched = fast.i64("fetched").map_err(tantivy_error(&directory))?;
            let digests = fast.u64("digest").map_err(tantivy_error(&directory))?;
            let sites = fast.str("site").map_err(tantivy_error(&directory))?;
            // The pages in URL order, so that the URLs are read from their dictionary block by
            // block (each block is inflated once, not once a page).
            let mut by_url: Vec<(u64, tantivy::DocId)> = segment
                .doc_ids_alive()
                .filter_map(|doc| urls.term_ords(doc).next().map(|ord| (ord, doc)))
                .collect();
            by_url.sort_unstable();
            let ords: Vec<u64> = by_url.iter().map(|&(ord, _)| ord).collect();
            let mut site_names: rustc_hash::FxHashMap<u64, String> = Default::default();
            let mut error = None;
            let mut at = 0;
            urls.dictionary()
                .sorted_ords_to_term_cb(&ords, |url| {
                    let doc = by_url[at].1;
                    at += 1;
                    let (Ok(url), None) = (std::str::from_utf8(url), &error) else {
                        return;
                    };
                    let mut site = "";
                    if let Some(sites) = &sites
                        && let Some(ord) = sites.term_ords(doc).next()
                    {
                        let name = match site_names.entry(ord) {
                            Entry::Occupied(known) => known.into_mut(),
                            Entry::Vacant(new) => {
                                let mut name = String::new();
                                if let Err(failure) = sites.ord_to_str(ord, &mut name) {
                                    error = Some(failure);
                                    return;
                                }
                                new.insert(name)
                            }
                        };
                        site = name;
                    }
                    let time = fetched.first(doc).unwrap_or(i64::MIN);
                    let digest = digests.first(doc).unwrap_or(0);
                    each(site, url, time, digest);
                })
                .map_err(failed)?;
            if let Some(failure) = error {
                return Err(failed(failure));
            }
        }
        Ok(())
    }

    /// Calls `each` with the site, URL, source file (`None`: standard input), record offset,
    /// digest and stored decisions of every page of `sites` the index held when this update
    /// began.
    pub fn for_each_indexed_source(
        &self,
        sites: &[String],
        mut each: impl FnMut(&str, &str, Option<&str>, u64, u64, &[u8]),
    ) -> Result<(), IndexError> {
        let directory = self.generation.directory().to_path_buf();
        let (Some(writer), Some(record), Some(crawl)) =
            (&self.writer, self.fields.record, self.fields.crawl)
        else {
            return Ok(());
        };
        let searcher = searcher_of(writer.index(), &directory)?;
        for site in sites {
            let query = TermQuery::new(
                Term::from_field_text(self.fields.site, site),
                IndexRecordOption::Basic,
            );
            let addresses = searcher
                .search(&query, &tantivy::collector::DocSetCollector)
                .map_err(tantivy_error(&directory))?;
            for address in addresses {
                let document: tantivy::TantivyDocument =
                    searcher.doc(address).map_err(tantivy_error(&directory))?;
                let text = |field| {
                    document
                        .get_first(field)
                        .and_then(|value| tantivy::schema::Value::as_str(&value))
                };
                let Some(url) = text(self.fields.url) else {
                    continue;
                };
                let number = |field| {
                    document
                        .get_first(field)
                        .and_then(|value| tantivy::schema::Value::as_u64(&value))
                        .unwrap_or(0)
                };
                let (offset, digest) = (number(record.source_offset), number(crawl.digest));
                let decisions = document
                    .get_first(record.decisions)
                    .and_then(|value| tantivy::schema::Value::as_bytes(&value))
                    .unwrap_or_default();
                each(site, url, text(record.source), offset, digest, decisions);
            }
        }
        Ok(())
    }

    /// Deletes the pages `target` names; returns how many of the pages the index held when
    /// this update began it names.
    pub fn delete(&mut self, target: &DeleteTarget) -> Result<u64, IndexError> {
        let directory = self.generation.directory().to_path_buf();
        let Some(writer) = &self.writer else {
            return Ok(0);
        };
        let term = match target {
            DeleteTarget::Url(url) => Term::from_field_text(self.fields.url, url),
            DeleteTarget::Site(site) => Term::from_field_text(self.fields.site, site),
        };
        let searcher = searcher_of(writer.index(), &directory)?;
        let query = TermQuery::new(term.clone(), IndexRecordOption::Basic);
        let found = searcher
            .search(&query, &Count)
            .map_err(tantivy_error(&directory))?;
        writer.delete_term(term);
        Ok(found as u64)
    }

    /// The directory of the generation being written (where an update's companions of the
    /// index, such as the sites' template models, are written beside it).
    pub fn generation_directory(&self) -> &Path {
        self.generation.directory()
    }
}

/// A searcher over what `index` has committed.
fn searcher_of(index: &Index, directory: &Path) -> Result<tantivy::Searcher, IndexError> {
    let reader = index
        .reader_builder()
        .reload_policy(tantivy::ReloadPolicy::Manual)
        .try_into()
        .map_err(tantivy_error(directory))?;
    Ok(reader.searcher())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_list_passes_over_blank_lines_and_comments() {
        let text = "# gone\nhttp://a.example/1\n\n  http://a.example/2  \n#http://b.example/\n";
        assert_eq!(
            url_list(text),
            [
                DeleteTarget::Url("http://a.example/1".into()),
                DeleteTarget::Url("http://a.example/2".into())
            ]
        );
    }

    #[test]
    fn only_the_files_tantivy_manages_are_carried_over() {
        assert!(carried_over("meta.json"));
        assert!(carried_over(".managed.json"));
        assert!(carried_over("0a1b.store"));
        assert!(!carried_over("build.json"));
        assert!(!carried_over(".tantivy-writer.lock"));
        assert!(!carried_over(".tantivy-meta.lock"));
    }
}
