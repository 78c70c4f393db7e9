//! The built-in models in the binary form `build.rs` packs them into, read at start-up instead
//! of their JSON: reading a model's 38,000 tree nodes as JSON was most of a one-page run's
//! instructions (docs/MEASUREMENTS.md, "The release binary and its start-up").
//!
//! Packed bytes in, a [`Model`] out — the same model, number for number, as its JSON file
//! reads (a unit test holds them equal). The layout, all integers little-endian:
//!
//! - the line [`MAGIC`];
//! - a `u32` length, then that many bytes: the model file's JSON with `classifier.trees` empty;
//! - a `u32` count of trees, then for each tree a `u32` count of nodes and its nodes, each
//!   the `u16` feature, the `f32` threshold, the `u32` left and right children and the `f32`
//!   value ([`Node`]'s fields in order; 18 bytes).

use super::{Classifier, Model, ModelError, Node, Tree, not_a_model};

/// The first bytes of a packed model.
pub(super) const MAGIC: &[u8] = b"indexer-packed-model 1\n";

/// Reads a packed model; `name` names it in errors.
pub(super) fn unpack(bytes: &[u8], name: &str) -> Result<Model, ModelError> {
    let mut packed = Packed { bytes };
    let cut_short = || not_a_model(name, "a packed model cut short".into());
    if packed.take(MAGIC.len()) != Some(MAGIC) {
        return Err(not_a_model(name, "not a packed model".into()));
    }
    let header_length = packed.count().ok_or_else(cut_short)?;
    let header = packed.take(header_length).ok_or_else(cut_short)?;
    let mut model: Model = serde_json::from_slice(header)
        .map_err(|error| not_a_model(name, format!("a packed model's header: {error}")))?;
    let tree_count = packed.count().ok_or_else(cut_short)?;
    if let Classifier::Trees { trees, .. } = &mut model.classifier {
        // Each tree takes at least its count's bytes: a damaged count cannot ask for more
        // memory than the bytes could hold.
        trees.reserve(tree_count.min(packed.bytes.len() / 4));
        for _ in 0..tree_count {
            let node_count = packed.count().ok_or_else(cut_short)?;
            let nodes = packed
                .take(node_count.checked_mul(NODE_BYTES).ok_or_else(cut_short)?)
                .ok_or_else(cut_short)?;
            trees.push(Tree {
                nodes: nodes.chunks_exact(NODE_BYTES).map(node_of).collect(),
            });
        }
    } else if tree_count != 0 {
        return Err(not_a_model(name, "trees packed for a linear model".into()));
    }
    if !packed.bytes.is_empty() {
        return Err(not_a_model(name, "bytes after a packed model".into()));
    }
    model.checked(name)
}

/// A node's bytes.
const NODE_BYTES: usize = 18;

fn node_of(bytes: &[u8]) -> Node {
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
    Node {
        feature: u16::from_le_bytes([bytes[0], bytes[1]]),
        threshold: f32::from_bits(u32_at(2)),
        left: u32_at(6),
        right: u32_at(10),
        value: f32::from_bits(u32_at(14)),
    }
}

/// The bytes not read yet.
struct Packed<'a> {
    bytes: &'a [u8],
}

impl<'a> Packed<'a> {
    fn take(&mut self, length: usize) -> Option<&'a [u8]> {
        let (taken, rest) = self.bytes.split_at_checked(length)?;
        self.bytes = rest;
        Some(taken)
    }

    fn count(&mut self) -> Option<usize> {
        let bytes = self.take(4)?.try_into().ok()?;
        usize::try_from(u32::from_le_bytes(bytes)).ok()
    }
}
