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

mod comment_thread;
mod comments_heading;
pub mod features;
pub mod model;
pub mod rules;
mod site_table;

pub use features::SiteEvidence;
pub use model::{Classifier, CompiledTrees, Model, ModelError, Node, Provenance, Tree};
pub use rules::{
    AFTER_COMMENTS_HEADING, AFTER_COMMENTS_NAME, CONTENT_PROBABILITY, DecisionRules, PAGE_OWN_TEXT,
    READER_COMMENT, THIN_SITE_EVIDENCE,
};

use std::sync::{Arc, Mutex, OnceLock};

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
use site_table::SiteTable;

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

/// The layout versions of `hybrid`'s site models: its counts and `bloom`'s clusters in two
/// passes, the segment table in one.
const TWO_PASS_SITE_MODEL_LAYOUT: u8 = 3;
const ONE_PASS_SITE_MODEL_LAYOUT: u8 = 4;

/// The `hybrid` detector.
pub struct Hybrid {
    settings: HybridSettings,
    model: Option<Arc<DecidingModel>>,
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
/// mode. The model is read when the run meets its first lone page: a crawl of whole sites
/// never needs it.
#[derive(Debug)]
struct LonePageModel {
    /// No page learned: a site's first page in a one-pass run.
    empty_tables: SegmentTables,
}

impl LonePageModel {
    /// The built-in one-pass model, read once a process.
    fn model(&self) -> Option<Arc<DecidingModel>> {
        DecidingModel::built_in(Passes::One)
    }
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

    /// The built-in model for runs of `passes`, read and compiled once a process and then
    /// shared: by the detectors of one read (one per learning thread), by the build summary's
    /// defaults, by every extractor a Python process makes. Reading one is most of a small
    /// run's start-up. `None` if it does not read, which a test of the built-in models rules
    /// out.
    fn built_in(passes: Passes) -> Option<Arc<DecidingModel>> {
        type Shared = OnceLock<Option<Arc<DecidingModel>>>;
        static TWO_PASS: Shared = OnceLock::new();
        static ONE_PASS: Shared = OnceLock::new();
        let (shared, read): (&Shared, fn() -> Result<Model, ModelError>) = match passes {
            Passes::Two => (&TWO_PASS, Model::built_in),
            Passes::One => (&ONE_PASS, Model::built_in_one_pass),
        };
        shared
            .get_or_init(|| {
                read()
                    .ok()
                    .map(|model| Arc::new(DecidingModel::new(Arc::new(model))))
            })
            .clone()
    }

    /// Each row's probability of being content.
    fn probabilities(&self, rows: &[&[f32]]) -> Vec<f32> {
        match &self.compiled {
            Some(compiled) => compiled.probabilities(rows),
            None => rows.iter().map(|row| self.model.probability(row)).collect(),
        }
    }

    /// The probabilities of the rows that `read` says will be read; NaN for the others, which
    /// are not run through the model.
    fn probabilities_read(&self, rows: &[&[f32]], read: &[bool]) -> Vec<f32> {
        if read.iter().all(|&read| read) {
            return self.probabilities(rows);
        }
        let read_rows: Vec<&[f32]> = rows
            .iter()
            .zip(read)
            .filter_map(|(&row, &read)| read.then_some(row))
            .collect();
        let mut found = self.probabilities(&read_rows).into_iter();
        read.iter()
            .map(|&read| {
                if read {
                    found.next().unwrap_or(f32::NAN)
                } else {
                    f32::NAN
                }
            })
            .collect()
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
        let model = match &settings.model {
            ModelSource::BuiltIn => DecidingModel::built_in(passes),
            ModelSource::Loaded { model, .. } => {
                Some(Arc::new(DecidingModel::new(Arc::clone(model))))
            }
            ModelSource::Record { .. } => None,
        };
        let lone_page = match (&settings.model, passes) {
            (ModelSource::BuiltIn, Passes::Two) if settings.lone_page_as_one_pass => {
                Some(LonePageModel {
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
            model,
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
        AFTER_COMMENTS_HEADING,
        AFTER_COMMENTS_NAME,
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
                 microdata is dropped, and so is what follows a heading like \"12 Comments\" \
                 or \"Leave a Reply\" past a third of the page's content, or a bare \
                 \"Comments\" that a thread's dated bylines follow, as every benchmark's gold \
                 leaves comments out).",
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
                "A page whose kept blocks hold less than this share of its words keeps the \
                 blocks no other page of its site holds, the model's likeliest first, until \
                 it holds this share (default 0.1; 0: never); a page it keeps a block of is \
                 flagged as without main content.",
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
        self.signatures.add_blocks(&facts.site, &facts.signatures);
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
            .filter(|_| self.sites.get(&facts.site).map_or(0, |table| table.pages) == 1)
            .and_then(|lone| Some((lone, lone.model()?)));
        let (site, title_words) = match (&self.one_pass, &lone_page) {
            (Some(tables), _) => self.one_pass_evidence(tables, facts, &facts.segments),
            (None, Some((lone, _))) => {
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
        let deciding: &DecidingModel = match &lone_page {
            Some((_, model)) => {
                self.lone_pages_decided
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                model
            }
            None => match &self.model {
                Some(model) => model,
                None => return vec![Verdict::kept(Rule::KEEPS_EVERYTHING); page.blocks.len()],
            },
        };
        let threshold = self.settings.threshold.unwrap_or(deciding.model.threshold);
        let rows: Vec<&[f32]> = rows.chunks_exact(features::count()).collect();
        let in_comments: Vec<bool> = page
            .blocks
            .iter()
            .map(|block| block.evidence.context & context::COMMENTS != 0)
            .collect();
        let read: Vec<bool> = in_comments
            .iter()
            .map(|&in_comments| self.settings.rules.reads_probability(in_comments))
            .collect();
        let probabilities = deciding.probabilities_read(&rows, &read);
        let texts: Vec<&str> = page
            .blocks
            .iter()
            .map(|block| block.text.as_str())
            .collect();
        let verdicts =
            self.settings
                .rules
                .decide(&rows, &texts, &in_comments, &probabilities, threshold);
        let kept_for_title = verdicts
            .iter()
            .filter(|verdict| verdict.rule == title::TITLE_HEADING)
            .count();
        self.kept_for_title
            .fetch_add(kept_for_title as u64, std::sync::atomic::Ordering::Relaxed);
        verdicts
    }

    fn observation_bytes(&self, facts: &PageFacts) -> usize {
        facts
            .signatures
            .iter()
            .map(|block| std::mem::size_of::<BlockSignatures>() + block.words.capacity() * 24)
            .sum::<usize>()
            + self.trimmed_observation_bytes(facts)
    }

    fn trimmed_observation_bytes(&self, facts: &PageFacts) -> usize {
        std::mem::size_of::<PageFacts>()
            + facts.site.capacity()
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
        if let (Some(deciding), Some(object)) = (&self.model, value.as_object_mut()) {
            let model = &deciding.model;
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
mod tests;
