//! Extraction quality: bag-of-words token precision, recall and F1 of kept text against the
//! labelled main content — the definition of `shared/tools/score.py`: tokens are runs of
//! word characters (letters, digits, underscore), lower-cased; micro sums over all pages,
//! macro averages the per-site figures. Beside it the line score of
//! `shared/tools/score_lines.py`, which sees what a bag of words cannot (a listing or a table
//! run together into one line): the gold's lines found as whole lines of the kept text.

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use super::Label;

/// Precision, recall and F1.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Prf {
    /// Precision.
    pub precision: f64,
    /// Recall.
    pub recall: f64,
    /// F1.
    pub f1: f64,
}

impl Prf {
    fn of(counts: &TokenCounts) -> Prf {
        let ratio = |part: u64, whole: u64| {
            if whole == 0 {
                0.0
            } else {
                part as f64 / whole as f64
            }
        };
        let precision = ratio(
            counts.true_positive,
            counts.true_positive + counts.false_positive,
        );
        let recall = ratio(
            counts.true_positive,
            counts.true_positive + counts.false_negative,
        );
        let f1 = if precision + recall == 0.0 {
            0.0
        } else {
            2.0 * precision * recall / (precision + recall)
        };
        Prf {
            precision,
            recall,
            f1,
        }
    }
}

#[derive(Debug, Clone, Copy, Default)]
struct TokenCounts {
    true_positive: u64,
    false_positive: u64,
    false_negative: u64,
}

/// Quality of one detector's kept text.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Quality {
    /// Labelled pages scored.
    pub pages: usize,
    /// Labelled pages with no kept text at all in the output (counted as keeping nothing).
    pub missing: usize,
    /// Over all tokens.
    pub micro: Prf,
    /// Mean over sites.
    pub macro_average: Prf,
    /// Share of template-only tokens (in `template_text`, not in `content_text`) kept.
    pub template_kept: f64,
    /// Per site.
    pub sites: BTreeMap<String, Prf>,
    /// Lines ([`line_bag`]) over all pages.
    pub lines: Prf,
    /// Lines, per site.
    pub site_lines: BTreeMap<String, Prf>,
}

/// The lines of `text` with their counts, as `score_lines.py` reads them: a line ends at a
/// line break or a tab, its whitespace collapses to single spaces, a leading number (a
/// listing's line-number gutter, kept or not) and the one space after it come off, and
/// empty lines are left out.
pub fn line_bag(text: &str) -> HashMap<String, u64> {
    let mut bag = HashMap::new();
    for line in text.split(['\n', '\t']) {
        let collapsed = line.split_whitespace().collect::<Vec<_>>().join(" ");
        let digits = collapsed
            .char_indices()
            .find(|(_, c)| !c.is_numeric())
            .map_or(collapsed.len(), |(at, _)| at);
        let rest = &collapsed[digits..];
        let rest = if digits > 0 {
            rest.strip_prefix(' ').unwrap_or(rest)
        } else {
            rest
        };
        if !rest.is_empty() {
            *bag.entry(rest.to_string()).or_insert(0) += 1;
        }
    }
    bag
}

/// True positives, false positives and false negatives of one kept bag against its gold.
fn counts_of(kept: &HashMap<String, u64>, gold: &HashMap<String, u64>) -> TokenCounts {
    let true_positive = overlap(kept, gold);
    TokenCounts {
        true_positive,
        false_positive: kept.values().sum::<u64>() - true_positive,
        false_negative: gold.values().sum::<u64>() - true_positive,
    }
}

impl TokenCounts {
    fn add(&mut self, counts: TokenCounts) {
        self.true_positive += counts.true_positive;
        self.false_positive += counts.false_positive;
        self.false_negative += counts.false_negative;
    }
}

/// The tokens of `text` with their counts.
pub fn bag(text: &str) -> HashMap<String, u64> {
    let mut bag = HashMap::new();
    let mut word = String::new();
    for c in text.chars().chain(std::iter::once(' ')) {
        if c.is_alphanumeric() || c == '_' {
            word.extend(c.to_lowercase());
        } else if !word.is_empty() {
            *bag.entry(std::mem::take(&mut word)).or_insert(0) += 1;
        }
    }
    bag
}

fn overlap(a: &HashMap<String, u64>, b: &HashMap<String, u64>) -> u64 {
    a.iter()
        .map(|(token, &count)| count.min(b.get(token).copied().unwrap_or(0)))
        .sum()
}

/// Scores kept text (by URL) against the labels.
pub fn score(labels: &[Label], kept: &HashMap<String, String>) -> Quality {
    let mut sites: BTreeMap<String, TokenCounts> = BTreeMap::new();
    let mut total = TokenCounts::default();
    let mut site_lines: BTreeMap<String, TokenCounts> = BTreeMap::new();
    let mut total_lines = TokenCounts::default();
    let (mut template_total, mut template_kept) = (0u64, 0u64);
    let mut quality = Quality::default();
    for label in labels {
        quality.pages += 1;
        let text = match kept.get(&label.url) {
            Some(text) => text.as_str(),
            None => {
                quality.missing += 1;
                ""
            }
        };
        let gold = bag(&label.content_text);
        let kept = bag(text);
        let mut template_only = bag(&label.template_text);
        for (token, count) in template_only.iter_mut() {
            *count = count.saturating_sub(gold.get(token).copied().unwrap_or(0));
        }
        let counts = counts_of(&kept, &gold);
        template_total += template_only.values().sum::<u64>();
        template_kept += overlap(&kept, &template_only);
        sites.entry(label.site.clone()).or_default().add(counts);
        total.add(counts);
        let lines = counts_of(&line_bag(text), &line_bag(&label.content_text));
        site_lines.entry(label.site.clone()).or_default().add(lines);
        total_lines.add(lines);
    }
    quality.micro = Prf::of(&total);
    quality.lines = Prf::of(&total_lines);
    let per_site = |sites: &BTreeMap<String, TokenCounts>| {
        sites
            .iter()
            .map(|(site, counts)| (site.clone(), Prf::of(counts)))
            .collect()
    };
    quality.sites = per_site(&sites);
    quality.site_lines = per_site(&site_lines);
    let n = quality.sites.len().max(1) as f64;
    quality.macro_average = Prf {
        precision: quality.sites.values().map(|p| p.precision).sum::<f64>() / n,
        recall: quality.sites.values().map(|p| p.recall).sum::<f64>() / n,
        f1: quality.sites.values().map(|p| p.f1).sum::<f64>() / n,
    };
    quality.template_kept = if template_total == 0 {
        0.0
    } else {
        template_kept as f64 / template_total as f64
    };
    quality
}

#[cfg(test)]
mod tests {
    use super::*;

    fn label(url: &str, site: &str, content: &str, template: &str) -> Label {
        Label {
            url: url.into(),
            site: site.into(),
            title: String::new(),
            content_text: content.into(),
            template_text: template.into(),
        }
    }

    #[test]
    fn tokens_are_word_characters_lower_cased() {
        let bag = bag("Snake_case, CamelCase! x86 x86 Ünï");
        assert_eq!(bag["snake_case"], 1);
        assert_eq!(bag["camelcase"], 1);
        assert_eq!(bag["x86"], 2);
        assert_eq!(bag["ünï"], 1);
    }

    #[test]
    fn hand_worked_scores() {
        // Page a: gold {a b c c}, kept {a c menu} → tp 2, fp 1, fn 2.
        // Page b (other site): gold {x y}, nothing kept → tp 0, fp 0, fn 2.
        let labels = [
            label("u1", "s1", "a b c c", "menu home"),
            label("u2", "s2", "x y", "menu"),
        ];
        let kept = HashMap::from([("u1".to_string(), "a c menu".to_string())]);
        let quality = score(&labels, &kept);
        assert_eq!(quality.missing, 1);
        assert!((quality.micro.precision - 2.0 / 3.0).abs() < 1e-12);
        assert!((quality.micro.recall - 2.0 / 6.0).abs() < 1e-12);
        // Site s1: P 2/3, R 2/4 → F1 4/7; site s2: 0. Macro F1 = 2/7.
        assert!((quality.sites["s1"].f1 - 4.0 / 7.0).abs() < 1e-12);
        assert!((quality.macro_average.f1 - 2.0 / 7.0).abs() < 1e-12);
        // Template-only tokens: {menu home} + {menu} = 3, of which "menu" kept once.
        assert!((quality.template_kept - 1.0 / 3.0).abs() < 1e-12);
    }

    fn close(actual: f64, expected: f64) -> bool {
        (actual - expected).abs() < 1e-12
    }

    #[test]
    fn precision_recall_and_f1_of_token_counts() {
        // P = 3/(3+1) = 0.75, R = 3/(3+2) = 0.6, F1 = 2·0.75·0.6/(0.75+0.6) = 0.9/1.35 = 2/3.
        let prf = Prf::of(&TokenCounts {
            true_positive: 3,
            false_positive: 1,
            false_negative: 2,
        });
        assert_eq!((prf.precision, prf.recall), (0.75, 0.6));
        assert!(close(prf.f1, 2.0 / 3.0), "{prf:?}");
        // Nothing counted: 0, not NaN.
        assert_eq!(Prf::of(&TokenCounts::default()), Prf::default());
    }

    #[test]
    fn repeated_tokens_count_as_often_as_both_texts_hold_them() {
        // Gold {a}, kept {a a a}: tp = min(3, 1) = 1, fp 2, fn 0 → P 1/3, R 1,
        // F1 = 2·(1/3)·1/(1/3+1) = 1/2.
        let labels = [label("u", "s", "a", "")];
        let kept = HashMap::from([("u".to_string(), "A a a".to_string())]);
        let micro = score(&labels, &kept).micro;
        assert!(close(micro.precision, 1.0 / 3.0), "{micro:?}");
        assert_eq!(micro.recall, 1.0);
        assert!(close(micro.f1, 0.5), "{micro:?}");
    }

    #[test]
    fn micro_sums_tokens_over_pages_and_macro_averages_sites() {
        // u1 (s1): gold {a b c d}, kept {a} → tp 1, fp 0, fn 3.
        // u2 (s1): gold {e f}, kept {e f g h} → tp 2, fp 2, fn 0.
        // u3 (s2): gold {x}, kept {x} → tp 1, fp 0, fn 0.
        let labels = [
            label("u1", "s1", "a b c d", ""),
            label("u2", "s1", "e f", ""),
            label("u3", "s2", "x", ""),
        ];
        let kept = HashMap::from([
            ("u1".to_string(), "a".to_string()),
            ("u2".to_string(), "e f g h".to_string()),
            ("u3".to_string(), "x".to_string()),
        ]);
        let quality = score(&labels, &kept);
        assert_eq!((quality.pages, quality.missing), (3, 0));
        // s1 sums its pages (tp 3, fp 2, fn 3): P 3/5, R 3/6, F1 = 2·0.6·0.5/1.1 = 6/11 —
        // not the mean of its pages' F1s (0.4 and 2/3).
        let s1 = quality.sites["s1"];
        assert_eq!((s1.precision, s1.recall), (0.6, 0.5));
        assert!(close(s1.f1, 6.0 / 11.0), "{s1:?}");
        assert_eq!(quality.sites["s2"].f1, 1.0);
        // Micro: tp 4, fp 2, fn 3 → P 4/6, R 4/7, F1 = 2·(2/3)·(4/7)/(2/3+4/7) = 8/13.
        assert!(close(quality.micro.precision, 2.0 / 3.0));
        assert!(close(quality.micro.recall, 4.0 / 7.0));
        assert!(close(quality.micro.f1, 8.0 / 13.0));
        // Macro: the mean of the sites' figures, P (3/5+1)/2 = 4/5, R (1/2+1)/2 = 3/4,
        // F1 (6/11+1)/2 = 17/22 (not the F1 of the mean P and R, 24/31).
        let macro_average = quality.macro_average;
        assert!(close(macro_average.precision, 0.8));
        assert!(close(macro_average.recall, 0.75));
        assert!(close(macro_average.f1, 17.0 / 22.0), "{macro_average:?}");
    }

    #[test]
    fn empty_text_nothing_found_and_no_labels_score_zero() {
        // Empty gold and empty kept text: no tokens at all → 0 everywhere, and no template.
        let empty = score(
            &[label("u", "s", "", "")],
            &HashMap::from([("u".to_string(), String::new())]),
        );
        assert_eq!((empty.micro, empty.missing), (Prf::default(), 0));
        assert_eq!(empty.template_kept, 0.0);
        // Nothing of the content found: tp 0, fp 2, fn 2 → P 0, R 0, F1 0.
        let wrong = score(
            &[label("u", "s", "a b", "")],
            &HashMap::from([("u".to_string(), "c d".to_string())]),
        );
        assert_eq!(wrong.micro, Prf::default());
        assert_eq!(wrong.sites["s"], Prf::default());
        // No labelled pages: no sites, the macro average is 0 (divided by at least 1).
        let none = score(&[], &HashMap::new());
        assert_eq!((none.pages, none.macro_average), (0, Prf::default()));
        assert!(none.sites.is_empty());
    }

    #[test]
    fn lines_end_at_breaks_and_tabs_and_lose_a_leading_number() {
        let bag = line_bag("  fn   main() {\n12 x = 1;\t cell \n\n3\n12  x = 1;\nx86 \u{a0}y");
        let expected = [("fn main() {", 1), ("x = 1;", 2), ("cell", 1), ("x86 y", 1)];
        let expected: HashMap<String, u64> = expected
            .iter()
            .map(|(line, n)| (line.to_string(), *n))
            .collect();
        assert_eq!(bag, expected);
    }

    #[test]
    fn the_line_score_counts_whole_lines_per_page_and_site() {
        // u1 (s1): gold lines {a b, c, d}, kept {a b c, d} (two lines run together):
        // tp 1 (d), fp 1, fn 2. u2 (s2): gold {x, y}, kept {x, y, menu}: tp 2, fp 1, fn 0.
        let labels = [
            label("u1", "s1", "a b\nc\nd", ""),
            label("u2", "s2", "x\ty", ""),
        ];
        let kept = HashMap::from([
            ("u1".to_string(), "a b c\nd".to_string()),
            ("u2".to_string(), "x\ny\nmenu".to_string()),
        ]);
        let quality = score(&labels, &kept);
        // The words are all there on u1: a bag of words sees no difference.
        assert_eq!(quality.sites["s1"].recall, 1.0);
        // Lines: tp 3, fp 2, fn 2 → P 3/5, R 3/5.
        assert!(close(quality.lines.precision, 0.6) && close(quality.lines.recall, 0.6));
        assert!(close(quality.site_lines["s1"].recall, 1.0 / 3.0));
        assert!(close(quality.site_lines["s2"].precision, 2.0 / 3.0));
    }

    #[test]
    fn template_words_that_are_also_content_are_not_template_only() {
        // Gold {share share news}, template {share menu login}: template-only is {menu login}
        // ("share" is content twice, so none of its one template occurrence is
        // template-only): 2 tokens. Kept {share news menu} holds "menu" of them: 1/2.
        let labels = [label("u", "s", "share share news", "share menu login")];
        let kept = HashMap::from([("u".to_string(), "share news menu".to_string())]);
        assert_eq!(score(&labels, &kept).template_kept, 0.5);
    }
}
