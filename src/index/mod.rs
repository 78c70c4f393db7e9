//! Index: pages with their kept text in, a tantivy index on disk out — plus the build summary
//! stored beside it and the figures `stats` and `compare` report.
//!
//! # Layout on disk
//!
//! ```text
//! IDX/
//!   CURRENT          name of the live generation (replaced atomically by rename)
//!   LOCK             held (advisory file lock) while a build runs
//!   gen-<id>/        one complete tantivy index + build.json
//!   rounds-<random>/ scratch files of a build in rounds (see IndexBuild::scratch_dir)
//! ```
//!
//! A build writes a new generation and only then points `CURRENT` at it, so a failed or
//! interrupted build leaves the previous index intact and searchable. Generations that
//! `CURRENT` does not name are left-overs of interrupted builds and are removed by the next
//! build that holds the lock.

mod export;
pub mod site_models;
mod stats;
mod update;

pub use export::StoredPage;
pub use site_models::{SiteModelsError, SiteModelsWriter, StoredSiteModels};
pub use stats::{IndexStats, stats, stats_of};
pub use update::{DeleteTarget, PreviousGeneration, link_or_copy, url_list};

use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde::de::DeserializeOwned;
use tantivy::schema::Value;
use tantivy::schema::{
    FAST, Field, INDEXED, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions,
};
use tantivy::store::{Compressor, ZstdCompressor};
use tantivy::{Index, IndexSettings, IndexWriter, TantivyDocument};

use crate::analyze::{Analyzer, CHARS_TOKENIZER_NAME, TOKENIZER_NAME, register_tokenizers};

const CURRENT: &str = "CURRENT";
const LOCK: &str = "LOCK";

/// Bytes of documents the index writer buffers per thread before writing a segment, at most.
const WRITER_HEAP_PER_THREAD: usize = 60_000_000;

/// The least tantivy accepts per thread.
const WRITER_HEAP_PER_THREAD_MIN: usize = 15_000_000;

/// Indexing threads of one writer, at most.
const MAX_WRITER_THREADS: usize = 8;
const SUMMARY: &str = "build.json";
const GENERATION_PREFIX: &str = "gen-";

/// Directories a build may write scratch files into, inside the index directory (under the
/// lock), named with this prefix; left-overs of a killed build are removed by the next.
const SCRATCH_PREFIX: &str = "rounds-";

/// Errors of the index stage.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// A file-system operation failed.
    #[error("{action} {path}: {source}")]
    Io {
        /// What was being done.
        action: &'static str,
        /// On what.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// tantivy failed.
    #[error("index {path}: {source}")]
    Tantivy {
        /// The index directory.
        path: PathBuf,
        /// tantivy's error.
        source: tantivy::TantivyError,
    },
    /// Another build holds the lock.
    #[error("another build is writing {0} (its LOCK file is held); wait for it to finish")]
    Locked(PathBuf),
    /// The directory is not an index made by this tool.
    #[error("{0} is not an indexer index (no CURRENT file){1}")]
    NotAnIndex(PathBuf, &'static str),
    /// Files of the index fail their checksums: written over or cut since the build.
    #[error(
        "index {} is damaged: {}; rebuild it with `indexer build`",
        directory.display(),
        failing_checksums(files)
    )]
    Damaged {
        /// The generation directory.
        directory: PathBuf,
        /// The damaged files, sorted.
        files: Vec<PathBuf>,
    },
    /// The site models kept with the index cannot be read or written.
    #[error(transparent)]
    SiteModels(#[from] SiteModelsError),
    /// The index has no `fetched` and `digest` fields, which `add` needs to tell a page it
    /// holds already.
    #[error(
        "{0} was built by an earlier version, without the fields `add` compares pages by; rebuild it with this version (`indexer build`)"
    )]
    Outdated(PathBuf),
    /// The stored build summary cannot be read.
    #[error("build summary {path}: {message}")]
    Summary {
        /// The summary file.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
}

/// `files` fail(s) their (its) checksum(s), in words.
fn failing_checksums(files: &[PathBuf]) -> String {
    let names: Vec<String> = files
        .iter()
        .map(|file| file.display().to_string())
        .collect();
    match names.as_slice() {
        [one] => format!("{one} fails its checksum"),
        _ => format!("{} fail their checksums", names.join(", ")),
    }
}

fn io_error<'a>(
    action: &'static str,
    path: &'a Path,
) -> impl FnOnce(std::io::Error) -> IndexError + 'a {
    move |source| IndexError::Io {
        action,
        path: path.to_path_buf(),
        source,
    }
}

fn tantivy_error(path: &Path) -> impl FnOnce(tantivy::TantivyError) -> IndexError + '_ {
    move |source| IndexError::Tantivy {
        path: path.to_path_buf(),
        source,
    }
}

/// The fields of an index.
#[derive(Debug, Clone, Copy)]
pub struct Fields {
    /// The page URL: exact, fast (search ranks pages of equal score by it), stored.
    pub url: Field,
    /// The page's site: exact, fast.
    pub site: Field,
    /// The page title: analyzed, stored.
    pub title: Field,
    /// Each part of the title as one exact term of its words
    /// ([`title_part_keys`](crate::analyze::title_part_keys)), so that a query that is a whole
    /// part of a title finds it (indexes built before this field existed have none).
    pub title_parts: Option<Field>,
    /// Text of the kept blocks, one per line: analyzed with positions, stored.
    pub body: Field,
    /// The characters of the runs of unspaced scripts (Han, Kana, Thai, …) in the title and
    /// body, with positions, so that one character finds the runs it stands in; the title and
    /// body hold the runs' pairs ([`crate::analyze::FieldTerms`]). Indexes built before this
    /// field existed have none: their title and body hold the characters.
    pub chars: Option<Field>,
    /// Blocks kept.
    pub kept_blocks: Field,
    /// Blocks dropped as template.
    pub dropped_blocks: Field,
    /// Where each page came from and what was decided on it (indexes built before these
    /// fields existed have none).
    pub record: Option<RecordFields>,
    /// When each page was fetched and a hash of its HTML, which `add` compares a new crawl
    /// with (indexes built before these fields existed have none).
    pub crawl: Option<CrawlFields>,
}

/// The fields that tell whether a page of a new crawl is already indexed as it is.
#[derive(Debug, Clone, Copy)]
pub struct CrawlFields {
    /// The record's `WARC-Date` as seconds since 1970 (`i64::MIN` when undated): fast, stored.
    pub fetched: Field,
    /// A stable 64-bit hash of the page's decoded HTML: fast, stored.
    pub digest: Field,
}

/// The fields that let a page be shown again with its decisions (`indexer serve`).
#[derive(Debug, Clone, Copy)]
pub struct RecordFields {
    /// The input file the page's record is in, absolute (stored; absent for standard input).
    pub source: Field,
    /// The record's byte offset in that file (stored).
    pub source_offset: Field,
    /// The record's length from that offset ([`crate::read::Record::source_length`];
    /// stored; indexes built before it have no such field).
    pub source_length: Option<Field>,
    /// The page's decision record (stored bytes: `detect::DecisionRecord`).
    pub decisions: Field,
    /// Bytes of text kept (fast, stored).
    pub kept_text_bytes: Field,
    /// Bytes of text dropped (fast, stored).
    pub dropped_text_bytes: Field,
}

impl Fields {
    fn schema() -> (Schema, Fields) {
        let mut builder = Schema::builder();
        let analyzed = TextOptions::default().set_stored().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(TOKENIZER_NAME)
                .set_index_option(IndexRecordOption::WithFreqsAndPositions),
        );
        let characters = TextOptions::default().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(CHARS_TOKENIZER_NAME)
                .set_index_option(IndexRecordOption::WithFreqsAndPositions),
        );
        let fields = Fields {
            url: builder.add_text_field("url", STRING | FAST | STORED),
            site: builder.add_text_field("site", STRING | FAST | STORED),
            title: builder.add_text_field("title", analyzed.clone()),
            title_parts: Some(builder.add_text_field("title_parts", STRING)),
            body: builder.add_text_field("body", analyzed),
            chars: Some(builder.add_text_field("chars", characters)),
            kept_blocks: builder.add_u64_field("kept_blocks", INDEXED | FAST | STORED),
            dropped_blocks: builder.add_u64_field("dropped_blocks", INDEXED | FAST | STORED),
            record: Some(RecordFields {
                source: builder.add_text_field("source", STORED),
                source_offset: builder.add_u64_field("source_offset", STORED),
                source_length: Some(builder.add_u64_field("source_length", STORED)),
                decisions: builder.add_bytes_field("decisions", STORED),
                kept_text_bytes: builder.add_u64_field("kept_text_bytes", FAST | STORED),
                dropped_text_bytes: builder.add_u64_field("dropped_text_bytes", FAST | STORED),
            }),
            crawl: Some(CrawlFields {
                fetched: builder.add_i64_field("fetched", FAST | STORED),
                digest: builder.add_u64_field("digest", FAST | STORED),
            }),
        };
        (builder.build(), fields)
    }

    fn of(schema: &Schema) -> Result<Fields, tantivy::TantivyError> {
        Ok(Fields {
            url: schema.get_field("url")?,
            site: schema.get_field("site")?,
            title: schema.get_field("title")?,
            title_parts: schema.get_field("title_parts").ok(),
            body: schema.get_field("body")?,
            chars: schema.get_field("chars").ok(),
            kept_blocks: schema.get_field("kept_blocks")?,
            dropped_blocks: schema.get_field("dropped_blocks")?,
            record: (|| {
                Some(RecordFields {
                    source: schema.get_field("source").ok()?,
                    source_offset: schema.get_field("source_offset").ok()?,
                    source_length: schema.get_field("source_length").ok(),
                    decisions: schema.get_field("decisions").ok()?,
                    kept_text_bytes: schema.get_field("kept_text_bytes").ok()?,
                    dropped_text_bytes: schema.get_field("dropped_text_bytes").ok()?,
                })
            })(),
            crawl: (|| {
                Some(CrawlFields {
                    fetched: schema.get_field("fetched").ok()?,
                    digest: schema.get_field("digest").ok()?,
                })
            })(),
        })
    }
}

/// The first text value of `field` in a stored document, or an empty string.
pub fn stored_text(document: &TantivyDocument, field: Field) -> String {
    document
        .get_first(field)
        .and_then(|value| value.as_str())
        .unwrap_or_default()
        .to_string()
}

/// Where a stored page's record lies — its file's absolute path and the record's offset in
/// it (of the gzip member holding it, in a gzip file) — and the page's decision record, as
/// the index keeps them (an index without [`RecordFields`] keeps neither; a page read from
/// standard input has no file).
pub fn stored_record(
    document: &TantivyDocument,
    fields: &Fields,
) -> (Option<(std::path::PathBuf, u64)>, Option<Vec<u8>>) {
    let Some(record) = fields.record else {
        return (None, None);
    };
    let provenance = stored_provenance(document, fields);
    let source = (provenance.warc_filename).map(|path| {
        let offset = provenance.warc_record_offset.unwrap_or(0);
        (std::path::PathBuf::from(path), offset)
    });
    let decisions = (document.get_first(record.decisions))
        .and_then(|value| value.as_bytes())
        .map(<[u8]>::to_vec);
    (source, decisions)
}

/// Where a page's record lies, as `extract` writes it and search hits and `export` give it
/// back: the file, the record's offset in it and its length (the gzip members holding it).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct Provenance {
    /// The file the record is in (absolute, as the index stores it); `None` for standard
    /// input and pages indexed as text alone.
    pub warc_filename: Option<String>,
    /// The record's byte offset in that file.
    pub warc_record_offset: Option<u64>,
    /// Its bytes from there; `None` when it shares a gzip member with other records, or the
    /// index predates the field.
    pub warc_record_length: Option<u64>,
}

/// Where a stored page's record lies ([`Provenance`]).
pub fn stored_provenance(document: &TantivyDocument, fields: &Fields) -> Provenance {
    let Some(record) = fields.record else {
        return Provenance::default();
    };
    let warc_filename = (document.get_first(record.source))
        .and_then(|value| value.as_str())
        .map(str::to_string);
    let number = |field: Option<Field>| {
        field
            .and_then(|field| document.get_first(field))
            .and_then(|value| value.as_u64())
    };
    let known = warc_filename.is_some();
    Provenance {
        warc_record_offset: number(Some(record.source_offset)).filter(|_| known),
        warc_record_length: number(record.source_length).filter(|_| known),
        warc_filename,
    }
}

/// One page as it goes into the index.
#[derive(Debug, Clone)]
pub struct IndexedPage<'a> {
    /// URL.
    pub url: &'a str,
    /// Site.
    pub site: &'a str,
    /// Title.
    pub title: &'a str,
    /// Kept text, a block per line.
    pub body: &'a str,
    /// Blocks kept.
    pub kept_blocks: u64,
    /// Blocks dropped.
    pub dropped_blocks: u64,
    /// The input file the page's record is in (`None` for standard input).
    pub source: Option<&'a str>,
    /// The record's byte offset in it.
    pub source_offset: u64,
    /// The record's length from that offset, when it has one of its own.
    pub source_length: Option<u64>,
    /// The page's decision record, as bytes.
    pub decisions: &'a [u8],
    /// Bytes of text kept.
    pub kept_text_bytes: u64,
    /// Bytes of text dropped.
    pub dropped_text_bytes: u64,
    /// When the page was fetched, seconds since 1970 (`i64::MIN` when not known).
    pub fetched: i64,
    /// A stable hash of the page's decoded HTML (0 for a page of text alone).
    pub digest: u64,
}

impl<'a> IndexedPage<'a> {
    /// A page of text alone: no blocks counted, no record of where it came from.
    pub fn text(url: &'a str, site: &'a str, title: &'a str, body: &'a str) -> Self {
        IndexedPage {
            url,
            site,
            title,
            body,
            kept_blocks: 0,
            dropped_blocks: 0,
            source: None,
            source_offset: 0,
            source_length: None,
            decisions: &[],
            kept_text_bytes: body.len() as u64,
            dropped_text_bytes: 0,
            fetched: i64::MIN,
            digest: 0,
        }
    }
}

/// A new generation of an index being made: the index directory's lock held, left-overs of
/// interrupted builds removed, and an empty generation directory that becomes the live index
/// on [`publish`](Self::publish). Dropped without publishing, it removes its directory and
/// the live index stays as it was. [`IndexBuild`] writes one with tantivy; `combine` fills
/// one with the segments of shard indexes.
pub struct Generation {
    root: PathBuf,
    directory: PathBuf,
    // Dropped before the lock, which it may remove while it is still held.
    made: MadeFolders,
    _lock: File,
    published: bool,
}

/// The folders made for an index that was not there (`root` and the parents it lacked),
/// removed when dropped unless [`kept`](Self::keep): a first build that fails leaves no
/// folder behind, not even its lock file.
struct MadeFolders {
    root: PathBuf,
    /// Outermost first; each as the path's components named it.
    folders: Vec<PathBuf>,
    kept: bool,
}

impl MadeFolders {
    /// Makes `root` and the parents it lacks, one component at a time, so that only the
    /// folders this call made are noted (a `..` in the path or a folder another process
    /// makes meanwhile is not).
    fn make(root: &Path) -> Result<MadeFolders, IndexError> {
        let mut made = MadeFolders {
            root: root.to_path_buf(),
            folders: Vec::new(),
            kept: false,
        };
        let mut path = PathBuf::new();
        for component in root.components() {
            path.push(component);
            if path.is_dir() {
                continue;
            }
            match fs::create_dir(&path) {
                Ok(()) => made.folders.push(path.clone()),
                Err(error)
                    if error.kind() == std::io::ErrorKind::AlreadyExists && path.is_dir() => {}
                Err(error) => return Err(io_error("create", &path)(error)),
            }
        }
        Ok(made)
    }

    fn keep(&mut self) {
        self.kept = true;
    }
}

impl Drop for MadeFolders {
    fn drop(&mut self) {
        if self.kept || self.folders.is_empty() {
            return;
        }
        if self.folders.last() == Some(&self.root) {
            let _ = fs::remove_file(self.root.join(LOCK));
        }
        for folder in self.folders.iter().rev() {
            // A folder something else was put in stays, and so do those around it.
            if fs::remove_dir(folder).is_err() {
                break;
            }
        }
    }
}

impl Generation {
    /// Takes the lock of `root` (creating the directory if needed), removes left-over
    /// generations of interrupted builds, and creates the new generation's directory.
    pub fn begin(root: &Path) -> Result<Generation, IndexError> {
        if root.exists() && !root.is_dir() {
            return Err(IndexError::NotAnIndex(root.to_path_buf(), ": it is a file"));
        }
        if root.is_dir()
            && !root.join(CURRENT).exists()
            && fs::read_dir(root)
                .map_err(io_error("read", root))?
                .filter_map(Result::ok)
                .any(|entry| {
                    let name = entry.file_name();
                    let name = name.to_string_lossy();
                    name != LOCK
                        && !name.starts_with(CURRENT)
                        && !name.starts_with(GENERATION_PREFIX)
                        && !name.starts_with(SCRATCH_PREFIX)
                })
        {
            return Err(IndexError::NotAnIndex(
                root.to_path_buf(),
                " and it is not empty; refusing to write into it",
            ));
        }
        let made = MadeFolders::make(root)?;
        let lock_path = root.join(LOCK);
        let lock = File::options()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .map_err(io_error("open", &lock_path))?;
        match lock.try_lock() {
            Ok(()) => {}
            Err(fs::TryLockError::WouldBlock) => {
                return Err(IndexError::Locked(root.to_path_buf()));
            }
            Err(fs::TryLockError::Error(source)) => {
                return Err(IndexError::Io {
                    action: "lock",
                    path: lock_path,
                    source,
                });
            }
        }
        remove_stale_generations(root)?;

        let name = format!(
            "{GENERATION_PREFIX}{}-{}",
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_micros())
                .unwrap_or(0),
            std::process::id()
        );
        let directory = root.join(name);
        fs::create_dir(&directory).map_err(io_error("create", &directory))?;
        Ok(Generation {
            root: root.to_path_buf(),
            directory,
            made,
            _lock: lock,
            published: false,
        })
    }

    /// The generation's directory, where its tantivy index goes.
    pub fn directory(&self) -> &Path {
        &self.directory
    }

    /// The index directory it belongs to.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Stores `summary` beside the index and makes this generation the live one (the
    /// previous generation is removed). Returns the generation's directory.
    pub fn publish(mut self, summary: &impl Serialize) -> Result<PathBuf, IndexError> {
        let generation = self.directory.clone();
        let summary_path = generation.join(SUMMARY);
        let json = serde_json::to_vec_pretty(summary).map_err(|error| IndexError::Summary {
            path: summary_path.clone(),
            message: error.to_string(),
        })?;
        write_synced(&summary_path, &json)?;

        // The switch: write CURRENT beside, then rename over (atomic on POSIX).
        let name = generation
            .file_name()
            .map(|name| name.to_string_lossy().into_owned())
            .unwrap_or_default();
        let staged = self.root.join(format!("{CURRENT}.new"));
        write_synced(&staged, name.as_bytes())?;
        let current = self.root.join(CURRENT);
        fs::rename(&staged, &current).map_err(io_error("replace", &current))?;
        if let Ok(directory) = File::open(&self.root) {
            let _ = directory.sync_all();
        }
        self.published = true;
        self.made.keep();
        // The new index is live; an old generation that cannot be removed now is removed by
        // the next build.
        let _ = remove_stale_generations(&self.root);
        Ok(generation)
    }
}

impl Drop for Generation {
    fn drop(&mut self) {
        if !self.published {
            // Then the folders made for it, if any, while the lock is still held.
            let _ = fs::remove_dir_all(&self.directory);
        }
    }
}

/// An index being written: a new [`Generation`] that becomes live on
/// [`commit`](Self::commit). Dropped without committing, it removes its generation and the
/// live index stays as it was.
pub struct IndexBuild {
    writer: Option<IndexWriter>,
    fields: Fields,
    // Dropped after the writer, which writes into its directory.
    generation: Generation,
}

impl IndexBuild {
    /// Indexing threads for a run that would use `wanted` and is allowed `memory_budget`
    /// bytes: at most [`MAX_WRITER_THREADS`], and no more than the writer's eighth of the
    /// budget holds at tantivy's least buffer a thread ([`Self::heap_bytes`]), so that a
    /// machine of many cores under a small budget does not buffer 15 MB for each of them.
    pub fn writer_threads(wanted: usize, memory_budget: usize) -> usize {
        wanted
            .clamp(1, MAX_WRITER_THREADS)
            .min((memory_budget / 8 / WRITER_HEAP_PER_THREAD_MIN).max(1))
    }

    /// Bytes the index writer buffers with `threads` threads in a run allowed
    /// `memory_budget` bytes: an eighth of the budget, between tantivy's least and
    /// [`WRITER_HEAP_PER_THREAD`] per thread.
    pub fn heap_bytes(threads: usize, memory_budget: usize) -> usize {
        let threads = threads.max(1);
        (memory_budget / 8 / threads).clamp(WRITER_HEAP_PER_THREAD_MIN, WRITER_HEAP_PER_THREAD)
            * threads
    }

    /// Begins a new [`Generation`] of `root` and an index in it written by `threads`
    /// indexing threads.
    pub fn begin(root: &Path, threads: usize, heap_bytes: usize) -> Result<IndexBuild, IndexError> {
        let generation = Generation::begin(root)?;
        let directory = generation.directory().to_path_buf();
        let (schema, fields) = Fields::schema();
        let settings = IndexSettings {
            docstore_compression: Compressor::Zstd(ZstdCompressor::default()),
            ..IndexSettings::default()
        };
        let index = Index::builder()
            .schema(schema)
            .settings(settings)
            .create_in_dir(&directory)
            .map_err(tantivy_error(&directory))?;
        register_tokenizers(index.tokenizers());
        let threads = threads.clamp(1, MAX_WRITER_THREADS);
        let writer = index
            .writer_with_num_threads(
                threads,
                heap_bytes.max(threads * WRITER_HEAP_PER_THREAD_MIN),
            )
            .map_err(tantivy_error(&directory))?;
        Ok(IndexBuild {
            writer: Some(writer),
            fields,
            generation,
        })
    }

    /// A new, empty directory for a build's temporary files, inside the index directory and
    /// so under its lock; removed when the returned value is dropped, and by the next build
    /// if this one is killed.
    pub fn scratch_dir(&self) -> std::io::Result<tempfile::TempDir> {
        tempfile::Builder::new()
            .prefix(SCRATCH_PREFIX)
            .tempdir_in(self.generation.root())
    }

    /// Merges no segments for the rest of the build: the index keeps the segments as
    /// written, and memory does not grow by the segments a merge maps back in.
    pub fn hold_merges(&self) {
        if let Some(writer) = &self.writer {
            writer.set_merge_policy(Box::new(tantivy::merge_policy::NoMergePolicy));
        }
    }

    /// Adds one page.
    pub fn add(&mut self, page: &IndexedPage<'_>) -> Result<(), IndexError> {
        let document = self.document(page);
        let Some(writer) = &self.writer else {
            return Ok(());
        };
        match writer.add_document(document) {
            Ok(_) => Ok(()),
            Err(error @ tantivy::TantivyError::ErrorInThread(_)) => Err(self.why_killed(error)),
            Err(error) => Err(tantivy_error(self.generation.directory())(error)),
        }
    }

    /// Adds one page in place of the page of its URL added before in this build: that one is
    /// deleted (tantivy applies a delete to the documents added before it, so the new page
    /// stays).
    pub fn replace(&mut self, page: &IndexedPage<'_>) -> Result<(), IndexError> {
        if let Some(writer) = &self.writer {
            writer.delete_term(tantivy::Term::from_field_text(self.fields.url, page.url));
        }
        self.add(page)
    }

    fn document(&self, page: &IndexedPage<'_>) -> TantivyDocument {
        let fields = self.fields;
        let mut document = TantivyDocument::default();
        document.add_text(fields.url, page.url);
        document.add_text(fields.site, page.site);
        document.add_text(fields.title, page.title);
        if let Some(field) = fields.title_parts {
            for key in crate::analyze::title_part_keys(page.title) {
                document.add_text(field, key);
            }
        }
        document.add_text(fields.body, page.body);
        if let Some(field) = fields.chars {
            for text in [page.title, page.body] {
                if crate::analyze::terms::may_hold_runs(text) {
                    document.add_text(field, text);
                }
            }
        }
        document.add_u64(fields.kept_blocks, page.kept_blocks);
        document.add_u64(fields.dropped_blocks, page.dropped_blocks);
        if let Some(record) = fields.record {
            if let Some(source) = page.source {
                document.add_text(record.source, source);
            }
            document.add_u64(record.source_offset, page.source_offset);
            if let (Some(field), Some(length)) = (record.source_length, page.source_length) {
                document.add_u64(field, length);
            }
            document.add_bytes(record.decisions, page.decisions);
            document.add_u64(record.kept_text_bytes, page.kept_text_bytes);
            document.add_u64(record.dropped_text_bytes, page.dropped_text_bytes);
        }
        if let Some(crawl) = fields.crawl {
            document.add_i64(crawl.fetched, page.fetched);
            document.add_u64(crawl.digest, page.digest);
        }
        document
    }

    /// The error that stopped tantivy's indexing threads, given `killed` — tantivy's "An
    /// index writer was killed", which does not say why (on a full disk, the "No space left
    /// on device" of a worker). Joining the workers, as a commit's first step does, gives
    /// back the first worker's own error; the writer is closed and nothing is committed.
    fn why_killed(&mut self, killed: tantivy::TantivyError) -> IndexError {
        let directory = self.generation.directory().to_path_buf();
        let Some(mut writer) = self.writer.take() else {
            return tantivy_error(&directory)(killed);
        };
        let cause = match writer.prepare_commit() {
            Err(cause) => cause,
            Ok(prepared) => {
                let _ = prepared.abort();
                killed
            }
        };
        tantivy_error(&directory)(cause)
    }

    /// Commits, waits for tantivy's background merges, stores `summary` beside the index and
    /// makes this generation the live one. Returns the generation's directory.
    ///
    /// Segments are not forced into one: merging the whole index at the end cost a tenth of
    /// the build time, and searches and [`stats()`] work across segments.
    pub fn commit(self, summary: &impl Serialize) -> Result<PathBuf, IndexError> {
        self.commit_counted(|_| summary)
            .map(|(directory, _)| directory)
    }

    /// [`commit`](Self::commit), with the summary made from the number of documents the
    /// committed index holds; returns the directory and the summary stored.
    pub fn commit_counted<S: Serialize>(
        mut self,
        summary_of: impl FnOnce(u64) -> S,
    ) -> Result<(PathBuf, S), IndexError> {
        let directory = self.generation.directory().to_path_buf();
        let mut writer = self.writer.take().ok_or_else(|| IndexError::Summary {
            path: directory.clone(),
            message: "index writer already closed".into(),
        })?;
        writer.commit().map_err(tantivy_error(&directory))?;
        let index = writer.index().clone();
        writer
            .wait_merging_threads()
            .map_err(tantivy_error(&directory))?;
        let reader = index
            .reader_builder()
            .reload_policy(tantivy::ReloadPolicy::Manual)
            .try_into()
            .map_err(tantivy_error(&directory))?;
        let documents = reader.searcher().num_docs();
        drop((reader, index));
        let summary = summary_of(documents);
        let generation = self.generation.publish(&summary)?;
        Ok((generation, summary))
    }
}

fn write_synced(path: &Path, bytes: &[u8]) -> Result<(), IndexError> {
    let mut file = File::create(path).map_err(io_error("create", path))?;
    file.write_all(bytes).map_err(io_error("write", path))?;
    file.sync_all().map_err(io_error("sync", path))
}

/// The name of the live generation of the index at `root` (what `CURRENT` names), if it has
/// one. A build replaces it atomically once the new generation is complete, so a reader that
/// sees a new name may open the index again and find it whole.
pub fn live_generation(root: &Path) -> Option<String> {
    live_generation_name(root)
}

fn live_generation_name(root: &Path) -> Option<String> {
    fs::read_to_string(root.join(CURRENT))
        .ok()
        .map(|name| name.trim().to_string())
}

fn remove_stale_generations(root: &Path) -> Result<(), IndexError> {
    let live = live_generation_name(root);
    for entry in fs::read_dir(root).map_err(io_error("read", root))? {
        let entry = entry.map_err(io_error("read", root))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let stale_generation = name.starts_with(GENERATION_PREFIX) && Some(&name) != live.as_ref();
        if stale_generation || name.starts_with(SCRATCH_PREFIX) {
            fs::remove_dir_all(entry.path()).map_err(io_error("remove", &entry.path()))?;
        }
    }
    Ok(())
}

/// A live index opened for reading.
pub struct OpenIndex {
    /// The tantivy index.
    pub index: Index,
    /// Its fields.
    pub fields: Fields,
    /// The generation directory.
    pub directory: PathBuf,
}

impl OpenIndex {
    /// Opens the live generation of the index at `root`.
    pub fn open(root: &Path) -> Result<OpenIndex, IndexError> {
        if !root.exists() {
            return Err(IndexError::Io {
                action: "open",
                path: root.to_path_buf(),
                source: std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    "no such directory; build one with `indexer build`",
                ),
            });
        }
        let name = live_generation_name(root).ok_or_else(|| {
            IndexError::NotAnIndex(root.to_path_buf(), "; build one with `indexer build`")
        })?;
        let directory = root.join(&name);
        let index = Index::open_in_dir(&directory).map_err(tantivy_error(&directory))?;
        register_tokenizers(index.tokenizers());
        let fields = Fields::of(&index.schema()).map_err(tantivy_error(&directory))?;
        Ok(OpenIndex {
            index,
            fields,
            directory,
        })
    }

    /// [`OpenIndex::open`], then every file of the live segments read through and checked
    /// against the checksum in its footer ([`OpenIndex::check`]).
    pub fn open_checked(root: &Path) -> Result<OpenIndex, IndexError> {
        let open = OpenIndex::open(root)?;
        open.check()?;
        Ok(open)
    }

    /// Checks every file of the live segments against the checksum tantivy wrote in its
    /// footer: [`IndexError::Damaged`] naming those that fail. Reads the whole index (its cost:
    /// docs/MEASUREMENTS.md, robustness).
    pub fn check(&self) -> Result<(), IndexError> {
        let damaged = self
            .index
            .validate_checksum()
            .map_err(tantivy_error(&self.directory))?;
        if damaged.is_empty() {
            return Ok(());
        }
        let mut files: Vec<PathBuf> = damaged
            .into_iter()
            .map(|file| self.directory.join(file))
            .collect();
        files.sort();
        Err(IndexError::Damaged {
            directory: self.directory.clone(),
            files,
        })
    }

    /// The analyzer the index's text was cut into terms with ([`Analyzer::Legacy`] for an
    /// index built before [`TOKENIZER_NAME`]), which its queries and highlights use too.
    pub fn analyzer(&self) -> Analyzer {
        let schema = self.index.schema();
        match schema.get_field_entry(self.fields.body).field_type() {
            tantivy::schema::FieldType::Str(options) => options
                .get_indexing_options()
                .map_or(Analyzer::Current, |indexing| {
                    Analyzer::named(indexing.tokenizer())
                }),
            _ => Analyzer::Current,
        }
    }

    /// The build summary stored with the index.
    pub fn summary<T: DeserializeOwned>(&self) -> Result<T, IndexError> {
        let path = self.directory.join(SUMMARY);
        let bytes = fs::read(&path).map_err(io_error("read", &path))?;
        serde_json::from_slice(&bytes).map_err(|error| IndexError::Summary {
            path,
            message: error.to_string(),
        })
    }
}

#[cfg(test)]
mod tests;
