//! Places: where the items of one read of an [`InputSet`] lie, so that a second read of the
//! same records can leave each record's inflating to the thread that prepares it.
//!
//! In: the items of a first read, in input order ([`RecordPlaces::note`]). Out:
//! [`InputSet::placed_records`], the same items again, in the same order — each one of an
//! input whose every item starts a gzip member of its own as a [`MemberRecord`] (its file and
//! offset, read with [`MemberRecord::read`] wherever the caller likes), every other one read
//! on the spot as [`InputSet::records`] reads it. A two-pass run counts each site's records in
//! a first read anyway; with their places, its second read inflates on every worker instead
//! of on the one thread that feeds them.

use std::cell::Cell;
use std::fs::File;
use std::sync::Arc;

use memmap2::Mmap;

use super::{Input, InputSet, RecordItem, RecordLocation, Records};
use crate::read::arc::starts_like_arc;
use crate::read::source::Stream;
use crate::read::warc::WarcRecords;
use crate::read::{Skip, SkipReason};

/// What a first read found of where each input's items lie ([`InputSet::record_places`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordPlaces {
    inputs: Vec<InputPlaces>,
}

/// One input's items, as [`RecordPlaces`] holds them.
#[derive(Debug, Clone, PartialEq, Eq)]
enum InputPlaces {
    /// The offsets of its items so far, increasing: an item lies in the gzip members from
    /// its offset to the next item's (or to the file's end).
    Members(Vec<u64>),
    /// Items that cannot be read one by one from where they start: read again in order.
    InOrder,
}

impl RecordPlaces {
    /// Adds the next item of the read. An input stays placed while every item of it is a
    /// whole record (not cut short) or a skip of a record read past on purpose (one that
    /// never holds a page, or one over the size limit), each with an offset past the one
    /// before: records that share a gzip member, damage, resynchronising and whole-file
    /// skips all leave the input to be read in order.
    pub fn note(&mut self, item: &RecordItem) {
        let (input, offset) = match item {
            Ok(record) if record.source_length.is_some() && !record.truncated => {
                (record.source_input, Some(record.source_offset))
            }
            Ok(record) => (record.source_input, None),
            Err(skip)
                if matches!(
                    skip.reason,
                    SkipReason::NonPageRecord | SkipReason::TooLarge
                ) =>
            {
                (skip.input, skip.offset)
            }
            Err(skip) => (skip.input, None),
        };
        let Some(places) = self.inputs.get_mut(input as usize) else {
            return;
        };
        match (&mut *places, offset) {
            (InputPlaces::Members(offsets), Some(offset))
                if offsets.last().is_none_or(|&last| last < offset) =>
            {
                offsets.push(offset);
            }
            _ => *places = InputPlaces::InOrder,
        }
    }

    /// These places followed by `later`'s: the places of two reads that met the records of
    /// one read between them, `self`'s first (two parts of [`InputSet::parts`]).
    pub fn append(&mut self, later: RecordPlaces) {
        for (places, later) in self.inputs.iter_mut().zip(later.inputs) {
            match (&mut *places, later) {
                (InputPlaces::Members(offsets), InputPlaces::Members(more))
                    if offsets
                        .last()
                        .zip(more.first())
                        .is_none_or(|(last, first)| last < first) =>
                {
                    offsets.extend(more);
                }
                _ => *places = InputPlaces::InOrder,
            }
        }
    }

    /// Inputs whose items are placed.
    pub fn placed_inputs(&self) -> usize {
        self.inputs
            .iter()
            .filter(|places| matches!(places, InputPlaces::Members(_)))
            .count()
    }
}

/// One item of [`InputSet::placed_records`].
pub enum PlacedItem {
    /// Read in order, as [`InputSet::records`] reads it.
    Read(RecordItem),
    /// An item (a record, or a skip of one) in gzip members of its own, not read yet.
    Member(MemberRecord),
}

impl PlacedItem {
    /// The item, read now if it was not yet.
    pub fn read(self) -> RecordItem {
        match self {
            PlacedItem::Read(item) => item,
            PlacedItem::Member(member) => member.read(),
        }
    }
}

thread_local! {
    /// The buffer this thread's last [`MemberRecord::read`] decoded into: made (and cleared)
    /// once a thread, not once a record.
    static DECODED: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
}

/// The largest decoding buffer a thread keeps between records; one a record over this grew
/// is let go.
const MAX_KEPT_BUFFER: usize = 4 << 20;

/// An item in gzip members of its own in a mapped WARC file: a record, or a record passed
/// over.
pub struct MemberRecord {
    map: Arc<Mmap>,
    input: u32,
    offset: u64,
    /// Where its members end: the next item's offset, or the file's end.
    end: u64,
    max_record_bytes: usize,
}

impl MemberRecord {
    /// Inflates and frames the record: the item [`InputSet::records`] yields for it.
    pub fn read(self) -> RecordItem {
        let MemberRecord {
            map,
            input,
            offset,
            end,
            max_record_bytes,
        } = self;
        let buffer = DECODED.take();
        let stream = Stream::members_between(map, offset, end, buffer);
        let mut records = WarcRecords::new(stream, input, max_record_bytes);
        let item = records.next().unwrap_or_else(|| {
            let message = "no record where the first read found one: the file changed";
            Err(Skip::new(SkipReason::BrokenRecordHeaders, None, message).at(input, Some(offset)))
        });
        let buffer = records.into_buffer();
        if buffer.capacity() <= MAX_KEPT_BUFFER {
            DECODED.set(buffer);
        }
        item
    }

    /// Where it lies.
    pub fn location(&self) -> RecordLocation {
        RecordLocation {
            input: self.input,
            offset: self.offset,
        }
    }
}

impl InputSet {
    /// Empty places, one for each input, for [`RecordPlaces::note`] to fill.
    pub fn record_places(&self) -> RecordPlaces {
        RecordPlaces {
            inputs: vec![InputPlaces::Members(Vec::new()); self.inputs.len()],
        }
    }

    /// The items of [`records`](Self::records), in the same order, where `places` (noted
    /// from every item of a whole read of this set) lets each record of a gzip WARC file be
    /// read later, on its own, as a [`PlacedItem::Member`]. Any other input — a folder's file,
    /// a plain or ARC file, one whose places were lost — is read in order, as
    /// [`records`](Self::records) reads it.
    pub fn placed_records<'a>(
        &'a self,
        places: &'a RecordPlaces,
    ) -> impl Iterator<Item = PlacedItem> + Send + 'a {
        self.inputs.iter().zip(&places.inputs).enumerate().flat_map(
            move |(at, (input, places))| -> Box<dyn Iterator<Item = PlacedItem> + Send + 'a> {
                let number = at as u32;
                let members = match (input, places) {
                    (Input::Warc { path, .. }, InputPlaces::Members(offsets)) => {
                        gzip_warc_map(path).map(|map| (map, offsets))
                    }
                    _ => None,
                };
                match members {
                    Some((map, offsets)) => {
                        let max_record_bytes = self.limits.max_record_bytes;
                        let file_end = map.len() as u64;
                        let ends = offsets.iter().skip(1).copied().chain([file_end]);
                        Box::new(offsets.iter().zip(ends).map(move |(&offset, end)| {
                            PlacedItem::Member(MemberRecord {
                                map: Arc::clone(&map),
                                input: number,
                                offset,
                                end,
                                max_record_bytes,
                            })
                        }))
                    }
                    None => Box::new(
                        Records {
                            inputs: self.inputs[at..=at].iter(),
                            limits: self.limits,
                            current: None,
                            index: number,
                            sample: self.sample.as_deref(),
                        }
                        .map(PlacedItem::Read),
                    ),
                }
            },
        )
    }
}

/// The map of a file that starts as gzip and is not ARC; `None` for any other, and for one
/// that cannot be mapped (read in order, it says why).
fn gzip_warc_map(path: &std::path::Path) -> Option<Arc<Mmap>> {
    let file = File::open(path).ok()?;
    // SAFETY: as in `open_warc`: only read, inputs assumed unchanged during a run.
    let map = unsafe { Mmap::map(&file) }.ok()?;
    (map.starts_with(&[0x1f, 0x8b]) && !starts_like_arc(&map)).then(|| Arc::new(map))
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::read::inputs::test_support::write;
    use crate::read::test_support::{fixture, gzip, record};
    use crate::read::{InputOptions, UrlSample};

    /// The items of one whole read of `inputs`, and those of a second read from the places
    /// the first noted; how many of the second were read as members.
    fn both_reads(inputs: &InputSet) -> (Vec<RecordItem>, Vec<RecordItem>, usize) {
        let mut places = inputs.record_places();
        let first: Vec<RecordItem> = inputs.records().inspect(|item| places.note(item)).collect();
        let mut members = 0;
        let second = inputs
            .placed_records(&places)
            .inspect(|item| members += usize::from(matches!(item, PlacedItem::Member(_))))
            .map(PlacedItem::read)
            .collect();
        (first, second, members)
    }

    fn response(n: usize) -> Vec<u8> {
        let page = format!("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>page {n}</p>");
        record(
            "response",
            &format!("http://a.example/{n}"),
            page.as_bytes(),
        )
    }

    #[test]
    fn a_read_from_places_yields_what_a_read_in_order_does() {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(fixture(""))
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| !path.extension().is_some_and(|e| e == "md" || e == "py"))
            .collect();
        paths.sort();
        let inputs = InputSet::open(&paths, None).unwrap();
        let (first, second, members) = both_reads(&inputs);
        assert_eq!(second, first);
        // The Common Crawl and dolma slices store a record a member.
        assert!(members > 100, "{members} records read as members");

        let sample: UrlSample = (first.iter().filter_map(|item| item.as_ref().ok()))
            .step_by(3)
            .map(|record| record.url.clone())
            .collect();
        let options = InputOptions {
            sample: Some(Arc::new(sample)),
            ..InputOptions::default()
        };
        let sampled = InputSet::open_with(&paths, &options).unwrap();
        let (first, second, members) = both_reads(&sampled);
        assert_eq!(second, first);
        assert!(members > 30, "{members} records read as members");
    }

    #[test]
    fn every_fuzzed_file_reads_the_same_from_its_places() {
        let folder = PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/fuzz/warc_records"
        ));
        let (mut placed, mut files) = (0, 0);
        for entry in std::fs::read_dir(folder).unwrap() {
            let inputs = InputSet::open(&[entry.unwrap().path()], None).unwrap();
            let (first, second, members) = both_reads(&inputs);
            assert_eq!(second, first);
            placed += usize::from(members > 0);
            files += 1;
        }
        // Fuzzed files are damaged: none may be placed unless it reads the same.
        assert!(files > 100, "{placed} of {files} files placed");
    }

    #[test]
    fn records_sharing_a_member_and_damage_leave_a_file_to_be_read_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let mut shared = gzip(&[response(0), response(1)].concat());
        shared.extend(gzip(&response(2)));
        let mut damaged = gzip(&response(3));
        damaged.extend(b"not gzip at all");
        damaged.extend(gzip(&response(4)));
        let mut truncated = gzip(&response(5));
        let whole = gzip(&response(6));
        truncated.extend(&whole[..whole.len() - 9]);
        let mut clean = gzip(&record(
            "request",
            "http://a.example/7",
            b"GET / HTTP/1.1\r\n\r\n",
        ));
        clean.extend(gzip(&response(7)));
        let paths = ["shared", "damaged", "truncated", "clean"]
            .map(|name| dir.path().join(format!("{name}.warc.gz")));
        for (path, bytes) in paths.iter().zip([&shared, &damaged, &truncated, &clean]) {
            write(path, bytes);
        }
        let inputs = InputSet::open(&paths, None).unwrap();
        let mut places = inputs.record_places();
        let first: Vec<RecordItem> = inputs.records().inspect(|item| places.note(item)).collect();
        assert_eq!(places.placed_inputs(), 1, "{places:?}");
        let request_member = clean.len() - gzip(&response(7)).len();
        assert_eq!(
            places.inputs[3],
            InputPlaces::Members(vec![0, request_member as u64])
        );
        let second: Vec<RecordItem> = inputs
            .placed_records(&places)
            .map(PlacedItem::read)
            .collect();
        assert_eq!(second, first);
    }

    #[test]
    fn a_record_no_longer_where_it_was_is_a_skip() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.warc.gz");
        write(&path, &gzip(&response(0)));
        let map = Arc::new(unsafe { Mmap::map(&File::open(&path).unwrap()) }.unwrap());
        let end = map.len() as u64;
        let member = MemberRecord {
            map,
            input: 0,
            offset: end,
            end,
            max_record_bytes: 1 << 20,
        };
        let skip = member.read().unwrap_err();
        assert_eq!(skip.reason, SkipReason::BrokenRecordHeaders);
        assert_eq!(skip.offset, Some(end));
    }
}
