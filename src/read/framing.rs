//! Framing: the mapped bytes of one crawl file in, the iterator of its records out — the ARC
//! reader ([`super::arc`]) when the file starts as an ARC file does (`filedesc://`, plain or
//! inside gzip), the WARC reader ([`super::warc`]) for everything else, which reports a file
//! that is neither as `not_warc`. Decided by content, never by file name.

use memmap2::Mmap;

use super::arc::{ArcRecords, starts_like_arc};
use super::source::Stream;
use super::warc::WarcRecords;
use super::{Record, Skip};

/// The records of one WARC or ARC file.
pub(crate) enum FileRecords {
    Warc(WarcRecords),
    Arc(ArcRecords),
}

impl FileRecords {
    /// The records of the file mapped in `map` (input number `input`), from file offset
    /// `offset` on (in a gzip file, the start of a member).
    pub(crate) fn starting_at(
        map: Mmap,
        offset: u64,
        input: u32,
        max_record_bytes: usize,
    ) -> FileRecords {
        let arc = starts_like_arc(&map);
        let stream = Stream::starting_at(map, offset);
        if arc {
            FileRecords::Arc(ArcRecords::new(stream, input, max_record_bytes))
        } else {
            FileRecords::Warc(WarcRecords::new(stream, input, max_record_bytes))
        }
    }

    /// The same records, their blocks read as `blocks` says (an ARC file's always read).
    pub(crate) fn with_blocks(self, blocks: super::Blocks) -> FileRecords {
        match (self, blocks) {
            (FileRecords::Warc(records), super::Blocks::MayBeLeftOut) => {
                FileRecords::Warc(records.leaving_out_blocks())
            }
            (records, _) => records,
        }
    }
}

impl Iterator for FileRecords {
    type Item = Result<Record, Skip>;

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            FileRecords::Warc(records) => records.next(),
            FileRecords::Arc(records) => records.next(),
        }
    }
}
