//! Snippet scores: kept text (by URL) and snippet labels in; precision, recall and F1 over
//! snippets out — the definition of `shared/tools/snippets.py` (trafilatura's evaluation): with
//! whitespace collapsed, a passage to keep found in the kept text is a true positive, one
//! missing a false negative; a passage to drop found is a false positive.

use std::collections::HashMap;

use serde::Serialize;

use super::SnippetLabel;

/// Snippet figures of one index.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct SnippetScore {
    /// Pages scored.
    pub pages: usize,
    /// Pages with no kept text in the output.
    pub missing: usize,
    /// Precision.
    pub precision: f64,
    /// Recall.
    pub recall: f64,
    /// F1.
    pub f1: f64,
    /// Share of snippets judged right.
    pub accuracy: f64,
}

fn collapsed(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Scores kept text (by URL) against snippet labels.
pub fn score_snippets(labels: &[SnippetLabel], kept: &HashMap<String, String>) -> SnippetScore {
    let (mut tp, mut fp, mut fn_, mut tn) = (0u64, 0u64, 0u64, 0u64);
    let mut score = SnippetScore::default();
    for label in labels {
        score.pages += 1;
        let text = match kept.get(&label.url) {
            Some(text) => collapsed(text),
            None => {
                score.missing += 1;
                String::new()
            }
        };
        for passage in &label.with {
            if text.contains(&collapsed(passage)) {
                tp += 1;
            } else {
                fn_ += 1;
            }
        }
        for passage in &label.without {
            if text.contains(&collapsed(passage)) {
                fp += 1;
            } else {
                tn += 1;
            }
        }
    }
    let ratio = |a: u64, b: u64| if b == 0 { 0.0 } else { a as f64 / b as f64 };
    score.precision = ratio(tp, tp + fp);
    score.recall = ratio(tp, tp + fn_);
    score.f1 = if score.precision + score.recall == 0.0 {
        0.0
    } else {
        2.0 * score.precision * score.recall / (score.precision + score.recall)
    };
    score.accuracy = ratio(tp + tn, (tp + fp + fn_ + tn).max(1));
    score
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_worked_snippet_scores() {
        let labels = [SnippetLabel {
            url: "u".into(),
            site: "s".into(),
            with: vec!["the  council met".into(), "it voted".into()],
            without: vec!["subscribe now".into(), "cookie banner".into()],
        }];
        let kept = HashMap::from([(
            "u".to_string(),
            "the council\nmet on Tuesday; subscribe now".to_string(),
        )]);
        let score = score_snippets(&labels, &kept);
        // tp 1 (the council met), fn 1 (it voted), fp 1 (subscribe now), tn 1.
        assert_eq!(score.precision, 0.5);
        assert_eq!(score.recall, 0.5);
        assert_eq!(score.accuracy, 0.5);
        let none = score_snippets(&labels, &HashMap::new());
        assert_eq!((none.missing, none.recall), (1, 0.0));
    }

    #[test]
    fn snippet_scores_with_nothing_to_find() {
        // Only a passage to drop, and it is not kept: tp 0, fp 0, fn 0, tn 1 → P 0 and R 0
        // (nothing to divide), F1 0, accuracy 1/1.
        let labels = [SnippetLabel {
            url: "u".into(),
            site: "s".into(),
            with: Vec::new(),
            without: vec!["subscribe now".into()],
        }];
        let kept = HashMap::from([("u".to_string(), "the story".to_string())]);
        let score = score_snippets(&labels, &kept);
        assert_eq!((score.precision, score.recall, score.f1), (0.0, 0.0, 0.0));
        assert_eq!(score.accuracy, 1.0);
        // No labels: all 0 (accuracy divided by at least 1).
        assert_eq!(score_snippets(&[], &kept), SnippetScore::default());
    }
}
