//! Printing: figures from the library in, text for people on stdout out.

use indexer::index::IndexStats;
use indexer::run::{BuildSummary, DecidedPage, human_bytes};

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

pub fn print_stats(figures: &IndexStats) {
    println!("documents      {}", figures.documents);
    println!("unique terms   {}", figures.unique_terms);
    println!("postings       {}", figures.postings);
    println!("tokens         {}", figures.tokens);
    println!("bytes on disk  {}", figures.total_bytes);
    for (component, bytes) in &figures.bytes {
        println!("  {component:<20} {bytes}");
    }
}

/// A detector's settings as `name=value` pairs (nested settings as `group.name=value`).
fn settings_line(settings: &serde_json::Value) -> String {
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
            other => out.push(format!("{prefix}={other}")),
        }
    }
    let mut pairs = Vec::new();
    walk("", settings, &mut pairs);
    pairs.join(" ")
}

pub fn print_summary(summary: &BuildSummary) {
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
    let settings = settings_line(&summary.settings);
    if !settings.is_empty() {
        println!("  settings     {settings}");
    }
    println!(
        "pages          {} of {} records",
        summary.pages, summary.records
    );
    for (reason, count) in &summary.skipped {
        println!("  skipped      {count} {reason}");
    }
    for record in &summary.first_skipped {
        let place = match record.offset {
            Some(offset) => format!("{} at byte {offset}", record.input),
            None => record.input.clone(),
        };
        let url = record.url.as_deref().unwrap_or("");
        println!("    e.g. {} {place} {url}", record.reason);
    }
    for (limit, count) in &summary.limited {
        println!("  cut short    {count} by {limit} limit");
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
        "memory         {} of detector state, {} of pages waiting ({} batch{}) at peak",
        human_bytes(summary.peak_state_bytes),
        human_bytes(summary.peak_batch_bytes),
        summary.batches,
        if summary.batches == 1 { "" } else { "es" }
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
        "time           {:.2}s for {:.1} MB of HTML ({:.1} MB/s, {} threads)",
        summary.seconds,
        mb,
        if summary.seconds > 0.0 {
            mb / summary.seconds
        } else {
            0.0
        },
        summary.threads
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
        assert_eq!(settings_line(&settings), "a=1 b.c=x e=true");
    }
}
