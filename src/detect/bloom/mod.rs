//! `bloom`: template detection by offset signatures within block-style clusters, after Chen,
//! Ye & Li, "Template Detection for Large Scale Search Engines" (SAC 2006).
//!
//! Blocks of one site with the same [`BlockStyle`] form a block-style cluster. Within it, each
//! word of a block gets an [`OffsetSignature`]; signatures of the same word are grouped in one
//! pass into word-feature clusters of similar signatures. A word is a *template word* in a
//! block when the cluster its signature falls into holds at least
//! [`BloomSettings::min_cluster_blocks`] blocks; a block whose share of template words
//! reaches [`BloomSettings::drop_ratio`] is dropped.
//!
//! Two passes: the first learns every page of the input into a [`TemplateModel`] (signatures
//! and counts, never text), the second decides each page against the finished model.

mod first_clusters;
mod frequent_keys;
mod model;
mod signature;

pub use model::{TemplateModel, WordFeatureCluster};
pub use signature::OffsetSignature;

use std::cell::RefCell;
use std::hash::Hasher;
use std::sync::Mutex;

use rustc_hash::{FxHashMap, FxHasher};

use super::site_model::{BadSiteModel, SiteModelReader, SiteModelWriter};
use super::{Counter, Detector, Flag, PageSource, Passes, Rule, Verdict};
use crate::segment::{
    Block, BlockStyle, SegmentOptions, SegmentedPage, Word, WordId, for_each_word_of,
    stable_hash_bytes,
};

/// The share of the block's distinct words that are template words of the block's style
/// cluster; dropped at or above the threshold.
pub const TEMPLATE_WORD_RATIO: Rule = Rule::new(1, "template_word_ratio");
/// The heading rule (on unless `--bloom-paper-headings`): a heading kept because the block
/// after it is.
pub const HEADING_OF_KEPT_BLOCK: Rule = Rule::new(2, "heading_of_kept_block");

/// Identifies a block by its site, style and text.
fn block_key(site: u64, block: &Block) -> u64 {
    let mut hasher = FxHasher::default();
    hasher.write_u64(site);
    hasher.write_u64(block.style.0);
    hasher.write(block.text.as_bytes());
    hasher.finish()
}

/// The thresholds of `bloom`: the paper's where it gives them (similarity, cluster size, drop
/// ratio, block-tree positions), chosen otherwise.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BloomSettings {
    /// Two signatures are similar when they share at least this share of their set bits.
    pub similarity: f64,
    /// A word is a template word when its word-feature cluster holds at least this many blocks.
    pub min_cluster_blocks: u32,
    /// A block is dropped when its share of template words reaches this.
    pub drop_ratio: f64,
    /// Words found in fewer blocks of a style cluster than this are not looked up: they are
    /// non-template without a cluster search.
    pub min_word_frequency: u32,
    /// Not in the paper: a heading (h1–h6) judged template is kept when the block after it is
    /// kept, because a heading titles what follows it. Generated section headings inside the
    /// content ("Parameters", "Method Summary") repeat on every page like a template, but the
    /// content under them does not.
    pub keep_headings_of_kept_blocks: bool,
    /// Distinct (block style, word) pairs learned per site at most (about 40 bytes each);
    /// words new to a full site are not learned, and so are kept. Bounds one site's state.
    #[serde(default = "default_max_site_words")]
    pub max_site_words: u32,
    /// Place blocks by their index in each layer of the block tree, as the paper's Fig. 1
    /// does; off, by their index among all sibling elements (inline, void and script ones
    /// too: our earlier variant).
    #[serde(default = "default_block_tree_positions")]
    pub block_tree_positions: bool,
}

fn default_block_tree_positions() -> bool {
    true
}

fn default_max_site_words() -> u32 {
    1 << 22
}

impl BloomSettings {
    /// Blocks a word-feature cluster needs to be kept in a saved site model: half of
    /// [`min_cluster_blocks`](Self::min_cluster_blocks), rounded up — a cluster less than
    /// half-way to counting as template is mostly a content word seen again by chance, and
    /// such clusters would be most of the model.
    pub fn saved_cluster_blocks(&self) -> u32 {
        self.min_cluster_blocks.div_ceil(2)
    }
}

impl Default for BloomSettings {
    fn default() -> Self {
        BloomSettings {
            similarity: 0.8,
            min_cluster_blocks: 5,
            drop_ratio: 0.8,
            min_word_frequency: 5,
            keep_headings_of_kept_blocks: true,
            max_site_words: 1 << 22,
            block_tree_positions: true,
        }
    }
}

/// One block as `bloom` sees it: its style and each distinct word with its signature.
#[derive(Debug, Clone, PartialEq)]
pub struct BlockSignatures {
    /// The block's style.
    pub style: BlockStyle,
    /// Distinct words of the block (sorted by id) with their offset signatures.
    pub words: Vec<(WordId, OffsetSignature)>,
}

impl BlockSignatures {
    /// The signatures of one block.
    pub fn of(block: &Block) -> Self {
        BlockSignatures::of_words(block.style, &block.words)
    }

    /// The signatures of a block of `style` whose words are `words`.
    pub fn of_words(style: BlockStyle, words: &[Word]) -> Self {
        let words = with_sorted_occurrences(
            |occurrences| occurrences.extend(words.iter().map(|word| (word.id, word.offset))),
            |occurrences| {
                let distinct = occurrences.chunk_by(same_word);
                let mut signed = Vec::with_capacity(distinct.clone().count());
                signed.extend(distinct.map(|run| (run[0].0, signature_of(run))));
                signed
            },
        );
        BlockSignatures { style, words }
    }
}

/// A block's words as a decision counts its template words: the signatures its page's
/// observation kept, or, when a waiting page's were dropped ([`Detector::trim_for_waiting`]),
/// the block's style and text, its words split again as segmentation split them
/// ([`for_each_word_of`]).
#[derive(Debug, Clone, Copy)]
pub enum BlockWords<'a> {
    /// The block's signatures.
    Signatures(&'a BlockSignatures),
    /// The block's style and text.
    Text {
        /// The block's style.
        style: BlockStyle,
        /// The block's text.
        text: &'a str,
    },
}

impl<'a> BlockWords<'a> {
    /// Block `at` of a page, `block`: the signatures its observation `kept`, or its text.
    pub fn kept_or_text(kept: &'a [BlockSignatures], at: usize, block: &'a Block) -> Self {
        match kept.get(at) {
            Some(signatures) => BlockWords::Signatures(signatures),
            None => BlockWords::Text {
                style: block.style,
                text: &block.text,
            },
        }
    }
}

/// Template words among a block's distinct words ([`TemplateModel::count_template_words`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TemplateWordCount {
    /// Distinct words that are template words.
    pub template: usize,
    /// Distinct words.
    pub distinct: usize,
}

impl TemplateWordCount {
    /// The share of the distinct words that are template words (0 when there are none).
    pub fn share(self) -> f64 {
        if self.distinct == 0 {
            return 0.0;
        }
        self.template as f64 / self.distinct as f64
    }
}

thread_local! {
    /// The (word, offset) occurrences of the block being read, one buffer a thread.
    static OCCURRENCES: RefCell<Vec<(WordId, u32)>> = const { RefCell::new(Vec::new()) };
}

/// Occurrences a thread's buffer keeps room for between blocks; a larger one is let go.
const KEPT_OCCURRENCES: usize = 1 << 14;

/// `read` of the occurrences `fill` pushes, sorted by word and then offset, in a buffer of the
/// thread's (a block's words are signed without allocating for them).
fn with_sorted_occurrences<R>(
    fill: impl FnOnce(&mut Vec<(WordId, u32)>),
    read: impl FnOnce(&[(WordId, u32)]) -> R,
) -> R {
    OCCURRENCES.with_borrow_mut(|occurrences| {
        occurrences.clear();
        fill(occurrences);
        occurrences.sort_unstable();
        let result = read(occurrences);
        if occurrences.capacity() > KEPT_OCCURRENCES {
            *occurrences = Vec::new();
        }
        result
    })
}

fn same_word(a: &(WordId, u32), b: &(WordId, u32)) -> bool {
    a.0 == b.0
}

/// The signature of one word's occurrences (offsets ascending).
fn signature_of(occurrences: &[(WordId, u32)]) -> OffsetSignature {
    OffsetSignature::from_offset_iter(
        occurrences.iter().map(|&(_, offset)| offset),
        occurrences.len(),
    )
}

/// Calls `each` with every distinct word of `text` (split as [`for_each_word_of`] splits it)
/// and its occurrences, offsets ascending, of which [`signature_of`] makes its signature.
fn for_each_distinct_word(text: &str, mut each: impl FnMut(WordId, &[(WordId, u32)])) {
    with_sorted_occurrences(
        |occurrences| for_each_word_of(text, |word| occurrences.push((word.id, word.offset))),
        |occurrences| {
            for run in occurrences.chunk_by(same_word) {
                each(run[0].0, run);
            }
        },
    );
}

/// What `bloom` learns from one page.
#[derive(Debug, Clone)]
pub struct PageSignatures {
    site: String,
    blocks: Vec<BlockSignatures>,
}

/// The layout version of `bloom`'s site models.
const SITE_MODEL_LAYOUT: u8 = 1;

/// The `bloom` detector.
#[derive(Debug, Default)]
pub struct Bloom {
    settings: BloomSettings,
    model: TemplateModel,
    /// Decisions already made against the current model, by site, style and text: templates
    /// repeat verbatim, so most template blocks are judged once per batch, not once per page.
    decided: Mutex<FxHashMap<u64, Verdict>>,
}

impl Bloom {
    /// The learned model.
    pub fn model(&self) -> &TemplateModel {
        &self.model
    }

    /// The verdict on a block of `site` by its template-word ratio alone: the share of its
    /// distinct words that are template words.
    fn judge(&self, site: &str, words: BlockWords<'_>) -> Verdict {
        let count = self.model.count_template_words(site, words, &self.settings);
        let ratio = count.share();
        let template = count.distinct > 0 && ratio >= self.settings.drop_ratio - 1e-12;
        Verdict::scored(
            !template,
            TEMPLATE_WORD_RATIO,
            ratio as f32,
            self.settings.drop_ratio as f32,
        )
    }
}

impl Detector for Bloom {
    const NAME: &'static str = "bloom";
    const ABOUT: &'static str =
        "Chen, Ye & Li (2006): offset signatures within block-style clusters";
    const PASSES: Passes = Passes::Two;
    const RULES: &'static [Rule] = &[TEMPLATE_WORD_RATIO, HEADING_OF_KEPT_BLOCK];
    // Above the measured share: a site's tables double as they grow, so its share swings
    // about the tight size (docs/MEASUREMENTS.md, "Constants and the figures behind them").
    const DECIDES_SITE_BY_SITE: bool = true;
    const STATE_PER_HTML_BYTE: f64 = 1.4;

    type Settings = BloomSettings;

    fn flags() -> Vec<Flag<BloomSettings>> {
        vec![
            Flag::share(
                "bloom-similarity",
                "Two offset signatures are similar when they share this share of set bits.",
                |s| &mut s.similarity,
            ),
            Flag::count(
                "bloom-min-blocks",
                "A word is template when this many blocks of its style cluster share its signature.",
                0,
                |s| &mut s.min_cluster_blocks,
            ),
            Flag::share(
                "bloom-drop-ratio",
                "A block is dropped when its share of template words reaches this.",
                |s| &mut s.drop_ratio,
            ),
            Flag::count(
                "bloom-min-word-frequency",
                "Words in fewer blocks of a style cluster than this are not looked up (chosen, \
                 not in the paper).",
                0,
                |s| &mut s.min_word_frequency,
            ),
            Flag::count(
                "bloom-max-site-words",
                "Distinct (style, word) pairs learned per site at most (about 40 bytes each).",
                0,
                |s| &mut s.max_site_words,
            ),
            Flag::switch(
                "bloom-paper-headings",
                "Judge headings by the block they title, as in the paper (no rescue of a \
                 heading whose following block is kept).",
                |s| s.keep_headings_of_kept_blocks = false,
            ),
            Flag::switch(
                "bloom-element-positions",
                "Place blocks by their index among all sibling elements (our earlier variant), \
                 not by their index in each layer of the block tree (the paper).",
                |s| s.block_tree_positions = false,
            ),
        ]
    }
    type Observation = PageSignatures;

    /// A detector with the given thresholds and an empty model.
    fn new(settings: BloomSettings) -> Self {
        Bloom {
            settings,
            model: TemplateModel::with_site_cap(
                settings.similarity,
                settings.max_site_words as usize,
            ),
            decided: Mutex::default(),
        }
    }

    fn segment_options(&self) -> SegmentOptions {
        SegmentOptions {
            block_tree_positions: self.settings.block_tree_positions,
            ..SegmentOptions::default()
        }
    }

    fn observe(&self, page: &SegmentedPage, _html: &str) -> PageSignatures {
        PageSignatures {
            site: page.site.clone(),
            blocks: page.blocks.iter().map(BlockSignatures::of).collect(),
        }
    }

    fn learn(&mut self, observation: &PageSignatures) {
        let decided = self
            .decided
            .get_mut()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if !decided.is_empty() {
            decided.clear();
        }
        self.model
            .add_blocks(&observation.site, &observation.blocks);
    }

    /// The blocks' signatures: a waiting page's block not decided already has its template
    /// words counted from its text instead ([`BlockWords::Text`]).
    fn trim_for_waiting(&self, observation: &mut PageSignatures) {
        observation.blocks = Vec::new();
    }

    fn decide(
        &self,
        page: &SegmentedPage,
        observation: &PageSignatures,
        _pages: &dyn PageSource,
    ) -> Vec<Verdict> {
        let site = stable_hash_bytes(page.site.as_bytes());
        let mut verdicts: Vec<Verdict> = page
            .blocks
            .iter()
            .enumerate()
            .map(|(at, block)| {
                let key = block_key(site, block);
                let known = self
                    .decided
                    .lock()
                    .ok()
                    .and_then(|decided| decided.get(&key).copied());
                known.unwrap_or_else(|| {
                    let words = BlockWords::kept_or_text(&observation.blocks, at, block);
                    let verdict = self.judge(&page.site, words);
                    if let Ok(mut decided) = self.decided.lock() {
                        decided.insert(key, verdict);
                    }
                    verdict
                })
            })
            .collect();
        if self.settings.keep_headings_of_kept_blocks {
            for at in (0..verdicts.len().saturating_sub(1)).rev() {
                if page.blocks[at].heading && !verdicts[at].keep && verdicts[at + 1].keep {
                    verdicts[at] = verdicts[at].overruled(HEADING_OF_KEPT_BLOCK);
                }
            }
        }
        verdicts
    }

    fn trimmed_observation_bytes(&self, observation: &PageSignatures) -> usize {
        std::mem::size_of::<PageSignatures>() + observation.site.capacity()
    }

    fn observation_bytes(&self, observation: &PageSignatures) -> usize {
        self.trimmed_observation_bytes(observation)
            + observation
                .blocks
                .iter()
                .map(|block| {
                    std::mem::size_of::<BlockSignatures>()
                        + block.words.capacity() * std::mem::size_of::<(WordId, OffsetSignature)>()
                })
                .sum::<usize>()
    }

    fn save_site(&self, site: &str) -> Option<Vec<u8>> {
        let mut writer = SiteModelWriter::new(SITE_MODEL_LAYOUT);
        self.model
            .save_site(site, self.settings.saved_cluster_blocks(), &mut writer)
            .then(|| writer.finish())
    }

    fn restore_site(&mut self, site: &str, saved: &[u8]) -> Result<(), BadSiteModel> {
        let mut reader = SiteModelReader::new(site, saved, SITE_MODEL_LAYOUT)?;
        self.model.restore_site(site, &mut reader)?;
        self.decided
            .get_mut()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clear();
        reader.end()
    }

    fn forget_site(&mut self, site: &str) {
        self.model.forget_site(site);
    }

    fn state_bytes(&self) -> usize {
        self.model.heap_bytes()
    }

    fn counters(&self) -> Vec<Counter> {
        vec![
            Counter::sum("sites", self.model.sites() as u64),
            Counter::max(
                "peak_site_state_bytes",
                self.model.largest_site_bytes() as u64,
            ),
            Counter::sum("words_not_learned_site_full", self.model.not_learned()),
        ]
    }

    fn settings(&self) -> serde_json::Value {
        serde_json::to_value(self.settings).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::NoPages;
    use crate::segment::Word;

    fn block(style: u64, text: &str) -> Block {
        let words = text
            .split_whitespace()
            .enumerate()
            .map(|(offset, word)| Word {
                id: WordId::of(word),
                offset: offset as u32,
            })
            .collect();
        Block {
            style: BlockStyle(style),
            text: text.to_string(),
            words,
            heading: false,
            runs: Vec::new(),
            source: (0, 0),
            evidence: Default::default(),
        }
    }

    fn page(blocks: Vec<Block>) -> SegmentedPage {
        SegmentedPage {
            url: String::new(),
            site: "site".into(),
            title: String::new(),
            blocks,
            html_bytes: 0,
            limited: None,
            tree: None,
            links: Vec::new(),
            layout: Default::default(),
        }
    }

    fn decide(detector: &Bloom, page: &SegmentedPage) -> Vec<bool> {
        detector.keeps(page, &detector.observe(page, ""), &NoPages)
    }

    fn learn_all(detector: &mut Bloom, pages: &[SegmentedPage]) {
        for p in pages {
            let observation = detector.observe(p, "");
            detector.learn(&observation);
        }
    }

    #[test]
    fn block_signatures_group_repeated_words() {
        let signatures = BlockSignatures::of(&block(1, "a b a c a"));
        assert_eq!(signatures.words.len(), 3);
        let a = signatures
            .words
            .iter()
            .find(|(id, _)| *id == WordId::of("a"))
            .unwrap()
            .1;
        assert_eq!(a, OffsetSignature::from_offsets(&[0, 2, 4]));
    }

    #[test]
    fn a_block_repeated_in_five_pages_is_template_and_in_four_is_not() {
        let make = |n: usize| -> Vec<SegmentedPage> {
            (0..n)
                .map(|i| {
                    page(vec![
                        block(1, "home docs blog about contact"),
                        block(2, &format!("unique content number{i} of page{i} here")),
                    ])
                })
                .collect()
        };
        for (pages, expect_nav_kept) in [(5, false), (4, true)] {
            let mut detector = Bloom::new(BloomSettings::default());
            let pages = make(pages);
            learn_all(&mut detector, &pages);
            for p in &pages {
                assert_eq!(decide(&detector, p), vec![expect_nav_kept, true]);
            }
        }
    }

    #[test]
    fn same_words_in_another_style_cluster_are_not_template() {
        let mut detector = Bloom::new(BloomSettings::default());
        let pages: Vec<_> = (0..6)
            .map(|i| page(vec![block(i, "home docs blog about contact")]))
            .collect();
        learn_all(&mut detector, &pages);
        assert!(decide(&detector, &pages[0])[0]);
    }

    #[test]
    fn drop_ratio_is_reached_at_exactly_eighty_percent() {
        // Four template words, then one word unique to each page: 4 of 5 = 0.8 → dropped.
        // With two unique words, 4 of 6 < 0.8 → kept.
        for (extra_words, expect_kept) in [(1, false), (2, true)] {
            let mut detector = Bloom::new(BloomSettings::default());
            let pages: Vec<_> = (0..5)
                .map(|i| {
                    let extra: Vec<String> =
                        (0..extra_words).map(|k| format!("w{i}x{k}")).collect();
                    page(vec![block(
                        1,
                        &format!("home docs blog about {}", extra.join(" ")),
                    )])
                })
                .collect();
            learn_all(&mut detector, &pages);
            for p in &pages {
                assert_eq!(
                    decide(&detector, p),
                    vec![expect_kept],
                    "{extra_words} extra words"
                );
            }
        }
    }

    #[test]
    fn moved_words_get_dissimilar_signatures() {
        // The same words in the same style cluster, but at shifting offsets: content, not template.
        let mut detector = Bloom::new(BloomSettings::default());
        let pages: Vec<_> = (0..8)
            .map(|i| {
                let filler = "x ".repeat(i * 3);
                page(vec![block(1, &format!("{filler}alpha beta gamma delta"))])
            })
            .collect();
        learn_all(&mut detector, &pages);
        let kept = pages.iter().filter(|p| decide(&detector, p)[0]).count();
        assert_eq!(kept, 8);
    }

    #[test]
    fn a_template_heading_is_kept_when_the_block_after_it_is_kept() {
        let heading = |style: u64, text: &str| Block {
            heading: true,
            ..block(style, text)
        };
        let pages: Vec<_> = (0..5)
            .map(|i| {
                page(vec![
                    heading(1, "method summary"),
                    block(2, &format!("method{i} does thing{i}")),
                    heading(3, "navigation"),
                    block(4, "home docs blog about contact"),
                ])
            })
            .collect();
        let mut detector = Bloom::new(BloomSettings::default());
        learn_all(&mut detector, &pages);
        assert_eq!(decide(&detector, &pages[0]), vec![true, true, false, false]);

        let paper_only = BloomSettings {
            keep_headings_of_kept_blocks: false,
            ..BloomSettings::default()
        };
        let mut detector = Bloom::new(paper_only);
        learn_all(&mut detector, &pages);
        assert_eq!(
            decide(&detector, &pages[0]),
            vec![false, true, false, false]
        );
    }

    #[test]
    fn unseen_site_keeps_everything() {
        let detector = Bloom::new(BloomSettings::default());
        assert_eq!(
            decide(&detector, &page(vec![block(1, "a b c")])),
            vec![true]
        );
    }

    /// A two-pass page waits without its signatures and word lists; its verdicts are the
    /// ones the whole observation gives.
    #[test]
    fn a_waiting_page_is_decided_as_the_whole_observation_decides_it() {
        let html = |n: usize| {
            format!(
                "<nav><a href=/>Home</a> <a href=/a>About us</a></nav><p>Chapter {n} explains \
                 the widget and part {n} of the manual.</p><footer>Copyright the authors</footer>"
            )
        };
        let learned = || {
            let mut detector = Bloom::new(BloomSettings::default());
            let pages = crate::detect::test_site(8, html, detector.segment_options());
            let observed: Vec<PageSignatures> =
                pages.iter().map(|p| detector.observe(p, "")).collect();
            observed.iter().for_each(|o| detector.learn(o));
            (detector, pages, observed)
        };
        let (whole, pages, observed) = learned();
        let (trimmed, mut waiting, mut trimmed_observed) = learned();
        for (page, observation) in waiting.iter_mut().zip(&mut trimmed_observed) {
            trimmed.trim_for_waiting(observation);
            page.shrink_for_waiting(false);
            assert!(observation.blocks.is_empty());
        }
        let mut dropped = 0;
        for at in 0..pages.len() {
            let expected = whole.decide(&pages[at], &observed[at], &NoPages);
            let got = trimmed.decide(&waiting[at], &trimmed_observed[at], &NoPages);
            assert_eq!(got, expected, "page {at}");
            dropped += expected.iter().filter(|verdict| !verdict.keep).count();
        }
        assert!(dropped >= 16, "the nav and footer of every page: {dropped}");
    }

    #[test]
    fn template_words_counted_from_text_are_those_counted_from_signatures() {
        let html = |n: usize| {
            format!(
                "<nav><a href=/>Home</a> <a href=/a>About us</a></nav><p>Chapter {n} explains \
                 the widget, and the widget's part {n} of the manual explains it again.</p>\
                 <footer>Copyright the authors</footer>"
            )
        };
        let mut detector = Bloom::new(BloomSettings::default());
        let pages = crate::detect::test_site(8, html, detector.segment_options());
        let observed: Vec<PageSignatures> = pages.iter().map(|p| detector.observe(p, "")).collect();
        observed.iter().for_each(|o| detector.learn(o));
        let (mut all_template, mut some_template) = (0, 0);
        for page in &pages {
            for block in &page.blocks {
                let signed = BlockSignatures::of(block);
                let count = |words| {
                    detector
                        .model
                        .count_template_words(&page.site, words, &detector.settings)
                };
                let from_signatures = count(BlockWords::Signatures(&signed));
                let from_text = count(BlockWords::Text {
                    style: block.style,
                    text: &block.text,
                });
                assert_eq!(from_text, from_signatures, "{:?}", block.text);
                assert_eq!(from_text.distinct, signed.words.len());
                all_template += usize::from(from_text.template == from_text.distinct);
                some_template +=
                    usize::from(0 < from_text.template && from_text.template < from_text.distinct);
            }
        }
        assert!(all_template >= 8, "the nav and footer: {all_template}");
        assert!(
            some_template >= 8,
            "the chapters share words: {some_template}"
        );
    }
}
