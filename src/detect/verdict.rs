//! Verdicts: what a detector says of one block — keep or drop — with the rule that decided
//! and the figure the rule compared with its threshold, so that a user can see why a block
//! went (`extract --explain`) and an index can record it ([`DecisionRecord`]).

use bitvec::prelude::{BitVec, Lsb0};

/// The rule that decided a block: one per way a detector decides, declared in the detector's
/// folder and listed in its [`Detector::RULES`](super::Detector::RULES). Its code is what an
/// index stores (one byte, so codes are never reused); its name is what people and JSON read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rule {
    code: u8,
    name: &'static str,
}

impl Rule {
    /// Kept without a test: the detector keeps every block (`none`), or had no model.
    pub const KEEPS_EVERYTHING: Rule = Rule::new(0, "keeps_everything");

    /// A rule with its one-byte code (unique across every detector: the registry's tests
    /// check it) and its snake_case name.
    pub const fn new(code: u8, name: &'static str) -> Rule {
        Rule { code, name }
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

    /// Only the keep/drop decisions of `verdicts`.
    pub fn keeps(verdicts: &[Verdict]) -> Vec<bool> {
        verdicts.iter().map(|verdict| verdict.keep).collect()
    }
}

/// A page's verdicts in a few bytes, as an index stores them: one keep/drop bit per block,
/// and for each dropped block its rule and score (thresholds once per rule). A kept block
/// reads back as kept, without its rule.
///
/// Layout (little-endian): version byte `1`; block count (u32); the keep bits, eight to a
/// byte, first block in the lowest bit; rule count (u8) and for each rule its code (u8) and
/// threshold (f32); for each dropped block in order its rule code (u8) and score (f32).
#[derive(Debug, Clone, PartialEq)]
pub struct DecisionRecord {
    /// Whether each block is kept.
    pub keep: BitVec<u8, Lsb0>,
    /// The verdict of each dropped block, in block order.
    pub dropped: Vec<(Rule, f32)>,
    /// The threshold of each rule that dropped a block.
    pub thresholds: Vec<(Rule, f32)>,
}

/// Why bytes are not a [`DecisionRecord`].
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("not a decision record: {0}")]
pub struct BadDecisionRecord(&'static str);

impl DecisionRecord {
    const VERSION: u8 = 1;

    /// The record of `verdicts`.
    pub fn of(verdicts: &[Verdict]) -> Self {
        let keep: BitVec<u8, Lsb0> = verdicts.iter().map(|verdict| verdict.keep).collect();
        let mut thresholds: Vec<(Rule, f32)> = Vec::new();
        let mut dropped = Vec::new();
        for verdict in verdicts.iter().filter(|verdict| !verdict.keep) {
            dropped.push((verdict.rule, verdict.score));
            if !thresholds.iter().any(|&(rule, _)| rule == verdict.rule) {
                thresholds.push((verdict.rule, verdict.threshold));
            }
        }
        DecisionRecord {
            keep,
            dropped,
            thresholds,
        }
    }

    /// The record as bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(
            6 + self.keep.as_raw_slice().len() + 5 * (self.thresholds.len() + self.dropped.len()),
        );
        bytes.push(Self::VERSION);
        bytes.extend_from_slice(&(self.keep.len() as u32).to_le_bytes());
        bytes.extend_from_slice(self.keep.as_raw_slice());
        bytes.push(self.thresholds.len() as u8);
        for &(rule, value) in self.thresholds.iter().chain(&self.dropped) {
            bytes.push(rule.code());
            bytes.extend_from_slice(&value.to_le_bytes());
        }
        bytes
    }

    /// The record `bytes` hold.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, BadDecisionRecord> {
        let mut reader = Reader(bytes);
        if reader.take(1)? != [Self::VERSION] {
            return Err(BadDecisionRecord("unknown version"));
        }
        let blocks = u32::from_le_bytes(reader.array()?) as usize;
        let mut keep = BitVec::<u8, Lsb0>::from_vec(reader.take(blocks.div_ceil(8))?.to_vec());
        keep.truncate(blocks);
        let rules = reader.take(1)?[0];
        let thresholds = (0..rules)
            .map(|_| reader.rule_and_value())
            .collect::<Result<Vec<_>, _>>()?;
        let dropped = (0..keep.count_zeros())
            .map(|_| reader.rule_and_value())
            .collect::<Result<Vec<_>, _>>()?;
        if !reader.0.is_empty() {
            return Err(BadDecisionRecord("bytes left over"));
        }
        Ok(DecisionRecord {
            keep,
            dropped,
            thresholds,
        })
    }

    /// The verdicts, in block order (kept blocks as [`Rule::KEEPS_EVERYTHING`] without
    /// figures: the record does not hold why they were kept).
    pub fn verdicts(&self) -> Vec<Verdict> {
        let mut dropped = self.dropped.iter();
        self.keep
            .iter()
            .map(|keep| {
                if *keep {
                    return Verdict::kept(Rule::KEEPS_EVERYTHING);
                }
                let &(rule, score) = dropped
                    .next()
                    .unwrap_or(&(Rule::KEEPS_EVERYTHING, f32::NAN));
                let threshold = self
                    .thresholds
                    .iter()
                    .find(|&&(of, _)| of == rule)
                    .map_or(f32::NAN, |&(_, threshold)| threshold);
                Verdict::scored(false, rule, score, threshold)
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

    fn rule_and_value(&mut self) -> Result<(Rule, f32), BadDecisionRecord> {
        let rule = Rule::from_code(self.take(1)?[0]).ok_or(BadDecisionRecord("unknown rule"))?;
        Ok((rule, f32::from_le_bytes(self.array()?)))
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

    #[test]
    fn a_decision_record_round_trips_and_refuses_damage() {
        let verdicts: Vec<Verdict> = (0..19)
            .map(|at| match at % 3 {
                0 => Verdict::scored(false, CONTENT_PROBABILITY, at as f32 / 100.0, 0.6),
                1 => Verdict::scored(true, CONTENT_PROBABILITY, 0.9, 0.6),
                _ => Verdict::kept(TITLE_HEADING),
            })
            .collect();
        let record = DecisionRecord::of(&verdicts);
        let bytes = record.to_bytes();
        // 1 + 4 + 3 bytes of bits + 1 + one threshold (5) + 7 dropped blocks (35).
        assert_eq!(bytes.len(), 49);
        let back = DecisionRecord::from_bytes(&bytes).unwrap();
        assert_eq!(back, record);
        let read = back.verdicts();
        assert_eq!(read.len(), 19);
        for (read, written) in read.iter().zip(&verdicts) {
            assert_eq!(read.keep, written.keep);
            if !written.keep {
                assert_eq!(
                    (read.rule, read.score, read.threshold),
                    (written.rule, written.score, 0.6)
                );
            }
        }
        for cut in 0..bytes.len() {
            assert!(DecisionRecord::from_bytes(&bytes[..cut]).is_err(), "{cut}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(DecisionRecord::from_bytes(&longer).is_err());
        let mut bad_rule = bytes;
        bad_rule[9] = 200;
        assert!(DecisionRecord::from_bytes(&bad_rule).is_err());
    }
}
