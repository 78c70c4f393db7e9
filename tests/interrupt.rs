//! End to end: builds stopped by SIGINT or killed by SIGKILL at many points leave the
//! previous index intact and searchable, and leave nothing a later build cannot clean up.
#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

use serde_json::Value;

mod common;
use common::{NO_INPUTS, indexer, sample};

fn spawn_build(index: &Path, inputs: &[PathBuf], extra: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_indexer"))
        .args(["build", "--detector", "bloom", "--index"])
        .arg(index)
        .args(extra)
        .args(inputs)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start indexer")
}

fn signal(child: &Child, name: &str) {
    let status = Command::new("kill")
        .args([name, &child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(status.success());
}

/// The sample, given many times over: a build long enough to be stopped part way.
fn long_input() -> Vec<PathBuf> {
    (0..40).flat_map(|_| sample()).collect()
}

fn documents(index: &Path) -> u64 {
    let out = indexer(&["stats", index.to_str().unwrap(), "--json"], NO_INPUTS);
    assert!(
        out.status.success(),
        "stats failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stats: Value = serde_json::from_slice(&out.stdout).unwrap();
    stats["build"]["pages"].as_u64().unwrap()
}

fn assert_searchable(index: &Path) {
    let out = indexer(
        &[
            "search",
            index.to_str().unwrap(),
            "ownership rules",
            "--json",
        ],
        NO_INPUTS,
    );
    assert!(
        out.status.success(),
        "search failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let results: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(!results["hits"].as_array().unwrap().is_empty());
}

fn entries_named(index: &Path, prefix: &str) -> usize {
    std::fs::read_dir(index)
        .unwrap()
        .filter(|entry| {
            entry
                .as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with(prefix)
        })
        .count()
}

fn generations(index: &Path) -> usize {
    entries_named(index, "gen-")
}

/// Waits until the build `child` has made its new generation beside the live one of `index`
/// (it then holds the index's lock, and its Ctrl-C handler is in place); fails if the build
/// ends first or after a minute.
fn wait_for_new_generation(child: &mut Child, index: &Path) {
    let started = Instant::now();
    while generations(index) < 2 {
        if let Some(status) = child.try_wait().unwrap() {
            let mut stderr = String::new();
            std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
            panic!("the build ended ({status}) before making its generation: {stderr}");
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "no new generation in {} after 60 s",
            index.display()
        );
        sleep(Duration::from_millis(1));
    }
}

fn fresh_index(name: &str) -> PathBuf {
    let index = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("{name}-{}", std::process::id()))
        .join("index");
    let out = indexer(&["build", "--index", index.to_str().unwrap()], &sample());
    assert!(out.status.success());
    assert_eq!(documents(&index), 100);
    index
}

#[test]
fn sigint_stops_a_build_cleanly_and_keeps_the_previous_index() {
    let index = fresh_index("sigint");
    let mut child = spawn_build(&index, &long_input(), &[]);
    wait_for_new_generation(&mut child, &index);
    signal(&child, "-INT");
    let started = Instant::now();
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    assert!(started.elapsed() < Duration::from_secs(30));
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("interrupted"), "{stderr}");
    assert!(stderr.contains("previous index"), "{stderr}");
    assert_eq!(documents(&index), 100);
    assert_searchable(&index);
    assert_eq!(
        generations(&index),
        1,
        "the stopped build's generation was removed"
    );
}

#[test]
fn sigkill_at_any_point_leaves_the_previous_index_intact() {
    let index = fresh_index("sigkill");
    let input = long_input();
    // Kill points spread over the build (which takes a few seconds), from its first
    // milliseconds (opening the index, taking the lock) to its end.
    // Jitter from the process id: each run kills at other points.
    let jitter = u64::from(std::process::id()) % 97;
    let mut delays: Vec<u64> = [5u64, 40, 120, 300, 600, 900, 1300, 1800, 2600, 3600]
        .into_iter()
        .enumerate()
        .map(|(i, delay)| delay + (jitter * (i as u64 + 1)) % 97)
        .collect();
    // INDEXER_KILL_ITERATIONS=N runs a longer loop: the points past the first ten are drawn
    // uniformly from 0–4 s (seeded by the process id, printed).
    let iterations = std::env::var("INDEXER_KILL_ITERATIONS")
        .ok()
        .and_then(|n| n.parse::<usize>().ok())
        .unwrap_or(delays.len());
    let mut state = u64::from(std::process::id()) | 1;
    while delays.len() < iterations {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        delays.push(state % 4000);
    }
    let mut completed = 0;
    for (i, &delay) in delays.iter().enumerate() {
        // Every other build works in rounds of sites, with scratch files in the index.
        let extra: &[&str] = if i % 2 == 1 {
            &["--memory-budget", "64"]
        } else {
            &[]
        };
        let mut child = spawn_build(&index, &input, extra);
        sleep(Duration::from_millis(delay));
        signal(&child, "-KILL");
        let status = child.wait().unwrap();
        if status.success() {
            completed += 1;
        }
        let pages = documents(&index);
        assert!(
            pages == 100 || pages == 4000,
            "after a kill at {delay} ms the index has {pages} pages"
        );
        assert_searchable(&index);
    }
    // A killed build leaves its unfinished generation; the next build removes it.
    let out = indexer(&["build", "--index", index.to_str().unwrap()], &sample());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(documents(&index), 100);
    assert_eq!(generations(&index), 1);
    assert_eq!(
        entries_named(&index, "rounds-"),
        0,
        "scratch files were left"
    );
    assert!(completed < delays.len(), "no build was killed part way");
    println!(
        "{} builds killed with SIGKILL (seed {}), {} of them had already finished; the \
         previous index opened and searched after every one",
        delays.len(),
        std::process::id(),
        completed
    );
}

#[test]
fn a_second_build_of_the_same_index_fails_fast_and_harms_nothing() {
    let index = fresh_index("concurrent");
    let mut first = spawn_build(&index, &long_input(), &[]);
    wait_for_new_generation(&mut first, &index);
    let started = Instant::now();
    let second = indexer(&["build", "--index", index.to_str().unwrap()], &sample());
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "the second build waited"
    );
    assert_eq!(second.status.code(), Some(1));
    let message = String::from_utf8_lossy(&second.stderr);
    assert!(message.contains("another build is writing"), "{message}");
    let status = first.wait().unwrap();
    assert!(status.success(), "the first build was disturbed");
    assert_eq!(documents(&index), 4000);
    assert_searchable(&index);
    assert_eq!(generations(&index), 1);
}

/// `train` on the sample with `extra`, writing its model to `model`.
fn spawn_train(model: &Path, extra: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_indexer"))
        .arg("train")
        .arg("--labels")
        .arg(common::repo().join("data/*.labels.jsonl.gz"))
        .arg("--out")
        .arg(model)
        .args(extra)
        .args(sample())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start indexer")
}

/// Waits until `reached` holds, failing if `child` ends first or after `seconds`.
fn wait_running(child: &mut Child, seconds: u64, reached: impl Fn() -> bool) {
    let started = Instant::now();
    while !reached() {
        assert!(
            child.try_wait().unwrap().is_none(),
            "train ended before it was stopped"
        );
        assert!(
            started.elapsed() < Duration::from_secs(seconds),
            "not reached in {seconds} s"
        );
        sleep(Duration::from_millis(5));
    }
}

/// Waits for `child` to end (at most 30 s after the signal): its exit code and stderr.
fn ended(child: &mut Child) -> (Option<i32>, String) {
    let signalled = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if signalled.elapsed() > Duration::from_secs(30) {
            child.kill().unwrap();
            panic!("still running 30 s after SIGINT");
        }
        sleep(Duration::from_millis(20));
    }
    let status = child.wait().unwrap();
    let mut stderr = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    (status.code(), stderr)
}

/// CPU time `pid` has used (user + system), from `/proc`.
#[cfg(target_os = "linux")]
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // The fields after the command's name, which is in parentheses: utime and stime are
    // the 12th and 13th of them, in clock ticks (100 a second on Linux).
    let after_name = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<&str> = after_name.split_whitespace().collect();
    let ticks = |at: usize| fields.get(at).and_then(|f| f.parse::<f64>().ok());
    ticks(11)
        .zip(ticks(12))
        .map_or(0.0, |(user, system)| (user + system) / 100.0)
}

#[test]
#[cfg(target_os = "linux")]
fn sigint_stops_train_while_it_fits_and_writes_no_model() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m.json");
    // Reading and labelling the sample takes well under a second of CPU; 100,000 trees
    // take minutes. Two seconds of CPU in, the trees are being fitted.
    let mut child = spawn_train(&model, &["--trees", "100000", "--threads", "1"]);
    let id = child.id();
    wait_running(&mut child, 60, || cpu_seconds(id) >= 2.0);
    signal(&child, "-INT");
    let (code, stderr) = ended(&mut child);
    assert_eq!(code, Some(130), "{stderr}");
    assert!(stderr.contains("was not written: interrupted"), "{stderr}");
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "nothing left"
    );
}

#[test]
fn sigint_stops_train_while_it_cross_validates_and_writes_no_held_out_file() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m.json");
    let held_out = dir.path().join("held-out.jsonl");
    // The model is written before the cross-validation starts, whose three folds each fit
    // as many trees again.
    let mut child = spawn_train(
        &model,
        &[
            "--trees",
            "5000",
            "--cross-validate",
            held_out.to_str().unwrap(),
        ],
    );
    wait_running(&mut child, 120, || model.exists());
    signal(&child, "-INT");
    let (code, stderr) = ended(&mut child);
    assert_eq!(code, Some(130), "{stderr}");
    assert!(
        stderr.contains("the held-out pages were not written"),
        "{stderr}"
    );
    assert!(!held_out.exists());
    let written: Value = serde_json::from_slice(&std::fs::read(&model).unwrap()).unwrap();
    assert!(written.is_object(), "the model written before is whole");
}
