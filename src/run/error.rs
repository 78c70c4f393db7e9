//! Why a run failed: every error of the build stages, in one type.

use std::path::PathBuf;

use indexer_pipeline::PipelineError;

use crate::index::IndexError;
use crate::read::ReadError;

use crate::report::{BuildSummary, counted, format_skips};

/// Why a run failed.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// The inputs could not be opened.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// The index could not be written.
    #[error(transparent)]
    Index(#[from] IndexError),
    /// The caller's output (what `emit` writes) could not be written.
    #[error("writing output: {0}")]
    Output(#[from] std::io::Error),
    /// The temporary files of a run in rounds could not be written or read back.
    #[error("scratch files in {dir}: {source}")]
    Scratch {
        /// The scratch directory.
        dir: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
    /// A stage failed unexpectedly.
    #[error("pipeline stopped: {0}")]
    Pipeline(String),
    /// The run was stopped before it finished (see [`crate::run::BuildOptions::stop`]).
    #[error("interrupted; the previous index, if any, is unchanged")]
    Interrupted,
    /// `one_pass` was asked of a detector that needs two passes.
    #[error(transparent)]
    NeedsOnePass(#[from] super::options::NeedsOnePassDetector),
    /// `add` was asked with other detector options than the index was built with.
    #[error(
        "{} was built with {built_with}; add takes the same detector options ({what} differ{details})",
        index.display()
    )]
    DifferentDetector {
        /// The index.
        index: PathBuf,
        /// The detector flags it was built with.
        built_with: String,
        /// What differs.
        what: &'static str,
        /// The two values, when short.
        details: String,
    },
    /// Nothing to index.
    #[error(
        "no HTML pages found in the input ({} read{}{}); the previous index, if any, is unchanged",
        counted(.summary.records, "record"),
        format_skips(&.summary.skipped),
        if .summary.records == 0 && .summary.skipped.is_empty() {
            format!(": {}", crate::read::INPUTS_READ)
        } else {
            String::new()
        }
    )]
    NoPages {
        /// What the run read and passed over (with the records for a skip log).
        summary: Box<BuildSummary>,
    },
}

impl From<PipelineError<BuildError>> for BuildError {
    fn from(error: PipelineError<BuildError>) -> Self {
        match error {
            PipelineError::Stage { error, .. } => error,
            panicked @ PipelineError::Panicked { .. } => BuildError::Pipeline(panicked.to_string()),
        }
    }
}
