use super::*;

fn stump(feature: u16, threshold: f32, left: f32, right: f32) -> Tree {
    Tree {
        nodes: vec![
            Node {
                feature,
                threshold,
                left: 1,
                right: 2,
                value: 0.0,
            },
            Node::leaf(left),
            Node::leaf(right),
        ],
    }
}

/// The built-in models' files, which `build.rs` packs.
const BUILT_IN_FILES: [&str; 2] = [
    include_str!("../default-model.json"),
    include_str!("../default-one-pass-model.json"),
];

#[test]
fn the_built_in_models_read_back_as_their_files_are_written() {
    let packed = [Model::built_in(), Model::built_in_one_pass()];
    for (text, model) in BUILT_IN_FILES.into_iter().zip(packed) {
        let model = model.unwrap();
        assert!(model.to_json() == text, "a built-in model reads back");
        assert_eq!(model, Model::parse(text, "the file").unwrap());
    }
    let logistic = Model {
        classifier: Classifier::Logistic {
            bias: 0.5,
            weights: vec![1.0, -2.0],
            mean: vec![0.25, 0.0],
            scale: vec![1.0, 3.0],
        },
        ..Model::built_in().unwrap()
    };
    let read: Model = serde_json::from_str(&logistic.to_json()).unwrap();
    assert_eq!(read.classifier, logistic.classifier);
    for (classifier, message) in [
        (r#"{"base":0.1,"trees":[]}"#, "missing field `kind`"),
        (
            r#"{"kind":"forest","base":0.1}"#,
            "unknown variant `forest`",
        ),
        (r#"{"kind":"trees","trees":[]}"#, "missing field `base`"),
        (
            r#"{"kind":"logistic","bias":1.0}"#,
            "missing field `weights`",
        ),
    ] {
        let error = serde_json::from_str::<Classifier>(classifier).unwrap_err();
        assert!(error.to_string().contains(message), "{classifier}: {error}");
    }
    let trees: Classifier =
        serde_json::from_str(r#"{"kind":"trees","base":0.5,"trees":[],"bias":1.0}"#).unwrap();
    assert_eq!(
        trees,
        Classifier::Trees {
            base: 0.5,
            trees: vec![]
        }
    );
}

#[test]
fn a_model_file_round_trips_and_scores() {
    let model = Model::new(
        Classifier::Trees {
            base: 0.5,
            trees: vec![stump(2, 0.5, 1.0, -3.0)],
        },
        0.5,
        Provenance::default(),
    );
    let text = model.to_json();
    let back = Model::parse(&text, "m").unwrap();
    assert_eq!(back, model);
    let mut row = vec![0.0; features::count()];
    assert!(back.probability(&row) > 0.8);
    row[2] = 0.9;
    assert!(back.probability(&row) < 0.1);
}

#[test]
fn rows_evaluated_together_give_each_rows_own_probability() {
    let model = Model::built_in().unwrap();
    let compiled = CompiledTrees::compile(&model).unwrap();
    let mut random = crate::learn::boost::SplitMix::new(11);
    let rows: Vec<Vec<f32>> = (0..203)
        .map(|_| {
            (0..features::count())
                .map(|_| random.next_f32() * 4.0 - 1.0)
                .collect()
        })
        .collect();
    let rows: Vec<&[f32]> = rows.iter().map(Vec::as_slice).collect();
    let together = compiled.probabilities(&rows);
    assert_eq!(together.len(), rows.len());
    for (row, probability) in rows.iter().zip(&together) {
        assert_eq!(probability.to_bits(), compiled.probability(row).to_bits());
    }
    assert!(together.iter().any(|&p| p > 0.5) && together.iter().any(|&p| p < 0.5));
}

#[test]
fn compiled_trees_give_the_models_probability() {
    let model = Model::built_in().unwrap();
    let compiled = CompiledTrees::compile(&model).unwrap();
    let mut random = crate::learn::boost::SplitMix::new(5);
    for _ in 0..2000 {
        let row: Vec<f32> = (0..features::count())
            .map(|_| random.next_f32() * 4.0 - 1.0)
            .collect();
        let (expected, compiled) = (model.probability(&row), compiled.probability(&row));
        assert!(
            (expected - compiled).abs() < 1e-5,
            "{expected} vs {compiled}"
        );
    }
}

/// A tree splitting on `features` in turn, one level each: a row goes right while its
/// features reach `threshold`, and the leaf it ends on tells how far it went.
fn chain(features: &[u16], threshold: f32) -> Tree {
    let mut nodes = Vec::new();
    for (level, &feature) in features.iter().enumerate() {
        let at = nodes.len() as u32;
        nodes.push(Node {
            feature,
            threshold,
            left: at + 1,
            right: at + 2,
            value: 0.0,
        });
        nodes.push(Node::leaf(-(level as f32) - 0.25));
    }
    nodes.push(Node::leaf(features.len() as f32 + 0.5));
    Tree { nodes }
}

#[test]
fn the_shallow_and_the_deep_form_give_the_same_bits() {
    let model = Model::built_in().unwrap();
    let shallow = CompiledTrees::compile(&model).unwrap();
    let deep = CompiledTrees::compile_as(&model, false).unwrap();
    assert!(matches!(shallow.form, Form::Shallow(_)));
    assert!(matches!(deep.form, Form::Deep { .. }));
    let mut random = crate::learn::boost::SplitMix::new(3);
    let mut rows: Vec<Vec<f32>> = (0..301)
        .map(|_| {
            (0..features::count())
                .map(|_| random.next_f32() * 4.0 - 1.0)
                .collect()
        })
        .collect();
    // Rows that lack features (they go left) or carry NaN (it goes right).
    rows[3].truncate(20);
    rows[4].clear();
    rows[5]
        .iter_mut()
        .step_by(3)
        .for_each(|value| *value = f32::NAN);
    let rows: Vec<&[f32]> = rows.iter().map(Vec::as_slice).collect();
    let (fast, slow) = (shallow.probabilities(&rows), deep.probabilities(&rows));
    for (at, (fast, slow)) in fast.iter().zip(&slow).enumerate() {
        assert_eq!(fast.to_bits(), slow.to_bits(), "row {at}");
        assert!(
            (fast - model.probability(rows[at])).abs() < 1e-5,
            "row {at}"
        );
    }
    assert_ne!(fast[3], fast[0]);
}

#[test]
fn a_deeper_ensemble_is_compiled_in_the_deep_form() {
    let chain_features: Vec<u16> = (0..8).collect();
    let model = Model::new(
        Classifier::Trees {
            base: 0.1,
            trees: vec![chain(&chain_features, 0.5), stump(9, 0.5, 1.0, -1.0)],
        },
        0.5,
        Provenance::default(),
    );
    let compiled = CompiledTrees::compile(&model).unwrap();
    assert!(matches!(compiled.form, Form::Deep { .. }));
    assert_eq!(compiled.depth, 8);
    // Every way down the chain, and the stump's two sides.
    for ones in 0..=8 {
        for stump_side in [0.0, 1.0] {
            let mut row = vec![0.0; features::count()];
            row[..ones].fill(1.0);
            row[9] = stump_side;
            let (expected, got) = (model.probability(&row), compiled.probability(&row));
            assert!(
                (expected - got).abs() < 1e-6,
                "{ones} ones: {expected} vs {got}"
            );
        }
    }
}

/// A model file of one stump, as `train` writes it.
fn stump_model_text() -> String {
    let trees = vec![stump(1, 0.0, 0.0, 0.0)];
    let classifier = Classifier::Trees { base: 0.0, trees };
    Model::new(classifier, 0.5, Provenance::default()).to_json()
}

#[test]
fn foreign_and_damaged_files_are_refused() {
    let text = stump_model_text();
    let err = |text: &str| Model::parse(text, "m").unwrap_err().to_string();
    assert!(err("not json").contains("not an indexer model file"));
    assert!(err("{\"format\": \"other\"}").contains("format `other`"));
    let old = text.replace("\"version\":1", "\"version\":99");
    assert!(err(&old).contains("retrain it"), "{}", err(&old));
    let fewer = text.replace("\"log_words\",", "");
    assert!(err(&fewer).contains("other features"), "{}", err(&fewer));
    let bad_index = text.replace("\"feature\":1,", "\"feature\":9999,");
    assert!(err(&bad_index).contains("outside the model"));
    let cycle = text.replace("\"left\":1,", "\"left\":0,");
    assert!(err(&cycle).contains("outside the model"));
}

/// The header is read apart from the trees, and says what a JSON tree of the whole file
/// said of a file that is no object, of damaged JSON and of `null`; a key given twice,
/// which the tree took the last of, is refused.
#[test]
fn the_header_is_read_as_the_whole_file_was() {
    let text = stump_model_text();
    let err = |text: &str| Model::parse(text, "m").unwrap_err().to_string();
    for not_an_object in [
        "[\"indexer-hybrid-model\", 1]",
        "[1, 2, 3]",
        "\"x\"",
        "null",
    ] {
        assert!(
            err(not_an_object).contains("format ``"),
            "{}",
            err(not_an_object)
        );
    }
    assert!(err("\"x\" junk").contains("trailing characters"));
    assert!(
        err("{\"format\": ").contains("EOF"),
        "{}",
        err("{\"format\": ")
    );
    let twice = text.replacen('{', "{\"format\":\"other\",", 1);
    assert!(
        err(&twice).contains("duplicate field `format`"),
        "{}",
        err(&twice)
    );
    let null = text.replace("\"version\":1", "\"version\":null");
    assert!(err(&null).contains("version null is not a whole number"));
    let missing = text.replace("\"version\":1,", "");
    assert!(err(&missing).contains("no version"), "{}", err(&missing));
}

#[test]
fn thresholds_outside_zero_to_one_numbers_not_finite_and_empty_models_are_refused() {
    let trees = |trees| Classifier::Trees { base: 0.0, trees };
    let text = Model::new(
        trees(vec![stump(1, 0.5, -1.0, 1.0)]),
        0.5,
        Provenance::default(),
    )
    .to_json();
    let err = |text: &str| Model::parse(text, "m").unwrap_err().to_string();
    assert!(Model::parse(&text, "m").is_ok());
    for (edited, says) in [
        (
            text.replace("\"threshold\":0.5,\"c", "\"threshold\":-5,\"c"),
            "threshold -5",
        ),
        (
            text.replace("\"threshold\":0.5,\"c", "\"threshold\":1e308,\"c"),
            "threshold inf",
        ),
        (
            text.replace("\"value\":1.0", "\"value\":1e39"),
            "a tree node holds inf",
        ),
        (
            text.replace("\"base\":0.0", "\"base\":-1e39"),
            "base holds -inf",
        ),
        (
            text.replace("\"version\":1", "\"version\":\"1\""),
            "version \"1\" is not a whole",
        ),
        (text.replace("\"version\":1,", ""), "no version"),
    ] {
        assert_ne!(edited, text, "{says}");
        assert!(err(&edited).contains(says), "{says}: {}", err(&edited));
    }
    let empty = Model::new(trees(Vec::new()), 0.5, Provenance::default()).to_json();
    assert!(err(&empty).contains("no trees"), "{}", err(&empty));
    let logistic = |scale: f32| {
        let width = features::count();
        Model::new(
            Classifier::Logistic {
                bias: 0.0,
                weights: vec![1.0; width],
                mean: vec![0.0; width],
                scale: vec![scale; width],
            },
            0.5,
            Provenance::default(),
        )
        .to_json()
    };
    assert!(Model::parse(&logistic(1.0), "m").is_ok());
    assert!(err(&logistic(0.0)).contains("scale 0 is not a positive number"));
}

#[test]
fn the_built_in_models_load() {
    let model = Model::built_in().unwrap();
    assert_eq!(model.features, features::names());
    let one_pass = Model::built_in_one_pass().unwrap();
    assert_eq!(one_pass.features, features::names());
    assert_ne!(one_pass, model);
}

#[test]
fn a_damaged_packed_model_is_refused() {
    let error = |bytes: &[u8]| match packed::unpack(bytes, "p") {
        Err(ModelError::NotAModel { message, .. }) => message,
        other => panic!("{} bytes read as {other:?}", bytes.len()),
    };
    let header_end = packed::MAGIC.len() + 4;
    let cuts = (0..header_end + 40)
        .chain((header_end..BUILT_IN.len()).step_by(9_973))
        .chain(BUILT_IN.len() - 40..BUILT_IN.len());
    for cut in cuts {
        let message = error(&BUILT_IN[..cut]);
        assert!(
            ["not a packed model", "cut short", "header"]
                .iter()
                .any(|expected| message.contains(expected)),
            "cut at {cut}: {message}"
        );
    }
    let mut longer = BUILT_IN.to_vec();
    longer.push(0);
    assert!(error(&longer).contains("bytes after"));
    // A tree count of four thousand million, and a node count as large: refused, not allocated.
    let header_length = u32::from_le_bytes(
        BUILT_IN[packed::MAGIC.len()..header_end]
            .try_into()
            .unwrap(),
    );
    let trees_at = header_end + header_length as usize;
    for at in [trees_at, trees_at + 4] {
        let mut damaged = BUILT_IN.to_vec();
        damaged[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(error(&damaged).contains("cut short"));
    }
}
