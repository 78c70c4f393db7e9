//! The model: a feature row in, the probability that the block is content out. A model is a
//! versioned JSON file — its format name and version, the feature names it was trained on, the
//! keep threshold, the classifier (a tree ensemble or a logistic regression) and what it was
//! trained on. The default models ship inside the binary ([`Model::built_in`], and
//! [`Model::built_in_one_pass`] for `--one-pass`), packed by `build.rs` ([`packed`]).

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::features;

/// The `format` field of every model file.
pub const MODEL_FORMAT: &str = "indexer-hybrid-model";

/// The model file layout this build reads and writes.
pub const MODEL_VERSION: u32 = 1;

mod packed;

/// The model trained on the shared corpora, as committed (see `indexer train` in docs/GUIDE.md)
/// in `src/detect/hybrid/default-model.json`, packed by `build.rs`.
const BUILT_IN: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/default-model.packed"));

/// The same, trained on the evidence of one-pass runs (`indexer train --one-pass`).
const BUILT_IN_ONE_PASS: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/default-one-pass-model.packed"));

/// Why a model file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// The file cannot be read.
    #[error("model {path}: {source}")]
    Unreadable {
        /// The file.
        path: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// The file is not a model of this tool, or is damaged.
    #[error("model {path}: not an indexer model file ({message})")]
    NotAModel {
        /// The file.
        path: String,
        /// What is wrong.
        message: String,
    },
    /// The model was written for another layout or feature set.
    #[error(
        "model {path}: made for {found}, this build reads {MODEL_FORMAT} version {MODEL_VERSION} with {features} features; retrain it with `indexer train`"
    )]
    Foreign {
        /// The file.
        path: String,
        /// What the file says it is.
        found: String,
        /// Features this build computes.
        features: usize,
    },
}

/// One node of a regression tree: a split, or a leaf when `feature` is [`Node::LEAF`].
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Node {
    /// The feature compared, or [`Node::LEAF`].
    pub feature: u16,
    /// Rows with `feature < threshold` go left.
    pub threshold: f32,
    /// Index of the left child.
    pub left: u32,
    /// Index of the right child.
    pub right: u32,
    /// A leaf's value (log-odds added to the score).
    pub value: f32,
}

impl Node {
    /// The `feature` of a leaf.
    pub const LEAF: u16 = u16::MAX;

    /// A leaf of `value`.
    pub fn leaf(value: f32) -> Self {
        Node {
            feature: Node::LEAF,
            threshold: 0.0,
            left: 0,
            right: 0,
            value,
        }
    }
}

/// A regression tree; node 0 is the root.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tree {
    /// The nodes.
    pub nodes: Vec<Node>,
}

impl Tree {
    /// The leaf value `row` reaches. A missing feature goes left. Children come after their
    /// parent ([`Model::parse`] checks it), so the walk ends.
    pub fn value(&self, row: &[f32]) -> f32 {
        let mut at = 0usize;
        while let Some(node) = self.nodes.get(at) {
            if node.feature == Node::LEAF {
                return node.value;
            }
            let goes_left = match row.get(usize::from(node.feature)) {
                Some(&value) => value < node.threshold,
                None => true,
            };
            at = if goes_left { node.left } else { node.right } as usize;
        }
        0.0
    }
}

/// How a model scores a row.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind", try_from = "ClassifierFields")]
pub enum Classifier {
    /// Gradient-boosted regression trees on the log-odds.
    Trees {
        /// The starting log-odds.
        base: f32,
        /// The trees, each scaled by the learning rate already.
        trees: Vec<Tree>,
    },
    /// A logistic regression on standardised features.
    Logistic {
        /// The intercept.
        bias: f32,
        /// One weight per feature.
        weights: Vec<f32>,
        /// Per feature, the mean subtracted before weighting.
        mean: Vec<f32>,
        /// Per feature, the scale divided by before weighting.
        scale: Vec<f32>,
    },
}

/// A classifier as a model file writes it, read field by field. serde reads an enum tagged
/// by a field (`"kind"`) by first holding the whole object as a JSON tree, much larger than
/// the model (docs/MEASUREMENTS.md, "Constants and the figures behind them"); these fields
/// are read as they come. As with the tagged
/// enum, fields of the other kind of classifier are passed over.
#[derive(Deserialize)]
struct ClassifierFields {
    kind: String,
    base: Option<f32>,
    trees: Option<Vec<Tree>>,
    bias: Option<f32>,
    weights: Option<Vec<f32>>,
    mean: Option<Vec<f32>>,
    scale: Option<Vec<f32>>,
}

impl TryFrom<ClassifierFields> for Classifier {
    type Error = String;

    fn try_from(fields: ClassifierFields) -> Result<Self, String> {
        let missing = |field: &str| format!("missing field `{field}`");
        match fields.kind.as_str() {
            "trees" => Ok(Classifier::Trees {
                base: fields.base.ok_or_else(|| missing("base"))?,
                trees: fields.trees.ok_or_else(|| missing("trees"))?,
            }),
            "logistic" => Ok(Classifier::Logistic {
                bias: fields.bias.ok_or_else(|| missing("bias"))?,
                weights: fields.weights.ok_or_else(|| missing("weights"))?,
                mean: fields.mean.ok_or_else(|| missing("mean"))?,
                scale: fields.scale.ok_or_else(|| missing("scale"))?,
            }),
            other => Err(format!(
                "unknown variant `{other}`, expected `trees` or `logistic`"
            )),
        }
    }
}

/// What a model was trained on, for people reading the file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    /// The input files (names only).
    pub inputs: Vec<String>,
    /// Labelled pages used.
    pub pages: u64,
    /// Blocks used (with a label).
    pub blocks: u64,
    /// Blocks labelled content.
    pub content_blocks: u64,
    /// The seed of the training's random choices.
    pub seed: u64,
    /// The training settings, as text.
    pub settings: String,
}

/// A model file's `format` and `version`, read without the rest of the file (`null` is
/// present, unlike a missing key; of a key given twice, the last).
#[derive(Default)]
struct ModelHeader {
    format: Option<serde_json::Value>,
    version: Option<serde_json::Value>,
}

impl<'de> Deserialize<'de> for ModelHeader {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Fields;
        impl<'de> serde::de::Visitor<'de> for Fields {
            type Value = ModelHeader;
            fn expecting(&self, formatter: &mut std::fmt::Formatter) -> std::fmt::Result {
                formatter.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<ModelHeader, A::Error> {
                let mut header = ModelHeader::default();
                while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    match &*key {
                        "format" => header.format = Some(map.next_value()?),
                        "version" => header.version = Some(map.next_value()?),
                        _ => {
                            map.next_value::<serde::de::IgnoredAny>()?;
                        }
                    }
                }
                Ok(header)
            }
        }
        deserializer.deserialize_map(Fields)
    }
}

/// A trained block classifier.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Model {
    /// Always [`MODEL_FORMAT`].
    pub format: String,
    /// The layout version, [`MODEL_VERSION`].
    pub version: u32,
    /// The feature names, in row order.
    pub features: Vec<String>,
    /// A block is kept when its probability of being content reaches this.
    pub threshold: f32,
    /// The classifier.
    pub classifier: Classifier,
    /// What it was trained on.
    pub provenance: Provenance,
}

impl Model {
    /// A model of this build's format around `classifier`.
    pub fn new(classifier: Classifier, threshold: f32, provenance: Provenance) -> Self {
        Model {
            format: MODEL_FORMAT.to_string(),
            version: MODEL_VERSION,
            features: features::names(),
            threshold,
            classifier,
            provenance,
        }
    }

    /// The model shipped in the binary.
    pub fn built_in() -> Result<Model, ModelError> {
        packed::unpack(BUILT_IN, "<built-in>")
    }

    /// The model shipped in the binary for one-pass runs: trained on the site evidence a page
    /// has when it is decided as it arrives (the site's earlier pages only).
    pub fn built_in_one_pass() -> Result<Model, ModelError> {
        packed::unpack(BUILT_IN_ONE_PASS, "<built-in, one pass>")
    }

    /// Reads a model file.
    pub fn load(path: &Path) -> Result<Model, ModelError> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| ModelError::Unreadable {
            path: name.clone(),
            source,
        })?;
        Model::parse(&text, &name)
    }

    /// Parses a model file's text; `name` names it in errors.
    pub fn parse(text: &str, name: &str) -> Result<Model, ModelError> {
        let not_a_model = |message: String| not_a_model(name, message);
        // A model of this build's format and version is read in one pass; anything else is
        // read again below, header first, for the message that says what it is.
        if let Ok(model) = serde_json::from_str::<Model>(text)
            && model.format == MODEL_FORMAT
            && model.version == MODEL_VERSION
        {
            return model.checked(name);
        }
        // The header alone first: the trees are passed over, not built as a JSON tree, which
        // for a large model held many times the model's memory at once. What is not an
        // object is read as a JSON tree after all, for the message it always had.
        let header = match serde_json::from_str::<ModelHeader>(text) {
            Ok(header) => header,
            Err(_) => match serde_json::from_str::<serde_json::Value>(text) {
                Ok(serde_json::Value::Object(fields)) => ModelHeader {
                    format: fields.get("format").cloned(),
                    version: fields.get("version").cloned(),
                },
                Ok(_) => ModelHeader::default(),
                Err(error) => return Err(not_a_model(error.to_string())),
            },
        };
        let format = (header.format.as_ref())
            .and_then(|v| v.as_str())
            .unwrap_or("")
            .to_string();
        if format != MODEL_FORMAT {
            return Err(not_a_model(format!("format `{format}`")));
        }
        let version = match &header.version {
            Some(version) => version.as_u64().ok_or_else(|| {
                not_a_model(format!(
                    "version {version} is not a whole number (write \"version\": {MODEL_VERSION})"
                ))
            })?,
            None => return Err(not_a_model("no version".into())),
        };
        if version != u64::from(MODEL_VERSION) {
            return Err(ModelError::Foreign {
                path: name.to_string(),
                found: format!("{format} version {version}"),
                features: features::count(),
            });
        }
        let model: Model =
            serde_json::from_str(text).map_err(|error| not_a_model(error.to_string()))?;
        model.checked(name)
    }

    /// The model, when its features are this build's and [`check`](Self::check) finds it
    /// whole; `name` names it in errors.
    fn checked(self, name: &str) -> Result<Model, ModelError> {
        if self.features != features::names() {
            return Err(ModelError::Foreign {
                path: name.to_string(),
                found: format!(
                    "{} version {} with {} other features",
                    self.format,
                    self.version,
                    self.features.len()
                ),
                features: features::count(),
            });
        }
        self.check().map_err(|message| not_a_model(name, message))?;
        Ok(self)
    }

    /// Checks that every index in the model is in range, every number finite, the threshold a
    /// probability and the classifier not empty.
    fn check(&self) -> Result<(), String> {
        if !(0.0..=1.0).contains(&self.threshold) {
            return Err(format!(
                "threshold {} is not a probability between 0 and 1",
                self.threshold
            ));
        }
        let width = self.features.len();
        match &self.classifier {
            Classifier::Trees { base, trees } => {
                if trees.is_empty() {
                    return Err("no trees".into());
                }
                finite("base", [*base])?;
                for tree in trees {
                    finite(
                        "a tree node",
                        tree.nodes
                            .iter()
                            .flat_map(|node| [node.threshold, node.value]),
                    )?;
                    for (at, node) in tree.nodes.iter().enumerate() {
                        let out_of_range = node.feature != Node::LEAF
                            && (usize::from(node.feature) >= width
                                || node.left as usize >= tree.nodes.len()
                                || node.right as usize >= tree.nodes.len()
                                || node.left as usize <= at
                                || node.right as usize <= at);
                        if out_of_range {
                            return Err("a tree node points outside the model".into());
                        }
                    }
                    if tree.nodes.is_empty() {
                        return Err("an empty tree".into());
                    }
                }
            }
            Classifier::Logistic {
                bias,
                weights,
                mean,
                scale,
            } => {
                if weights.len() != width || mean.len() != width || scale.len() != width {
                    return Err("weights of the wrong length".into());
                }
                finite("bias", [*bias])?;
                finite("a weight", weights.iter().chain(mean).copied())?;
                if let Some(zero) = scale
                    .iter()
                    .find(|scale| !(scale.is_finite() && **scale > 0.0))
                {
                    return Err(format!("scale {zero} is not a positive number"));
                }
            }
        }
        Ok(())
    }

    /// The model as the text of a model file (stable: the same model gives the same bytes).
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string(self).unwrap_or_default();
        text.push('\n');
        text
    }

    /// The log-odds that `row` is content.
    pub fn score(&self, row: &[f32]) -> f32 {
        match &self.classifier {
            Classifier::Trees { base, trees } => {
                base + trees.iter().map(|tree| tree.value(row)).sum::<f32>()
            }
            Classifier::Logistic {
                bias,
                weights,
                mean,
                scale,
            } => {
                let mut sum = *bias;
                for (at, &value) in row.iter().enumerate().take(weights.len()) {
                    sum += weights[at] * (value - mean[at]) / scale[at];
                }
                sum
            }
        }
    }

    /// The probability that `row` is content.
    pub fn probability(&self, row: &[f32]) -> f32 {
        sigmoid(self.score(row))
    }

    /// A short description for summaries: the classifier and its size.
    pub fn describe(&self) -> String {
        match &self.classifier {
            Classifier::Trees { trees, .. } => format!(
                "{} trees, {} blocks of {} pages",
                trees.len(),
                self.provenance.blocks,
                self.provenance.pages
            ),
            Classifier::Logistic { .. } => format!(
                "logistic regression, {} blocks of {} pages",
                self.provenance.blocks, self.provenance.pages
            ),
        }
    }
}

/// The error for a file `name` that does not read as a model, saying `message`.
fn not_a_model(name: &str, message: String) -> ModelError {
    ModelError::NotAModel {
        path: name.to_string(),
        message,
    }
}

/// An error naming `what` when one of `numbers` is infinite or not a number (a JSON number too
/// large for an `f32`, such as `1e308`, reads as infinite).
fn finite(what: &str, numbers: impl IntoIterator<Item = f32>) -> Result<(), String> {
    match numbers.into_iter().find(|number| !number.is_finite()) {
        Some(number) => Err(format!("{what} holds {number}, not a finite number")),
        None => Ok(()),
    }
}

/// The logistic function.
pub fn sigmoid(score: f32) -> f32 {
    1.0 / (1.0 + (-score).exp())
}

/// A tree ensemble laid out for deciding many blocks: every tree padded to the ensemble's
/// depth and stored breadth first, so that a row makes the same number of comparisons in
/// every tree without following child links. It gives what `model.probability(row)` does.
///
/// An ensemble no deeper than [`SHALLOW_DEPTH`] whose splits read only the first 256 features
/// (the built-in models, and any `train` writes with its default depth) is laid out in
/// blocks of 64 slots a tree and reads each row from a copy padded to 256 features, so that
/// no access is checked: ensembles of several hundred trees (`train --ensemble`) are decided
/// about 1.5 times as fast as in the deeper form (`cargo bench --bench trees`).
#[derive(Debug, Clone)]
pub struct CompiledTrees {
    base: f32,
    depth: usize,
    form: Form,
}

/// Deepest ensemble laid out in [`Form::Shallow`].
const SHALLOW_DEPTH: usize = 6;

/// Slots of a shallow tree: its splits, then nothing (a tree of depth 6 has 63 splits).
const SHALLOW_SLOTS: usize = 1 << SHALLOW_DEPTH;

#[derive(Debug, Clone)]
enum Form {
    /// Trees of at most [`SHALLOW_DEPTH`] levels splitting on features below 256.
    Shallow(Vec<ShallowTree>),
    /// Any other ensemble, up to [`CompiledTrees::MAX_DEPTH`] levels.
    Deep {
        /// `2^depth − 1` split features per tree, breadth first.
        features: Vec<u16>,
        /// The thresholds of those splits.
        thresholds: Vec<f32>,
        /// `2^depth` leaf values per tree.
        leaves: Vec<f32>,
    },
}

/// One tree of a shallow ensemble: `2^depth − 1` splits breadth first and `2^depth` leaves,
/// each in a block of [`SHALLOW_SLOTS`] (the rest unused).
#[derive(Debug, Clone)]
struct ShallowTree {
    features: [u8; SHALLOW_SLOTS],
    thresholds: [f32; SHALLOW_SLOTS],
    leaves: [f32; SHALLOW_SLOTS],
}

/// A row as a shallow tree reads it: the features a model may split on, and below −∞ for
/// those the row lacks (a missing feature goes left, as in [`Tree::value`]).
type PaddedRow = [f32; PADDED_FEATURES];

/// Features a shallow tree may split on (its features are bytes).
const PADDED_FEATURES: usize = 256;

impl CompiledTrees {
    /// Deepest tree laid out; a deeper ensemble is not compiled.
    const MAX_DEPTH: usize = 12;

    /// The compiled form of `model`, or `None` when it is not a tree ensemble (or deeper
    /// than [`Self::MAX_DEPTH`]).
    pub fn compile(model: &Model) -> Option<Self> {
        let Classifier::Trees { trees, .. } = &model.classifier else {
            return None;
        };
        let shallow = trees
            .iter()
            .flat_map(|tree| &tree.nodes)
            .all(|node| node.feature == Node::LEAF || usize::from(node.feature) < PADDED_FEATURES);
        Self::compile_as(model, shallow)
    }

    /// `model` compiled in the shallow form when `shallow` allows it and the trees fit.
    fn compile_as(model: &Model, shallow: bool) -> Option<Self> {
        let Classifier::Trees { base, trees } = &model.classifier else {
            return None;
        };
        let depth = trees
            .iter()
            .map(|tree| tree_depth(tree, 0))
            .max()
            .unwrap_or(0);
        if depth > Self::MAX_DEPTH {
            return None;
        }
        let (splits, leaves) = ((1usize << depth) - 1, 1usize << depth);
        let mut features = vec![0; splits * trees.len()];
        let mut thresholds = vec![f32::INFINITY; splits * trees.len()];
        let mut values = vec![0.0; leaves * trees.len()];
        for (at, tree) in trees.iter().enumerate() {
            let mut layout = Layout {
                tree,
                depth,
                features: &mut features[at * splits..(at + 1) * splits],
                thresholds: &mut thresholds[at * splits..(at + 1) * splits],
                leaves: &mut values[at * leaves..(at + 1) * leaves],
            };
            layout.fill(0, 0, 0);
        }
        let form = if shallow && depth <= SHALLOW_DEPTH {
            Form::Shallow(
                (0..trees.len())
                    .map(|at| {
                        let mut tree = ShallowTree {
                            features: [0; SHALLOW_SLOTS],
                            thresholds: [f32::INFINITY; SHALLOW_SLOTS],
                            leaves: [0.0; SHALLOW_SLOTS],
                        };
                        let (split_range, leaf_range) = (
                            at * splits..(at + 1) * splits,
                            at * leaves..(at + 1) * leaves,
                        );
                        for (slot, &feature) in features[split_range.clone()].iter().enumerate() {
                            tree.features[slot] = u8::try_from(feature).expect("checked below 256");
                        }
                        tree.thresholds[..splits].copy_from_slice(&thresholds[split_range]);
                        tree.leaves[..leaves].copy_from_slice(&values[leaf_range]);
                        tree
                    })
                    .collect(),
            )
        } else {
            Form::Deep {
                features,
                thresholds,
                leaves: values,
            }
        };
        Some(CompiledTrees {
            base: *base,
            depth,
            form,
        })
    }

    /// The probability that `row` is content.
    pub fn probability(&self, row: &[f32]) -> f32 {
        self.probabilities_of::<1>([row])[0]
    }

    /// The probability of each of `rows`, as [`probability`](Self::probability) gives it.
    /// Rows go through the trees [`LANES`](Self::LANES) at a time, so that the processor
    /// follows several rows' paths down a tree at once; each row's score still adds the
    /// trees' leaves in tree order, so every probability is bit for bit the one-row answer.
    pub fn probabilities(&self, rows: &[&[f32]]) -> Vec<f32> {
        let mut probabilities = Vec::with_capacity(rows.len());
        let mut groups = rows.chunks_exact(Self::LANES);
        for group in &mut groups {
            let group: [&[f32]; Self::LANES] = group.try_into().expect("a whole group");
            probabilities.extend(self.probabilities_of(group));
        }
        for &row in groups.remainder() {
            probabilities.push(self.probability(row));
        }
        probabilities
    }

    /// Rows evaluated together by [`probabilities`](Self::probabilities).
    const LANES: usize = 8;

    fn probabilities_of<const N: usize>(&self, rows: [&[f32]; N]) -> [f32; N] {
        let scores = match &self.form {
            Form::Shallow(trees) => self.shallow_scores(trees, rows),
            Form::Deep {
                features,
                thresholds,
                leaves,
            } => self.deep_scores(features, thresholds, leaves, rows),
        };
        scores.map(sigmoid)
    }

    fn shallow_scores<const N: usize>(&self, trees: &[ShallowTree], rows: [&[f32]; N]) -> [f32; N] {
        let splits = (1usize << self.depth) - 1;
        // Filled in place: an array of rows mapped into a new one is moved once more.
        let mut padded: [PaddedRow; N] = [[f32::NEG_INFINITY; PADDED_FEATURES]; N];
        for (padded, row) in padded.iter_mut().zip(rows) {
            let kept = row.len().min(PADDED_FEATURES);
            padded[..kept].copy_from_slice(&row[..kept]);
        }
        let mut scores = [self.base; N];
        for tree in trees {
            let mut slots = [0usize; N];
            for _ in 0..self.depth {
                for (slot, row) in slots.iter_mut().zip(&padded) {
                    let at = *slot % SHALLOW_SLOTS;
                    let value = row[usize::from(tree.features[at])];
                    // A NaN goes right, as in `Tree::value`.
                    let goes_left = value < tree.thresholds[at];
                    *slot = 2 * *slot + 1 + usize::from(!goes_left);
                }
            }
            for (score, slot) in scores.iter_mut().zip(slots) {
                *score += tree.leaves[(slot - splits) % SHALLOW_SLOTS];
            }
        }
        scores
    }

    fn deep_scores<const N: usize>(
        &self,
        features: &[u16],
        thresholds: &[f32],
        leaves: &[f32],
        rows: [&[f32]; N],
    ) -> [f32; N] {
        let (splits, leaf_count) = ((1usize << self.depth) - 1, 1usize << self.depth);
        let mut scores = [self.base; N];
        for at in 0..leaves.len() / leaf_count {
            let features = &features[at * splits..(at + 1) * splits];
            let thresholds = &thresholds[at * splits..(at + 1) * splits];
            let mut slots = [0usize; N];
            for _ in 0..self.depth {
                for (slot, row) in slots.iter_mut().zip(rows) {
                    // A missing feature goes left, as in `Tree::value`.
                    let value = row
                        .get(usize::from(features[*slot]))
                        .copied()
                        .unwrap_or(f32::NEG_INFINITY);
                    // A NaN goes right, as in `Tree::value`.
                    let goes_left = value < thresholds[*slot];
                    *slot = 2 * *slot + 1 + usize::from(!goes_left);
                }
            }
            for (score, slot) in scores.iter_mut().zip(slots) {
                *score += leaves[at * leaf_count + slot - splits];
            }
        }
        scores
    }
}

/// How deep `tree` is below `node` (a lone leaf: 0).
fn tree_depth(tree: &Tree, node: usize) -> usize {
    match tree.nodes.get(node) {
        Some(split) if split.feature != Node::LEAF => {
            1 + tree_depth(tree, split.left as usize).max(tree_depth(tree, split.right as usize))
        }
        _ => 0,
    }
}

/// One tree being laid out breadth first (see [`CompiledTrees`]).
struct Layout<'a> {
    tree: &'a Tree,
    depth: usize,
    features: &'a mut [u16],
    thresholds: &'a mut [f32],
    leaves: &'a mut [f32],
}

impl Layout<'_> {
    /// Lays out the subtree under `node` at `slot`, `level` splits below the root. A leaf
    /// above the full depth becomes splits whose two sides lead to copies of it.
    fn fill(&mut self, node: usize, slot: usize, level: usize) {
        let found = self.tree.nodes.get(node);
        if level == self.depth {
            let splits = (1usize << self.depth) - 1;
            self.leaves[slot - splits] = found.map_or(0.0, |leaf| leaf.value);
            return;
        }
        match found {
            Some(split) if split.feature != Node::LEAF => {
                self.features[slot] = split.feature;
                self.thresholds[slot] = split.threshold;
                self.fill(split.left as usize, 2 * slot + 1, level + 1);
                self.fill(split.right as usize, 2 * slot + 2, level + 1);
            }
            _ => {
                self.fill(node, 2 * slot + 1, level + 1);
                self.fill(node, 2 * slot + 2, level + 1);
            }
        }
    }
}

#[cfg(test)]
mod tests;
