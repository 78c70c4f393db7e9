//! The page's title as evidence: which of its words a block holds, which of them are the
//! page's own rather than its site's (the site's name and tagline, on nearly every title of
//! the site), and the rule that a heading made mostly of the page's own title words is kept.
//!
//! `hybrid` reads the overlap as features and applies the rule itself. For every other
//! detector the rule is [`KeepTitleHeadings`], a wrapper the registry puts around the detector
//! when a run asks for it (`--keep-title-headings`); it is off by default, so that each seed
//! detector stays its paper's method.

use std::sync::atomic::{AtomicU64, Ordering};

use rustc_hash::FxHashMap;

use super::{Counter, Detector, PageSource, Passes, Rule, Verdict};
use crate::analyze::for_each_word;
use crate::segment::{SegmentOptions, SegmentedPage, WordId, stable_hash_bytes};

/// A heading made mostly of the page's own title words, kept whatever the detector's figure
/// (which the verdict still shows).
pub const TITLE_HEADING: Rule = Rule::new(4, "title_heading");

/// A title word on at least this share of a site's titles is the site's, not the page's.
pub const SITE_TITLE_SHARE: f64 = 0.9;

/// Titles a site needs before its shared title words are known.
pub const SITE_TITLE_MIN_PAGES: u32 = 5;

/// The words of `text` as [`WordId`] hashes, in order.
pub fn word_ids(text: &str) -> Vec<u64> {
    let mut words = Vec::new();
    for_each_word(text, |word, _, _| words.push(WordId::of(word).0));
    words
}

/// Whether a block is its page's title heading: a heading holding at least half of the page's
/// own title words (`title_in_block`), at least 60 % of whose words are own title words
/// (`block_in_title`).
pub fn is_title_heading(heading: bool, title_in_block: f32, block_in_title: f32) -> bool {
    heading && block_in_title >= 0.6 && title_in_block >= 0.5
}

/// For each of a page's distinct title words (`title`, as [`TitleOverlap::title`]), whether it
/// is the page's own rather than the site's: on fewer than [`SITE_TITLE_SHARE`] of the
/// `site_pages` titles, counted by `pages_with`, once the site has [`SITE_TITLE_MIN_PAGES`].
pub fn own_title_words(
    title: &[(u64, u32)],
    site_pages: u32,
    pages_with: impl Fn(u64) -> u32,
) -> Vec<bool> {
    title
        .iter()
        .map(|&(word, _)| {
            site_pages < SITE_TITLE_MIN_PAGES
                || f64::from(pages_with(word)) < SITE_TITLE_SHARE * f64::from(site_pages)
        })
        .collect()
}

/// Which of the page's title words each block holds, taken from the blocks' word lists while
/// the page still has them (a page waiting for its decision keeps only its text).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TitleOverlap {
    /// The title's distinct words ([`word_ids`]; the first [`Self::MAX_TITLE_WORDS`]), in
    /// title order, each with how often the title holds it.
    pub title: Vec<(u64, u32)>,
    /// Each block's word count.
    pub block_words: Vec<u32>,
    /// (block, index into `title`, occurrences in the block), in block order.
    pub hits: Vec<(u32, u16, u32)>,
}

impl TitleOverlap {
    /// Distinct title words looked for, at most.
    pub const MAX_TITLE_WORDS: usize = 64;

    /// The overlap of `page`'s blocks with its title. A block whose word list was dropped is
    /// read from its text.
    pub fn of(page: &SegmentedPage) -> Self {
        let mut title: Vec<(u64, u32)> = Vec::new();
        for word in word_ids(&page.title) {
            if let Some((_, count)) = title.iter_mut().find(|(known, _)| *known == word) {
                *count += 1;
            } else if title.len() < Self::MAX_TITLE_WORDS {
                title.push((word, 1));
            }
        }
        let mut overlap = TitleOverlap {
            block_words: Vec::with_capacity(page.blocks.len()),
            hits: Vec::new(),
            title,
        };
        let mut counts = vec![0u32; overlap.title.len()];
        for (at, block) in page.blocks.iter().enumerate() {
            counts.fill(0);
            let mut count = |id: u64| {
                if let Some(slot) = overlap.title.iter().position(|&(word, _)| word == id) {
                    counts[slot] += 1;
                }
            };
            let words = if block.words.is_empty() && !block.text.is_empty() {
                let mut words = 0u32;
                for_each_word(&block.text, |word, _, _| {
                    words += 1;
                    count(WordId::of(word).0);
                });
                words
            } else {
                block.words.iter().for_each(|word| count(word.id.0));
                block.words.len() as u32
            };
            overlap.block_words.push(words);
            for (slot, &occurrences) in counts.iter().enumerate() {
                if occurrences > 0 {
                    overlap.hits.push((at as u32, slot as u16, occurrences));
                }
            }
        }
        overlap
    }

    /// Approximate heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.title.capacity() * 16 + self.block_words.capacity() * 4 + self.hits.capacity() * 12
    }
}

impl TitleOverlap {
    /// Per block: the share of the page's own title words (`own`, as [`own_title_words`]; a
    /// word the title repeats counts as often) that the block holds, and the share of the
    /// block's words that are own title words.
    pub fn shares(&self, own: &[bool]) -> Vec<(f32, f32)> {
        let is_own = |slot: usize| own.get(slot).copied().unwrap_or(false);
        let own_words: u32 = (0..self.title.len())
            .filter(|&slot| is_own(slot))
            .map(|slot| self.title[slot].1)
            .sum();
        let mut counts = vec![(0u32, 0u32); self.block_words.len()];
        for &(block, slot, occurrences) in &self.hits {
            let slot = usize::from(slot);
            if let Some(entry) = counts.get_mut(block as usize).filter(|_| is_own(slot)) {
                entry.0 += self.title[slot].1;
                entry.1 += occurrences;
            }
        }
        counts
            .iter()
            .zip(&self.block_words)
            .map(|(&(held, in_title), &words)| {
                let title_in_block = if own_words == 0 {
                    0.0
                } else {
                    held as f32 / own_words as f32
                };
                let block_in_title = if words == 0 {
                    0.0
                } else {
                    in_title as f32 / words as f32
                };
                (title_in_block, block_in_title)
            })
            .collect()
    }
}

/// Title facts of one page, for [`KeepTitleHeadings`].
#[derive(Debug, Clone)]
pub struct PageTitle {
    site: u64,
    overlap: TitleOverlap,
}

/// The title words seen on a site's pages so far.
#[derive(Debug, Default)]
struct SiteTitleWords {
    pages: u32,
    words: FxHashMap<u64, u32>,
}

/// Any detector, with the title-heading rule on top: a block the detector drops is kept when
/// it is a heading made mostly of the page's own title words ([`is_title_heading`]). The
/// site's shared title words come from every page of the site in a two-pass run, and from the
/// pages before in a one-pass run.
pub struct KeepTitleHeadings<D> {
    inner: D,
    sites: FxHashMap<u64, SiteTitleWords>,
    /// Headings kept by the rule that the detector dropped.
    kept: AtomicU64,
}

impl<D: Detector> KeepTitleHeadings<D> {
    /// `inner` with the rule on top.
    pub fn new(inner: D) -> Self {
        KeepTitleHeadings {
            inner,
            sites: FxHashMap::default(),
            kept: AtomicU64::new(0),
        }
    }
}

impl<D: Detector> Detector for KeepTitleHeadings<D> {
    const NAME: &'static str = D::NAME;
    const ABOUT: &'static str = D::ABOUT;
    const PASSES: Passes = D::PASSES;
    const RULES: &'static [Rule] = D::RULES;
    const ONE_PASS_TOO: bool = D::ONE_PASS_TOO;
    const DECIDES_SITE_BY_SITE: bool = D::DECIDES_SITE_BY_SITE;
    const STATE_PER_HTML_BYTE: f64 = D::STATE_PER_HTML_BYTE;

    type Settings = D::Settings;
    type Observation = (D::Observation, PageTitle);

    fn new(settings: D::Settings) -> Self {
        KeepTitleHeadings::new(D::new(settings))
    }

    fn new_one_pass(settings: D::Settings) -> Self {
        KeepTitleHeadings::new(D::new_one_pass(settings))
    }

    fn segment_options(&self) -> SegmentOptions {
        self.inner.segment_options()
    }

    fn loads_pages(&self) -> bool {
        self.inner.loads_pages()
    }

    fn observe(&self, page: &SegmentedPage, html: &str) -> Self::Observation {
        let title = PageTitle {
            site: stable_hash_bytes(page.site.as_bytes()),
            overlap: TitleOverlap::of(page),
        };
        (self.inner.observe(page, html), title)
    }

    fn learn(&mut self, (observation, title): &Self::Observation) {
        self.inner.learn(observation);
        let site = self.sites.entry(title.site).or_default();
        site.pages += 1;
        for &(word, _) in &title.overlap.title {
            *site.words.entry(word).or_default() += 1;
        }
    }

    fn decide(
        &self,
        page: &SegmentedPage,
        (observation, title): &Self::Observation,
        pages: &dyn PageSource,
    ) -> Vec<Verdict> {
        let mut verdicts = self.inner.decide(page, observation, pages);
        if verdicts.iter().all(|verdict| verdict.keep) {
            return verdicts;
        }
        let site = self.sites.get(&title.site);
        let own = own_title_words(
            &title.overlap.title,
            site.map_or(0, |site| site.pages),
            |word| {
                site.and_then(|site| site.words.get(&word))
                    .copied()
                    .unwrap_or(0)
            },
        );
        let shares = title.overlap.shares(&own);
        for ((verdict, block), &(title_in_block, block_in_title)) in
            verdicts.iter_mut().zip(&page.blocks).zip(&shares)
        {
            if !verdict.keep && is_title_heading(block.heading, title_in_block, block_in_title) {
                *verdict = verdict.overruled(TITLE_HEADING);
                self.kept.fetch_add(1, Ordering::Relaxed);
            }
        }
        verdicts
    }

    fn trim_for_waiting(&self, (observation, _): &mut Self::Observation) {
        self.inner.trim_for_waiting(observation);
    }

    fn observation_bytes(&self, (observation, title): &Self::Observation) -> usize {
        self.inner.observation_bytes(observation) + title.overlap.heap_bytes()
    }

    fn trimmed_observation_bytes(&self, (observation, title): &Self::Observation) -> usize {
        self.inner.trimmed_observation_bytes(observation) + title.overlap.heap_bytes()
    }

    fn save_site(&self, site: &str) -> Option<Vec<u8>> {
        self.inner.save_site(site)
    }

    fn restore_site(&mut self, site: &str, saved: &[u8]) -> Result<(), super::BadSiteModel> {
        self.inner.restore_site(site, saved)
    }

    fn forget_site(&mut self, site: &str) {
        self.inner.forget_site(site);
        self.sites.remove(&stable_hash_bytes(site.as_bytes()));
    }

    fn state_bytes(&self) -> usize {
        self.inner.state_bytes()
            + self
                .sites
                .values()
                .map(|site| 32 + site.words.capacity() * 16)
                .sum::<usize>()
    }

    fn settings(&self) -> serde_json::Value {
        let mut settings = self.inner.settings();
        if let Some(object) = settings.as_object_mut() {
            object.insert("keep_title_headings".into(), true.into());
        }
        settings
    }

    fn counters(&self) -> Vec<Counter> {
        let mut counters = self.inner.counters();
        counters.push(Counter::sum(
            "title_headings_kept",
            self.kept.load(Ordering::Relaxed),
        ));
        counters
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::{NoPages, counter, test_page};

    /// Drops every block.
    struct DropEverything;

    impl Detector for DropEverything {
        const NAME: &'static str = "drop-everything";
        const ABOUT: &'static str = "drops every block";
        const PASSES: Passes = Passes::Two;
        const RULES: &'static [Rule] = &[];
        const STATE_PER_HTML_BYTE: f64 = 0.0;
        type Settings = ();
        type Observation = ();

        fn new(_: ()) -> Self {
            DropEverything
        }
        fn observe(&self, _: &SegmentedPage, _: &str) {}
        fn learn(&mut self, _: &()) {}
        fn decide(&self, page: &SegmentedPage, _: &(), _: &dyn PageSource) -> Vec<Verdict> {
            vec![
                Verdict::scored(false, crate::detect::bloom::TEMPLATE_WORD_RATIO, 1.0, 0.8);
                page.blocks.len()
            ]
        }
        fn state_bytes(&self) -> usize {
            0
        }
        fn settings(&self) -> serde_json::Value {
            serde_json::json!({})
        }
    }

    const TOPICS: [&str; 6] = [
        "Install",
        "Usage",
        "Caching",
        "Routing",
        "Testing",
        "Deploying",
    ];

    fn page(n: usize, heading: &str) -> SegmentedPage {
        let topic = TOPICS.get(n).copied().unwrap_or("Other");
        test_page(
            &format!("http://a.example/{n}"),
            &format!(
                "<title>{topic} guide | Example Docs</title><h1>{heading}</h1>\
                 <p>Text of page {n}.</p>"
            ),
            SegmentOptions::default(),
        )
    }

    #[test]
    fn a_heading_of_the_page_s_own_title_words_is_kept() {
        let mut detector = KeepTitleHeadings::new(DropEverything);
        let pages: Vec<_> = (0..6).map(|n| page(n, TOPICS[n])).collect();
        let observations: Vec<_> = pages.iter().map(|p| detector.observe(p, "")).collect();
        for observation in &observations {
            detector.learn(observation);
        }
        // "guide", "example" and "docs" are on every title: the site's. "Routing" is the
        // page's own title word, and the heading is that word.
        let keep = detector.keeps(&pages[3], &observations[3], &NoPages);
        assert_eq!(keep, [true, false]);
        assert_eq!(counter(&detector.counters(), "title_headings_kept"), 1);
        assert_eq!(detector.settings()["keep_title_headings"], true);

        // A heading that is the site's name, or a paragraph of title words, is not kept.
        let site_name = page(7, "Example Docs");
        let observation = detector.observe(&site_name, "");
        assert_eq!(
            detector.keeps(&site_name, &observation, &NoPages),
            [false, false]
        );
    }
}
