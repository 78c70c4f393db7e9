//! How much of a page's kept text `extract`'s language detection should read: whatlang over
//! the first N bytes of each text, for several N, timed and compared with the largest N.
//!
//! ```text
//! cargo bench --bench language_sample -- [--runs R] [--sizes 1024,4096,16384] [--write DIR] PAGES.jsonl...
//! ```
//!
//! PAGES are `extract` JSON lines (their `text` is read; `--no-lang` output will do). For each
//! sample size the table gives the CPU time of detecting every page's language (this thread,
//! median of `--runs`, default 5), the share of pages whose code agrees with the largest
//! size's, the mean difference of the confidence, and how many pages cross the 0.65 and 0.8
//! confidence filters (`extract --lang CODE:SCORE`) one way or the other. `--write DIR` writes
//! `DIR/pages-N.jsonl` (the pages with `lang` and `language_score` of size N) for
//! `benches/lang_accuracy.py`. Speed goals are read from tables like this one, never from
//! timed tests.

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::PathBuf;

use indexer::output::detect_language_in;

/// The CPU time this thread has used, in seconds.
fn thread_cpu_seconds() -> f64 {
    let mut time = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `time` is a valid timespec for the call to write into.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut time) };
    time.tv_sec as f64 + time.tv_nsec as f64 * 1e-9
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

fn main() {
    let mut runs = 5;
    let mut sizes = vec![1024, 2048, 4096, 8192, 16384];
    let mut write = None;
    let mut inputs = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--bench" => {}
            "--runs" => runs = args.next().and_then(|n| n.parse().ok()).expect("--runs R"),
            "--sizes" => {
                sizes = args
                    .next()
                    .expect("--sizes N,N,...")
                    .split(',')
                    .map(|n| n.parse().expect("a size in bytes"))
                    .collect();
                sizes.sort_unstable();
            }
            "--write" => write = Some(PathBuf::from(args.next().expect("--write DIR"))),
            _ => inputs.push(PathBuf::from(arg)),
        }
    }
    assert!(!inputs.is_empty(), "give extract's JSON lines");
    let mut pages: Vec<serde_json::Value> = Vec::new();
    for input in &inputs {
        let reader = BufReader::new(File::open(input).expect("PAGES.jsonl"));
        for line in reader.lines() {
            pages.push(serde_json::from_str(&line.expect("a line")).expect("a JSON line"));
        }
    }
    let texts: Vec<&str> = pages
        .iter()
        .map(|page| page["text"].as_str().unwrap_or(""))
        .collect();
    let bytes: usize = texts.iter().map(|text| text.len()).sum();
    let longest = *sizes.last().expect("a size");
    let reference: Vec<_> = texts
        .iter()
        .map(|text| detect_language_in(text, longest))
        .collect();
    let with_text = texts.iter().filter(|text| !text.is_empty()).count();
    let past: Vec<usize> = sizes
        .iter()
        .map(|&size| texts.iter().filter(|text| text.len() > size).count())
        .collect();
    println!(
        "{} pages ({with_text} with text, {:.1} MB); CPU ms of detecting them all, median of {runs}\n",
        texts.len(),
        bytes as f64 / 1e6
    );
    println!(
        "| sample bytes | pages longer | CPU ms | code as at {longest} | mean confidence difference | crossing 0.65 | crossing 0.8 |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|");
    for (&size, &longer) in sizes.iter().zip(&past) {
        let mut times = Vec::with_capacity(runs);
        let mut detected = Vec::new();
        for _ in 0..runs {
            let start = thread_cpu_seconds();
            detected = texts
                .iter()
                .map(|text| detect_language_in(text, size))
                .collect();
            times.push(thread_cpu_seconds() - start);
        }
        let (mut same, mut difference, mut crossing_65, mut crossing_80) = (0, 0.0, 0, 0);
        for (now, then) in detected.iter().zip(&reference) {
            match (now, then) {
                (Some(now), Some(then)) => {
                    same += usize::from(now.code == then.code);
                    difference += (now.score - then.score).abs();
                    crossing_65 += usize::from((now.score >= 0.65) != (then.score >= 0.65));
                    crossing_80 += usize::from((now.score >= 0.8) != (then.score >= 0.8));
                }
                (None, None) => same += 1,
                _ => {}
            }
        }
        println!(
            "| {size} | {longer} | {:.1} | {same} / {} | {:.4} | {crossing_65} | {crossing_80} |",
            median(times) * 1e3,
            texts.len(),
            difference / texts.len() as f64,
        );
        if let Some(dir) = &write {
            std::fs::create_dir_all(dir).expect("--write DIR");
            let path = dir.join(format!("pages-{size}.jsonl"));
            let mut out = BufWriter::new(File::create(&path).expect("a pages file"));
            for (page, language) in pages.iter().zip(&detected) {
                let mut page = page.clone();
                page["lang"] = language.map_or(serde_json::Value::Null, |l| l.code.into());
                page["language_score"] =
                    language.map_or(serde_json::Value::Null, |l| l.score.into());
                serde_json::to_writer(&mut out, &page).expect("write");
                out.write_all(b"\n").expect("write");
            }
        }
    }
}
