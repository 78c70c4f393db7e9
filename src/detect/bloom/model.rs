//! The per-site statistics of `bloom`: for each (block style, word), its word-feature clusters.

use std::hash::Hasher;
use std::sync::OnceLock;

use rustc_hash::{FxHashMap, FxHasher};

use super::first_clusters::{FirstCluster, FirstClusters};
use super::frequent_keys::FrequentKeys;
use super::signature::OffsetSignature;
use super::{BlockSignatures, BlockWords, TemplateWordCount, for_each_distinct_word, signature_of};
use crate::detect::site_model::{
    BadSiteModel, MIN_SAVED_COUNT, SiteModelReader, SiteModelWriter, most_frequent,
};
use crate::segment::{BlockStyle, WordId};

/// A group of similar signatures of one word within one block-style cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WordFeatureCluster {
    /// The first signature that opened the cluster; later ones join when similar to it.
    pub representative: OffsetSignature,
    /// Blocks whose signature joined the cluster.
    pub blocks: u32,
}

/// The key of one word in one block-style cluster of a site.
fn key(style: BlockStyle, word: WordId) -> u64 {
    let mut hasher = FxHasher::default();
    hasher.write_u64(style.0);
    hasher.write_u64(word.0);
    hasher.finish()
}

/// How many words ahead of its lookup a learned word's slot is fetched into the cache.
const LOOKAHEAD: usize = 16;

/// The clusters of one site. Most words have one cluster per style cluster, so the first is
/// stored in the main table and any further ones in `more`.
#[derive(Debug, Default)]
struct SiteModel {
    first: FirstClusters,
    more: FxHashMap<u64, Vec<WordFeatureCluster>>,
    /// The keys that may be template words, made when the site is first decided after it
    /// last learned a block ([`SiteModel::frequent_keys`]).
    frequent: OnceLock<FrequentKeys>,
}

impl SiteModel {
    fn heap_bytes(&self, site: &str) -> usize {
        let more = std::mem::size_of::<(u64, Vec<WordFeatureCluster>)>() + 1;
        site.len()
            + std::mem::size_of::<SiteModel>()
            + self.first.heap_bytes()
            + self.frequent.get().map_or(0, FrequentKeys::heap_bytes)
            + self.more.capacity() * more
            + self
                .more
                .values()
                .map(|clusters| clusters.capacity() * std::mem::size_of::<WordFeatureCluster>())
                .sum::<usize>()
    }

    /// The filter of the keys seen in at least `min_blocks` blocks, made on first use after
    /// the site last learned a block; `None` when it was made for another count.
    fn frequent_keys(&self, min_blocks: u32) -> Option<&FrequentKeys> {
        let frequent = self.frequent.get_or_init(|| {
            let keys = self
                .first
                .iter()
                .map(|(key, first)| (key, first.blocks.saturating_add(first.more_blocks)));
            FrequentKeys::of(keys, min_blocks)
        });
        (frequent.min_blocks() == min_blocks).then_some(frequent)
    }

    fn clusters(&self, key: u64) -> impl Iterator<Item = WordFeatureCluster> + '_ {
        self.first
            .get(key)
            .into_iter()
            .flat_map(move |first| self.clusters_from(key, first))
    }

    /// The clusters of `key`, whose first cluster is `first`.
    fn clusters_from(
        &self,
        key: u64,
        first: &FirstCluster,
    ) -> impl Iterator<Item = WordFeatureCluster> + '_ {
        let first = WordFeatureCluster {
            representative: first.representative,
            blocks: first.blocks,
        };
        std::iter::once(first).chain(self.more.get(&key).into_iter().flatten().copied())
    }

    /// Blocks in the cluster of `key` that `signature` falls into (the first similar one),
    /// or 0 when the key was seen in fewer than `min_word_frequency` blocks. The signature is
    /// made only when the key has a cluster to compare it with.
    fn cluster_blocks(
        &self,
        key: u64,
        signature: impl FnOnce() -> OffsetSignature,
        similarity: f64,
        min_word_frequency: u32,
    ) -> u32 {
        let Some(first) = self.first.get(key) else {
            return 0;
        };
        if first.blocks + first.more_blocks < min_word_frequency {
            return 0;
        }
        let signature = signature();
        if first.representative.is_similar(&signature, similarity) {
            return first.blocks;
        }
        if first.more_blocks == 0 {
            return 0;
        }
        self.more
            .get(&key)
            .into_iter()
            .flatten()
            .find(|cluster| cluster.representative.is_similar(&signature, similarity))
            .map_or(0, |cluster| cluster.blocks)
    }
}

/// Word-feature clusters of every site, keyed by site, block style and word.
#[derive(Debug, Default)]
pub struct TemplateModel {
    similarity: f64,
    sites: FxHashMap<String, SiteModel>,
    /// Distinct (style, word) keys held per site at most.
    max_site_keys: usize,
    /// Word occurrences not learned because their site was full.
    not_learned: u64,
    /// Site models let go, and the heap bytes of the largest.
    forgotten: usize,
    largest_forgotten: usize,
}

impl TemplateModel {
    /// An empty model in which signatures sharing `similarity` of their bits are similar.
    pub fn new(similarity: f64) -> Self {
        TemplateModel::with_site_cap(similarity, usize::MAX)
    }

    /// An empty model holding at most `max_site_keys` distinct (style, word) keys per site;
    /// words new to a full site are not learned (and so are judged non-template).
    pub fn with_site_cap(similarity: f64, max_site_keys: usize) -> Self {
        TemplateModel {
            similarity,
            sites: FxHashMap::default(),
            // A site's first clusters are found by 32-bit positions.
            max_site_keys: max_site_keys.min(u32::MAX as usize),
            not_learned: 0,
            forgotten: 0,
            largest_forgotten: 0,
        }
    }

    /// Word occurrences not learned because their site's model was full.
    pub fn not_learned(&self) -> u64 {
        self.not_learned
    }

    /// Sites with a model, held now or let go.
    pub fn sites(&self) -> usize {
        self.sites.len() + self.forgotten
    }

    /// Adds one block of `site`: each word's signature joins the first similar cluster of that
    /// word in the block's style cluster, or opens a new one.
    pub fn add_block(&mut self, site: &str, block: &BlockSignatures) {
        self.add_blocks(site, std::slice::from_ref(block));
    }

    /// Adds a page's blocks of `site` in order, as [`Self::add_block`] adds each.
    pub fn add_blocks(&mut self, site: &str, blocks: &[BlockSignatures]) {
        if blocks.iter().all(|block| block.words.is_empty()) {
            return;
        }
        let model = match self.sites.get_mut(site) {
            Some(model) => model,
            None => self.sites.entry(site.to_string()).or_default(),
        };
        model.frequent.take();
        let (similarity, max_site_keys) = (self.similarity, self.max_site_keys);
        let words = blocks.iter().flat_map(|block| {
            block
                .words
                .iter()
                .map(|&(word, signature)| (key(block.style, word), signature))
        });
        // A large site's table is far bigger than the cache, and most blocks hold a few
        // words: the page's words are read as one run, each word's slot fetched `LOOKAHEAD`
        // words before its lookup and its entry half as far, so that a lookup finds both
        // in the cache instead of waiting on memory twice.
        let mut slots_ahead = words.clone().skip(LOOKAHEAD);
        let mut entries_ahead = words.clone().skip(LOOKAHEAD / 2);
        for (key, signature) in words {
            if let Some((ahead, _)) = slots_ahead.next() {
                model.first.prefetch_slot(ahead);
            }
            if let Some((ahead, _)) = entries_ahead.next() {
                model.first.prefetch_entry(ahead);
            }
            if model.first.len() >= max_site_keys && !model.first.contains_key(key) {
                self.not_learned += 1;
                continue;
            }
            let opened = WordFeatureCluster {
                representative: signature,
                blocks: 1,
            };
            let first = model.first.get_or_insert(
                key,
                FirstCluster {
                    representative: signature,
                    blocks: 0,
                    more_blocks: 0,
                },
            );
            if first.representative.is_similar(&signature, similarity) {
                first.blocks += 1;
                continue;
            }
            first.more_blocks += 1;
            let more = model.more.entry(key).or_default();
            match more
                .iter_mut()
                .find(|cluster| cluster.representative.is_similar(&signature, similarity))
            {
                Some(cluster) => cluster.blocks += 1,
                None => more.push(opened),
            }
        }
    }

    /// Blocks in the cluster that `signature` of `word` falls into (the first similar one), or
    /// 0 when the word was seen in fewer than `min_word_frequency` blocks of the style cluster.
    pub fn cluster_blocks(
        &self,
        site: &str,
        style: BlockStyle,
        word: WordId,
        signature: &OffsetSignature,
        min_word_frequency: u32,
    ) -> u32 {
        self.sites.get(site).map_or(0, |model| {
            model.cluster_blocks(
                key(style, word),
                || *signature,
                self.similarity,
                min_word_frequency,
            )
        })
    }

    /// How many of a block's distinct words are template words of `site`: those whose
    /// cluster ([`Self::cluster_blocks`]) holds at least `settings.min_cluster_blocks` blocks.
    /// The site's model is looked up once per block; a word its [`FrequentKeys`] filter does
    /// not hold is not looked up further (a cluster is never larger than its key's blocks).
    pub fn count_template_words(
        &self,
        site: &str,
        words: BlockWords<'_>,
        settings: &super::BloomSettings,
    ) -> TemplateWordCount {
        let model = self.sites.get(site);
        // With no least cluster size, a word never seen is a template word too.
        let frequent = model
            .filter(|_| settings.min_cluster_blocks > 0)
            .and_then(|model| {
                model.frequent_keys(settings.min_word_frequency.max(settings.min_cluster_blocks))
            });
        let is_template = |style, word, signature: &dyn Fn() -> OffsetSignature| {
            let key = key(style, word);
            if frequent.is_some_and(|frequent| !frequent.may_hold(key)) {
                return false;
            }
            model.is_some_and(|model| {
                model.cluster_blocks(key, signature, self.similarity, settings.min_word_frequency)
                    >= settings.min_cluster_blocks
            })
        };
        let mut count = TemplateWordCount::default();
        match words {
            BlockWords::Signatures(block) => {
                for &(word, signature) in &block.words {
                    count.distinct += 1;
                    count.template += usize::from(is_template(block.style, word, &|| signature));
                }
            }
            BlockWords::Text { style, text } => {
                for_each_distinct_word(text, |word, occurrences| {
                    count.distinct += 1;
                    let signature = &|| signature_of(occurrences);
                    count.template += usize::from(is_template(style, word, signature));
                })
            }
        }
        count
    }

    /// The clusters of `word` in style cluster `style` of `site`.
    pub fn clusters(&self, site: &str, style: BlockStyle, word: WordId) -> Vec<WordFeatureCluster> {
        self.sites
            .get(site)
            .map(|model| model.clusters(key(style, word)).collect())
            .unwrap_or_default()
    }

    /// Writes what the model holds of `site` (`false` when it holds nothing): each key's
    /// clusters of at least `min_blocks` blocks (and [`MIN_SAVED_COUNT`]), for at most
    /// [`MAX_SAVED_ENTRIES`] keys (those of the most blocks).
    ///
    /// [`MAX_SAVED_ENTRIES`]: crate::detect::site_model::MAX_SAVED_ENTRIES
    pub fn save_site(&self, site: &str, min_blocks: u32, writer: &mut SiteModelWriter) -> bool {
        let Some(model) = self.sites.get(site) else {
            return false;
        };
        let min_blocks = min_blocks.max(MIN_SAVED_COUNT);
        let totals = model.first.iter().filter_map(|(key, first)| {
            let blocks = model
                .clusters_from(key, first)
                .filter(|cluster| cluster.blocks >= min_blocks)
                .map(|cluster| cluster.blocks)
                .sum::<u32>();
            (blocks > 0).then_some((key, blocks))
        });
        let keys = most_frequent(totals);
        writer.count(keys.len() as u64);
        for (key, _) in keys {
            let clusters: Vec<WordFeatureCluster> = model
                .clusters(key)
                .filter(|cluster| cluster.blocks >= min_blocks)
                .collect();
            writer.hash(key);
            writer.count(clusters.len() as u64);
            for cluster in clusters {
                let [high, low] = cluster.representative.to_words();
                writer.hash(high);
                writer.hash(low);
                writer.count(u64::from(cluster.blocks));
            }
        }
        true
    }

    /// Reads back what [`save_site`](Self::save_site) wrote of `site`, in place of anything
    /// the model holds of it.
    pub fn restore_site(
        &mut self,
        site: &str,
        reader: &mut SiteModelReader<'_>,
    ) -> Result<(), BadSiteModel> {
        let keys = reader.count()?;
        let mut model = SiteModel::default();
        for _ in 0..keys {
            let key = reader.hash()?;
            let count = reader.count()?;
            let mut clusters = Vec::new();
            for _ in 0..count {
                let words = [reader.hash()?, reader.hash()?];
                clusters.push(WordFeatureCluster {
                    representative: OffsetSignature::from_words(words),
                    blocks: reader.count32()?,
                });
            }
            let Some((first, more)) = clusters.split_first() else {
                return Err(reader.bad("a word with no clusters"));
            };
            let first = FirstCluster {
                representative: first.representative,
                blocks: first.blocks,
                more_blocks: more.iter().map(|cluster| cluster.blocks).sum(),
            };
            if !model.first.insert_new(key, first) {
                return Err(reader.bad("a word given twice"));
            }
            if !more.is_empty() {
                model.more.insert(key, more.to_vec());
            }
        }
        self.sites.insert(site.to_string(), model);
        Ok(())
    }

    /// Approximate heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.sites
            .iter()
            .map(|(site, model)| model.heap_bytes(site))
            .sum()
    }

    /// Approximate heap bytes held by the largest site's model, of those held now and those
    /// let go ([`Self::forget_site`]).
    pub fn largest_site_bytes(&self) -> usize {
        self.sites
            .iter()
            .map(|(site, model)| model.heap_bytes(site))
            .max()
            .unwrap_or(0)
            .max(self.largest_forgotten)
    }

    /// Lets go of `site`'s clusters.
    pub fn forget_site(&mut self, site: &str) {
        if let Some(model) = self.sites.remove(site) {
            self.forgotten += 1;
            self.largest_forgotten = self.largest_forgotten.max(model.heap_bytes(site));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_learned_at_once_is_learned_as_block_by_block() {
        // Words repeat across blocks and pages with signatures alike and unlike, so that
        // first clusters, further clusters and the site's cap all come into play; the words
        // ahead that are fetched into the cache belong to later blocks.
        let page = |page: u64| -> Vec<BlockSignatures> {
            (0..7u64)
                .map(|block| BlockSignatures {
                    style: BlockStyle(block % 3),
                    words: (0..(block * 5 + page) % 13)
                        .map(|w| {
                            let word = (w * 7 + block + page) % 40;
                            let offset = ((w + page) % 4) as u32 * 40;
                            (WordId(word), OffsetSignature::from_offsets(&[offset]))
                        })
                        .collect(),
                })
                .collect()
        };
        for cap in [usize::MAX, 30] {
            let (mut by_block, mut by_page) = (
                TemplateModel::with_site_cap(0.8, cap),
                TemplateModel::with_site_cap(0.8, cap),
            );
            for number in 0..9 {
                let blocks = page(number);
                for block in &blocks {
                    by_block.add_block("s", block);
                }
                by_page.add_blocks("s", &blocks);
            }
            assert_eq!(by_page.not_learned(), by_block.not_learned());
            if cap == 30 {
                assert!(by_page.not_learned() > 0, "the cap was reached");
            }
            let mut with_more = 0;
            for style in 0..3 {
                for word in 0..40 {
                    let (style, word) = (BlockStyle(style), WordId(word));
                    let clusters = by_page.clusters("s", style, word);
                    with_more += usize::from(clusters.len() > 1);
                    assert_eq!(clusters, by_block.clusters("s", style, word));
                }
            }
            assert!(with_more > 0, "some words have more than one cluster");
            let saved = |model: &TemplateModel| {
                let mut writer = SiteModelWriter::default();
                model.save_site("s", 1, &mut writer);
                writer.finish()
            };
            assert_eq!(saved(&by_page), saved(&by_block));
        }
        let mut empty = TemplateModel::new(0.8);
        empty.add_blocks("s", &[]);
        empty.add_blocks(
            "t",
            &[BlockSignatures {
                style: BlockStyle(1),
                words: Vec::new(),
            }],
        );
        assert_eq!(empty.sites(), 0, "a page of no words makes no site");
    }

    fn one_word_block(style: u64, word: &str, offsets: &[u32]) -> BlockSignatures {
        BlockSignatures {
            style: BlockStyle(style),
            words: vec![(WordId::of(word), OffsetSignature::from_offsets(offsets))],
        }
    }

    #[test]
    fn similar_signatures_share_a_cluster_and_dissimilar_ones_open_another() {
        let mut model = TemplateModel::new(0.8);
        for _ in 0..3 {
            model.add_block("s", &one_word_block(1, "w", &[2]));
        }
        model.add_block("s", &one_word_block(1, "w", &[9]));
        model.add_block("s", &one_word_block(1, "w", &[9]));
        let clusters = model.clusters("s", BlockStyle(1), WordId::of("w"));
        let counts: Vec<u32> = clusters.iter().map(|c| c.blocks).collect();
        assert_eq!(counts, [3, 2]);
        let probe = OffsetSignature::from_offsets(&[2]);
        assert_eq!(
            model.cluster_blocks("s", BlockStyle(1), WordId::of("w"), &probe, 5),
            3
        );
        // Below the word-frequency floor the word is not looked up at all.
        assert_eq!(
            model.cluster_blocks("s", BlockStyle(1), WordId::of("w"), &probe, 6),
            0
        );
        // Other sites and styles are separate.
        assert_eq!(
            model.cluster_blocks("t", BlockStyle(1), WordId::of("w"), &probe, 1),
            0
        );
        assert_eq!(
            model.cluster_blocks("s", BlockStyle(2), WordId::of("w"), &probe, 1),
            0
        );
        assert!(model.heap_bytes() > 0);
    }

    #[test]
    fn a_saved_site_reads_back_with_its_repeated_clusters() {
        let mut model = TemplateModel::new(0.8);
        for _ in 0..3 {
            model.add_block("s", &one_word_block(1, "w", &[2]));
        }
        model.add_block("s", &one_word_block(1, "w", &[9]));
        model.add_block("s", &one_word_block(1, "w", &[9]));
        model.add_block("s", &one_word_block(1, "once", &[4]));
        let mut writer = SiteModelWriter::new(1);
        assert!(model.save_site("s", 2, &mut writer));
        assert!(!model.save_site("t", 2, &mut SiteModelWriter::new(1)));
        let bytes = writer.finish();

        let mut restored = TemplateModel::new(0.8);
        let mut reader = SiteModelReader::new("s", &bytes, 1).unwrap();
        restored.restore_site("s", &mut reader).unwrap();
        reader.end().unwrap();
        let counts = |model: &TemplateModel, word: &str| -> Vec<u32> {
            model
                .clusters("s", BlockStyle(1), WordId::of(word))
                .iter()
                .map(|cluster| cluster.blocks)
                .collect()
        };
        assert_eq!(counts(&restored, "w"), [3, 2]);
        // A word of one block is not kept.
        assert_eq!(counts(&restored, "once"), Vec::<u32>::new());
        let probe = OffsetSignature::from_offsets(&[9]);
        assert_eq!(
            restored.cluster_blocks("s", BlockStyle(1), WordId::of("w"), &probe, 5),
            2
        );
        // Learning goes on from the restored counts.
        restored.add_block("s", &one_word_block(1, "w", &[2]));
        assert_eq!(counts(&restored, "w"), [4, 2]);
    }

    #[test]
    fn a_full_site_learns_no_new_words() {
        let mut model = TemplateModel::with_site_cap(0.8, 2);
        let block = |words: &[u64]| BlockSignatures {
            style: BlockStyle(1),
            words: words
                .iter()
                .map(|&w| (WordId(w), OffsetSignature::from_offsets(&[0])))
                .collect(),
        };
        model.add_block("a", &block(&[1, 2, 3]));
        model.add_block("a", &block(&[1, 2, 3]));
        model.add_block("b", &block(&[3]));
        assert_eq!(model.not_learned(), 2);
        let seen = |site: &str, word: u64| model.clusters(site, BlockStyle(1), WordId(word)).len();
        assert_eq!((seen("a", 1), seen("a", 3), seen("b", 3)), (1, 0, 1));
    }

    #[test]
    fn the_largest_site_is_measured_on_its_own() {
        let mut model = TemplateModel::new(0.8);
        assert_eq!(model.largest_site_bytes(), 0);
        let block = |words: std::ops::Range<u64>| BlockSignatures {
            style: BlockStyle(1),
            words: words
                .map(|w| (WordId(w), OffsetSignature::from_offsets(&[0])))
                .collect(),
        };
        model.add_block("small", &block(0..3));
        let small = model.heap_bytes();
        model.add_block("large", &block(0..1000));
        let large = model.largest_site_bytes();
        assert_eq!(model.heap_bytes(), small + large);
        assert!(large > 10 * small, "{large} against {small}");
    }
    #[test]
    fn the_frequent_key_filter_counts_what_the_clusters_count_and_follows_learning() {
        let settings = crate::detect::bloom::BloomSettings::default();
        let block = |words: std::ops::Range<u64>, at: u32| BlockSignatures {
            style: BlockStyle(1),
            words: words
                .map(|w| (WordId(w), OffsetSignature::from_offsets(&[at])))
                .collect(),
        };
        let mut model = TemplateModel::new(0.8);
        // Words 0..40 in every block (template), 100.. in one or two each.
        for page in 0..12u64 {
            model.add_block("s", &block(0..40, 3));
            model.add_block("s", &block(100 + page * 50..100 + page * 50 + 60, 7));
        }
        let by_clusters = |model: &TemplateModel, words: std::ops::Range<u64>, at: u32| {
            let probe = OffsetSignature::from_offsets(&[at]);
            words
                .filter(|&w| {
                    model.cluster_blocks(
                        "s",
                        BlockStyle(1),
                        WordId(w),
                        &probe,
                        settings.min_word_frequency,
                    ) >= settings.min_cluster_blocks
                })
                .count()
        };
        let counted = |model: &TemplateModel, words: std::ops::Range<u64>, at: u32| {
            model
                .count_template_words("s", BlockWords::Signatures(&block(words, at)), &settings)
                .template
        };
        for (words, at) in [(0..40, 3), (0..40, 30), (100..160, 7), (0..700, 3)] {
            assert_eq!(
                counted(&model, words.clone(), at),
                by_clusters(&model, words.clone(), at),
                "{words:?} at {at}"
            );
        }
        assert_eq!(counted(&model, 0..40, 3), 40);
        assert_eq!(counted(&model, 500..560, 7), 0);
        let filtered = model.heap_bytes();

        // Words of one block become template words once learned in enough blocks: the
        // filter made before is let go, not asked.
        for _ in 0..6 {
            model.add_block("s", &block(500..560, 7));
        }
        assert!(
            model.heap_bytes() < filtered,
            "the filter is let go when a block is learned"
        );
        assert_eq!(counted(&model, 500..560, 7), 60);
        assert_eq!(by_clusters(&model, 500..560, 7), 60);
    }
}
