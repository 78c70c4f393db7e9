//! Gradient-boosted regression trees on the log-odds (log loss), grown level by level over
//! feature histograms: labelled rows in, a [`Classifier::Trees`] out.
//!
//! Every feature is cut into at most [`BoostSettings::bins`] bins at quantiles of its values;
//! a split compares a feature with one of those cuts. Training is single-threaded and its
//! random choices (which rows each tree sees and, below a [`BoostSettings::feature_share`] of
//! 1, which features it may split on) come from a seeded generator, so the same rows,
//! settings and seed give the same trees, bit for bit.

use crate::detect::hybrid::{Classifier, Node, Tree};

/// How the trees are grown.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct BoostSettings {
    /// Trees in each ensemble.
    pub trees: usize,
    /// Levels of splits per tree at most.
    pub depth: usize,
    /// Each tree's leaves are scaled by this.
    pub learning_rate: f32,
    /// Rows a leaf holds at least.
    pub min_leaf_rows: usize,
    /// L2 penalty on leaf values.
    pub lambda: f32,
    /// Bins per feature at most (≤ 256).
    pub bins: usize,
    /// Share of the rows each tree is grown on.
    pub row_share: f32,
    /// Share of the features each tree may split on, drawn afresh for each tree (1: all;
    /// below, each feature with this probability, and at least one).
    #[serde(skip_serializing_if = "is_every_feature")]
    pub feature_share: f32,
    /// Ensembles fitted, each with its own seed (so its own rows and features per tree and,
    /// above 50,000 rows, its own sample for the bins' cuts), whose log-odds are averaged into one
    /// classifier of `ensembles × trees` trees (1: one).
    #[serde(skip_serializing_if = "is_one")]
    pub ensembles: usize,
}

fn is_one(ensembles: &usize) -> bool {
    *ensembles == 1
}

fn is_every_feature(share: &f32) -> bool {
    *share >= 1.0
}

impl Default for BoostSettings {
    fn default() -> Self {
        BoostSettings {
            trees: 120,
            depth: 6,
            learning_rate: 0.15,
            min_leaf_rows: 20,
            lambda: 1.0,
            bins: 64,
            row_share: 0.5,
            feature_share: 1.0,
            ensembles: 1,
        }
    }
}

/// A small, seeded random number generator (SplitMix64).
pub struct SplitMix(u64);

impl SplitMix {
    /// A generator from `seed`.
    pub fn new(seed: u64) -> Self {
        SplitMix(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in [0, 1).
    pub fn next_f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }
}

/// The cuts of one feature: a value `v` falls in bin `cuts.partition_point(|&c| c <= v)`.
fn cuts_of(mut values: Vec<f32>, bins: usize) -> Vec<f32> {
    values.retain(|v| v.is_finite());
    values.sort_by(f32::total_cmp);
    values.dedup();
    if values.len() <= 1 {
        return Vec::new();
    }
    if values.len() <= bins {
        // Cut halfway between neighbouring distinct values.
        return values.windows(2).map(|w| (w[0] + w[1]) / 2.0).collect();
    }
    let mut cuts: Vec<f32> = (1..bins).map(|k| values[k * values.len() / bins]).collect();
    cuts.dedup();
    cuts
}

/// Gradient and hessian sums of one bin.
#[derive(Debug, Clone, Copy, Default)]
struct Sums {
    gradient: f64,
    hessian: f64,
    rows: u32,
}

/// The best split of a node.
struct Split {
    feature: usize,
    cut: usize,
    gain: f64,
}

/// Fits the trees to `rows` (all of one length) with `labels` (1 content, 0 not) and
/// per-row `weights`: [`BoostSettings::ensembles`] ensembles with seeds `seed`, `seed + 1`,
/// …, averaged on the log-odds. Averaging lowers how much a decision turns on the seed's
/// draws; the classifier stays a sum of trees, with each ensemble's leaves and base scaled
/// by `1 / ensembles`, so it is evaluated as one ensemble is.
///
/// `stopped` is asked before each tree; when it says yes the fit gives up and gives `None`.
pub fn fit<R: AsRef<[f32]>>(
    rows: &[R],
    labels: &[f32],
    weights: &[f32],
    settings: &BoostSettings,
    seed: u64,
    stopped: &dyn Fn() -> bool,
) -> Option<Classifier> {
    let ensembles = settings.ensembles.max(1);
    if ensembles == 1 {
        let (base, trees) = fit_one(rows, labels, weights, settings, seed, stopped)?;
        return Some(Classifier::Trees { base, trees });
    }
    let share = 1.0 / ensembles as f32;
    let mut average_base = 0.0;
    let mut all_trees = Vec::with_capacity(ensembles * settings.trees);
    for ensemble in 0..ensembles as u64 {
        let (base, mut trees) = fit_one(
            rows,
            labels,
            weights,
            settings,
            seed.wrapping_add(ensemble),
            stopped,
        )?;
        average_base += base * share;
        for node in trees.iter_mut().flat_map(|tree| tree.nodes.iter_mut()) {
            node.value *= share;
        }
        all_trees.append(&mut trees);
    }
    Some(Classifier::Trees {
        base: average_base,
        trees: all_trees,
    })
}

/// One ensemble of [`BoostSettings::trees`] trees, its draws made by `seed`: its base score
/// and its trees (`None` when `stopped` says yes before a tree).
fn fit_one<R: AsRef<[f32]>>(
    rows: &[R],
    labels: &[f32],
    weights: &[f32],
    settings: &BoostSettings,
    seed: u64,
    stopped: &dyn Fn() -> bool,
) -> Option<(f32, Vec<Tree>)> {
    let count = rows.len();
    let width = rows.first().map_or(0, |row| row.as_ref().len());
    let bins = settings.bins.clamp(2, 256);
    let mut random = SplitMix::new(seed);

    // Cuts from at most 50,000 sampled rows.
    let sample: Vec<usize> = if count <= 50_000 {
        (0..count).collect()
    } else {
        (0..50_000)
            .map(|_| (random.next_u64() % count as u64) as usize)
            .collect()
    };
    let cuts: Vec<Vec<f32>> = (0..width)
        .map(|feature| {
            cuts_of(
                sample.iter().map(|&r| rows[r].as_ref()[feature]).collect(),
                bins,
            )
        })
        .collect();
    let binned: Vec<u8> = rows
        .iter()
        .flat_map(|row| {
            row.as_ref()
                .iter()
                .zip(&cuts)
                .map(|(&value, cuts)| cuts.partition_point(|&cut| cut <= value).min(255) as u8)
        })
        .collect();

    let total_weight: f64 = weights.iter().map(|&w| f64::from(w)).sum::<f64>().max(1e-9);
    let positive: f64 = labels
        .iter()
        .zip(weights)
        .map(|(&y, &w)| f64::from(y * w))
        .sum();
    let prior = (positive / total_weight).clamp(1e-4, 1.0 - 1e-4);
    let base = (prior / (1.0 - prior)).ln() as f32;
    let mut scores = vec![base; count];
    let mut gradients = vec![0f32; count];
    let mut hessians = vec![0f32; count];
    let mut trees = Vec::with_capacity(settings.trees);
    let binned_rows = BinnedRows {
        bin_numbers: &binned,
        width,
        cuts: &cuts,
    };

    for _ in 0..settings.trees {
        if stopped() {
            return None;
        }
        for at in 0..count {
            let p = crate::detect::hybrid::model::sigmoid(scores[at]);
            gradients[at] = (p - labels[at]) * weights[at];
            hessians[at] = (p * (1.0 - p)).max(1e-6) * weights[at];
        }
        let chosen: Vec<u32> = (0..count as u32)
            .filter(|_| settings.row_share >= 1.0 || random.next_f32() < settings.row_share)
            .collect();
        let features = features_of_tree(width, settings.feature_share, &mut random);
        let tree = grow(
            binned_rows,
            &chosen,
            &features,
            &gradients,
            &hessians,
            settings,
        );
        for (at, score) in scores.iter_mut().enumerate() {
            *score += tree_value_binned(&tree, &binned[at * width..(at + 1) * width], &cuts);
        }
        trees.push(tree);
    }
    Some((base, trees))
}

/// Which of `width` features one tree may split on: all when `share` is 1 (and then no draw
/// is made, so the rows drawn are those of a fit without this setting), else each with
/// probability `share`, and at least one.
fn features_of_tree(width: usize, share: f32, random: &mut SplitMix) -> Vec<bool> {
    if share >= 1.0 || width == 0 {
        return vec![true; width];
    }
    let mut allowed: Vec<bool> = (0..width).map(|_| random.next_f32() < share).collect();
    if !allowed.contains(&true) {
        allowed[(random.next_u64() % width as u64) as usize] = true;
    }
    allowed
}

/// A tree's value for a binned row (the same path the raw row takes).
fn tree_value_binned(tree: &Tree, row: &[u8], cuts: &[Vec<f32>]) -> f32 {
    let mut at = 0usize;
    loop {
        let node = &tree.nodes[at];
        if node.feature == Node::LEAF {
            return node.value;
        }
        let feature = usize::from(node.feature);
        // The split's cut index: the bin of the threshold itself.
        let cut = cuts[feature].partition_point(|&c| c < node.threshold);
        at = if usize::from(row[feature]) <= cut {
            node.left
        } else {
            node.right
        } as usize;
    }
}

/// Where each feature's bins start in a histogram, and the histogram's length.
fn bin_offsets(cuts: &[Vec<f32>]) -> (Vec<usize>, usize) {
    let mut offsets = Vec::with_capacity(cuts.len());
    let mut total = 0;
    for feature_cuts in cuts {
        offsets.push(total);
        total += feature_cuts.len() + 1;
    }
    (offsets, total)
}

/// The gradient and hessian sums per bin of every feature over `members`.
fn histogram(
    binned: &[u8],
    width: usize,
    offsets: &[usize],
    bins: usize,
    members: &[u32],
    gradients: &[f32],
    hessians: &[f32],
) -> Vec<Sums> {
    let mut histogram = vec![Sums::default(); bins];
    for &r in members {
        let (g, h) = (
            f64::from(gradients[r as usize]),
            f64::from(hessians[r as usize]),
        );
        let row = &binned[r as usize * width..(r as usize + 1) * width];
        for (&offset, &bin) in offsets.iter().zip(row) {
            let sums = &mut histogram[offset + usize::from(bin)];
            sums.gradient += g;
            sums.hessian += h;
            sums.rows += 1;
        }
    }
    histogram
}

/// One node waiting to be split: its place, rows, depth and histogram.
struct Open {
    node: usize,
    members: Vec<u32>,
    depth: usize,
    histogram: Vec<Sums>,
}

/// The training rows cut into bins: `width` bin numbers a row, and each feature's cuts.
#[derive(Clone, Copy)]
struct BinnedRows<'a> {
    bin_numbers: &'a [u8],
    width: usize,
    cuts: &'a [Vec<f32>],
}

fn grow(
    binned_rows: BinnedRows<'_>,
    rows: &[u32],
    features: &[bool],
    gradients: &[f32],
    hessians: &[f32],
    settings: &BoostSettings,
) -> Tree {
    let BinnedRows {
        bin_numbers: binned,
        width,
        cuts,
    } = binned_rows;
    let (offsets, bins) = bin_offsets(cuts);
    let build =
        |members: &[u32]| histogram(binned, width, &offsets, bins, members, gradients, hessians);
    let mut nodes = vec![Node::leaf(0.0)];
    let mut open = vec![Open {
        node: 0,
        members: rows.to_vec(),
        depth: 0,
        histogram: build(rows),
    }];
    let lambda = f64::from(settings.lambda);
    while let Some(Open {
        node,
        members,
        depth,
        histogram,
    }) = open.pop()
    {
        // Every row falls in exactly one bin of feature 0: its bins sum the node.
        let (gradient, hessian) = histogram[..cuts.first().map_or(0, |c| c.len() + 1)]
            .iter()
            .fold((0f64, 0f64), |(g, h), sums| {
                (g + sums.gradient, h + sums.hessian)
            });
        let leaf = (-gradient / (hessian + lambda)) as f32 * settings.learning_rate;
        nodes[node] = Node::leaf(leaf);
        if depth >= settings.depth || members.len() < 2 * settings.min_leaf_rows {
            continue;
        }
        let Some(split) = best_split(
            &histogram,
            &offsets,
            cuts,
            features,
            Sums {
                gradient,
                hessian,
                rows: members.len() as u32,
            },
            settings,
        ) else {
            continue;
        };
        let (left, right): (Vec<u32>, Vec<u32>) = members
            .iter()
            .partition(|&&r| usize::from(binned[r as usize * width + split.feature]) <= split.cut);
        // Scan the smaller child; the larger one's histogram is the parent's minus it.
        let small = if left.len() <= right.len() {
            &left
        } else {
            &right
        };
        let small_histogram = build(small);
        let mut large_histogram = histogram;
        for (large, small) in large_histogram.iter_mut().zip(&small_histogram) {
            large.gradient -= small.gradient;
            large.hessian -= small.hessian;
            large.rows -= small.rows;
        }
        let (left_histogram, right_histogram) = if std::ptr::eq(small, &left) {
            (small_histogram, large_histogram)
        } else {
            (large_histogram, small_histogram)
        };
        let left_at = nodes.len();
        nodes.push(Node::leaf(0.0));
        nodes.push(Node::leaf(0.0));
        nodes[node] = Node {
            feature: split.feature as u16,
            threshold: cuts[split.feature][split.cut],
            left: left_at as u32,
            right: left_at as u32 + 1,
            value: 0.0,
        };
        open.push(Open {
            node: left_at + 1,
            members: right,
            depth: depth + 1,
            histogram: right_histogram,
        });
        open.push(Open {
            node: left_at,
            members: left,
            depth: depth + 1,
            histogram: left_histogram,
        });
    }
    Tree { nodes }
}

/// The split of most gain (above 1e-9; on a tie, the first feature and cut) of a node whose
/// rows sum to `node_sums`, on a feature `features` allows, with at least
/// [`BoostSettings::min_leaf_rows`] rows each side.
fn best_split(
    histogram: &[Sums],
    offsets: &[usize],
    cuts: &[Vec<f32>],
    features: &[bool],
    node_sums: Sums,
    settings: &BoostSettings,
) -> Option<Split> {
    let Sums {
        gradient,
        hessian,
        rows: members,
    } = node_sums;
    let lambda = f64::from(settings.lambda);
    let parent = gradient * gradient / (hessian + lambda);
    let mut best: Option<Split> = None;
    for (feature, feature_cuts) in cuts.iter().enumerate() {
        if !features[feature] {
            continue;
        }
        let mut left = Sums::default();
        for cut in 0..feature_cuts.len() {
            let sums = histogram[offsets[feature] + cut];
            left.gradient += sums.gradient;
            left.hessian += sums.hessian;
            left.rows += sums.rows;
            let right_rows = members - left.rows;
            if (left.rows as usize) < settings.min_leaf_rows
                || (right_rows as usize) < settings.min_leaf_rows
            {
                continue;
            }
            let (right_g, right_h) = (gradient - left.gradient, hessian - left.hessian);
            let gain = left.gradient * left.gradient / (left.hessian + lambda)
                + right_g * right_g / (right_h + lambda)
                - parent;
            if gain > 1e-9 && best.as_ref().is_none_or(|b| gain > b.gain) {
                best = Some(Split { feature, cut, gain });
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::hybrid::model::sigmoid;

    /// A fit nothing stops.
    fn fit_whole(
        rows: &[Vec<f32>],
        labels: &[f32],
        weights: &[f32],
        settings: &BoostSettings,
        seed: u64,
    ) -> Classifier {
        fit(rows, labels, weights, settings, seed, &|| false).expect("not stopped")
    }

    #[test]
    fn a_fit_asks_before_each_tree_whether_to_stop_and_gives_up_when_told() {
        let rows: Vec<Vec<f32>> = (0..200).map(|at| vec![at as f32]).collect();
        let labels: Vec<f32> = (0..200).map(|at| f32::from(at >= 100)).collect();
        let weights = vec![1.0; rows.len()];
        let settings = BoostSettings {
            trees: 30,
            ensembles: 2,
            ..BoostSettings::default()
        };
        let asked = std::cell::Cell::new(0);
        let never = || {
            asked.set(asked.get() + 1);
            false
        };
        assert!(fit(&rows, &labels, &weights, &settings, 1, &never).is_some());
        assert_eq!(asked.get(), 60, "once a tree, in each ensemble");
        asked.set(0);
        let at_the_fortieth = || {
            asked.set(asked.get() + 1);
            asked.get() == 40
        };
        assert_eq!(
            fit(&rows, &labels, &weights, &settings, 1, &at_the_fortieth),
            None
        );
        assert_eq!(asked.get(), 40, "no tree is grown once told to stop");
    }

    fn score(classifier: &Classifier, row: &[f32]) -> f32 {
        match classifier {
            Classifier::Trees { base, trees } => {
                base + trees.iter().map(|tree| tree.value(row)).sum::<f32>()
            }
            Classifier::Logistic { .. } => unreachable!(),
        }
    }

    #[test]
    fn trees_learn_an_interaction_and_training_is_reproducible() {
        // Content when feature 0 is high and feature 1 low: neither alone decides.
        let mut random = SplitMix::new(7);
        let rows: Vec<Vec<f32>> = (0..4000)
            .map(|_| vec![random.next_f32(), random.next_f32(), random.next_f32()])
            .collect();
        let labels: Vec<f32> = rows
            .iter()
            .map(|row| f32::from(row[0] > 0.5 && row[1] < 0.5))
            .collect();
        let weights = vec![1.0; rows.len()];
        let settings = BoostSettings {
            trees: 40,
            depth: 3,
            ..BoostSettings::default()
        };
        let model = fit_whole(&rows, &labels, &weights, &settings, 1);
        let right = rows
            .iter()
            .zip(&labels)
            .filter(|(row, y)| (sigmoid(score(&model, row)) >= 0.5) == (**y == 1.0))
            .count();
        assert!(right as f64 / rows.len() as f64 > 0.97, "{right}");
        assert_eq!(fit_whole(&rows, &labels, &weights, &settings, 1), model);
    }

    #[test]
    fn an_ensemble_averages_the_log_odds_of_ensembles_from_successive_seeds() {
        let mut random = SplitMix::new(3);
        let rows: Vec<Vec<f32>> = (0..2000)
            .map(|_| vec![random.next_f32(), random.next_f32()])
            .collect();
        let labels: Vec<f32> = rows
            .iter()
            .map(|row| f32::from(row[0] + 0.3 * row[1] > 0.6))
            .collect();
        let weights = vec![1.0; rows.len()];
        let one = BoostSettings {
            trees: 10,
            depth: 3,
            ..BoostSettings::default()
        };
        let three = BoostSettings {
            ensembles: 3,
            ..one
        };
        let averaged = fit_whole(&rows, &labels, &weights, &three, 5);
        let singles: Vec<Classifier> = (5..8)
            .map(|seed| fit_whole(&rows, &labels, &weights, &one, seed))
            .collect();
        assert_ne!(singles[0], singles[1], "the seeds draw other rows");
        for row in rows.iter().take(200) {
            let mean = singles.iter().map(|m| score(m, row)).sum::<f32>() / 3.0;
            assert!((score(&averaged, row) - mean).abs() < 1e-4, "{row:?}");
        }
        // In seed order, each single ensemble's trees with every value a third.
        let (
            Classifier::Trees { base, trees },
            Classifier::Trees {
                base: first_base,
                trees: first_trees,
            },
        ) = (&averaged, &singles[0])
        else {
            unreachable!()
        };
        assert_eq!(trees.len(), 30);
        assert!(
            (base - first_base).abs() < 1e-6,
            "every ensemble starts at the prior"
        );
        for (tree, single) in trees[..10].iter().zip(first_trees) {
            assert_eq!(tree.nodes.len(), single.nodes.len());
            for (node, single) in tree.nodes.iter().zip(&single.nodes) {
                assert_eq!(
                    (node.feature, node.threshold),
                    (single.feature, single.threshold)
                );
                assert!((node.value - single.value / 3.0).abs() < 1e-7);
            }
        }
    }

    #[test]
    fn binned_and_raw_rows_take_the_same_path() {
        let rows: Vec<Vec<f32>> = (0..500)
            .map(|i| vec![(i % 37) as f32, (i % 5) as f32])
            .collect();
        let labels: Vec<f32> = rows.iter().map(|row| f32::from(row[0] > 20.0)).collect();
        let weights = vec![1.0; rows.len()];
        let settings = BoostSettings {
            trees: 5,
            depth: 3,
            bins: 8,
            ..BoostSettings::default()
        };
        let Classifier::Trees { trees, .. } = fit_whole(&rows, &labels, &weights, &settings, 3)
        else {
            unreachable!()
        };
        let cuts: Vec<Vec<f32>> = (0..2)
            .map(|f| cuts_of(rows.iter().map(|r| r[f]).collect(), 8))
            .collect();
        for row in &rows {
            let binned: Vec<u8> = row
                .iter()
                .zip(&cuts)
                .map(|(&v, c)| c.partition_point(|&cut| cut <= v) as u8)
                .collect();
            for tree in &trees {
                assert_eq!(tree.value(row), tree_value_binned(tree, &binned, &cuts));
            }
        }
    }

    #[test]
    fn each_tree_splits_only_on_the_features_drawn_for_it() {
        // Feature 0 alone decides; feature 1 is noise and feature 2 a noisy echo of 0.
        let mut random = SplitMix::new(11);
        let rows: Vec<Vec<f32>> = (0..3000)
            .map(|_| {
                let x = random.next_f32();
                vec![x, random.next_f32(), x + random.next_f32()]
            })
            .collect();
        let labels: Vec<f32> = rows.iter().map(|row| f32::from(row[0] > 0.5)).collect();
        let weights = vec![1.0; rows.len()];
        let split_features = |settings: &BoostSettings| {
            let Classifier::Trees { trees, .. } = fit_whole(&rows, &labels, &weights, settings, 5)
            else {
                unreachable!()
            };
            trees
                .iter()
                .map(|tree| {
                    let mut used: Vec<u16> = (tree.nodes.iter())
                        .filter(|node| node.feature != Node::LEAF)
                        .map(|node| node.feature)
                        .collect();
                    used.sort_unstable();
                    used.dedup();
                    used
                })
                .collect::<Vec<_>>()
        };
        let all = BoostSettings {
            trees: 30,
            depth: 2,
            ..BoostSettings::default()
        };
        // With every feature, every tree splits on the deciding one.
        assert!(split_features(&all).iter().all(|used| used.contains(&0)));
        let a_third = BoostSettings {
            feature_share: 0.34,
            ..all
        };
        let used = split_features(&a_third);
        // Some trees were not given feature 0 and split on the others instead …
        assert!(
            used.iter()
                .any(|used| !used.contains(&0) && !used.is_empty())
        );
        // … and no tree splits on a feature it was not given. The draws are replayed as
        // `fit_one` makes them for fewer than 50,000 rows (no sample for the cuts) and a
        // row share below 1: each tree's rows, then its features.
        let mut draws = SplitMix::new(5);
        for used in &used {
            for _ in 0..rows.len() {
                draws.next_f32();
            }
            let allowed = features_of_tree(3, a_third.feature_share, &mut draws);
            assert!(used.iter().all(|&feature| allowed[usize::from(feature)]));
        }
    }

    #[test]
    fn every_feature_draws_nothing_and_is_not_written_and_a_small_share_gives_one() {
        let (mut drawn, mut untouched) = (SplitMix::new(9), SplitMix::new(9));
        assert_eq!(features_of_tree(4, 1.0, &mut drawn), vec![true; 4]);
        assert_eq!(drawn.next_u64(), untouched.next_u64());
        // A model's settings are written into it: a model trained without the setting stays
        // byte for byte what it was before the setting existed.
        let written = serde_json::to_string(&BoostSettings::default()).expect("written");
        assert!(!written.contains("feature_share"), "{written}");
        let half = BoostSettings {
            feature_share: 0.5,
            ..BoostSettings::default()
        };
        let written = serde_json::to_string(&half).expect("written");
        assert!(written.contains(r#""feature_share":0.5"#), "{written}");
        for seed in 0..50 {
            let allowed = features_of_tree(4, 0.01, &mut SplitMix::new(seed));
            assert!(allowed.contains(&true), "seed {seed}");
        }
    }
}
