//! Throughput of the stages on the committed sample (`data/`): read, segment, bloom's
//! signatures and clustering, and whole index builds with `bloom` and `none`.
//!
//! `cargo bench --bench stages`. Speed goals are judged from these numbers and from
//! `benches/compare.sh`, never from timed unit tests.

use std::path::PathBuf;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use indexer::detect::bloom::{Bloom, BloomSettings};
use indexer::detect::{Detector, DetectorKind, NoPages};
use indexer::lifecycle::build_index;
use indexer::read::{InputSet, Page, page_from_record};
use indexer::run::{BuildOptions, NoProgress};
use indexer::segment::{SegmentLimits, SegmentedPage, segment};

fn sample() -> Vec<PathBuf> {
    ["python311", "rustbook", "scrapy28"]
        .iter()
        .map(|site| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("data/{site}.warc.gz")))
        .collect()
}

fn pages() -> Vec<Page> {
    let inputs = InputSet::open(&sample(), None).expect("sample");
    inputs
        .records()
        .filter_map(Result::ok)
        .filter_map(|record| page_from_record(record, 64 << 20).ok())
        .collect()
}

fn stages(c: &mut Criterion) {
    let inputs = sample();
    let pages = pages();
    let html_bytes: usize = pages.iter().map(|page| page.html.len()).sum();
    let input_bytes = InputSet::open(&inputs, None).expect("sample").total_bytes();

    let mut group = c.benchmark_group("stages");
    group.sample_size(10);

    group.throughput(Throughput::Bytes(input_bytes));
    group.bench_function("read: WARC records and pages", |b| {
        b.iter(|| {
            let set = InputSet::open(&inputs, None).expect("sample");
            set.records()
                .filter_map(Result::ok)
                .filter_map(|record| page_from_record(record, 64 << 20).ok())
                .count()
        })
    });

    group.throughput(Throughput::Bytes(html_bytes as u64));
    group.bench_function("segment", |b| {
        b.iter(|| {
            pages
                .iter()
                .map(|page| {
                    segment(page, &SegmentLimits::default())
                        .expect("segments")
                        .blocks
                        .len()
                })
                .sum::<usize>()
        })
    });

    let segmented: Vec<SegmentedPage> = pages
        .iter()
        .map(|page| segment(page, &SegmentLimits::default()).expect("segments"))
        .collect();
    let blocks: usize = segmented.iter().map(|page| page.blocks.len()).sum();
    group.throughput(Throughput::Elements(blocks as u64));
    group.bench_function("bloom: learn and decide (blocks)", |b| {
        b.iter(|| {
            let mut bloom = Bloom::new(BloomSettings::default());
            for page in &segmented {
                let observation = bloom.observe(page, "");
                bloom.learn(&observation);
            }
            segmented
                .iter()
                .map(|page| bloom.decide(page, &bloom.observe(page, ""), &NoPages).len())
                .sum::<usize>()
        })
    });

    group.throughput(Throughput::Bytes(html_bytes as u64));
    let workdir = tempfile::tempdir().expect("temporary directory");
    for detector in [
        DetectorKind::None,
        DetectorKind::Bloom,
        DetectorKind::Sandwich,
        DetectorKind::TableChunk,
        DetectorKind::Incremental,
        DetectorKind::Menu,
    ] {
        let options = BuildOptions {
            detector,
            ..BuildOptions::default()
        };
        let index = workdir.path().join(detector.name());
        group.bench_function(format!("build data/: {}", detector.name()), |b| {
            b.iter(|| {
                build_index(&inputs, &index, &options, &NoProgress)
                    .expect("builds")
                    .pages
            })
        });
    }
    group.finish();
}

criterion_group!(benches, stages);
criterion_main!(benches);
