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
//! Two passes, like `bloom`: the first learns the site tables, the second decides. Under
//! `--one-pass` each page is decided as it arrives, with its site evidence from `incremental`'s
//! segment table ([`SegmentTables`]: text segments, block texts, styles and title words,
//! shrunk as Wang et al. shrink theirs, so memory stays bounded over an endless crawl): the
//! template-word ratio becomes the share of the block's text in segments on at least
//! [`IncrementalSettings::min_frequency`] of the site's pages so far, and a site's first pages,
//! with little site evidence, are judged mostly from the page. A block whose words are mostly
//! the page's own title (the site's shared title words removed) is kept whatever the model
//! says.

pub mod features;
pub mod model;
pub mod rules;

pub use features::SiteEvidence;
pub use model::{Classifier, CompiledTrees, Model, ModelError, Node, Provenance, Tree};
pub use rules::{
    CONTENT_PROBABILITY, DecisionRules, PAGE_OWN_TEXT, READER_COMMENT, THIN_SITE_EVIDENCE,
};

use std::sync::{Arc, Mutex};

use rustc_hash::{FxHashMap, FxHashSet};

use super::bloom::{BlockSignatures, BlockWords, BloomSettings, TemplateModel};
use super::incremental::{IncrementalSettings, SegmentTables, block_segments, template_share};
use super::site_model::{BadSiteModel, SiteModelReader, SiteModelWriter};
use super::title::{self, TitleOverlap, own_title_words};
use super::{
    Counter, Detector, Flag, FlagValue, PageSource, Passes, Rule, Verdict, flags,
    url_directory_path,
};
use crate::segment::evidence::context;
use crate::segment::{SegmentOptions, SegmentedPage, stable_hash_bytes};

/// One page's feature rows, as a training run records them (see [`ModelSource::Record`]).
#[derive(Debug, Clone)]
pub struct RecordedPage {
    /// The page's URL.
    pub url: String,
    /// The blocks' text, in block order.
    pub texts: Vec<String>,
    /// One feature row per block.
    pub rows: Vec<Vec<f32>>,
    /// Whether each block is in a thread of reader comments.
    pub in_comments: Vec<bool>,
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
    /// What is done around the model's probabilities: the title, comments, thin-evidence
    /// and page-floor rules.
    pub rules: DecisionRules,
    /// The thresholds of the `bloom` model behind the template-word ratio.
    pub bloom: BloomSettings,
    /// The segment table behind the site evidence of a one-pass run.
    pub segment_table: IncrementalSettings,
    /// In two passes with the built-in models, decide a site of one page as a one-pass run
    /// decides it (see [`Hybrid`]'s `lone_page`).
    pub lone_page_as_one_pass: bool,
}

impl Default for HybridSettings {
    fn default() -> Self {
        HybridSettings {
            model: ModelSource::BuiltIn,
            threshold: None,
            rules: DecisionRules::default(),
            bloom: BloomSettings::default(),
            segment_table: IncrementalSettings::default(),
            lone_page_as_one_pass: true,
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
        let mut out = serializer.serialize_struct("HybridSettings", 9)?;
        out.serialize_field("model", &model)?;
        out.serialize_field("threshold", &self.threshold)?;
        out.serialize_field("keep_title_heading", &self.rules.keep_title_heading)?;
        out.serialize_field("keep_comments", &self.rules.keep_comments)?;
        out.serialize_field("thin_site_pages", &self.rules.thin_site_pages)?;
        out.serialize_field("page_floor", &self.rules.page_floor)?;
        out.serialize_field("bloom", &self.bloom)?;
        out.serialize_field("segment_table", &self.segment_table)?;
        out.serialize_field("lone_page_as_one_pass", &self.lone_page_as_one_pass)?;
        out.end()
    }
}

/// Pages of a directory a text must be on for a site model to keep its count.
const MIN_SAVED_DIRECTORY_TEXT_COUNT: u32 = 3;

/// What `hybrid` learns from one page.
#[derive(Debug, Clone)]
pub struct PageFacts {
    site: String,
    /// `bloom`'s signatures of each block (two passes only).
    signatures: Vec<BlockSignatures>,
    /// Each block's text segments (one pass only).
    segments: Vec<Vec<(u64, u32)>>,
    texts: Vec<u64>,
    styles: Vec<u64>,
    /// The page's URL directory ([`url_directory_path`]), hashed.
    directory: u64,
    /// The blocks' overlap with the page's title.
    title: TitleOverlap,
}

/// What the site's pages say, so far.
#[derive(Debug, Default)]
struct SiteTable {
    pages: u32,
    texts: FxHashMap<u64, u32>,
    styles: FxHashMap<u64, u32>,
    title_words: FxHashMap<u64, u32>,
    /// Pages learned in each URL directory.
    directories: FxHashMap<u64, u32>,
    /// Pages of a directory that hold a block with a text, by [`directory_text_key`].
    directory_texts: FxHashMap<u64, u32>,
}

impl SiteTable {
    fn heap_bytes(&self) -> usize {
        (self.texts.capacity()
            + self.styles.capacity()
            + self.title_words.capacity()
            + self.directories.capacity()
            + self.directory_texts.capacity())
            * 16
    }

    /// Writes the tables. A site of one directory counts each text in it as often as in
    /// the site, so its directory's table is left out and made again when read. Of a
    /// directory's texts, those on [`MIN_SAVED_DIRECTORY_TEXT_COUNT`] pages or more are
    /// written: the directory's figures refine the site's, and news sites of many small
    /// directories would otherwise double their model.
    fn save(&self, writer: &mut SiteModelWriter) {
        writer.count(u64::from(self.pages));
        let one_directory = self.directories.len() == 1;
        writer.count(u64::from(one_directory));
        for table in [
            &self.texts,
            &self.styles,
            &self.title_words,
            &self.directories,
        ] {
            writer.counts(table.iter().map(|(&key, &count)| (key, count)));
        }
        let directory_texts = (!one_directory).then_some(&self.directory_texts);
        let directory_texts = directory_texts
            .into_iter()
            .flatten()
            .map(|(&key, &count)| (key, count));
        writer.counts_from(directory_texts, MIN_SAVED_DIRECTORY_TEXT_COUNT);
    }

    fn restore(reader: &mut SiteModelReader<'_>) -> Result<SiteTable, BadSiteModel> {
        let mut table = SiteTable {
            pages: reader.count32()?,
            ..SiteTable::default()
        };
        let one_directory = reader.count32()? == 1;
        for counts in [
            &mut table.texts,
            &mut table.styles,
            &mut table.title_words,
            &mut table.directories,
            &mut table.directory_texts,
        ] {
            reader.counts(|key, count| {
                counts.insert(key, count);
            })?;
        }
        if one_directory {
            let directory = table.directories.keys().next().copied().unwrap_or_default();
            table.directory_texts = (table.texts.iter())
                .map(|(&text, &count)| (directory_text_key(directory, text), count))
                .collect();
        }
        Ok(table)
    }
}

/// The layout versions of `hybrid`'s site models: its counts and `bloom`'s clusters in two
/// passes, the segment table in one.
const TWO_PASS_SITE_MODEL_LAYOUT: u8 = 3;
const ONE_PASS_SITE_MODEL_LAYOUT: u8 = 4;

/// The `hybrid` detector.
pub struct Hybrid {
    settings: HybridSettings,
    model: Option<DecidingModel>,
    signatures: TemplateModel,
    sites: FxHashMap<String, SiteTable>,
    /// Template-word ratios already worked out against the current model, by site, style and
    /// text: a template repeats verbatim, so most of its blocks are looked up once.
    ratios: Mutex<FxHashMap<u64, f32>>,
    kept_for_title: std::sync::atomic::AtomicU64,
    /// The site evidence of a one-pass run (`None` in two passes).
    one_pass: Option<SegmentTables>,
    /// Sites let go once decided ([`Detector::forget_site`]).
    forgotten_sites: u64,
    /// In two passes with the built-in models, what a site of one page is decided with.
    lone_page: Option<LonePageModel>,
    lone_pages_decided: std::sync::atomic::AtomicU64,
}

/// How a two-pass run decides a site of one page: as a one-pass run does, with the built-in
/// one-pass model on the evidence a one-pass run gives a site's first page. The second pass
/// adds nothing to such a page, and the one-pass model has seen every training site at one
/// page (each site's first page), where the two-pass model has seen only the sites that have
/// one page, so it measures better there; this way a lone page is decided the same in either
/// mode.
#[derive(Debug)]
struct LonePageModel {
    model: DecidingModel,
    /// No page learned: a site's first page in a one-pass run.
    empty_tables: SegmentTables,
}

/// A model with its trees laid out for deciding.
#[derive(Debug)]
struct DecidingModel {
    model: Arc<Model>,
    /// `None` for a linear model.
    compiled: Option<CompiledTrees>,
}

impl DecidingModel {
    fn new(model: Arc<Model>) -> Self {
        DecidingModel {
            compiled: CompiledTrees::compile(&model),
            model,
        }
    }

    /// Each row's probability of being content.
    fn probabilities(&self, rows: &[&[f32]]) -> Vec<f32> {
        match &self.compiled {
            Some(compiled) => compiled.probabilities(rows),
            None => rows.iter().map(|row| self.model.probability(row)).collect(),
        }
    }
}

/// What a one-pass run counts in its segment table besides text segments, each kind of key
/// salted apart.
const BLOCK_TEXT_KEY: u64 = 0x5851_F42D_4C95_7F2D;
const STYLE_KEY: u64 = 0x1405_7B7E_F767_814F;
const TITLE_WORD_KEY: u64 = 0x9E37_79B9_7F4A_7C15;
const DIRECTORY_KEY: u64 = 0xC2B2_AE3D_27D4_EB4F;

/// The key of a block text within a URL directory: a section of a site (one manual of a
/// documentation site, one section of a news site) often has a template of its own, which
/// repeats on every page of the section and on few of the site's.
fn directory_text_key(directory: u64, text: u64) -> u64 {
    0x1656_67B1_9E37_79F9 ^ directory.rotate_left(29) ^ text
}

fn distinct_hashes(items: impl Iterator<Item = u64>) -> Vec<u64> {
    let mut hashes: Vec<u64> = items.collect();
    hashes.sort_unstable();
    hashes.dedup();
    hashes
}

impl Hybrid {
    /// The share of the block's distinct words that `bloom`'s model calls template words.
    fn template_word_ratio(&self, site: &str, words: BlockWords<'_>) -> f32 {
        let count = self
            .signatures
            .count_template_words(site, words, &self.settings.bloom);
        if count.distinct == 0 {
            return 0.0;
        }
        count.template as f32 / count.distinct as f32
    }

    /// A detector for a run of `passes`: in one pass, site evidence from a segment table and,
    /// unless a model is given, the built-in model trained on one-pass evidence.
    fn with_passes(settings: HybridSettings, passes: Passes) -> Self {
        let model = match (&settings.model, passes) {
            (ModelSource::BuiltIn, Passes::Two) => Model::built_in().ok().map(Arc::new),
            (ModelSource::BuiltIn, Passes::One) => Model::built_in_one_pass().ok().map(Arc::new),
            (ModelSource::Loaded { model, .. }, _) => Some(Arc::clone(model)),
            (ModelSource::Record { .. }, _) => None,
        };
        let lone_page = match (&settings.model, passes) {
            (ModelSource::BuiltIn, Passes::Two) if settings.lone_page_as_one_pass => {
                Model::built_in_one_pass().ok().map(|model| LonePageModel {
                    model: DecidingModel::new(Arc::new(model)),
                    empty_tables: SegmentTables::default(),
                })
            }
            _ => None,
        };
        Hybrid {
            signatures: TemplateModel::with_site_cap(
                settings.bloom.similarity,
                settings.bloom.max_site_words as usize,
            ),
            settings,
            model: model.map(DecidingModel::new),
            sites: FxHashMap::default(),
            ratios: Mutex::default(),
            kept_for_title: Default::default(),
            one_pass: (passes == Passes::One).then(SegmentTables::default),
            forgotten_sites: 0,
            lone_page,
            lone_pages_decided: Default::default(),
        }
    }

    /// Site evidence and own title words of a page, from the tables of a two-pass run. A
    /// page whose signatures were dropped while it waited ([`Detector::trim_for_waiting`])
    /// has its blocks' template words counted from their text ([`BlockWords::Text`]), the
    /// words split as segmentation split them.
    fn two_pass_evidence(
        &self,
        page: &SegmentedPage,
        facts: &PageFacts,
    ) -> (Vec<SiteEvidence>, Vec<bool>) {
        let table = self.sites.get(&facts.site);
        let site_pages = table.map_or(0, |t| t.pages);
        let site_key = stable_hash_bytes(facts.site.as_bytes());
        let ratio = |at: usize| {
            let Some(block) = page.blocks.get(at) else {
                return 0.0;
            };
            let key = site_key ^ facts.texts[at].rotate_left(21) ^ facts.styles[at].rotate_left(42);
            let known = self.ratios.lock().ok().and_then(|r| r.get(&key).copied());
            known.unwrap_or_else(|| {
                let words = BlockWords::kept_or_text(&facts.signatures, at, block);
                let ratio = self.template_word_ratio(&facts.site, words);
                if let Ok(mut ratios) = self.ratios.lock() {
                    ratios.insert(key, ratio);
                }
                ratio
            })
        };
        let count = |map: Option<&FxHashMap<u64, u32>>, key: u64| {
            map.and_then(|m| m.get(&key)).copied().unwrap_or(0)
        };
        let directory_pages = count(table.map(|t| &t.directories), facts.directory);
        let site = (0..facts.texts.len())
            .map(|at| SiteEvidence {
                template_word_ratio: ratio(at),
                text_pages: count(table.map(|t| &t.texts), facts.texts[at]),
                style_pages: count(table.map(|t| &t.styles), facts.styles[at]),
                site_pages,
                directory_text_pages: count(
                    table.map(|t| &t.directory_texts),
                    directory_text_key(facts.directory, facts.texts[at]),
                ),
                directory_pages,
            })
            .collect();
        let title_words = own_title_words(&facts.title.title, site_pages, |word| {
            count(table.map(|t| &t.title_words), word)
        });
        (site, title_words)
    }

    /// Site evidence and own title words of a page not yet learned, from the segment table
    /// of a one-pass run, counting the page itself as a two-pass run would. `segments` are
    /// the text segments of each block.
    fn one_pass_evidence(
        &self,
        tables: &SegmentTables,
        facts: &PageFacts,
        segments: &[Vec<(u64, u32)>],
    ) -> (Vec<SiteEvidence>, Vec<bool>) {
        let site = stable_hash_bytes(facts.site.as_bytes());
        let pages_with = |key: u64| tables.frequency(site, key) + 1;
        let site_pages = tables.pages(site) + 1;
        let min_frequency = self.settings.segment_table.min_frequency;
        let directory_pages = pages_with(DIRECTORY_KEY ^ facts.directory);
        let evidence = (0..facts.texts.len())
            .map(|at| SiteEvidence {
                template_word_ratio: template_share(&segments[at], |segment| {
                    pages_with(segment) >= min_frequency
                }) as f32,
                text_pages: pages_with(BLOCK_TEXT_KEY ^ facts.texts[at]),
                style_pages: pages_with(STYLE_KEY ^ facts.styles[at]),
                site_pages,
                directory_text_pages: pages_with(directory_text_key(
                    facts.directory,
                    facts.texts[at],
                )),
                directory_pages,
            })
            .collect();
        let title_words = own_title_words(&facts.title.title, site_pages, |word| {
            pages_with(TITLE_WORD_KEY ^ word)
        });
        (evidence, title_words)
    }
}

impl Detector for Hybrid {
    const NAME: &'static str = "hybrid";
    const ABOUT: &'static str = "Site and page evidence weighed by a model learned from labelled pages; works from one page of a site";
    const PASSES: Passes = Passes::Two;
    const RULES: &'static [Rule] = &[
        Rule::KEEPS_EVERYTHING,
        CONTENT_PROBABILITY,
        title::TITLE_HEADING,
        READER_COMMENT,
        THIN_SITE_EVIDENCE,
        PAGE_OWN_TEXT,
    ];
    const ONE_PASS_TOO: bool = true;
    const OWN_TITLE_RULE: bool = true;
    const DECIDES_SITE_BY_SITE: bool = true;
    // bloom's model (1.4) and the site tables of texts and styles.
    const STATE_PER_HTML_BYTE: f64 = 1.5;

    type Settings = HybridSettings;

    fn flags() -> Vec<Flag<HybridSettings>> {
        vec![
            Flag::with(
                "model",
                "A model file written by `indexer train` (default: the model built in).",
                FlagValue::Path,
                |s: &mut HybridSettings, path| {
                    let model = Model::load(std::path::Path::new(path))
                        .map_err(|error| error.to_string())?;
                    s.model = ModelSource::Loaded {
                        path: path.to_string(),
                        model: Arc::new(model),
                    };
                    Ok(())
                },
            ),
            Flag::with(
                "hybrid-threshold",
                "Keep a block when its probability of being content reaches this (default: \
                 the model's threshold).",
                FlagValue::Share,
                |s: &mut HybridSettings, text| {
                    s.threshold = Some(flags::parse_share(text)? as f32);
                    Ok(())
                },
            ),
            Flag::switch(
                "hybrid-no-title-rule",
                "Let the model drop a heading made of the page's own title words.",
                |s| s.rules.keep_title_heading = false,
            ),
            Flag::switch(
                "keep-comments",
                "Keep threads of reader comments as the model decides them (default: a block \
                 in an element whose class names comments, a Disqus thread or Comment \
                 microdata is dropped, as every benchmark's gold leaves comments out).",
                |s| s.rules.keep_comments = true,
            ),
            Flag::count(
                "hybrid-thin-site-pages",
                "A site with at most this many pages (in one pass: so far) has thin evidence, and \
                 a block the model is unsure of (up to 0.1 below the threshold) is kept (0: \
                 never).",
                0,
                |s| &mut s.rules.thin_site_pages,
            ),
            Flag::switch(
                "hybrid-lone-page-two-pass",
                "In two passes, decide a site of one page with the two-pass model and bloom's \
                 ratio (default: as a one-pass run decides it, with the built-in one-pass \
                 model, which measures better there; a model given by --model decides every \
                 page).",
                |s| s.lone_page_as_one_pass = false,
            ),
            Flag::with(
                "hybrid-page-floor",
                "A page whose kept blocks hold less than this share of its words keeps every \
                 block no other page of its site holds (default 0.1; 0: never).",
                FlagValue::Share,
                |s: &mut HybridSettings, text| {
                    s.rules.page_floor = flags::parse_share(text)? as f32;
                    Ok(())
                },
            ),
        ]
    }
    type Observation = PageFacts;

    fn new(settings: HybridSettings) -> Self {
        Hybrid::with_passes(settings, Passes::Two)
    }

    fn new_one_pass(settings: HybridSettings) -> Self {
        Hybrid::with_passes(settings, Passes::One)
    }

    fn segment_options(&self) -> SegmentOptions {
        SegmentOptions {
            evidence: true,
            ..SegmentOptions::default()
        }
    }

    fn observe(&self, page: &SegmentedPage, _html: &str) -> PageFacts {
        let one_pass = self.one_pass.is_some();
        PageFacts {
            site: page.site.clone(),
            signatures: if one_pass {
                Vec::new()
            } else {
                page.blocks.iter().map(BlockSignatures::of).collect()
            },
            segments: if one_pass {
                block_segments(page)
            } else {
                Vec::new()
            },
            texts: page
                .blocks
                .iter()
                .map(|block| stable_hash_bytes(block.text.as_bytes()))
                .collect(),
            styles: page.blocks.iter().map(|block| block.style.0).collect(),
            directory: stable_hash_bytes(url_directory_path(&page.url).as_bytes()),
            title: TitleOverlap::of(page),
        }
    }

    fn learn(&mut self, facts: &PageFacts) {
        if let Some(tables) = &mut self.one_pass {
            let site = stable_hash_bytes(facts.site.as_bytes());
            let segments = facts.segments.iter().flatten().map(|&(segment, _)| segment);
            let texts = facts.texts.iter().map(|text| BLOCK_TEXT_KEY ^ text);
            let styles = facts.styles.iter().map(|style| STYLE_KEY ^ style);
            let title = facts
                .title
                .title
                .iter()
                .map(|(word, _)| TITLE_WORD_KEY ^ word);
            let directory = std::iter::once(DIRECTORY_KEY ^ facts.directory);
            let directory_texts = facts
                .texts
                .iter()
                .map(|&text| directory_text_key(facts.directory, text));
            let keys = segments
                .chain(texts)
                .chain(styles)
                .chain(title)
                .chain(directory)
                .chain(directory_texts);
            tables.learn(&self.settings.segment_table, site, keys);
            return;
        }
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
            let key = directory_text_key(facts.directory, text);
            *table.directory_texts.entry(key).or_default() += 1;
        }
        for style in distinct_hashes(facts.styles.iter().copied()) {
            *table.styles.entry(style).or_default() += 1;
        }
        *table.directories.entry(facts.directory).or_default() += 1;
        for &(word, _) in &facts.title.title {
            *table.title_words.entry(word).or_default() += 1;
        }
    }

    /// In two passes, the blocks' signatures: the largest part of a waiting page. A block
    /// whose template-word ratio is not known already has it counted from its text.
    fn trim_for_waiting(&self, facts: &mut PageFacts) {
        if self.one_pass.is_none() {
            facts.signatures = Vec::new();
        }
    }

    fn decide(
        &self,
        page: &SegmentedPage,
        facts: &PageFacts,
        _pages: &dyn PageSource,
    ) -> Vec<Verdict> {
        let lone_page = self
            .lone_page
            .as_ref()
            .filter(|_| self.sites.get(&facts.site).map_or(0, |table| table.pages) == 1);
        let (site, title_words) = match (&self.one_pass, lone_page) {
            (Some(tables), _) => self.one_pass_evidence(tables, facts, &facts.segments),
            (None, Some(lone)) => {
                // With no page learned, a segment is on one page: template only if that is
                // enough, so its segments are needed only then.
                let segments = if self.settings.segment_table.min_frequency <= 1 {
                    block_segments(page)
                } else {
                    vec![Vec::new(); page.blocks.len()]
                };
                self.one_pass_evidence(&lone.empty_tables, facts, &segments)
            }
            (None, None) => self.two_pass_evidence(page, facts),
        };
        let rows = features::rows(page, &site, &facts.title, &title_words);
        if let ModelSource::Record { pages, only } = &self.settings.model {
            if only.as_ref().is_none_or(|only| only.contains(&page.url)) {
                let recorded = RecordedPage {
                    url: page.url.clone(),
                    texts: page.blocks.iter().map(|b| b.text.clone()).collect(),
                    rows: rows
                        .chunks_exact(features::count())
                        .map(<[f32]>::to_vec)
                        .collect(),
                    in_comments: page
                        .blocks
                        .iter()
                        .map(|block| block.evidence.context & context::COMMENTS != 0)
                        .collect(),
                };
                if let Ok(mut pages) = pages.lock() {
                    pages.push(recorded);
                }
            }
            return vec![Verdict::kept(Rule::KEEPS_EVERYTHING); page.blocks.len()];
        }
        let deciding = match lone_page {
            Some(lone) => {
                self.lone_pages_decided
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                &lone.model
            }
            None => match &self.model {
                Some(model) => model,
                None => return vec![Verdict::kept(Rule::KEEPS_EVERYTHING); page.blocks.len()],
            },
        };
        let threshold = self.settings.threshold.unwrap_or(deciding.model.threshold);
        let rows: Vec<&[f32]> = rows.chunks_exact(features::count()).collect();
        let probabilities = deciding.probabilities(&rows);
        let in_comments: Vec<bool> = page
            .blocks
            .iter()
            .map(|block| block.evidence.context & context::COMMENTS != 0)
            .collect();
        let verdicts = self
            .settings
            .rules
            .decide(&rows, &in_comments, &probabilities, threshold);
        let kept_for_title = verdicts
            .iter()
            .filter(|verdict| verdict.rule == title::TITLE_HEADING)
            .count();
        self.kept_for_title
            .fetch_add(kept_for_title as u64, std::sync::atomic::Ordering::Relaxed);
        verdicts
    }

    fn observation_bytes(&self, facts: &PageFacts) -> usize {
        std::mem::size_of::<PageFacts>()
            + facts.site.capacity()
            + facts
                .signatures
                .iter()
                .map(|block| std::mem::size_of::<BlockSignatures>() + block.words.capacity() * 24)
                .sum::<usize>()
            + facts
                .segments
                .iter()
                .map(|block| 24 + block.capacity() * 16)
                .sum::<usize>()
            + facts.title.heap_bytes()
            + (facts.texts.capacity() + facts.styles.capacity()) * 8
    }

    fn save_site(&self, site: &str) -> Option<Vec<u8>> {
        if let Some(tables) = &self.one_pass {
            let mut writer = SiteModelWriter::new(ONE_PASS_SITE_MODEL_LAYOUT);
            let site = stable_hash_bytes(site.as_bytes());
            return tables.save_site(site, &mut writer).then(|| writer.finish());
        }
        let table = self.sites.get(site)?;
        let mut writer = SiteModelWriter::new(TWO_PASS_SITE_MODEL_LAYOUT);
        table.save(&mut writer);
        let min_blocks = self.settings.bloom.saved_cluster_blocks();
        if !self.signatures.save_site(site, min_blocks, &mut writer) {
            writer.count(0);
        }
        Some(writer.finish())
    }

    fn restore_site(&mut self, site: &str, saved: &[u8]) -> Result<(), BadSiteModel> {
        if let Some(tables) = &mut self.one_pass {
            let mut reader = SiteModelReader::new(site, saved, ONE_PASS_SITE_MODEL_LAYOUT)?;
            tables.restore_site(stable_hash_bytes(site.as_bytes()), &mut reader)?;
            return reader.end();
        }
        let mut reader = SiteModelReader::new(site, saved, TWO_PASS_SITE_MODEL_LAYOUT)?;
        let table = SiteTable::restore(&mut reader)?;
        self.signatures.restore_site(site, &mut reader)?;
        reader.end()?;
        self.sites.insert(site.to_string(), table);
        self.ratios
            .get_mut()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clear();
        Ok(())
    }

    fn forget_site(&mut self, site: &str) {
        if self.sites.remove(site).is_some() {
            self.forgotten_sites += 1;
        }
        self.signatures.forget_site(site);
    }

    fn state_bytes(&self) -> usize {
        self.one_pass.as_ref().map_or(0, SegmentTables::state_bytes)
            + self.signatures.heap_bytes()
            + self
                .sites
                .iter()
                .map(|(site, table)| site.capacity() + table.heap_bytes())
                .sum::<usize>()
    }

    fn settings(&self) -> serde_json::Value {
        let mut value = serde_json::to_value(&self.settings).unwrap_or_default();
        if let (Some(DecidingModel { model, .. }), Some(object)) =
            (&self.model, value.as_object_mut())
        {
            object.insert("model_description".into(), model.describe().into());
            // f32 → f64 shows 0.6 as 0.6000000238…: three decimals are what the file holds.
            let threshold = (f64::from(model.threshold) * 1000.0).round() / 1000.0;
            object.insert("model_threshold".into(), threshold.into());
        }
        value
    }

    fn counters(&self) -> Vec<Counter> {
        let kept_for_title = self
            .kept_for_title
            .load(std::sync::atomic::Ordering::Relaxed);
        let mut counters = vec![Counter::sum("title_headings_kept", kept_for_title)];
        match &self.one_pass {
            Some(tables) => counters.extend([
                Counter::sum("segments", tables.held()),
                Counter::max("segments_peak", tables.peak()),
                Counter::sum("segments_evicted", tables.evicted()),
            ]),
            None => counters.extend([
                Counter::sum("sites", self.sites.len() as u64 + self.forgotten_sites),
                Counter::sum(
                    "lone_pages_decided_as_one_pass",
                    self.lone_pages_decided
                        .load(std::sync::atomic::Ordering::Relaxed),
                ),
                Counter::max(
                    "peak_site_state_bytes",
                    self.signatures.largest_site_bytes() as u64,
                ),
            ]),
        }
        counters
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::{NoPages, counter};

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
        let keep = detector.keeps(&page, &facts, &NoPages);
        assert_eq!(keep, [true, true]);
        let recorded = pages.lock().unwrap();
        assert_eq!(recorded.len(), 1);
        assert_eq!(recorded[0].texts, ["Home", "Text of the page."]);
        assert_eq!(recorded[0].rows[0].len(), features::count());
    }

    /// A two-pass page waits without its signatures and without its word lists; its
    /// verdicts are the ones the whole observation gives.
    #[test]
    fn a_waiting_page_is_decided_as_the_whole_observation_decides_it() {
        let html = |n: usize| {
            format!(
                "<title>Guide {n}</title><nav><a href=/>Home</a> <a href=/a>About us</a></nav>\
                 <h1>Guide {n}</h1><p>Chapter {n} explains the widget, the other widget and \
                 part {n} of the manual.</p><p>Shared note: read the manual.</p>\
                 <footer>Copyright the authors</footer>"
            )
        };
        let learned = || {
            let mut detector = Hybrid::new(HybridSettings::default());
            let pages = crate::detect::test_site(8, html, detector.segment_options());
            let facts: Vec<PageFacts> = pages.iter().map(|p| detector.observe(p, "")).collect();
            facts.iter().for_each(|f| detector.learn(f));
            (detector, pages, facts)
        };
        let (whole, pages, facts) = learned();
        let (trimmed, mut waiting, mut trimmed_facts) = learned();
        for (page, facts) in waiting.iter_mut().zip(&mut trimmed_facts) {
            trimmed.trim_for_waiting(facts);
            page.forget_words();
            assert!(facts.signatures.is_empty());
        }
        for at in 0..pages.len() {
            let expected = whole.decide(&pages[at], &facts[at], &NoPages);
            let got = trimmed.decide(&waiting[at], &trimmed_facts[at], &NoPages);
            assert_eq!(got, expected, "page {at}");
        }
        let ratios = |detector: &Hybrid| {
            let mut ratios: Vec<(u64, u32)> = detector
                .ratios
                .lock()
                .unwrap()
                .iter()
                .map(|(&key, &ratio)| (key, ratio.to_bits()))
                .collect();
            ratios.sort_unstable();
            ratios
        };
        assert!(ratios(&whole).iter().any(|&(_, ratio)| ratio != 0));
        assert_eq!(ratios(&trimmed), ratios(&whole));
    }

    /// With the built-in models, a two-pass run decides a site of one page exactly as a
    /// one-pass run does (same probabilities, so the same model and evidence), counts it, and
    /// decides a site of two pages with its own model and evidence.
    #[test]
    fn a_site_of_one_page_is_decided_in_two_passes_as_in_one() {
        let html = |n: usize| {
            format!(
                "<title>Notes {n}</title><nav><a href=/>Home</a> <a href=/a>About</a> \
                 <a href=/b>Blog</a></nav><h1>Notes {n}</h1><p>These are the notes of part {n}, \
                 written over a long winter, about the garden, the bees and the apple trees.</p>\
                 <ul><li><a href=/x>Older posts</a></li><li><a href=/y>Newer posts</a></li></ul>\
                 <footer>Copyright the author, all rights reserved</footer>"
            )
        };
        let decided = |detector: &mut Hybrid, pages: usize| {
            let pages = crate::detect::test_site(pages, html, detector.segment_options());
            let facts: Vec<PageFacts> = pages.iter().map(|p| detector.observe(p, "")).collect();
            facts.iter().for_each(|f| detector.learn(f));
            detector.decide(&pages[0], &facts[0], &NoPages)
        };
        let one_pass = {
            let detector = Hybrid::new_one_pass(HybridSettings::default());
            let pages = crate::detect::test_site(1, html, detector.segment_options());
            let facts = detector.observe(&pages[0], "");
            detector.decide(&pages[0], &facts, &NoPages)
        };
        let mut two_pass = Hybrid::new(HybridSettings::default());
        assert_eq!(decided(&mut two_pass, 1), one_pass);
        assert_eq!(
            counter(&two_pass.counters(), "lone_pages_decided_as_one_pass"),
            1
        );

        let mut two_pass_model = Hybrid::new(HybridSettings {
            lone_page_as_one_pass: false,
            ..HybridSettings::default()
        });
        assert_ne!(decided(&mut two_pass_model, 1), one_pass);
        assert_eq!(
            counter(&two_pass_model.counters(), "lone_pages_decided_as_one_pass"),
            0
        );

        let mut two_pages = Hybrid::new(HybridSettings::default());
        decided(&mut two_pages, 2);
        assert_eq!(
            counter(&two_pages.counters(), "lone_pages_decided_as_one_pass"),
            0
        );

        // Where a segment on one page is already template, the page's segments count.
        let on_one_page = || HybridSettings {
            segment_table: IncrementalSettings {
                min_frequency: 1,
                ..IncrementalSettings::default()
            },
            ..HybridSettings::default()
        };
        let one_pass_low = {
            let detector = Hybrid::new_one_pass(on_one_page());
            let pages = crate::detect::test_site(1, html, detector.segment_options());
            let facts = detector.observe(&pages[0], "");
            detector.decide(&pages[0], &facts, &NoPages)
        };
        assert_ne!(one_pass_low, one_pass);
        assert_eq!(decided(&mut Hybrid::new(on_one_page()), 1), one_pass_low);
    }

    /// In one pass a page is judged before it is learned, yet counted as a two-pass run
    /// counts it: the third page with the same nav sees it on 3 of 3 pages.
    #[test]
    fn one_pass_site_evidence_counts_the_page_itself() {
        let pages = Arc::new(Mutex::new(Vec::new()));
        let mut detector = Hybrid::new_one_pass(HybridSettings {
            model: ModelSource::Record {
                pages: Arc::clone(&pages),
                only: None,
            },
            ..HybridSettings::default()
        });
        for n in 0..3 {
            let page = crate::detect::test_page(
                &format!("http://a.example/{n}"),
                &format!("<title>T{n}</title><nav><a href=/>Home</a></nav><p>Story {n}.</p>"),
                detector.segment_options(),
            );
            let facts = detector.observe(&page, "");
            assert!(facts.signatures.is_empty() && !facts.segments.is_empty());
            detector.keeps(&page, &facts, &NoPages);
            detector.learn(&facts);
        }
        let share = features::names()
            .iter()
            .position(|name| name == "site_text_page_share")
            .unwrap();
        let recorded = pages.lock().unwrap();
        let (first, last) = (&recorded[0].rows, &recorded[2].rows);
        assert_eq!((first[0][share], first[1][share]), (1.0, 1.0));
        assert!(
            (last[0][share] - 1.0).abs() < 1e-6,
            "nav: {}",
            last[0][share]
        );
        assert!(
            (last[1][share] - 1.0 / 3.0).abs() < 1e-6,
            "story: {}",
            last[1][share]
        );
        assert!(counter(&detector.counters(), "segments") >= 4);
    }

    /// A section's own menu is on half the site's pages and on every page of its directory,
    /// in either mode; a one-pass run counts the page itself.
    #[test]
    fn a_section_template_fills_its_directory() {
        for passes in [Passes::Two, Passes::One] {
            let pages = Arc::new(Mutex::new(Vec::new()));
            let settings = HybridSettings {
                model: ModelSource::Record {
                    pages: Arc::clone(&pages),
                    only: None,
                },
                ..HybridSettings::default()
            };
            let mut detector = Hybrid::with_passes(settings, passes);
            let segmented: Vec<SegmentedPage> = ["guide", "api"]
                .iter()
                .flat_map(|section| (0..3).map(move |n| (section, n)))
                .map(|(section, n)| {
                    crate::detect::test_page(
                        &format!("http://a.example/{section}/{n}.html"),
                        &format!(
                            "<nav><a href=/{section}/>{section} one</a> <a href=/x>{section} two</a></nav><p>Page {section} {n}.</p>"
                        ),
                        detector.segment_options(),
                    )
                })
                .collect();
            let facts: Vec<PageFacts> = segmented
                .iter()
                .map(|page| detector.observe(page, ""))
                .collect();
            if passes == Passes::Two {
                facts.iter().for_each(|facts| detector.learn(facts));
            }
            for (page, facts) in segmented.iter().zip(&facts) {
                detector.keeps(page, facts, &NoPages);
                if passes == Passes::One {
                    detector.learn(facts);
                }
            }
            let at = |name: &str| features::names().iter().position(|n| n == name).unwrap();
            let recorded = pages.lock().unwrap();
            let last = &recorded[5].rows;
            let figures = |block: usize| {
                (
                    last[block][at("site_text_page_share")],
                    last[block][at("site_section_text_page_share")],
                    last[block][at("site_directory_log_pages")],
                )
            };
            assert_eq!(figures(0), (0.5, 1.0, 4f32.ln()), "{passes:?}: the menu");
            let story = figures(1);
            assert!(
                (story.0 - 1.0 / 6.0).abs() < 1e-6 && (story.1 - 1.0 / 3.0).abs() < 1e-6,
                "{passes:?}: the story {story:?}"
            );
        }
    }

    /// A site's tables read back as they were saved (entries seen twice or more; a
    /// directory's texts seen three times or more), its directory's texts made again when
    /// the site has one directory.
    #[test]
    fn site_tables_read_back_with_one_directory_or_several() {
        let mut detector = Hybrid::new(HybridSettings::default());
        let urls = [
            "http://a.example/guide/1.html",
            "http://a.example/guide/2.html",
            "https://a.example:443/guide/3.html",
            "http://b.example/guide/1.html",
            "http://b.example/guide/2.html",
            "http://b.example/guide/3.html",
            "http://b.example/api/1.html",
            "http://b.example/api/2.html",
            "http://b.example/api/3.html",
        ];
        for (n, url) in urls.iter().enumerate() {
            let section = if url.contains("/api/") {
                "api"
            } else {
                "guide"
            };
            let html =
                format!("<nav><a href=/>{section} menu</a></nav><p>Story {n}.</p><p>Shared.</p>");
            let page = crate::detect::test_page(url, &html, detector.segment_options());
            let facts = detector.observe(&page, "");
            detector.learn(&facts);
        }
        assert_eq!(detector.sites["a.example"].directories.len(), 1);
        assert_eq!(detector.sites["b.example"].directories.len(), 2);
        for site in ["a.example", "b.example"] {
            let saved = detector.save_site(site).unwrap();
            let mut restored = Hybrid::new(HybridSettings::default());
            restored.restore_site(site, &saved).unwrap();
            let seen = |table: &FxHashMap<u64, u32>, times: u32| {
                let mut entries: Vec<(u64, u32)> = (table.iter())
                    .map(|(&key, &count)| (key, count))
                    .filter(|&(_, count)| count >= times)
                    .collect();
                entries.sort_unstable();
                entries
            };
            let (before, after) = (&detector.sites[site], &restored.sites[site]);
            assert_eq!(after.pages, before.pages, "{site}");
            assert_eq!(seen(&after.texts, 2), seen(&before.texts, 2), "{site}");
            let times = if site == "a.example" { 2 } else { 3 };
            assert_eq!(
                seen(&after.directory_texts, 1),
                seen(&before.directory_texts, times),
                "{site}"
            );
            assert!(!after.directory_texts.is_empty(), "{site}");
        }
    }
}
