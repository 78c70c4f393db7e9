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
//!
//! The position table is open addressing with linear probing, written here rather than taken
//! from `hashbrown` so that a caller can ask for a key's slot and entry to be fetched into the
//! cache ahead of the lookup ([`FirstClusters::prefetch_slot`], [`FirstClusters::prefetch_entry`]):
//! a large site's lookups miss the cache twice each, and learning a block looks up each of its
//! words in turn.

use std::hash::BuildHasher;

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
    positions: PositionTable,
}

/// Where a key's entry is, and 32 bits of the key's hash, so that growing the table and
/// passing over other keys never reads an entry.
#[derive(Debug, Clone, Copy)]
struct Position {
    at: u32,
    hash: u32,
}

impl Position {
    /// A slot that holds no position (no table holds `u32::MAX` entries).
    const EMPTY: Position = Position {
        at: u32::MAX,
        hash: 0,
    };

    fn is_empty(self) -> bool {
        self.at == u32::MAX
    }
}

/// The key's hash, 32 bits of it; its low bits pick the key's first slot.
fn hash(key: u64) -> u32 {
    (FxBuildHasher.hash_one(key) >> 32) as u32
}

/// Positions in a power-of-two number of slots, at most three quarters full; a key's
/// position is in the first slot from its hash's that holds it, before the next empty one.
#[derive(Debug, Default)]
struct PositionTable {
    slots: Vec<Position>,
    len: usize,
}

/// The fewest slots a table that holds anything has.
const MIN_SLOTS: usize = 16;

impl PositionTable {
    fn first_slot(&self, hash: u32) -> usize {
        hash as usize & (self.slots.len() - 1)
    }

    /// The position whose hash is `hash` and whose entry `is_key` accepts.
    fn find(&self, hash: u32, is_key: impl Fn(u32) -> bool) -> Option<u32> {
        if self.slots.is_empty() {
            return None;
        }
        let mask = self.slots.len() - 1;
        let mut slot = self.first_slot(hash);
        loop {
            let position = self.slots[slot];
            if position.is_empty() {
                return None;
            }
            if position.hash == hash && is_key(position.at) {
                return Some(position.at);
            }
            slot = (slot + 1) & mask;
        }
    }

    /// The first position with `hash`, whichever key it is of: a guess made without reading
    /// an entry.
    fn first_with_hash(&self, hash: u32) -> Option<u32> {
        self.find(hash, |_| true)
    }

    /// Adds a position whose key the table does not hold.
    fn insert_new(&mut self, position: Position) {
        if (self.len + 1) * 4 > self.slots.len() * 3 {
            self.grow();
        }
        self.place(position);
        self.len += 1;
    }

    fn place(&mut self, position: Position) {
        let mask = self.slots.len() - 1;
        let mut slot = self.first_slot(position.hash);
        while !self.slots[slot].is_empty() {
            slot = (slot + 1) & mask;
        }
        self.slots[slot] = position;
    }

    fn grow(&mut self) {
        let slots = (self.slots.len() * 2).max(MIN_SLOTS);
        let old = std::mem::replace(&mut self.slots, vec![Position::EMPTY; slots]);
        for position in old.into_iter().filter(|position| !position.is_empty()) {
            self.place(position);
        }
    }

    fn slot_address(&self, hash: u32) -> Option<*const Position> {
        (!self.slots.is_empty()).then(|| &self.slots[self.first_slot(hash)] as *const Position)
    }

    fn heap_bytes(&self) -> usize {
        self.slots.capacity() * std::mem::size_of::<Position>()
    }
}

/// Asks the processor to bring the cache line at `address` in, without waiting for it.
#[inline]
fn prefetch<T>(address: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint; it reads nothing into the program and cannot fault, and
    // SSE is part of every x86-64 processor.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(address.cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = address;
}

impl FirstClusters {
    pub fn len(&self) -> usize {
        self.positions.len
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
        self.positions.find(hash, |at| self.entry(at).key == key)
    }

    /// Brings the slot where a lookup of `key` starts into the cache; a lookup a few keys
    /// later then finds it there.
    pub fn prefetch_slot(&self, key: u64) {
        if let Some(address) = self.positions.slot_address(hash(key)) {
            prefetch(address);
        }
    }

    /// Brings the entry of `key` (as its slot, read now, says) into the cache; best made
    /// after [`Self::prefetch_slot`] of the key has had time to arrive.
    pub fn prefetch_entry(&self, key: u64) {
        if let Some(at) = self.positions.first_with_hash(hash(key)) {
            let at = at as usize;
            if let Some(entry) = self
                .chunks
                .get(at / CHUNK)
                .and_then(|chunk| chunk.get(at % CHUNK))
            {
                prefetch(entry as *const Entry);
            }
        }
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
        // `TemplateModel` holds at most 2^32 − 1 keys a site (its cap is clamped), so every
        // position is below `Position::EMPTY`'s.
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
        self.positions.insert_new(Position { at, hash });
        at
    }

    /// Each key with its first cluster, in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = (u64, &FirstCluster)> + Clone + '_ {
        self.chunks
            .iter()
            .flatten()
            .map(|entry| (entry.key, &entry.cluster))
    }

    /// Heap bytes held: the chunks' capacity and the position table's slots.
    pub fn heap_bytes(&self) -> usize {
        let chunks = self
            .chunks
            .iter()
            .map(|chunk| chunk.capacity() * std::mem::size_of::<Entry>())
            .sum::<usize>();
        chunks
            + self.chunks.capacity() * std::mem::size_of::<Vec<Entry>>()
            + self.positions.heap_bytes()
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

    /// A key whose 32-bit hash has low bits `slot` (of a table of `slots` slots): found by
    /// trying keys in turn.
    fn key_at_slot(slot: usize, slots: usize, after: u64) -> u64 {
        (after..)
            .find(|&key| hash(key) as usize & (slots - 1) == slot)
            .expect("a key")
    }

    #[test]
    fn keys_of_one_slot_probe_on_and_wrap_around_the_table() {
        let mut table = FirstClusters::default();
        // Fill past the first growth with keys that all start at the table's last slot,
        // whatever its size, so that probes wrap around to the first slots.
        let slots = MIN_SLOTS * 4;
        let mut keys = Vec::new();
        let mut after = 0;
        for _ in 0..30 {
            let key = key_at_slot(slots - 1, slots, after);
            after = key + 1;
            keys.push(key);
        }
        for (i, &key) in keys.iter().enumerate() {
            table.prefetch_slot(key);
            table.prefetch_entry(key);
            assert!(table.insert_new(key, cluster(i as u32)));
        }
        assert_eq!(table.positions.slots.len(), slots, "grown to 64 slots");
        for (i, &key) in keys.iter().enumerate() {
            table.prefetch_entry(key);
            assert_eq!(table.get(key).map(|found| found.blocks), Some(i as u32));
        }
        // A key missing from a run of one start slot is told apart by its key, not its slot.
        let missing = key_at_slot(slots - 1, slots, after);
        assert!(!table.contains_key(missing));
        assert!(table.positions.len * 4 <= table.positions.slots.len() * 3);
    }

    #[test]
    fn an_empty_table_finds_nothing_and_fetches_nothing() {
        let table = FirstClusters::default();
        table.prefetch_slot(3);
        table.prefetch_entry(3);
        assert!(table.get(3).is_none());
        assert_eq!(table.heap_bytes(), 0);
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
