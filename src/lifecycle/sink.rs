//! The sink every run that writes an index shares (`build`, `add`, an add's sites decided
//! again): decided pages in, documents of the new generation out — added, in place of the
//! page of their URL, or not at all, as [`Latest`] says — each recorded with the absolute path
//! of the file it came from and its decision record.

use std::path::{Path, PathBuf};

use rustc_hash::FxHashMap;

use super::latest::Latest;
use crate::index::{IndexBuild, IndexError, IndexedPage, SiteModelsWriter};
use crate::read::InputSet;
use crate::report::{BuildSummary, RunKind, RunRecord};
use crate::run::{BuildError, DecidedPage, RunPlan, scratch_error};

/// Writes decided pages into an index generation.
pub(super) struct IndexSink<'w, 'i> {
    writer: &'w mut IndexBuild,
    inputs: &'i InputSet,
    /// Each input's absolute path, once asked for.
    sources: FxHashMap<u32, Option<String>>,
}

impl<'w, 'i> IndexSink<'w, 'i> {
    pub(super) fn new(writer: &'w mut IndexBuild, inputs: &'i InputSet) -> Self {
        IndexSink {
            writer,
            inputs,
            sources: FxHashMap::default(),
        }
    }

    /// The absolute path of input `input` (see [`source_in`]).
    pub(super) fn source_of(&mut self, input: u32) -> Option<&str> {
        source_in(&mut self.sources, self.inputs, input)
    }

    /// Writes `decided`, whose decision record is `decisions` ([`DecidedPage::decision_bytes`]),
    /// into the index as `verdict` says: added, in place of the page of its URL (`Replaces`), or
    /// not at all (`Earlier`).
    pub(super) fn write(
        &mut self,
        decided: &DecidedPage,
        decisions: &[u8],
        verdict: Latest,
    ) -> Result<(), BuildError> {
        if verdict == Latest::Earlier {
            return Ok(());
        }
        let source = source_in(&mut self.sources, self.inputs, decided.location.input);
        let body = decided.kept_text();
        let kept = decided.kept_blocks();
        let (kept_text_bytes, dropped_text_bytes) = decided.text_bytes();
        let page = IndexedPage {
            url: &decided.page.url,
            site: &decided.page.site,
            title: &decided.page.title,
            body: &body,
            kept_blocks: kept,
            dropped_blocks: decided.verdicts.len() as u64 - kept,
            source,
            source_offset: decided.location.offset,
            source_length: decided.record_length,
            decisions,
            kept_text_bytes,
            dropped_text_bytes,
            fetched: decided.fetched.map_or(i64::MIN, |time| time.0),
            digest: decided.digest,
        };
        match verdict {
            Latest::Replaces => self.writer.replace(&page)?,
            _ => self.writer.add(&page)?,
        }
        Ok(())
    }
}

/// The absolute path of input `input`, as an index records where a page came from (`None`
/// for standard input, which cannot be read again), kept in `sources` once found.
fn source_in<'s>(
    sources: &'s mut FxHashMap<u32, Option<String>>,
    inputs: &InputSet,
    input: u32,
) -> Option<&'s str> {
    sources
        .entry(input)
        .or_insert_with(|| {
            let path = inputs.path_of(input);
            if path == "-" {
                return None;
            }
            let absolute = std::path::absolute(&path).unwrap_or_else(|_| PathBuf::from(&path));
            Some(absolute.display().to_string())
        })
        .as_deref()
}

/// The scratch folder of a run that `plan` splits into rounds, in the generation being
/// written to `index`. Merges are held while the rounds run: tantivy would otherwise merge
/// ever larger segments and map them back in, raising the peak memory of a large crawl for no
/// gain in speed (docs/MEASUREMENTS.md, cost against crawl size).
pub(super) fn scratch_for_rounds(
    writer: &mut IndexBuild,
    plan: &RunPlan,
    index: &Path,
) -> Result<Option<tempfile::TempDir>, BuildError> {
    if !plan.rounds {
        return Ok(None);
    }
    writer.hold_merges();
    Ok(Some(writer.scratch_dir().map_err(scratch_error(index))?))
}

/// Ends a run that read pages into `writer`'s generation: writes the sites' models beside it,
/// commits it (live from then on) and records the run in the history after `previous`.
pub(super) fn commit_generation(
    writer: IndexBuild,
    saved_models: SiteModelsWriter,
    mut summary: BuildSummary,
    kind: RunKind,
    previous: &[RunRecord],
) -> Result<BuildSummary, BuildError> {
    summary.site_models.stored = saved_models.len() as u64;
    summary.site_models.stored_bytes = saved_models
        .write(writer.generation_directory())
        .map_err(IndexError::from)?;
    let (_, summary) = writer.commit_counted(|documents| {
        summary.history = RunRecord::history_after(kind, previous, &summary, documents);
        summary
    })?;
    Ok(summary)
}
