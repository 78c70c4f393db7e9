//! Every shell command of the README, run as written by bash in a scratch folder that holds
//! what the commands name: `data/` (the committed sample), `crawl/` and `next-crawl/` of its
//! WARC files, `CC-MAIN-*.warc.gz` and `part-*.warc.gz` copies of them, `mirror/` of saved
//! pages and `labels/` of the sample's labels. A command must exit 0; the first command must
//! find its sentence and the Markdown example must print Markdown; the reduce step of the
//! partition example, shown for one bucket, runs for every bucket the map step wrote. The commands that are not
//! run are listed in [`SKIPPED`] with the reason, and the test prints each one it skips.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::repo;

/// Commands left out, by how they start, and why.
const SKIPPED: &[(&str, &str)] = &[
    ("cargo test", "it is the test command itself (CI runs it)"),
    (
        "cargo install",
        "installs into the user's cargo home; CI builds the same binary",
    ),
    (
        "pip install",
        "python/check.sh installs the package from source in CI",
    ),
    (
        "(cd python && maturin",
        "python/check.sh builds the wheel in CI",
    ),
    (
        "python python/examples/warc_to_dolma.py",
        "python/tests/test_example.py runs it against the built package",
    ),
    (
        "indexer serve",
        "serves until stopped; tests/serve.rs runs a server and asks it questions",
    ),
];

/// The README's ```sh blocks, each as its command lines (comment lines left out).
fn readme_commands() -> Vec<Vec<String>> {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let mut blocks = Vec::new();
    let mut current: Option<Vec<String>> = None;
    for line in readme.lines() {
        match (&mut current, line.trim_end()) {
            (None, "```sh") => current = Some(Vec::new()),
            (Some(_), "```") => blocks.extend(current.take()),
            (Some(block), line) if !line.trim().is_empty() && !line.trim().starts_with('#') => {
                block.push(line.trim().to_string());
            }
            _ => {}
        }
    }
    blocks
}

/// The scratch folder, laid out as the README's commands expect.
fn prepared_folder() -> PathBuf {
    let folder = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("readme-commands");
    if folder.exists() {
        std::fs::remove_dir_all(&folder).unwrap();
    }
    let data = repo().join("data");
    let make = |dir: &str| {
        let dir = folder.join(dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    };
    let copy = |from: &str, to: &Path| {
        std::fs::copy(data.join(from), to).unwrap();
    };
    let crawl = make("crawl");
    let labels = make("labels");
    for site in ["python311", "rustbook", "scrapy28"] {
        copy(
            &format!("{site}.warc.gz"),
            &crawl.join(format!("{site}.warc.gz")),
        );
        copy(
            &format!("{site}.labels.jsonl.gz"),
            &labels.join(format!("{site}.labels.jsonl.gz")),
        );
    }
    copy(
        "rustbook.warc.gz",
        &make("next-crawl").join("rustbook.warc.gz"),
    );
    copy("python311.warc.gz", &folder.join("CC-MAIN-00000.warc.gz"));
    copy("scrapy28.warc.gz", &folder.join("CC-MAIN-00001.warc.gz"));
    // The partition example names its files with an ellipsis for the crawl's name.
    copy("python311.warc.gz", &folder.join("CC-MAIN-…-00000.warc.gz"));
    copy("scrapy28.warc.gz", &folder.join("CC-MAIN-…-00001.warc.gz"));
    copy("rustbook.warc.gz", &folder.join("part-00000.warc.gz"));
    let mirror = make("mirror");
    for (name, title) in [("index.html", "Welcome"), ("guide.html", "The guide")] {
        let page = format!(
            "<html><head><title>{title}</title></head><body><nav><a href=index.html>Home</a> \
             <a href=guide.html>Guide</a></nav><main><h1>{title}</h1><p>The {title} page \
             tells how the example project is installed and used.</p></main></body></html>"
        );
        std::fs::write(mirror.join(name), page).unwrap();
    }
    std::os::unix::fs::symlink(&data, folder.join("data")).unwrap();
    folder
}

/// What a command becomes when run here: the first command's `cargo run --release --` is
/// the built binary and its index is in the scratch folder; a lone `…` ("and more of the
/// same") is left out.
fn as_run(command: &str) -> String {
    command
        .replace("cargo run --release --", "indexer")
        .replace("/tmp/indexer-sample", "indexer-sample")
        .split(' ')
        .filter(|word| *word != "…")
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn every_readme_command_runs_as_written_or_is_skipped_with_its_reason() {
    let folder = prepared_folder();
    let bin = Path::new(env!("CARGO_BIN_EXE_indexer")).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let has_jq = Command::new("jq").arg("--version").output().is_ok();
    let (mut ran, mut skipped) = (0, 0);
    for (number, block) in readme_commands().iter().enumerate() {
        for command in block {
            let reason = SKIPPED
                .iter()
                .find(|(start, _)| command.starts_with(start))
                .map(|(_, why)| *why)
                .or((!has_jq && command.contains("| jq")).then_some("jq is not installed here"));
            if let Some(reason) = reason {
                eprintln!("skipped (block {number}): {command}\n  because {reason}");
                skipped += 1;
                continue;
            }
            // The reduce step is shown for one bucket and runs once per bucket the map wrote.
            let run = as_run(command);
            let run = if run.contains("bucket-10") {
                format!(
                    "for bucket in $(ls work/map/map-00000 | grep -o 'bucket-[0-9]*' | sort -u); \
                     do {}; done",
                    run.replace("bucket-10", "$bucket")
                )
            } else {
                run
            };
            let output = Command::new("bash")
                .args(["-o", "pipefail", "-c", &run])
                .current_dir(&folder)
                .env("PATH", &path)
                .output()
                .unwrap();
            let stdout = String::from_utf8_lossy(&output.stdout);
            assert!(
                output.status.success(),
                "block {number}: {run}\nstdout: {}\nstderr: {}",
                stdout.chars().take(2000).collect::<String>(),
                String::from_utf8_lossy(&output.stderr)
            );
            if command.starts_with("cargo run") {
                assert!(
                    stdout.contains("ownership") || stdout.contains("Ownership"),
                    "the first command finds its sentence: {stdout}"
                );
            }
            if command.contains("--markdown") {
                assert!(
                    stdout.starts_with('#') || stdout.contains("\n## "),
                    "{stdout}"
                );
                assert!(stdout.contains("```rust"), "{stdout}");
            }
            ran += 1;
        }
    }
    eprintln!("{ran} README commands ran, {skipped} skipped");
    assert!(ran >= 20, "only {ran} README commands ran");
    assert!(skipped <= SKIPPED.len() + 2, "{skipped} skipped");
}
