//! Known-item retrieval: for every labelled page, a query made from its title and one made
//! from a phrase of its content; how high does the page rank?

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use super::Label;
use crate::analyze::{TITLE_SEPARATORS, for_each_word, joined_words, title_parts, words};
use crate::detect::title::{SITE_TITLE_MIN_PAGES, SITE_TITLE_SHARE};
use crate::index::OpenIndex;
use crate::search::{SearchError, Weights, top_urls};

/// Ranks considered.
pub const CUTOFF: usize = 10;

/// Mean reciprocal rank and success at rank 1 of one kind of query.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct RankFigures {
    /// Queries asked.
    pub queries: usize,
    /// Mean of 1/rank of the page within the first [`CUTOFF`] results (0 when absent).
    pub mrr_at_10: f64,
    /// Share of queries whose page ranked first.
    pub success_at_1: f64,
}

/// Known-item retrieval figures of one index.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Retrieval {
    /// Queries from page titles (the site's shared title parts, prefix and suffix removed:
    /// [`title_query`]).
    pub title: RankFigures,
    /// Queries from a seeded 6–10-word passage of the page's content.
    pub phrase: RankFigures,
}

/// The title without its site-name suffix: "Dealing with Bugs — Python 3.11 documentation"
/// → "Dealing with Bugs".
pub fn title_without_site(title: &str) -> &str {
    TITLE_SEPARATORS
        .iter()
        .filter_map(|separator| title.rfind(separator))
        .max()
        .map_or(title, |at| title[..at].trim())
}

/// Candidate passages drawn per page; the most distinctive is asked.
const CANDIDATES: usize = 5;

/// A distinctive passage of 6–10 consecutive words from `content`, or `None` if it has fewer
/// than six words: of [`CANDIDATES`] seeded passages, the one with the most distinct words
/// of four or more characters (the fewest stop words and repeats).
pub fn sample_phrase(content: &str, seed: u64) -> Option<String> {
    let words = words(content);
    if words.len() < 6 {
        return None;
    }
    let mut state = seed;
    let mut best: Option<(usize, &[String])> = None;
    for _ in 0..CANDIDATES {
        let length = (6 + (split_mix(&mut state) % 5) as usize).min(words.len());
        let start = (split_mix(&mut state) % (words.len() - length + 1) as u64) as usize;
        let passage = &words[start..start + length];
        let mut distinct: Vec<&str> = passage
            .iter()
            .filter(|word| word.chars().count() >= 4)
            .map(String::as_str)
            .collect();
        distinct.sort_unstable();
        distinct.dedup();
        if best.is_none_or(|(score, _)| distinct.len() > score) {
            best = Some((distinct.len(), passage));
        }
    }
    best.map(|(_, passage)| passage.join(" "))
}

fn split_mix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Reciprocal rank of `url` among `ranked` (0 when absent).
pub fn reciprocal_rank(ranked: &[String], url: &str) -> f64 {
    reciprocal(rank_of(ranked, url))
}

/// The rank of `url` among `ranked`, from 1 (`None` when absent).
fn rank_of(ranked: &[String], url: &str) -> Option<usize> {
    ranked
        .iter()
        .position(|candidate| candidate == url)
        .map(|at| at + 1)
}

/// 1/`rank`, 0 for no rank.
fn reciprocal(rank: Option<usize>) -> f64 {
    rank.map_or(0.0, |rank| 1.0 / rank as f64)
}

/// What a site's titles share: the words on at least [`SITE_TITLE_SHARE`] of them, and the
/// runs of words at least that share of them start and end with (once the parts made only of
/// shared words are gone).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SiteTitles {
    /// Words on at least [`SITE_TITLE_SHARE`] of the site's titles: its name and tagline,
    /// wherever its titles put them.
    pub shared: HashSet<String>,
    /// The words that at least [`SITE_TITLE_SHARE`] of the titles start with, in order.
    pub prefix: Vec<String>,
    /// The words that at least [`SITE_TITLE_SHARE`] of the titles end with, in order.
    pub suffix: Vec<String>,
}

/// Each site's [`SiteTitles`] (sites of [`SITE_TITLE_MIN_PAGES`] titles or more). The
/// shared words are found by the rule `hybrid` applies to a page's title; the prefix and
/// suffix are what a query leaves out besides whole parts.
fn site_titles(labels: &[Label]) -> HashMap<&str, SiteTitles> {
    let mut titles_of: HashMap<&str, Vec<&str>> = HashMap::new();
    for label in labels {
        titles_of.entry(&label.site).or_default().push(&label.title);
    }
    titles_of
        .into_iter()
        .filter(|(_, titles)| titles.len() as u32 >= SITE_TITLE_MIN_PAGES)
        .map(|(site, titles)| {
            let mut pages_with: HashMap<String, usize> = HashMap::new();
            for title in &titles {
                let mut seen = HashSet::new();
                for_each_word(title, |word, _, _| {
                    if seen.insert(word.to_string()) {
                        *pages_with.entry(word.to_string()).or_default() += 1;
                    }
                });
            }
            let enough = SITE_TITLE_SHARE * titles.len() as f64;
            let shared: HashSet<String> = pages_with
                .into_iter()
                .filter(|(_, pages)| *pages as f64 >= enough)
                .map(|(word, _)| word)
                .collect();
            let kept: Vec<Vec<String>> = titles
                .iter()
                .map(|title| words_outside_shared_parts(title, &shared))
                .collect();
            let prefix = shared_run(&kept, enough, |words, at| words.get(at));
            let suffix = shared_run(&kept, enough, |words, at| {
                words.len().checked_sub(at + 1).map(|at| &words[at])
            });
            let suffix = suffix.into_iter().rev().collect();
            (
                site,
                SiteTitles {
                    shared,
                    prefix,
                    suffix,
                },
            )
        })
        .collect()
}

/// The longest run of words that at least `enough` of `titles` share, read word by word
/// through `word_at` (from the start or from the end).
fn shared_run(
    titles: &[Vec<String>],
    enough: f64,
    word_at: impl Fn(&[String], usize) -> Option<&String>,
) -> Vec<String> {
    let mut run: Vec<String> = Vec::new();
    let mut carrying: Vec<&[String]> = titles.iter().map(Vec::as_slice).collect();
    loop {
        let mut counts: HashMap<&str, usize> = HashMap::new();
        for words in &carrying {
            if let Some(word) = word_at(words, run.len()) {
                *counts.entry(word.as_str()).or_default() += 1;
            }
        }
        let Some((word, count)) = counts
            .into_iter()
            .max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(a.0)))
        else {
            break;
        };
        if (count as f64) < enough {
            break;
        }
        let word = word.to_string();
        carrying.retain(|words| word_at(words, run.len()) == Some(&word));
        run.push(word);
    }
    run
}

/// The words of `title` without its parts ([`title_parts`]) made only of `shared` words.
fn words_outside_shared_parts(title: &str, shared: &HashSet<String>) -> Vec<String> {
    title_parts(title)
        .into_iter()
        .map(words)
        .filter(|part| !part.iter().all(|word| shared.contains(word)))
        .flatten()
        .collect()
}

/// A page's title query. When the site's titles are known, the title is cut into its parts
/// ([`title_parts`]: at its separators and before a closing group in parentheses) and every
/// part made only of the site's shared words is dropped, wherever it
/// stands ("BBC News - New York to raise …", "… | Ars Technica"), and then the site's shared
/// prefix and suffix where the title carries them; the page's own words stay even when they
/// are common on the site ("CMake 3.12 Release Notes — CMake 3.25 Documentation" asks "cmake
/// 3 12 release notes"). Otherwise the part after the last separator goes
/// ([`title_without_site`]). `None` if nothing is left.
pub fn title_query(title: &str, site: Option<&SiteTitles>) -> Option<String> {
    let query = match site {
        None => joined_words(title_without_site(title)),
        Some(site) => {
            let words = words_outside_shared_parts(title, &site.shared);
            let mut rest = words.as_slice();
            if let Some(after) = rest.strip_prefix(site.prefix.as_slice()) {
                rest = after;
            }
            if let Some(before) = rest.strip_suffix(site.suffix.as_slice()) {
                rest = before;
            }
            rest.join(" ")
        }
    };
    (!query.is_empty()).then_some(query)
}

/// Which kind of known-item query.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum QueryKind {
    /// Made from the page's title ([`title_query`]).
    Title,
    /// A passage of the page's content ([`sample_phrase`]).
    Phrase,
}

/// One known-item query and where its page ranked.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QueryOutcome {
    /// Title or phrase query.
    pub kind: QueryKind,
    /// The query as asked.
    pub query: String,
    /// The page it should find.
    pub url: String,
    /// The page's rank, from 1, within the first [`CUTOFF`] results (`None`: not among them).
    pub rank: Option<usize>,
    /// The first result (`None`: nothing matched).
    pub first: Option<String>,
}

impl Retrieval {
    /// The figures of `outcomes`.
    pub fn of(outcomes: &[QueryOutcome]) -> Retrieval {
        let mut title = Accumulator::default();
        let mut phrase = Accumulator::default();
        for outcome in outcomes {
            match outcome.kind {
                QueryKind::Title => title.add(outcome.rank),
                QueryKind::Phrase => phrase.add(outcome.rank),
            }
        }
        Retrieval {
            title: title.figures(),
            phrase: phrase.figures(),
        }
    }
}

/// Asks every query of `labels` against `open`: every query's outcome in the order asked
/// ([`Retrieval::of`] gives the figures).
pub fn ask(
    open: &OpenIndex,
    labels: &[Label],
    seed: u64,
    weights: Weights,
) -> Result<Vec<QueryOutcome>, SearchError> {
    let mut outcomes = Vec::new();
    let sites = site_titles(labels);
    let mut ask_one = |kind: QueryKind, query: String, url: &str| -> Result<(), SearchError> {
        let ranked = top_urls(open, &query, CUTOFF, weights)?;
        let rank = rank_of(&ranked, url);
        outcomes.push(QueryOutcome {
            kind,
            rank,
            first: ranked.into_iter().next(),
            query,
            url: url.to_string(),
        });
        Ok(())
    };
    for label in labels {
        if let Some(query) = title_query(&label.title, sites.get(label.site.as_str())) {
            ask_one(QueryKind::Title, query, &label.url)?;
        }
        let page_seed = seed ^ crate::segment::stable_hash_bytes(label.url.as_bytes());
        if let Some(query) =
            sample_phrase(&label.content_text, page_seed).map(|passage| joined_words(&passage))
        {
            ask_one(QueryKind::Phrase, query, &label.url)?;
        }
    }
    Ok(outcomes)
}

#[derive(Default)]
struct Accumulator {
    queries: usize,
    reciprocal_ranks: f64,
    first: usize,
}

impl Accumulator {
    fn add(&mut self, rank: Option<usize>) {
        self.queries += 1;
        self.reciprocal_ranks += reciprocal(rank);
        self.first += usize::from(rank == Some(1));
    }

    fn figures(&self) -> RankFigures {
        let n = self.queries.max(1) as f64;
        RankFigures {
            queries: self.queries,
            mrr_at_10: self.reciprocal_ranks / n,
            success_at_1: self.first as f64 / n,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn site_suffixes_are_removed_from_titles() {
        assert_eq!(
            title_without_site("Dealing with Bugs — Python 3.11.2 documentation"),
            "Dealing with Bugs"
        );
        assert_eq!(
            title_without_site("What is Ownership? - The Rust Programming Language"),
            "What is Ownership?"
        );
        assert_eq!(title_without_site("No suffix here"), "No suffix here");
    }

    /// A labelled page of site "s" with `title` (and the title as its URL).
    fn label(title: &str) -> Label {
        Label {
            url: title.into(),
            site: "s".into(),
            title: title.into(),
            content_text: String::new(),
            template_text: String::new(),
        }
    }

    #[test]
    fn a_site_s_shared_title_words_are_not_queried() {
        let labels: Vec<Label> = ["Intro", "Usage", "Install", "FAQ", "News"]
            .iter()
            .map(|page| label(&format!("Django 1.10 {page} notes")))
            .collect();
        let sites = site_titles(&labels);
        let words = sites.get("s");
        assert_eq!(
            title_query("Django 1.10 Usage notes", words).as_deref(),
            Some("usage")
        );
        assert_eq!(title_query("Django 1.10 notes", words), None);
        assert_eq!(
            title_query("Release notes — Django", None).as_deref(),
            Some("release notes")
        );
    }

    #[test]
    fn a_site_name_part_is_dropped_wherever_it_stands() {
        let shared = SiteTitles {
            shared: ["bbc", "news"].iter().map(|w| w.to_string()).collect(),
            ..SiteTitles::default()
        };
        assert_eq!(
            title_query("BBC News - New York to raise sale age", Some(&shared)).as_deref(),
            Some("new york to raise sale age")
        );
        assert_eq!(
            title_query("BBC NEWS | Technology | Apple iPod on video", Some(&shared)).as_deref(),
            Some("technology apple ipod on video")
        );
        assert_eq!(
            title_query("Good news - Plans | BBC News", Some(&shared)).as_deref(),
            Some("good news plans")
        );
    }

    #[test]
    fn a_page_s_own_words_stay_when_they_are_common_site_words() {
        let labels: Vec<Label> = [
            "CMake 3.12 Release Notes",
            "add_executable",
            "CMake Tutorial",
            "ctest(1)",
            "Step 1: A Basic Starting Point",
        ]
        .iter()
        .map(|page| label(&format!("{page} — CMake 3.25.1 Documentation")))
        .collect();
        let sites = site_titles(&labels);
        let site = sites.get("s");
        assert_eq!(
            site.map(|site| (site.prefix.len(), site.suffix.len())),
            Some((0, 0)),
            "the site's name is a part of its own, dropped whole"
        );
        assert_eq!(
            title_query(&labels[0].title, site).as_deref(),
            Some("cmake 3 12 release notes")
        );
        assert_eq!(
            title_query(&labels[2].title, site).as_deref(),
            Some("cmake tutorial")
        );
        assert_eq!(
            title_query("CMake 3.25.1 Documentation", site),
            None,
            "a title of only the site's name asks nothing"
        );
    }

    #[test]
    fn phrases_are_seeded_and_six_to_ten_words() {
        let content = (0..50)
            .map(|n| format!("w{n}"))
            .collect::<Vec<_>>()
            .join(" ");
        let a = sample_phrase(&content, 7).unwrap();
        assert_eq!(a, sample_phrase(&content, 7).unwrap());
        let n = a.split(' ').count();
        assert!((6..=10).contains(&n), "{n} words");
        assert!(sample_phrase("too few words here", 1).is_none());
    }

    #[test]
    fn reciprocal_ranks() {
        let ranked: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
        assert_eq!(reciprocal_rank(&ranked, "a"), 1.0);
        assert_eq!(reciprocal_rank(&ranked, "c"), 1.0 / 3.0);
        assert_eq!(reciprocal_rank(&ranked, "z"), 0.0);
    }

    #[test]
    fn mean_reciprocal_rank_and_success_at_1_from_ranks() {
        // Ranks 1, 2, absent, 10: reciprocal ranks 1 + 1/2 + 0 + 1/10 = 1.6 over 4 queries
        // → MRR@10 0.4; one of the four first → S@1 0.25.
        let mut figures = Accumulator::default();
        for rank in [Some(1), Some(2), None, Some(10)] {
            figures.add(rank);
        }
        assert_eq!(
            figures.figures(),
            RankFigures {
                queries: 4,
                mrr_at_10: 0.4,
                success_at_1: 0.25,
            }
        );
        // No queries: 0, not NaN.
        assert_eq!(Accumulator::default().figures(), RankFigures::default());
    }

    #[test]
    fn a_page_ranked_past_the_cutoff_counts_zero() {
        // Ten one-word pages match "alpha" better than the long page "t", which ranks 11th,
        // one past CUTOFF: not found, reciprocal rank 0. Only "u" matches "zulu": rank 1.
        // Title queries: MRR@10 = (0 + 1/1)/2 = 0.5, S@1 = 1/2. No content, no phrases.
        let dir = tempfile::tempdir().unwrap();
        let long_body = format!("alpha{}", " filler".repeat(40));
        let mut pages: Vec<(String, &str, &str)> = (0..CUTOFF)
            .map(|n| (format!("d{n}"), "Alpha", "alpha"))
            .collect();
        pages.push(("t".into(), "Alpha", &long_body));
        pages.push(("u".into(), "Zulu", "zulu"));
        let indexed = pages
            .iter()
            .map(|(url, title, body)| crate::index::IndexedPage::text(url, "s", title, body));
        let summary = crate::report::BuildSummary {
            detector: "none".into(),
            ..Default::default()
        };
        super::super::write_index(dir.path(), indexed, &summary).unwrap();
        let open = OpenIndex::open(dir.path()).unwrap();
        let labels = [("t", "s1", "Alpha"), ("u", "s2", "Zulu")].map(|(url, site, title)| Label {
            url: url.into(),
            site: site.into(),
            title: title.into(),
            content_text: String::new(),
            template_text: String::new(),
        });
        let outcomes = ask(&open, &labels, 1, Weights::default()).unwrap();
        let figures = Retrieval::of(&outcomes);
        assert_eq!(outcomes.len(), 2);
        assert_eq!(outcomes[0].query, "alpha");
        assert_eq!(outcomes[0].rank, None, "{outcomes:?}");
        assert!(outcomes[0].first.as_deref().is_some_and(|url| url != "t"));
        assert_eq!(outcomes[1].rank, Some(1));
        assert_eq!(
            figures.title,
            RankFigures {
                queries: 2,
                mrr_at_10: 0.5,
                success_at_1: 0.5,
            }
        );
        assert_eq!(figures.phrase, RankFigures::default());
    }
}
