//! Partition (the map step): input paths in; out, in one folder, a WARC file per host bucket
//! holding that bucket's records in input order (`bucket-K.warc.gz`, gzip per record) and a
//! [`Manifest`] (`manifest.json`) saying what was written and what was passed over.
//!
//! A record's bucket is a hash of its site, the same hash that groups a build's rounds
//! ([`crate::run::bucket_of_site`]), modulo the number of buckets. Every file is written under
//! a temporary name and renamed when complete, the manifest last: a map task that fails and
//! runs again never leaves half a file where a reduce step reads, and a folder with a
//! manifest is complete.

use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::warc_out::append_record;
use crate::read::{InputOptions, InputSet, ReadError};
use crate::report::{BuildSummary, SkippedRecord};
use crate::run::{Progress, bucket_of_site};

/// The manifest's file name inside a partition folder.
pub const MANIFEST: &str = "manifest.json";

/// The manifest's format version.
const MANIFEST_FORMAT: u32 = 1;

/// Buckets at most: each is a file of every map task, and a build of its own.
const MAX_BUCKETS: usize = 1 << 16;

/// Bytes of compressed records held in memory across all buckets before they are appended
/// to their files (one file open at a time, whatever the number of buckets).
const BUFFERED_BYTES: usize = 32 << 20;

/// What a partition run is asked to do.
#[derive(Debug, Clone)]
pub struct PartitionOptions {
    /// Host buckets (1 to 65,536).
    pub buckets: usize,
    /// The folder to write (created if missing).
    pub out: PathBuf,
    /// How the inputs are read (base URL of folders' pages, walking folders).
    pub input: InputOptions,
    /// Set to stop the run early (Ctrl-C); nothing is renamed into place then.
    pub stop: Option<Arc<AtomicBool>>,
}

/// One bucket's file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BucketFile {
    /// The bucket.
    pub bucket: usize,
    /// Its file's name inside the partition folder.
    pub file: String,
    /// Records in it.
    pub records: u64,
    /// Its size in bytes (gzip).
    pub bytes: u64,
}

/// What a partition run wrote and passed over: `manifest.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// The manifest's format version.
    pub format: u32,
    /// The tool and commit that wrote it.
    pub tool: String,
    /// Host buckets.
    pub buckets: usize,
    /// The inputs as given.
    pub inputs: Vec<String>,
    /// Bytes of the input files.
    pub input_bytes: u64,
    /// Records read (written and passed over).
    pub records: u64,
    /// The files written, by bucket; buckets with no record have none.
    pub files: Vec<BucketFile>,
    /// Records passed over, by reason (records the reader could not frame, and WARC
    /// records that are not pages: the reduce step never sees them, so `combine` adds these
    /// counts back).
    pub skipped: BTreeMap<String, u64>,
    /// Where each record passed over lies (all but WARC records that are not pages).
    pub skipped_records: Vec<SkippedRecord>,
    /// Wall time, seconds.
    pub seconds: f64,
}

impl Manifest {
    /// Reads a manifest file.
    pub fn load(path: &Path) -> Result<Manifest, PartitionError> {
        let bytes = fs::read(path).map_err(io("read", path))?;
        let manifest: Manifest =
            serde_json::from_slice(&bytes).map_err(|error| PartitionError::Manifest {
                path: path.to_path_buf(),
                message: error.to_string(),
            })?;
        if manifest.format != MANIFEST_FORMAT {
            return Err(PartitionError::Manifest {
                path: path.to_path_buf(),
                message: format!(
                    "format {} (this indexer reads format {MANIFEST_FORMAT})",
                    manifest.format
                ),
            });
        }
        Ok(manifest)
    }
}

/// Why a partition run failed.
#[derive(Debug, thiserror::Error)]
pub enum PartitionError {
    /// The inputs cannot be opened.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// A file could not be written.
    #[error("{action} {path}: {source}")]
    Io {
        /// What was being done.
        action: &'static str,
        /// On what.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A manifest cannot be read.
    #[error("manifest {path}: {message}")]
    Manifest {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
    /// The number of buckets is out of range.
    #[error("--buckets must be between 1 and {MAX_BUCKETS}, not {0}")]
    Buckets(usize),
    /// Stopped by the caller.
    #[error("stopped before the end; no file was put in place")]
    Interrupted,
}

/// An [`PartitionError::Io`] of `action` on `path`.
fn io(action: &'static str, path: &Path) -> impl FnOnce(std::io::Error) -> PartitionError {
    let path = path.to_path_buf();
    move |source| PartitionError::Io {
        action,
        path,
        source,
    }
}

/// The name of bucket `bucket`'s file in a partition folder.
pub fn bucket_file_name(bucket: usize) -> String {
    format!("bucket-{bucket}.warc.gz")
}

/// A bucket's file while it is written: a temporary name, and records not yet appended.
struct Pending {
    temporary: Option<tempfile::TempPath>,
    buffered: Vec<u8>,
    records: u64,
    bytes: u64,
}

/// Reads `inputs` once and writes their records into `options.out`, a file per host bucket,
/// then the manifest. Returns the manifest.
pub fn partition(
    inputs: &[PathBuf],
    options: &PartitionOptions,
    progress: &dyn Progress,
) -> Result<Manifest, PartitionError> {
    if options.buckets == 0 || options.buckets > MAX_BUCKETS {
        return Err(PartitionError::Buckets(options.buckets));
    }
    let started = Instant::now();
    let input_set = InputSet::open_with(inputs, &options.input)?;
    let out = &options.out;
    fs::create_dir_all(out).map_err(io("create", out))?;
    // A folder with a manifest is complete: an earlier run's manifest goes before anything of
    // this run is renamed into place.
    let manifest_path = out.join(MANIFEST);
    match fs::remove_file(&manifest_path) {
        Ok(()) => sync_folder(out).map_err(io("sync", out))?,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
        Err(error) => return Err(io("remove", &manifest_path)(error)),
    }

    let mut pending: BTreeMap<usize, Pending> = BTreeMap::new();
    let mut buffered = 0usize;
    let mut tally = BuildSummary::default();
    let total = input_set.total_bytes();
    progress.start_pass("partitioning by host");
    for item in input_set.records() {
        if options
            .stop
            .as_ref()
            .is_some_and(|stop| stop.load(Ordering::Relaxed))
        {
            return Err(PartitionError::Interrupted);
        }
        tally.records += 1;
        let record = match item {
            Ok(record) => record,
            Err(skip) => {
                tally.count_skip(&skip);
                progress.record_done(0);
                continue;
            }
        };
        progress.input_read(
            input_set.position(record.source_input, record.source_offset),
            total,
        );
        let bucket = bucket_of_site(&record.url, options.buckets);
        let file = pending.entry(bucket).or_insert_with(|| Pending {
            temporary: None,
            buffered: Vec::new(),
            records: 0,
            bytes: 0,
        });
        let origin = format!(
            "{}:{}",
            input_set.path_of(record.source_input),
            record.source_offset
        );
        let before = file.buffered.len();
        append_record(&mut file.buffered, &record, &origin).map_err(io("compress", out))?;
        file.records += 1;
        buffered += file.buffered.len() - before;
        if buffered > BUFFERED_BYTES {
            for (&bucket, file) in &mut pending {
                flush(out, bucket, file)?;
            }
            buffered = 0;
        }
        progress.record_done(0);
    }
    progress.finish();

    let mut files = Vec::with_capacity(pending.len());
    for (&bucket, file) in &mut pending {
        flush(out, bucket, file)?;
        let name = bucket_file_name(bucket);
        let path = out.join(&name);
        if let Some(temporary) = file.temporary.take() {
            File::open(&temporary)
                .and_then(|written| written.sync_all())
                .and_then(|()| readable_by_all(&temporary))
                .map_err(io("sync", &temporary))?;
            temporary
                .persist(&path)
                .map_err(|error| io("rename into", &path)(error.error))?;
        }
        files.push(BucketFile {
            bucket,
            file: name,
            records: file.records,
            bytes: file.bytes,
        });
    }
    remove_stale_buckets(out, &files)?;
    tally.locate_skips(&input_set);
    let manifest = Manifest {
        format: MANIFEST_FORMAT,
        tool: crate::VERSION.to_string(),
        buckets: options.buckets,
        inputs: inputs
            .iter()
            .map(|path| path.display().to_string())
            .collect(),
        input_bytes: total,
        records: tally.records,
        files,
        skipped: tally.skipped,
        skipped_records: tally.skipped_records,
        seconds: started.elapsed().as_secs_f64(),
    };
    write_manifest(out, &manifest)?;
    Ok(manifest)
}

/// Appends a bucket's buffered records to its temporary file (created on first use).
fn flush(out: &Path, bucket: usize, file: &mut Pending) -> Result<(), PartitionError> {
    if file.buffered.is_empty() {
        return Ok(());
    }
    let path = out.join(bucket_file_name(bucket));
    let failed = |action| io(action, &path);
    if file.temporary.is_none() {
        let created = tempfile::Builder::new()
            .prefix(&format!(".{}.", bucket_file_name(bucket)))
            .suffix(".part")
            .tempfile_in(out)
            .map_err(failed("create"))?;
        file.temporary = Some(created.into_temp_path());
    }
    let Some(temporary) = &file.temporary else {
        return Ok(());
    };
    let mut handle = File::options()
        .append(true)
        .open(temporary)
        .map_err(failed("open"))?;
    handle.write_all(&file.buffered).map_err(failed("write"))?;
    file.bytes += file.buffered.len() as u64;
    file.buffered.clear();
    Ok(())
}

/// Removes bucket files of an earlier run into the same folder that this run did not write
/// (another number of buckets, other inputs), so that no reducer reads them by mistake.
fn remove_stale_buckets(out: &Path, written: &[BucketFile]) -> Result<(), PartitionError> {
    let entries = fs::read_dir(out).map_err(io("read", out))?;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let is_bucket = name.starts_with("bucket-") && name.ends_with(".warc.gz");
        if is_bucket && !written.iter().any(|file| file.file == name) {
            fs::remove_file(entry.path()).map_err(io("remove", &entry.path()))?;
        }
    }
    Ok(())
}

/// Gives a file made by `tempfile` (owner only) the mode of an ordinary new file, so that
/// the reduce tasks of another user (a cluster's executors) can read it.
fn readable_by_all(path: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(path, fs::Permissions::from_mode(0o644))?;
    }
    let _ = path;
    Ok(())
}

/// Writes the manifest under a temporary name and renames it into place.
fn write_manifest(out: &Path, manifest: &Manifest) -> Result<(), PartitionError> {
    let path = out.join(MANIFEST);
    let failed = |action| io(action, &path);
    let mut file = tempfile::NamedTempFile::new_in(out).map_err(failed("create"))?;
    let json = serde_json::to_vec_pretty(manifest).map_err(std::io::Error::from);
    file.write_all(&json.map_err(failed("write"))?)
        .map_err(failed("write"))?;
    file.as_file().sync_all().map_err(failed("sync"))?;
    readable_by_all(file.path()).map_err(failed("sync"))?;
    file.persist(&path)
        .map_err(|error| failed("rename into")(error.error))?;
    sync_folder(out).map_err(failed("sync"))
}

/// Makes the renames and removals in `folder` durable.
fn sync_folder(folder: &Path) -> std::io::Result<()> {
    File::open(folder)?.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::NoProgress;

    #[test]
    fn a_site_keeps_one_bucket_whatever_its_page() {
        for buckets in [1, 3, 64] {
            let a = bucket_of_site("http://docs.example.org/a/b.html", buckets);
            let b = bucket_of_site("https://docs.example.org/z", buckets);
            assert_eq!(a, b);
            assert!(a < buckets);
        }
    }

    #[test]
    fn out_of_range_bucket_counts_are_refused_before_anything_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let options = PartitionOptions {
            buckets: 0,
            out: dir.path().join("out"),
            input: InputOptions::default(),
            stop: None,
        };
        let refused = partition(&[], &options, &NoProgress);
        assert!(matches!(refused, Err(PartitionError::Buckets(0))));
        assert!(!dir.path().join("out").exists());
    }

    #[test]
    fn a_stale_bucket_file_is_removed_and_the_manifest_lists_what_was_written() {
        let dir = tempfile::tempdir().unwrap();
        let site = dir.path().join("site");
        fs::create_dir(&site).unwrap();
        fs::write(site.join("a.html"), "<title>A</title><p>first page</p>").unwrap();
        fs::write(site.join("b.html"), "<title>B</title><p>second page</p>").unwrap();
        let out = dir.path().join("out");
        fs::create_dir(&out).unwrap();
        fs::write(out.join("bucket-99.warc.gz"), "stale").unwrap();
        let options = PartitionOptions {
            buckets: 4,
            out: out.clone(),
            input: InputOptions {
                base_url: Some("http://example.org/".into()),
                ..InputOptions::default()
            },
            stop: None,
        };
        let manifest = partition(&[site], &options, &NoProgress).unwrap();
        assert_eq!(manifest.records, 2);
        assert_eq!(manifest.files.len(), 1);
        assert_eq!(manifest.files[0].records, 2);
        assert!(!out.join("bucket-99.warc.gz").exists());
        let written = out.join(&manifest.files[0].file);
        assert_eq!(
            fs::metadata(&written).unwrap().len(),
            manifest.files[0].bytes
        );
        assert_eq!(Manifest::load(&out.join(MANIFEST)).unwrap(), manifest);
        let leftovers = fs::read_dir(&out)
            .unwrap()
            .filter(|entry| {
                let name = entry.as_ref().unwrap().file_name();
                name.to_string_lossy().ends_with(".part")
            })
            .count();
        assert_eq!(leftovers, 0);
    }
}
