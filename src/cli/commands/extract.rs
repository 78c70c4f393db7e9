//! `indexer extract`: inputs and options in, one record per decided page out — a JSON line
//! (`{url, site, title, record_id, date, warc_filename, warc_record_offset,
//! warc_record_length, charset, lang, language_score, blocks_kept, blocks_dropped, text}`, and
//! every block with its verdict under `--explain`), a WET `conversion` record, or a dolma
//! document with its attributes row — on stdout or in `--output FILE` (compressed by its
//! extension, renamed into place when complete; a folder for dolma); a one-line summary on
//! stderr.

use std::io::{BufWriter, StdoutLock, Write};
use std::path::PathBuf;

use anyhow::Result;
use clap::{Args, ValueEnum};

use indexer::output::{self, OutputCounts, OutputFile, OutputPlan};
use indexer::report::BuildSummary;
use indexer::run::{self, BuildOptions};

use crate::cli::flags::{DetectorChoice, Inputs, RunArgs, SkipLogArgs};
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
    /// (template_word_ratio, content_probability, title_heading, …; see docs/DETECTORS.md), the
    /// figure it compared and its threshold. To check a site before trusting a build.
    #[arg(long, visible_alias = "show-dropped", help_heading = "Output")]
    explain: bool,
    /// What to write: JSON lines; a WET file (WARC `conversion` records of the kept text,
    /// after a `warcinfo` record, as Common Crawl writes them); or dolma's layout in the
    /// folder --output names: documents/part-0000.jsonl.gz with each page's whole visible
    /// text, and attributes/indexer/part-0000.jsonl.gz, row by row, with each block's span
    /// and template probability and the spans not kept (keeping the others gives this
    /// command's text), to take the decision again with dolma's mixer.
    #[arg(long, value_enum, default_value_t = FormatArg::Jsonl, help_heading = "Output")]
    format: FormatArg,
    /// Write to FILE instead of stdout, compressed as its name ends (.gz, .zst; a gzip member
    /// per record for WET), under a temporary name renamed when complete: a failed run leaves
    /// no file (a device or named pipe, such as /dev/null, is written to directly). With
    /// --format dolma, the folder to write into (needed).
    #[arg(long, short = 'o', value_name = "FILE", help_heading = "Output")]
    output: Option<PathBuf>,
    /// Also write pages with no kept text (left out and counted by default).
    #[arg(long, help_heading = "Output")]
    keep_empty: bool,
    /// Write only pages on which the detector found main content: leave out (and count) the
    /// pages written with "main_content": false — nothing kept, or anything kept by a fallback
    /// such as hybrid's page_own_text (a login wall, a bare list of links, an error page).
    #[arg(long, help_heading = "Output")]
    main_content_only: bool,
    /// Write only pages whose kept text is in one of these languages (ISO 639-1 or 639-3
    /// codes, comma-separated: de,en or deu,eng), each with a least language_score if wanted
    /// (en:0.65, as FineWeb and DCLM filter); the others are left out and counted.
    #[arg(
        long,
        value_name = "CODES",
        value_delimiter = ',',
        value_parser = language,
        help_heading = "Output"
    )]
    lang: Vec<String>,
    /// Write the kept text as Markdown (CommonMark with GitHub tables: headings, lists, quotes,
    /// fenced code with its language, data tables as pipe tables, inline code and emphasis)
    /// instead of lines.
    #[arg(long, help_heading = "Output")]
    markdown: bool,
    /// With --markdown: links as [text](absolute URL) (their text alone otherwise).
    #[arg(long, requires = "markdown", help_heading = "Output")]
    links: bool,
    /// With --markdown: images as ![alt](absolute URL) (left out otherwise).
    #[arg(long, requires = "markdown", help_heading = "Output")]
    images: bool,
    /// Do not detect each page's language ("lang": null): a little faster.
    #[arg(long, conflicts_with = "lang", help_heading = "Output")]
    no_lang: bool,
    #[command(flatten)]
    pub run: RunArgs,
    #[command(flatten)]
    skips: SkipLogArgs,
}

/// `--format`.
#[derive(Clone, Copy, ValueEnum)]
enum FormatArg {
    /// One JSON object a line.
    Jsonl,
    /// WARC/1.0 conversion records (WET).
    Wet,
    /// dolma's documents and attributes files, in the --output folder.
    Dolma,
}

/// Where the records go.
enum Destination {
    Stdout(BufWriter<StdoutLock<'static>>),
    /// Boxed: a file's compressor state is hundreds of bytes.
    File(Box<OutputFile>),
}

/// Where `--format dolma` writes: its two files, row by row, in a folder.
struct DolmaFolder {
    folder: PathBuf,
    documents: OutputFile,
    attributes: OutputFile,
}

/// What the pages are written to: records (JSON lines, WET) or dolma's folder.
enum Writer {
    Records(Destination),
    Dolma(Box<DolmaFolder>),
}

impl Destination {
    fn write_record(&mut self, bytes: &[u8]) -> Result<(), run::BuildError> {
        match self {
            Destination::Stdout(out) => Ok(out.write_all(bytes)?),
            Destination::File(file) => file
                .write_record(bytes)
                .map_err(|error| std::io::Error::other(error.to_string()).into()),
        }
    }

    /// Flushes stdout, or gives the file its name; where the records went.
    fn finish(self) -> Result<String> {
        match self {
            Destination::Stdout(mut out) => {
                out.flush()?;
                Ok("stdout".to_string())
            }
            Destination::File(file) => Ok(file.commit()?.display().to_string()),
        }
    }
}

impl DolmaFolder {
    /// dolma's folder layout under `folder`: the two files, each renamed into place when
    /// complete and compressed on `threads` threads of its own
    /// ([`OutputFile::compressing_on`]).
    fn create(folder: &std::path::Path, threads: usize) -> Result<DolmaFolder> {
        const PART: &str = "part-0000.jsonl.gz";
        let documents = folder.join("documents");
        let attributes = folder.join("attributes").join("indexer");
        for made in [&documents, &attributes] {
            std::fs::create_dir_all(made)
                .map_err(|error| anyhow::anyhow!("cannot create {}: {error}", made.display()))?;
        }
        Ok(DolmaFolder {
            folder: folder.to_path_buf(),
            documents: OutputFile::create(&documents.join(PART), false)?.compressing_on(threads)?,
            attributes: OutputFile::create(&attributes.join(PART), false)?
                .compressing_on(threads)?,
        })
    }

    /// Writes a page's document and attributes rows.
    fn write(&mut self, row: &output::dolma::DolmaRow) -> Result<(), run::BuildError> {
        let line = |json: &str| terminal_safe_json(json.to_string()) + "\n";
        let failed = |error: output::OutputError| std::io::Error::other(error.to_string());
        self.documents
            .write_record(line(&row.document).as_bytes())
            .map_err(failed)?;
        self.attributes
            .write_record(line(&row.attributes).as_bytes())
            .map_err(failed)?;
        Ok(())
    }

    /// Gives both files their names; the folder.
    fn finish(self) -> Result<String> {
        self.documents.commit()?;
        self.attributes.commit()?;
        Ok(self.folder.display().to_string())
    }
}

/// Writes the kept text of every page, then a one-line summary on stderr.
pub fn run(args: ExtractArgs) -> Result<()> {
    let format = match args.format {
        FormatArg::Jsonl => output::Format::Jsonl,
        FormatArg::Wet => output::Format::Wet,
        FormatArg::Dolma => output::Format::Dolma,
    };
    let dolma_folder = args
        .output
        .as_deref()
        .filter(|_| format == output::Format::Dolma);
    args.skips.check_writable(dolma_folder)?;
    anyhow::ensure!(
        format != output::Format::Dolma || args.output.is_some(),
        "--format dolma writes a folder (documents/ and attributes/indexer/): give it with --output DIR"
    );
    anyhow::ensure!(
        !(format == output::Format::Dolma && (args.explain || args.markdown)),
        "--format dolma writes the whole text as lines with its spans: it does not go with --explain or --markdown"
    );
    anyhow::ensure!(
        !(args.explain && format == output::Format::Wet),
        "--explain adds the blocks to JSON lines: it does not go with --format wet"
    );
    let text = match args.markdown {
        true => output::TextForm::Markdown {
            links: args.links,
            images: args.images,
        },
        false => output::TextForm::Lines,
    };
    let plan = OutputPlan::new(format, args.keep_empty, !args.no_lang, &args.lang)?
        .with_text(text)
        .with_main_content_only(args.main_content_only);
    let options = BuildOptions {
        stop: Some(stop_on_interrupt()),
        ..args.run.options(args.detector.chosen(&args.run))?
    };
    let compressing = output::compressing_threads(options.threads);
    let mut writer = match &args.output {
        Some(folder) if format == output::Format::Dolma => {
            Writer::Dolma(Box::new(DolmaFolder::create(folder, compressing)?))
        }
        Some(path) => Writer::Records(Destination::File(Box::new(
            OutputFile::create(path, format == output::Format::Wet)?.compressing_on(compressing)?,
        ))),
        None => Writer::Records(Destination::Stdout(BufWriter::new(
            std::io::stdout().lock(),
        ))),
    };
    let run_date = indexer::report::utc_timestamp(std::time::SystemTime::now());
    if let (output::Format::Wet, Writer::Records(destination)) = (format, &mut writer) {
        let name = args.output.as_ref().and_then(|path| path.file_name());
        let name = name.map(|name| name.to_string_lossy());
        let info = output::warcinfo_record(&run_date, name.as_deref(), indexer::VERSION);
        destination.write_record(&info)?;
    }
    let progress = TerminalProgress::new();
    let mut counts = OutputCounts::default();
    let mut inexact_spans = 0_u64;
    let rendered_ahead = plan.rendered_ahead();
    let summary = run::extract(
        &args.inputs.inputs,
        &options,
        rendered_ahead,
        &progress,
        &mut |decided| {
            let Some(page) = plan.extracted(&decided, &mut counts) else {
                return Ok(());
            };
            let destination = match &mut writer {
                Writer::Dolma(folder) => {
                    let detector = options.detector.name();
                    let row = output::dolma::dolma_row(&decided, &page, &run_date, detector)
                        .map_err(std::io::Error::from)?;
                    inexact_spans += u64::from(!row.laid_out_whole);
                    return folder.write(&row);
                }
                Writer::Records(destination) => destination,
            };
            let record = if format == output::Format::Wet {
                output::conversion_record(&page, &run_date)
            } else {
                let blocks = args.explain.then(|| explained_blocks(&decided).into());
                let line = page
                    .json_line(blocks.as_ref())
                    .map_err(std::io::Error::from)?;
                let mut line = terminal_safe_json(line).into_bytes();
                line.push(b'\n');
                line
            };
            destination.write_record(&record)
        },
    )?;
    if inexact_spans > 0 {
        notice!(
            "note: {} whose kept text is not laid out as the whole text with parts cut out (a table laid out otherwise once cells are dropped): their dolma text is the kept text with each dropped block put in on a line of its own",
            indexer::report::counted(inexact_spans, "page")
        );
    }
    let written_to = match writer {
        Writer::Records(destination) => destination.finish()?,
        Writer::Dolma(folder) => folder.finish()?,
    };
    report_skips(args.skips.skip_log.as_deref(), &summary)?;
    print_warnings(&summary);
    notice!("{}", summary_line(&summary, &counts, &written_to));
    if summary.records == 0 && summary.skipped.is_empty() {
        notice!("warning: nothing was read: {}", indexer::read::INPUTS_READ);
    }
    Ok(())
}

/// "extracted 12 pages with hybrid (13 records; …) in 0.4s; wrote 11 to out.jsonl.gz, left
/// out 1 with no kept text".
fn summary_line(summary: &BuildSummary, counts: &OutputCounts, written_to: &str) -> String {
    let truncated = match summary.truncated_pages {
        0 => String::new(),
        count => format!("; {count} truncated, kept in part"),
    };
    let plain_text = match summary.plain_text_pages {
        0 => String::new(),
        count => format!("; {count} of plain text (WET), every line kept: no template removal"),
    };
    let mut left_out = Vec::new();
    if counts.empty > 0 {
        left_out.push(format!("{} with no kept text", counts.empty));
    }
    if counts.no_main_content > 0 {
        left_out.push(format!("{} without main content", counts.no_main_content));
    }
    if counts.other_language > 0 {
        left_out.push(format!("{} in other languages", counts.other_language));
    }
    let left_out = match left_out.is_empty() {
        true => String::new(),
        false => format!(", left out {}", left_out.join(" and ")),
    };
    let flagged = match counts.written_without_main_content {
        0 => String::new(),
        count => format!(" ({count} without main content: \"main_content\": false)"),
    };
    format!(
        "extracted {} with {} ({}{}{truncated}{plain_text}) in {:.1}s; wrote {}{flagged} to {written_to}{left_out}",
        indexer::report::counted(summary.pages, "page"),
        summary.detector,
        indexer::report::counted(summary.records, "record"),
        indexer::report::format_skips(&summary.skipped),
        summary.seconds,
        counts.written,
    )
}

/// `--lang`'s values, one at a time: a language code detected, with a least score if given
/// (`en`, `deu`, `en:0.65`); an unknown one is an argument error.
fn language(spec: &str) -> Result<String, String> {
    match indexer::output::language_filter(spec) {
        Some(_) => Ok(spec.to_string()),
        None => Err(indexer::output::OutputError::UnknownLanguage(spec.to_string()).to_string()),
    }
}
