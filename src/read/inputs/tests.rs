use super::test_support::write;
use super::*;
use crate::read::test_support::{fixture, gzip, record};
use std::io::Read;

#[test]
fn a_sampled_read_yields_the_sample_s_records_and_every_skip() {
    let dir = tempfile::tempdir().unwrap();
    write(&dir.path().join("a.html"), b"<p>a");
    write(&dir.path().join("b.html"), b"<p>b");
    let paths = [
        fixture("resiliparse-cc2020-slice.warc.gz"),
        dir.path().to_path_buf(),
    ];
    let read = |options: &InputOptions| -> (Vec<String>, usize) {
        let inputs = InputSet::open_with(&paths, options).unwrap();
        let (mut urls, mut skips) = (Vec::new(), 0);
        for item in inputs.records() {
            match item {
                Ok(record) => urls.push(record.url),
                Err(_) => skips += 1,
            }
        }
        (urls, skips)
    };
    let base = InputOptions {
        base_url: Some("http://folder.example/".into()),
        ..InputOptions::default()
    };
    let (every, skips) = read(&base);
    assert!(
        every.len() > 10 && skips > 0,
        "{} records, {skips} skips",
        every.len()
    );
    // Every third URL of the WARC file, and b.html of the folder.
    let chosen: Vec<String> = (every.iter().step_by(3))
        .filter(|url| !url.starts_with("http://folder.example/"))
        .chain(std::iter::once(&"http://folder.example/b.html".to_string()))
        .cloned()
        .collect();
    let sampled = InputOptions {
        sample: Some(Arc::new(chosen.iter().cloned().collect())),
        ..base
    };
    let (kept, sampled_skips) = read(&sampled);
    let expected: Vec<&String> = every.iter().filter(|url| chosen.contains(url)).collect();
    assert_eq!(kept.iter().collect::<Vec<_>>(), expected);
    assert_eq!(
        sampled_skips, skips,
        "skips are not records of a page: all said"
    );
}

#[test]
fn positions_count_the_inputs_before() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.html"), dir.path().join("b.html"));
    write(&a, b"0123456789");
    write(&b, b"01234");
    let inputs = InputSet::open(&[a, b], None).unwrap();
    assert_eq!(inputs.position(0, 4), 4);
    assert_eq!(inputs.position(1, 3), 13);
    assert_eq!(inputs.position(1, 99), 15);
    assert_eq!(inputs.total_bytes(), 15);
}

#[test]
fn records_are_read_again_by_location() {
    let dir = tempfile::tempdir().unwrap();
    write(&dir.path().join("page.html"), b"<p>folder page");
    let paths = [
        fixture("resiliparse-cc2020-slice.warc.gz"),
        fixture("warcio-example-iana.org-chunked.warc"),
        fixture("cc2020-slice.arc.gz"),
        dir.path().to_path_buf(),
    ];
    let inputs = InputSet::open(&paths, None).unwrap();
    let records: Vec<Record> = inputs.records().filter_map(Result::ok).collect();
    assert!(records.len() > 3);
    let mut seen_inputs = std::collections::BTreeSet::new();
    for record in &records {
        seen_inputs.insert(record.source_input);
        let again = inputs
            .record_at(RecordLocation::of(record), &record.url)
            .expect("record found again");
        assert_eq!(&again, record);
    }
    assert_eq!(seen_inputs.len(), 4);
    let first = &records[0];
    assert!(
        inputs
            .record_at(RecordLocation::of(first), "http://not.in.the/input")
            .is_none()
    );
    let nowhere = RecordLocation {
        input: 99,
        offset: 0,
    };
    assert!(inputs.record_at(nowhere, &first.url).is_none());
}

#[test]
fn missing_path_is_named() {
    let missing = PathBuf::from("/no/such/input.warc.gz");
    let error = InputSet::open(std::slice::from_ref(&missing), None).unwrap_err();
    assert!(matches!(error, ReadError::NotFound { .. }));
    assert!(error.to_string().contains("/no/such/input.warc.gz"));
}

#[test]
fn inputs_keep_their_order_and_bad_files_do_not_stop_others() {
    let dir = tempfile::tempdir().unwrap();
    let garbage = dir.path().join("garbage.warc");
    write(&garbage, b"\x00\x01\x02 definitely not WARC");
    let text = dir.path().join("text.warc.gz");
    write(&text, b"hello, plain text\n");
    let empty = dir.path().join("empty.warc");
    write(&empty, b"");
    let paths = [
        garbage.clone(),
        fixture("warcio-example.warc.gz"),
        empty,
        text.clone(),
        fixture("warcio-example-iana.org-chunked.warc"),
    ];
    let inputs = InputSet::open(&paths, None).unwrap();
    let items: Vec<Result<Record, Skip>> = inputs.records().collect();
    let not_warc: Vec<&Skip> = items
        .iter()
        .filter_map(|i| i.as_ref().err())
        .filter(|s| s.reason == SkipReason::NotWarc)
        .collect();
    assert_eq!(not_warc.len(), 2);
    assert_eq!(
        inputs.path_of(not_warc[0].input),
        garbage.display().to_string()
    );
    assert_eq!(
        inputs.path_of(not_warc[1].input),
        text.display().to_string()
    );
    let urls: Vec<&str> = items
        .iter()
        .filter_map(|i| i.as_ref().ok())
        .map(|r| r.url.as_str())
        .collect();
    assert_eq!(urls, ["http://example.com/", "http://www.iana.org/"]);
    assert!(matches!(&items[0], Err(s) if s.reason == SkipReason::NotWarc));
}

#[test]
fn oversized_folder_file_is_too_large() {
    let dir = tempfile::tempdir().unwrap();
    write(&dir.path().join("big.html"), &[b'a'; 100]);
    let mut inputs = InputSet::open(&[dir.path().to_path_buf()], None).unwrap();
    inputs.set_limits(ReadLimits {
        max_record_bytes: 50,
    });
    let skip = inputs.records().next().unwrap().unwrap_err();
    assert_eq!(skip.reason, SkipReason::TooLarge);
}

#[test]
fn records_iterator_is_send() {
    fn assert_send<T: Send>(_: &T) {}
    let inputs = InputSet::open(&[fixture("warcio-example.warc.gz")], None).unwrap();
    assert_send(&inputs.records());
}

#[test]
fn over_cap_warc_record_is_too_large() {
    let options = InputOptions {
        limits: ReadLimits {
            max_record_bytes: 1000,
        },
        ..InputOptions::default()
    };
    let inputs =
        InputSet::open_with(&[fixture("warcio-example-iana.org-chunked.warc")], &options).unwrap();
    let reasons: Vec<SkipReason> = inputs
        .records()
        .map(|item| item.unwrap_err().reason)
        .collect();
    assert_eq!(
        reasons,
        [
            SkipReason::NonPageRecord,
            SkipReason::TooLarge,
            SkipReason::NonPageRecord
        ]
    );
}

/// Reads `halves` (parts of two) as a caller must: the first half up to the cut and the
/// second whole, or, when they do not join, the first half on to its end. The items read,
/// and whether the halves joined.
fn read_in_halves(halves: Parts<'_>) -> (Vec<RecordItem>, bool) {
    let Parts { mut first, later } = halves;
    let [(cut, second)]: [_; 1] = later.try_into().ok().expect("two parts");
    let second: Vec<RecordItem> = second.collect();
    let mut items = Vec::new();
    let mut reached = None;
    for item in first.by_ref() {
        if cut.reached(&item) {
            reached = Some(item);
            break;
        }
        items.push(item);
    }
    let joins = cut.joins(reached.as_ref(), second.first());
    if joins {
        items.extend(second);
    } else {
        items.extend(reached);
        items.extend(first);
    }
    (items, joins)
}

/// The decompressed bytes of a fixture.
fn inflated(name: &str) -> Vec<u8> {
    let mut bytes = Vec::new();
    flate2::read::MultiGzDecoder::new(File::open(fixture(name)).unwrap())
        .read_to_end(&mut bytes)
        .unwrap();
    bytes
}

#[test]
fn halves_read_apart_meet_every_record_once_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain.warc");
    write(&plain, &inflated("dolma-sample-0000.warc.gz"));
    let one_member = dir.path().join("one-member.warc.gz");
    write(&one_member, &gzip(&inflated("dolma-sample-0000.warc.gz")));
    let cases: [(Vec<PathBuf>, Option<bool>); 6] = [
        // Gzip, one member a record: cut at a member, and the halves join.
        (vec![fixture("dolma-sample-0000.warc.gz")], Some(true)),
        // Plain: cut at a version line after a blank line.
        (vec![plain], Some(true)),
        // Two files: cut between them.
        (
            vec![
                fixture("dolma-sample-0000.warc.gz"),
                fixture("dolma-sample-0001.warc.gz"),
            ],
            Some(true),
        ),
        // One member for the whole file: no record starts at a member of its middle.
        (vec![one_member], Some(false)),
        // ClueWeb's quirks, and ARC (never cut inside).
        (vec![fixture("resiliparse-clueweb-quirk.warc.gz")], None),
        (vec![fixture("cc2020-slice.arc.gz")], None),
    ];
    for (paths, expected_join) in cases {
        let inputs = InputSet::open(&paths, None).unwrap();
        let whole: Vec<RecordItem> = inputs.records().collect();
        assert!(whole.len() >= 5, "{paths:?}: {} items", whole.len());
        let Some(halves) = inputs.parts_from(2, 1, Blocks::Read) else {
            assert_ne!(expected_join, Some(true), "{paths:?} was not cut");
            continue;
        };
        let cut = halves.later[0].0;
        let (items, joined) = read_in_halves(halves);
        assert_eq!(items, whole, "{paths:?}, cut {cut:?}");
        if let Some(expected) = expected_join {
            assert_eq!(joined, expected, "{paths:?}, cut {cut:?}");
        }
        if paths.len() == 2 {
            assert_eq!(cut, Cut::Input(1));
        }
    }
}

#[test]
fn a_member_that_starts_inside_a_record_is_a_cut_the_halves_do_not_join_at() {
    // The third record's page quotes a WARC record, and a gzip member starts at the quote.
    let page =
        |n: usize| format!("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<p>page {n}</p>");
    let response =
        |n: usize, block: &[u8]| record("response", &format!("http://site.example/{n}"), block);
    let quoted = "WARC/1.0\r\nWARC-Type: response\r\nWARC-Target-URI: http://quoted.example/\r\nContent-Length: 2\r\n\r\nhi\r\n\r\n";
    let mut file = Vec::new();
    let mut quote_member = 0;
    for n in 0..6 {
        if n == 2 {
            let block = format!("{}<pre>{quoted}</pre>", page(n));
            let whole = response(n, block.as_bytes());
            let at = whole.windows(5).rposition(|w| w == b"WARC/").unwrap();
            file.extend(gzip(&whole[..at]));
            quote_member = file.len() as u64;
            file.extend(gzip(&whole[at..]));
        } else {
            file.extend(gzip(&response(n, page(n).as_bytes())));
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("quoting.warc.gz");
    write(&path, &file);
    let map = unsafe { Mmap::map(&File::open(&path).unwrap()) }.unwrap();
    assert_eq!(
        record_start_near(&map, quote_member as usize - 1),
        Some(quote_member)
    );

    let inputs = InputSet::open(std::slice::from_ref(&path), None).unwrap();
    let whole: Vec<RecordItem> = inputs.records().collect();
    let second = inputs.records_after(
        1,
        Some(FileRecords::starting_at(map, quote_member, 0, 1 << 20)),
        Blocks::Read,
    );
    let cut = Cut::Within(RecordLocation {
        input: 0,
        offset: quote_member,
    });
    let halves = Parts {
        first: Box::new(inputs.records()),
        later: vec![(cut, Box::new(second))],
    };
    let (items, joined) = read_in_halves(halves);
    assert!(!joined);
    assert_eq!(items, whole);
    assert_eq!(whole.iter().filter(|item| item.is_ok()).count(), 6);
}

/// The items of `path` read with `blocks`, each record's block taken out: (items, how many
/// records came with an empty block).
fn items_without_blocks(path: &Path, blocks: Blocks) -> (Vec<RecordItem>, usize) {
    let inputs = InputSet::open(&[path.to_path_buf()], None).unwrap();
    let mut empty = 0;
    let items = inputs
        .records_with(blocks)
        .map(|item| {
            item.map(|mut record| {
                empty += usize::from(record.block.is_empty());
                record.block = Vec::new();
                record
            })
        })
        .collect();
    (items, empty)
}

#[test]
fn blocks_left_out_leave_every_item_as_it_was() {
    let mut left_out = 0;
    for entry in std::fs::read_dir(fixture("")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !(name.ends_with(".gz") || name.ends_with(".warc")) {
            continue;
        }
        let (read, empty_read) = items_without_blocks(&path, Blocks::Read);
        let (framed, empty_framed) = items_without_blocks(&path, Blocks::MayBeLeftOut);
        assert_eq!(read, framed, "{name}");
        left_out += empty_framed - empty_read;
    }
    // The Common Crawl, ClueWeb and Dolma slices hold a gzip member per record: the blocks
    // of their pages are passed over (82 of them), all but those read with the headers.
    assert!(left_out > 60, "{left_out} blocks left out");
}

#[test]
fn a_left_out_block_is_not_checked() {
    let dir = tempfile::tempdir().unwrap();
    let body: Vec<u8> = (0..20_000u32)
        .flat_map(|i| format!("<p>line {i}</p>\n").into_bytes())
        .collect();
    let first = gzip(&record("response", "http://a.example/", &body));
    let second = gzip(&record(
        "response",
        "http://b.example/",
        b"HTTP/1.1 200 OK\r\n\r\n<p>b",
    ));
    let mut damaged = first.clone();
    // A byte of the member's stored checksum.
    let crc = damaged.len() - 8;
    damaged[crc] ^= 0xff;
    let path = dir.path().join("a.warc.gz");
    for (file, checked) in [(&first, false), (&damaged, true)] {
        write(&path, &[file.as_slice(), &second].concat());
        let (read, _) = items_without_blocks(&path, Blocks::Read);
        let (framed, empty) = items_without_blocks(&path, Blocks::MayBeLeftOut);
        assert_eq!(
            empty, 1,
            "the large block is passed over, the small one already read"
        );
        assert_eq!(framed[1], read[1]);
        let framed_url = framed[0].as_ref().map(|record| record.url.clone());
        assert_eq!(framed_url.as_deref(), Ok("http://a.example/"));
        match &read[0] {
            Err(skip) if checked => {
                assert_eq!(skip.reason, SkipReason::BadCompression);
                assert_eq!(skip.url.as_deref(), Some("http://a.example/"));
            }
            item => assert_eq!(item, &framed[0]),
        }
    }
}

#[test]
fn blocks_left_out_of_damaged_files_miss_no_record_a_read_meets() {
    // A count of each site's records must not fall short of what the read after it meets
    // (a site would be decided before its last page). Where a member is damaged, decoding
    // it in small steps gives the reader the part before the damage, which a larger step
    // throws away with it: on these files the count meets more, or the same.
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fuzz/warc_records");
    let (mut files, mut same) = (0, 0);
    for entry in std::fs::read_dir(folder).unwrap() {
        let path = entry.unwrap().path();
        let (read, _) = items_without_blocks(&path, Blocks::Read);
        let (framed, _) = items_without_blocks(&path, Blocks::MayBeLeftOut);
        let per_site = |items: &[RecordItem]| {
            let mut sites: std::collections::HashMap<String, usize> = Default::default();
            for item in items {
                let url = match item {
                    Ok(record) => Some(&record.url),
                    Err(skip) => skip.url.as_ref(),
                };
                if let Some(url) = url {
                    *sites.entry(crate::read::site_of(url)).or_default() += 1;
                }
            }
            sites
        };
        let framed_sites = per_site(&framed);
        for (site, records) in per_site(&read) {
            let counted = framed_sites.get(&site).copied().unwrap_or(0);
            assert!(counted >= records, "{}: {site}", path.display());
        }
        same += usize::from(read == framed);
        files += 1;
    }
    assert!(files > 100, "{same} of {files} files read the same");
    assert!(
        same * 10 > files * 8,
        "{same} of {files} files read the same"
    );
}
