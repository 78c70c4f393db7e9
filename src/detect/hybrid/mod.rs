//! `hybrid`: site evidence plus page evidence, weighed by a model learned from labelled pages.
//!
//! Every other detector decides from what repeats across a site's pages, so it cannot judge a
//! site seen once, nor clutter that differs from page to page, and it drops content a site
//! repeats (generated API sections, "Release notes" headings). `hybrid` reads, for every
//! block, what the page's own markup says ([`crate::segment::BlockEvidence`]: link density,
//! the elements around it, class names, headings, position) and what the site's pages say
//! ([`features::SiteEvidence`]: `bloom`'s template-word ratio, how many of the site's pages
//! carry the block's text and style, how many pages the site has), and a [`Model`] trained on
//! labelled pages turns the row of figures into a keep/drop decision.
//!
//! Two passes, like `bloom`: the first learns the site tables, the second decides. A block
//! whose words are mostly the page's own title (the site's shared title words removed) is
//! kept whatever the model says.

pub mod features;
pub mod model;

pub use features::SiteEvidence;
pub use model::{Classifier, Model, ModelError, Node, Provenance, Tree};

use std::sync::{Arc, Mutex};

use rustc_hash::{FxHashMap, FxHashSet};

use super::bloom::{BlockSignatures, BloomSettings, TemplateModel};
use super::{Counter, Detector, PageSource, Passes};
use crate::segment::{SegmentOptions, SegmentedPage, stable_hash_bytes};

/// A title word shared by at least this share of a site's titles is the site's, not the page's.
const SITE_TITLE_SHARE: f64 = 0.9;

/// Titles a site needs before its shared title words are known.
const SITE_TITLE_MIN_PAGES: u32 = 5;

/// One page's feature rows, as a training run records them (see [`ModelSource::Record`]).
#[derive(Debug, Clone)]
pub struct RecordedPage {
    /// The page's URL.
    pub url: String,
    /// The blocks' text, in block order.
    pub texts: Vec<String>,
    /// One feature row per block.
    pub rows: Vec<Vec<f32>>,
}

/// Where `hybrid`'s decisions come from.
#[derive(Debug, Clone)]
pub enum ModelSource {
    /// The model shipped in the binary.
    BuiltIn,
    /// A model read from a file.
    Loaded {
        /// The file, for the summary.
        path: String,
        /// The model.
        model: Arc<Model>,
    },
    /// No decisions: every block is kept and every page's feature rows are recorded, for
    /// training. Pages whose URL is not in the set are not recorded (all pages if `None`).
    Record {
        /// Where the rows go.
        pages: Arc<Mutex<Vec<RecordedPage>>>,
        /// URLs to record.
        only: Option<Arc<FxHashSet<String>>>,
    },
}

/// The settings of `hybrid`.
#[derive(Debug, Clone)]
pub struct HybridSettings {
    /// The model.
    pub model: ModelSource,
    /// Keep a block when its probability of being content reaches this (default: the model's).
    pub threshold: Option<f32>,
    /// Keep a heading made mostly of the page's own title words, whatever the model says.
    pub keep_title_heading: bool,
    /// The thresholds of the `bloom` model behind the template-word ratio.
    pub bloom: BloomSettings,
}

impl Default for HybridSettings {
    fn default() -> Self {
        HybridSettings {
            model: ModelSource::BuiltIn,
            threshold: None,
            keep_title_heading: true,
            bloom: BloomSettings::default(),
        }
    }
}

impl serde::Serialize for HybridSettings {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let model = match &self.model {
            ModelSource::BuiltIn => "built-in".to_string(),
            ModelSource::Loaded { path, .. } => path.clone(),
            ModelSource::Record { .. } => "recording features".to_string(),
        };
        let mut out = serializer.serialize_struct("HybridSettings", 4)?;
        out.serialize_field("model", &model)?;
        out.serialize_field("threshold", &self.threshold)?;
        out.serialize_field("keep_title_heading", &self.keep_title_heading)?;
        out.serialize_field("bloom", &self.bloom)?;
        out.end()
    }
}

/// What `hybrid` learns from one page.
#[derive(Debug, Clone)]
pub struct PageFacts {
    site: String,
    signatures: Vec<BlockSignatures>,
    texts: Vec<u64>,
    styles: Vec<u64>,
    title_words: Vec<u64>,
}

/// What the site's pages say, so far.
#[derive(Debug, Default)]
struct SiteTable {
    pages: u32,
    texts: FxHashMap<u64, u32>,
    styles: FxHashMap<u64, u32>,
    title_words: FxHashMap<u64, u32>,
}

impl SiteTable {
    fn heap_bytes(&self) -> usize {
        (self.texts.capacity() + self.styles.capacity() + self.title_words.capacity()) * 16
    }
}

/// The `hybrid` detector.
pub struct Hybrid {
    settings: HybridSettings,
    model: Option<Arc<Model>>,
    /// [`Model::remaining_bounds`] of the model.
    bounds: Vec<f32>,
    signatures: TemplateModel,
    sites: FxHashMap<String, SiteTable>,
    /// Template-word ratios already worked out against the current model, by site, style and
    /// text: a template repeats verbatim, so most of its blocks are looked up once.
    ratios: Mutex<FxHashMap<u64, f32>>,
    kept_for_title: std::sync::atomic::AtomicU64,
}

fn distinct_hashes(items: impl Iterator<Item = u64>) -> Vec<u64> {
    let mut hashes: Vec<u64> = items.collect();
    hashes.sort_unstable();
    hashes.dedup();
    hashes
}

fn word_hashes(text: &str) -> Vec<u64> {
    distinct_hashes(features::word_ids(text).into_iter())
}

impl Hybrid {
    /// The share of the block's words that `bloom`'s model calls template words.
    fn template_word_ratio(&self, site: &str, block: &BlockSignatures) -> f32 {
        if block.words.is_empty() {
            return 0.0;
        }
        let template = block
            .words
            .iter()
            .filter(|(word, signature)| {
                self.signatures.is_template_word(
                    site,
                    block.style,
                    *word,
                    signature,
                    &self.settings.bloom,
                )
            })
            .count();
        template as f32 / block.words.len() as f32
    }

    /// The page's title words ([`features::word_ids`]) that are not the site's (the site's
    /// name and tagline).
    fn own_title_words(&self, page: &SegmentedPage, facts: &PageFacts) -> Vec<u64> {
        let table = self
            .sites
            .get(&facts.site)
            .filter(|table| table.pages >= SITE_TITLE_MIN_PAGES);
        features::word_ids(&page.title)
            .into_iter()
            .filter(|word| {
                let Some(table) = table else {
                    return true;
                };
                let pages = table.title_words.get(word).copied().unwrap_or(0);
                f64::from(pages) < SITE_TITLE_SHARE * f64::from(table.pages)
            })
            .collect()
    }
}

/// Whether to keep a block whose feature row is `row`: the model's probability reaches
/// `threshold`, or (with `title_rule`) the block is the page's own title heading.
pub fn keeps(model: &Model, threshold: f32, row: &[f32], title_rule: bool) -> bool {
    (title_rule && features::is_title_heading(row)) || model.probability(row) >= threshold
}

impl Detector for Hybrid {
    const NAME: &'static str = "hybrid";
    const ABOUT: &'static str = "Site and page evidence weighed by a model learned from labelled pages; works from one page of a site";
    const PASSES: Passes = Passes::Two;
    // bloom's model (1.4) and the site tables of texts and styles.
    const STATE_PER_HTML_BYTE: f64 = 1.5;

    type Settings = HybridSettings;
    type Observation = PageFacts;

    fn new(settings: HybridSettings) -> Self {
        let model = match &settings.model {
            ModelSource::BuiltIn => Model::built_in().ok().map(Arc::new),
            ModelSource::Loaded { model, .. } => Some(Arc::clone(model)),
            ModelSource::Record { .. } => None,
        };
        Hybrid {
            bounds: model
                .as_ref()
                .map(|m| m.remaining_bounds())
                .unwrap_or_default(),
            signatures: TemplateModel::with_site_cap(
                settings.bloom.similarity,
                settings.bloom.max_site_words as usize,
            ),
            settings,
            model,
            sites: FxHashMap::default(),
            ratios: Mutex::default(),
            kept_for_title: Default::default(),
        }
    }

    fn segment_options(&self) -> SegmentOptions {
        SegmentOptions {
            evidence: true,
            ..SegmentOptions::default()
        }
    }

    fn observe(&self, page: &SegmentedPage, _html: &str) -> PageFacts {
        PageFacts {
            site: page.site.clone(),
            signatures: page.blocks.iter().map(BlockSignatures::of).collect(),
            texts: page
                .blocks
                .iter()
                .map(|block| stable_hash_bytes(block.text.as_bytes()))
                .collect(),
            styles: page.blocks.iter().map(|block| block.style.0).collect(),
            title_words: word_hashes(&page.title),
        }
    }

    fn learn(&mut self, facts: &PageFacts) {
        let ratios = self
            .ratios
            .get_mut()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if !ratios.is_empty() {
            ratios.clear();
        }
        for block in &facts.signatures {
            self.signatures.add_block(&facts.site, block);
        }
        let table = match self.sites.get_mut(&facts.site) {
            Some(table) => table,
            None => self.sites.entry(facts.site.clone()).or_default(),
        };
        table.pages += 1;
        for text in distinct_hashes(facts.texts.iter().copied()) {
            *table.texts.entry(text).or_default() += 1;
        }
        for style in distinct_hashes(facts.styles.iter().copied()) {
            *table.styles.entry(style).or_default() += 1;
        }
        for &word in &facts.title_words {
            *table.title_words.entry(word).or_default() += 1;
        }
    }

    fn decide(
        &self,
        page: &SegmentedPage,
        facts: &PageFacts,
        _pages: &dyn PageSource,
    ) -> Vec<bool> {
        let table = self.sites.get(&facts.site);
        let site_pages = table.map_or(0, |t| t.pages);
        let site_key = stable_hash_bytes(facts.site.as_bytes());
        let ratio = |at: usize| {
            let Some(block) = facts.signatures.get(at) else {
                return 0.0;
            };
            let key = site_key ^ facts.texts[at].rotate_left(21) ^ facts.styles[at].rotate_left(42);
            let known = self.ratios.lock().ok().and_then(|r| r.get(&key).copied());
            known.unwrap_or_else(|| {
                let ratio = self.template_word_ratio(&facts.site, block);
                if let Ok(mut ratios) = self.ratios.lock() {
                    ratios.insert(key, ratio);
                }
                ratio
            })
        };
        let site: Vec<SiteEvidence> = (0..page.blocks.len())
            .map(|at| SiteEvidence {
                template_word_ratio: ratio(at),
                text_pages: table
                    .and_then(|t| t.texts.get(&facts.texts[at]))
                    .copied()
                    .unwrap_or(0),
                style_pages: table
                    .and_then(|t| t.styles.get(&facts.styles[at]))
                    .copied()
                    .unwrap_or(0),
                site_pages,
            })
            .collect();
        let title_words = self.own_title_words(page, facts);
        let rows = features::rows(page, &site, &title_words);
        if let ModelSource::Record { pages, only } = &self.settings.model {
            if only.as_ref().is_none_or(|only| only.contains(&page.url)) {
                let recorded = RecordedPage {
                    url: page.url.clone(),
                    texts: page.blocks.iter().map(|b| b.text.clone()).collect(),
                    rows,
                };
                if let Ok(mut pages) = pages.lock() {
                    pages.push(recorded);
                }
            }
            return vec![true; page.blocks.len()];
        }
        let Some(model) = &self.model else {
            return vec![true; page.blocks.len()];
        };
        let threshold = self.settings.threshold.unwrap_or(model.threshold);
        let title_rule = self.settings.keep_title_heading;
        rows.iter()
            .map(|row| {
                if model.reaches(row, threshold, &self.bounds) {
                    return true;
                }
                let title = title_rule && features::is_title_heading(row);
                if title {
                    self.kept_for_title
                        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
                title
            })
            .collect()
    }

    fn observation_bytes(&self, facts: &PageFacts) -> usize {
        std::mem::size_of::<PageFacts>()
            + facts.site.capacity()
            + facts
                .signatures
                .iter()
                .map(|block| std::mem::size_of::<BlockSignatures>() + block.words.capacity() * 24)
                .sum::<usize>()
            + (facts.texts.capacity() + facts.styles.capacity() + facts.title_words.capacity()) * 8
    }

    fn state_bytes(&self) -> usize {
        self.signatures.heap_bytes()
            + self
                .sites
                .iter()
                .map(|(site, table)| site.capacity() + table.heap_bytes())
                .sum::<usize>()
    }

    fn settings(&self) -> serde_json::Value {
        let mut value = serde_json::to_value(&self.settings).unwrap_or_default();
        if let (Some(model), Some(object)) = (&self.model, value.as_object_mut()) {
            object.insert("model_description".into(), model.describe().into());
            // f32 → f64 shows 0.6 as 0.6000000238…: three decimals are what the file holds.
            let threshold = (f64::from(model.threshold) * 1000.0).round() / 1000.0;
            object.insert("model_threshold".into(), threshold.into());
        }
        value
    }

    fn counters(&self) -> Vec<Counter> {
        vec![
            Counter::sum("sites", self.sites.len() as u64),
            Counter::sum(
                "title-headings-kept",
                self.kept_for_title
                    .load(std::sync::atomic::Ordering::Relaxed),
            ),
            Counter::max(
                "peak-site-state-bytes",
                self.signatures.largest_site_bytes() as u64,
            ),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::NoPages;

    #[test]
    fn recording_keeps_everything_and_records_rows() {
        let pages = Arc::new(Mutex::new(Vec::new()));
        let mut detector = Hybrid::new(HybridSettings {
            model: ModelSource::Record {
                pages: Arc::clone(&pages),
                only: None,
            },
            ..HybridSettings::default()
        });
        let page = crate::detect::test_page(
            "http://a.example/x",
            "<title>T</title><nav><a href=/>Home</a></nav><p>Text of the page.</p>",
            detector.segment_options(),
        );
        let facts = detector.observe(&page, "");
        detector.learn(&facts);
        let keep = detector.decide(&page, &facts, &NoPages);
        assert_eq!(keep, [true, true]);
        let recorded = pages.lock().unwrap();
        assert_eq!(recorded.len(), 1);
        assert_eq!(recorded[0].texts, ["Home", "Text of the page."]);
        assert_eq!(recorded[0].rows[0].len(), features::count());
    }
}
