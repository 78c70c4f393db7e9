//! End to end: `indexer train` and the `hybrid` detector through the real binary — a model
//! trained on the committed sample, reproduced bit for bit, used by `extract`, held out by
//! site, and refused when it is missing, damaged or foreign.

use std::path::Path;

use serde_json::Value;

mod common;
use common::{extracted_pages, indexer, ok, repo, sample};

fn train(out: &Path, extra: &[&str]) -> String {
    ok(train_output(out, extra))
}

/// `indexer train` on the sample with its labels, writing to `out`, as it ended.
fn train_output(out: &Path, extra: &[&str]) -> std::process::Output {
    let labels = repo().join("data/*.labels.jsonl.gz");
    let mut args = vec![
        "train",
        "--labels",
        labels.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    indexer(&args, &sample())
}

/// The sample's pages as `extract --detector hybrid --model MODEL` keeps them.
fn extracted_with_model(model: &Path) -> Vec<(String, String)> {
    let model = model.to_str().unwrap();
    extracted_pages(&ok(indexer(
        &["extract", "--detector", "hybrid", "--model", model],
        &sample(),
    )))
}

/// Pages that keep python311's sidebar ("Report a Bug", "Show Source", on all of its 30
/// pages).
fn keeping_python_sidebar(pages: &[(String, String)]) -> usize {
    pages
        .iter()
        .filter(|(_, text)| text.contains("Show Source"))
        .count()
}

#[test]
fn a_model_trained_twice_is_the_same_file_and_extract_uses_it() {
    let dir = tempfile::tempdir().unwrap();
    let (first, second) = (dir.path().join("a.json"), dir.path().join("b.json"));
    let printed = train(&first, &[]);
    assert!(printed.contains("trees"), "{printed}");
    train(&second, &["--threads", "1"]);
    assert_eq!(
        std::fs::read(&first).unwrap(),
        std::fs::read(&second).unwrap(),
        "training is not reproducible"
    );
    let model: Value = serde_json::from_slice(&std::fs::read(&first).unwrap()).unwrap();
    assert_eq!(model["format"], "indexer-hybrid-model");
    assert_eq!(model["provenance"]["pages"], 100);

    let pages = extracted_with_model(&first);
    assert_eq!(pages.len(), 100);
    let with_sidebar = keeping_python_sidebar(&pages);
    assert!(with_sidebar <= 3, "{with_sidebar} pages keep the sidebar");
    let empty = pages
        .iter()
        .filter(|(_, text)| text.trim().is_empty())
        .count();
    assert_eq!(empty, 0);
}

/// `--ensemble N` writes one model of N × --trees trees, and decides as one model does:
/// python311's sidebar still goes. Logistic regression has no trees to shape: the flags that
/// shape them are refused.
#[test]
fn an_ensemble_is_one_model_of_its_ensembles_trees() {
    let dir = tempfile::tempdir().unwrap();
    let (single, ensemble) = (dir.path().join("one.json"), dir.path().join("three.json"));
    train(&single, &["--trees", "20"]);
    let printed = train(&ensemble, &["--trees", "20", "--ensemble", "3"]);
    assert!(printed.contains("60 trees"), "{printed}");
    let read =
        |path: &Path| -> Value { serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap() };
    let (single, model) = (read(&single), read(&ensemble));
    let trees = model["classifier"]["trees"].as_array().unwrap();
    assert_eq!(trees.len(), 60);
    // The first ensemble is the single model at the same seed, every value a third.
    let nodes = |tree: &Value| tree["nodes"].as_array().unwrap().clone();
    let (first, single_first) = (nodes(&trees[0]), nodes(&single["classifier"]["trees"][0]));
    assert_eq!(first.len(), single_first.len());
    for (node, single_node) in first.iter().zip(&single_first) {
        assert_eq!(node["feature"], single_node["feature"]);
        assert_eq!(node["threshold"], single_node["threshold"]);
        let value = node["value"].as_f64().unwrap();
        let single_value = single_node["value"].as_f64().unwrap();
        assert!(
            (value - single_value / 3.0).abs() < 1e-6,
            "{value} {single_value}"
        );
    }
    let base = |model: &Value| model["classifier"]["base"].as_f64().unwrap();
    assert!((base(&model) - base(&single)).abs() < 1e-6);
    let settings = |model: &Value| {
        model["provenance"]["settings"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert!(
        settings(&model).contains("\"ensembles\":3"),
        "{}",
        settings(&model)
    );
    assert!(
        !settings(&single).contains("ensembles"),
        "{}",
        settings(&single)
    );

    let pages = extracted_with_model(&ensemble);
    assert_eq!(pages.len(), 100);
    let with_sidebar = keeping_python_sidebar(&pages);
    assert!(with_sidebar <= 3, "{with_sidebar} pages keep the sidebar");

    // Logistic regression has no trees: every flag that shapes them is refused, not ignored.
    let refused = dir.path().join("logistic.json");
    let labels = repo().join("data/*.labels.jsonl.gz");
    for (flag, value) in [
        ("--ensemble", "2"),
        ("--trees", "50"),
        ("--depth", "3"),
        ("--learning-rate", "0.1"),
    ] {
        let output = indexer(
            &[
                "train",
                "--labels",
                labels.to_str().unwrap(),
                "--family",
                "logistic",
                flag,
                value,
                "--out",
                refused.to_str().unwrap(),
            ],
            &sample(),
        );
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains(&format!("{flag} shapes the trees")),
            "{stderr}"
        );
        assert!(!refused.exists());
    }
}

#[test]
fn the_built_in_model_decides_a_site_seen_once() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("article.html");
    std::fs::write(
        &page,
        "<html><head><title>Council approves the new bridge | Riverside Post</title></head><body>\
         <header class=site-header><nav class=main-menu><ul><li><a href=/>Home</a></li>\
         <li><a href=/news>News</a></li><li><a href=/sport>Sport</a></li>\
         <li><a href=/weather>Weather</a></li><li><a href=/contact>Contact us</a></li></ul></nav></header>\
         <main><article><h1>Council approves the new bridge</h1>\
         <p>The city council voted on Tuesday to build a second bridge across the river, ending a \
         debate that has lasted more than ten years. Construction is expected to start next spring.</p>\
         <p>Supporters said the bridge would cut journey times in half for commuters from the east \
         bank, while opponents worried about the cost, which is estimated at forty million.</p>\
         </article></main>\
         <footer class=site-footer><p><a href=/privacy>Privacy</a> <a href=/terms>Terms</a> \
         <a href=/cookies>Cookies</a></p></footer></body></html>",
    )
    .unwrap();
    let pages = extracted_pages(&ok(indexer(
        &[
            "extract",
            "--detector",
            "hybrid",
            "--base-url",
            "http://riverside.example/",
        ],
        &[&page],
    )));
    assert_eq!(pages.len(), 1);
    let text = &pages[0].1;
    assert!(text.contains("second bridge across the river"), "{text}");
    assert!(text.contains("Council approves the new bridge"), "{text}");
    assert!(!text.contains("Privacy"), "{text}");
}

#[test]
fn cross_validation_holds_every_site_out() {
    let dir = tempfile::tempdir().unwrap();
    // Named .gz, the file is gzip, as `eval --predictions` reads it.
    let held_out = dir.path().join("cv.jsonl.gz");
    train(
        &dir.path().join("m.json"),
        &["--cross-validate", held_out.to_str().unwrap()],
    );
    let mut lines = String::new();
    let file = std::fs::File::open(&held_out).unwrap();
    std::io::Read::read_to_string(&mut flate2::read::MultiGzDecoder::new(file), &mut lines)
        .unwrap();
    let folds: std::collections::BTreeSet<String> = lines
        .lines()
        .map(|line| {
            let page: Value = serde_json::from_str(line).unwrap();
            page["fold"].as_str().unwrap().to_string()
        })
        .collect();
    assert_eq!(lines.lines().count(), 100);
    // The sample's three sites have 30–40 pages each: each is its own fold.
    assert_eq!(folds.len(), 3, "{folds:?}");

    // `eval --predictions` measures the held-out text as an index of its own.
    let labels = repo().join("data/*.labels.jsonl.gz");
    let report: Value = serde_json::from_str(&ok(indexer(
        &[
            "eval",
            "--json",
            "--detector",
            "none",
            "--labels",
            labels.to_str().unwrap(),
            "--predictions",
            &format!("held-out={}", held_out.display()),
        ],
        &sample(),
    )))
    .unwrap();
    let rows = report["rows"].as_array().unwrap();
    let row = |name: &str| rows.iter().find(|row| row["name"] == name).unwrap();
    let f1 = |name: &str| row(name)["quality"]["micro"]["f1"].as_f64().unwrap();
    assert!(
        f1("held-out") > f1("none"),
        "{} vs {}",
        f1("held-out"),
        f1("none")
    );
    assert_eq!(report["labelled_pages_missing"], 0);
}

/// A model written to standard output is all that standard output holds: what `train` did is
/// said on standard error.
#[test]
fn a_model_written_to_stdout_is_the_whole_of_stdout() {
    let output = train_output(Path::new("/dev/stdout"), &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    let model: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(model.is_object());
    assert!(stderr.contains("wrote /dev/stdout"), "{stderr}");
}

/// A held-out file that cannot be written fails before the training, not after it, and
/// leaves no model behind.
#[test]
fn an_unwritable_held_out_file_fails_before_the_training_and_writes_no_model() {
    let dir = tempfile::tempdir().unwrap();
    let model = dir.path().join("m.json");
    let unwritable = dir.path().join("no such folder").join("cv.jsonl");
    let output = train_output(&model, &["--cross-validate", unwritable.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{stderr}");
    assert!(stderr.contains("cannot create"), "{stderr}");
    assert!(stderr.contains("no such folder"), "{stderr}");
    assert!(output.stdout.is_empty(), "nothing was trained");
    let left: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(left.is_empty(), "no model, no temporary file: {left:?}");
}

#[test]
fn missing_damaged_and_foreign_models_are_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    let damaged = dir.path().join("damaged.json");
    std::fs::write(
        &damaged,
        "{\"format\": \"indexer-hybrid-model\", \"version\": 1",
    )
    .unwrap();
    let foreign = dir.path().join("foreign.json");
    std::fs::write(
        &foreign,
        "{\"format\": \"indexer-hybrid-model\", \"version\": 999}",
    )
    .unwrap();
    let missing = dir.path().join("missing.json");
    for (model, says) in [
        (&missing, "No such file"),
        (&damaged, "not an indexer model file"),
        (&foreign, "retrain it"),
    ] {
        let output = indexer(
            &[
                "build",
                "--detector",
                "hybrid",
                "--model",
                model.to_str().unwrap(),
                "--index",
                index.to_str().unwrap(),
            ],
            &sample(),
        );
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains(says), "{stderr}");
        assert!(!index.exists(), "an index was written");
    }
}

#[test]
fn models_whose_numbers_are_out_of_range_are_refused_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    let built_in = std::fs::read(repo().join("src/detect/hybrid/default-model.json")).unwrap();
    let built_in: Value = serde_json::from_slice(&built_in).unwrap();
    let edited = |edit: &dyn Fn(&mut Value)| {
        let mut model = built_in.clone();
        edit(&mut model);
        model
    };
    for (name, model, says) in [
        (
            "negative.json",
            edited(&|m| m["threshold"] = (-5).into()),
            "threshold -5 is not a probability",
        ),
        (
            "above-one.json",
            edited(&|m| m["threshold"] = 2.into()),
            "threshold 2 is not a probability",
        ),
        (
            "huge.json",
            edited(&|m| m["threshold"] = 1e308.into()),
            "threshold inf is not a probability",
        ),
        (
            "no-trees.json",
            edited(&|m| m["classifier"]["trees"] = Value::Array(Vec::new())),
            "no trees",
        ),
        (
            "huge-leaf.json",
            edited(&|m| m["classifier"]["trees"][0]["nodes"][0]["value"] = 1e300.into()),
            "not a finite number",
        ),
        (
            "huge-base.json",
            edited(&|m| m["classifier"]["base"] = (-1e39).into()),
            "base holds -inf",
        ),
        (
            "version-text.json",
            edited(&|m| m["version"] = "1".into()),
            "version \"1\" is not a whole number",
        ),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, serde_json::to_vec(&model).unwrap()).unwrap();
        let output = indexer(
            &[
                "build",
                "--detector",
                "hybrid",
                "--model",
                path.to_str().unwrap(),
                "--index",
                index.to_str().unwrap(),
            ],
            &sample(),
        );
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "{name}: {stderr}");
        assert!(stderr.contains(says), "{name}: {stderr}");
        assert!(stderr.contains(path.to_str().unwrap()), "{name}: {stderr}");
        assert!(!index.exists(), "{name}: an index was written");
    }
}

/// `--weigh PATTERN=FACTOR` weighs the pages of the label files it matches: a factor of 1
/// changes nothing, byte for byte; another is written into the model's provenance; a pattern
/// that matches no file is refused before anything is written.
#[test]
fn weighed_label_files_are_said_in_the_model_and_a_factor_of_one_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let labels = repo().join("data/*.labels.jsonl.gz");
    let weigh = |factor: &str| format!("{}={factor}", labels.to_str().unwrap());
    let (plain, same, halved) = (
        dir.path().join("plain.json"),
        dir.path().join("same.json"),
        dir.path().join("halved.json"),
    );
    train(&plain, &["--trees", "10"]);
    train(&same, &["--trees", "10", "--weigh", &weigh("1")]);
    assert_eq!(
        std::fs::read(&plain).unwrap(),
        std::fs::read(&same).unwrap()
    );
    train(&halved, &["--trees", "10", "--weigh", &weigh("0.5")]);
    let model: Value = serde_json::from_slice(&std::fs::read(&halved).unwrap()).unwrap();
    let settings = model["provenance"]["settings"].as_str().unwrap();
    assert!(
        settings.contains(", 100 pages weighed × 0.5:"),
        "{settings}"
    );

    // A file naming none of the labelled pages weighs nothing, and is warned of.
    let elsewhere = dir.path().join("elsewhere.jsonl");
    std::fs::write(&elsewhere, "{\"url\": \"http://elsewhere.example/\"}\n").unwrap();
    let unused = dir.path().join("unused.json");
    let weigh_elsewhere = format!("{}=2", elsewhere.to_str().unwrap());
    let output = train_output(&unused, &["--trees", "10", "--weigh", &weigh_elsewhere]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("name none of the pages"), "{stderr}");
    assert_eq!(
        std::fs::read(&plain).unwrap(),
        std::fs::read(&unused).unwrap()
    );

    let missing = dir.path().join("missing.json");
    let nowhere = dir.path().join("nowhere/*.jsonl=2");
    let output = train_output(&missing, &["--weigh", nowhere.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("no file matches"), "{stderr}");
    assert!(!missing.exists());
}

#[test]
fn training_without_labelled_pages_in_the_input_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let labels = dir.path().join("labels.jsonl");
    std::fs::write(
        &labels,
        "{\"url\": \"http://elsewhere.example/\", \"content_text\": \"x\"}\n",
    )
    .unwrap();
    let out = dir.path().join("m.json");
    let output = indexer(
        &[
            "train",
            "--labels",
            labels.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        &sample(),
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("no labelled blocks"), "{stderr}");
    assert!(!out.exists());
}

/// Under `--one-pass`, `hybrid` decides each page as it arrives from a bounded segment
/// table: one pass, the table's counters, and a site's repeated sidebar dropped once the
/// site's earlier pages show it, while its first page is judged from the page alone.
#[test]
fn hybrid_runs_in_one_pass_on_a_segment_table() {
    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    let summary: Value = serde_json::from_str(&ok(indexer(
        &[
            "build",
            "--one-pass",
            "--detector",
            "hybrid",
            "--json",
            "--index",
            index.to_str().unwrap(),
        ],
        &sample(),
    )))
    .unwrap();
    assert_eq!(summary["detector"], "hybrid");
    assert_eq!(summary["passes"], 1);
    assert!(summary["counters"]["segments_peak"].as_u64().unwrap() > 1000);
    assert!(summary["blocks_dropped"].as_u64().unwrap() > 0);

    let pages = extracted_pages(&ok(indexer(
        &["extract", "--one-pass", "--detector", "hybrid"],
        &sample(),
    )));
    assert_eq!(pages.len(), 100);
    let python: Vec<_> = pages
        .iter()
        .filter(|(url, _)| url.contains("docs.python.org"))
        .collect();
    assert!(python.len() >= 20);
    let later_with_sidebar = python[5..]
        .iter()
        .filter(|(_, text)| text.contains("Show Source"))
        .count();
    assert!(
        later_with_sidebar <= 2,
        "{later_with_sidebar} later python pages keep the sidebar"
    );
}

/// A two-pass build with the built-in models decides a site of one page as a one-pass
/// build does, and counts it; a site of several pages keeps its two-pass decision, and
/// `--hybrid-lone-page-two-pass` gives the lone pages to the two-pass model again. Over
/// small real crawls (a Common Crawl and a Dolma slice: mostly one page per host).
#[test]
fn a_site_of_one_page_is_decided_in_two_passes_as_in_one() {
    let fixtures = repo().join("tests/data/fixtures");
    let crawls = [
        fixtures.join("resiliparse-cc2020-slice.warc.gz"),
        fixtures.join("dolma-sample-0000.warc.gz"),
    ];
    let extract = |extra: &[&str]| -> std::collections::HashMap<String, (String, String)> {
        let mut args = vec!["extract", "--detector", "hybrid"];
        args.extend_from_slice(extra);
        ok(indexer(&args, &crawls))
            .lines()
            .map(|line| {
                let page: Value = serde_json::from_str(line).unwrap();
                let field = |name: &str| page[name].as_str().unwrap().to_string();
                (field("url"), (field("site"), field("text")))
            })
            .collect()
    };
    let two_pass = extract(&[]);
    let one_pass = extract(&["--one-pass"]);
    let two_pass_model = extract(&["--hybrid-lone-page-two-pass"]);
    let mut pages_of = std::collections::HashMap::<&str, usize>::new();
    for (site, _) in two_pass.values() {
        *pages_of.entry(site).or_default() += 1;
    }
    let lone: Vec<&String> = two_pass
        .iter()
        .filter(|(_, (site, _))| pages_of[site.as_str()] == 1)
        .map(|(url, _)| url)
        .collect();
    assert!(lone.len() >= 20, "{} lone pages", lone.len());
    for url in &lone {
        assert_eq!(two_pass[*url].1, one_pass[*url].1, "{url}");
    }
    let changed = lone
        .iter()
        .filter(|url| two_pass_model[**url].1 != two_pass[**url].1)
        .count();
    assert!(
        changed > 0,
        "the two-pass model decides every lone page alike"
    );
    for (url, (site, text)) in &two_pass {
        if pages_of[site.as_str()] > 1 {
            assert_eq!(text, &two_pass_model[url].1, "{url}");
        }
    }

    let dir = tempfile::tempdir().unwrap();
    let index = dir.path().join("index");
    let summary: Value = serde_json::from_str(&ok(indexer(
        &["build", "--json", "--index", index.to_str().unwrap()],
        &crawls,
    )))
    .unwrap();
    assert_eq!(
        summary["counters"]["lone_pages_decided_as_one_pass"].as_u64(),
        Some(lone.len() as u64)
    );
}

/// Every block of `extract --explain` over `pages` with `extra` flags: text, kept, rule.
fn explained_blocks(pages: &Path, extra: &[&str]) -> Vec<(String, bool, String)> {
    let mut args = vec!["extract", "--explain"];
    args.extend_from_slice(extra);
    let mut blocks = Vec::new();
    for line in ok(indexer(&args, &[pages])).lines() {
        let page: Value = serde_json::from_str(line).unwrap();
        for block in page["blocks"].as_array().unwrap() {
            blocks.push((
                block["text"].as_str().unwrap().to_string(),
                block["kept"].as_bool().unwrap(),
                block["rule"].as_str().unwrap().to_string(),
            ));
        }
    }
    blocks
}

/// The post of the reader-comments tests: its headline and two paragraphs.
const RYE_BREAD_POST: &str = "<h1>Baking rye bread at home</h1>\
    <p>Rye flour holds little gluten, so the dough stays sticky and the loaf is dense; a \
    sourdough starter gives it the acidity it needs to rise and keep well for a week.</p>\
    <p>Mix the starter with warm water the evening before, leave it covered overnight, and \
    knead the flour in the next morning before the second rise in a floured basket.</p>";

/// Reader comments are left out by default, by their own rule, and kept as the model decides
/// them with `--keep-comments`: a blog post with a WordPress-style comment thread (`ol.comment-
/// list`, `li.comment`, `div.comment-content`), and beside it a documentation page whose
/// section about comments has the heading's id (`<section id="comments">`), which stays.
#[test]
fn reader_comments_are_dropped_by_their_rule_unless_kept() {
    let dir = tempfile::tempdir().unwrap();
    let pages = dir.path().join("pages");
    std::fs::create_dir(&pages).unwrap();
    let post = format!(
        "<html><head><title>Baking rye bread at home</title></head><body>\
        <article>{RYE_BREAD_POST}</article>\
        <div id=\"comments\" class=\"comments-area\"><h2>3 comments</h2>\
        <ol class=\"comment-list\"><li class=\"comment\"><div class=\"comment-content\">\
        <p>Tried this last weekend with my grandmother's starter and the crust came out \
        wonderfully dark, thank you for writing the steps down so clearly.</p></div></li>\
        <li class=\"comment\"><div class=\"comment-content\"><p>Does the overnight rest \
        also work in a cold kitchen in winter, or should the bowl stand near the stove?</p>\
        </div></li></ol></div></body></html>"
    );
    std::fs::write(pages.join("post.html"), post).unwrap();
    let docs = "<html><head><title>Lexical analysis</title></head><body><main>\
        <section id=\"comments\"><h2>Comments</h2><p>A comment starts with a hash \
        character that is not part of a string literal, and ends at the end of the physical \
        line; comments are ignored by the syntax.</p></section></main></body></html>";
    std::fs::write(pages.join("lexical.html"), docs).unwrap();

    let blocks = |extra: &[&str]| explained_blocks(&pages, extra);
    let by_default = blocks(&[]);
    let comment = |text: &str| text.contains("grandmother") || text.contains("cold kitchen");
    let comments: Vec<_> = by_default
        .iter()
        .filter(|(text, ..)| comment(text))
        .collect();
    assert_eq!(comments.len(), 2, "{by_default:?}");
    for (text, kept, rule) in &comments {
        assert!(!kept && rule == "reader_comment", "{text}: {kept} {rule}");
    }
    for (text, _, rule) in &by_default {
        if text.contains("hash character") || text.contains("Rye flour") {
            assert_ne!(rule, "reader_comment", "{text}");
        }
    }
    let kept = blocks(&["--keep-comments"]);
    assert!(
        kept.iter()
            .filter(|(text, ..)| comment(text))
            .all(|(_, _, rule)| rule != "reader_comment"),
        "{kept:?}"
    );
}

/// A thread whose markup names no comments, under a block that only says "Comments", is
/// dropped from that block on by its own rule when its comments' dated bylines come back
/// again and again; a reference page's "Comments" section, prose without such lines, stays;
/// `--keep-comments` switches the rule off.
#[test]
fn a_thread_under_a_bare_comments_name_is_dropped_by_its_shape() {
    let dir = tempfile::tempdir().unwrap();
    let pages = dir.path().join("pages");
    std::fs::create_dir(&pages).unwrap();
    let comments: String = [
        ("Ann", "7:59 AM", "Tried this last weekend with my grandmother's starter and the crust came out wonderfully dark, thank you for writing the steps down so clearly."),
        ("Bob", "8:10 AM", "Does the overnight rest also work in a cold kitchen in winter, or should the bowl stand near the stove for the whole night?"),
        ("Cy", "9:41 AM", "I baked two loaves from this recipe and gave one to my neighbour, who asked for the recipe at once and baked her own the next day."),
    ]
    .iter()
    .map(|(name, time, text)| {
        format!("<div><p>Posted by: {name} | October 26, 2012 at {time}</p><p>{text}</p></div>")
    })
    .collect();
    let post = format!(
        "<html><head><title>Baking rye bread at home</title></head><body>\
        <div>{RYE_BREAD_POST}</div><div><b>Comments</b>{comments}</div></body></html>"
    );
    std::fs::write(pages.join("post.html"), post).unwrap();
    let docs = "<html><head><title>Lexical analysis</title></head><body><main>\
        <h1>Lexical analysis</h1><p>A program is read by a parser, which takes its input as a \
        stream of tokens made by the lexical analyzer from the characters of the source file, \
        line by line, as the following sections describe one by one: how lines are joined, \
        how indentation opens and closes blocks, and which names are kept for the language \
        itself and may not be used for anything else.</p>\
        <h2>Comments</h2><p>A comment starts with a hash character that is not part of a \
        string literal, and ends at the end of the physical line; comments are ignored by the \
        syntax.</p><p>Changed on March 3, 2010: comments may hold any character.</p>\
        <p>A comment that ends a line of code is read as the comment of that line, and tools \
        that format the source keep it beside the code it follows.</p>\
        </main></body></html>";
    std::fs::write(pages.join("lexical.html"), docs).unwrap();

    let by_default = explained_blocks(&pages, &[]);
    let comment = |text: &str| {
        ["grandmother", "cold kitchen", "neighbour"]
            .iter()
            .any(|word| text.contains(word))
    };
    let thread: Vec<_> = by_default
        .iter()
        .filter(|(text, ..)| comment(text))
        .collect();
    assert_eq!(thread.len(), 3, "{by_default:?}");
    for (text, kept, rule) in &thread {
        assert!(
            !kept && rule == "after_comments_name",
            "{text}: {kept} {rule}"
        );
    }
    for (text, kept, rule) in &by_default {
        if text.contains("hash character") || text.contains("Rye flour") {
            assert!(
                *kept && rule != "after_comments_name",
                "{text}: {kept} {rule}"
            );
        }
    }
    let kept = explained_blocks(&pages, &["--keep-comments"]);
    assert!(
        kept.iter()
            .all(|(_, _, rule)| rule != "after_comments_name"),
        "{kept:?}"
    );
    assert!(
        kept.iter()
            .filter(|(text, ..)| comment(text))
            .all(|(_, kept, _)| *kept),
        "{kept:?}"
    );
}

/// An index page the model all but empties (a long list of links) keeps the text no other
/// page of its site holds (rule `page_own_text`), while the navigation and footer both pages
/// share stay dropped; `--hybrid-page-floor 0` leaves the model's decisions alone.
#[test]
fn a_page_the_model_empties_keeps_its_own_text() {
    let dir = tempfile::tempdir().unwrap();
    let pages = dir.path().join("pages");
    std::fs::create_dir(&pages).unwrap();
    let index_page = |heading: &str, entries: &[&str], kind: &str| {
        let items: String = entries
            .iter()
            .map(|name| format!("<li><a href=\"library/{name}.html\">{name} ({kind})</a></li>"))
            .collect();
        format!(
            "<html><head><title>{heading}</title></head><body><div class=\"related\"><ul>\
             <li><a href=\"index.html\">Python</a></li><li><a href=\"genindex.html\">Index</a>\
             </li><li><a href=\"py-modindex.html\">Modules</a></li></ul></div><div class=\"body\">\
             <h1>{heading}</h1><table class=\"indextable\"><tr><td><ul>{items}</ul></td></tr>\
             </table></div><div class=\"footer\">© Copyright 2001-2023, Python Software \
             Foundation.</div></body></html>"
        )
    };
    let functions = [
        "abs",
        "aiter",
        "all",
        "anext",
        "any",
        "ascii",
        "bin",
        "bool",
        "breakpoint",
        "bytes",
        "callable",
        "chr",
        "compile",
        "complex",
        "delattr",
        "dict",
        "dir",
        "divmod",
        "enumerate",
        "eval",
        "exec",
        "filter",
        "float",
        "format",
        "frozenset",
        "getattr",
        "globals",
        "hash",
    ];
    let modules = [
        "abc",
        "argparse",
        "array",
        "ast",
        "asyncio",
        "base64",
        "bisect",
        "builtins",
        "bz2",
        "calendar",
        "cmath",
        "cmd",
        "code",
        "codecs",
        "collections",
        "colorsys",
        "copy",
        "csv",
        "ctypes",
        "curses",
        "dataclasses",
        "datetime",
        "decimal",
        "difflib",
        "dis",
        "doctest",
    ];
    std::fs::write(
        pages.join("genindex.html"),
        index_page("Index", &functions, "built-in function"),
    )
    .unwrap();
    std::fs::write(
        pages.join("modindex.html"),
        index_page("Module index", &modules, "module"),
    )
    .unwrap();

    let blocks = |extra: &[&str]| explained_blocks(&pages, extra);
    let entries = |text: &str| text.contains("(built-in function)") || text.contains("(module)");
    let by_default = blocks(&[]);
    assert_eq!(
        by_default.iter().filter(|(text, ..)| entries(text)).count(),
        2
    );
    for (text, kept, rule) in &by_default {
        if entries(text) {
            assert!(*kept && rule == "page_own_text", "{text}: {kept} {rule}");
        }
        if text.contains("Python Software Foundation") || text.starts_with("Python Index") {
            assert!(!kept, "shared by both pages, yet kept: {text}");
        }
    }
    let model_alone = blocks(&["--hybrid-page-floor", "0"]);
    assert!(
        model_alone
            .iter()
            .filter(|(text, ..)| entries(text))
            .all(|(_, kept, rule)| !kept && rule == "content_probability"),
        "{model_alone:?}"
    );
}

/// The `(url, main_content)` of every page `indexer extract` printed, in order.
fn main_content_flags(stdout: &str) -> Vec<(String, bool)> {
    stdout
        .lines()
        .map(|line| {
            let page: Value = serde_json::from_str(line).expect("a JSON line");
            let flag = page["main_content"].as_bool().expect("main_content");
            (page["url"].as_str().unwrap().to_string(), flag)
        })
        .collect()
}

#[test]
fn a_page_without_main_content_is_flagged_and_left_out_when_asked() {
    let scrapy = [repo().join("data/scrapy28.warc.gz")];
    let flags = main_content_flags(&ok(indexer(&["extract", "-q"], &scrapy)));
    let without: Vec<&str> = flags
        .iter()
        .filter(|(_, flag)| !flag)
        .map(|(url, _)| url.as_str())
        .collect();
    assert!(
        without.contains(&"https://docs.scrapy.org/en/2.8/404.html"),
        "the site's 404 page has no main content: {without:?}"
    );
    assert!(
        without.len() * 10 < flags.len(),
        "the documentation pages have main content: {without:?} of {}",
        flags.len()
    );
    let asked = indexer(&["extract", "--main-content-only"], &scrapy);
    let written = main_content_flags(&ok(indexer(
        &["extract", "-q", "--main-content-only"],
        &scrapy,
    )));
    let expected: Vec<(String, bool)> = flags.iter().filter(|(_, flag)| *flag).cloned().collect();
    assert_eq!(written, expected);
    let stderr = String::from_utf8_lossy(&asked.stderr);
    assert!(
        stderr.contains(&format!(" {} without main content", without.len())),
        "{stderr}"
    );
    let none = main_content_flags(&ok(indexer(
        &["extract", "-q", "--detector", "none"],
        &scrapy,
    )));
    assert!(
        none.iter().all(|(_, flag)| *flag),
        "keeping everything finds the main content wherever there is text"
    );
}
