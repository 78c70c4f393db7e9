//! Build: inputs in, a new index out (live only when complete), one document per URL — the
//! latest crawl's — with the sites' models and the run's history stored beside it.

use std::path::{Path, PathBuf};

use super::latest::{Latest, LatestByUrl};
use super::sink::{IndexSink, commit_generation, scratch_for_rounds};
use crate::index::{IndexBuild, SiteModelsWriter};
use crate::report::{BuildSummary, RunKind};
use crate::run::{
    BuildError, BuildOptions, DecidedPage, FromIndex, Output, Progress, RunPlan, SiteModelStore,
    begin_run, decide_inputs, finish_summary,
};

/// Builds (or rebuilds) the index at `index` from `inputs`. The new index replaces the old
/// only when complete. It holds one document per URL, the latest crawl's
/// ([`BuildSummary::replaced_by_later_record`] counts the others).
pub fn build_index(
    inputs: &[PathBuf],
    index: &Path,
    options: &BuildOptions,
    progress: &dyn Progress,
) -> Result<BuildSummary, BuildError> {
    let (input_set, started) = begin_run(inputs, options)?;
    let plan = RunPlan::new(options, &input_set, Output::Index);
    let mut writer = IndexBuild::begin(index, plan.index_threads, plan.writer_heap)?;
    let scratch = scratch_for_rounds(&mut writer, &plan, index)?;
    let mut latest = LatestByUrl::default();
    let mut replaced = 0;
    let mut saved_models = SiteModelsWriter::default();
    let site_models = SiteModelStore {
        stored: None,
        saved: Some(&mut saved_models),
    };
    let mut sink = IndexSink::new(&mut writer, &input_set);
    let mut summary = decide_inputs(
        &input_set,
        options,
        &plan,
        scratch,
        progress,
        FromIndex {
            site_models,
            unchanged: None,
        },
        &mut |decided: DecidedPage| {
            let verdict = latest.offer(&decided.page.url, decided.fetched);
            if verdict != Latest::First {
                replaced += 1;
            }
            let decisions = decided.decision_bytes();
            sink.write(&decided, &decisions, verdict)
        },
    )?;
    drop(sink);
    summary.replaced_by_later_record = replaced;
    finish_summary(&mut summary, inputs, &input_set, options, started);
    if options.stopped() {
        return Err(BuildError::Interrupted);
    }
    if summary.pages == 0 {
        return Err(BuildError::NoPages {
            summary: Box::new(summary),
        });
    }
    commit_generation(writer, saved_models, summary, RunKind::Build, &[])
}
