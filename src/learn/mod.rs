//! Learn: crawls and labelled pages in, a `hybrid` [`Model`] out.
//!
//! 1. The inputs run through the ordinary build engine with `hybrid` set to record
//!    ([`ModelSource::Record`]): every labelled page's blocks come out with the feature rows
//!    the detector would classify, site evidence included.
//! 2. Each block gets a label from its page's labels ([`PreparedLabels::block_label`]): with `content_text`,
//!    a block is content when most of its words are in the content and template when few
//!    are; with snippets, a block that holds (or lies inside) a passage to keep is content,
//!    one that holds a passage to drop is template. Blocks in between are left out.
//! 3. The chosen family is fitted: gradient-boosted trees ([`boost`]) or a logistic
//!    regression ([`logistic`]). Pages weigh the same whatever their number of blocks.
//!
//! Sampled ([`TrainOptions::sampling`]), step 1 runs once per pages per site, each over the
//! sites cut down to that many pages ([`crate::run::census`]), and the pages of every run
//! are pooled: a page sampled at several sizes is a row of the training set at each. A site
//! no larger than a size is read whole only once, at the largest size asked
//! ([`SiteCensus::sample_of_larger_sites`](crate::run::SiteCensus::sample_of_larger_sites)).

pub mod boost;
pub mod logistic;

use std::collections::{HashMap, HashSet};
use std::panic::resume_unwind;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use rustc_hash::FxHashSet;

use crate::detect::hybrid::features;
use crate::detect::hybrid::{Model, ModelSource, Provenance, RecordedPage};
use crate::detect::{DetectorKind, named_choices};
use crate::eval::{Label, SnippetLabel};
use crate::run::{self, BuildError, BuildOptions, PagesPerSite, Progress, Sampling};

pub use boost::BoostSettings;
pub use logistic::LogisticSettings;

named_choices! {
    /// Which model family to fit.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
    #[serde(rename_all = "kebab-case")]
    pub enum Family {
        /// Gradient-boosted regression trees (the default).
        Trees = "trees",
        /// Logistic regression on standardised features.
        Logistic = "logistic",
    }
}

named_choices! {
    /// Which evidence a model may use (for ablations: the others are blanked before fitting).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
    #[serde(rename_all = "kebab-case")]
    pub enum Evidence {
        /// Page and site evidence (the default).
        Both = "both",
        /// The page's own markup only.
        Page = "page",
        /// Site evidence only, with the block's size.
        Site = "site",
    }
}

impl Evidence {
    /// Whether the feature `name` is used.
    pub fn uses(self, name: &str) -> bool {
        let site = name.starts_with("site_");
        let size = name == "log_words" || name == "log_text_bytes";
        match self {
            Evidence::Both => true,
            Evidence::Page => !site,
            Evidence::Site => site || size,
        }
    }
}

/// How to train.
#[derive(Debug, Clone)]
pub struct TrainOptions {
    /// Which evidence the model may use.
    pub evidence: Evidence,
    /// How the inputs are read (threads, limits, memory); the detector is set to `hybrid`.
    pub build: BuildOptions,
    /// The family fitted.
    pub family: Family,
    /// Tree settings.
    pub boost: BoostSettings,
    /// Regression settings.
    pub logistic: LogisticSettings,
    /// Seed of the random choices.
    pub seed: u64,
    /// Keep threshold written into the model.
    pub threshold: f32,
    /// Each site sampled down to a few pages, each size a run of its own whose pages are
    /// pooled (`None`: the whole input, once).
    pub sampling: Option<Sampling>,
    /// With sampling at one page per site: how many different pages of each site are read,
    /// each as a site of one page (a read per draw; 1: the sample's page alone). More draws
    /// give the model lone pages of the kinds the labelled sites hold; a site's lone pages
    /// then weigh together as one more site.
    pub lone_page_draws: usize,
    /// With sampling, for cross-validation: how many disjoint samples of each size are
    /// decided held out ([`SiteCensus::draw`](crate::run::SiteCensus::draw), as `eval
    /// --draws` scores them). The draws beyond those trained on (one of each size, and the
    /// lone-page draws) are read for cross-validation alone: no model learns from them.
    pub held_out_draws: usize,
    /// Factors on the weights of some labelled pages, by URL (`train --weigh`): a labelled
    /// set whose conventions differ from the others' can teach without outweighing them.
    /// Pages not named weigh 1.
    pub page_weights: Arc<HashMap<String, f32>>,
    /// Features blanked before fitting (`train --without-feature`), so that the model never
    /// reads them; the built-in one-pass model is trained without one (`recipe` in
    /// benches/lib.sh; docs/MEASUREMENTS.md).
    pub without_features: Vec<String>,
}

impl Default for TrainOptions {
    fn default() -> Self {
        TrainOptions {
            evidence: Evidence::Both,
            build: BuildOptions::default(),
            family: Family::Trees,
            boost: BoostSettings::default(),
            logistic: LogisticSettings::default(),
            seed: 1,
            threshold: 0.6,
            sampling: None,
            lone_page_draws: 1,
            held_out_draws: 1,
            page_weights: Arc::default(),
            without_features: Vec::new(),
        }
    }
}

/// Why training failed.
#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    /// Reading the inputs failed.
    #[error(transparent)]
    Build(#[from] BuildError),
    /// Nothing to learn from.
    #[error(
        "no labelled blocks: none of the {labelled} labelled pages was found in the input ({found} found)"
    )]
    NoLabelledBlocks {
        /// Labelled pages given.
        labelled: usize,
        /// Of them, pages found in the input.
        found: usize,
    },
    /// [`BuildOptions::stop`] was set while a model was being fitted.
    #[error("interrupted")]
    Interrupted,
}

/// What a page's labels say about its blocks.
#[derive(Debug, Clone, Copy)]
pub enum PageLabels<'a> {
    /// The page's main-content text.
    Content(&'a Label),
    /// Passages to keep and to drop.
    Snippets(&'a SnippetLabel),
}

/// Whitespace collapsed, lower-cased.
fn normalized(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// A page's labels prepared for labelling its blocks.
pub struct PreparedLabels<'a> {
    labels: PageLabels<'a>,
    content: String,
    template: String,
    content_words: HashSet<String>,
}

impl<'a> PreparedLabels<'a> {
    /// Normalises the label texts once per page.
    pub fn new(labels: PageLabels<'a>) -> Self {
        match labels {
            PageLabels::Content(label) => PreparedLabels {
                labels,
                content: normalized(&label.content_text),
                template: normalized(&label.template_text),
                content_words: crate::analyze::words(&label.content_text)
                    .into_iter()
                    .collect(),
            },
            PageLabels::Snippets(_) => PreparedLabels {
                labels,
                content: String::new(),
                template: String::new(),
                content_words: HashSet::new(),
            },
        }
    }

    /// The label of one block (1 content, 0 template), or `None` when the labels do not say.
    ///
    /// With `content_text`: a block whose whole text is found in the content and not in the
    /// template is content, and the other way round; found in both, it is left out. A block
    /// found in neither (our blocks and the labeller's lines differ in places) is content
    /// when at least 90 % of its words are content words, template when at most 20 % are.
    pub fn block_label(&self, text: &str) -> Option<f32> {
        match &self.labels {
            PageLabels::Content(_) => {
                let block = normalized(text);
                if block.is_empty() {
                    return None;
                }
                match (
                    self.content.contains(&block),
                    self.template.contains(&block),
                ) {
                    (true, false) => return Some(1.0),
                    (false, true) => return Some(0.0),
                    (true, true) => return None,
                    (false, false) => {}
                }
                let words = crate::analyze::words(text);
                if words.is_empty() {
                    return None;
                }
                let inside = words
                    .iter()
                    .filter(|w| self.content_words.contains(*w))
                    .count();
                let share = inside as f64 / words.len() as f64;
                if share >= 0.9 {
                    Some(1.0)
                } else if share <= 0.2 {
                    Some(0.0)
                } else {
                    None
                }
            }
            PageLabels::Snippets(snippets) => {
                let block = normalized(text);
                if block.len() < 3 {
                    return None;
                }
                let matches = |passage: &String| {
                    let passage = normalized(passage);
                    !passage.is_empty()
                        && (block.contains(&passage)
                            || (block.len() >= 20 && passage.contains(&block)))
                };
                let keep = snippets.with.iter().any(matches);
                let drop = snippets.without.iter().any(matches);
                match (keep, drop) {
                    (true, false) => Some(1.0),
                    (false, true) => Some(0.0),
                    _ => None,
                }
            }
        }
    }
}

/// One labelled page as recorded: its blocks, their feature rows and labels.
#[derive(Debug, Clone)]
pub struct LabelledPage {
    /// The page's URL.
    pub url: String,
    /// The pages per site of the sampled run that recorded it (`None`: not sampled).
    pub pages_per_site: Option<PagesPerSite>,
    /// What cross-validation holds out together: the URL's host without `www.`.
    pub group: String,
    /// A page of a lone-page draw ([`TrainOptions::lone_page_draws`]): a site's lone pages
    /// weigh together as one more site, apart from its other pages.
    pub alone: bool,
    /// A page of a draw read only to be decided held out
    /// ([`TrainOptions::held_out_draws`]): in no [`Dataset`], and not counted in its
    /// site's fold.
    pub held_out_only: bool,
    /// The blocks' text.
    pub texts: Vec<String>,
    /// One feature row per block.
    pub rows: Vec<Vec<f32>>,
    /// Whether each block is in a thread of reader comments.
    pub in_comments: Vec<bool>,
    /// Each block's label, where the page's labels say.
    pub labels: Vec<Option<f32>>,
    /// The factor on the page's weight ([`TrainOptions::page_weights`]; 1 by default).
    pub weight: f32,
}

/// The labelled pages of a training run's inputs.
#[derive(Debug, Clone, Default)]
pub struct Collected {
    /// Labelled pages found in the input, by URL (sampled: by pages per site, then URL).
    pub pages: Vec<LabelledPage>,
    /// Labelled pages given.
    pub labelled_given: usize,
}

/// Labelled rows ready to fit, borrowed from the [`Collected`] pages (a fold of a
/// cross-validation copies no row).
#[derive(Debug, Clone, Default)]
pub struct Dataset<'a> {
    /// Feature rows.
    pub rows: Vec<&'a [f32]>,
    /// 1 content, 0 template.
    pub labels: Vec<f32>,
    /// Per-row weight (see [`Collected::dataset`]).
    pub weights: Vec<f32>,
    /// Pages the rows come from.
    pub pages: u64,
}

impl Collected {
    /// The labelled rows of the pages `include` accepts. A page's labelled blocks weigh
    /// 1/√(blocks) each, times 1/√(pages of its site), so that neither long pages nor large
    /// sites drown the rest (sampled, a site's pages are those of all its samples; its
    /// lone-page draws are counted apart, as the pages of one more site), times the page's
    /// own [`LabelledPage::weight`].
    pub fn dataset(&self, include: impl Fn(&LabelledPage) -> bool) -> Dataset<'_> {
        let include = |page: &&LabelledPage| !page.held_out_only && include(page);
        let mut group_pages: HashMap<(&str, bool), usize> = HashMap::new();
        for page in self.pages.iter().filter(include) {
            *group_pages.entry((&page.group, page.alone)).or_default() += 1;
        }
        let mut dataset = Dataset::default();
        for page in self.pages.iter().filter(include) {
            let labelled = page.labels.iter().flatten().count();
            if labelled == 0 {
                continue;
            }
            dataset.pages += 1;
            let pages = group_pages
                .get(&(page.group.as_str(), page.alone))
                .copied()
                .unwrap_or(1);
            let weight = page.weight / ((labelled * pages) as f32).sqrt();
            for (row, label) in page.rows.iter().zip(&page.labels) {
                if let Some(label) = label {
                    dataset.rows.push(row);
                    dataset.labels.push(*label);
                    dataset.weights.push(weight);
                }
            }
        }
        dataset
    }
}

/// What cross-validation holds out together: the host of `url`, without `www.`.
pub fn group_of(url: &str) -> String {
    let site = crate::read::site_of(url);
    site.strip_prefix("www.").unwrap_or(&site).to_string()
}

/// Reads `inputs` with `hybrid` recording and labels the blocks of every labelled page — once,
/// or once per pages per site of the options' sampling, the pages of every run pooled.
pub fn collect(
    inputs: &[PathBuf],
    labels: &[Label],
    snippets: &[SnippetLabel],
    options: &TrainOptions,
    progress: &dyn Progress,
) -> Result<Collected, TrainError> {
    let mut by_url: HashMap<&str, PageLabels<'_>> = HashMap::new();
    for label in labels {
        by_url.insert(&label.url, PageLabels::Content(label));
    }
    for label in snippets {
        by_url.insert(&label.url, PageLabels::Snippets(label));
    }
    let mut collected = Collected {
        pages: Vec::new(),
        labelled_given: by_url.len(),
    };
    match &options.sampling {
        None => collected.pages = record(inputs, &by_url, &options.build, None, progress)?,
        Some(sampling) => {
            let census = run::census(inputs, &options.build, progress)?;
            let largest = sampling.pages_per_site.iter().max().copied();
            for &pages in &sampling.pages_per_site {
                let trained = match pages {
                    PagesPerSite::Pages(1) => lone_page_draws(sampling, options.lone_page_draws),
                    _ => 1,
                };
                for draw in 0..trained.max(options.held_out_draws) {
                    let held_out_only = draw >= trained;
                    let sample = if held_out_only {
                        census.draw(pages, draw, sampling.seed)
                    } else if Some(pages) == largest {
                        census.sample(pages, sampling.seed)
                    } else if draw == 0 {
                        census.sample_of_larger_sites(pages, sampling.seed)
                    } else {
                        census.lone_page_draw(draw, sampling.seed)
                    };
                    if held_out_only && sample.is_empty() {
                        break;
                    }
                    let mut build = options.build.clone();
                    build.input.sample = Some(Arc::new(sample));
                    let prefix = match (draw, held_out_only) {
                        (0, _) => format!("{pages} pages per site: "),
                        (_, false) => format!("{pages} pages per site, draw {}: ", draw + 1),
                        (_, true) => {
                            format!("{pages} pages per site, held-out draw {}: ", draw + 1)
                        }
                    };
                    let prefixed = run::PrefixedProgress {
                        inner: progress,
                        prefix,
                    };
                    let mut recorded = record(inputs, &by_url, &build, Some(pages), &prefixed)?;
                    for page in &mut recorded {
                        page.alone = trained > 1 && !held_out_only;
                        page.held_out_only = held_out_only;
                    }
                    collected.pages.extend(recorded);
                }
            }
        }
    }
    for page in &mut collected.pages {
        if let Some(&weight) = options.page_weights.get(&page.url) {
            page.weight = weight;
        }
    }
    if collected
        .pages
        .iter()
        .all(|page| page.labels.iter().all(Option::is_none))
    {
        return Err(TrainError::NoLabelledBlocks {
            labelled: by_url.len(),
            found: 0,
        });
    }
    Ok(collected)
}

/// The lone-page draws a training run makes: `asked` when `sampling` holds one page per site
/// and a larger size (at one page alone, every site is read whole), else 1.
fn lone_page_draws(sampling: &Sampling, asked: usize) -> usize {
    let sizes = &sampling.pages_per_site;
    let larger = sizes.iter().any(|&size| size > PagesPerSite::Pages(1));
    match sizes.contains(&PagesPerSite::Pages(1)) && larger {
        true => asked.max(1),
        false => 1,
    }
}

/// One read of `inputs` with `hybrid` recording the pages `by_url` labels, as `options` say
/// (sampled down to `sampled` pages per site, or whole): the labelled pages found, by URL.
fn record(
    inputs: &[PathBuf],
    by_url: &HashMap<&str, PageLabels<'_>>,
    options: &BuildOptions,
    sampled: Option<PagesPerSite>,
    progress: &dyn Progress,
) -> Result<Vec<LabelledPage>, TrainError> {
    let only: FxHashSet<String> = by_url.keys().map(|url| url.to_string()).collect();
    let recorded = Arc::new(Mutex::new(Vec::new()));
    let mut run = options.clone();
    run.detector = DetectorKind::Hybrid;
    run.settings.hybrid.model = ModelSource::Record {
        pages: Arc::clone(&recorded),
        only: Some(Arc::new(only)),
    };
    run::extract(
        inputs,
        &run,
        run::RenderedAhead::Nothing,
        progress,
        &mut |_| Ok(()),
    )?;
    let mut pages: Vec<RecordedPage> = std::mem::take(
        &mut *recorded
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner()),
    );
    // Decided in parallel, recorded in any order: put pages back in a fixed order.
    pages.sort_by(|a, b| a.url.cmp(&b.url));
    pages.dedup_by(|a, b| a.url == b.url);

    let mut labelled = Vec::new();
    for page in pages {
        let Some(page_labels) = by_url.get(page.url.as_str()) else {
            continue;
        };
        let prepared = PreparedLabels::new(*page_labels);
        let labels: Vec<Option<f32>> = page.texts.iter().map(|t| prepared.block_label(t)).collect();
        // Pages with no labelled block still get decided in cross-validation.
        labelled.push(LabelledPage {
            group: group_of(&page.url),
            alone: false,
            held_out_only: false,
            url: page.url,
            pages_per_site: sampled,
            texts: page.texts,
            rows: page.rows,
            in_comments: page.in_comments,
            labels,
            weight: 1.0,
        });
    }
    Ok(labelled)
}

/// Fits a model to `dataset`, telling `each_step` before each tree (or step of a
/// regression) how many of how many are done; [`TrainError::Interrupted`] when
/// `options.build.stop` is set before the fit ends (it is polled at the same points).
pub fn fit(
    dataset: &Dataset<'_>,
    options: &TrainOptions,
    inputs: &[PathBuf],
    each_step: &dyn Fn(usize, usize),
) -> Result<Model, TrainError> {
    let unused: Vec<usize> = features::names()
        .iter()
        .enumerate()
        .filter(|(_, name)| !options.evidence.uses(name) || options.without_features.contains(name))
        .map(|(at, _)| at)
        .collect();
    let classifier = if unused.is_empty() {
        fit_rows(&dataset.rows, dataset, options, each_step)
    } else {
        // The features left out (an ablation, or `without_features`) are blanked in a copy.
        let blanked: Vec<Vec<f32>> = dataset
            .rows
            .iter()
            .map(|row| {
                let mut row = row.to_vec();
                for &at in &unused {
                    row[at] = 0.0;
                }
                row
            })
            .collect();
        fit_rows(&blanked, dataset, options, each_step)
    }
    .ok_or(TrainError::Interrupted)?;
    let settings = match options.family {
        Family::Trees => serde_json::to_string(&options.boost),
        Family::Logistic => serde_json::to_string(&options.logistic),
    }
    .unwrap_or_default();
    Ok(Model::new(
        classifier,
        options.threshold,
        Provenance {
            inputs: inputs
                .iter()
                .map(|path| {
                    path.file_name().map_or_else(
                        || path.display().to_string(),
                        |name| name.to_string_lossy().into_owned(),
                    )
                })
                .collect(),
            pages: dataset.pages,
            blocks: dataset.rows.len() as u64,
            content_blocks: dataset.labels.iter().filter(|&&y| y > 0.5).count() as u64,
            seed: options.seed,
            settings: format!(
                "{}, {} evidence{}{}{}: {settings}",
                crate::detect::Choice::name(options.family),
                crate::detect::Choice::name(options.evidence),
                options
                    .sampling
                    .as_ref()
                    .map_or_else(String::new, |sampling| {
                        let draws = lone_page_draws(sampling, options.lone_page_draws);
                        format!(
                            ", sites sampled to {} pages{}",
                            sampling.sizes(),
                            match draws {
                                1 => String::new(),
                                draws => format!(", {draws} lone-page draws"),
                            }
                        )
                    }),
                weighed(&options.page_weights),
                without(&options.without_features),
            ),
        },
    ))
}

/// How `page_weights` weighs pages, for a model's provenance: ", 1381 pages weighed × 0.25"
/// for each factor other than 1 (nothing when there is none).
fn weighed(page_weights: &HashMap<String, f32>) -> String {
    let mut by_factor: Vec<(f32, usize)> = Vec::new();
    for &factor in page_weights.values().filter(|&&factor| factor != 1.0) {
        match by_factor.iter_mut().find(|(seen, _)| *seen == factor) {
            Some((_, pages)) => *pages += 1,
            None => by_factor.push((factor, 1)),
        }
    }
    by_factor.sort_by(|a, b| a.0.total_cmp(&b.0));
    by_factor
        .iter()
        .map(|(factor, pages)| format!(", {pages} pages weighed × {factor}"))
        .collect()
}

/// The features a model was trained without, for its provenance: ", without a, b" (nothing
/// when there is none).
fn without(features: &[String]) -> String {
    match features {
        [] => String::new(),
        features => format!(", without {}", features.join(", ")),
    }
}

/// The chosen family fitted to `rows` with the labels and weights of `dataset` (`None`
/// when stopped).
fn fit_rows<R: AsRef<[f32]>>(
    rows: &[R],
    dataset: &Dataset<'_>,
    options: &TrainOptions,
    each_step: &dyn Fn(usize, usize),
) -> Option<crate::detect::hybrid::Classifier> {
    let steps = match options.family {
        Family::Trees => options.boost.trees * options.boost.ensembles.max(1),
        Family::Logistic => options.logistic.iterations,
    };
    let done = std::cell::Cell::new(0);
    // Asked before each tree or step: the one place that knows how far the fit has come.
    let stopped = || {
        each_step(done.get(), steps);
        done.set(done.get() + 1);
        options.build.stopped()
    };
    match options.family {
        Family::Trees => boost::fit(
            rows,
            &dataset.labels,
            &dataset.weights,
            &options.boost,
            options.seed,
            &stopped,
        ),
        Family::Logistic => logistic::fit(
            rows,
            &dataset.labels,
            &dataset.weights,
            &options.logistic,
            &stopped,
        ),
    }
}

/// Groups with at least this many labelled pages are held out alone; smaller ones (sites
/// seen once or twice) are held out in [`SMALL_GROUP_FOLDS`] folds of groups.
pub const OWN_FOLD_PAGES: usize = 20;

/// Folds the small groups are spread over (by a hash of the group).
pub const SMALL_GROUP_FOLDS: u64 = 10;

/// A page's kept text under a model that never saw its site.
#[derive(Debug, Clone, serde::Serialize)]
pub struct HeldOut {
    /// The page's URL.
    pub url: String,
    /// The pages per site it was decided at, when sampled (a page sampled at several sizes
    /// is held out once at each).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pages_per_site: Option<PagesPerSite>,
    /// Its kept blocks, one per line.
    pub text: String,
    /// The fold it was held out in.
    pub fold: String,
}

/// The fold of every group: large groups alone, small ones by hash. A group's size is its
/// labelled pages, each counted once however many samples hold it, so a sampled training
/// set has the folds of the whole one, and a site's samples are held out together (the
/// pages of held-out draws do not count, so asking for them moves no group's fold).
pub fn folds(collected: &Collected) -> HashMap<String, String> {
    let mut urls: HashMap<&str, HashSet<&str>> = HashMap::new();
    for page in &collected.pages {
        let group = urls.entry(&page.group).or_default();
        if !page.held_out_only {
            group.insert(&page.url);
        }
    }
    urls.into_iter()
        .map(|(group, urls)| (group, urls.len()))
        .map(|(group, pages)| {
            let fold = if pages >= OWN_FOLD_PAGES {
                group.to_string()
            } else {
                format!(
                    "small-sites-{}",
                    crate::segment::stable_hash_bytes(group.as_bytes()) % SMALL_GROUP_FOLDS
                )
            };
            (group.to_string(), fold)
        })
        .collect()
}

/// Leave-one-site-out: for each fold, a model fitted on every other fold decides the fold's
/// pages, with the rules `hybrid` applies around its model
/// ([`DecisionRules`](crate::detect::hybrid::DecisionRules)). The folds are fitted on
/// [`BuildOptions::threads`](crate::run::BuildOptions::threads) threads at once (each
/// holds its own binned copy of the rows); the lines are the same on any number.
/// `each_fold` is told each fold as it starts (for progress). [`TrainError::Interrupted`]
/// when `options.build.stop` is set before the last fold is decided.
pub fn cross_validate(
    collected: &Collected,
    options: &TrainOptions,
    each_fold: impl FnMut(&str, usize, usize) + Send,
) -> Result<Vec<HeldOut>, TrainError> {
    let fold_of = folds(collected);
    let mut names: Vec<&String> = fold_of.values().collect();
    names.sort();
    names.dedup();
    let next = AtomicUsize::new(0);
    let each_fold = Mutex::new(each_fold);
    // Each worker takes the next fold until none is left.
    let work = || {
        let mut lines = Vec::new();
        loop {
            let at = next.fetch_add(1, Ordering::Relaxed);
            let Some(fold) = names.get(at) else {
                return Ok::<_, TrainError>(lines);
            };
            (each_fold.lock().unwrap_or_else(PoisonError::into_inner))(fold, at, names.len());
            // A stop asked for ends the fold's fit before its next tree.
            lines.extend(held_out_fold(collected, options, &fold_of, fold)?);
        }
    };
    let threads = options.build.threads.clamp(1, names.len().max(1));
    let mut held_out: Vec<HeldOut> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads).map(|_| scope.spawn(work)).collect();
        let mut held_out = Vec::new();
        for worker in workers {
            held_out.extend(worker.join().unwrap_or_else(|panic| resume_unwind(panic))?);
        }
        Ok::<_, TrainError>(held_out)
    })?;
    if let Some(sampling) = &options.sampling {
        held_out.extend(whole_site_copies(collected, &held_out, sampling));
    }
    held_out.sort_by(|a, b| (&a.url, a.pages_per_site).cmp(&(&b.url, b.pages_per_site)));
    Ok(held_out)
}

/// The held-out lines of one fold: its pages decided by a model fitted on every other fold.
fn held_out_fold(
    collected: &Collected,
    options: &TrainOptions,
    fold_of: &HashMap<String, String>,
    fold: &str,
) -> Result<Vec<HeldOut>, TrainError> {
    let rules = options.build.settings.hybrid.rules;
    let in_fold = |page: &LabelledPage| fold_of.get(&page.group).map(String::as_str) == Some(fold);
    let dataset = collected.dataset(|page| !in_fold(page));
    let model = fit(&dataset, options, &[], &|_, _| {})?;
    let mut lines = Vec::new();
    for page in collected.pages.iter().filter(|page| in_fold(page)) {
        let rows: Vec<&[f32]> = page.rows.iter().map(Vec::as_slice).collect();
        let probabilities: Vec<f32> = rows.iter().map(|row| model.probability(row)).collect();
        let texts: Vec<&str> = page.texts.iter().map(String::as_str).collect();
        let verdicts = rules.decide(
            &rows,
            &texts,
            &page.in_comments,
            &probabilities,
            model.threshold,
        );
        let kept: Vec<&str> = page
            .texts
            .iter()
            .zip(&verdicts)
            .filter(|(_, verdict)| verdict.keep)
            .map(|(text, _)| text.as_str())
            .collect();
        lines.push(HeldOut {
            url: page.url.clone(),
            pages_per_site: page.pages_per_site,
            text: kept.join("\n"),
            fold: fold.to_string(),
        });
    }
    Ok(lines)
}

/// A site no larger than a size is read whole only at the largest size
/// ([`SiteCensus::sample_of_larger_sites`](crate::run::SiteCensus::sample_of_larger_sites));
/// its sample at a smaller size is the same whole site, so its pages' held-out text at the
/// largest size stands for that size too. Gives those lines, for every size at which a site
/// has no page.
fn whole_site_copies(
    collected: &Collected,
    held_out: &[HeldOut],
    sampling: &crate::run::Sampling,
) -> Vec<HeldOut> {
    let Some(largest) = sampling.pages_per_site.iter().max().copied() else {
        return Vec::new();
    };
    let mut sizes_of: HashMap<&str, HashSet<PagesPerSite>> = HashMap::new();
    let mut group_of: HashMap<&str, &str> = HashMap::new();
    // A held-out draw at a size is made only of sites the first sample holds at that size,
    // so the trained samples alone say which sizes a site was sampled at. A page of a
    // held-out draw (at a smaller size) is still a page of its site read whole: it is copied.
    for page in collected.pages.iter().filter(|page| !page.held_out_only) {
        group_of.insert(&page.url, &page.group);
        if let Some(size) = page.pages_per_site {
            sizes_of.entry(&page.group).or_default().insert(size);
        }
    }
    let mut copies = Vec::new();
    for line in held_out
        .iter()
        .filter(|line| line.pages_per_site == Some(largest))
    {
        let sizes = group_of
            .get(line.url.as_str())
            .and_then(|group| sizes_of.get(group));
        for &size in &sampling.pages_per_site {
            if size != largest && sizes.is_none_or(|sizes| !sizes.contains(&size)) {
                copies.push(HeldOut {
                    pages_per_site: Some(size),
                    ..line.clone()
                });
            }
        }
    }
    copies
}

/// Reads the inputs, labels their blocks and fits a model.
pub fn train(
    inputs: &[PathBuf],
    labels: &[Label],
    snippets: &[SnippetLabel],
    options: &TrainOptions,
    progress: &dyn Progress,
) -> Result<Model, TrainError> {
    let collected = collect(inputs, labels, snippets, options, progress)?;
    fit(&collected.dataset(|_| true), options, inputs, &|_, _| {})
}

#[cfg(test)]
mod tests;
