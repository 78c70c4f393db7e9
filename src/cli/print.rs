//! Printing: figures from the library in, text for people on stdout out. Text a crawl wrote
//! (titles, URLs, snippets, input names) passes through [`printable`] on its way to a
//! terminal, so that a page cannot send the terminal escape sequences.

use std::borrow::Cow;

use indexer::detect::{Detector, DetectorKind, DetectorSettings, DetectorVisitor, Passes};
use indexer::index::IndexStats;
use indexer::report::{BuildSummary, Redecision, counted, human_bytes};
use indexer::run::DecidedPage;

pub fn ratio(a: u64, b: u64) -> Option<f64> {
    (a > 0).then(|| b as f64 / a as f64)
}

pub fn compare_rows(a: &IndexStats, b: &IndexStats) -> Vec<(String, u64, u64)> {
    let mut rows = vec![
        ("documents".to_string(), a.documents, b.documents),
        ("unique terms".to_string(), a.unique_terms, b.unique_terms),
        ("postings".to_string(), a.postings, b.postings),
        ("tokens".to_string(), a.tokens, b.tokens),
    ];
    let components: std::collections::BTreeSet<&String> =
        a.bytes.keys().chain(b.bytes.keys()).collect();
    for component in components {
        rows.push((
            format!("bytes: {component}"),
            a.bytes.get(component).copied().unwrap_or(0),
            b.bytes.get(component).copied().unwrap_or(0),
        ));
    }
    rows.push(("bytes: total".to_string(), a.total_bytes, b.total_bytes));
    rows
}

/// `text` safe to print to a terminal: every control character (C0, DEL, C1 — among them
/// ESC, BEL, CSI, which start terminal escape sequences — and tab and newline, which would
/// break a one-line field) and every bidirectional override or isolate (which reorders what
/// the line shows) written as a `\u{…}` escape. Text without any is returned as it is.
pub fn printable(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if needs_escape(c) {
            out.push_str(&format!("\\u{{{:x}}}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Whether [`printable`] escapes `c`.
fn needs_escape(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// JSON text with the characters [`printable`] escapes and serde_json writes raw (DEL, C1
/// controls, bidirectional overrides: serde_json escapes only those below U+0020) written as
/// `\uXXXX` escapes, which mean the same characters to a JSON reader. Outside strings JSON
/// holds only ASCII punctuation and white space, so every such character is inside a string.
pub fn terminal_safe_json(json: String) -> String {
    let escaped = |c: char| c >= '\u{7f}' && needs_escape(c);
    if !holds_escaped_above_ascii(json.as_bytes()) {
        return json;
    }
    let mut out = String::with_capacity(json.len() + 8);
    for c in json.chars() {
        if escaped(c) {
            out.push_str(&format!("\\u{:04x}", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

/// Whether UTF-8 `text` holds a character at or above U+007F that [`needs_escape`], told by
/// its bytes rather than decoded (every line `extract` writes is checked): DEL, a C1 control
/// (U+0080–U+009F: `C2 80`–`C2 9F`), or a bidirectional override (U+202A–U+202E: `E2 80
/// AA`–`E2 80 AE`; U+2066–U+2069: `E2 81 A6`–`E2 81 A9`).
fn holds_escaped_above_ascii(text: &[u8]) -> bool {
    let escaped_at = |at: usize| match text[at] {
        0x7F => true,
        0xC2 => matches!(text.get(at + 1), Some(0x80..=0x9F)),
        0xE2 => matches!(
            text.get(at + 1..at + 3),
            Some([0x80, 0xAA..=0xAE] | [0x81, 0xA6..=0xA9])
        ),
        _ => false,
    };
    // Chunks are searched whole for a byte that may start one, which vectorises; only a
    // chunk that holds one is read byte by byte.
    const CHUNK: usize = 64;
    text.chunks(CHUNK).enumerate().any(|(index, chunk)| {
        let may_start = |byte: &u8| matches!(byte, 0x7F | 0xC2 | 0xE2);
        chunk
            .iter()
            .fold(false, |found, byte| found | may_start(byte))
            && (index * CHUNK..index * CHUNK + chunk.len()).any(escaped_at)
    })
}

/// `value` as indented JSON, [`terminal_safe_json`].
pub fn pretty_json<T: serde::Serialize>(value: &T) -> serde_json::Result<String> {
    serde_json::to_string_pretty(value).map(terminal_safe_json)
}

/// `snippet` made [`printable`], its `highlights` (byte ranges of `snippet`) marked in bold
/// or in [brackets].
pub fn mark(snippet: &str, highlights: &[(usize, usize)], bold: bool) -> String {
    let (open, close) = if bold {
        ("\x1b[1m", "\x1b[0m")
    } else {
        ("[", "]")
    };
    let mut out = String::new();
    let mut at = 0;
    for &(start, end) in highlights {
        if start < at
            || end > snippet.len()
            || !snippet.is_char_boundary(start)
            || !snippet.is_char_boundary(end)
        {
            continue;
        }
        out.push_str(&printable(&snippet[at..start]));
        out.push_str(open);
        out.push_str(&printable(&snippet[start..end]));
        out.push_str(close);
        at = end;
    }
    out.push_str(&printable(&snippet[at..]));
    out
}

/// An index's figures, sizes in binary units (`--json` has the bytes).
pub fn print_stats(figures: &IndexStats) {
    println!("documents      {}", figures.documents);
    println!("unique terms   {}", figures.unique_terms);
    println!("postings       {}", figures.postings);
    println!("tokens         {}", figures.tokens);
    println!("on disk        {}", human_bytes(figures.total_bytes));
    for (component, bytes) in &figures.bytes {
        println!("  {component:<20} {:>10}", human_bytes(*bytes));
    }
    if figures.site_models > 0 {
        println!(
            "site models    {} of {} ({:.1}% of the index), kept beside it for `indexer add`",
            human_bytes(figures.site_model_bytes),
            counted(figures.site_models, "site"),
            100.0 * figures.site_model_bytes as f64 / figures.total_bytes.max(1) as f64
        );
    }
}

/// A detector's settings as `name=value` pairs (nested settings as `group.name=value`).
fn settings_pairs(settings: &serde_json::Value) -> Vec<String> {
    fn walk(prefix: &str, value: &serde_json::Value, out: &mut Vec<String>) {
        match value {
            serde_json::Value::Object(fields) => {
                for (name, field) in fields {
                    let name = if prefix.is_empty() {
                        name.clone()
                    } else {
                        format!("{prefix}.{name}")
                    };
                    walk(&name, field, out);
                }
            }
            serde_json::Value::Null => {}
            serde_json::Value::String(text) => out.push(format!("{prefix}={text}")),
            serde_json::Value::Number(number) => out.push(format!("{prefix}={}", shortest(number))),
            other => out.push(format!("{prefix}={other}")),
        }
    }
    /// A number as written, or as the `f32` it was when that is shorter (0.7, not
    /// 0.699999988079071).
    fn shortest(number: &serde_json::Number) -> String {
        let written = number.to_string();
        match number.as_f64() {
            Some(value) if number.is_f64() && f64::from(value as f32) == value => {
                let single = format!("{:?}", value as f32);
                if single.len() < written.len() {
                    single
                } else {
                    written
                }
            }
            _ => written,
        }
    }
    let mut pairs = Vec::new();
    walk("", settings, &mut pairs);
    pairs
}

/// The settings a detector has when no flag changes them, as its summary records them; `None`
/// for a detector this build does not know.
fn default_settings(detector: &str, passes: u32) -> Option<serde_json::Value> {
    struct SettingsOf;
    impl DetectorVisitor for SettingsOf {
        type Output = serde_json::Value;
        fn visit<D: Detector>(self, detector: D) -> serde_json::Value {
            detector.settings()
        }
    }
    let kind: DetectorKind = detector.parse().ok()?;
    let passes = if passes == 1 {
        Passes::One
    } else {
        Passes::Two
    };
    if passes == Passes::One && !kind.runs_in_one_pass() {
        return None;
    }
    Some(kind.visit(&DetectorSettings::default(), passes, SettingsOf))
}

/// The summary's settings line: every setting under `verbose`, else the settings that differ
/// from the detector's defaults.
fn settings_line(summary: &BuildSummary, verbose: bool) -> String {
    let pairs = settings_pairs(&summary.settings);
    let defaults = match default_settings(&summary.detector, summary.passes) {
        Some(defaults) if !verbose => settings_pairs(&defaults),
        _ => return pairs.join(" "),
    };
    let changed: Vec<&String> = pairs
        .iter()
        .filter(|pair| !defaults.contains(pair))
        .collect();
    if changed.is_empty() {
        return "defaults (--verbose lists them)".to_string();
    }
    let changed: Vec<&str> = changed.iter().map(|pair| pair.as_str()).collect();
    format!(
        "{}; the rest defaults (--verbose lists all)",
        changed.join(" ")
    )
}

/// The runs that made an index, oldest first: one line each, what it read or deleted and
/// what it counted.
pub fn print_history(history: &[indexer::report::RunRecord]) {
    if history.is_empty() {
        return;
    }
    println!("history");
    for run in history {
        let counts: Vec<String> = run
            .counts
            .iter()
            .filter(|(_, count)| **count > 0)
            .map(|(name, count)| format!("{count} {name}"))
            .collect();
        println!(
            "  {} {:<8} {} documents after; {}",
            run.started,
            run.kind.name(),
            run.documents,
            if counts.is_empty() {
                "nothing counted".to_string()
            } else {
                counts.join(", ")
            }
        );
        let what: Vec<&String> = run.inputs.iter().chain(&run.deleted).collect();
        for item in what.iter().take(5) {
            println!("      {}", printable(item));
        }
        if what.len() > 5 {
            println!("      … and {} more", what.len() - 5);
        }
    }
}

/// The build summary for people; `verbose`: with every setting of the detector.
pub fn print_summary(summary: &BuildSummary, verbose: bool) {
    let blocks = summary.blocks_kept + summary.blocks_dropped;
    let text = summary.text_bytes_kept + summary.text_bytes_dropped;
    let share = |part: u64, whole: u64| {
        if whole == 0 {
            0.0
        } else {
            100.0 * part as f64 / whole as f64
        }
    };
    let passes = if summary.passes == 2 {
        "learns from every page, then decides"
    } else {
        "decides each page as it arrives"
    };
    if !summary.tool.is_empty() {
        println!(
            "{:<15}{} by {}",
            summary.made_by(),
            summary.started,
            summary.tool
        );
    }
    println!("detector       {} ({passes})", summary.detector);
    if !settings_pairs(&summary.settings).is_empty() {
        println!("  settings     {}", settings_line(summary, verbose));
    }
    println!(
        "pages          {} of {}",
        summary.pages,
        counted(summary.records, "record")
    );
    for (reason, count) in &summary.skipped {
        println!("  skipped      {count} {reason}");
    }
    for record in &summary.first_skipped {
        println!("    e.g. {}", printable(&record.describe()));
    }
    for (limit, count) in &summary.limited {
        println!("  cut short    {count} by {limit} limit");
    }
    if summary.replaced_by_later_record > 0 {
        println!(
            "  replaced     {} by a later crawl of the same URL (one document per URL)",
            summary.replaced_by_later_record
        );
    }
    if summary.added + summary.replaced + summary.unchanged + summary.older_than_indexed > 0 {
        println!(
            "  update       {} added, {} replaced, {} unchanged, {} older than indexed",
            summary.added, summary.replaced, summary.unchanged, summary.older_than_indexed
        );
    }
    let redecided = &summary.redecided;
    if redecided.sites + redecided.not_read_again > 0 {
        let why = match redecided.rule.unwrap_or_default() {
            Redecision::Grown => "grown past a power of two, two passes",
            Redecision::Touched => "the add brought pages to",
            Redecision::Never => "none asked for",
        };
        println!(
            "  redecided    {} pages of {} sites ({why}), {} decided otherwise{}",
            redecided.pages,
            redecided.sites,
            redecided.replaced,
            if redecided.not_read_again > 0 {
                format!(
                    "; {} pages not read again (their files gone or changed)",
                    redecided.not_read_again
                )
            } else {
                String::new()
            }
        );
    }
    if summary.truncated_pages > 0 {
        println!(
            "  truncated    {} (the part read before the file ended)",
            summary.truncated_pages
        );
    }
    if summary.plain_text_pages > 0 {
        println!(
            "  plain text   {} (WET text: every line kept, no template removal possible)",
            summary.plain_text_pages
        );
    }
    println!(
        "blocks         {} kept, {} dropped ({:.1}% dropped)",
        summary.blocks_kept,
        summary.blocks_dropped,
        share(summary.blocks_dropped, blocks)
    );
    println!(
        "text           {} kept, {} dropped ({:.1}% dropped)",
        human_bytes(summary.text_bytes_kept),
        human_bytes(summary.text_bytes_dropped),
        share(summary.text_bytes_dropped, text)
    );
    if !summary.counters.is_empty() {
        println!("{} counted:", summary.detector);
        for (name, count) in &summary.counters {
            let value = if name.ends_with("bytes") {
                human_bytes(*count)
            } else {
                count.to_string()
            };
            println!("  {:<28} {value}", name.replace(['-', '_'], " "));
        }
    }
    println!(
        "memory         {} of detector state, {} of pages waiting ({}) at peak",
        human_bytes(summary.peak_state_bytes),
        human_bytes(summary.peak_batch_bytes),
        counted(u64::from(summary.batches), "batch")
    );
    print_site_models(&summary.site_models);
    if summary.rounds > 1 {
        println!(
            "rounds         {} rounds of sites (split by host) to stay within {} MiB",
            summary.rounds,
            summary.memory_budget >> 20
        );
    }
    let mb = summary.html_bytes as f64 / 1e6;
    println!(
        "time           {:.2}s for {:.1} MB of HTML ({:.1} MB/s, {})",
        summary.seconds,
        mb,
        if summary.seconds > 0.0 {
            mb / summary.seconds
        } else {
            0.0
        },
        counted(summary.threads as u64, "thread")
    );
}

/// What a run did with site models, when it did anything.
fn print_site_models(figures: &indexer::report::SiteModelFigures) {
    if figures.restored + figures.unreadable > 0 {
        let unreadable = if figures.unreadable > 0 {
            format!(" ({} unreadable, started afresh)", figures.unreadable)
        } else {
            String::new()
        };
        println!(
            "site models    {} started from the index's models{unreadable}",
            counted(figures.restored, "site")
        );
    }
    if let Some(why) = &figures.not_used {
        println!("site models    the index's models were not used: {why}");
    }
    if figures.stored > 0 {
        println!(
            "site models    {} kept with the index ({})",
            counted(figures.stored, "site"),
            human_bytes(figures.stored_bytes)
        );
    }
}

/// Every block of `decided` in order, with its verdict, for `extract --explain`: figures
/// rounded to four decimals, `null` where the rule compares none.
pub fn explained_blocks(decided: &DecidedPage) -> Vec<serde_json::Value> {
    let figure = |value: f32| {
        value
            .is_finite()
            .then(|| (f64::from(value) * 1e4).round() / 1e4)
    };
    decided
        .page
        .blocks
        .iter()
        .zip(&decided.verdicts)
        .map(|(block, verdict)| {
            serde_json::json!({
                "text": block.text,
                "kept": verdict.keep,
                "rule": verdict.rule,
                "score": figure(verdict.score),
                "threshold": figure(verdict.threshold),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaped_characters_are_told_by_their_bytes_as_by_the_characters() {
        // The escaped characters, their neighbours, and characters that share their lead bytes.
        let alphabet = [
            'a', '~', '\u{7f}', '\u{80}', '\u{9f}', '\u{a0}', '\u{a9}', '\u{201c}', '\u{2029}',
            '\u{202a}', '\u{202e}', '\u{202f}', '\u{2065}', '\u{2066}', '\u{2069}', '\u{206a}',
            '\u{20ac}', '\u{2122}', 'é', '日', '😀',
        ];
        let mut random = indexer::learn::boost::SplitMix::new(3);
        for length in 0..400 {
            let text: String = (0..length % 9)
                .map(|_| alphabet[random.next_u64() as usize % alphabet.len()])
                .collect();
            let by_characters = text.chars().any(|c| c >= '\u{7f}' && needs_escape(c));
            assert_eq!(
                holds_escaped_above_ascii(text.as_bytes()),
                by_characters,
                "{text:?}"
            );
        }
        // Wherever a character falls against the chunks the search reads.
        for padding in 0..140 {
            for (c, escaped) in [('\u{85}', true), ('\u{202e}', true), ('\u{2069}', true)]
                .into_iter()
                .chain([('\u{a0}', false), ('\u{202f}', false), ('\u{206a}', false)])
            {
                let text = format!("{}{c}", "x".repeat(padding));
                assert_eq!(
                    holds_escaped_above_ascii(text.as_bytes()),
                    escaped,
                    "{text:?}"
                );
            }
        }
        assert!(!holds_escaped_above_ascii("“quoted” — €5".as_bytes()));
        assert_eq!(terminal_safe_json("\"a\u{202e}b\"".into()), "\"a\\u202eb\"");
    }

    #[test]
    fn settings_are_name_value_pairs() {
        let settings = serde_json::json!({"a": 1, "b": {"c": "x", "d": null}, "e": true});
        assert_eq!(settings_pairs(&settings), ["a=1", "b.c=x", "e=true"]);
        let figures = serde_json::json!({"f": f64::from(0.7f32), "g": 0.8, "h": 10.0});
        assert_eq!(settings_pairs(&figures), ["f=0.7", "g=0.8", "h=10.0"]);
    }

    #[test]
    fn the_short_settings_line_names_what_differs_from_the_defaults() {
        let mut summary = BuildSummary {
            detector: "bloom".into(),
            passes: 2,
            settings: default_settings("bloom", 2).unwrap(),
            ..BuildSummary::default()
        };
        assert_eq!(
            settings_line(&summary, false),
            "defaults (--verbose lists them)"
        );
        summary.settings["drop_ratio"] = 0.9.into();
        assert_eq!(
            settings_line(&summary, false),
            "drop_ratio=0.9; the rest defaults (--verbose lists all)"
        );
        let every = settings_line(&summary, true);
        assert!(
            every.contains("drop_ratio=0.9 ") && every.contains("similarity=0.8"),
            "{every}"
        );
        summary.detector = "retired-detector".into();
        assert_eq!(settings_line(&summary, false), every);
    }

    #[test]
    fn control_characters_and_bidi_overrides_are_escaped_and_plain_text_is_kept() {
        assert!(matches!(printable("Ünïcode — fine"), Cow::Borrowed(_)));
        assert_eq!(
            printable("a\x1b]0;owned\x07b\x1b[31mred\u{9b}2J\tc\nd\u{7f}\u{202e}e"),
            "a\\u{1b}]0;owned\\u{7}b\\u{1b}[31mred\\u{9b}2J\\u{9}c\\u{a}d\\u{7f}\\u{202e}e"
        );
    }

    #[test]
    fn marked_snippets_escape_inside_and_outside_the_marks() {
        let snippet = "x\x1b[2Jword\x07 end";
        let at = snippet.find("word").unwrap();
        assert_eq!(
            mark(snippet, &[(at - 4, at + 5)], false),
            "x[\\u{1b}[2Jword\\u{7}] end"
        );
    }

    #[test]
    fn json_escapes_what_serde_json_leaves_raw_and_means_the_same() {
        let value = serde_json::json!({"title": "a\x1b[31m\u{9b}2J\u{7f}\u{202e}b — ü"});
        let json = pretty_json(&value).unwrap();
        assert!(
            json.contains(r"a\u001b[31m\u009b2J\u007f\u202eb — ü"),
            "{json}"
        );
        let read: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(read, value);
    }
}
