//! Update: an existing index and new inputs (`add`) or pages to remove (`delete`) in, a new
//! generation of the index out, live only when complete.
//!
//! An `add` decides pages as the index's build did — the same detector, settings and passes,
//! or it is refused — and compares each page with the index's page of its URL: the same
//! HTML (digest) is unchanged and goes no further (not learned by the detector, not
//! indexed); a different page fetched as late or later replaces it; one fetched earlier is
//! left out; a URL the index does not hold is added. An add then decides again, whole, the
//! sites its [`Redecision`] names: by default, with a two-pass detector, each site it took
//! past a power of two in pages ([`super::redecide`]). Both keep the index's history
//! ([`RunRecord`]) in the stored summary.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use rustc_hash::FxHashSet;

use super::latest::{IndexedPages, Latest, LatestByUrl, url_key};
use super::redecide::{SitePages, indexed_pages_of, redecide_sites};
use super::sink::{IndexSink, commit_generation, scratch_for_rounds};
use crate::detect::{Detector, DetectorVisitor, Passes};
use crate::index::site_models::forget_sites;
use crate::index::{DeleteTarget, IndexBuild, IndexError, SiteModelsWriter, StoredSiteModels};
use crate::report::{BuildSummary, Redecision, RunKind, RunRecord};
use crate::run::{
    BuildError, BuildOptions, DecidedPage, FromIndex, Output, Progress, RunPlan, SiteModelStore,
    begin_run, decide_inputs, finish_summary,
};
use crate::segment::SegmentLimits;

/// What the summary of a run with `options` and `plan` would say of its detector and
/// segmentation, without running it.
struct DetectorOf {
    passes: Passes,
    limits: SegmentLimits,
}

impl DetectorVisitor for DetectorOf {
    type Output = BuildSummary;

    fn visit<D: Detector>(self, detector: D) -> BuildSummary {
        BuildSummary {
            detector: D::NAME.to_string(),
            settings: detector.settings(),
            passes: self.passes.count(),
            segment_options: Some(detector.segment_options()),
            segment_limits: Some(self.limits),
            ..BuildSummary::default()
        }
    }
}

/// The detector options that make a run like the one `summary` describes, as flags.
fn detector_flags(summary: &BuildSummary) -> String {
    let two_pass_detector = crate::detect::DetectorKind::ALL
        .iter()
        .any(|kind| kind.name() == summary.detector && kind.passes() == Passes::Two);
    let one_pass = if summary.passes == 1 && two_pass_detector {
        " --one-pass"
    } else {
        ""
    };
    format!("--detector {}{one_pass}", summary.detector)
}

/// Adds the pages of `inputs` to the index at `index`, then decides again the sites
/// `redecision` names (see the module's docs). The new generation replaces the live one only
/// when complete; anything that fails leaves the index as it was.
pub fn add_to_index(
    inputs: &[PathBuf],
    index: &Path,
    options: &BuildOptions,
    redecision: Redecision,
    progress: &dyn Progress,
) -> Result<BuildSummary, BuildError> {
    let (input_set, started) = begin_run(inputs, options)?;
    let plan = RunPlan::new(options, &input_set, Output::Index);
    let (mut writer, previous) =
        IndexBuild::begin_update(index, plan.index_threads, plan.writer_heap)?;
    let before: BuildSummary = previous.summary()?;
    let limits = options.limits;
    let this_run = options.detector.visit(
        &options.settings,
        plan.passes,
        DetectorOf {
            passes: plan.passes,
            limits,
        },
    );
    if let Some((what, details)) = before.detector_difference(&this_run) {
        return Err(BuildError::DifferentDetector {
            index: index.to_path_buf(),
            built_with: detector_flags(&before),
            what,
            details,
        });
    }
    let scratch = scratch_for_rounds(&mut writer, &plan, index)?;

    let mut latest = LatestByUrl::default();
    let mut indexed = IndexedPages::default();
    let mut site_pages = SitePages::default();
    writer.for_each_indexed_page(|site, url, fetched, digest| {
        latest.seed(url, fetched);
        indexed.note(url, digest);
        site_pages.note_indexed(site);
    })?;
    let unchanged = |url: &str, digest: u64| indexed.unchanged(url, digest);
    let stored_models = StoredSiteModels::open(&previous.directory).map_err(IndexError::from)?;
    let mut saved_models = SiteModelsWriter::default();
    let site_models = SiteModelStore {
        stored: stored_models.as_ref(),
        saved: Some(&mut saved_models),
    };
    let mut counts = UpdateCounts::default();
    let mut sink = IndexSink::new(&mut writer, &input_set);
    let mut summary = decide_inputs(
        &input_set,
        options,
        &plan,
        scratch,
        progress,
        FromIndex {
            site_models,
            unchanged: Some(&unchanged),
        },
        &mut |decided: DecidedPage| {
            let url = &decided.page.url;
            let verdict = latest.offer(url, decided.fetched);
            counts.count(verdict, url, indexed.holds(url));
            let decisions = decided.decision_bytes();
            sink.write(&decided, &decisions, verdict)?;
            let source = sink.source_of(decided.location.input);
            site_pages.note_written(&decided, &decisions, verdict, source);
            Ok(())
        },
    )?;
    drop(sink);
    counts.store(&mut summary);
    if !options.stopped() {
        let sites = site_pages.sites_to_redecide(redecision, plan.passes);
        let indexed_pages = indexed_pages_of(&writer, &sites)?;
        summary.redecided = redecide_sites(
            &mut writer,
            redecision,
            &sites,
            indexed_pages,
            &site_pages,
            options,
            &mut saved_models,
            progress,
        )?;
    }
    finish_summary(&mut summary, inputs, &input_set, options, started);
    if options.stopped() {
        return Err(BuildError::Interrupted);
    }
    if summary.pages == 0 && summary.unchanged == 0 {
        return Err(BuildError::NoPages {
            summary: Box::new(summary),
        });
    }
    // The sites this add did not see keep their models as they were.
    if let Some(stored) = &stored_models {
        saved_models.carry_over(stored);
    }
    drop(stored_models);
    commit_generation(writer, saved_models, summary, RunKind::Add, &before.history)
}

/// What an add did with the pages it decided.
#[derive(Default)]
struct UpdateCounts {
    added: u64,
    replaced: u64,
    older_than_indexed: u64,
    replaced_by_later_record: u64,
    /// The URLs of the index whose page a page of this add has replaced.
    replaced_urls: FxHashSet<u64>,
}

impl UpdateCounts {
    /// Counts a page of `url` that `verdict` says what to do with; `indexed` when the index
    /// held the URL when the add began. A second page of a URL in the add is counted as a
    /// build counts it (`replaced_by_later_record`).
    fn count(&mut self, verdict: Latest, url: &str, indexed: bool) {
        let key = url_key(url);
        match verdict {
            Latest::First => self.added += 1,
            Latest::Replaces if indexed && self.replaced_urls.insert(key) => self.replaced += 1,
            Latest::Earlier if indexed && !self.replaced_urls.contains(&key) => {
                self.older_than_indexed += 1;
            }
            _ => self.replaced_by_later_record += 1,
        }
    }

    fn store(self, summary: &mut BuildSummary) {
        summary.added = self.added;
        summary.replaced = self.replaced;
        summary.older_than_indexed = self.older_than_indexed;
        summary.replaced_by_later_record = self.replaced_by_later_record;
    }
}

/// What `delete` did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Deleted {
    /// Documents removed.
    pub deleted: u64,
    /// The targets that named no document of the index.
    pub not_found: Vec<String>,
    /// Documents in the index after.
    pub documents: u64,
    /// The new generation's directory.
    pub generation: PathBuf,
}

/// Deletes the pages `targets` name from the index at `index`: a new generation without
/// them, live only when complete. Targets that name nothing are reported, not refused.
pub fn delete_from_index(index: &Path, targets: &[DeleteTarget]) -> Result<Deleted, BuildError> {
    let started = std::time::SystemTime::now();
    let (mut writer, previous) = IndexBuild::begin_update(index, 1, 0)?;
    let before: BuildSummary = previous.summary()?;
    let targets: BTreeSet<&DeleteTarget> = targets.iter().collect();
    let mut not_found = Vec::new();
    for target in &targets {
        if writer.delete(target)? == 0 {
            not_found.push(target.to_string());
        }
    }
    // A deleted site's template model goes with its pages.
    let sites: Vec<String> = targets
        .iter()
        .filter_map(|target| match target {
            DeleteTarget::Site(site) => Some(site.clone()),
            DeleteTarget::Url(_) => None,
        })
        .collect();
    let writer_directory = writer.generation_directory().to_path_buf();
    let forgotten = forget_sites(&writer_directory, &sites).map_err(IndexError::from)?;
    let (generation, summary) = writer.commit_counted(|documents| {
        let mut summary = before.clone();
        summary.site_models.stored = summary.site_models.stored.saturating_sub(forgotten);
        summary.site_models.stored_bytes =
            std::fs::metadata(writer_directory.join(crate::index::site_models::SITE_MODELS_FILE))
                .map_or(0, |file| file.len());
        let deleted = previous.documents.saturating_sub(documents);
        summary.history.push(RunRecord {
            kind: RunKind::Delete,
            started: crate::report::utc_timestamp(started),
            inputs: Vec::new(),
            deleted: targets.iter().map(|target| target.to_string()).collect(),
            counts: [
                ("deleted".to_string(), deleted),
                ("not_found".to_string(), not_found.len() as u64),
            ]
            .into(),
            documents,
        });
        summary
    })?;
    let documents = summary.history.last().map_or(0, |run| run.documents);
    Ok(Deleted {
        deleted: previous.documents.saturating_sub(documents),
        not_found,
        documents,
        generation,
    })
}
