//! Summary: what a run did — counts of records, pages, blocks and bytes, detector counters,
//! memory and time — and the helpers that print counts and sizes.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::redecided::RedecidedFigures;
use crate::detect::{Counter, Merge};
use crate::report::{RunKind, RunRecord};

/// What a run did, stored with the index and printed by `build`, `stats` and `extract`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BuildSummary {
    /// The tool and commit that made it ([`crate::VERSION`]).
    #[serde(default)]
    pub tool: String,
    /// The command line that asked for it, as [`BuildOptions::command_line`] gave it.
    ///
    /// [`BuildOptions::command_line`]: crate::run::BuildOptions::command_line
    #[serde(default)]
    pub command_line: Vec<String>,
    /// When the run started, UTC (RFC 3339, to the second).
    #[serde(default)]
    pub started: String,
    /// The detector's name.
    pub detector: String,
    /// Its thresholds.
    pub settings: serde_json::Value,
    /// Passes made over the input.
    pub passes: u32,
    /// Segmenting threads.
    pub threads: usize,
    /// Input paths.
    pub inputs: Vec<String>,
    /// Bytes of input files (compressed as stored).
    pub input_bytes: u64,
    /// Records read (pages and skips).
    pub records: u64,
    /// Pages decided (indexed, extracted, or left out of an index for a later record of their
    /// URL).
    pub pages: u64,
    /// Pages of a build left out of the index because a later record of the same URL is in it
    /// (a later `WARC-Date`, or the same date later in the input).
    #[serde(default)]
    pub replaced_by_later_record: u64,
    /// Records not indexed, by reason.
    pub skipped: BTreeMap<String, u64>,
    /// Pages cut short by a per-page limit, by limit.
    pub limited: BTreeMap<String, u64>,
    /// Pages kept from the part of a record read before its file ended (the rest of such a
    /// record, when no page can be made of it, is skipped as `truncated_record`).
    #[serde(default)]
    pub truncated_pages: u64,
    /// Pages of plain text (WET `conversion` records): every line kept, as no template can be
    /// told from content without markup.
    #[serde(default)]
    pub plain_text_pages: u64,
    /// Bytes of HTML segmented (decoded, after limits).
    pub html_bytes: u64,
    /// Blocks kept.
    pub blocks_kept: u64,
    /// Blocks dropped as template.
    pub blocks_dropped: u64,
    /// Bytes of text kept.
    pub text_bytes_kept: u64,
    /// Bytes of text dropped.
    pub text_bytes_dropped: u64,
    /// Peak bytes of per-site detector state.
    pub peak_state_bytes: u64,
    /// Batches of pages decided (two-pass detectors): a site's pages once its last record has
    /// arrived (detectors that decide site by site; small sites a few together), and every
    /// page waiting when they reach the batch memory or the input ends.
    pub batches: u32,
    /// Peak bytes of pages waiting for a decision.
    pub peak_batch_bytes: u64,
    /// Seconds spent deciding and emitting batches (two-pass detectors), after their pages
    /// were read and learned.
    #[serde(default)]
    pub batch_seconds: f64,
    /// What the detector counted (see [`Detector::counters`]); over several rounds, counts
    /// are summed and peaks (named in [`counters_merged_by_max`](Self::counters_merged_by_max))
    /// are the largest.
    ///
    /// [`Detector::counters`]: crate::detect::Detector::counters
    #[serde(default)]
    pub counters: BTreeMap<String, u64>,
    /// The [`counters`](Self::counters) that are peaks, combined by taking the largest.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub counters_merged_by_max: BTreeSet<String>,
    /// Records passed over (all but the WARC records that are not pages) and pages cut short,
    /// for `--skip-log`; not stored with the index.
    #[serde(skip)]
    pub skipped_records: Vec<SkippedRecord>,
    /// The first few of [`skipped_records`](Self::skipped_records), for the summary.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub first_skipped: Vec<SkippedRecord>,
    /// Reads of the input: 1, or the number of site rounds the memory budget asked for.
    #[serde(default)]
    pub rounds: u32,
    /// The memory budget in force, bytes.
    #[serde(default)]
    pub memory_budget: u64,
    /// Where the run could not keep within the memory budget, and why.
    #[serde(default)]
    pub warnings: Vec<String>,
    /// How pages were cut into blocks, so that a page can be segmented again as it was
    /// decided (`indexer serve`'s page view).
    #[serde(default)]
    pub segment_options: Option<crate::segment::SegmentOptions>,
    /// The per-page limits of the run.
    #[serde(default)]
    pub segment_limits: Option<crate::segment::SegmentLimits>,
    /// The site models the run started from and left with the index.
    #[serde(default)]
    pub site_models: SiteModelFigures,
    /// Pages of an `add` whose URL the index did not hold.
    #[serde(default)]
    pub added: u64,
    /// Pages of an `add` that replaced the index's page of their URL (a different page,
    /// fetched as late or later).
    #[serde(default)]
    pub replaced: u64,
    /// Pages of an `add` the index holds already as they are (same URL, same HTML): passed
    /// over before the detector learns them, so a crawl added twice counts once.
    #[serde(default)]
    pub unchanged: u64,
    /// Pages of an `add` fetched before the index's page of their URL: left out.
    #[serde(default)]
    pub older_than_indexed: u64,
    /// The sites a two-pass `add` decided again whole, having taken them past a power of two
    /// in pages (`lifecycle/redecide.rs`).
    #[serde(default)]
    pub redecided: RedecidedFigures,
    /// The runs that made this index, oldest first: a `build` starts it, each `add` and
    /// `delete` adds one.
    #[serde(default)]
    pub history: Vec<RunRecord>,
    /// Wall time of the run, seconds.
    pub seconds: f64,
}

/// What a run did with site models ([`crate::index::site_models`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SiteModelFigures {
    /// Sites whose stored model the run started from.
    pub restored: u64,
    /// Stored models that could not be read back (those sites started afresh).
    pub unreadable: u64,
    /// Why the stored models were not used, if they were not (another detector or settings).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_used: Option<String>,
    /// Sites whose model the run saved.
    pub saved: u64,
    /// Sites in the index's site-model file after the run.
    pub stored: u64,
    /// Bytes of that file.
    pub stored_bytes: u64,
}

impl SiteModelFigures {
    fn absorb(&mut self, other: SiteModelFigures) {
        let SiteModelFigures {
            restored,
            unreadable,
            not_used,
            saved,
            stored: _,
            stored_bytes: _,
        } = other;
        self.restored += restored;
        self.unreadable += unreadable;
        self.saved += saved;
        if self.not_used.is_none() {
            self.not_used = not_used;
        }
    }
}

/// A record passed over, or a page cut short, and where it lies.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SkippedRecord {
    /// The input file as given ("-" for standard input; empty when not known).
    pub input: String,
    /// The input's number, until [`BuildSummary::locate_skips`] names it.
    #[serde(skip)]
    pub input_number: Option<u32>,
    /// The record's byte offset in that file (none for a whole file).
    pub offset: Option<u64>,
    /// The record's URL, when known.
    pub url: Option<String>,
    /// A skip reason ([`crate::read::SkipReason`]), `cut_by_<limit>` for a page cut short by
    /// a limit, or `truncated_record_kept` for the part of a record read before its file ended.
    pub reason: String,
    /// What was wrong, in words.
    pub detail: String,
}

impl SkippedRecord {
    /// Whether the record was passed over (not a page indexed in part).
    pub fn passed_over(&self) -> bool {
        !(self.reason.starts_with("cut_by_") || self.reason == "truncated_record_kept")
    }

    /// Where it lies and what was wrong, for people: `a.warc.gz at byte 1234,
    /// http://example.org/: HTTP status 404 (http_status)`.
    pub fn describe(&self) -> String {
        let mut line = if self.input.is_empty() {
            "(input unknown)".to_string()
        } else {
            self.input.clone()
        };
        if let Some(offset) = self.offset {
            line.push_str(&format!(" at byte {offset}"));
        }
        if let Some(url) = &self.url {
            line.push_str(&format!(", {url}"));
        }
        format!("{line}: {} ({})", self.detail, self.reason)
    }
}

/// Skipped records shown in the summary, at most.
const FIRST_SKIPPED: usize = 5;

/// `bytes` in the largest binary unit that keeps it at or over 1: "512 B", "3.4 MiB".
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// `count` and `noun`, the noun plural unless the count is one: "1 record", "3 records",
/// "2 batches", "0 indexes".
pub fn counted(count: u64, noun: &str) -> String {
    if count == 1 {
        return format!("1 {noun}");
    }
    let ending = if ["s", "x", "ch", "sh"].iter().any(|end| noun.ends_with(end)) {
        "es"
    } else {
        "s"
    };
    format!("{count} {noun}{ending}")
}

/// "; skipped: 3 not_html, 1 truncated_record", or empty.
pub fn format_skips(skipped: &BTreeMap<String, u64>) -> String {
    if skipped.is_empty() {
        return String::new();
    }
    let parts: Vec<String> = skipped
        .iter()
        .map(|(reason, n)| format!("{n} {reason}"))
        .collect();
    format!("; skipped: {}", parts.join(", "))
}

impl BuildSummary {
    /// The kind of run whose figures this summary holds: the history's last run that read
    /// pages (a `delete` keeps the summary before it); `None` without a history (as an index
    /// older than histories keeps).
    pub fn run_kind(&self) -> Option<RunKind> {
        (self.history.iter().rev())
            .map(|run| run.kind)
            .find(|&kind| kind != RunKind::Delete)
    }

    /// How [`run_kind`](Self::run_kind) says what made these figures: "built", "added" or
    /// "combined".
    pub fn made_by(&self) -> &'static str {
        match self.run_kind() {
            Some(RunKind::Add) => "added",
            Some(RunKind::Combine) => "combined",
            _ => "built",
        }
    }

    /// Counts `skip` by reason and keeps it for the skip log (a WARC record that is not a page
    /// is only counted).
    pub(crate) fn count_skip(&mut self, skip: &crate::read::Skip) {
        *self
            .skipped
            .entry(skip.reason.as_str().to_string())
            .or_default() += 1;
        if skip.reason != crate::read::SkipReason::NonPageRecord {
            self.skipped_records.push(SkippedRecord {
                input: String::new(),
                input_number: Some(skip.input),
                offset: skip.offset,
                url: skip.url.clone(),
                reason: skip.reason.as_str().to_string(),
                detail: skip.detail.clone(),
            });
        }
    }

    /// The summaries of shards of one crawl built with the same settings, as one (`combine`,
    /// `stats IDX...`): counts added and peaks the largest ([`absorb`](Self::absorb)), inputs,
    /// warnings and the first skips in shard order, wall times added, rounds the most any
    /// shard needed.
    pub fn of_shards<'a>(shards: impl IntoIterator<Item = &'a BuildSummary>) -> BuildSummary {
        let mut summary = BuildSummary::default();
        let (mut inputs, mut input_bytes, mut seconds, mut rounds) = (Vec::new(), 0, 0.0, 0);
        let (mut warnings, mut first_skipped) = (Vec::new(), Vec::new());
        for shard in shards {
            inputs.extend(shard.inputs.iter().cloned());
            input_bytes += shard.input_bytes;
            seconds += shard.seconds;
            rounds = rounds.max(shard.rounds);
            warnings.extend(shard.warnings.iter().cloned());
            first_skipped.extend(shard.first_skipped.iter().cloned());
            summary.absorb(shard.clone());
        }
        first_skipped.truncate(FIRST_SKIPPED);
        BuildSummary {
            inputs,
            input_bytes,
            seconds,
            rounds,
            warnings,
            first_skipped,
            ..summary
        }
    }

    /// Adds records passed over before this run read its input (a partition step's), to the
    /// counts and to the first few the summary shows.
    pub fn add_skipped_records(
        &mut self,
        records: &[SkippedRecord],
        by_reason: &BTreeMap<String, u64>,
    ) {
        for (reason, count) in by_reason {
            *self.skipped.entry(reason.clone()).or_default() += count;
            self.records += count;
        }
        let room = FIRST_SKIPPED.saturating_sub(self.first_skipped.len());
        self.first_skipped
            .extend(records.iter().take(room).cloned());
        self.skipped_records.extend(records.iter().cloned());
    }

    /// Names the input file of every skipped record, and keeps the first few for the
    /// summary.
    pub(crate) fn locate_skips(&mut self, inputs: &crate::read::InputSet) {
        for record in &mut self.skipped_records {
            if let Some(number) = record.input_number {
                record.input = inputs.path_of(number);
            }
        }
        self.first_skipped = self
            .skipped_records
            .iter()
            .take(FIRST_SKIPPED)
            .cloned()
            .collect();
    }

    /// Records the tool, the options' command line and `started` (UTC).
    pub fn note_provenance(&mut self, command_line: &[String], started: SystemTime) {
        self.tool = crate::VERSION.to_string();
        self.command_line = command_line.to_vec();
        self.started = utc_timestamp(started);
    }

    /// Adds the figures of another round of the same run (or of another shard built with
    /// the same settings).
    pub fn absorb(&mut self, other: BuildSummary) {
        // Every field named, so that a new one does not compile until it is handled here.
        let BuildSummary {
            // Figures of the whole run, which the run sets once its rounds are done
            // (`of_shards` combines those of shards).
            tool: _,
            command_line: _,
            started: _,
            inputs: _,
            first_skipped: _,
            rounds: _,
            memory_budget: _,
            warnings: _,
            seconds: _,
            // Settings, the same in every round: the first round's are kept.
            detector,
            settings,
            passes,
            threads,
            input_bytes,
            segment_options,
            segment_limits,
            // Counts, added, and peaks, the largest kept.
            skipped_records,
            records,
            pages,
            replaced_by_later_record,
            skipped,
            limited,
            truncated_pages,
            plain_text_pages,
            html_bytes,
            blocks_kept,
            blocks_dropped,
            text_bytes_kept,
            text_bytes_dropped,
            peak_state_bytes,
            batches,
            peak_batch_bytes,
            batch_seconds,
            counters,
            counters_merged_by_max,
            site_models,
            added,
            replaced,
            unchanged,
            older_than_indexed,
            redecided,
            // The index's, set by the run that stores the summary.
            history: _,
        } = other;
        self.site_models.absorb(site_models);
        if self.detector.is_empty() {
            self.detector = detector;
            self.settings = settings;
            self.passes = passes;
            self.threads = threads;
            self.input_bytes = input_bytes;
            self.segment_options = segment_options;
            self.segment_limits = segment_limits;
        }
        self.skipped_records.extend(skipped_records);
        self.records += records;
        self.pages += pages;
        self.replaced_by_later_record += replaced_by_later_record;
        for (reason, count) in skipped {
            *self.skipped.entry(reason).or_default() += count;
        }
        for (limit, count) in limited {
            *self.limited.entry(limit).or_default() += count;
        }
        self.truncated_pages += truncated_pages;
        self.plain_text_pages += plain_text_pages;
        self.html_bytes += html_bytes;
        self.blocks_kept += blocks_kept;
        self.blocks_dropped += blocks_dropped;
        self.text_bytes_kept += text_bytes_kept;
        self.text_bytes_dropped += text_bytes_dropped;
        self.peak_state_bytes = self.peak_state_bytes.max(peak_state_bytes);
        self.batches += batches;
        self.peak_batch_bytes = self.peak_batch_bytes.max(peak_batch_bytes);
        self.batch_seconds += batch_seconds;
        self.added += added;
        self.replaced += replaced;
        self.unchanged += unchanged;
        self.older_than_indexed += older_than_indexed;
        self.redecided.absorb(redecided);
        self.counters_merged_by_max.extend(counters_merged_by_max);
        for (name, count) in counters {
            let entry = self.counters.entry(name.clone()).or_default();
            *entry = if self.counters_merged_by_max.contains(&name) {
                (*entry).max(count)
            } else {
                *entry + count
            };
        }
    }

    /// What differs between the detector (name, settings, passes) and segmentation of this
    /// run and of `other`, if anything: what, and the two values when they are short. Runs
    /// that differ so decide pages differently, so their indexes are not joined (`combine`)
    /// nor added to (`add`).
    pub fn detector_difference(&self, other: &BuildSummary) -> Option<(&'static str, String)> {
        let short = |a: &dyn std::fmt::Display, b: &dyn std::fmt::Display| {
            let (a, b) = (a.to_string(), b.to_string());
            if a.len() + b.len() < 200 {
                format!(" ({a} against {b})")
            } else {
                String::new()
            }
        };
        if self.detector != other.detector {
            return Some(("their detectors", short(&self.detector, &other.detector)));
        }
        if self.settings != other.settings {
            return Some((
                "their detector settings",
                short(&self.settings, &other.settings),
            ));
        }
        if self.passes != other.passes {
            return Some((
                "their passes (--one-pass)",
                short(&self.passes, &other.passes),
            ));
        }
        if self.segment_options != other.segment_options
            || self.segment_limits != other.segment_limits
        {
            return Some(("their segmentation settings", String::new()));
        }
        None
    }

    /// Adds a detector's counters of this run: each summed with what is counted already, or
    /// the larger kept when it is a peak — as [`absorb`](Self::absorb) combines rounds (a
    /// read of several detectors adds each one's).
    pub fn add_counters(&mut self, counters: Vec<Counter>) {
        for counter in counters {
            let entry = self.counters.entry(counter.name.to_string()).or_default();
            if counter.merge == Merge::Max {
                self.counters_merged_by_max.insert(counter.name.to_string());
                *entry = (*entry).max(counter.value);
            } else {
                *entry += counter.value;
            }
        }
    }
}

/// `time` as an RFC 3339 UTC timestamp to the second: "2026-11-23T03:21:07Z".
pub fn utc_timestamp(time: SystemTime) -> String {
    let seconds = time
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_secs());
    let (days, of_day) = (seconds / 86_400, seconds % 86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1_460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        of_day / 3_600,
        of_day % 3_600 / 60,
        of_day % 60
    )
}

impl RunRecord {
    /// The record of a run that read pages (`build`, `combine`, `add`), from its summary:
    /// its inputs and the counts of its pages; `documents` after it.
    pub fn of_run(kind: RunKind, summary: &BuildSummary, documents: u64) -> RunRecord {
        let mut counts = BTreeMap::from([
            ("records".to_string(), summary.records),
            ("pages".to_string(), summary.pages),
            (
                "replaced_by_later_record".to_string(),
                summary.replaced_by_later_record,
            ),
        ]);
        if kind == RunKind::Add {
            counts.extend([
                ("added".to_string(), summary.added),
                ("replaced".to_string(), summary.replaced),
                ("unchanged".to_string(), summary.unchanged),
                ("older_than_indexed".to_string(), summary.older_than_indexed),
                ("redecided_sites".to_string(), summary.redecided.sites),
                ("redecided_pages".to_string(), summary.redecided.pages),
                ("redecided_replaced".to_string(), summary.redecided.replaced),
            ]);
        }
        RunRecord {
            kind,
            started: summary.started.clone(),
            inputs: summary.inputs.clone(),
            deleted: Vec::new(),
            counts,
            documents,
        }
    }

    /// The history after a run that read pages: a new one for `build` and `combine`,
    /// `previous` and this run for `add`.
    pub fn history_after(
        kind: RunKind,
        previous: &[RunRecord],
        summary: &BuildSummary,
        documents: u64,
    ) -> Vec<RunRecord> {
        let mut history = match kind {
            RunKind::Add | RunKind::Delete => previous.to_vec(),
            RunKind::Build | RunKind::Combine => Vec::new(),
        };
        history.push(RunRecord::of_run(kind, summary, documents));
        history
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_added_twice_combine_as_rounds_do() {
        let mut summary = BuildSummary::default();
        for (sites, peak) in [(3, 40), (5, 70), (0, 10)] {
            summary.add_counters(vec![
                Counter::sum("sites", sites),
                Counter::max("peak", peak),
            ]);
        }
        assert_eq!(summary.counters["sites"], 8);
        assert_eq!(summary.counters["peak"], 70);
        assert!(summary.counters_merged_by_max.contains("peak"));
    }

    #[test]
    fn sizes_are_human() {
        assert_eq!(human_bytes(512), "512 B");
        assert_eq!(human_bytes(1536), "1.5 KiB");
        assert_eq!(human_bytes(5 << 20), "5.0 MiB");
    }

    #[test]
    fn a_skip_says_where_and_why() {
        let mut record = SkippedRecord {
            input: "a.warc.gz".into(),
            input_number: None,
            offset: Some(1234),
            url: Some("http://example.org/".into()),
            reason: "http_status".into(),
            detail: "HTTP status 404".into(),
        };
        assert_eq!(
            record.describe(),
            "a.warc.gz at byte 1234, http://example.org/: HTTP status 404 (http_status)"
        );
        assert!(record.passed_over());
        record.reason = "cut_by_page_bytes".into();
        assert!(!record.passed_over());
    }

    #[test]
    fn counts_say_one_thing_or_many() {
        assert_eq!(counted(1, "record"), "1 record");
        assert_eq!(counted(0, "page"), "0 pages");
        assert_eq!(counted(3, "block"), "3 blocks");
        assert_eq!(counted(2, "batch"), "2 batches");
        assert_eq!(counted(5, "index"), "5 indexes");
    }

    #[test]
    fn timestamps_are_utc_rfc_3339() {
        let at = |seconds| utc_timestamp(UNIX_EPOCH + std::time::Duration::from_secs(seconds));
        assert_eq!(at(0), "1970-01-01T00:00:00Z");
        assert_eq!(at(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(at(1_795_403_587), "2026-11-23T03:13:07Z");
    }

    #[test]
    fn rounds_add_counts_and_keep_the_largest_peak() {
        let round = |sites: u64, peak: u64| {
            let mut summary = BuildSummary {
                detector: "bloom".into(),
                pages: sites * 10,
                ..BuildSummary::default()
            };
            summary.add_counters(vec![
                Counter::sum("sites", sites),
                Counter::max("peak_site_state_bytes", peak),
            ]);
            summary
        };
        let mut total = BuildSummary::default();
        total.absorb(round(3, 700));
        total.absorb(round(2, 900));
        total.absorb(round(4, 100));
        assert_eq!(total.pages, 90);
        assert_eq!(total.counters["sites"], 9);
        assert_eq!(total.counters["peak_site_state_bytes"], 900);
    }

    #[test]
    fn rounds_keep_the_first_settings_and_leave_the_run_s_own_figures() {
        let round = |detector: &str, input_bytes: u64, records: u64| BuildSummary {
            detector: detector.into(),
            input_bytes,
            records,
            seconds: 5.0,
            rounds: 1,
            inputs: vec!["a.warc.gz".into()],
            peak_batch_bytes: records * 100,
            ..BuildSummary::default()
        };
        let mut total = BuildSummary::default();
        total.absorb(round("bloom", 700, 3));
        total.absorb(round("other", 900, 4));
        assert_eq!((total.detector.as_str(), total.input_bytes), ("bloom", 700));
        assert_eq!(total.records, 7);
        assert_eq!(total.peak_batch_bytes, 400);
        assert_eq!((total.seconds, total.rounds), (0.0, 0));
        assert!(total.inputs.is_empty());
    }
}
