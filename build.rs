//! Records the commit the binary is built from (`INDEXER_COMMIT`: `git rev-parse --short
//! HEAD`, with `-dirty` for uncommitted changes, or `unknown` outside a git checkout), for
//! `--version` and the build summary; and packs the built-in models' trees into the binary
//! form `src/detect/hybrid/model/packed.rs` reads, so that start-up does not parse their JSON.

use std::process::Command;

use serde::Deserialize;

fn git(args: &[&str]) -> Option<String> {
    let output = Command::new("git").args(args).output().ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).trim().to_string())
}

fn main() {
    for model in ["default-model", "default-one-pass-model"] {
        pack_model(model);
    }
    let commit = git(&["rev-parse", "--short=12", "HEAD"]).map_or_else(
        || "unknown".to_string(),
        |commit| {
            let dirty = git(&["status", "--porcelain", "--untracked-files=no"])
                .is_some_and(|status| !status.is_empty());
            if dirty {
                format!("{commit}-dirty")
            } else {
                commit
            }
        },
    );
    println!("cargo:rustc-env=INDEXER_COMMIT={commit}");
    if let Some(dir) = git(&["rev-parse", "--git-dir"]) {
        println!("cargo:rerun-if-changed={dir}/HEAD");
        println!("cargo:rerun-if-changed={dir}/index");
        if let Some(reference) = git(&["symbolic-ref", "-q", "HEAD"]) {
            println!("cargo:rerun-if-changed={dir}/{reference}");
        }
    }
}

/// A model file's classifier, its trees alone (what the other fields are is the library's
/// business: they go into the packed form's header as JSON).
#[derive(Deserialize)]
struct ModelTrees {
    classifier: ClassifierTrees,
}

#[derive(Deserialize)]
struct ClassifierTrees {
    #[serde(default)]
    trees: Vec<Tree>,
}

#[derive(Deserialize)]
struct Tree {
    nodes: Vec<Node>,
}

/// A tree node as the library reads it from JSON (`model::Node`: the same field types, so the
/// same numbers).
#[derive(Deserialize)]
struct Node {
    feature: u16,
    threshold: f32,
    left: u32,
    right: u32,
    value: f32,
}

/// Writes `OUT_DIR/NAME.packed` from `src/detect/hybrid/NAME.json`, in the layout
/// `src/detect/hybrid/model/packed.rs` documents: the magic line, the model's JSON without its
/// trees, then every tree's nodes as little-endian numbers.
fn pack_model(name: &str) {
    let path = format!("src/detect/hybrid/{name}.json");
    println!("cargo:rerun-if-changed={path}");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{path}: {error}"));
    let trees = serde_json::from_str::<ModelTrees>(&text)
        .unwrap_or_else(|error| panic!("{path}: {error}"))
        .classifier
        .trees;
    let mut header: serde_json::Value =
        serde_json::from_str(&text).unwrap_or_else(|error| panic!("{path}: {error}"));
    if let Some(trees) = header.pointer_mut("/classifier/trees") {
        *trees = serde_json::Value::Array(Vec::new());
    }
    let header = header.to_string();

    let mut packed = b"indexer-packed-model 1\n".to_vec();
    packed.extend(u32_of(header.len()).to_le_bytes());
    packed.extend(header.as_bytes());
    packed.extend(u32_of(trees.len()).to_le_bytes());
    for tree in &trees {
        packed.extend(u32_of(tree.nodes.len()).to_le_bytes());
        for node in &tree.nodes {
            packed.extend(node.feature.to_le_bytes());
            packed.extend(node.threshold.to_bits().to_le_bytes());
            packed.extend(node.left.to_le_bytes());
            packed.extend(node.right.to_le_bytes());
            packed.extend(node.value.to_bits().to_le_bytes());
        }
    }
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let out = std::path::Path::new(&out).join(format!("{name}.packed"));
    std::fs::write(&out, packed).unwrap_or_else(|error| panic!("{}: {error}", out.display()));
}

fn u32_of(length: usize) -> u32 {
    u32::try_from(length).expect("a built-in model under 4 GiB")
}
