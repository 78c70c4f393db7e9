//! Combine: shard indexes in, one index out — without indexing a page again. The shards'
//! segments are linked (or copied) into a new generation of the output index and its
//! `meta.json` lists all of them, as a merge of segment metadata does; `--merge` then merges
//! them into one segment. The build summaries are summed, and the skips of the map step
//! (partition manifests) added, so the combined summary counts what one build over the whole
//! crawl would.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::Value;

use super::partition::{Manifest, PartitionError};
use crate::index::{
    Generation, IndexError, OpenIndex, SiteModelsWriter, StoredSiteModels, link_or_copy,
};
use crate::report::{BuildSummary, RunKind, RunRecord};

/// tantivy's metadata file, and the list of files it manages.
const META: &str = "meta.json";
const MANAGED: &str = ".managed.json";

/// What `combine` is asked to do besides joining the shards.
#[derive(Debug, Clone, Default)]
pub struct CombineOptions {
    /// Merge the segments into one after joining them (slower; a smaller, faster index).
    pub merge: bool,
    /// Manifests of the map step whose skipped records the summary adds.
    pub manifests: Vec<PathBuf>,
    /// Threads for `merge`.
    pub threads: usize,
    /// The command line, for the summary.
    pub command_line: Vec<String>,
}

/// What `combine` made.
#[derive(Debug, Clone)]
pub struct Combined {
    /// The summed build summary stored with the index.
    pub summary: BuildSummary,
    /// Shards joined.
    pub shards: usize,
    /// Segments in the combined index.
    pub segments: usize,
    /// Pages in it.
    pub documents: u64,
    /// Wall time, seconds.
    pub seconds: f64,
}

/// Why shards could not be combined.
#[derive(Debug, thiserror::Error)]
pub enum CombineError {
    /// A shard or the output index failed.
    #[error(transparent)]
    Index(#[from] IndexError),
    /// A manifest failed.
    #[error(transparent)]
    Manifest(#[from] PartitionError),
    /// Nothing to combine.
    #[error("no shard given")]
    NoShards,
    /// The manifests do not describe the shards.
    #[error("manifests: {0}")]
    Manifests(String),
    /// A shard was built differently from the first.
    #[error("{shard} cannot be combined with {first}: {what} differ{details}")]
    Mismatch {
        /// The first shard.
        first: PathBuf,
        /// The shard that differs.
        shard: PathBuf,
        /// What differs.
        what: &'static str,
        /// The two values, when short.
        details: String,
    },
    /// The same segment is in two shards (a shard given twice).
    #[error("segment {segment} of {shard} is also in an earlier shard (a shard given twice?)")]
    DuplicateSegment {
        /// The segment's id.
        segment: String,
        /// The shard.
        shard: PathBuf,
    },
    /// A file could not be read or written.
    #[error("{action} {path}: {source}")]
    Io {
        /// What was being done.
        action: &'static str,
        /// On what.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A shard's tantivy metadata cannot be read, or tantivy failed.
    #[error("{path}: {message}")]
    Tantivy {
        /// The file or index.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
}

fn io<'a>(
    action: &'static str,
    path: &'a Path,
) -> impl FnOnce(std::io::Error) -> CombineError + 'a {
    move |source| CombineError::Io {
        action,
        path: path.to_path_buf(),
        source,
    }
}

/// One shard as read: its generation directory, tantivy metadata and summary.
struct Shard {
    path: PathBuf,
    directory: PathBuf,
    meta: Value,
    summary: BuildSummary,
}

impl Shard {
    fn open(path: &Path) -> Result<Shard, CombineError> {
        let open = OpenIndex::open(path)?;
        let summary: BuildSummary = open.summary()?;
        let meta_path = open.directory.join(META);
        let bytes = fs::read(&meta_path).map_err(io("read", &meta_path))?;
        let meta: Value =
            serde_json::from_slice(&bytes).map_err(|error| CombineError::Tantivy {
                path: meta_path.clone(),
                message: error.to_string(),
            })?;
        Ok(Shard {
            path: path.to_path_buf(),
            directory: open.directory,
            meta,
            summary,
        })
    }

    fn segments(&self) -> &[Value] {
        self.meta["segments"].as_array().map_or(&[], Vec::as_slice)
    }
}

/// Joins the indexes `shards` into the index `output` (a new generation, live only when
/// complete; the previous index at `output` stays intact if anything fails).
pub fn combine(
    shards: &[PathBuf],
    output: &Path,
    options: &CombineOptions,
) -> Result<Combined, CombineError> {
    let started = Instant::now();
    let started_at = std::time::SystemTime::now();
    let shards: Vec<Shard> = shards
        .iter()
        .map(|path| Shard::open(path))
        .collect::<Result<_, _>>()?;
    let first = shards.first().ok_or(CombineError::NoShards)?;
    for shard in &shards[1..] {
        check_alike(first, shard)?;
    }
    let mut seen_manifests = BTreeSet::new();
    for path in &options.manifests {
        let canonical = fs::canonicalize(path).map_err(io("read", path))?;
        if !seen_manifests.insert(canonical) {
            return Err(CombineError::Manifests(format!(
                "{} is given twice",
                path.display()
            )));
        }
    }
    let manifests: Vec<Manifest> = options
        .manifests
        .iter()
        .map(|path| Manifest::load(path))
        .collect::<Result<_, _>>()?;
    if !manifests.is_empty() {
        let written: u64 = manifests
            .iter()
            .flat_map(|manifest| &manifest.files)
            .map(|file| file.records)
            .sum();
        let read: u64 = shards.iter().map(|shard| shard.summary.records).sum();
        if written != read {
            return Err(CombineError::Manifests(format!(
                "the manifests list {written} records written to buckets, and the shards were built from {read}: give every map task's manifest, and only those of this run"
            )));
        }
    }

    let generation = Generation::begin(output)?;
    let directory = generation.directory().to_path_buf();
    let mut segments = Vec::new();
    let mut seen = BTreeSet::new();
    let mut managed = vec![META.to_string()];
    for shard in &shards {
        for segment in shard.segments() {
            let id = segment["segment_id"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            let prefix = format!("{}.", id.replace('-', ""));
            if id.is_empty() || !seen.insert(id.clone()) {
                return Err(CombineError::DuplicateSegment {
                    segment: id,
                    shard: shard.path.clone(),
                });
            }
            let entries = fs::read_dir(&shard.directory).map_err(io("read", &shard.directory))?;
            for entry in entries {
                let entry = entry.map_err(io("read", &shard.directory))?;
                let name = entry.file_name().to_string_lossy().into_owned();
                if name.starts_with(&prefix) {
                    let target = directory.join(&name);
                    link_or_copy(&entry.path(), &target).map_err(io("link", &target))?;
                    managed.push(name);
                }
            }
            segments.push(segment.clone());
        }
    }
    let mut meta = first.meta.clone();
    let opstamp = shards
        .iter()
        .filter_map(|shard| shard.meta["opstamp"].as_u64())
        .max()
        .unwrap_or(0);
    meta["segments"] = Value::Array(segments);
    meta["opstamp"] = opstamp.into();
    meta["payload"] = Value::Null;
    write_json(&directory.join(META), &meta)?;
    write_json(&directory.join(MANAGED), &Value::from(managed))?;
    fs::File::open(&directory)
        .and_then(|folder| folder.sync_all())
        .map_err(io("sync", &directory))?;

    let index = tantivy::Index::open_in_dir(&directory).map_err(tantivy(&directory))?;
    crate::analyze::register_tokenizers(index.tokenizers());
    if options.merge {
        merge_all(&index, &directory, options.threads)?;
    }
    let reader = index.reader().map_err(tantivy(&directory))?;
    let searcher = reader.searcher();
    let (documents, segment_count) = (searcher.num_docs(), searcher.segment_readers().len());
    drop((searcher, reader, index));

    let mut summary = summed(&shards, &manifests, options, started_at);
    join_site_models(&shards, &directory, &mut summary)?;
    summary.history = RunRecord::history_after(RunKind::Combine, &[], &summary, documents);
    generation.publish(&summary)?;
    Ok(Combined {
        summary,
        shards: shards.len(),
        segments: segment_count,
        documents,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// Refuses a shard whose schema, index settings or detector settings differ from the first's.
fn check_alike(first: &Shard, shard: &Shard) -> Result<(), CombineError> {
    let mismatch = |what, details: String| CombineError::Mismatch {
        first: first.path.clone(),
        shard: shard.path.clone(),
        what,
        details,
    };
    if first.meta["schema"] != shard.meta["schema"] {
        return Err(mismatch("their schemas", String::new()));
    }
    if first.meta["index_settings"] != shard.meta["index_settings"] {
        return Err(mismatch("their index settings", String::new()));
    }
    if let Some((what, details)) = first.summary.detector_difference(&shard.summary) {
        return Err(mismatch(what, details));
    }
    Ok(())
}

/// The shards' summaries summed, with the map step's skips added and this run's provenance.
fn summed(
    shards: &[Shard],
    manifests: &[Manifest],
    options: &CombineOptions,
    started: std::time::SystemTime,
) -> BuildSummary {
    let mut summary = BuildSummary::of_shards(shards.iter().map(|shard| &shard.summary));
    summary.tool = crate::VERSION.to_string();
    summary.command_line = options.command_line.clone();
    summary.started = crate::report::utc_timestamp(started);
    if !manifests.is_empty() {
        summary.inputs = manifests
            .iter()
            .flat_map(|manifest| manifest.inputs.iter().cloned())
            .collect();
        summary.input_bytes = manifests.iter().map(|manifest| manifest.input_bytes).sum();
        for manifest in manifests {
            summary.add_skipped_records(&manifest.skipped_records, &manifest.skipped);
        }
    }
    summary
}

/// Writes the shards' site models into the new generation at `directory`. A host is in one
/// shard (`partition` buckets records by host), so no site's model needs merging; a site
/// found in two shards keeps the first shard's model, and the summary warns of it.
fn join_site_models(
    shards: &[Shard],
    directory: &Path,
    summary: &mut BuildSummary,
) -> Result<(), CombineError> {
    let mut joined = SiteModelsWriter::default();
    let mut in_two_shards = Vec::new();
    for shard in shards {
        let Some(stored) = StoredSiteModels::open(&shard.directory).map_err(IndexError::from)?
        else {
            continue;
        };
        joined.set_fingerprint(stored.fingerprint());
        for (site, model) in stored.iter() {
            if !joined.insert_stored(site, model) {
                in_two_shards.push(site.to_string());
            }
        }
    }
    if !in_two_shards.is_empty() {
        in_two_shards.sort();
        let count = in_two_shards.len() as u64;
        summary.warnings.push(format!(
            "{} {} in more than one shard ({}{}): each keeps the first shard's template model; `indexer partition` puts every page of a host in one shard",
            crate::report::counted(count, "site"),
            if count == 1 { "is" } else { "are" },
            in_two_shards[..in_two_shards.len().min(3)].join(", "),
            if in_two_shards.len() > 3 { ", …" } else { "" }
        ));
    }
    summary.site_models.stored = joined.len() as u64;
    summary.site_models.stored_bytes = joined.write(directory).map_err(IndexError::from)?;
    Ok(())
}

/// Merges every segment of `index` into one and removes the files of the merged segments.
fn merge_all(index: &tantivy::Index, directory: &Path, threads: usize) -> Result<(), CombineError> {
    let ids = index.searchable_segment_ids().map_err(tantivy(directory))?;
    if ids.len() < 2 {
        return Ok(());
    }
    let threads = threads.clamp(1, 8);
    let mut writer: tantivy::IndexWriter = index
        .writer_with_num_threads(threads, threads * 15_000_000)
        .map_err(tantivy(directory))?;
    writer.merge(&ids).wait().map_err(tantivy(directory))?;
    writer
        .garbage_collect_files()
        .wait()
        .map_err(tantivy(directory))?;
    writer.wait_merging_threads().map_err(tantivy(directory))?;
    Ok(())
}

fn tantivy(path: &Path) -> impl FnOnce(tantivy::TantivyError) -> CombineError + '_ {
    move |error| CombineError::Tantivy {
        path: path.to_path_buf(),
        message: error.to_string(),
    }
}

fn write_json(path: &Path, value: &Value) -> Result<(), CombineError> {
    let bytes = serde_json::to_vec(value).map_err(std::io::Error::from);
    let bytes = bytes.map_err(io("write", path))?;
    let mut file = fs::File::create(path).map_err(io("create", path))?;
    std::io::Write::write_all(&mut file, &bytes).map_err(io("write", path))?;
    file.sync_all().map_err(io("sync", path))
}
