//! Which keys of a site's model were seen in enough blocks to be template words at all: a
//! Bloom filter over them, asked before the first-cluster table when a page is decided.
//!
//! Most of a decision's lookups are for words a site holds in only a few blocks of their
//! style cluster (87 % on the docs corpus), and each such lookup in the first-cluster table
//! reads two or three cache lines of a table of up to hundreds of thousands of keys. The keys
//! in at least `min_blocks` blocks are far fewer; a filter of them, 16 bits a key, one 64-bit
//! word per key (the blocked Bloom filter of Putze, Sanders & Singler 2007 with a block of one
//! word), answers for most words from one word that the cache mostly holds. A key the filter
//! may hold is then looked up as before, so verdicts are the same with or without it.

/// Keys held in at least [`min_blocks`](Self::min_blocks) blocks, as a Bloom filter: a key it
/// does not hold was seen in fewer (no false negatives); one it holds may not have been.
#[derive(Debug)]
pub(super) struct FrequentKeys {
    min_blocks: u32,
    words: Vec<u64>,
}

/// Bits of filter per key held at least (the words are rounded up to a power of two, so up to
/// twice as many): with three bits set in one word a key, one key in about 200 to 1,000 of
/// those not held is taken for one that is.
const BITS_PER_KEY: usize = 16;

impl FrequentKeys {
    /// The filter of `keys`: each key with the blocks of its clusters together.
    pub fn of(keys: impl Iterator<Item = (u64, u32)> + Clone, min_blocks: u32) -> Self {
        let held = keys
            .clone()
            .filter(|&(_, blocks)| blocks >= min_blocks)
            .count();
        let words = (held * BITS_PER_KEY / u64::BITS as usize)
            .max(1)
            .next_power_of_two();
        let mut filter = FrequentKeys {
            min_blocks,
            words: vec![0; words],
        };
        for (key, _) in keys.filter(|&(_, blocks)| blocks >= min_blocks) {
            let (at, bits) = filter.place(key);
            filter.words[at] |= bits;
        }
        filter
    }

    /// The fewest blocks a key held was seen in.
    pub fn min_blocks(&self) -> u32 {
        self.min_blocks
    }

    /// Whether `key` may be one seen in at least [`min_blocks`](Self::min_blocks) blocks
    /// (`false`: it certainly was not).
    pub fn may_hold(&self, key: u64) -> bool {
        let (at, bits) = self.place(key);
        self.words[at] & bits == bits
    }

    pub fn heap_bytes(&self) -> usize {
        self.words.capacity() * std::mem::size_of::<u64>()
    }

    /// The word of `key` and its three bits in it.
    fn place(&self, key: u64) -> (usize, u64) {
        let mixed = mix(key);
        // `words` is a power of two long.
        let at = mixed as usize & (self.words.len() - 1);
        let bits = 1 << (mixed >> 58) | 1 << ((mixed >> 52) & 63) | 1 << ((mixed >> 46) & 63);
        (at, bits)
    }
}

/// The keys are Fx hashes, whose low bits are weak: every bit of the result depends on every
/// bit of the key (the finaliser of MurmurHash3).
fn mix(key: u64) -> u64 {
    let mut mixed = key ^ (key >> 33);
    mixed = mixed.wrapping_mul(0xff51_afd7_ed55_8ccd);
    mixed ^= mixed >> 33;
    mixed = mixed.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    mixed ^ (mixed >> 33)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(count: u64, seed: u64) -> Vec<u64> {
        (0..count)
            .map(|i| {
                (i + seed)
                    .wrapping_mul(0x9E37_79B9_7F4A_7C15)
                    .rotate_left(17)
            })
            .collect()
    }

    #[test]
    fn holds_every_frequent_key_and_few_others() {
        let frequent = keys(20_000, 1);
        let rare = keys(200_000, 1_000_000);
        let all = frequent
            .iter()
            .map(|&key| (key, 5))
            .chain(rare.iter().map(|&key| (key, 4)));
        let filter = FrequentKeys::of(all, 5);
        assert_eq!(filter.min_blocks(), 5);
        assert!(frequent.iter().all(|&key| filter.may_hold(key)));
        let taken = rare.iter().filter(|&&key| filter.may_hold(key)).count();
        // 8,192 words for 20,000 keys: about one in 800.
        assert!(taken < rare.len() / 100, "{taken} of {}", rare.len());
        assert!(
            taken > 0,
            "a filter that holds nothing has no false positives either"
        );
        assert_eq!(filter.heap_bytes(), 8_192 * 8);
    }

    #[test]
    fn an_empty_filter_holds_nothing() {
        let filter = FrequentKeys::of(keys(100, 7).into_iter().map(|key| (key, 1)), 5);
        assert!(keys(100, 7).iter().all(|&key| !filter.may_hold(key)));
        assert_eq!(filter.heap_bytes(), 8);
    }
}
