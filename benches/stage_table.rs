//! The stage table (issue 29): CPU time per MB of HTML of each stage of a build — read and
//! inflate, decode, segment, detect, render the kept text, index — each beside what the
//! stage's library does alone on the same bytes, and a whole in-process build beside the
//! stages' sum.
//!
//! ```text
//! cargo bench --bench stage_table -- [--runs N] NAME=PATH[,PATH...] [NAME=PATH ...]
//! cargo bench --bench stage_table -- docs=../shared/corpus/docs articles=../shared/corpus/articles
//! ```
//!
//! A PATH is a WARC file or a folder of them (`*.warc.gz`, `*.warc`). Every stage runs on one
//! thread, over pages already made by the stage before it and held in memory, `--runs` times
//! (default 3); the table gives the median of the process's CPU time (user + system, from
//! `getrusage`, so the index writer's own thread counts) per MB of decoded HTML. The whole
//! build (`build_index`) is timed the same way, with its wall time beside it, at the default
//! segmenting threads (one a core) and at one. A two-pass detector that decides site by site
//! reads its input once more, to count each site's records (`read again` in the stages: the
//! count's read, which decodes records' headers and passes over the blocks it can). A
//! second table gives each detector's floor — the libraries alone on the same bytes: inflate,
//! decode, lol_html with segmentation's handlers, tantivy indexing the kept text — each of our
//! stages as a share of it, and the whole build's ratio to it. Speed goals are judged from
//! these tables and `benches/compare.sh`, never from timed tests.

use std::cell::Cell;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::time::Instant;

use indexer::analyze::{TOKENIZER_NAME, register_tokenizers};
use indexer::detect::{
    Detector, DetectorKind, DetectorSettings, DetectorVisitor, NoPages, Passes, Verdict,
};
use indexer::index::{IndexBuild, IndexedPage};
use indexer::lifecycle::build_index;
use indexer::read::{Blocks, InputSet, Page, Record, page_from_record};
use indexer::run::{BuildOptions, NoProgress};
use indexer::segment::{SegmentLimits, SegmentedPage, segment_with};
use lol_html::html_content::{Element, EndTag, TextChunk};
use lol_html::{HtmlRewriter, MemorySettings, Settings, doc_text, element};
use tantivy::schema::{IndexRecordOption, Schema, TEXT, TextFieldIndexing, TextOptions};
use tantivy::store::{Compressor, ZstdCompressor};
use tantivy::{Index, IndexSettings, TantivyDocument};

const MAX_PAGE_BYTES: usize = 64 << 20;

/// The detectors whose detect, index and whole-build rows the table shows.
const DETECTORS: [(DetectorKind, Passes, &str); 4] = [
    (DetectorKind::None, Passes::One, "none"),
    (DetectorKind::Bloom, Passes::Two, "bloom"),
    (DetectorKind::Hybrid, Passes::Two, "hybrid"),
    (DetectorKind::Hybrid, Passes::One, "hybrid --one-pass"),
];

/// CPU seconds the process has used so far (user and system, every thread).
fn cpu_seconds() -> f64 {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: getrusage fills the struct it is given; RUSAGE_SELF always exists.
    let usage = unsafe {
        libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr());
        usage.assume_init()
    };
    let seconds = |time: libc::timeval| time.tv_sec as f64 + time.tv_usec as f64 / 1e6;
    seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// One measured run: CPU and wall seconds.
#[derive(Clone, Copy)]
struct Took {
    cpu: f64,
    wall: f64,
}

impl Took {
    const ZERO: Took = Took {
        cpu: 0.0,
        wall: 0.0,
    };
}

/// Runs `work` `runs` times (with `prepare` before each, untimed) and returns the median
/// CPU and wall seconds.
fn measure<T, R>(
    runs: usize,
    mut prepare: impl FnMut() -> T,
    mut work: impl FnMut(T) -> R,
) -> Took {
    let mut cpu = Vec::with_capacity(runs);
    let mut wall = Vec::with_capacity(runs);
    for _ in 0..runs {
        let input = prepare();
        let (cpu_before, wall_before) = (cpu_seconds(), Instant::now());
        std::hint::black_box(work(input));
        cpu.push(cpu_seconds() - cpu_before);
        wall.push(wall_before.elapsed().as_secs_f64());
    }
    Took {
        cpu: median(&mut cpu),
        wall: median(&mut wall),
    }
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// The WARC files a PATH names.
fn warc_files(path: &Path) -> Vec<PathBuf> {
    if path.is_file() {
        return vec![path.to_path_buf()];
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(path)
        .unwrap_or_else(|error| panic!("{}: {error}", path.display()))
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|file| {
            let name = file.to_string_lossy();
            name.ends_with(".warc.gz") || name.ends_with(".warc")
        })
        .collect();
    files.sort();
    files
}

fn records(inputs: &[PathBuf]) -> Vec<Record> {
    InputSet::open(inputs, None)
        .expect("inputs open")
        .records()
        .filter_map(Result::ok)
        .collect()
}

/// The records a two-pass read's count meets (headers; blocks left out where the gzip
/// framing allows), each site's counted as the count does.
fn count_sites(inputs: &[PathBuf]) -> usize {
    let mut sites = std::collections::HashSet::new();
    for item in InputSet::open(inputs, None)
        .expect("inputs open")
        .records_with(Blocks::MayBeLeftOut)
    {
        let url = match &item {
            Ok(record) => Some(record.url.as_str()),
            Err(skip) => skip.url.as_deref(),
        };
        if let Some(url) = url {
            sites.insert(indexer::read::site_of(url));
        }
    }
    sites.len()
}

fn pages(records: Vec<Record>) -> Vec<Page> {
    records
        .into_iter()
        .filter_map(|record| page_from_record(record, MAX_PAGE_BYTES).ok())
        .collect()
}

/// Whole gzip files through flate2 (its compiled backend) into nothing.
fn inflate_alone(inputs: &[PathBuf]) -> u64 {
    inputs
        .iter()
        .map(|file| {
            let reader = File::open(file).expect("input opens");
            if file.to_string_lossy().ends_with(".gz") {
                io::copy(
                    &mut flate2::read::MultiGzDecoder::new(reader),
                    &mut io::sink(),
                )
            } else {
                io::copy(&mut io::BufReader::new(reader), &mut io::sink())
            }
            .expect("inflates")
        })
        .sum()
}

/// lol_html over the page with no handlers: what its tag scanner costs.
fn lol_html_bare(html: &str) {
    let mut rewriter = HtmlRewriter::new(Settings::new(), |_: &[u8]| {});
    rewriter.write(html.as_bytes()).expect("parses");
    rewriter.end().expect("parses");
}

/// lol_html over the page with the handlers segmentation registers (every element, its end
/// tag, every text chunk), each doing nothing but count: the tokenizer's floor for our
/// segmentation.
fn lol_html_handlers(html: &str) -> usize {
    let calls = Cell::new(0usize);
    {
        let settings = Settings::new()
            .append_element_content_handler(element!("*", |element: &mut Element| {
                calls.set(calls.get() + 1);
                if element.can_have_content() {
                    element.on_end_tag(Box::new(|_: &mut EndTag| Ok(())))?;
                }
                Ok(())
            }))
            .append_document_content_handler(doc_text!(|chunk: &mut TextChunk| {
                calls.set(calls.get() + chunk.as_str().len().min(1));
                Ok(())
            }))
            .with_memory_settings(MemorySettings::new());
        let mut rewriter = HtmlRewriter::new(settings, |_: &[u8]| {});
        rewriter.write(html.as_bytes()).expect("parses");
        rewriter.end().expect("parses");
    }
    calls.get()
}

/// Segment and detect with one detector, each timed; gives the kept text of every page.
struct SegmentAndDetect<'a> {
    pages: &'a [Page],
    passes: Passes,
    runs: usize,
}

struct Detected {
    segment: Took,
    detect: Took,
    /// The kept text rendered (the layout's lines) from the verdicts.
    render: Took,
    /// Whether the detector's input is read once more, to count each site's records.
    counts_sites: bool,
    /// Each page's title and kept text.
    kept: Vec<(String, String)>,
}

impl DetectorVisitor for SegmentAndDetect<'_> {
    type Output = Detected;

    fn visit<D: Detector>(self, detector: D) -> Detected {
        let limits = SegmentLimits::default();
        let options = detector.segment_options();
        let segment_all = || -> Vec<SegmentedPage> {
            self.pages
                .iter()
                .filter_map(|page| segment_with(page, &limits, options).ok())
                .collect()
        };
        let segment = measure(self.runs, || (), |()| segment_all().len());
        let segmented = segment_all();
        drop(detector);
        let fresh = || -> D {
            let settings = D::Settings::default();
            match self.passes {
                Passes::Two => D::new(settings),
                Passes::One => D::new_one_pass(settings),
            }
        };
        let decide_all = |mut detector: D| -> Vec<Vec<Verdict>> {
            match self.passes {
                Passes::Two => {
                    let observations: Vec<D::Observation> = segmented
                        .iter()
                        .zip(self.pages)
                        .map(|(page, source)| {
                            let observation = detector.observe(page, &source.html);
                            detector.learn(&observation);
                            observation
                        })
                        .collect();
                    segmented
                        .iter()
                        .zip(&observations)
                        .map(|(page, observation)| detector.decide(page, observation, &NoPages))
                        .collect()
                }
                Passes::One => segmented
                    .iter()
                    .zip(self.pages)
                    .map(|(page, source)| {
                        let observation = detector.observe(page, &source.html);
                        let verdicts = detector.decide(page, &observation, &NoPages);
                        detector.learn(&observation);
                        verdicts
                    })
                    .collect(),
            }
        };
        let detect = measure(self.runs, fresh, |detector| decide_all(detector).len());
        let verdicts = decide_all(fresh());
        let kept_texts = || {
            segmented
                .iter()
                .zip(&verdicts)
                .map(|(page, verdicts)| Verdict::kept_text(page, verdicts))
        };
        let render = measure(
            self.runs,
            || (),
            |()| kept_texts().map(|text| text.len()).sum::<usize>(),
        );
        let kept = segmented
            .iter()
            .zip(kept_texts())
            .map(|(page, text)| (page.title.clone(), text))
            .collect();
        Detected {
            segment,
            detect,
            render,
            counts_sites: self.passes == Passes::Two && D::DECIDES_SITE_BY_SITE,
            kept,
        }
    }
}

/// The index writer's buffer in every index row: what a build gives one indexing thread under
/// the default memory budget.
fn writer_heap() -> usize {
    IndexBuild::heap_bytes(1, BuildOptions::default().memory_budget)
}

/// The pages through the product's own index writer (its schema, one indexing thread).
fn index_ours(pages: &[Page], kept: &[(String, String)]) -> u64 {
    let dir = tempfile::tempdir().expect("temporary directory");
    let mut writer = IndexBuild::begin(dir.path(), 1, writer_heap()).expect("index begins");
    for (page, (title, body)) in pages.iter().zip(kept) {
        writer
            .add(&IndexedPage::text(&page.url, &page.site, title, body))
            .expect("page added");
    }
    writer
        .commit(&serde_json::json!({}))
        .expect("index commits");
    pages.len() as u64
}

/// The same text through tantivy alone, one text field, one thread: with tantivy's default
/// tokenizer and nothing stored (`plain`), or with the product's analyzer, positions, and the
/// text stored in a zstd document store as the product's body is.
fn index_alone(kept: &[(String, String)], plain: bool) -> u64 {
    let dir = tempfile::tempdir().expect("temporary directory");
    let mut schema = Schema::builder();
    let options = if plain {
        TEXT
    } else {
        TextOptions::default().set_stored().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(TOKENIZER_NAME)
                .set_index_option(IndexRecordOption::WithFreqsAndPositions),
        )
    };
    let body = schema.add_text_field("body", options);
    let settings = IndexSettings {
        docstore_compression: Compressor::Zstd(ZstdCompressor::default()),
        ..IndexSettings::default()
    };
    let index = Index::builder()
        .schema(schema.build())
        .settings(settings)
        .create_in_dir(dir.path())
        .expect("index created");
    register_tokenizers(index.tokenizers());
    let mut writer = index
        .writer_with_num_threads::<TantivyDocument>(1, writer_heap())
        .expect("writer");
    for (_, text) in kept {
        let mut document = TantivyDocument::default();
        document.add_text(body, text);
        writer.add_document(document).expect("document added");
    }
    writer.commit().expect("commits");
    kept.len() as u64
}

struct Row {
    stage: String,
    ours: Took,
    alone: Option<(String, Took)>,
}

/// One detector's build beside its floor: what the libraries alone cost on the same bytes —
/// inflating the files, decoding the records as UTF-8, lol_html with the handlers
/// segmentation (and the layout of lines and Markdown) needs, tantivy indexing the kept text
/// with our analyzer, stored — and each of our stages beside the whole floor.
struct FloorLine {
    detector: String,
    parts: Vec<(&'static str, Took)>,
    stages: Vec<(&'static str, Took)>,
    whole: Took,
    whole_one_thread: Took,
}

impl FloorLine {
    fn floor(&self) -> f64 {
        self.parts.iter().map(|(_, took)| took.cpu).sum()
    }
}

fn corpus_rows(inputs: &[PathBuf], runs: usize) -> (f64, usize, Vec<Row>, Vec<FloorLine>) {
    let mut rows = Vec::new();
    let mut floors = Vec::new();
    let read = measure(runs, || (), |()| records(inputs).len());
    let count = measure(runs, || (), |()| count_sites(inputs));
    let inflate = measure(runs, || (), |()| inflate_alone(inputs));
    rows.push(Row {
        stage: "read and inflate (WARC records)".into(),
        ours: read,
        alone: Some(("flate2 (zlib-rs) whole files".into(), inflate)),
    });
    rows.push(Row {
        stage: "read again: a two-pass read's count (headers, blocks passed over)".into(),
        ours: count,
        alone: None,
    });
    let decode = measure(runs, || records(inputs), |records| pages(records).len());
    let utf8 = measure(
        runs,
        || records(inputs),
        |records| {
            records
                .iter()
                .map(|record| {
                    encoding_rs::UTF_8
                        .decode_without_bom_handling(&record.block)
                        .0
                        .len()
                })
                .sum::<usize>()
        },
    );
    rows.push(Row {
        stage: "decode (HTTP, charset, text)".into(),
        ours: decode,
        alone: Some(("encoding_rs UTF-8 of the record".into(), utf8)),
    });
    let pages = pages(records(inputs));
    let html_mb = pages.iter().map(|page| page.html.len()).sum::<usize>() as f64 / 1e6;
    let bare = measure(
        runs,
        || (),
        |()| pages.iter().for_each(|p| lol_html_bare(&p.html)),
    );
    let handlers = measure(
        runs,
        || (),
        |()| {
            pages
                .iter()
                .map(|p| lol_html_handlers(&p.html))
                .sum::<usize>()
        },
    );
    let mut segmented_once = false;
    let mut segmented = None;
    for (kind, passes, label) in DETECTORS {
        let detected = kind.visit(
            &DetectorSettings::default(),
            passes,
            SegmentAndDetect {
                pages: &pages,
                passes,
                runs,
            },
        );
        if !segmented_once || passes == Passes::Two {
            segmented = Some(detected.segment);
        }
        if passes == Passes::Two || !segmented_once {
            let alone = if segmented_once {
                None
            } else {
                Some(("lol_html, no handlers".to_string(), bare))
            };
            rows.push(Row {
                stage: format!("segment (as {label} asks)"),
                ours: detected.segment,
                alone,
            });
            if !segmented_once {
                rows.push(Row {
                    stage: String::new(),
                    ours: detected.segment,
                    alone: Some(("lol_html, segmentation's handlers".to_string(), handlers)),
                });
            }
            segmented_once = true;
        }
        rows.push(Row {
            stage: format!("detect: {label}"),
            ours: detected.detect,
            alone: None,
        });
        rows.push(Row {
            stage: format!("render: {label}'s kept text (lines)"),
            ours: detected.render,
            alone: None,
        });
        let ours = measure(runs, || (), |()| index_ours(&pages, &detected.kept));
        let plain = measure(runs, || (), |()| index_alone(&detected.kept, true));
        let analyzed = measure(runs, || (), |()| index_alone(&detected.kept, false));
        rows.push(Row {
            stage: format!("index: {label}'s kept text"),
            ours,
            alone: Some(("tantivy, one text field".into(), plain)),
        });
        rows.push(Row {
            stage: String::new(),
            ours,
            alone: Some((
                "tantivy, one field: our analyzer, stored (zstd)".into(),
                analyzed,
            )),
        });
        let dir = tempfile::tempdir().expect("temporary directory");
        let whole_at = |threads: usize| {
            let options = BuildOptions {
                detector: kind,
                one_pass: passes == Passes::One && kind.passes() == Passes::Two,
                threads,
                ..BuildOptions::default()
            };
            measure(
                runs,
                || (),
                |()| {
                    build_index(inputs, &dir.path().join("index"), &options, &NoProgress)
                        .expect("builds")
                        .pages
                },
            )
        };
        let whole = whole_at(BuildOptions::default().threads);
        let whole_one_thread = whole_at(1);
        rows.push(Row {
            stage: format!("whole build_index: {label} (wall {:.2} s)", whole.wall),
            ours: whole,
            alone: None,
        });
        rows.push(Row {
            stage: format!(
                "whole build_index: {label}, one segmenting thread (wall {:.2} s)",
                whole_one_thread.wall
            ),
            ours: whole_one_thread,
            alone: None,
        });
        floors.push(FloorLine {
            detector: label.to_string(),
            parts: vec![
                ("inflate", inflate),
                ("decode", utf8),
                ("lol_html", handlers),
                ("tantivy", analyzed),
            ],
            stages: vec![
                ("read", read),
                (
                    "read again",
                    if detected.counts_sites {
                        count
                    } else {
                        Took::ZERO
                    },
                ),
                ("decode", decode),
                ("segment", segmented.unwrap_or(detected.segment)),
                ("detect", detected.detect),
                ("render", detected.render),
                ("index", ours),
            ],
            whole,
            whole_one_thread,
        });
    }
    (html_mb, pages.len(), rows, floors)
}

fn main() {
    let mut runs = 3;
    let mut corpora = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--bench" => {}
            "--runs" => runs = args.next().and_then(|n| n.parse().ok()).expect("--runs N"),
            _ => {
                let (name, paths) = arg.split_once('=').expect("NAME=PATH[,PATH...]");
                let files: Vec<PathBuf> = paths
                    .split(',')
                    .flat_map(|path| warc_files(Path::new(path)))
                    .collect();
                corpora.push((name.to_string(), files));
            }
        }
    }
    if corpora.is_empty() {
        let data = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data");
        corpora.push(("data".to_string(), warc_files(&data)));
    }
    for (name, inputs) in corpora {
        let (html_mb, page_count, rows, floors) = corpus_rows(&inputs, runs);
        println!(
            "\n{name}: {} files, {page_count} pages, {html_mb:.1} MB of HTML; CPU ms per MB of HTML, median of {runs}\n",
            inputs.len()
        );
        println!("| stage | ours | the library alone | alone | ours / alone |");
        println!("|---|---:|---|---:|---:|");
        for row in rows {
            let ours = row.ours.cpu * 1000.0 / html_mb;
            match row.alone {
                Some((what, took)) => {
                    let alone = took.cpu * 1000.0 / html_mb;
                    println!(
                        "| {} | {ours:.1} | {what} | {alone:.1} | {:.1}x |",
                        row.stage,
                        ours / alone
                    )
                }
                None => println!("| {} | {ours:.1} | | | |", row.stage),
            }
        }
        let per_mb = |took: &Took| took.cpu * 1000.0 / html_mb;
        println!(
            "\n{name}: each build beside its floor (the libraries alone: inflate, decode, lol_html \
             with segmentation's handlers, tantivy indexing the kept text), CPU ms per MB of HTML\n"
        );
        println!(
            "| detector | floor (inflate + decode + lol_html + tantivy) | read | read again | decode | segment | detect | render | index | stages' sum | whole build | whole / floor | whole, one segmenting thread | its / floor |"
        );
        println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        for line in floors {
            let floor = line.floor() * 1000.0 / html_mb;
            let parts: Vec<String> = line
                .parts
                .iter()
                .map(|(_, took)| format!("{:.1}", per_mb(took)))
                .collect();
            let stages: Vec<String> = line
                .stages
                .iter()
                .map(|(_, took)| format!("{:.1} ({:.2}x)", per_mb(took), per_mb(took) / floor))
                .collect();
            let sum: f64 = line.stages.iter().map(|(_, took)| per_mb(took)).sum();
            let whole = per_mb(&line.whole);
            let one_thread = per_mb(&line.whole_one_thread);
            println!(
                "| {} | {floor:.1} ({}) | {} | {sum:.1} ({:.2}x) | {whole:.1} | {:.2}x | {one_thread:.1} | {:.2}x |",
                line.detector,
                parts.join(" + "),
                stages.join(" | "),
                sum / floor,
                whole / floor,
                one_thread / floor,
            );
        }
    }
}
