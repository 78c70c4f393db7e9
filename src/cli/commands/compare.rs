//! `indexer compare`: two indexes (or two sets of shards) in, their size figures side by
//! side with ratios out.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use indexer::index::stats_of;

use crate::cli::open_checked_indexes;
use crate::cli::print::{compare_rows, ratio};

/// `compare`'s flags.
#[derive(Args)]
pub struct CompareArgs {
    /// A, the index compared against (usually built with `--detector none`), then B;
    /// with --against, all of these are A.
    #[arg(required = true)]
    a: Vec<PathBuf>,
    /// B, the other side, when A is several indexes.
    #[arg(long, num_args = 1..)]
    against: Vec<PathBuf>,
    /// Print as JSON.
    #[arg(long)]
    json: bool,
}

/// Prints the two sides' figures and their ratios.
pub fn run(args: CompareArgs) -> Result<()> {
    let (a, b) = if args.against.is_empty() {
        if args.a.len() != 2 {
            clap::Error::raw(
                clap::error::ErrorKind::WrongNumberOfValues,
                format!(
                    "compare takes two indexes, A and B (or A... --against B...), not {}\n",
                    args.a.len()
                ),
            )
            .exit()
        }
        (vec![args.a[0].clone()], vec![args.a[1].clone()])
    } else {
        (args.a, args.against)
    };
    let stats_a = stats_of(&open_checked_indexes(&a)?)?;
    let stats_b = stats_of(&open_checked_indexes(&b)?)?;
    let (a, b) = (joined_paths(&a), joined_paths(&b));
    let rows = compare_rows(&stats_a, &stats_b);
    if args.json {
        let rows: Vec<_> = rows
            .iter()
            .map(|(name, x, y)| serde_json::json!({"figure": name, "a": x, "b": y, "ratio": ratio(*x, *y)}))
            .collect();
        let out = serde_json::json!({"a": a, "b": b, "figures": rows});
        println!("{}", crate::cli::print::pretty_json(&out)?);
        return Ok(());
    }
    println!("A = {a}\nB = {b}\n");
    println!(
        "{:<24} {:>14} {:>14} {:>8} {:>8}",
        "figure", "A", "B", "B/A", "change"
    );
    for (name, x, y) in rows {
        let r = ratio(x, y);
        println!(
            "{:<24} {:>14} {:>14} {:>8} {:>8}",
            name,
            x,
            y,
            r.map_or("-".into(), |r| format!("{r:.3}")),
            r.map_or("-".into(), |r| format!("{:+.1}%", (r - 1.0) * 100.0)),
        );
    }
    Ok(())
}

/// Paths as one line: "a, b, c".
fn joined_paths(paths: &[PathBuf]) -> String {
    let names: Vec<String> = paths
        .iter()
        .map(|path| path.display().to_string())
        .collect();
    names.join(", ")
}
