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
use rustc_hash::FxHashMap;

use super::{Input, InputSet, RecordItem, RecordLocation, Records};
use crate::read::arc::starts_like_arc;
use crate::read::source::Stream;
use crate::read::warc::WarcRecords;
use crate::read::{Skip, SkipReason};

/// What a first read of an [`InputSet`] found of where each input's items lie.
///
/// It holds at most a given number of places ([`PLACE_BYTES`] each): an input whose place
/// finds no room left is read in order, and lets go of the places it held.
#[derive(Debug, Clone)]
pub struct RecordPlaces {
    /// The inputs of which an item was noted; an input with none has nothing to read.
    inputs: FxHashMap<u32, InputPlaces>,
    /// Places held room for (the offsets' capacity), of all inputs.
    held: usize,
    /// Places that may be held.
    most: usize,
}

/// Places are the same when they place the same items, whatever room each had left.
impl PartialEq for RecordPlaces {
    fn eq(&self, other: &Self) -> bool {
        self.inputs == other.inputs
    }
}

impl Eq for RecordPlaces {}

/// Places an input's offsets grow by at least, when they grow.
const MIN_GROWTH: usize = 4;

/// Bytes of memory one place takes.
pub const PLACE_BYTES: usize = std::mem::size_of::<u64>();

/// One input's items, as [`RecordPlaces`] holds them.
#[derive(Debug, Clone, PartialEq, Eq)]
enum InputPlaces {
    /// The offsets of its items so far, increasing: an item lies in the gzip members from
    /// its offset to the next item's (or to the file's end).
    Members(Vec<u64>),
    /// Items that cannot be read one by one from where they start (or no room was left for
    /// their places): read again in order.
    InOrder,
}

impl InputPlaces {
    /// Makes the input one read in order; the room for places it let go of.
    fn read_in_order(&mut self) -> usize {
        match std::mem::replace(self, InputPlaces::InOrder) {
            InputPlaces::Members(offsets) => offsets.capacity(),
            InputPlaces::InOrder => 0,
        }
    }
}

impl RecordPlaces {
    /// Empty places that hold at most `most` items' places.
    pub fn holding_at_most(most: usize) -> Self {
        RecordPlaces {
            inputs: FxHashMap::default(),
            held: 0,
            most,
        }
    }

    /// Empty places for one of `parts` parts of a read, with that part's share of the room:
    /// the parts' places [`append`](Self::append)ed hold at most what these could.
    pub fn share(&self, parts: usize) -> Self {
        RecordPlaces::holding_at_most(self.most / parts.max(1))
    }

    /// Adds the next item of the read. An input stays placed while every item of it lies in
    /// gzip members of its own, each at an offset past the one before: a whole record (not
    /// cut short) with a range of its own ([`Record::source_length`]), or the skip of a
    /// record passed over on purpose that [`Skip::readable_alone`] says can be read alone.
    /// Records that share a gzip member, junk, damage, resynchronising and whole-file skips
    /// all leave the input to be read in order.
    ///
    /// [`Record::source_length`]: crate::read::Record::source_length
    pub fn note(&mut self, item: &RecordItem) {
        let (input, offset) = match item {
            Ok(record) if record.source_length.is_some() && !record.truncated => {
                (record.source_input, Some(record.source_offset))
            }
            Ok(record) => (record.source_input, None),
            Err(skip) if skip.readable_alone => (skip.input, skip.offset),
            Err(skip) => (skip.input, None),
        };
        let places = self
            .inputs
            .entry(input)
            .or_insert(InputPlaces::Members(Vec::new()));
        let placed = match (&mut *places, offset) {
            (InputPlaces::Members(offsets), Some(offset))
                if offsets.last().is_none_or(|&last| last < offset) =>
            {
                // Grown by hand, so that what the offsets take never passes the room.
                if offsets.len() == offsets.capacity() {
                    let before = offsets.capacity();
                    offsets.reserve_exact(offsets.len().max(MIN_GROWTH).min(self.most - self.held));
                    self.held += offsets.capacity() - before;
                }
                let room = offsets.len() < offsets.capacity();
                if room {
                    offsets.push(offset);
                }
                room
            }
            _ => false,
        };
        if !placed {
            self.held -= places.read_in_order();
        }
    }

    /// These places followed by `later`'s: the places of two reads that met the records of
    /// one read between them, `self`'s first (two parts of [`InputSet::parts`]).
    pub fn append(&mut self, later: RecordPlaces) {
        self.most = self.most.saturating_add(later.most);
        self.held += later.held;
        for (input, later) in later.inputs {
            let places = self
                .inputs
                .entry(input)
                .or_insert(InputPlaces::Members(Vec::new()));
            match (&mut *places, later) {
                (InputPlaces::Members(offsets), InputPlaces::Members(more))
                    if offsets
                        .last()
                        .zip(more.first())
                        .is_none_or(|(last, first)| last < first) =>
                {
                    let before = offsets.capacity() + more.capacity();
                    offsets.reserve_exact(more.len());
                    offsets.extend(more);
                    self.held = self.held + offsets.capacity() - before;
                }
                (_, mut later) => {
                    self.held -= places.read_in_order() + later.read_in_order();
                }
            }
        }
    }

    /// Places that may be held.
    pub fn room(&self) -> usize {
        self.most
    }

    /// Lets these places hold up to `most` (a part of a read that reads on past its share).
    pub fn widen(&mut self, most: usize) {
        self.most = self.most.max(most);
    }

    /// Places held room for, of all inputs.
    pub fn held(&self) -> usize {
        self.held
    }

    /// Inputs whose items are placed.
    #[cfg(test)]
    pub(crate) fn placed_inputs(&self) -> usize {
        self.inputs
            .values()
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
    /// The items of [`records`](Self::records), in the same order, where `places` (noted
    /// from every item of a whole read of this set) lets each record of a gzip WARC file be
    /// read later, on its own, as a [`PlacedItem::Member`]. Any other input — a folder's file,
    /// a plain or ARC file, one whose places were lost — is read in order, as
    /// [`records`](Self::records) reads it.
    pub fn placed_records<'a>(
        &'a self,
        places: &'a RecordPlaces,
    ) -> impl Iterator<Item = PlacedItem> + Send + 'a {
        const NOTHING: &InputPlaces = &InputPlaces::Members(Vec::new());
        self.inputs.iter().enumerate().flat_map(
            move |(at, input)| -> Box<dyn Iterator<Item = PlacedItem> + Send + 'a> {
                let number = at as u32;
                let places = places.inputs.get(&number).unwrap_or(NOTHING);
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
                            blocks: super::Blocks::Read,
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
    use crate::read::{InputOptions, Record, UrlSample};

    /// The items of a read of `inputs` in order, and those of a read from the places a
    /// two-pass run notes (those of its count, which leaves blocks out where it can); how
    /// many of the second were read as members.
    fn both_reads(inputs: &InputSet) -> (Vec<RecordItem>, Vec<RecordItem>, usize) {
        let mut places = RecordPlaces::holding_at_most(usize::MAX);
        for item in inputs.records_with(super::super::Blocks::MayBeLeftOut) {
            places.note(&item);
        }
        let first: Vec<RecordItem> = inputs.records().collect();
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
        let mut places = RecordPlaces::holding_at_most(usize::MAX);
        let first: Vec<RecordItem> = inputs.records().inspect(|item| places.note(item)).collect();
        assert_eq!(places.placed_inputs(), 1, "{places:?}");
        let request_member = clean.len() - gzip(&response(7)).len();
        assert_eq!(
            places.inputs[&3],
            InputPlaces::Members(vec![0, request_member as u64])
        );
        let second: Vec<RecordItem> = inputs
            .placed_records(&places)
            .map(PlacedItem::read)
            .collect();
        assert_eq!(second, first);
    }

    #[test]
    fn places_past_the_room_leave_their_input_in_order() {
        let dir = tempfile::tempdir().unwrap();
        // Three files of four records, each record in a gzip member of its own.
        let paths: Vec<PathBuf> = (0..3)
            .map(|file| {
                let path = dir.path().join(format!("{file}.warc.gz"));
                let bytes: Vec<u8> = (0..4).flat_map(|n| gzip(&response(file * 4 + n))).collect();
                write(&path, &bytes);
                path
            })
            .collect();
        let inputs = InputSet::open(&paths, None).unwrap();
        // What the offsets take: `held` must say it, and stay within the room.
        let room_taken = |places: &RecordPlaces| -> usize {
            places
                .inputs
                .values()
                .map(|places| match places {
                    InputPlaces::Members(offsets) => offsets.capacity(),
                    InputPlaces::InOrder => 0,
                })
                .sum()
        };
        let read_with_room = |most: usize| {
            let mut places = RecordPlaces::holding_at_most(most);
            let first: Vec<RecordItem> = inputs
                .records()
                .inspect(|item| {
                    places.note(item);
                    assert_eq!(places.held(), room_taken(&places));
                    assert!(places.held() <= most);
                })
                .collect();
            let second: Vec<RecordItem> = inputs
                .placed_records(&places)
                .map(PlacedItem::read)
                .collect();
            assert_eq!(second, first, "room for {most}");
            places
        };
        assert_eq!(read_with_room(usize::MAX).placed_inputs(), 3);
        assert_eq!(read_with_room(12).held(), 12);
        // Room for six: the first file takes four; the second's third place finds none, so
        // the second is read in order and lets go of its two, and so is the third.
        let six = read_with_room(6);
        assert_eq!((six.placed_inputs(), six.held()), (1, 4));
        assert!(six.inputs[&1] == InputPlaces::InOrder && six.inputs[&2] == InputPlaces::InOrder);
        assert_eq!(read_with_room(0).placed_inputs(), 0);

        // Parts share the room, and what they hold put together is what a part holds.
        let items: Vec<RecordItem> = inputs.records().collect();
        let in_two_parts = |most: usize| {
            let room = RecordPlaces::holding_at_most(most);
            let (mut first_part, mut second_part) = (room.share(2), room.share(2));
            items[..6].iter().for_each(|item| first_part.note(item));
            items[6..].iter().for_each(|item| second_part.note(item));
            let held = (first_part.held(), second_part.held());
            first_part.append(second_part);
            assert!(first_part.held() <= most);
            assert_eq!(first_part.held(), room_taken(&first_part));
            (held, first_part.held(), first_part.placed_inputs())
        };
        // Room for six a part: the first part holds the first file and two of the second's;
        // the second part the second file's other two (room for four: its offsets grow by four
        // at least) and then no room for the third file's third.
        assert_eq!(in_two_parts(12), ((6, 4), 8, 2));
        // Room for five a part: the second file is let go of in the first part, so its places
        // in the second part go when the two are put together; so is the third file.
        assert_eq!(in_two_parts(10), ((4, 4), 4, 1));
    }

    /// Writes each file of `files` (name, bytes) and reads them all both ways: the items
    /// must be the same; returns them, and how many inputs were placed.
    fn read_both_ways(
        files: &[(&str, Vec<u8>)],
        sample: Option<&[&str]>,
    ) -> (Vec<RecordItem>, usize) {
        let dir = tempfile::tempdir().unwrap();
        let paths: Vec<PathBuf> = files
            .iter()
            .map(|(name, bytes)| {
                let path = dir.path().join(name);
                write(&path, bytes);
                path
            })
            .collect();
        let options = InputOptions {
            sample: sample.map(|urls| Arc::new(urls.iter().map(|url| url.to_string()).collect())),
            ..InputOptions::default()
        };
        let inputs = InputSet::open_with(&paths, &options).unwrap();
        let mut places = RecordPlaces::holding_at_most(usize::MAX);
        let first: Vec<RecordItem> = inputs.records().inspect(|item| places.note(item)).collect();
        let second: Vec<RecordItem> = inputs
            .placed_records(&places)
            .map(PlacedItem::read)
            .collect();
        assert_eq!(second, first);
        (first, places.placed_inputs())
    }

    #[test]
    fn members_cut_inside_records_leave_the_file_in_order() {
        // Members cut at fixed sizes, as BGZF does: the second member holds the end of the
        // first record and the start of the second.
        let both = [response(0), response(1), response(2)].concat();
        let first_record = response(0).len();
        let cut = first_record - 10;
        let mut file = gzip(&both[..cut]);
        let second_member = file.len() as u64;
        file.extend(gzip(&both[cut..first_record + response(1).len()]));
        file.extend(gzip(&both[first_record + response(1).len()..]));
        let (items, placed) = read_both_ways(&[("bgzf.warc.gz", file)], None);
        assert_eq!(placed, 0);
        let records: Vec<&Record> = items.iter().filter_map(|item| item.as_ref().ok()).collect();
        assert_eq!(records.len(), 3);
        // Neither of the two records the second member holds part of has a range of its own.
        assert_eq!(records[0].source_length, None);
        assert_eq!(
            (records[1].source_offset, records[1].source_length),
            (second_member, None)
        );
        assert!(records[2].source_length.is_some());
    }

    #[test]
    fn junk_after_a_record_passed_over_leaves_the_file_in_order() {
        let request = |n: usize| {
            record(
                "request",
                &format!("http://a.example/{n}"),
                b"GET / HTTP/1.1\r\n\r\n",
            )
        };
        // A request whose Content-Length stops two bytes short, then a response in a member
        // of its own.
        let mut short = record("request", "http://a.example/0", b"GET / HTTP/1.1\r\n\r\nab");
        let length_line = short
            .windows(18)
            .position(|w| w == b"Content-Length: 20")
            .unwrap();
        short[length_line + 16..length_line + 18].copy_from_slice(b"18");
        let mut file = gzip(&short);
        file.extend(gzip(&response(0)));
        let (_, placed) = read_both_ways(&[("short.warc.gz", file)], None);
        assert_eq!(placed, 0);
        // Junk at the start of the member after a request.
        let mut file = gzip(&request(1));
        file.extend(gzip(&[b"junk\n".as_slice(), &response(1)].concat()));
        let (items, placed) = read_both_ways(&[("junk.warc.gz", file)], None);
        assert_eq!(placed, 0);
        assert_eq!(items.iter().filter(|item| item.is_ok()).count(), 1);
    }

    #[test]
    fn a_sampled_record_sharing_a_member_with_one_left_out_is_read_in_order() {
        let file = gzip(&[response(0), response(1)].concat());
        let (items, placed) =
            read_both_ways(&[("one.warc.gz", file)], Some(&["http://a.example/1"]));
        assert_eq!(placed, 0);
        assert_eq!(items.len(), 1);
        let mut file = gzip(&response(2));
        file.extend(gzip(&response(3)));
        let (items, placed) =
            read_both_ways(&[("two.warc.gz", file)], Some(&["http://a.example/3"]));
        assert_eq!((items.len(), placed), (1, 1));
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
