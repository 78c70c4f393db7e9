//! Deciding blocks with `hybrid`'s model: rows a second through the compiled trees
//! (`CompiledTrees::probabilities`, what a build runs) and through the model's own tree walk.
//!
//! The rows are made from the model's own splits (each feature a value just below or above one
//! of its thresholds, drawn by a seeded generator), so that rows take every side of the trees.
//! `cargo bench --bench trees`; `TREES_MODEL=FILE` measures a model file (an averaged
//! `train --ensemble N` model, say) beside the built-in one.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use indexer::detect::hybrid::{Classifier, CompiledTrees, Model, features};
use indexer::learn::boost::SplitMix;
use std::hint::black_box;

/// `rows` rows of `features::count()` values, from the thresholds of `model`'s splits.
fn rows(model: &Model, rows: usize) -> Vec<f32> {
    let Classifier::Trees { trees, .. } = &model.classifier else {
        panic!("a tree model");
    };
    let width = features::count();
    let mut thresholds = vec![Vec::new(); width];
    for node in trees.iter().flat_map(|tree| &tree.nodes) {
        if let Some(list) = thresholds.get_mut(usize::from(node.feature)) {
            list.push(node.threshold);
        }
    }
    let mut random = SplitMix::new(7);
    let mut values = Vec::with_capacity(rows * width);
    for _ in 0..rows * width {
        let feature = values.len() % width;
        let list = &thresholds[feature];
        let value = if list.is_empty() {
            0.0
        } else {
            let draw = random.next_u64();
            let threshold = list[(draw % list.len() as u64) as usize];
            if draw >> 63 == 0 {
                threshold - 1e-3 * threshold.abs().max(1.0)
            } else {
                threshold
            }
        };
        values.push(value);
    }
    values
}

fn trees(c: &mut Criterion) {
    let mut models = vec![(
        "built-in".to_string(),
        Model::built_in().expect("built-in model"),
    )];
    if let Ok(path) = std::env::var("TREES_MODEL") {
        models.push((
            path.clone(),
            Model::load(path.as_ref()).expect("TREES_MODEL"),
        ));
    }
    let mut group = c.benchmark_group("trees");
    group.sample_size(20);
    for (name, model) in &models {
        let values = rows(model, 4096);
        let rows: Vec<&[f32]> = values.chunks_exact(features::count()).collect();
        let compiled = CompiledTrees::compile(model).expect("a compiled model");
        // Both ways agree before either is timed (up to the order the leaves are added in).
        let probabilities = compiled.probabilities(&rows);
        for (row, probability) in rows.iter().zip(&probabilities) {
            assert!((probability - model.probability(row)).abs() < 1e-5);
        }
        group.throughput(Throughput::Elements(rows.len() as u64));
        group.bench_function(format!("compiled: {name}"), |b| {
            b.iter(|| compiled.probabilities(black_box(&rows)))
        });
        group.bench_function(format!("tree walk: {name}"), |b| {
            b.iter(|| {
                rows.iter()
                    .map(|row| model.probability(black_box(row)))
                    .sum::<f32>()
            })
        });
    }
    group.finish();
}

criterion_group!(benches, trees);
criterion_main!(benches);
