//! History: the runs that made an index — each `build`, `combine`, `add` and `delete`, with
//! when it started, what it read or removed, what it counted and the documents after it —
//! kept in the build summary stored with the index (`build.json`), oldest first.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// What a run did to the index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RunKind {
    /// Built it anew (the history starts again).
    Build,
    /// Joined shard indexes into it (the history starts again).
    Combine,
    /// Added pages to it.
    Add,
    /// Deleted pages from it.
    Delete,
}

impl RunKind {
    /// The command's name.
    pub fn name(self) -> &'static str {
        match self {
            RunKind::Build => "build",
            RunKind::Combine => "combine",
            RunKind::Add => "add",
            RunKind::Delete => "delete",
        }
    }
}

/// One run of the index's history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    /// What the run did.
    pub kind: RunKind,
    /// When it started, UTC (RFC 3339).
    pub started: String,
    /// The inputs it read (build, add) or the shards it joined.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inputs: Vec<String>,
    /// What it deleted (`url …`, `site …`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub deleted: Vec<String>,
    /// What it counted, by name (pages, added, replaced, unchanged, deleted, …).
    pub counts: BTreeMap<String, u64>,
    /// Documents in the index after it.
    pub documents: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::BuildSummary;

    #[test]
    fn a_build_starts_the_history_and_an_add_extends_it() {
        let summary = BuildSummary {
            pages: 3,
            added: 2,
            unchanged: 1,
            started: "2026-11-25T07:00:00Z".into(),
            inputs: vec!["a.warc".into()],
            ..BuildSummary::default()
        };
        let built = RunRecord::history_after(RunKind::Build, &[], &summary, 3);
        assert_eq!(built.len(), 1);
        assert!(!built[0].counts.contains_key("added"));
        let again = RunRecord::history_after(RunKind::Build, &built, &summary, 3);
        assert_eq!(again.len(), 1, "a build starts anew");
        let added = RunRecord::history_after(RunKind::Add, &built, &summary, 5);
        assert_eq!(added.len(), 2);
        assert_eq!(added[1].kind, RunKind::Add);
        assert_eq!(added[1].counts["added"], 2);
        assert_eq!(added[1].counts["unchanged"], 1);
        assert_eq!(added[1].documents, 5);
        let json = serde_json::to_value(&added[1]).unwrap();
        assert_eq!(json["kind"], "add");
        assert!(json.get("deleted").is_none());
    }
}
