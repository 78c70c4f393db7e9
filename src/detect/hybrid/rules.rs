//! The rules `hybrid` applies around its model: one page's feature rows and comment bits in,
//! one [`Verdict`] per block out. [`Hybrid`](super::Hybrid) decides a page with them, and
//! cross-validation ([`crate::learn::cross_validate`]) decides a held-out page with the same
//! code, so held-out figures measure what a build does.
//!
//! In order, for each block:
//! 1. a block in a thread of reader comments is dropped ([`READER_COMMENT`]), unless comments
//!    are kept;
//! 2. the model's probability is compared with the threshold ([`CONTENT_PROBABILITY`]);
//! 3. where the site's evidence is thin (the site has at most
//!    [`DecisionRules::thin_site_pages`] pages, so far in one pass), a block the model is
//!    unsure of — within [`THIN_EVIDENCE_MARGIN`] below the threshold — is kept
//!    ([`THIN_SITE_EVIDENCE`]): losing content costs more than keeping a little template;
//! 4. a dropped heading made of the page's own title words is kept
//!    ([`title::TITLE_HEADING`]).
//!
//! Then for the page, unless comments are kept: a heading that opens a section of reader
//! comments ([`comments_heading::opens_comments`]: "12 Comments", "Leave a Reply") after at
//! least a third of what the page keeps drops every kept block from it to the page's end
//! ([`AFTER_COMMENTS_HEADING`]) — a thread whose markup names no comments, and what follows it.
//! So does a block that only names comments ("Comments", "Responses":
//! [`comments_heading::names_comments`]) when what follows it has a thread's shape
//! ([`comment_thread::follows_as_thread`]: short dated lines again and again from right after
//! it) ([`AFTER_COMMENTS_NAME`]); whichever of the two comes first.
//!
//! Then: when what is kept holds less than [`DecisionRules::page_floor`] of
//! the page's words, the dropped blocks whose text no other page of the site holds are kept
//! ([`PAGE_OWN_TEXT`]), those the model finds likeliest first, until the kept words reach
//! that share. A page the model all but empties is more likely one it misreads (an index of
//! links, a table of reference) than a page without content, and a block no other page
//! repeats is not the site's template; but on a page alone on its site every block is its
//! own, so keeping them all would keep its whole template (docs/MEASUREMENTS.md, lone pages).

use super::comment_thread;
use super::comments_heading;
use super::features;
use super::title;
use crate::detect::{Rule, Verdict};

/// The model's probability that the block is content; kept at or above the threshold.
pub const CONTENT_PROBABILITY: Rule = Rule::new(3, "content_probability");

/// The block is in a thread of reader comments (`segment::evidence::context::COMMENTS`),
/// which is not main content unless `--keep-comments` asks for it.
pub const READER_COMMENT: Rule = Rule::new(11, "reader_comment");

/// At or after a heading that opens a section of reader comments, which comes after at least a
/// third of what the page keeps: dropped with what follows, unless `--keep-comments` asks for
/// comments.
pub const AFTER_COMMENTS_HEADING: Rule = Rule::new(15, "after_comments_heading");

/// At or after a block that only names reader comments ("Comments", "Responses»") and is
/// followed by a thread's shape, past [`WORDS_BEFORE_COMMENTS`] kept words: dropped with what
/// follows, unless `--keep-comments` asks for comments. The bare name alone is also a section
/// of a reference; the thread's dated lines tell the two apart.
pub const AFTER_COMMENTS_NAME: Rule = Rule::new(16, "after_comments_name");

/// Kept words a page must hold before a comments heading for [`AFTER_COMMENTS_HEADING`], or
/// before a name of comments for [`AFTER_COMMENTS_NAME`]: a short page's heading is as likely
/// its subject.
pub const WORDS_BEFORE_COMMENTS: f32 = 50.0;

/// Kept below the threshold, within [`THIN_EVIDENCE_MARGIN`] of it, because the site has too
/// few pages for its evidence to say much.
pub const THIN_SITE_EVIDENCE: Rule = Rule::new(12, "thin_site_evidence");

/// Kept because the model kept too little of the page, and no other page of the site holds
/// this text: a [`fallback`](Rule::fallback), so the page reads as having no main content.
pub const PAGE_OWN_TEXT: Rule = Rule::fallback(13, "page_own_text");

/// How far below the threshold a block of a site with thin evidence is still kept.
pub const THIN_EVIDENCE_MARGIN: f32 = 0.1;

const LOG_WORDS: usize = features::feature_index("log_words");
const SITE_LOG_PAGES: usize = features::feature_index("site_log_pages");
const SITE_TEXT_LOG_PAGES: usize = features::feature_index("site_text_log_pages");

/// A count stored in a row as `ln(1 + count)`.
fn count_of(logged: f32) -> f32 {
    logged.exp_m1().round()
}

/// What `hybrid` does around its model's probabilities.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DecisionRules {
    /// Keep a heading made mostly of the page's own title words.
    pub keep_title_heading: bool,
    /// Keep reader comments as the model decides them.
    pub keep_comments: bool,
    /// A site of at most this many pages has thin evidence (0: never).
    pub thin_site_pages: u32,
    /// A page keeping less than this share of its words keeps its own text, likeliest
    /// first, up to this share (0: never).
    pub page_floor: f32,
}

impl Default for DecisionRules {
    fn default() -> Self {
        DecisionRules {
            keep_title_heading: true,
            keep_comments: false,
            thin_site_pages: 10,
            page_floor: 0.1,
        }
    }
}

impl DecisionRules {
    /// Every rule that may decide a block.
    pub const RULES: [Rule; 7] = [
        CONTENT_PROBABILITY,
        title::TITLE_HEADING,
        READER_COMMENT,
        AFTER_COMMENTS_HEADING,
        AFTER_COMMENTS_NAME,
        THIN_SITE_EVIDENCE,
        PAGE_OWN_TEXT,
    ];

    /// The verdicts on one page's blocks: their feature `rows` and `texts`, whether each is
    /// `in_comments`, and the model's `probabilities` of each row being content, compared
    /// with `threshold`.
    pub fn decide(
        self,
        rows: &[&[f32]],
        texts: &[&str],
        in_comments: &[bool],
        probabilities: &[f32],
        threshold: f32,
    ) -> Vec<Verdict> {
        let mut verdicts: Vec<Verdict> = rows
            .iter()
            .zip(in_comments)
            .zip(probabilities)
            .map(|((row, &in_comments), &probability)| {
                self.block_verdict(row, in_comments, probability, threshold)
            })
            .collect();
        let comments = (!self.keep_comments)
            .then(|| comments_start(rows, texts, &verdicts))
            .flatten();
        let Some((start, rule)) = comments else {
            self.apply_page_floor(rows, in_comments, &mut verdicts);
            return verdicts;
        };
        for verdict in verdicts[start..].iter_mut().filter(|verdict| verdict.keep) {
            *verdict = verdict.overruled_to_drop(rule);
        }
        // What follows the heading or name is the thread's, not the page's own text, for the floor.
        let mut in_comments = in_comments.to_vec();
        in_comments[start..].fill(true);
        self.apply_page_floor(rows, &in_comments, &mut verdicts);
        verdicts
    }

    /// Whether [`decide`](Self::decide) reads the probability of a block `in_comments` (a
    /// block it drops as a reader comment it drops unread).
    pub fn reads_probability(self, in_comments: bool) -> bool {
        !in_comments || self.keep_comments
    }

    fn block_verdict(
        self,
        row: &[f32],
        in_comments: bool,
        probability: f32,
        threshold: f32,
    ) -> Verdict {
        if in_comments && !self.keep_comments {
            return Verdict::dropped(READER_COMMENT);
        }
        if probability >= threshold {
            return Verdict::scored(true, CONTENT_PROBABILITY, probability, threshold);
        }
        if count_of(row[SITE_LOG_PAGES]) <= self.thin_site_pages as f32 {
            let lowered = (threshold - THIN_EVIDENCE_MARGIN).max(0.0);
            if probability >= lowered {
                return Verdict::scored(true, THIN_SITE_EVIDENCE, probability, lowered);
            }
        }
        let verdict = Verdict::scored(false, CONTENT_PROBABILITY, probability, threshold);
        if self.keep_title_heading && features::is_title_heading(row) {
            return verdict.overruled(title::TITLE_HEADING);
        }
        verdict
    }

    fn apply_page_floor(self, rows: &[&[f32]], in_comments: &[bool], verdicts: &mut [Verdict]) {
        if self.page_floor <= 0.0 {
            return;
        }
        let mut words = 0.0;
        let mut kept = 0.0;
        for ((row, &in_comments), verdict) in rows.iter().zip(in_comments).zip(&*verdicts) {
            let block_words = count_of(row[LOG_WORDS]);
            if !in_comments || self.keep_comments {
                words += block_words;
            }
            if verdict.keep {
                kept += block_words;
            }
        }
        let floor = self.page_floor * words;
        if words == 0.0 || kept >= floor {
            return;
        }
        // The page's own dropped blocks, the model's likeliest first (block order among
        // equals), kept until the page holds the floor's share of its words.
        let mut own: Vec<usize> = (0..verdicts.len())
            .filter(|&block| {
                let verdict = &verdicts[block];
                let dropped_by_model = !verdict.keep && verdict.rule == CONTENT_PROBABILITY;
                dropped_by_model
                    && count_of(rows[block][SITE_TEXT_LOG_PAGES]) <= 1.0
                    && !in_comments[block]
            })
            .collect();
        let likelihood = |block: usize| match verdicts[block].score {
            score if score.is_nan() => f32::NEG_INFINITY,
            score => score,
        };
        own.sort_by(|&a, &b| likelihood(b).total_cmp(&likelihood(a)));
        for block in own {
            if kept >= floor {
                break;
            }
            verdicts[block] = verdicts[block].overruled(PAGE_OWN_TEXT);
            kept += count_of(rows[block][LOG_WORDS]);
        }
    }
}

/// Where the page's section of reader comments starts, and the rule that found it: a bare name
/// a thread follows before the comments heading ([`comments_name_at`]), or else that heading
/// ([`comments_heading_at`]).
fn comments_start(rows: &[&[f32]], texts: &[&str], verdicts: &[Verdict]) -> Option<(usize, Rule)> {
    let heading = comments_heading_at(rows, texts, verdicts);
    let name = comments_name_at(rows, texts, verdicts, heading.unwrap_or(texts.len()));
    (name.map(|at| (at, AFTER_COMMENTS_NAME))).or(heading.map(|at| (at, AFTER_COMMENTS_HEADING)))
}

/// Kept words of a block.
fn kept_words(row: &[f32], verdict: &Verdict) -> f32 {
    if verdict.keep {
        count_of(row[LOG_WORDS])
    } else {
        0.0
    }
}

/// The first block before `heading_at` and past [`WORDS_BEFORE_COMMENTS`] kept words that only
/// names reader comments, if a thread's shape follows it and no later block up to `heading_at`
/// (where a comments heading drops what follows) names them again and is kept; a later name is
/// not looked for. A listing's posts each end in such a name, the next post's byline dated
/// right after it; a thread does not name itself again, but for a comment form's "Comments:"
/// label or a nested "Replies", which the model drops with the template around them.
fn comments_name_at(
    rows: &[&[f32]],
    texts: &[&str],
    verdicts: &[Verdict],
    heading_at: usize,
) -> Option<usize> {
    let named_and_kept =
        |block: usize| verdicts[block].keep && comments_heading::names_comments(texts[block]);
    let mut before = 0.0;
    for block in 0..heading_at {
        if before >= WORDS_BEFORE_COMMENTS && comments_heading::names_comments(texts[block]) {
            let named_again = (block + 1..heading_at).any(named_and_kept);
            return (!named_again && comment_thread::follows_as_thread(&texts[block + 1..]))
                .then_some(block);
        }
        before += kept_words(rows[block], &verdicts[block]);
    }
    None
}

/// The heading that opens the page's section of reader comments, if it comes after at least a
/// third of what `verdicts` keep and [`WORDS_BEFORE_COMMENTS`] kept words: the first comments
/// heading past those words (one before them is a count in a byline). A later one is not
/// looked for when the first fails: on a listing, each post ends in a heading of its comments.
fn comments_heading_at(rows: &[&[f32]], texts: &[&str], verdicts: &[Verdict]) -> Option<usize> {
    debug_assert!(rows.len() == texts.len() && rows.len() == verdicts.len());
    let total: f32 = rows
        .iter()
        .zip(verdicts)
        .map(|(row, verdict)| kept_words(row, verdict))
        .sum();
    let mut before = 0.0;
    for (block, ((row, verdict), text)) in rows.iter().zip(verdicts).zip(texts).enumerate() {
        if row[features::HEADING_LEVEL] > 0.0
            && before >= WORDS_BEFORE_COMMENTS
            && comments_heading::opens_comments(text)
        {
            let after = total - before;
            return (before >= 0.5 * after).then_some(block);
        }
        before += kept_words(row, verdict);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row with `words` words, on a site of `site_pages` pages, whose text `text_pages`
    /// pages hold; the probability the test gives it is in its first unused feature.
    fn row(words: usize, site_pages: usize, text_pages: usize, probability: f32) -> Vec<f32> {
        let mut row = vec![0.0; features::count()];
        row[LOG_WORDS] = (words as f32).ln_1p();
        row[SITE_LOG_PAGES] = (site_pages as f32).ln_1p();
        row[SITE_TEXT_LOG_PAGES] = (text_pages as f32).ln_1p();
        row[features::feature_index("digit_share")] = probability;
        row
    }

    fn decide(rules: DecisionRules, rows: &[Vec<f32>], comments: &[bool]) -> Vec<Verdict> {
        let texts = vec!["text"; rows.len()];
        decide_texts(rules, rows, &texts, comments)
    }

    fn decide_texts(
        rules: DecisionRules,
        rows: &[Vec<f32>],
        texts: &[&str],
        comments: &[bool],
    ) -> Vec<Verdict> {
        let rows: Vec<&[f32]> = rows.iter().map(Vec::as_slice).collect();
        let probabilities: Vec<f32> = rows
            .iter()
            .map(|row| row[features::feature_index("digit_share")])
            .collect();
        rules.decide(&rows, texts, comments, &probabilities, 0.6)
    }

    /// A page of `article` words of content, a heading `heading`, then `thread` words the
    /// model would keep.
    fn page_with_heading(article: usize, heading: &str, thread: usize) -> Vec<Verdict> {
        let mut heading_row = row(2, 5, 1, 0.9);
        heading_row[features::HEADING_LEVEL] = 2.0;
        let rows = [
            row(article, 5, 1, 0.9),
            heading_row,
            row(thread, 5, 1, 0.9),
            row(10, 5, 5, 0.9),
        ];
        let texts = ["The article.", heading, "Great post, thanks!", "Footer"];
        decide_texts(DecisionRules::default(), &rows, &texts, &[false; 4])
    }

    #[test]
    fn a_comments_heading_after_the_content_drops_it_and_what_follows() {
        let verdicts = page_with_heading(200, "12 Comments", 150);
        assert!(verdicts[0].keep);
        for verdict in &verdicts[1..] {
            assert!(!verdict.keep);
            assert_eq!(verdict.rule, AFTER_COMMENTS_HEADING);
        }
        // The probability it had is still shown.
        assert_eq!(verdicts[2].score, 0.9);
    }

    #[test]
    fn a_comments_heading_needs_most_of_the_content_before_it() {
        // Too little before: the heading is as likely the page's subject.
        assert!(
            page_with_heading(30, "12 Comments", 10)
                .iter()
                .all(|v| v.keep)
        );
        // More than twice as much after as before.
        assert!(
            page_with_heading(100, "12 Comments", 400)
                .iter()
                .all(|v| v.keep)
        );
        // Not a comments heading.
        assert!(
            page_with_heading(200, "Comments", 150)
                .iter()
                .all(|v| v.keep)
        );
    }

    #[test]
    fn the_first_comments_heading_past_a_byline_decides_alone() {
        let heading = |words| {
            let mut heading = row(words, 5, 1, 0.9);
            heading[features::HEADING_LEVEL] = 2.0;
            heading
        };
        // A listing: each post ends in a heading of its comments; the first is too early.
        let rows = [
            row(200, 5, 1, 0.9),
            heading(2),
            row(200, 5, 1, 0.9),
            heading(2),
            row(200, 5, 1, 0.9),
            heading(2),
        ];
        let texts = [
            "Post one",
            "5 Comments",
            "Post two",
            "3 Comments",
            "Post three",
            "1 Comment",
        ];
        let verdicts = decide_texts(DecisionRules::default(), &rows, &texts, &[false; 6]);
        assert!(verdicts.iter().all(|verdict| verdict.keep));
        // A count in the byline, before any content, is passed over.
        let rows = [
            heading(2),
            row(200, 5, 1, 0.9),
            heading(2),
            row(100, 5, 1, 0.9),
        ];
        let texts = ["12 Comments", "The article", "12 Comments", "Great post"];
        let verdicts = decide_texts(DecisionRules::default(), &rows, &texts, &[false; 4]);
        let kept: Vec<bool> = verdicts.iter().map(|verdict| verdict.keep).collect();
        assert_eq!(kept, [true, true, false, false]);
    }

    #[test]
    fn what_follows_a_comments_heading_is_not_the_pages_own_text_for_the_floor() {
        let mut heading = row(2, 1, 1, 0.9);
        heading[features::HEADING_LEVEL] = 2.0;
        // 60 words kept, then the thread, then 2,000 words the model drops, no other page has.
        let rows = [
            row(60, 1, 1, 0.9),
            heading,
            row(100, 1, 1, 0.9),
            row(2000, 1, 1, 0.1),
        ];
        let texts = ["The article", "12 Comments", "Great post", "Sidebar"];
        let verdicts = decide_texts(DecisionRules::default(), &rows, &texts, &[false; 4]);
        let rules: Vec<Rule> = verdicts.iter().map(|verdict| verdict.rule).collect();
        assert_eq!(
            rules,
            [
                CONTENT_PROBABILITY,
                AFTER_COMMENTS_HEADING,
                AFTER_COMMENTS_HEADING,
                CONTENT_PROBABILITY
            ]
        );
        assert!(!verdicts[3].keep, "the floor kept what follows the thread");
    }

    #[test]
    fn a_comments_heading_only_counts_as_a_heading_and_not_when_comments_are_kept() {
        let rows = [row(200, 5, 1, 0.9), row(2, 5, 1, 0.9), row(150, 5, 1, 0.9)];
        let texts = ["The article.", "12 Comments", "Great post"];
        let verdicts = decide_texts(DecisionRules::default(), &rows, &texts, &[false; 3]);
        assert!(
            verdicts.iter().all(|verdict| verdict.keep),
            "a link, not a heading"
        );
        let verdicts = page_with_heading(200, "12 Comments", 150);
        assert!(!verdicts[2].keep);
        let keep_comments = DecisionRules {
            keep_comments: true,
            ..DecisionRules::default()
        };
        let mut heading_row = row(2, 5, 1, 0.9);
        heading_row[features::HEADING_LEVEL] = 2.0;
        let rows = [row(200, 5, 1, 0.9), heading_row, row(150, 5, 1, 0.9)];
        let verdicts = decide_texts(keep_comments, &rows, &texts, &[false; 3]);
        assert!(verdicts.iter().all(|verdict| verdict.keep));
    }

    /// An article of `article` words, a block of `name`, then a thread of three comments (a
    /// dated byline and a comment each) and a footer.
    fn page_with_name(article: usize, name: &str) -> Vec<Verdict> {
        page_with_name_under(DecisionRules::default(), article, name)
    }

    fn page_with_name_under(rules: DecisionRules, article: usize, name: &str) -> Vec<Verdict> {
        let mut rows = vec![row(article, 1, 1, 0.9), row(1, 1, 1, 0.9)];
        let mut texts = vec!["The article.", name];
        for _ in 0..3 {
            rows.extend([row(6, 1, 1, 0.9), row(40, 1, 1, 0.9)]);
            texts.extend(["Ann | October 26, 2012 at 7:59 AM", "Great post, thanks!"]);
        }
        rows.push(row(10, 1, 1, 0.9));
        texts.push("Footer");
        let comments = vec![false; rows.len()];
        decide_texts(rules, &rows, &texts, &comments)
    }

    #[test]
    fn a_bare_comments_name_a_thread_follows_drops_it_and_what_follows() {
        let verdicts = page_with_name(200, "Comments»");
        assert!(verdicts[0].keep);
        for verdict in &verdicts[1..] {
            assert!(!verdict.keep);
            assert_eq!(verdict.rule, AFTER_COMMENTS_NAME);
        }
        // However much of the page the thread is: the thread's shape says what it is.
        assert!(!page_with_name(60, "Comments").last().unwrap().keep);
        // Too little before, or a name that says more than comments: all kept.
        assert!(page_with_name(30, "Comments").iter().all(|v| v.keep));
        assert!(
            page_with_name(200, "Comments and docstrings")
                .iter()
                .all(|v| v.keep)
        );
    }

    #[test]
    fn a_listing_whose_posts_each_end_in_a_name_keeps_its_posts() {
        // Each post: its dated byline, its text, then "Comments»" (a link to its thread).
        let mut rows = Vec::new();
        let mut texts = Vec::new();
        for _ in 0..4 {
            rows.extend([row(6, 1, 1, 0.9), row(80, 1, 1, 0.9), row(1, 1, 1, 0.9)]);
            texts.extend(["By Ann | October 26, 2012", "A post.", "Comments»"]);
        }
        let verdicts = decide_texts(DecisionRules::default(), &rows, &texts, &[false; 12]);
        assert!(verdicts.iter().all(|verdict| verdict.keep));
        // A comment form's label after the thread, which the model drops, is no listing.
        let mut rows = vec![row(200, 1, 1, 0.9), row(1, 1, 1, 0.9)];
        let mut texts = vec!["The article.", "Comments"];
        for _ in 0..3 {
            rows.extend([row(6, 1, 1, 0.9), row(40, 1, 1, 0.9)]);
            texts.extend(["Ann | October 26, 2012 at 7:59 AM", "Great post, thanks!"]);
        }
        rows.push(row(1, 1, 1, 0.1));
        texts.push("Comments:");
        let verdicts = decide_texts(DecisionRules::default(), &rows, &texts, &[false; 9]);
        assert!(verdicts[0].keep);
        assert!(verdicts[1..].iter().all(|verdict| !verdict.keep));
        assert_eq!(verdicts[2].rule, AFTER_COMMENTS_NAME);
    }

    #[test]
    fn a_bare_comments_name_without_a_thread_after_it_keeps_the_page() {
        // A reference's section called "Comments": prose, no dated lines.
        let rows = [row(200, 1, 1, 0.9), row(1, 1, 1, 0.9), row(300, 1, 1, 0.9)];
        let texts = [
            "The reference.",
            "Comments",
            "Comments start with a hash sign.",
        ];
        let verdicts = decide_texts(DecisionRules::default(), &rows, &texts, &[false; 3]);
        assert!(verdicts.iter().all(|verdict| verdict.keep));
        // With comments kept, a thread is kept too.
        let keep_comments = DecisionRules {
            keep_comments: true,
            ..DecisionRules::default()
        };
        let verdicts = page_with_name_under(keep_comments, 200, "Comments");
        assert!(verdicts.iter().all(|verdict| verdict.keep));
    }

    #[test]
    fn thin_evidence_keeps_what_the_model_is_unsure_of() {
        let rows = [
            row(50, 10, 1, 0.55),
            row(50, 11, 1, 0.55),
            row(50, 2, 1, 0.45),
        ];
        let verdicts = decide(DecisionRules::default(), &rows, &[false; 3]);
        assert_eq!(verdicts[0].rule, THIN_SITE_EVIDENCE);
        assert!(verdicts[0].keep);
        assert!((verdicts[0].threshold - 0.5).abs() < 1e-6);
        assert!(!verdicts[1].keep, "eleven pages are evidence enough");
        assert!(!verdicts[2].keep, "past the margin the model decides");
        let off = DecisionRules {
            thin_site_pages: 0,
            page_floor: 0.0,
            ..DecisionRules::default()
        };
        assert!(!decide(off, &rows, &[false; 3])[0].keep);
    }

    #[test]
    fn a_page_all_but_emptied_keeps_its_own_text() {
        // 10 kept words of 200: under the floor of 10 %.
        let rows = [
            row(10, 20, 1, 0.9),
            row(100, 20, 1, 0.1),
            row(40, 20, 20, 0.1),
            row(50, 20, 1, 0.1),
        ];
        let verdicts = decide(
            DecisionRules::default(),
            &rows,
            &[false, false, false, true],
        );
        assert_eq!(verdicts[1].rule, PAGE_OWN_TEXT);
        assert!(verdicts[1].keep);
        assert!(verdicts[1].rule.is_fallback());
        assert!(
            !verdicts[2].keep,
            "text on every page of the site stays dropped"
        );
        assert_eq!(verdicts[3].rule, READER_COMMENT);
        assert!(!verdicts[3].keep);
        // 30 kept words of 150: the model's decisions stand.
        let rows = [row(30, 20, 1, 0.9), row(120, 20, 1, 0.1)];
        assert!(!decide(DecisionRules::default(), &rows, &[false; 2])[1].keep);
    }

    #[test]
    fn the_floor_keeps_the_likeliest_own_blocks_up_to_its_share() {
        // 0 kept words of 400 on a page alone on its site: every block is its own. The floor
        // wants 40 words: the likeliest block (30 words) and then the next (20) reach it.
        let rows = [
            row(100, 1, 1, 0.05),
            row(30, 1, 1, 0.4),
            row(200, 1, 1, 0.1),
            row(20, 1, 1, 0.3),
            row(50, 1, 1, 0.2),
        ];
        let verdicts = decide(DecisionRules::default(), &rows, &[false; 5]);
        let kept: Vec<bool> = verdicts.iter().map(|verdict| verdict.keep).collect();
        assert_eq!(kept, [false, true, false, true, false]);
        assert!(verdicts[1].rule == PAGE_OWN_TEXT && verdicts[3].rule == PAGE_OWN_TEXT);
        assert_eq!(verdicts[0].rule, CONTENT_PROBABILITY);
    }

    #[test]
    fn comments_are_dropped_whatever_the_model_says() {
        let rows = [row(50, 20, 1, 0.99), row(50, 20, 1, 0.99)];
        let rows: Vec<&[f32]> = rows.iter().map(Vec::as_slice).collect();
        let verdicts =
            DecisionRules::default().decide(&rows, &["a", "b"], &[true, false], &[1.0, 1.0], 0.6);
        assert_eq!(verdicts[0].rule, READER_COMMENT);
        assert!(!verdicts[0].keep);
        assert!(verdicts[1].keep);
    }
    #[test]
    fn a_probability_the_rules_do_not_read_changes_no_verdict() {
        // Pages of comments and not, thin and thick evidence, a floor to fill, a comments
        // heading: each decided with every unread probability NaN and then 0 and 1.
        let heading = {
            let mut heading = row(2, 5, 1, 0.9);
            heading[features::HEADING_LEVEL] = 2.0;
            heading
        };
        let rows = [
            row(300, 20, 1, 0.02),
            row(40, 3, 1, 0.55),
            heading,
            row(80, 20, 1, 0.9),
            row(60, 20, 1, 0.97),
            row(5, 20, 9, 0.3),
        ];
        let rows: Vec<&[f32]> = rows.iter().map(Vec::as_slice).collect();
        let texts = [
            "A post.",
            "More.",
            "12 Comments",
            "Nice!",
            "Thanks.",
            "Footer",
        ];
        let probabilities = [0.02, 0.55, 0.9, 0.9, 0.97, 0.3];
        for rules in [
            DecisionRules::default(),
            DecisionRules {
                keep_comments: true,
                ..DecisionRules::default()
            },
        ] {
            for comments in [
                [false; 6],
                [false, false, false, true, true, false],
                [true; 6],
            ] {
                let verdicts = rules.decide(&rows, &texts, &comments, &probabilities, 0.6);
                for unread in [f32::NAN, 0.0, 1.0] {
                    let probabilities: Vec<f32> = probabilities
                        .iter()
                        .zip(comments)
                        .map(|(&p, c)| {
                            if rules.reads_probability(c) {
                                p
                            } else {
                                unread
                            }
                        })
                        .collect();
                    let again = rules.decide(&rows, &texts, &comments, &probabilities, 0.6);
                    assert_eq!(
                        format!("{again:?}"),
                        format!("{verdicts:?}"),
                        "{comments:?} {unread}"
                    );
                }
            }
        }
    }
}
