//! Offset signatures: where a word falls in a block, folded into 128 bits.

/// Bits per lane of a signature.
pub const LANE_BITS: usize = 32;
/// Lanes per signature.
pub const LANES: usize = 4;

/// A 128-bit Bloom-like summary of a word's difference-offset sequence in one block.
///
/// With the word at offsets `p1 < p2 < … < pk` in its block, the difference-offset sequence is
/// `p1, p2 − p1, …, pk − pk−1`. The sequence is cut into four equal parts (element `j` of `k`
/// goes to part `⌊4j / k⌋`), and each element `d` sets bit `d mod 32` of its part's 32-bit
/// lane.
///
/// Stored as two `u64` words (lane `i` is bits `32i..32i+32` of the 128), so that comparing
/// two signatures is two ANDs and a few population counts, and a signature packs into tables
/// with 8-byte alignment.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OffsetSignature([u64; 2]);

impl OffsetSignature {
    /// The signature of a word found at `offsets` (ascending) in a block.
    pub fn from_offsets(offsets: &[u32]) -> Self {
        Self::from_offset_iter(offsets.iter().copied(), offsets.len())
    }

    /// The signature of a word found at the `count` ascending `offsets`.
    pub fn from_offset_iter(offsets: impl Iterator<Item = u32>, count: usize) -> Self {
        let mut words = [0u64; 2];
        let mut previous = 0;
        for (j, offset) in offsets.enumerate() {
            let difference = offset.saturating_sub(previous);
            previous = offset;
            let bit = (j * LANES / count.max(1)) * LANE_BITS + difference as usize % LANE_BITS;
            words[bit / 64] |= 1 << (bit % 64);
        }
        OffsetSignature(words)
    }

    /// The signature's 128 bits, as two words (for a saved site model).
    pub fn to_words(self) -> [u64; 2] {
        self.0
    }

    /// A signature from the words [`to_words`](Self::to_words) gave.
    pub fn from_words(words: [u64; 2]) -> Self {
        OffsetSignature(words)
    }

    /// Set bits.
    pub fn count_ones(&self) -> u32 {
        self.0[0].count_ones() + self.0[1].count_ones()
    }

    /// Bits set in both.
    pub fn shared_ones(&self, other: &OffsetSignature) -> u32 {
        (self.0[0] & other.0[0]).count_ones() + (self.0[1] & other.0[1]).count_ones()
    }

    /// Whether the two signatures share at least `min_share` of their set bits: the bits set
    /// in both are at least `min_share` times the set bits of *each* signature, that is of the
    /// larger one. With the default 0.8, 4 shared bits of 5 are similar; 3 of 4 are not.
    pub fn is_similar(&self, other: &OffsetSignature, min_share: f64) -> bool {
        let larger = self.count_ones().max(other.count_ones());
        larger > 0 && f64::from(self.shared_ones(other)) >= min_share * f64::from(larger)
    }

    /// The four lanes, for display and tests.
    pub fn lanes(&self) -> [u32; LANES] {
        std::array::from_fn(|lane| (self.0[lane / 2] >> (lane % 2 * LANE_BITS)) as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_occurrence_sets_one_bit_of_the_first_lane() {
        assert_eq!(
            OffsetSignature::from_offsets(&[3]).lanes(),
            [1 << 3, 0, 0, 0]
        );
        assert_eq!(
            OffsetSignature::from_offsets(&[35]).lanes(),
            [1 << 3, 0, 0, 0]
        );
    }

    #[test]
    fn differences_are_folded_into_four_parts() {
        // Offsets 1, 4, 6, 10 → differences 1, 3, 2, 4, one per lane.
        let signature = OffsetSignature::from_offsets(&[1, 4, 6, 10]);
        assert_eq!(signature.lanes(), [1 << 1, 1 << 3, 1 << 2, 1 << 4]);
        // Eight offsets, two per lane: 0,2 | 4,6 | 8,40 | 41,42 → 0,2 | 2,2 | 2,32→0 | 1,1.
        let signature = OffsetSignature::from_offsets(&[0, 2, 4, 6, 8, 40, 41, 42]);
        assert_eq!(signature.lanes(), [0b101, 0b100, 0b101, 0b10]);
        // Two offsets go to lanes 0 and 2.
        assert_eq!(
            OffsetSignature::from_offsets(&[5, 7]).lanes(),
            [1 << 5, 0, 1 << 2, 0]
        );
    }

    fn with_bits(bits: &[usize]) -> OffsetSignature {
        let all = bits.iter().fold(0u128, |all, &bit| all | 1u128 << bit);
        OffsetSignature([all as u64, (all >> 64) as u64])
    }

    #[test]
    fn similarity_at_exactly_eighty_percent() {
        let five = with_bits(&[0, 1, 2, 3, 4]);
        let four_of_five = with_bits(&[0, 1, 2, 3, 40]);
        assert_eq!(five.shared_ones(&four_of_five), 4);
        assert!(five.is_similar(&four_of_five, 0.8));
        assert!(four_of_five.is_similar(&five, 0.8));

        let four = with_bits(&[0, 1, 2, 3]);
        let three_of_four = with_bits(&[0, 1, 2, 100]);
        assert!(!four.is_similar(&three_of_four, 0.8));

        // A subset is judged against the larger signature: 4 of 5 passes, 4 of 6 does not.
        assert!(four.is_similar(&five, 0.8));
        assert!(!four.is_similar(&with_bits(&[0, 1, 2, 3, 4, 5]), 0.8));
        assert!(five.is_similar(&five, 1.0));
    }
}
