//! What an `add` decided again: the rule that chose the sites, and the sites and pages.

use serde::{Deserialize, Serialize};

/// Which sites an `add` decides again whole, from every page of theirs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Redecision {
    /// With a two-pass detector, each site the add takes past a power of two in pages; with a
    /// one-pass detector, none.
    #[default]
    Grown,
    /// Each site the index held pages of before the add and the add brings a new or changed
    /// page to, with either kind of detector: every page is then decided as one build over
    /// all the pages would decide it.
    Touched,
    /// None: earlier pages keep their decisions.
    Never,
}

/// What the re-decision of an `add` did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RedecidedFigures {
    /// The rule that chose the sites (absent in summaries written before there was a choice:
    /// [`Redecision::Grown`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<Redecision>,
    /// Sites decided again whole.
    pub sites: u64,
    /// Pages decided again.
    pub pages: u64,
    /// Of those, the pages decided otherwise than their documents said, whose documents were
    /// replaced (the others were left in place). Absent in summaries written before: all.
    #[serde(default)]
    pub replaced: u64,
    /// Pages of those sites whose record could not be read again (its file gone, moved or
    /// changed, or read from standard input): left as they were decided.
    pub not_read_again: u64,
}

impl RedecidedFigures {
    pub(crate) fn absorb(&mut self, other: RedecidedFigures) {
        self.rule = self.rule.or(other.rule);
        self.sites += other.sites;
        self.replaced += other.replaced;
        self.pages += other.pages;
        self.not_read_again += other.not_read_again;
    }
}
