//! Verdicts: what a detector says of one block — keep or drop — with the rule that decided
//! and the figure the rule compared with its threshold, so that a user can see why a block
//! went (`extract --explain`) and an index can record it ([`DecisionRecord`]).

use bitvec::prelude::{BitVec, Lsb0};

use crate::segment::SegmentedPage;

/// The rule that decided a block: one per way a detector decides, declared in the detector's
/// folder and listed in its [`Detector::RULES`](super::Detector::RULES). Its code is what an
/// index stores (one byte, so codes are never reused); its name is what people and JSON read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rule {
    code: u8,
    name: &'static str,
    fallback: bool,
}

impl Rule {
    /// Kept without a test: the detector keeps every block (`none`), or had no model.
    pub const KEEPS_EVERYTHING: Rule = Rule::new(0, "keeps_everything");

    /// Kept without a detector: a line of a page of plain text (a WET record), which has no
    /// markup to tell template from content by.
    pub const PLAIN_TEXT: Rule = Rule::new(14, "plain_text");

    /// A rule with its one-byte code (unique across every detector: the registry's tests
    /// check it) and its snake_case name.
    pub const fn new(code: u8, name: &'static str) -> Rule {
        Rule {
            code,
            name,
            fallback: false,
        }
    }

    /// A rule that keeps a block not because it reads as main content but because the
    /// detector found too little main content on the page to keep only that (hybrid's
    /// `page_own_text`): a page such a rule keeps anything of has no main content
    /// ([`Verdict::found_main_content`]).
    pub const fn fallback(code: u8, name: &'static str) -> Rule {
        Rule {
            code,
            name,
            fallback: true,
        }
    }

    /// Whether the rule is a [`fallback`](Self::fallback).
    pub fn is_fallback(self) -> bool {
        self.fallback
    }

    /// The rule's name (snake_case, as in JSON).
    pub fn name(self) -> &'static str {
        self.name
    }

    /// The rule's one-byte code.
    pub fn code(self) -> u8 {
        self.code
    }

    /// The rule with code `code`, among every detector's rules.
    pub fn from_code(code: u8) -> Option<Rule> {
        super::registry::every_rule().find(|rule| rule.code == code)
    }
}

impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

impl serde::Serialize for Rule {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name)
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

    /// A block dropped by a rule that compares nothing.
    pub fn dropped(rule: Rule) -> Self {
        Verdict {
            keep: false,
            ..Verdict::kept(rule)
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
    /// detector, such as `title::TITLE_HEADING`).
    pub fn overruled(self, rule: Rule) -> Self {
        Verdict {
            keep: true,
            rule,
            ..self
        }
    }

    /// This verdict turned into a drop by `rule`, its score and threshold kept for
    /// `--explain`.
    pub fn overruled_to_drop(self, rule: Rule) -> Self {
        Verdict {
            keep: false,
            rule,
            ..self
        }
    }

    /// Only the keep/drop decisions of `verdicts`.
    pub fn keeps(verdicts: &[Verdict]) -> Vec<bool> {
        verdicts.iter().map(|verdict| verdict.keep).collect()
    }

    /// Whether the detector found main content on `page`: it keeps a block with text, and
    /// keeps none by a [`fallback`](Rule::fallback) rule. A login wall, a bare list of links or
    /// an error page reads as no main content; the page's text is what the rules keep all
    /// the same.
    pub fn found_main_content(page: &SegmentedPage, verdicts: &[Verdict]) -> bool {
        let mut kept_text = false;
        for (block, verdict) in page.blocks.iter().zip(verdicts) {
            if verdict.keep {
                if verdict.rule.is_fallback() {
                    return false;
                }
                kept_text |= !block.text.trim().is_empty();
            }
        }
        kept_text
    }

    /// Text of the blocks of `page` that `verdicts` keep, as lines ([`Layout::plain_text`];
    /// a page without a layout, put together by hand, one block a line): what a build indexes
    /// and `extract` writes.
    ///
    /// [`Layout::plain_text`]: crate::segment::Layout::plain_text
    pub fn kept_text(page: &SegmentedPage, verdicts: &[Verdict]) -> String {
        let keep = |block: usize| verdicts.get(block).is_some_and(|verdict| verdict.keep);
        if page.layout.is_empty() {
            return page.text_by_block(keep).0;
        }
        page.layout.plain_text(&page.blocks, keep)
    }
}

/// A page's verdicts in a few bytes, as an index stores them: one keep/drop bit per block,
/// the rule that decided each block, and for a dropped block the figure its rule compared
/// (thresholds once per rule). A kept block's figure is left out: 4 bytes of a score that
/// barely compresses for every kept block, for a figure `extract --explain` gives (its cost:
/// docs/MEASUREMENTS.md, design choices measured).
///
/// Layout (little-endian): version byte `2`; block count (u32); the keep bits, eight to a
/// byte, first block in the lowest bit; rule count (u8) and for each rule its code (u8) and
/// threshold (f32); for each block in order its rule code (u8), followed for a dropped block
/// by its score (f32) when the rule's threshold is a number (a rule that compares nothing
/// has no score).
///
/// Version `1` (indexes built before version 2) recorded the rule and score of dropped
/// blocks only: for each dropped block in order its rule code (u8) and score (f32) after the
/// rules. Such records still read; their kept blocks read back without a rule.
#[derive(Debug, Clone, PartialEq)]
pub struct DecisionRecord {
    /// Whether each block is kept.
    pub keep: BitVec<u8, Lsb0>,
    /// The rule and score of each block in block order: the score NaN for a kept block, and
    /// `None` where the record does not say (a kept block of a version 1 record).
    pub rules: Vec<Option<(Rule, f32)>>,
    /// The threshold of each rule that decided a block.
    pub thresholds: Vec<(Rule, f32)>,
}

/// Why bytes are not a [`DecisionRecord`].
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("not a decision record: {0}")]
pub struct BadDecisionRecord(&'static str);

impl DecisionRecord {
    /// The version [`to_bytes`](Self::to_bytes) writes.
    const VERSION: u8 = 2;
    /// The version that recorded dropped blocks' rules only.
    const DROPPED_ONLY: u8 = 1;

    /// The record of `verdicts`.
    pub fn of(verdicts: &[Verdict]) -> Self {
        let keep: BitVec<u8, Lsb0> = verdicts.iter().map(|verdict| verdict.keep).collect();
        let mut thresholds: Vec<(Rule, f32)> = Vec::new();
        for verdict in verdicts {
            if !thresholds.iter().any(|&(rule, _)| rule == verdict.rule) {
                thresholds.push((verdict.rule, verdict.threshold));
            }
        }
        let rules = verdicts
            .iter()
            .map(|verdict| {
                let score = if verdict.keep {
                    f32::NAN
                } else {
                    verdict.score
                };
                Some((verdict.rule, score))
            })
            .collect();
        DecisionRecord {
            keep,
            rules,
            thresholds,
        }
    }

    /// Whether a block of `rule` carries a score: it was dropped, and the rule's threshold is
    /// a number.
    fn scored(&self, keep: bool, rule: Rule) -> bool {
        !keep && self.threshold_of(rule).is_finite()
    }

    fn threshold_of(&self, rule: Rule) -> f32 {
        self.thresholds
            .iter()
            .find(|&&(of, _)| of == rule)
            .map_or(f32::NAN, |&(_, threshold)| threshold)
    }

    /// The record as bytes (version 2).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(
            6 + self.keep.as_raw_slice().len() + 5 * (self.thresholds.len() + self.rules.len()),
        );
        bytes.push(Self::VERSION);
        bytes.extend_from_slice(&(self.keep.len() as u32).to_le_bytes());
        bytes.extend_from_slice(self.keep.as_raw_slice());
        bytes.push(self.thresholds.len() as u8);
        for &(rule, threshold) in &self.thresholds {
            bytes.push(rule.code());
            bytes.extend_from_slice(&threshold.to_le_bytes());
        }
        for (keep, &(rule, score)) in self.keep.iter().zip(self.rules.iter().flatten()) {
            bytes.push(rule.code());
            if self.scored(*keep, rule) {
                bytes.extend_from_slice(&score.to_le_bytes());
            }
        }
        bytes
    }

    /// The record `bytes` hold (version 2, or 1).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, BadDecisionRecord> {
        let mut reader = Reader(bytes);
        let version = reader.take(1)?[0];
        if version != Self::VERSION && version != Self::DROPPED_ONLY {
            return Err(BadDecisionRecord("unknown version"));
        }
        let blocks = u32::from_le_bytes(reader.array()?) as usize;
        let mut keep = BitVec::<u8, Lsb0>::from_vec(reader.take(blocks.div_ceil(8))?.to_vec());
        keep.truncate(blocks);
        let rules = reader.take(1)?[0];
        let thresholds = (0..rules)
            .map(|_| Ok((reader.rule()?, reader.value()?)))
            .collect::<Result<Vec<_>, _>>()?;
        let mut record = DecisionRecord {
            keep,
            rules: Vec::with_capacity(blocks),
            thresholds,
        };
        for at in 0..blocks {
            let kept = record.keep[at];
            let rule = if version == Self::DROPPED_ONLY {
                if kept {
                    None
                } else {
                    Some((reader.rule()?, reader.value()?))
                }
            } else {
                let rule = reader.rule()?;
                let score = if record.scored(kept, rule) {
                    reader.value()?
                } else {
                    f32::NAN
                };
                Some((rule, score))
            };
            record.rules.push(rule);
        }
        if !reader.0.is_empty() {
            return Err(BadDecisionRecord("bytes left over"));
        }
        Ok(record)
    }

    /// The verdicts, in block order; `None` for a block the record does not say why it was
    /// kept (version 1 recorded dropped blocks' rules only).
    pub fn verdicts(&self) -> Vec<Option<Verdict>> {
        self.keep
            .iter()
            .zip(&self.rules)
            .map(|(keep, rule)| {
                rule.map(|(rule, score)| {
                    Verdict::scored(*keep, rule, score, self.threshold_of(rule))
                })
            })
            .collect()
    }
}

/// Reads a [`DecisionRecord`] from the front of its bytes.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, count: usize) -> Result<&'a [u8], BadDecisionRecord> {
        if self.0.len() < count {
            return Err(BadDecisionRecord("cut short"));
        }
        let (head, tail) = self.0.split_at(count);
        self.0 = tail;
        Ok(head)
    }

    fn array(&mut self) -> Result<[u8; 4], BadDecisionRecord> {
        Ok(self.take(4)?.try_into().expect("four bytes taken"))
    }

    fn rule(&mut self) -> Result<Rule, BadDecisionRecord> {
        Rule::from_code(self.take(1)?[0]).ok_or(BadDecisionRecord("unknown rule"))
    }

    fn value(&mut self) -> Result<f32, BadDecisionRecord> {
        Ok(f32::from_le_bytes(self.array()?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::bloom::TEMPLATE_WORD_RATIO;
    use crate::detect::hybrid::CONTENT_PROBABILITY;
    use crate::detect::title::TITLE_HEADING;

    #[test]
    fn a_rule_is_written_as_its_name() {
        let rule = Rule::new(200, "some_rule");
        assert_eq!(serde_json::to_value(rule).unwrap(), "some_rule");
        assert_eq!(rule.to_string(), "some_rule");
    }

    #[test]
    fn an_overruled_verdict_keeps_its_figures() {
        let dropped = Verdict::scored(false, TEMPLATE_WORD_RATIO, 0.9, 0.8);
        let kept = dropped.overruled(TITLE_HEADING);
        assert!(kept.keep);
        assert_eq!(kept.rule, TITLE_HEADING);
        assert_eq!((kept.score, kept.threshold), (0.9, 0.8));
    }

    /// Verdicts of 19 blocks: dropped by a score, kept by a score, kept by a rule that
    /// overrules (its figures kept), kept by a rule that compares nothing.
    fn mixed_verdicts() -> Vec<Verdict> {
        (0..19)
            .map(|at| match at % 4 {
                0 => Verdict::scored(false, CONTENT_PROBABILITY, at as f32 / 100.0, 0.6),
                1 => Verdict::scored(true, CONTENT_PROBABILITY, 0.9, 0.6),
                2 => {
                    Verdict::scored(false, CONTENT_PROBABILITY, 0.25, 0.6).overruled(TITLE_HEADING)
                }
                _ => Verdict::kept(Rule::KEEPS_EVERYTHING),
            })
            .collect()
    }

    fn assert_refuses_damage(bytes: &[u8]) {
        for cut in 0..bytes.len() {
            assert!(DecisionRecord::from_bytes(&bytes[..cut]).is_err(), "{cut}");
        }
        let mut longer = bytes.to_vec();
        longer.push(0);
        assert!(DecisionRecord::from_bytes(&longer).is_err());
        let mut bad_rule = bytes.to_vec();
        bad_rule[9] = 200;
        assert!(DecisionRecord::from_bytes(&bad_rule).is_err());
        let mut bad_version = bytes.to_vec();
        bad_version[0] = 3;
        assert!(DecisionRecord::from_bytes(&bad_version).is_err());
    }

    #[test]
    fn a_decision_record_keeps_every_block_s_rule_and_refuses_damage() {
        let verdicts = mixed_verdicts();
        let bytes = DecisionRecord::of(&verdicts).to_bytes();
        // 1 + 4 + 3 bytes of bits + 1 + three rules (15) + 19 rule codes + the scores of
        // the 5 dropped blocks (20).
        assert_eq!(bytes.len(), 63);
        let back = DecisionRecord::from_bytes(&bytes).unwrap();
        assert_eq!(back.to_bytes(), bytes);
        let read = back.verdicts();
        assert_eq!(read.len(), 19);
        for (read, written) in read.iter().zip(&verdicts) {
            let read = read.expect("every block's rule");
            assert_eq!((read.keep, read.rule), (written.keep, written.rule));
            assert_eq!(read.threshold.to_bits(), written.threshold.to_bits());
            if read.keep {
                assert!(read.score.is_nan());
            } else {
                assert_eq!(read.score, written.score);
            }
        }
        assert_refuses_damage(&bytes);
    }

    /// The bytes an index built before version 2 holds for `verdicts`.
    fn version_1_bytes(verdicts: &[Verdict]) -> Vec<u8> {
        let keep: BitVec<u8, Lsb0> = verdicts.iter().map(|verdict| verdict.keep).collect();
        let dropped: Vec<&Verdict> = verdicts.iter().filter(|verdict| !verdict.keep).collect();
        let mut bytes = vec![1];
        bytes.extend_from_slice(&(verdicts.len() as u32).to_le_bytes());
        bytes.extend_from_slice(keep.as_raw_slice());
        bytes.push(1);
        bytes.push(dropped[0].rule.code());
        bytes.extend_from_slice(&dropped[0].threshold.to_le_bytes());
        for verdict in dropped {
            bytes.push(verdict.rule.code());
            bytes.extend_from_slice(&verdict.score.to_le_bytes());
        }
        bytes
    }

    #[test]
    fn a_version_1_record_reads_with_its_kept_blocks_unexplained() {
        let verdicts = mixed_verdicts();
        let bytes = version_1_bytes(&verdicts);
        let read = DecisionRecord::from_bytes(&bytes).unwrap().verdicts();
        assert_eq!(read.len(), 19);
        for (read, written) in read.iter().zip(&verdicts) {
            if written.keep {
                assert_eq!(*read, None);
            } else {
                assert_eq!(*read, Some(*written));
            }
        }
        assert_refuses_damage(&bytes);
    }
}
