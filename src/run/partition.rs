//! Partition files: records in, records out. A run in rounds (see [`super::rounds`]) writes
//! each record once, as read, to the file of its round inside a scratch directory it is given,
//! and each round reads back its own file alone, so rounds cost one extra write and read of
//! the input rather than one read of the whole input per round. This module owns the files'
//! names and format inside that directory; where the directory lives is the caller's (the
//! index directory for a build: see [`crate::index::IndexBuild::scratch_dir`]).

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

use flate2::Compression;
use flate2::read::GzDecoder;
use flate2::write::GzEncoder;

use crate::read::{Record, RecordKind, Skip};

/// The bit of a spilled record's kind byte that marks [`Record::truncated`].
const TRUNCATED: u8 = 0x80;
/// The length written for a record with none ([`Record::source_length`]).
const NO_LENGTH: u64 = u64::MAX;

/// Records split into one temporary file per round; removed when dropped.
pub struct Partitions {
    dir: tempfile::TempDir,
    paths: Vec<PathBuf>,
    /// Read errors met, by partition: our own files, so a failure fails the run.
    failures: Vec<std::sync::Mutex<Option<io::Error>>>,
}

/// Writes records into partition files.
pub struct PartitionWriter {
    dir: tempfile::TempDir,
    paths: Vec<PathBuf>,
    files: Vec<GzEncoder<BufWriter<File>>>,
}

impl PartitionWriter {
    /// `rounds` empty partitions in the scratch directory `dir` (removed with the partitions).
    pub fn new(rounds: usize, dir: tempfile::TempDir) -> io::Result<Self> {
        let mut paths = Vec::with_capacity(rounds);
        let mut files = Vec::with_capacity(rounds);
        for round in 0..rounds {
            let path = dir.path().join(format!("round-{round}.bin.gz"));
            let file = BufWriter::with_capacity(64 << 10, File::create(&path)?);
            files.push(GzEncoder::new(file, Compression::fast()));
            paths.push(path);
        }
        Ok(PartitionWriter { dir, paths, files })
    }

    /// Appends `record` to partition `round`.
    ///
    /// A record is its kind byte (with [`TRUNCATED`] set for a truncated record), input,
    /// offset, URL, content type, date (a build keeps the latest record of a URL), record id
    /// and block.
    pub fn write(&mut self, round: usize, record: &Record) -> io::Result<()> {
        let out = &mut self.files[round];
        let kind: u8 = match record.kind {
            RecordKind::Response => 0,
            RecordKind::Resource => 1,
            RecordKind::File => 2,
            RecordKind::Text => 3,
        } | if record.truncated { TRUNCATED } else { 0 };
        out.write_all(&[kind])?;
        out.write_all(&record.source_input.to_le_bytes())?;
        out.write_all(&record.source_offset.to_le_bytes())?;
        let length = record.source_length.unwrap_or(NO_LENGTH);
        out.write_all(&length.to_le_bytes())?;
        write_bytes(out, record.url.as_bytes())?;
        write_optional(out, record.content_type.as_deref())?;
        write_optional(out, record.date.as_deref())?;
        write_optional(out, record.record_id.as_deref())?;
        write_bytes(out, &record.block)
    }

    /// Closes the files.
    pub fn finish(self) -> io::Result<Partitions> {
        for file in self.files {
            file.finish()?.flush()?;
        }
        Ok(Partitions {
            dir: self.dir,
            failures: self.paths.iter().map(|_| Default::default()).collect(),
            paths: self.paths,
        })
    }
}

/// A flag byte (1: present), then the text when present.
fn write_optional(out: &mut impl Write, text: Option<&str>) -> io::Result<()> {
    match text {
        Some(text) => {
            out.write_all(&[1])?;
            write_bytes(out, text.as_bytes())
        }
        None => out.write_all(&[0]),
    }
}

fn read_optional(input: &mut impl Read) -> io::Result<Option<String>> {
    let mut flag = [0u8; 1];
    input.read_exact(&mut flag)?;
    Ok(if flag[0] == 1 {
        Some(String::from_utf8_lossy(&read_bytes(input)?).into_owned())
    } else {
        None
    })
}

fn write_bytes(out: &mut impl Write, bytes: &[u8]) -> io::Result<()> {
    out.write_all(&(bytes.len() as u64).to_le_bytes())?;
    out.write_all(bytes)
}

impl Partitions {
    /// The scratch directory.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// How many partitions there are.
    pub fn len(&self) -> usize {
        self.paths.len()
    }

    /// The records of partition `round`, in the order they were written. A file that
    /// cannot be read back (the disk failed under it) ends early, and [`check`](Self::check)
    /// then fails.
    pub fn records(&self, round: usize) -> impl Iterator<Item = Result<Record, Skip>> + Send + '_ {
        let reader = File::open(&self.paths[round])
            .map(|file| GzDecoder::new(BufReader::with_capacity(256 << 10, file)));
        let mut reader = Some(reader);
        let failure = &self.failures[round];
        std::iter::from_fn(move || {
            let result = match reader.take()? {
                Err(error) => Err(error),
                Ok(mut file) => {
                    let record = read_record(&mut file);
                    if record.is_ok() {
                        reader = Some(Ok(file));
                    }
                    record
                }
            };
            match result {
                Ok(record) => record.map(Ok),
                Err(error) => {
                    if let Ok(mut failure) = failure.lock() {
                        failure.get_or_insert(error);
                    }
                    None
                }
            }
        })
    }

    /// Fails if reading partition `round` back failed.
    pub fn check(&self, round: usize) -> io::Result<()> {
        let failure = self.failures[round]
            .lock()
            .ok()
            .and_then(|mut failure| failure.take());
        match failure {
            Some(error) => Err(io::Error::new(
                error.kind(),
                format!("{}: {error}", self.paths[round].display()),
            )),
            None => Ok(()),
        }
    }
}

fn read_record(input: &mut impl Read) -> io::Result<Option<Record>> {
    let mut kind = [0u8; 1];
    match input.read_exact(&mut kind) {
        Ok(()) => {}
        Err(error) if error.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
        Err(error) => return Err(error),
    }
    let truncated = kind[0] & TRUNCATED != 0;
    let kind = match kind[0] & !TRUNCATED {
        0 => RecordKind::Response,
        1 => RecordKind::Resource,
        2 => RecordKind::File,
        _ => RecordKind::Text,
    };
    let mut word = [0u8; 4];
    input.read_exact(&mut word)?;
    let source_input = u32::from_le_bytes(word);
    let mut long = [0u8; 8];
    input.read_exact(&mut long)?;
    let source_offset = u64::from_le_bytes(long);
    input.read_exact(&mut long)?;
    let source_length = Some(u64::from_le_bytes(long)).filter(|&length| length != NO_LENGTH);
    let url = String::from_utf8_lossy(&read_bytes(input)?).into_owned();
    let content_type = read_optional(input)?;
    let date = read_optional(input)?;
    let record_id = read_optional(input)?;
    let block = read_bytes(input)?;
    Ok(Some(Record {
        url,
        kind,
        content_type,
        block,
        source_offset,
        source_length,
        source_input,
        truncated,
        date,
        record_id,
    }))
}

fn read_bytes(input: &mut impl Read) -> io::Result<Vec<u8>> {
    let mut long = [0u8; 8];
    input.read_exact(&mut long)?;
    let len = u64::from_le_bytes(long);
    let mut bytes = Vec::new();
    // The files are our own, but read them as if they were not: no allocation sized by a
    // length before the bytes are there.
    input.take(len).read_to_end(&mut bytes)?;
    if bytes.len() as u64 != len {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "partition file cut short",
        ));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(i: u32, kind: RecordKind, content_type: Option<&str>) -> Record {
        Record {
            url: format!("http://a.example/{i}"),
            kind,
            content_type: content_type.map(str::to_string),
            block: vec![i as u8; i as usize * 100],
            source_offset: u64::from(i) * 1000,
            source_length: i.is_multiple_of(2).then_some(u64::from(i) * 10 + 1),
            source_input: i % 3,
            truncated: i == 3,
            date: i
                .is_multiple_of(2)
                .then(|| format!("2024-05-0{i}T10:00:00Z")),
            record_id: (i == 1).then(|| "<urn:uuid:1>".to_string()),
        }
    }

    #[test]
    fn records_come_back_as_written_in_their_partition() {
        let mut writer = PartitionWriter::new(3, tempfile::tempdir().unwrap()).unwrap();
        let records = [
            record(1, RecordKind::Response, None),
            record(2, RecordKind::Resource, Some("text/html; charset=latin1")),
            record(3, RecordKind::File, None),
            record(4, RecordKind::Response, None),
        ];
        for (i, record) in records.iter().enumerate() {
            writer.write(i % 2, record).unwrap();
        }
        let partitions = writer.finish().unwrap();
        assert_eq!(partitions.len(), 3);
        let read = |round| {
            partitions
                .records(round)
                .map(Result::unwrap)
                .collect::<Vec<_>>()
        };
        assert_eq!(read(0), [records[0].clone(), records[2].clone()]);
        assert_eq!(read(1), [records[1].clone(), records[3].clone()]);
        assert!(read(2).is_empty());
    }
}
