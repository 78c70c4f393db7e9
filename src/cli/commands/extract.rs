//! `indexer extract`: inputs and options in, one JSON line per decided page on stdout out
//! (`{url, site, title, text}`, and every block with its verdict under `--explain`).

use std::io::{BufWriter, Write};

use anyhow::Result;
use clap::Args;

use indexer::run::{self, BuildOptions};

use crate::cli::flags::{DetectorChoice, Inputs, RunArgs};
use crate::cli::interrupt::stop_on_interrupt;
use crate::cli::print::{explained_blocks, terminal_safe_json};
use crate::cli::progress::TerminalProgress;
use crate::cli::{print_warnings, report_skips};

/// `extract`'s flags.
#[derive(Args)]
pub struct ExtractArgs {
    #[command(flatten)]
    inputs: Inputs,
    #[command(flatten)]
    pub detector: DetectorChoice,
    /// Also print every block of the page in order with its decision and the evidence:
    /// "blocks": [{"text", "kept", "rule", "score", "threshold"}] — the rule that decided
    /// (template_word_ratio, content_probability, title_heading, …; see the README), the
    /// figure it compared and its threshold. To check a site before trusting a build.
    #[arg(long, visible_alias = "show-dropped", help_heading = "Output")]
    explain: bool,
    #[command(flatten)]
    pub run: RunArgs,
}

/// Prints the kept text of every page, then a one-line summary on stderr.
pub fn run(args: ExtractArgs) -> Result<()> {
    let options = BuildOptions {
        stop: Some(stop_on_interrupt()),
        ..args.run.options(args.detector.chosen(&args.run))?
    };
    let progress = TerminalProgress::new();
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let summary = run::extract(&args.inputs.inputs, &options, &progress, &mut |decided| {
        let mut line = serde_json::json!({
            "url": decided.page.url,
            "site": decided.page.site,
            "title": decided.page.title,
            "text": decided.kept_text(),
        });
        if args.explain {
            line["blocks"] = explained_blocks(&decided).into();
        }
        let line = serde_json::to_string(&line).map_err(std::io::Error::from)?;
        out.write_all(terminal_safe_json(line).as_bytes())?;
        out.write_all(b"\n")?;
        Ok(())
    })?;
    out.flush()?;
    report_skips(args.run.skip_log.as_deref(), &summary)?;
    print_warnings(&summary);
    let truncated = match summary.truncated_pages {
        0 => String::new(),
        count => format!("; {count} truncated, kept in part"),
    };
    let plain_text = match summary.plain_text_pages {
        0 => String::new(),
        count => format!("; {count} of plain text (WET), every line kept: no template removal"),
    };
    notice!(
        "extracted {} with {} ({}{}{truncated}{plain_text}) in {:.1}s",
        run::counted(summary.pages, "page"),
        summary.detector,
        run::counted(summary.records, "record"),
        run::format_skips(&summary.skipped),
        summary.seconds
    );
    Ok(())
}
