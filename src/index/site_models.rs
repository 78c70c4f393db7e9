//! Site models kept with an index: each site's detector model in (bytes the detector wrote,
//! [`crate::detect::site_model`]), one file beside the generation's tantivy index out, read
//! back by a later run over the index (`indexer add`) so that new pages of a known site are
//! judged with what its earlier pages taught.
//!
//! # The file, `site-models.bin`
//!
//! ```text
//! magic "IXSITES\n" (8 bytes) · layout version (u32 LE)
//! fingerprint: length (u32 LE) and UTF-8 text — the detector, its passes and settings that
//!   wrote the models; a run of another detector or other settings does not read them
//! sites (u64 LE), then per site, sorted by name: name length (u32 LE), name,
//!   model length (u32 LE), model (a zstd frame)
//! CRC-32 of everything before it (u32 LE)
//! ```
//!
//! The file is written into a generation before that generation is made live, so it is as
//! atomic as the index beside it; a file that fails its checksum or its layout is an error
//! naming it, never a panic.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::Write;
use std::ops::Range;
use std::path::{Path, PathBuf};

use rustc_hash::FxHashMap;

/// The file's name in a generation directory.
pub const SITE_MODELS_FILE: &str = "site-models.bin";

const MAGIC: &[u8; 8] = b"IXSITES\n";
const LAYOUT: u32 = 1;

/// zstd's level for the models: its default, which on the docs corpus's two-pass models
/// gives nearly all that its highest does.
const COMPRESSION_LEVEL: i32 = 3;

/// Bytes a site model may have uncompressed, at most (far above what
/// [`crate::detect::site_model::MAX_SAVED_ENTRIES`] lets a detector write).
const MAX_MODEL_BYTES: usize = 256 << 20;

/// A site-model file that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum SiteModelsError {
    /// Reading or writing failed.
    #[error("{action} {path}: {source}")]
    Io {
        /// What was being done.
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// The file is not a site-model file this version reads.
    #[error("site models {path} are damaged: {problem}; `indexer build` makes them again")]
    Damaged {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        problem: String,
    },
}

/// The site models of a generation, mapped from their file.
pub struct StoredSiteModels {
    bytes: memmap2::Mmap,
    fingerprint: String,
    sites: SiteRanges,
    path: PathBuf,
}

impl std::fmt::Debug for StoredSiteModels {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("StoredSiteModels")
            .field("path", &self.path)
            .field("sites", &self.sites.len())
            .finish()
    }
}

impl StoredSiteModels {
    /// The site models of the generation in `directory`; `None` when it has none (an index
    /// built before they were kept, or by a detector that keeps none).
    pub fn open(directory: &Path) -> Result<Option<StoredSiteModels>, SiteModelsError> {
        let path = directory.join(SITE_MODELS_FILE);
        let file = match File::open(&path) {
            Ok(file) => file,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(source) => {
                return Err(SiteModelsError::Io {
                    action: "open",
                    path,
                    source,
                });
            }
        };
        // SAFETY: the file belongs to a published generation, which nothing writes again
        // (a new generation gets a new file); a file cut under the map would be a fault
        // the index itself is exposed to as well.
        let bytes = unsafe { memmap2::Mmap::map(&file) }.map_err(|source| SiteModelsError::Io {
            action: "map",
            path: path.clone(),
            source,
        })?;
        let (fingerprint, sites) = parse(&bytes).map_err(|problem| SiteModelsError::Damaged {
            path: path.clone(),
            problem,
        })?;
        Ok(Some(StoredSiteModels {
            bytes,
            fingerprint,
            sites,
            path,
        }))
    }

    /// What wrote the models: the detector, its passes and settings.
    pub fn fingerprint(&self) -> &str {
        &self.fingerprint
    }

    /// The model of `site`, if stored (an error when its compressed bytes cannot be read).
    pub fn get(&self, site: &str) -> Option<Result<Vec<u8>, SiteModelsError>> {
        let range = self.sites.get(site)?;
        Some(
            zstd::bulk::decompress(&self.bytes[range.clone()], MAX_MODEL_BYTES).map_err(|error| {
                SiteModelsError::Damaged {
                    path: self.path.clone(),
                    problem: format!("the model of {site}: {error}"),
                }
            }),
        )
    }

    /// Every stored site and its model, compressed as stored.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &[u8])> {
        self.sites
            .iter()
            .map(|(site, range)| (&**site, &self.bytes[range.clone()]))
    }

    /// Sites stored.
    pub fn len(&self) -> usize {
        self.sites.len()
    }

    /// Whether no site is stored.
    pub fn is_empty(&self) -> bool {
        self.sites.is_empty()
    }

    /// Bytes of the file.
    pub fn file_bytes(&self) -> u64 {
        self.bytes.len() as u64
    }
}

/// Where each site's model lies in a site-model file.
type SiteRanges = FxHashMap<Box<str>, Range<usize>>;

/// Reads the layout of a site-model file: its fingerprint and where each site's model lies.
fn parse(bytes: &[u8]) -> Result<(String, SiteRanges), String> {
    if bytes.len() < MAGIC.len() + 4 + 4 + 8 + 4 || &bytes[..MAGIC.len()] != MAGIC {
        return Err("not a site-model file".into());
    }
    let (body, stored_crc) = bytes.split_at(bytes.len() - 4);
    let stored_crc = u32::from_le_bytes(stored_crc.try_into().unwrap_or_default());
    if crc32fast::hash(body) != stored_crc {
        return Err("it fails its checksum".into());
    }
    let mut at = MAGIC.len();
    let mut take = |length: usize| -> Result<Range<usize>, String> {
        let end = at
            .checked_add(length)
            .filter(|&end| end <= body.len())
            .ok_or("it ends early")?;
        let range = at..end;
        at = end;
        Ok(range)
    };
    let u32_at =
        |range: Range<usize>| u32::from_le_bytes(body[range].try_into().unwrap_or_default());
    let layout = u32_at(take(4)?);
    if layout != LAYOUT {
        return Err(format!("layout {layout}, this version reads {LAYOUT}"));
    }
    let length = u32_at(take(4)?) as usize;
    let fingerprint = std::str::from_utf8(&body[take(length)?])
        .map_err(|_| "its fingerprint is not UTF-8")?
        .to_string();
    let count = u64::from_le_bytes(body[take(8)?].try_into().unwrap_or_default());
    // A site takes at least 8 bytes: a larger count is damage, not a file.
    if count > (body.len() / 8) as u64 {
        return Err(format!("{count} sites in {} bytes", body.len()));
    }
    let mut sites = FxHashMap::default();
    for _ in 0..count {
        let length = u32_at(take(4)?) as usize;
        let name =
            std::str::from_utf8(&body[take(length)?]).map_err(|_| "a site name is not UTF-8")?;
        let length = u32_at(take(4)?) as usize;
        let model = take(length)?;
        if sites.insert(name.into(), model).is_some() {
            return Err(format!("site {name} is stored twice"));
        }
    }
    if at != body.len() {
        return Err(format!("{} bytes past its last site", body.len() - at));
    }
    Ok((fingerprint, sites))
}

/// The site models a run leaves for its generation: those it saved, and those of the
/// previous generation it carries over.
#[derive(Debug, Default)]
pub struct SiteModelsWriter {
    fingerprint: String,
    models: BTreeMap<String, Vec<u8>>,
}

impl SiteModelsWriter {
    /// Sets what writes the models (the detector, passes and settings).
    pub fn set_fingerprint(&mut self, fingerprint: &str) {
        if self.fingerprint.is_empty() {
            self.fingerprint = fingerprint.to_string();
        }
    }

    /// The model of `site`, in place of any before (stored compressed: its signatures are
    /// sparse bits and its counts small, which zstd halves).
    pub fn insert(&mut self, site: &str, model: &[u8]) -> Result<(), SiteModelsError> {
        let compressed = zstd::bulk::compress(model, COMPRESSION_LEVEL).map_err(|source| {
            SiteModelsError::Io {
                action: "compress the model of",
                path: PathBuf::from(site),
                source,
            }
        })?;
        self.models.insert(site.to_string(), compressed);
        Ok(())
    }

    /// The models of `stored` for the sites this run did not save, when written by the same
    /// detector and settings.
    pub fn carry_over(&mut self, stored: &StoredSiteModels) {
        if self.fingerprint.is_empty() {
            self.fingerprint = stored.fingerprint().to_string();
        }
        if stored.fingerprint() != self.fingerprint {
            return;
        }
        for (site, model) in stored.iter() {
            if !self.models.contains_key(site) {
                self.models.insert(site.to_string(), model.to_vec());
            }
        }
    }

    /// The model of `site` as another file stored it (compressed), unless one is held:
    /// whether it was taken.
    pub fn insert_stored(&mut self, site: &str, stored: &[u8]) -> bool {
        if self.models.contains_key(site) {
            return false;
        }
        self.models.insert(site.to_string(), stored.to_vec());
        true
    }

    /// Leaves out the model of `site`.
    pub fn remove(&mut self, site: &str) -> bool {
        self.models.remove(site).is_some()
    }

    /// Sites held.
    pub fn len(&self) -> usize {
        self.models.len()
    }

    /// Whether no site is held.
    pub fn is_empty(&self) -> bool {
        self.models.is_empty()
    }

    /// Writes the file into the generation `directory` (none when there is no model, and
    /// any there removed): its bytes.
    pub fn write(&self, directory: &Path) -> Result<u64, SiteModelsError> {
        if self.models.is_empty() {
            let path = directory.join(SITE_MODELS_FILE);
            return match std::fs::remove_file(&path) {
                Err(error) if error.kind() != std::io::ErrorKind::NotFound => {
                    Err(SiteModelsError::Io {
                        action: "remove",
                        path,
                        source: error,
                    })
                }
                _ => Ok(0),
            };
        }
        let mut bytes = Vec::new();
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&LAYOUT.to_le_bytes());
        put_piece(&mut bytes, self.fingerprint.as_bytes());
        bytes.extend_from_slice(&(self.models.len() as u64).to_le_bytes());
        for (site, model) in &self.models {
            put_piece(&mut bytes, site.as_bytes());
            put_piece(&mut bytes, model);
        }
        let crc = crc32fast::hash(&bytes);
        bytes.extend_from_slice(&crc.to_le_bytes());
        // Written beside and renamed over: the name may be a hard link to the previous
        // generation's file, which must not change.
        let path = directory.join(SITE_MODELS_FILE);
        let staged = directory.join(format!("{SITE_MODELS_FILE}.new"));
        let io = |action, path: &Path| {
            let path = path.to_path_buf();
            move |source| SiteModelsError::Io {
                action,
                path,
                source,
            }
        };
        let mut file = File::create(&staged).map_err(io("create", &staged))?;
        file.write_all(&bytes).map_err(io("write", &staged))?;
        file.sync_all().map_err(io("sync", &staged))?;
        std::fs::rename(&staged, &path).map_err(io("replace", &path))?;
        Ok(bytes.len() as u64)
    }
}

/// Leaves the models of `sites` out of the site-model file of the generation `directory`
/// (not yet live: its file may be a hard link to the live generation's, which stays as it
/// was). Returns how many of `sites` had a model.
pub fn forget_sites(directory: &Path, sites: &[String]) -> Result<u64, SiteModelsError> {
    let Some(stored) = StoredSiteModels::open(directory)? else {
        return Ok(0);
    };
    let mut kept = SiteModelsWriter::default();
    kept.carry_over(&stored);
    let forgotten = sites.iter().filter(|site| kept.remove(site)).count() as u64;
    drop(stored);
    if forgotten > 0 {
        kept.write(directory)?;
    }
    Ok(forgotten)
}

/// A length (u32 LE) and the bytes; a piece past 4 GiB cannot be, as a site model is bounded
/// far below that ([`crate::detect::site_model::MAX_SAVED_ENTRIES`]).
fn put_piece(bytes: &mut Vec<u8>, piece: &[u8]) {
    bytes.extend_from_slice(&(piece.len() as u32).to_le_bytes());
    bytes.extend_from_slice(piece);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn written(models: &[(&str, &[u8])]) -> (tempfile::TempDir, Vec<u8>) {
        let directory = tempfile::tempdir().unwrap();
        let mut writer = SiteModelsWriter::default();
        writer.set_fingerprint("hybrid 2 {}");
        for (site, model) in models {
            writer.insert(site, model).unwrap();
        }
        writer.write(directory.path()).unwrap();
        let bytes = std::fs::read(directory.path().join(SITE_MODELS_FILE)).unwrap_or_default();
        (directory, bytes)
    }

    #[test]
    fn models_read_back_by_site() {
        let (directory, _) = written(&[("b.example", b"two"), ("a.example", b"one")]);
        let stored = StoredSiteModels::open(directory.path()).unwrap().unwrap();
        assert_eq!(stored.fingerprint(), "hybrid 2 {}");
        assert_eq!(stored.len(), 2);
        assert_eq!(stored.get("a.example").unwrap().unwrap(), b"one");
        assert_eq!(stored.get("b.example").unwrap().unwrap(), b"two");
        assert!(stored.get("c.example").is_none());

        // Carried over into the next generation, beside a site saved again.
        let mut next = SiteModelsWriter::default();
        next.set_fingerprint("hybrid 2 {}");
        next.insert("b.example", b"three").unwrap();
        next.carry_over(&stored);
        assert_eq!(next.len(), 2);
        let mut other = SiteModelsWriter::default();
        other.set_fingerprint("bloom 2 {}");
        other.carry_over(&stored);
        assert!(other.is_empty());
    }

    #[test]
    fn no_file_is_no_models_and_no_models_write_no_file() {
        let (directory, bytes) = written(&[]);
        assert!(bytes.is_empty());
        assert!(StoredSiteModels::open(directory.path()).unwrap().is_none());
    }

    #[test]
    fn forgetting_a_site_leaves_a_linked_file_as_it_was() {
        let (directory, bytes) = written(&[("a.example", b"one"), ("b.example", b"two")]);
        let next = tempfile::tempdir().unwrap();
        std::fs::hard_link(
            directory.path().join(SITE_MODELS_FILE),
            next.path().join(SITE_MODELS_FILE),
        )
        .unwrap();
        let sites = ["a.example".to_string(), "c.example".to_string()];
        assert_eq!(forget_sites(next.path(), &sites).unwrap(), 1);
        let after = StoredSiteModels::open(next.path()).unwrap().unwrap();
        assert!(after.get("a.example").is_none());
        assert_eq!(after.get("b.example").unwrap().unwrap(), b"two");
        let before = std::fs::read(directory.path().join(SITE_MODELS_FILE)).unwrap();
        assert_eq!(before, bytes);
        // The last site forgotten, the file goes.
        assert_eq!(
            forget_sites(next.path(), &["b.example".to_string()]).unwrap(),
            1
        );
        assert!(StoredSiteModels::open(next.path()).unwrap().is_none());
    }

    #[test]
    fn a_damaged_file_is_an_error_naming_it() {
        let (directory, bytes) = written(&[("a.example", b"one")]);
        let path = directory.path().join(SITE_MODELS_FILE);
        for cut in [0, 5, bytes.len() / 2, bytes.len() - 1] {
            std::fs::write(&path, &bytes[..cut]).unwrap();
            let error = StoredSiteModels::open(directory.path()).unwrap_err();
            assert!(error.to_string().contains(SITE_MODELS_FILE), "{error}");
        }
        let mut flipped = bytes.clone();
        flipped[20] ^= 1;
        std::fs::write(&path, &flipped).unwrap();
        let error = StoredSiteModels::open(directory.path()).unwrap_err();
        assert!(error.to_string().contains("checksum"), "{error}");
    }
}
