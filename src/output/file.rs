//! The output file: records (bytes) in, a file out, compressed as its name says — `.gz`
//! (gzip; one member per record when asked, as Common Crawl writes WET files, so a reader can
//! seek to a record), `.zst` (zstd), anything else plain — and written atomically: to a
//! temporary file beside it, renamed to its name by [`OutputFile::commit`].
//!
//! A run that fails or stops before then leaves no file, not a half one (the temporary file is
//! removed when the [`OutputFile`] is dropped). A name that is not a file — `/dev/null`,
//! `/dev/stdout`, a named pipe — is written straight to: renaming a file over it would
//! replace the device or the pipe with a file.
//!
//! A compressed file is written in pieces of whole records, at most [`GZIP_PIECE`] or
//! [`ZSTD_PIECE`] bytes unless one record is larger, each compressed on its own as a gzip
//! member or a zstd frame, one after another in the file: one stream to a reader that reads
//! on past a member or frame's end, as `zcat`, `zstdcat`, Python's `gzip` and
//! `flate2::read::MultiGzDecoder` do (`flate2::read::GzDecoder` stops after the first). The
//! pieces are compressed on threads of the file's own when it is given some
//! ([`OutputFile::compressing_on`]), so that the thread writing records only hands them over;
//! the file's bytes are the same on any number of threads.

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use flate2::write::GzEncoder;
use indexer_pipeline::OrderedPool;

use super::OutputError;

/// How an output file is compressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// Written as is.
    None,
    /// gzip (`.gz`).
    Gzip,
    /// zstd (`.zst`).
    Zstd,
}

impl Compression {
    /// The compression a file name asks for, by its extension (any case).
    pub fn of_path(path: &Path) -> Compression {
        let extension = path
            .extension()
            .and_then(|extension| extension.to_str())
            .map(str::to_ascii_lowercase);
        match extension.as_deref() {
            Some("gz") => Compression::Gzip,
            Some("zst") => Compression::Zstd,
            _ => Compression::None,
        }
    }
}

/// gzip level 6 and zstd level 3: each format's own default.
const GZIP_LEVEL: u32 = 6;
const ZSTD_LEVEL: i32 = 3;

/// Bytes of records a gzip file compresses as one member: gzip's window is 32 KiB, and the
/// docs' extract came out 0.6 % larger than one member in pieces of 512 KiB, 0.3 % at 1 MiB,
/// 0.2 % at 2 MiB.
pub const GZIP_PIECE: usize = 1 << 20;

/// Bytes of records a zstd file compresses as one frame: zstd's window at level 3 is 2 MiB
/// and more, so a piece loses matches across its start; the docs' extract came out 2.4 %
/// larger than one frame at 1 MiB, 1.1 % at 2 MiB, 0.5 % at 4 MiB.
pub const ZSTD_PIECE: usize = 4 << 20;

/// The threads compressing an output file's pieces ([`OutputFile::compressing_on`]) for a
/// run on `run_threads` threads: none for one (the writing thread compresses), else one for
/// every eight run threads or part of eight. Compression is about a twentieth of an
/// `extract`'s CPU (gzip level 6 of the JSON lines of the docs: docs/MEASUREMENTS.md).
pub fn compressing_threads(run_threads: usize) -> usize {
    match run_threads {
        0 | 1 => 0,
        threads => threads.div_ceil(8),
    }
}

enum Encoder {
    Plain(BufWriter<File>),
    Compressed(Box<Compressing>),
}

/// How a compressed file's pieces are made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PieceFormat {
    /// A gzip member a piece.
    Gzip,
    /// A gzip member a record.
    GzipMembers,
    /// A zstd frame a piece.
    Zstd,
}

impl PieceFormat {
    fn piece_bytes(self) -> usize {
        match self {
            PieceFormat::Gzip | PieceFormat::GzipMembers => GZIP_PIECE,
            PieceFormat::Zstd => ZSTD_PIECE,
        }
    }

    /// The compressed bytes of `piece`.
    fn compress(self, piece: Piece) -> io::Result<Vec<u8>> {
        let output = Vec::with_capacity(piece.bytes.len() / 3);
        match self {
            PieceFormat::Gzip => {
                let mut member = GzEncoder::new(output, flate2::Compression::new(GZIP_LEVEL));
                member.write_all(&piece.bytes)?;
                member.finish()
            }
            PieceFormat::GzipMembers => {
                let mut output = output;
                let mut start = 0;
                for &end in &piece.record_ends {
                    let mut member = GzEncoder::new(output, flate2::Compression::new(GZIP_LEVEL));
                    member.write_all(&piece.bytes[start..end])?;
                    output = member.finish()?;
                    start = end;
                }
                Ok(output)
            }
            PieceFormat::Zstd => {
                let mut frame = zstd::stream::write::Encoder::new(output, ZSTD_LEVEL)?;
                frame.write_all(&piece.bytes)?;
                frame.finish()
            }
        }
    }
}

/// Whole records, compressed together.
#[derive(Default)]
struct Piece {
    bytes: Vec<u8>,
    /// Where each record ends in `bytes`, when each is a member of its own.
    record_ends: Vec<usize>,
}

/// A compressed file being written: the piece being filled, and the pieces compressing.
struct Compressing {
    file: BufWriter<File>,
    format: PieceFormat,
    piece: Piece,
    /// Whether a piece has been handed on.
    handed_on: bool,
    /// The threads compressing pieces; `None` compresses them on the writing thread.
    threads: Option<OrderedPool<Piece, io::Result<Vec<u8>>>>,
}

impl Compressing {
    /// Adds a record to the piece being filled, handing that piece on first when the record
    /// would take it past its size: a piece is larger only when it is one record.
    fn write_record(&mut self, bytes: &[u8]) -> io::Result<()> {
        let piece_bytes = self.format.piece_bytes();
        let filled = self.piece.bytes.len();
        if filled > 0 && filled + bytes.len() > piece_bytes {
            self.hand_on()?;
        }
        if self.piece.bytes.is_empty() {
            self.piece.bytes.reserve(piece_bytes.max(bytes.len()));
        }
        self.piece.bytes.extend_from_slice(bytes);
        if self.format == PieceFormat::GzipMembers {
            self.piece.record_ends.push(self.piece.bytes.len());
        }
        Ok(())
    }

    /// Compresses the piece filled so far and writes what is compressed, in order.
    fn hand_on(&mut self) -> io::Result<()> {
        let piece = std::mem::take(&mut self.piece);
        self.handed_on = true;
        let Some(threads) = &mut self.threads else {
            let compressed = self.format.compress(piece)?;
            return self.file.write_all(&compressed);
        };
        threads.give(piece).map_err(pool_error)?;
        for compressed in threads.ready().map_err(pool_error)? {
            self.file.write_all(&compressed?)?;
        }
        Ok(())
    }

    /// Compresses what is left, writes every piece and hands back the file.
    fn finish(mut self) -> io::Result<BufWriter<File>> {
        // An empty gzip or zstd file is still one (empty) member or frame; an empty record
        // written as a member of its own is one too.
        let empty_stream = !self.handed_on && self.format != PieceFormat::GzipMembers;
        if !self.piece.bytes.is_empty() || !self.piece.record_ends.is_empty() || empty_stream {
            self.hand_on()?;
        }
        if let Some(threads) = &mut self.threads {
            for compressed in threads.settle().map_err(pool_error)? {
                self.file.write_all(&compressed?)?;
            }
        }
        Ok(self.file)
    }
}

fn pool_error(error: indexer_pipeline::PipelineError<io::Error>) -> io::Error {
    match error {
        indexer_pipeline::PipelineError::Stage { error, .. } => error,
        panicked => io::Error::other(format!("compressing: {panicked}")),
    }
}

/// A file being written under a temporary name (or straight to a device or pipe).
pub struct OutputFile {
    path: PathBuf,
    /// `None` when writing straight to `path`.
    temporary: Option<tempfile::NamedTempFile>,
    encoder: Encoder,
}

/// Whether `path` names something that is neither a file nor a folder (a device such as
/// `/dev/null`, a named pipe, a socket), through any links, or names one of this process's
/// open descriptors ([`stream_of`]: `/dev/stdout`, which ends at an ordinary file when the
/// shell redirects the output to one): output for it is written straight to it, not renamed
/// over it (which would replace the device, the pipe or the link).
pub fn is_special(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|metadata| !metadata.is_file() && !metadata.is_dir())
        || stream_of(path).is_some()
}

/// Whether `path` names this process's standard output ([`is_special`]): a command writing
/// a file there says what it did on standard error instead.
pub fn is_standard_output(path: &Path) -> bool {
    stream_of(path) == Some(1)
}

/// The descriptor of this process that `path` names, itself or through links:
/// `/dev/stdin`, `/dev/stdout`, `/dev/stderr`, `/dev/fd/N`, `/proc/self/fd/N` or
/// `/proc/PID/fd/N` of this process's PID.
fn stream_of(path: &Path) -> Option<u32> {
    let mut link = path.to_path_buf();
    // As many links as Linux follows in one path.
    for _ in 0..40 {
        if let Some(descriptor) = descriptor_named(&link) {
            return Some(descriptor);
        }
        let target = std::fs::read_link(&link).ok()?;
        let folder = match link.parent() {
            Some(folder) if folder.as_os_str().is_empty() => Path::new(".").canonicalize().ok(),
            folder => folder.and_then(|folder| folder.canonicalize().ok()),
        };
        link = match folder {
            Some(folder) => lexically_normal(&folder.join(target)),
            None => target,
        };
    }
    None
}

/// The descriptor a stream path names by its text alone.
fn descriptor_named(path: &Path) -> Option<u32> {
    let text = path.to_str()?;
    match text {
        "/dev/stdin" => return Some(0),
        "/dev/stdout" => return Some(1),
        "/dev/stderr" => return Some(2),
        _ => {}
    }
    let own = format!("/proc/{}/fd/", std::process::id());
    ["/dev/fd/", "/proc/self/fd/", own.as_str()]
        .into_iter()
        .find_map(|folder| text.strip_prefix(folder)?.parse().ok())
}

/// `path` with its `.` and `..` taken out by their text (for a path whose folders are
/// already free of links, as a canonical folder joined with a link's target is).
fn lexically_normal(path: &Path) -> PathBuf {
    let mut normal = PathBuf::new();
    for component in path.components() {
        match component {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                normal.pop();
            }
            other => normal.push(other),
        }
    }
    normal
}

/// A file open on `path`, a device or pipe or stream written straight to. A descriptor of
/// this process (`/dev/stdout`, `/dev/fd/3`) is written through a copy of it, so that the
/// output goes on where the process's writes are (a shell's `>>` appends; opening
/// `/dev/stdout` again would start at the file's first byte).
fn open_special(path: &Path) -> io::Result<File> {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        match stream_of(path) {
            Some(1) => return Ok(File::from(io::stdout().as_fd().try_clone_to_owned()?)),
            Some(2) => return Ok(File::from(io::stderr().as_fd().try_clone_to_owned()?)),
            Some(descriptor) => return duplicate(descriptor),
            None => {}
        }
    }
    std::fs::OpenOptions::new().write(true).open(path)
}

/// This process's descriptor `descriptor` as the system numbers it, when it is open for
/// writing (an error when it is closed or open only for reading, as a write to it would fail).
#[cfg(unix)]
fn open_for_writing(descriptor: u32) -> io::Result<i32> {
    let descriptor =
        i32::try_from(descriptor).map_err(|_| io::Error::from_raw_os_error(libc::EBADF))?;
    // SAFETY: fcntl reads and writes none of our memory.
    let flags = unsafe { libc::fcntl(descriptor, libc::F_GETFL) };
    if flags < 0 {
        return Err(io::Error::last_os_error());
    }
    match flags & libc::O_ACCMODE {
        libc::O_RDONLY => Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            "open only for reading",
        )),
        _ => Ok(descriptor),
    }
}

/// A copy of this process's open descriptor `descriptor`, sharing its offset and its mode (a
/// shell's `3>>file` appends), as `/dev/fd/N` means to a shell: opened again, an ordinary file
/// would be written from its first byte, and a file open only for reading (an input) written.
#[cfg(unix)]
fn duplicate(descriptor: u32) -> io::Result<File> {
    use std::os::fd::FromRawFd;
    let descriptor = open_for_writing(descriptor)?;
    // SAFETY: fcntl reads and writes none of our memory; a closed or foreign number fails
    // with EBADF. The copy is numbered 3 or above, never a closed standard stream's number.
    let copy = unsafe { libc::fcntl(descriptor, libc::F_DUPFD_CLOEXEC, 3) };
    if copy < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `copy` is a new descriptor that nothing else owns.
    Ok(unsafe { File::from_raw_fd(copy) })
}

/// The error of a temporary file's creation without the ` at path "…"` that `tempfile` adds
/// to its text (the message names the output's own path; the temporary name means nothing to
/// the user). `tempfile` keeps no other way to the operating system's error.
fn without_temporary_name(error: io::Error) -> io::Error {
    let text = error.to_string();
    match text.rfind(" at path \"") {
        Some(at) => io::Error::new(error.kind(), &text[..at]),
        None => error,
    }
}

impl OutputFile {
    /// Starts writing `path` (compressed as its name says; a gzip member per record when
    /// `member_per_record`), under a temporary name in the same folder.
    pub fn create(path: &Path, member_per_record: bool) -> Result<OutputFile, OutputError> {
        OutputFile::create_as(path, Compression::of_path(path), member_per_record)
    }

    /// Fails as [`create`](Self::create) would if `path` cannot be written, and leaves
    /// nothing: for a command to say so before its work rather than after it, and to begin
    /// the file only once it has something to write. A device, pipe or stream is not
    /// opened, only looked for.
    pub fn check_writable(path: &Path) -> Result<(), OutputError> {
        if is_special(path) {
            let open = std::fs::metadata(path).map(drop);
            #[cfg(unix)]
            let open = open.and_then(|()| {
                stream_of(path).map_or(Ok(()), |descriptor| open_for_writing(descriptor).map(drop))
            });
            return open.map_err(|source| OutputError::Create {
                path: path.to_path_buf(),
                source,
            });
        }
        OutputFile::create_as(path, Compression::None, false).map(drop)
    }

    /// Starts writing `path` compressed as `compression`, whatever its name says (a model
    /// file, read back as plain JSON whatever it is called).
    pub fn create_as(
        path: &Path,
        compression: Compression,
        member_per_record: bool,
    ) -> Result<OutputFile, OutputError> {
        let create = |source: io::Error| OutputError::Create {
            path: path.to_path_buf(),
            source,
        };
        let (temporary, file) = if is_special(path) {
            (None, open_special(path).map_err(create)?)
        } else if std::fs::metadata(path).is_ok_and(|metadata| metadata.is_dir()) {
            // Refused now: the file could not be renamed over it once written.
            let folder = io::Error::new(io::ErrorKind::IsADirectory, "a folder is there");
            return Err(create(folder));
        } else {
            let folder = match path.parent() {
                Some(parent) if !parent.as_os_str().is_empty() => parent,
                _ => Path::new("."),
            };
            let name = path.file_name().map_or_else(
                || "output".to_string(),
                |name| name.to_string_lossy().into_owned(),
            );
            let temporary = tempfile::Builder::new()
                .prefix(&format!(".{name}."))
                .suffix(".partial")
                .tempfile_in(folder)
                .map_err(|error| create(without_temporary_name(error)))?;
            let file = temporary.reopen().map_err(create)?;
            (Some(temporary), file)
        };
        let file = BufWriter::with_capacity(256 << 10, file);
        let format = match (compression, member_per_record) {
            (Compression::None, _) => None,
            (Compression::Gzip, true) => Some(PieceFormat::GzipMembers),
            (Compression::Gzip, false) => Some(PieceFormat::Gzip),
            (Compression::Zstd, _) => Some(PieceFormat::Zstd),
        };
        let encoder = match format {
            None => Encoder::Plain(file),
            Some(format) => Encoder::Compressed(Box::new(Compressing {
                file,
                format,
                piece: Piece::default(),
                handed_on: false,
                threads: None,
            })),
        };
        Ok(OutputFile {
            path: path.to_path_buf(),
            temporary,
            encoder,
        })
    }

    /// The file with its pieces compressed on `threads` threads of its own, started now
    /// ([`compressing_threads`] says how many for a run); on the writing thread for none, and
    /// for a file written as is. The file's bytes are the same either way.
    pub fn compressing_on(mut self, threads: usize) -> Result<OutputFile, OutputError> {
        if let (Encoder::Compressed(compressing), 1..) = (&mut self.encoder, threads) {
            let format = compressing.format;
            let pool = OrderedPool::start("compress", threads, threads, move |piece| {
                format.compress(piece)
            });
            compressing.threads = Some(pool.map_err(|source| OutputError::Create {
                path: self.path.clone(),
                source,
            })?);
        }
        Ok(self)
    }

    /// Appends one record.
    pub fn write_record(&mut self, bytes: &[u8]) -> Result<(), OutputError> {
        let written = match &mut self.encoder {
            Encoder::Plain(file) => file.write_all(bytes),
            Encoder::Compressed(compressing) => compressing.write_record(bytes),
        };
        written.map_err(|source| self.write_error(source))
    }

    /// Finishes the compression, flushes the file to disk and gives it its name (a device or
    /// pipe: flushes what is left to it).
    pub fn commit(self) -> Result<PathBuf, OutputError> {
        let OutputFile {
            path,
            temporary,
            encoder,
        } = self;
        let write_error = |source: io::Error| OutputError::Write {
            path: path.clone(),
            source,
        };
        let file = match encoder {
            Encoder::Plain(file) => file,
            Encoder::Compressed(compressing) => compressing.finish().map_err(write_error)?,
        };
        let file = file.into_inner().map_err(|e| write_error(e.into_error()))?;
        let Some(temporary) = temporary else {
            return Ok(path);
        };
        file.sync_all().map_err(write_error)?;
        // A temporary file is private to its owner; the output is an ordinary file.
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let readable = std::fs::Permissions::from_mode(0o644);
            file.set_permissions(readable).map_err(write_error)?;
        }
        temporary
            .persist(&path)
            .map_err(|error| OutputError::Write {
                path: path.clone(),
                source: error.error,
            })?;
        Ok(path)
    }

    fn write_error(&self, source: io::Error) -> OutputError {
        OutputError::Write {
            path: self.path.clone(),
            source,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    use super::*;

    fn written(name: &str, member_per_record: bool) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        let mut out = OutputFile::create(&path, member_per_record).unwrap();
        out.write_record(b"first\n").unwrap();
        out.write_record(b"second\n").unwrap();
        assert!(!path.exists(), "no file under its name before the commit");
        out.commit().unwrap();
        (dir, path)
    }

    #[test]
    fn compression_follows_the_extension() {
        let (_dir, plain) = written("out.jsonl", false);
        assert_eq!(std::fs::read(&plain).unwrap(), b"first\nsecond\n");
        let (_dir, zst) = written("out.jsonl.zst", false);
        let decoded = zstd::decode_all(std::fs::File::open(&zst).unwrap()).unwrap();
        assert_eq!(decoded, b"first\nsecond\n");
        let (_dir, gz) = written("out.warc.wet.GZ", true);
        let bytes = std::fs::read(&gz).unwrap();
        let members = bytes
            .windows(3)
            .filter(|w| w == &[0x1f, 0x8b, 0x08])
            .count();
        assert_eq!(members, 2, "a gzip member per record");
        let mut decoded = Vec::new();
        flate2::read::MultiGzDecoder::new(&bytes[..])
            .read_to_end(&mut decoded)
            .unwrap();
        assert_eq!(decoded, b"first\nsecond\n");
    }

    /// The members (gzip) or frames (zstd) that start in `bytes`, by their magic numbers:
    /// an estimate that compressed data may inflate by chance, so only compared as at least.
    fn starts(bytes: &[u8], magic: &[u8]) -> usize {
        bytes.windows(magic.len()).filter(|w| w == &magic).count()
    }

    #[test]
    fn a_large_file_is_compressed_in_pieces_the_same_on_any_number_of_threads() {
        // Records of varied, hardly compressible text: about 6 MiB in all.
        let mut state = 7u64;
        let records: Vec<Vec<u8>> = (0..2000)
            .map(|n| {
                let words = 300 + n % 700;
                let mut line = format!("{{\"n\":{n},\"text\":\"");
                for _ in 0..words {
                    state = state
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    line.push_str(&format!("w{} ", state >> 52));
                }
                line.push_str("\"}\n");
                line.into_bytes()
            })
            .collect();
        let plain = records.concat();
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, members: bool, threads: usize| {
            let path = dir.path().join(name);
            let mut out = OutputFile::create(&path, members)
                .unwrap()
                .compressing_on(threads)
                .unwrap();
            for record in &records {
                out.write_record(record).unwrap();
            }
            out.commit().unwrap();
            std::fs::read(&path).unwrap()
        };
        let gunzip = |bytes: &[u8]| {
            let mut decoded = Vec::new();
            flate2::read::MultiGzDecoder::new(bytes)
                .read_to_end(&mut decoded)
                .unwrap();
            decoded
        };
        let gzip = write("out.jsonl.gz", false, 0);
        assert_eq!(gunzip(&gzip), plain);
        let pieces = plain.len().div_ceil(GZIP_PIECE);
        assert!(pieces >= 5, "{pieces}");
        assert!(starts(&gzip, &[0x1f, 0x8b, 0x08]) >= pieces - 1);
        let zst = write("out.jsonl.zst", false, 0);
        assert_eq!(zstd::decode_all(&zst[..]).unwrap(), plain);
        assert!(plain.len() > ZSTD_PIECE);
        assert!(starts(&zst, &[0x28, 0xb5, 0x2f, 0xfd]) >= plain.len().div_ceil(ZSTD_PIECE));
        let wet = write("out.wet.gz", true, 0);
        assert_eq!(gunzip(&wet), plain);
        assert!(
            starts(&wet, &[0x1f, 0x8b, 0x08]) >= records.len(),
            "a member per record"
        );
        // On threads of their own, the same bytes.
        for threads in [1, 3] {
            assert!(write("out.jsonl.gz", false, threads) == gzip, "{threads}");
            assert!(write("out.jsonl.zst", false, threads) == zst, "{threads}");
            assert!(write("out.wet.gz", true, threads) == wet, "{threads}");
        }
        // Nothing written: one empty member or frame, as one stream would write; no member
        // when each record is one.
        for (name, members, empty) in [
            ("empty.gz", false, 1),
            ("empty.zst", false, 1),
            ("empty.wet.gz", true, 0),
        ] {
            for threads in [0, 2] {
                let path = dir.path().join(name);
                let out = OutputFile::create(&path, members).unwrap();
                out.compressing_on(threads).unwrap().commit().unwrap();
                let bytes = std::fs::read(&path).unwrap();
                assert_eq!(bytes.is_empty(), empty == 0, "{name}");
                if name.ends_with(".zst") {
                    assert!(zstd::decode_all(&bytes[..]).unwrap().is_empty());
                } else if !bytes.is_empty() {
                    assert!(gunzip(&bytes).is_empty());
                }
            }
        }
    }

    #[test]
    fn a_check_of_a_writable_path_leaves_nothing_and_of_another_names_only_it() {
        let dir = tempfile::tempdir().unwrap();
        OutputFile::check_writable(&dir.path().join("model.json")).unwrap();
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        let unwritable = dir.path().join("no such folder").join("model.json");
        let error = OutputFile::check_writable(&unwritable)
            .unwrap_err()
            .to_string();
        assert!(error.starts_with("cannot create "), "{error}");
        assert!(error.contains("no such folder/model.json"), "{error}");
        assert!(
            !error.contains(".partial"),
            "the temporary name is left out: {error}"
        );
        let folder = OutputFile::check_writable(dir.path())
            .unwrap_err()
            .to_string();
        assert!(folder.contains("a folder is there"), "{folder}");
        #[cfg(unix)]
        {
            let to_folder = dir.path().join("to_folder");
            std::os::unix::fs::symlink(dir.path(), &to_folder).unwrap();
            let folder = OutputFile::check_writable(&to_folder)
                .unwrap_err()
                .to_string();
            assert!(folder.contains("a folder is there"), "{folder}");
            // A descriptor the process does not hold is looked for, not taken on trust.
            assert!(OutputFile::check_writable(Path::new("/dev/fd/987654")).is_err());
            // One it holds is writable only when opened for writing.
            let named = |file: &std::fs::File| {
                PathBuf::from(format!("/dev/fd/{}", std::os::fd::AsRawFd::as_raw_fd(file)))
            };
            let writing = std::fs::File::create(dir.path().join("written")).unwrap();
            OutputFile::check_writable(&named(&writing)).unwrap();
            let reading = std::fs::File::open(dir.path().join("written")).unwrap();
            let refused = OutputFile::check_writable(&named(&reading))
                .unwrap_err()
                .to_string();
            assert!(refused.contains("open only for reading"), "{refused}");
        }
    }

    /// `/dev/fd/N` is written through a copy of descriptor N: after what was written through
    /// it, not over it, and never into a file it holds open only for reading.
    #[cfg(unix)]
    #[test]
    fn a_descriptor_named_is_written_where_it_stands() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("log");
        let mut held = std::fs::File::create(&path).unwrap();
        held.write_all(b"first\n").unwrap();
        let named = PathBuf::from(format!(
            "/dev/fd/{}",
            std::os::fd::AsRawFd::as_raw_fd(&held)
        ));
        let mut output = OutputFile::create(&named, false).unwrap();
        output.write_record(b"second\n").unwrap();
        output.commit().unwrap();
        held.write_all(b"third\n").unwrap();
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "first\nsecond\nthird\n"
        );
        let reading = std::fs::File::open(&path).unwrap();
        let named = PathBuf::from(format!(
            "/dev/fd/{}",
            std::os::fd::AsRawFd::as_raw_fd(&reading)
        ));
        let written = OutputFile::create(&named, false).and_then(|mut output| {
            output.write_record(b"over\n")?;
            output.commit()
        });
        assert!(written.is_err());
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "first\nsecond\nthird\n"
        );
    }

    #[cfg(unix)]
    #[test]
    fn links_to_a_descriptor_of_the_process_are_special_and_other_links_are_not() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("file");
        std::fs::write(&file, "").unwrap();
        let to_file = dir.path().join("to_file");
        std::os::unix::fs::symlink(&file, &to_file).unwrap();
        // A descriptor of this process open on an ordinary file: the link to it ends at the
        // file, as `/dev/stdout` does when a shell redirects the output to one.
        let open = std::fs::File::create(dir.path().join("open")).unwrap();
        let descriptor = std::os::fd::AsRawFd::as_raw_fd(&open);
        let to_descriptor = dir.path().join("to_descriptor");
        std::os::unix::fs::symlink(format!("/proc/self/fd/{descriptor}"), &to_descriptor).unwrap();
        let to_link = dir.path().join("to_link");
        std::os::unix::fs::symlink("to_descriptor", &to_link).unwrap();
        let sub = dir.path().join("sub");
        std::fs::create_dir(&sub).unwrap();
        let climbing = sub.join("climbing");
        let up = "../".repeat(sub.canonicalize().unwrap().components().count() - 1);
        std::os::unix::fs::symlink(format!("{up}proc/self/fd/{descriptor}"), &climbing).unwrap();
        assert!(!is_special(&file));
        assert!(!is_special(&to_file));
        assert!(!is_special(&dir.path().join("not yet written")));
        assert!(!is_special(Path::new("/dev/shm/not yet written")));
        assert!(is_special(&to_descriptor));
        assert!(
            is_special(&to_link),
            "a relative link to a link to a descriptor"
        );
        assert!(
            is_special(&climbing),
            "a link up through `..` to a descriptor"
        );
        assert!(is_special(Path::new("/dev/stdout")));
        assert!(is_special(Path::new("/dev/null")));
    }

    #[test]
    fn a_file_dropped_before_its_commit_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.jsonl.gz");
        let mut out = OutputFile::create(&path, false).unwrap();
        out.write_record(b"half").unwrap();
        drop(out);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[cfg(unix)]
    #[test]
    fn a_named_pipe_is_written_to_not_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let pipe = dir.path().join("pipe");
        let made = std::process::Command::new("mkfifo").arg(&pipe).status();
        assert!(made.unwrap().success(), "mkfifo");
        let reader = {
            let pipe = pipe.clone();
            std::thread::spawn(move || std::fs::read(pipe).unwrap())
        };
        let mut out = OutputFile::create(&pipe, false).unwrap();
        out.write_record(b"first\n").unwrap();
        out.write_record(b"second\n").unwrap();
        out.commit().unwrap();
        use std::os::unix::fs::FileTypeExt;
        // Checked before waiting on the reader, which a pipe renamed over would leave waiting.
        let kind = std::fs::metadata(&pipe).unwrap().file_type();
        assert!(kind.is_fifo(), "still a pipe");
        assert_eq!(reader.join().unwrap(), b"first\nsecond\n");
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no file beside it"
        );
    }

    #[test]
    fn a_folder_that_does_not_exist_is_a_clear_error() {
        let error = OutputFile::create(Path::new("/no/such/folder/out.jsonl"), false)
            .err()
            .unwrap();
        assert!(
            error.to_string().contains("/no/such/folder/out.jsonl"),
            "{error}"
        );
    }
}
