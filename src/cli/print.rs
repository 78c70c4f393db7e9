//! Printing: figures from the library in, text for people on stdout out.

use indexer::detect::{Detector, DetectorKind, DetectorSettings, DetectorVisitor, Passes};
use indexer::index::IndexStats;
use indexer::run::{BuildSummary, DecidedPage, counted, human_bytes};

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
        out.push_str(&snippet[at..start]);
        out.push_str(open);
        out.push_str(&snippet[start..end]);
        out.push_str(close);
        at = end;
    }
    out.push_str(&snippet[at..]);
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
        println!("built          {} by {}", summary.started, summary.tool);
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
        println!("    e.g. {}", record.describe());
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
    if summary.truncated_pages > 0 {
        println!(
            "  truncated    {} (the part read before the file ended)",
            summary.truncated_pages
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
}
