//! The inputs of one run and the records they hold.
//!
//! In: paths (WARC files, folders of `.html`/`.htm` files) and an optional base URL for
//! folder files. Out: an [`InputSet`] whose [`InputSet::records`] yields every record in a
//! deterministic order. Folders are walked in `walk`; the URLs of pages read from files
//! are made in `file_url`.

mod file_url;
mod places;
mod walk;

pub use places::{MemberRecord, PLACE_BYTES, PlacedItem, RecordPlaces};
pub use walk::Walk;

use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use memmap2::Mmap;
use rustc_hash::FxHashSet;

use super::arc::starts_like_arc;
use super::framing::FileRecords;
use super::source::record_start_near;
use super::{ReadError, Record, RecordKind, Skip, SkipReason};
use file_url::{file_url, joined_url, normalise_base_url};
use walk::{folder_inputs, has_html_extension};

/// How inputs are read: the base URL of pages read from folders, how folders are walked,
/// what reading may hold in memory, and which records it reads.
#[derive(Debug, Clone, Default)]
pub struct InputOptions {
    /// Base URL for pages read from a folder (default: file:// and the folder's path).
    pub base_url: Option<String>,
    /// How folders are walked (hidden entries, symbolic links).
    pub walk: Walk,
    /// Caps on what reading holds in memory at once.
    pub limits: ReadLimits,
    /// When set, only the records of these URLs are read: the others are passed over as if
    /// the input did not hold them (not even counted as skips).
    pub sample: Option<Arc<UrlSample>>,
}

/// The URLs a sampled read keeps ([`InputOptions::sample`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UrlSample {
    urls: FxHashSet<String>,
}

impl UrlSample {
    /// Whether `url` is kept.
    pub fn contains(&self, url: &str) -> bool {
        self.urls.contains(url)
    }

    /// How many URLs are kept.
    pub fn len(&self) -> usize {
        self.urls.len()
    }

    /// Whether no URL is kept.
    pub fn is_empty(&self) -> bool {
        self.urls.is_empty()
    }
}

impl FromIterator<String> for UrlSample {
    fn from_iter<T: IntoIterator<Item = String>>(urls: T) -> Self {
        UrlSample {
            urls: urls.into_iter().collect(),
        }
    }
}

/// Whether a read gives each record's block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Blocks {
    /// Every record comes with its block.
    #[default]
    Read,
    /// A record of a gzip WARC file whose block ends its gzip member comes out with an empty
    /// block, the member passed over without being decoded where its trailer says where it
    /// ends. For a read that needs the records' headers only, such as a count of each site's
    /// records: a well-formed file gives the items of [`Blocks::Read`], in the same order, at
    /// the same places. What is passed over is not checked: a member that fails its checksum
    /// gives a record, not a skip, and a record that a wrong `Content-Length` hides in a
    /// block is not met. In a damaged file, headers decoded in small steps may be met before
    /// damage that a larger step meets first: there the read may meet records a full read
    /// loses (the shared fuzzed files: some more, never fewer of a site's).
    MayBeLeftOut,
}

/// Caps on what reading holds in memory at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadLimits {
    /// Largest record block (or folder file) read; larger ones are skipped as
    /// [`SkipReason::TooLarge`] without being loaded.
    pub max_record_bytes: usize,
}

impl Default for ReadLimits {
    /// 64 MiB per record.
    fn default() -> Self {
        ReadLimits {
            max_record_bytes: 64 << 20,
        }
    }
}

/// One thing to read, in order.
#[derive(Debug, Clone)]
enum Input {
    /// A WARC file, plain or gzip.
    Warc { path: PathBuf, bytes: u64 },
    /// One HTML file and the URL it gets.
    Html {
        path: PathBuf,
        url: String,
        bytes: u64,
    },
}

impl Input {
    /// Its size in bytes.
    fn bytes(&self) -> u64 {
        match self {
            Input::Warc { bytes, .. } | Input::Html { bytes, .. } => *bytes,
        }
    }
}

/// The inputs of one run: WARC files (plain or gzip) and folders of .html/.htm files.
#[derive(Debug, Clone)]
pub struct InputSet {
    inputs: Vec<Input>,
    limits: ReadLimits,
    /// Standard input (`-`), copied to a temporary file that lives as long as the set, so
    /// that it can be read again by location like any file.
    spooled: Option<Arc<tempfile::NamedTempFile>>,
    /// Where each input starts, counting the bytes of the inputs before it.
    starts: Vec<u64>,
    /// The URLs read, when a sample.
    sample: Option<Arc<UrlSample>>,
}

impl InputSet {
    /// Checks every path exists and is readable (clear error naming the path if not). A
    /// folder is walked recursively (sorted, deterministic order) for .html/.htm files and WARC
    /// files (recognised by their content: `WARC/` at the start, plain or gzip), without
    /// hidden entries or symbolic links ([`InputSet::open_with`] and [`InputOptions::walk`]
    /// to change that).
    ///
    /// A folder's files get the URL `base_url` (default: `file://` and the folder's canonical
    /// path, with a trailing `/`) joined with their path relative to the folder, with forward
    /// slashes and percent-encoding where a URL path needs it. A file given directly with an
    /// `.html`/`.htm` extension is read as one page; any other file as WARC.
    pub fn open(paths: &[PathBuf], base_url: Option<&str>) -> Result<InputSet, ReadError> {
        let options = InputOptions {
            base_url: base_url.map(str::to_string),
            ..InputOptions::default()
        };
        InputSet::open_with(paths, &options)
    }

    /// The inputs at `paths`, read as `options` say: the one opener of every run (builds,
    /// extraction, partitioning).
    pub fn open_with(paths: &[PathBuf], options: &InputOptions) -> Result<InputSet, ReadError> {
        let InputOptions {
            base_url,
            walk,
            limits,
            sample,
        } = options;
        let (walk, limits) = (*walk, *limits);
        let base_url = base_url.as_deref().map(normalise_base_url).transpose()?;
        let mut inputs = Vec::new();
        let mut spooled = None;
        for path in paths {
            if path.as_os_str() == "-" {
                if spooled.is_some() {
                    return Err(ReadError::StandardInputTwice);
                }
                let file = spool_standard_input()?;
                let bytes = file.as_file().metadata().map_or(0, |m| m.len());
                inputs.push(Input::Warc {
                    path: file.path().to_path_buf(),
                    bytes,
                });
                spooled = Some(Arc::new(file));
                continue;
            }
            let metadata = fs::metadata(path).map_err(|e| io_error(path, e))?;
            if metadata.is_dir() {
                inputs.extend(folder_inputs(path, base_url.as_deref(), walk)?);
            } else if metadata.is_file() {
                inputs.push(file_input(path, metadata.len(), base_url.as_deref())?);
            } else {
                return Err(ReadError::NotFileOrFolder { path: path.clone() });
            }
        }
        let starts = inputs
            .iter()
            .scan(0u64, |start, input| {
                let this = *start;
                *start += input.bytes();
                Some(this)
            })
            .collect();
        Ok(InputSet {
            inputs,
            limits,
            spooled,
            starts,
            sample: sample.clone(),
        })
    }

    /// Replaces the limits.
    pub fn set_limits(&mut self, limits: ReadLimits) {
        self.limits = limits;
    }

    /// The limits in force.
    pub fn limits(&self) -> ReadLimits {
        self.limits
    }

    /// Total size of the input files in bytes (compressed size for gzip), for progress.
    pub fn total_bytes(&self) -> u64 {
        self.inputs.iter().map(Input::bytes).sum()
    }

    /// How many inputs there are (folders counted by their files).
    pub fn input_count(&self) -> usize {
        self.inputs.len()
    }

    /// The path of input `input` as given ("-" for standard input), or "" if there is none.
    pub fn path_of(&self, input: u32) -> String {
        match self.inputs.get(input as usize) {
            Some(Input::Warc { path, .. } | Input::Html { path, .. }) => {
                let is_spooled = self
                    .spooled
                    .as_ref()
                    .is_some_and(|file| file.path() == path.as_path());
                if is_spooled {
                    "-".to_string()
                } else {
                    path.display().to_string()
                }
            }
            None => String::new(),
        }
    }

    /// How many bytes of the input lie before `offset` of input `input`: the sizes of the
    /// inputs before it plus the offset (at most that input's size).
    pub fn position(&self, input: u32, offset: u64) -> u64 {
        let at = input as usize;
        match (self.starts.get(at), self.inputs.get(at)) {
            (Some(start), Some(current)) => start + offset.min(current.bytes()),
            _ => self.total_bytes(),
        }
    }

    /// Every record of every input in a deterministic order (inputs in the given order).
    /// Yields `Err(Skip)` for each record passed over or broken, so callers can count skips
    /// by reason. Memory-maps each WARC file (memmap2) and streams it: never holds a whole
    /// decompressed file in memory. Under a [`InputOptions::sample`], records of other URLs
    /// do not come out at all.
    pub fn records(&self) -> impl Iterator<Item = Result<Record, Skip>> + Send + '_ {
        self.records_with(Blocks::Read)
    }

    /// [`records`](Self::records), their blocks read as `blocks` says.
    pub fn records_with(
        &self,
        blocks: Blocks,
    ) -> impl Iterator<Item = Result<Record, Skip>> + Send + '_ {
        Records {
            inputs: self.inputs.iter(),
            limits: self.limits,
            blocks,
            current: None,
            index: 0,
            sample: self.sample.as_deref(),
        }
    }

    /// [`records`](Self::records) cut in at most `parts` parts, for reading them all at
    /// once, each part about [`MIN_PART_BYTES`] of the input or more; `None` when
    /// no cut is found. Each cut is at the start of an input when one lies within a
    /// `2 × parts`-th of the bytes of where it is wanted (an even share of the input), and
    /// otherwise at a record start in the input that holds that place, found by looking (a
    /// gzip member that decodes to a WARC version line, or a version line after a blank
    /// line), not by reading up to it.
    /// Their blocks are read as `blocks` says.
    pub fn parts(&self, parts: usize, blocks: Blocks) -> Option<Parts<'_>> {
        let most = self.total_bytes() / MIN_PART_BYTES;
        self.parts_from(
            parts.min(usize::try_from(most).unwrap_or(usize::MAX)),
            2,
            blocks,
        )
    }

    /// [`parts`](Self::parts) of an input of at least `min_bytes` (tests cut small ones).
    pub(crate) fn parts_from(
        &self,
        parts: usize,
        min_bytes: u64,
        blocks: Blocks,
    ) -> Option<Parts<'_>> {
        let total = self.total_bytes();
        if parts < 2 || total < min_bytes.max(2) {
            return None;
        }
        let mut later: Vec<(Cut, Box<dyn Iterator<Item = RecordItem> + Send + '_>)> = Vec::new();
        for part in 1..parts as u64 {
            let wanted = total / parts as u64 * part;
            let Some((cut, records)) = self.cut_near(wanted, total / (2 * parts as u64), blocks)
            else {
                continue;
            };
            if later.last().is_none_or(|(last, _)| last.lies_before(&cut)) {
                later.push((cut, records));
            }
        }
        (!later.is_empty()).then(|| Parts {
            first: Box::new(self.records_with(blocks)),
            later,
        })
    }

    /// A cut near byte `wanted` of the input (counting every input's bytes), and the records
    /// from it on: at an input's start within `slack` bytes, or else at a record start in the
    /// input holding `wanted`.
    #[allow(clippy::type_complexity)]
    fn cut_near(
        &self,
        wanted: u64,
        slack: u64,
        blocks: Blocks,
    ) -> Option<(Cut, Box<dyn Iterator<Item = RecordItem> + Send + '_>)> {
        let nearest_start =
            (1..self.inputs.len()).min_by_key(|&at| self.starts[at].abs_diff(wanted));
        if let Some(at) = nearest_start
            && self.starts[at].abs_diff(wanted) <= slack
        {
            return Some((
                Cut::Input(at as u32),
                Box::new(self.records_after(at, None, blocks)),
            ));
        }
        let holding = self.starts.iter().rposition(|&start| start <= wanted)?;
        let Input::Warc { path, .. } = &self.inputs[holding] else {
            return None;
        };
        let file = File::open(path).ok()?;
        // SAFETY: as in `open_warc`: only read, inputs assumed unchanged during a run.
        let map = unsafe { Mmap::map(&file) }.ok()?;
        if starts_like_arc(&map) {
            return None;
        }
        let from = usize::try_from(wanted - self.starts[holding]).ok()?;
        let offset = record_start_near(&map, from)?;
        let file_records =
            FileRecords::starting_at(map, offset, holding as u32, self.limits.max_record_bytes)
                .with_blocks(blocks);
        let cut = Cut::Within(RecordLocation {
            input: holding as u32,
            offset,
        });
        Some((
            cut,
            Box::new(self.records_after(holding + 1, Some(file_records), blocks)),
        ))
    }

    /// The records of `current` (input `next` − 1, read from where it stands), then of every
    /// input from `next` on.
    fn records_after(
        &self,
        next: usize,
        current: Option<FileRecords>,
        blocks: Blocks,
    ) -> Records<'_> {
        Records {
            inputs: self.inputs[next..].iter(),
            limits: self.limits,
            blocks,
            current,
            index: next as u32,
            sample: self.sample.as_deref(),
        }
    }

    /// Reads again the record of `url` at `location` (from [`Record::source_input`] and
    /// [`Record::source_offset`]). In a WARC file the records from that offset on are read
    /// until one has that URL, at most [`MAX_RECORDS_SEARCHED`] of them (a gzip file of one
    /// member has every record at offset 0). `None` when it cannot be read.
    pub fn record_at(&self, location: RecordLocation, url: &str) -> Option<Record> {
        let input = self.inputs.get(location.input as usize)?;
        let mut record = match input {
            Input::Html { path, url, .. } => {
                read_html_file(path, url, location.input, self.limits).ok()?
            }
            Input::Warc { path, .. } => {
                let file = File::open(path).ok()?;
                // SAFETY: as in `open_warc`: only read, inputs assumed unchanged during a run.
                let map = unsafe { Mmap::map(&file) }.ok()?;
                let records = FileRecords::starting_at(
                    map,
                    location.offset,
                    location.input,
                    self.limits.max_record_bytes,
                );
                records
                    .take(MAX_RECORDS_SEARCHED)
                    .filter_map(Result::ok)
                    .find(|record| record.url == url)?
            }
        };
        // Read from the middle of a gzip member, the record sees its offset from there: it
        // lies where it was first found.
        record.source_offset = location.offset;
        Some(record)
    }
}

/// The share of an input below which [`InputSet::parts`] makes no more parts: a thread more
/// would cost more than it saves (cuts are looked for near even shares, so a part can come
/// out a little smaller).
pub const MIN_PART_BYTES: u64 = 2 << 20;

/// One record of [`InputSet::records`], or the skip of one.
pub type RecordItem = Result<Record, Skip>;

/// [`InputSet::records`] cut in parts ([`InputSet::parts`]). Read each part up to the first
/// item the next part's [`Cut::reached`] says lies past its cut; where [`Cut::joins`] says
/// so, the next part (read from its start) goes on from there, and the parts together meet
/// every record once, in the order of one reading of [`InputSet::records`]. Where it says
/// not, read the part on to its end instead, and leave the parts after it unread.
pub struct Parts<'a> {
    /// Every record from the first input's start.
    pub first: Box<dyn Iterator<Item = RecordItem> + Send + 'a>,
    /// Each later part, in input order: where it starts, and every record from there on.
    #[allow(clippy::type_complexity)]
    pub later: Vec<(Cut, Box<dyn Iterator<Item = RecordItem> + Send + 'a>)>,
}

/// Where a later one of [`Parts`] starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cut {
    /// At the start of this input: the halves join whatever the files hold.
    Input(u32),
    /// At a record start found by looking inside an input. The halves join when the first
    /// half's first item at or past it is the second half's first item.
    Within(RecordLocation),
}

impl Cut {
    /// Whether `item`, met reading the first half, lies at or past the cut.
    pub fn reached(&self, item: &RecordItem) -> bool {
        let (input, offset) = match item {
            Ok(record) => (record.source_input, Some(record.source_offset)),
            Err(skip) => (skip.input, skip.offset),
        };
        match *self {
            Cut::Input(first) => input >= first,
            Cut::Within(at) => {
                input > at.input || (input == at.input && offset.is_some_and(|o| o >= at.offset))
            }
        }
    }

    /// Whether the cut lies before `other`.
    fn lies_before(&self, other: &Cut) -> bool {
        let place = |cut: &Cut| match *cut {
            Cut::Input(input) => (input, 0),
            Cut::Within(at) => (at.input, at.offset),
        };
        place(self) < place(other)
    }

    /// Whether reading the first half up to the cut and the second from it meets every
    /// record once: `reached` is the first half's first item past the cut (`None` when it
    /// ended first), `second_first` the second half's first item.
    pub fn joins(&self, reached: Option<&RecordItem>, second_first: Option<&RecordItem>) -> bool {
        match self {
            Cut::Input(_) => true,
            Cut::Within(_) => reached == second_first,
        }
    }
}

/// Records read past, at most, to find one record again by [`InputSet::record_at`].
pub const MAX_RECORDS_SEARCHED: usize = 100_000;

/// Where a record lies in an [`InputSet`], to read it again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordLocation {
    /// [`Record::source_input`].
    pub input: u32,
    /// [`Record::source_offset`].
    pub offset: u64,
}

impl RecordLocation {
    /// Where `record` lies.
    pub fn of(record: &Record) -> Self {
        RecordLocation {
            input: record.source_input,
            offset: record.source_offset,
        }
    }
}

/// Iterator behind [`InputSet::records`].
struct Records<'a> {
    inputs: std::slice::Iter<'a, Input>,
    limits: ReadLimits,
    blocks: Blocks,
    current: Option<FileRecords>,
    /// Index of the next input.
    index: u32,
    /// The URLs read, when a sample.
    sample: Option<&'a UrlSample>,
}

impl Records<'_> {
    fn sampled(&self, url: &str) -> bool {
        self.sample.is_none_or(|sample| sample.contains(url))
    }
}

impl Iterator for Records<'_> {
    type Item = Result<Record, Skip>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(records) = &mut self.current {
                if let Some(item) = records.next() {
                    match &item {
                        Ok(record) if !self.sampled(&record.url) => continue,
                        _ => return Some(item),
                    }
                }
                self.current = None;
            }
            let input = self.inputs.next()?;
            let number = self.index;
            self.index += 1;
            match input {
                Input::Warc { path, .. } => match open_warc(path, number, self.limits) {
                    Ok(Some(records)) => self.current = Some(records.with_blocks(self.blocks)),
                    Ok(None) => {}
                    Err(skip) => return Some(Err(skip)),
                },
                Input::Html { url, .. } if !self.sampled(url) => {}
                Input::Html { path, url, .. } => {
                    return Some(read_html_file(path, url, number, self.limits));
                }
            }
        }
    }
}

/// Maps a WARC (or ARC) file and starts reading it; `None` for an empty file.
fn open_warc(path: &Path, input: u32, limits: ReadLimits) -> Result<Option<FileRecords>, Skip> {
    let unreadable = |error: io::Error| {
        Skip::new(SkipReason::UnreadableFile, None, error.to_string()).at(input, None)
    };
    let file = File::open(path).map_err(unreadable)?;
    if file.metadata().map_err(unreadable)?.len() == 0 {
        return Ok(None);
    }
    // SAFETY: the map is only read. If another process truncates the file while it is
    // mapped, reads past the new end fault; inputs are assumed not to change during a run.
    let map = unsafe { Mmap::map(&file) }.map_err(unreadable)?;
    #[cfg(unix)]
    {
        // Only a hint; reading works the same if the kernel ignores it.
        let _ = map.advise(memmap2::Advice::Sequential);
    }
    Ok(Some(FileRecords::starting_at(
        map,
        0,
        input,
        limits.max_record_bytes,
    )))
}

/// Reads one HTML file of a folder, input number `input`, into a record.
fn read_html_file(path: &Path, url: &str, input: u32, limits: ReadLimits) -> Result<Record, Skip> {
    let skip = |reason: SkipReason, message: String| {
        Skip::new(reason, Some(url.to_string()), message).at(input, None)
    };
    let bytes = fs::metadata(path)
        .map_err(|e| skip(SkipReason::UnreadableFile, e.to_string()))?
        .len();
    if bytes > limits.max_record_bytes as u64 {
        let message = format!(
            "{bytes} bytes, over the limit of {}",
            limits.max_record_bytes
        );
        return Err(skip(SkipReason::TooLarge, message));
    }
    let block = fs::read(path).map_err(|e| skip(SkipReason::UnreadableFile, e.to_string()))?;
    Ok(Record {
        url: url.to_string(),
        kind: RecordKind::File,
        content_type: None,
        source_length: Some(block.len() as u64),
        block,
        source_offset: 0,
        source_input: input,
        truncated: false,
        date: None,
        record_id: None,
    })
}

/// A file given directly, of `bytes` bytes, checked to open: one page if its name ends in
/// `.html`/`.htm`, with the URL `base_url` joined with its name (default: its `file://`
/// URL); a WARC file otherwise.
fn file_input(path: &Path, bytes: u64, base_url: Option<&str>) -> Result<Input, ReadError> {
    File::open(path).map_err(|e| io_error(path, e))?;
    if !has_html_extension(path) {
        return Ok(Input::Warc {
            path: path.to_path_buf(),
            bytes,
        });
    }
    let url = match base_url {
        Some(base) => joined_url(base, path.file_name().map(Path::new).unwrap_or(path)),
        None => file_url(path)?,
    };
    Ok(Input::Html {
        path: path.to_path_buf(),
        url,
        bytes,
    })
}

fn io_error(path: &Path, error: io::Error) -> ReadError {
    if error.kind() == io::ErrorKind::NotFound {
        ReadError::NotFound {
            path: path.to_path_buf(),
        }
    } else {
        ReadError::Unreadable {
            path: path.to_path_buf(),
            source: error,
        }
    }
}

/// Standard input copied to a temporary file.
fn spool_standard_input() -> Result<tempfile::NamedTempFile, ReadError> {
    let stdin = Path::new("-");
    let mut file = tempfile::NamedTempFile::new().map_err(|e| io_error(stdin, e))?;
    io::copy(&mut io::stdin().lock(), &mut file).map_err(|e| io_error(stdin, e))?;
    Ok(file)
}

#[cfg(test)]
mod test_support {
    use std::fs;
    use std::path::Path;

    /// Writes `contents` to `path`, making the folders it lies in.
    pub(super) fn write(path: &Path, contents: &[u8]) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, contents).unwrap();
    }
}

#[cfg(test)]
mod tests;
