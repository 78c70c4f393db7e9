//! Verdicts: what a detector says of one block — keep or drop — with the rule that decided
//! and the figure the rule compared with its threshold, so that a user can see why a block
//! went (`extract --explain`) and an index can record it.

/// The rule that decided a block, one per way a detector decides. Stored as one byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
#[repr(u8)]
pub enum Rule {
    /// Kept without a test: the detector keeps every block (`none`), or had no model.
    KeepsEverything = 0,
    /// `bloom`: the share of the block's distinct words that are template words of the
    /// block's style cluster; dropped at or above the threshold.
    TemplateWordRatio = 1,
    /// `bloom`'s heading rule (on unless `--bloom-paper-headings`): a heading kept because
    /// the block after it is.
    HeadingOfKeptBlock = 2,
    /// `hybrid`: the model's probability that the block is content; kept at or above the
    /// threshold.
    ContentProbability = 3,
    /// A heading made mostly of the page's own title words, kept whatever the detector's
    /// figure (which the verdict still shows).
    TitleHeading = 4,
    /// `incremental`: the share of the block's text segments seen on at least the minimum
    /// number of the site's pages; dropped above the threshold.
    FrequentSegmentShare = 5,
    /// `sandwich`: the share of the block's units also found, in order, in the peer page;
    /// dropped when all are (at the threshold 1).
    SharedWithPeer = 6,
    /// `sandwich`: the page had no peer in its directory, so every block is kept.
    NoPeer = 7,
    /// `table-chunk`: how many of the cluster's pages hold the chunk; dropped at or above
    /// the threshold.
    ChunkDocumentFrequency = 8,
    /// `menu`: the share of the linked pages whose tree maps the block's node; dropped when
    /// all do (at the threshold 1).
    MappedInLinkedPages = 9,
    /// `menu`: no linked pages to compare with, so every block is kept.
    NoLinkedPages = 10,
}

impl Rule {
    /// Every rule, in code order.
    pub const ALL: &'static [Rule] = &[
        Rule::KeepsEverything,
        Rule::TemplateWordRatio,
        Rule::HeadingOfKeptBlock,
        Rule::ContentProbability,
        Rule::TitleHeading,
        Rule::FrequentSegmentShare,
        Rule::SharedWithPeer,
        Rule::NoPeer,
        Rule::ChunkDocumentFrequency,
        Rule::MappedInLinkedPages,
        Rule::NoLinkedPages,
    ];

    /// The rule's name (snake_case, as in JSON).
    pub fn name(self) -> &'static str {
        match self {
            Rule::KeepsEverything => "keeps_everything",
            Rule::TemplateWordRatio => "template_word_ratio",
            Rule::HeadingOfKeptBlock => "heading_of_kept_block",
            Rule::ContentProbability => "content_probability",
            Rule::TitleHeading => "title_heading",
            Rule::FrequentSegmentShare => "frequent_segment_share",
            Rule::SharedWithPeer => "shared_with_peer",
            Rule::NoPeer => "no_peer",
            Rule::ChunkDocumentFrequency => "chunk_document_frequency",
            Rule::MappedInLinkedPages => "mapped_in_linked_pages",
            Rule::NoLinkedPages => "no_linked_pages",
        }
    }

    /// The rule with code `code` ([`Rule::code`]).
    pub fn from_code(code: u8) -> Option<Rule> {
        Rule::ALL.get(usize::from(code)).copied()
    }

    /// The rule's one-byte code.
    pub fn code(self) -> u8 {
        self as u8
    }
}

/// A detector's decision on one block.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Verdict {
    /// Whether the block is kept.
    pub keep: bool,
    /// The rule that decided.
    pub rule: Rule,
    /// The figure the rule compared (see [`Rule`]); NaN when the rule has none.
    pub score: f32,
    /// What the figure was compared with; NaN when the rule has none.
    pub threshold: f32,
}

impl Verdict {
    /// A block kept by a rule that compares nothing.
    pub fn kept(rule: Rule) -> Self {
        Verdict {
            keep: true,
            rule,
            score: f32::NAN,
            threshold: f32::NAN,
        }
    }

    /// A block decided by comparing `score` with `threshold`.
    pub fn scored(keep: bool, rule: Rule, score: f32, threshold: f32) -> Self {
        Verdict {
            keep,
            rule,
            score,
            threshold,
        }
    }

    /// The same figures, with the block kept by `rule` instead (a rule that overrules the
    /// detector, such as [`Rule::TitleHeading`]).
    pub fn overruled(self, rule: Rule) -> Self {
        Verdict {
            keep: true,
            rule,
            ..self
        }
    }

    /// Only the keep/drop decisions of `verdicts`.
    pub fn keeps(verdicts: &[Verdict]) -> Vec<bool> {
        verdicts.iter().map(|verdict| verdict.keep).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_codes_round_trip_and_names_are_distinct() {
        let mut names = std::collections::HashSet::new();
        for &rule in Rule::ALL {
            assert_eq!(Rule::from_code(rule.code()), Some(rule));
            assert!(names.insert(rule.name()));
            assert_eq!(
                serde_json::to_value(rule).unwrap(),
                serde_json::Value::from(rule.name())
            );
        }
        assert_eq!(Rule::from_code(Rule::ALL.len() as u8), None);
    }

    #[test]
    fn an_overruled_verdict_keeps_its_figures() {
        let dropped = Verdict::scored(false, Rule::TemplateWordRatio, 0.9, 0.8);
        let kept = dropped.overruled(Rule::TitleHeading);
        assert!(kept.keep);
        assert_eq!(kept.rule, Rule::TitleHeading);
        assert_eq!((kept.score, kept.threshold), (0.9, 0.8));
    }
}
