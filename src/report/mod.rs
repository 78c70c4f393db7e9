//! Reports: the plain figures a run leaves behind — its [`BuildSummary`] (stored with an
//! index as `build.json`, printed by `build`, `stats`, `extract`), the index's history of runs,
//! what an `add` decided again — and the helpers that write counts, sizes and times for
//! people. Every room that prints or stores what a run did reads these types; they import
//! nothing above `detect/`.

mod history;
mod redecided;
mod summary;

pub use history::{RunKind, RunRecord};
pub use redecided::{RedecidedFigures, Redecision};
pub use summary::{
    BuildSummary, SiteModelFigures, SkippedRecord, counted, format_skips, human_bytes,
    utc_timestamp,
};
