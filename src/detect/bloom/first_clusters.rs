//! A site's first word-feature clusters, keyed by (block style, word): the largest table a
//! two-pass build holds (python311 of the docs corpus has more than 450,000 keys).
//!
//! A hash map of the entries themselves doubles its buckets, so just after it grows it is
//! 44 % full (75 bytes a key) and, while it grows, holds the old buckets beside the new. Here
//! the entries live in chunks that never move, filled in order, and the hash table holds only
//! their positions with 32 bits of their hash (8 bytes): 41 to 53 bytes a key, and a growth
//! moves positions, not entries, without reading the entries.
//! (`indexmap` has this shape, but its entries carry their hash, its positions are 8 bytes and
//! its one vector of entries doubles and moves as it grows: by layout, no smaller than the map.)

use std::hash::BuildHasher;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

use super::signature::OffsetSignature;

/// A key's first cluster, and how many blocks its other clusters hold (so that a lookup
/// needs the others only when a signature is unlike the first).
#[derive(Debug, Clone, Copy)]
pub(super) struct FirstCluster {
    pub representative: OffsetSignature,
    pub blocks: u32,
    pub more_blocks: u32,
}

#[derive(Debug, Clone, Copy)]
struct Entry {
    key: u64,
    cluster: FirstCluster,
}

/// Entries per chunk after the first (128 KiB of entries); the first chunk grows up to it.
const CHUNK: usize = 4096;

/// First clusters by key, in insertion order.
#[derive(Debug, Default)]
pub(super) struct FirstClusters {
    chunks: Vec<Vec<Entry>>,
    positions: HashTable<Position>,
}

/// Where a key's entry is, and 32 bits of the key's hash, so that growing the table and
/// passing over other keys never reads an entry.
#[derive(Debug, Clone, Copy)]
struct Position {
    at: u32,
    hash: u32,
}

/// The key's hash, 32 bits of it: the table's hashes are those bits twice over, so that its
/// buckets (the low bits) and its tags (the top seven) both come from them.
fn hash(key: u64) -> u32 {
    (FxBuildHasher.hash_one(key) >> 32) as u32
}

fn table_hash(hash: u32) -> u64 {
    u64::from(hash) << 32 | u64::from(hash)
}

impl FirstClusters {
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    fn entry(&self, at: u32) -> &Entry {
        let at = at as usize;
        &self.chunks[at / CHUNK][at % CHUNK]
    }

    fn entry_mut(&mut self, at: u32) -> &mut Entry {
        let at = at as usize;
        &mut self.chunks[at / CHUNK][at % CHUNK]
    }

    fn position(&self, key: u64, hash: u32) -> Option<u32> {
        self.positions
            .find(table_hash(hash), |position| {
                position.hash == hash && self.entry(position.at).key == key
            })
            .map(|position| position.at)
    }

    pub fn get(&self, key: u64) -> Option<&FirstCluster> {
        self.position(key, hash(key))
            .map(|at| &self.entry(at).cluster)
    }

    pub fn contains_key(&self, key: u64) -> bool {
        self.position(key, hash(key)).is_some()
    }

    /// The cluster of `key`, inserted as `opened` when the key is new.
    pub fn get_or_insert(&mut self, key: u64, opened: FirstCluster) -> &mut FirstCluster {
        let hash = hash(key);
        let at = match self.position(key, hash) {
            Some(at) => at,
            None => self.push(key, hash, opened),
        };
        &mut self.entry_mut(at).cluster
    }

    /// Inserts `cluster` for `key` unless the key is held already (then `false`).
    pub fn insert_new(&mut self, key: u64, cluster: FirstCluster) -> bool {
        let hash = hash(key);
        if self.position(key, hash).is_some() {
            return false;
        }
        self.push(key, hash, cluster);
        true
    }

    fn push(&mut self, key: u64, hash: u32, cluster: FirstCluster) -> u32 {
        let position = self.len();
        // `TemplateModel` holds fewer than 2^32 keys a site (its cap is clamped).
        debug_assert!(position < u32::MAX as usize);
        let at = position as u32;
        if position.is_multiple_of(CHUNK) {
            let capacity = if position == 0 { 8 } else { CHUNK };
            self.chunks.push(Vec::with_capacity(capacity));
        }
        let chunk = self.chunks.last_mut().expect("a chunk was just ensured");
        if chunk.len() == chunk.capacity() {
            // Only the first chunk starts small; it doubles up to a whole chunk.
            chunk.reserve_exact(chunk.len().min(CHUNK - chunk.len()));
        }
        chunk.push(Entry { key, cluster });
        self.positions
            .insert_unique(table_hash(hash), Position { at, hash }, |position| {
                table_hash(position.hash)
            });
        at
    }

    /// Each key with its first cluster, in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = (u64, &FirstCluster)> + Clone + '_ {
        self.chunks
            .iter()
            .flatten()
            .map(|entry| (entry.key, &entry.cluster))
    }

    /// Heap bytes held: the chunks' capacity and the position table's buckets.
    pub fn heap_bytes(&self) -> usize {
        let chunks = self
            .chunks
            .iter()
            .map(|chunk| chunk.capacity() * std::mem::size_of::<Entry>())
            .sum::<usize>();
        let buckets = if self.positions.capacity() == 0 {
            0
        } else {
            // hashbrown keeps 7 of every 8 buckets full at most.
            (self.positions.capacity() * 8 / 7).next_power_of_two()
        };
        chunks
            + self.chunks.capacity() * std::mem::size_of::<Vec<Entry>>()
            + buckets * (std::mem::size_of::<Position>() + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cluster(blocks: u32) -> FirstCluster {
        FirstCluster {
            representative: OffsetSignature::from_offsets(&[blocks]),
            blocks,
            more_blocks: 0,
        }
    }

    #[test]
    fn holds_keys_across_chunks_in_insertion_order() {
        let mut table = FirstClusters::default();
        let keys: Vec<u64> = (0..3 * CHUNK as u64 + 5)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .collect();
        for (i, &key) in keys.iter().enumerate() {
            assert!(table.insert_new(key, cluster(i as u32)));
        }
        assert!(!table.insert_new(keys[0], cluster(0)), "a key is held once");
        assert_eq!(table.len(), keys.len());
        assert_eq!(table.iter().map(|(key, _)| key).collect::<Vec<_>>(), keys);
        for (i, &key) in keys.iter().enumerate() {
            assert_eq!(table.get(key).map(|found| found.blocks), Some(i as u32));
        }
        assert!(table.get(1).is_none());
        assert!(!table.contains_key(1));
        // Every chunk after the first is filled whole before the next opens.
        assert_eq!(table.chunks.len(), 4);
        assert!(table.chunks[..3].iter().all(|chunk| chunk.len() == CHUNK));
    }

    #[test]
    fn get_or_insert_inserts_once_and_then_updates() {
        let mut table = FirstClusters::default();
        table.get_or_insert(7, cluster(0)).blocks += 1;
        table.get_or_insert(7, cluster(0)).blocks += 1;
        table.get_or_insert(9, cluster(0)).more_blocks += 3;
        assert_eq!(table.len(), 2);
        assert_eq!(table.get(7).map(|found| found.blocks), Some(2));
        assert_eq!(table.get(9).map(|found| found.more_blocks), Some(3));
    }

    #[test]
    fn heap_bytes_grow_with_the_entries() {
        let mut table = FirstClusters::default();
        assert_eq!(table.heap_bytes(), 0);
        for key in 0..10_000 {
            assert!(table.insert_new(key, cluster(1)));
        }
        let entries = 10_000 * std::mem::size_of::<Entry>();
        assert!(table.heap_bytes() >= entries);
        // Three chunks of entries and a position table, well under a map's 75 bytes a key.
        assert!(table.heap_bytes() < 10_000 * 60, "{}", table.heap_bytes());
    }
}
