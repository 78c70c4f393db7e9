//! The kept text's shape, end to end on the committed sample: `extract --markdown` read back
//! by a CommonMark/GFM parser (pulldown-cmark) holds the text's words, its code blocks are
//! the text's listings line for line, its tables the text's rows; `eval` scores lines as
//! `score_lines.py` does; a hostile page stays bounded and its Markdown still parses; the kept
//! text holds its kept blocks' words, none glued or split.

mod common;

use common::{html_response_record, indexer, ok, sample, sample_files};
use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
use serde_json::Value;

/// What a Markdown document reads back as.
#[derive(Default)]
struct Parsed {
    /// Its text, a space at every block's end.
    text: String,
    /// Its code blocks' contents.
    code: Vec<String>,
    /// Its tables, as rows of cells.
    tables: Vec<Vec<Vec<String>>>,
    /// HTML the parser found (our Markdown escapes what would read as HTML).
    html: Vec<String>,
}

fn parse(markdown: &str) -> Parsed {
    let mut parsed = Parsed::default();
    let mut code: Option<String> = None;
    let mut cell: Option<String> = None;
    for event in Parser::new_ext(markdown, Options::ENABLE_TABLES) {
        match event {
            Event::Text(text) | Event::Code(text) => {
                for open in [&mut code, &mut cell].into_iter().flatten() {
                    open.push_str(&text);
                }
                parsed.text.push_str(&text);
            }
            Event::SoftBreak | Event::HardBreak => parsed.text.push(' '),
            Event::Start(Tag::CodeBlock(_)) => code = Some(String::new()),
            Event::End(TagEnd::CodeBlock) => {
                parsed.code.extend(code.take());
                parsed.text.push(' ');
            }
            Event::Start(Tag::Table(_)) => parsed.tables.push(Vec::new()),
            Event::Start(Tag::TableHead | Tag::TableRow) => {
                if let Some(table) = parsed.tables.last_mut() {
                    table.push(Vec::new());
                }
            }
            Event::Start(Tag::TableCell) => cell = Some(String::new()),
            Event::End(TagEnd::TableCell) => {
                if let (Some(row), Some(cell)) = (
                    parsed.tables.last_mut().and_then(|table| table.last_mut()),
                    cell.take(),
                ) {
                    row.push(cell);
                }
                parsed.text.push(' ');
            }
            Event::End(
                TagEnd::Paragraph
                | TagEnd::Heading(_)
                | TagEnd::Item
                | TagEnd::BlockQuote(_)
                | TagEnd::List(_),
            ) => parsed.text.push(' '),
            Event::Start(
                Tag::Paragraph
                | Tag::Heading { .. }
                | Tag::Item
                | Tag::BlockQuote(_)
                | Tag::List(_),
            ) => parsed.text.push(' '),
            Event::Html(html) | Event::InlineHtml(html) => parsed.html.push(html.to_string()),
            _ => {}
        }
    }
    parsed
}

fn words(text: &str) -> Vec<&str> {
    text.split_whitespace().collect()
}

/// A WARC at `path` of one response record per body in `bodies`, at `http://HOST/N`.
fn write_pages(path: &std::path::Path, host: &str, bodies: &[impl AsRef<str>]) {
    let records: Vec<u8> = bodies
        .iter()
        .enumerate()
        .flat_map(|(n, body)| {
            let html = format!("<html><body>{}</body></html>", body.as_ref());
            html_response_record(&format!("http://{host}/{n}"), None, &html)
        })
        .collect();
    std::fs::write(path, records).unwrap();
}

/// `(url, text)` of each page `extract` printed with `args`.
fn pages(args: &[&str]) -> Vec<(String, String)> {
    let mut all = vec!["extract", "-q"];
    all.extend_from_slice(args);
    ok(indexer(&all, &sample()))
        .lines()
        .map(|line| {
            let page: Value = serde_json::from_str(line).unwrap();
            (
                page["url"].as_str().unwrap().to_string(),
                page["text"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn markdown_reads_back_as_the_texts_words_listings_and_rows() {
    let text = pages(&[]);
    let markdown = pages(&["--markdown"]);
    assert_eq!(text.len(), 100);
    assert_eq!(markdown.len(), text.len());
    let (mut listings, mut tables) = (0, 0);
    for ((url, text), (markdown_url, markdown)) in text.iter().zip(&markdown) {
        assert_eq!(url, markdown_url);
        let parsed = parse(markdown);
        assert!(
            parsed.html.is_empty(),
            "{url}: read as HTML: {:?}",
            parsed.html
        );
        let (read_back, kept) = (words(&parsed.text), words(text));
        if let Some(at) =
            (0..read_back.len().max(kept.len())).find(|&at| read_back.get(at) != kept.get(at))
        {
            let around =
                |words: &[&str]| words[at.saturating_sub(5)..(at + 5).min(words.len())].join(" ");
            panic!(
                "{url}: the Markdown reads back as …{}… where the text has …{}…",
                around(&read_back),
                around(&kept)
            );
        }
        let lines: Vec<&str> = text.lines().collect();
        for code in &parsed.code {
            let code_lines: Vec<&str> = code.trim_end_matches('\n').lines().collect();
            assert!(
                lines
                    .windows(code_lines.len())
                    .any(|window| window == code_lines),
                "{url}: the listing is not lines of the text:\n{code}"
            );
            listings += 1;
        }
        for table in &parsed.tables {
            for row in table {
                let cells: Vec<&str> = row
                    .iter()
                    .map(|cell| cell.trim())
                    .filter(|cell| !cell.is_empty())
                    .collect();
                assert!(
                    lines.iter().any(|line| {
                        let line: Vec<&str> = line.split('\t').map(str::trim).collect();
                        line.into_iter()
                            .filter(|cell| !cell.is_empty())
                            .eq(cells.iter().copied())
                    }),
                    "{url}: the row {cells:?} is not a line of the text"
                );
            }
            tables += 1;
        }
    }
    // The sample's books hold hundreds of listings and some tables: all were checked.
    assert!(listings > 300, "{listings} listings");
    assert!(tables > 5, "{tables} tables");
}

#[test]
fn eval_scores_lines_and_code_as_the_shared_tools_do() {
    let labels = sample_files("labels.jsonl.gz");
    let mut args = vec!["eval", "-q", "--json", "--detector", "hybrid"];
    for label in &labels {
        args.extend(["--labels", label.to_str().unwrap()]);
    }
    let report: Value = serde_json::from_str(&ok(indexer(&args, &sample()))).unwrap();
    let row = |name: &str| {
        report["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|row| row["name"] == name)
            .unwrap()["quality"]
            .clone()
    };
    // Counted again here from extract's text, the same way: the same figure.
    let gold: std::collections::HashMap<String, String> = labels
        .iter()
        .flat_map(|path| {
            let file = std::fs::File::open(path).unwrap();
            let reader = std::io::BufReader::new(flate2::read::GzDecoder::new(file));
            std::io::BufRead::lines(reader)
                .map(|line| serde_json::from_str::<Value>(&line.unwrap()).unwrap())
                .map(|label| {
                    (
                        label["url"].as_str().unwrap().to_string(),
                        label["content_text"].as_str().unwrap().to_string(),
                    )
                })
                .collect::<Vec<_>>()
        })
        .collect();
    let (mut shared, mut kept) = (0, 0);
    for (url, text) in pages(&[]) {
        let found = indexer::eval::line_bag(&text);
        let wanted = indexer::eval::line_bag(&gold[&url]);
        kept += found.values().sum::<u64>();
        shared += found
            .iter()
            .map(|(line, &count)| count.min(wanted.get(line).copied().unwrap_or(0)))
            .sum::<u64>();
    }
    let precision = shared as f64 / kept as f64;
    let hybrid = row("hybrid");
    assert!((hybrid["lines"]["precision"].as_f64().unwrap() - precision).abs() < 1e-9);
    // Lines come out as lines: most of them, and more than everything-kept finds.
    let line_f1 = hybrid["lines"]["f1"].as_f64().unwrap();
    assert!(line_f1 > 0.95, "{line_f1}");
    assert!(line_f1 > row("none")["lines"]["f1"].as_f64().unwrap());
    assert!(hybrid["site_lines"]["rustbook"]["f1"].as_f64().unwrap() > 0.95);

    // The code score, counted again from the sample's HTML, extract's text and its Markdown
    // read back by pulldown-cmark: the same figures.
    let lines_of = |text: &str| -> Vec<String> {
        let mut lines: Vec<String> = text
            .lines()
            .map(|line| line.trim_end().to_string())
            .collect();
        while lines.last().is_some_and(|line| line.trim().is_empty()) {
            lines.pop();
        }
        let blank = lines
            .iter()
            .take_while(|line| line.trim().is_empty())
            .count();
        lines.split_off(blank)
    };
    let inputs = indexer::read::InputSet::open(&sample_files("warc.gz"), None).unwrap();
    let mut content_blocks = std::collections::HashMap::new();
    for record in inputs.records().filter_map(Result::ok) {
        let limits = indexer::segment::SegmentLimits::default();
        let Ok(page) = indexer::run::page_of_record(record, &limits) else {
            continue;
        };
        if let Some(content) = gold.get(&page.url) {
            let blocks = indexer::eval::content_blocks(&page.html, content);
            content_blocks.insert(page.url.clone(), blocks);
        }
    }
    let text: std::collections::HashMap<String, String> = pages(&[]).into_iter().collect();
    let markdown: std::collections::HashMap<String, String> =
        pages(&["--markdown"]).into_iter().collect();
    let (mut blocks, mut in_text, mut in_markdown) = (0, 0, 0);
    for (url, page_blocks) in &content_blocks {
        let text_lines = lines_of(&text[url]);
        let code: Vec<Vec<String>> = parse(&markdown[url])
            .code
            .iter()
            .map(|code| lines_of(code))
            .collect();
        for block in page_blocks {
            blocks += 1;
            in_text += u64::from(
                text_lines
                    .windows(block.len())
                    .any(|window| window == block.as_slice()),
            );
            in_markdown += u64::from(code.contains(block));
        }
    }
    let code = &report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|row| row["name"] == "hybrid")
        .unwrap()["code"];
    assert_eq!(code["blocks"], blocks);
    assert_eq!(code["whole_in_text"], in_text);
    assert_eq!(code["whole_in_markdown"], in_markdown);
    assert!(blocks > 300, "{blocks} content <pre> blocks");
    assert!(in_text * 100 >= blocks * 99 && in_markdown * 100 >= blocks * 99);
}

#[test]
fn a_hostile_page_stays_bounded_and_its_markdown_parses() {
    let dir = tempfile::tempdir().unwrap();
    let warc = dir.path().join("hostile.warc");
    // A 50 MB listing: cut at --max-page-bytes, the part read kept as a listing.
    let huge = format!(
        "<pre>{}</pre>",
        "let x = 1; // `code`\n".repeat(50 << 20 >> 5)
    );
    // 100,000 nested lists, 10,000 columns, rowspan 2^31 − 1, an unclosed <pre> in a table in
    // a list.
    let pages = [
        huge,
        "<ol><li>x".repeat(100_000),
        format!("<table><tr>{}</tr></table>", "<td>c</td>".repeat(10_000)),
        "<table><tr><td rowspan=2147483647 colspan=2147483647>a</td><td>b</td></tr></table>"
            .to_string(),
        "<ul><li><table><tr><td><pre>  a\n  b".to_string(),
        format!("<table>{}", "<tr><td>| * _ # >".repeat(300_000)),
    ];
    write_pages(&warc, "hostile.example", &pages);
    let out = indexer(
        &["extract", "-q", "--markdown", "--detector", "none"],
        &[&warc],
    );
    let stdout = ok(out);
    let lines: Vec<Value> = stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.len(), pages.len());
    for page in &lines {
        let markdown = page["text"].as_str().unwrap();
        let parsed = parse(markdown);
        assert!(parsed.html.is_empty(), "{}", page["url"]);
        assert!(!markdown.is_empty(), "{}", page["url"]);
    }
    // The listing was cut where the page was, and is still one listing.
    let listing = parse(lines[0]["text"].as_str().unwrap());
    assert_eq!(listing.code.len(), 1);
    assert!(listing.code[0].len() < 9 << 20);
    assert!(listing.code[0].starts_with("let x = 1; // `code`\nlet x = 1;"));
    // The unclosed listing in a table in a list keeps its indentation.
    let nested = parse(lines[4]["text"].as_str().unwrap());
    assert_eq!(nested.code, ["  a\n  b\n"], "{}", lines[4]["text"]);
}

#[test]
fn the_kept_text_holds_the_kept_blocks_words_and_no_others() {
    let dir = tempfile::tempdir().unwrap();
    let warc = dir.path().join("inline.warc");
    let pages = [
        // An inline element of only whitespace between two words.
        "<p>The court <em>may</em><i> </i>attempt to rule on the recent<a href=/x><span> </span>\
         </a>rulings of the courts below, which <b> </b>matter.</p>",
        // Pasted word-processor text: a `white-space: pre-wrap` span around every run.
        "<p><span style=\"white-space: pre-wrap\">A</span><span style=\"white-space: pre-wrap\">\
         ustin, Texas</span>; a city of many people.</p>",
    ];
    write_pages(
        &warc,
        "inline.example",
        &pages.map(|html| format!("<article>{html}</article>")),
    );
    let sample = sample_files("warc.gz");
    let mut inputs: Vec<&std::path::Path> = sample.iter().map(|path| path.as_path()).collect();
    inputs.push(&warc);
    let stdout = ok(indexer(
        &["extract", "-q", "--keep-empty", "--explain"],
        &inputs,
    ));
    let mut checked = 0;
    for line in stdout.lines() {
        let page: Value = serde_json::from_str(line).unwrap();
        let url = page["url"].as_str().unwrap();
        let expected = match url {
            "http://inline.example/0" => Some("may attempt to rule on the recent rulings"),
            "http://inline.example/1" => Some("Austin, Texas;"),
            _ => None,
        };
        if let Some(expected) = expected {
            let text = page["text"].as_str().unwrap();
            assert!(text.contains(expected), "{url}: {text}");
        }
        let mut kept: Vec<&str> = page["blocks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|block| block["kept"].as_bool().unwrap())
            .flat_map(|block| words(block["text"].as_str().unwrap()))
            .collect();
        let mut text = words(page["text"].as_str().unwrap());
        kept.sort_unstable();
        text.sort_unstable();
        assert_eq!(text, kept, "{url}");
        checked += 1;
    }
    assert_eq!(checked, 100 + pages.len());
}
