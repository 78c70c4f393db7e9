//! `table-chunk`: template detection by the document frequency of text chunks, after Ma,
//! Goharian & Chowdhury, "Extracting unstructured data from template generated web documents"
//! (CIKM 2003).
//!
//! A *chunk* is the text between two table tags (`table`, `caption`, `thead`, `tbody`,
//! `tfoot`, `tr`, `td`, `th`, start or end), and optionally between layout tags too: the
//! segmenter cuts blocks there ([`Granularity::Table`]). Pages are grouped into clusters (the
//! site, or pages of one URL pattern); a chunk counts once per page, and a chunk found on at
//! least [`TableChunkSettings::min_documents`] pages of its cluster is template.
//!
//! Two passes: every page is counted first, then every page decided.

use std::hash::Hasher;

use rustc_hash::{FxHashMap, FxHashSet, FxHasher};

use super::{Choice, Counter, Detector, PageSource, Passes, Rule, Verdict, url_directory};
use crate::segment::{Granularity, SegmentOptions, SegmentedPage, stable_hash_bytes};

/// How pages are grouped before chunks are counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Cluster {
    /// All pages of a site.
    Site,
    /// Pages whose URL directories match once digits are ignored
    /// (`/2009/05/a.html` and `/2010/11/b.html` group together).
    UrlPattern,
}

impl Choice for Cluster {
    const ALL: &'static [Self] = &[Cluster::Site, Cluster::UrlPattern];

    fn name(self) -> &'static str {
        match self {
            Cluster::Site => "site",
            Cluster::UrlPattern => "url-pattern",
        }
    }

    fn about(self) -> &'static str {
        match self {
            Cluster::Site => "All pages of a site",
            Cluster::UrlPattern => {
                "Pages whose URL directories match once digits are ignored (`/2009/05/a.html` and `/2010/11/b.html` group together)"
            }
        }
    }
}

/// The settings of `table-chunk`.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TableChunkSettings {
    /// A chunk on at least this many pages of its cluster is template: 4, the paper's
    /// experiments ("lower … from 4 to 3", its Fig. 4).
    pub min_documents: u32,
    /// How pages are clustered.
    pub cluster: Cluster,
    /// Cut chunks at layout elements (div, p, lists, …) as well as at table elements.
    pub layout_tags: bool,
    /// Count a chunk with its element's position and attributes, not by text alone, so that
    /// the same words in two places are two chunks (the paper's suggested refinement).
    pub key_by_path: bool,
    /// Count an image's ALT text as text, as the paper does (placeholder names left out).
    #[serde(default = "yes")]
    pub image_alt: bool,
    /// Distinct chunks counted per cluster at most; later new chunks are not counted (and so
    /// are kept). Bounds the state of one cluster.
    pub max_chunks_per_cluster: u32,
}

impl Default for TableChunkSettings {
    fn default() -> Self {
        TableChunkSettings {
            min_documents: 4,
            cluster: Cluster::Site,
            layout_tags: false,
            key_by_path: false,
            image_alt: true,
            max_chunks_per_cluster: 1 << 20,
        }
    }
}

fn yes() -> bool {
    true
}

/// One page's chunks, by key, in block order.
#[derive(Debug, Clone)]
pub struct PageChunks {
    cluster: u64,
    chunks: Vec<u64>,
}

/// The `table-chunk` detector.
#[derive(Debug, Default)]
pub struct TableChunk {
    settings: TableChunkSettings,
    /// Per cluster: pages counted for each chunk key.
    clusters: FxHashMap<u64, FxHashMap<u64, u32>>,
    /// Chunks not counted because their cluster was full.
    uncounted: u64,
}

impl TableChunk {
    /// The cluster `page` belongs to.
    fn cluster_of(&self, page: &SegmentedPage) -> u64 {
        match self.settings.cluster {
            Cluster::Site => stable_hash_bytes(page.site.as_bytes()),
            Cluster::UrlPattern => stable_hash_bytes(url_pattern(&page.url).as_bytes()),
        }
    }

    /// Pages of `cluster` counted with `chunk`.
    pub fn document_frequency(&self, cluster: u64, chunk: u64) -> u32 {
        self.clusters
            .get(&cluster)
            .and_then(|chunks| chunks.get(&chunk))
            .copied()
            .unwrap_or(0)
    }
}

/// A URL's directory with every run of digits replaced by `#`.
pub fn url_pattern(url: &str) -> String {
    let (directory, _) = url_directory(url);
    // Digits fold in the path only: hosts such as www1 and www2 are different sites.
    let path_start = directory.find("://").map_or(0, |at| at + 3);
    let path_start = directory[path_start..]
        .find('/')
        .map_or(directory.len(), |slash| path_start + slash);
    let mut pattern = directory[..path_start].to_string();
    let mut in_digits = false;
    for c in directory[path_start..].chars() {
        if c.is_ascii_digit() {
            if !in_digits {
                pattern.push('#');
            }
            in_digits = true;
        } else {
            pattern.push(c);
            in_digits = false;
        }
    }
    pattern
}

impl Detector for TableChunk {
    const NAME: &'static str = "table-chunk";
    const ABOUT: &'static str =
        "Ma, Goharian & Chowdhury (2003): frequent text chunks between table tags";
    const PASSES: Passes = Passes::Two;
    // Measured 0.005 (table tags) and 0.03 (layout tags) on the docs corpus.
    const STATE_PER_HTML_BYTE: f64 = 0.05;

    type Settings = TableChunkSettings;
    type Observation = PageChunks;

    /// A detector with `settings` and nothing counted.
    fn new(settings: TableChunkSettings) -> Self {
        TableChunk {
            settings,
            ..TableChunk::default()
        }
    }

    fn segment_options(&self) -> SegmentOptions {
        SegmentOptions {
            granularity: Granularity::Table {
                with_layout: self.settings.layout_tags,
            },
            image_alt: self.settings.image_alt,
            ..SegmentOptions::default()
        }
    }

    fn observe(&self, page: &SegmentedPage, _html: &str) -> PageChunks {
        let chunks = page
            .blocks
            .iter()
            .map(|block| {
                let mut hasher = FxHasher::default();
                if self.settings.key_by_path {
                    hasher.write_u64(block.style.0);
                }
                hasher.write(block.text.as_bytes());
                hasher.finish()
            })
            .collect();
        PageChunks {
            cluster: self.cluster_of(page),
            chunks,
        }
    }

    fn learn(&mut self, observation: &PageChunks) {
        let limit = self.settings.max_chunks_per_cluster as usize;
        let counts = self.clusters.entry(observation.cluster).or_default();
        let mut seen = FxHashSet::default();
        for &chunk in &observation.chunks {
            if !seen.insert(chunk) {
                continue;
            }
            if let Some(count) = counts.get_mut(&chunk) {
                *count += 1;
            } else if counts.len() < limit {
                counts.insert(chunk, 1);
            } else {
                self.uncounted += 1;
            }
        }
    }

    fn decide(
        &self,
        _page: &SegmentedPage,
        observation: &PageChunks,
        _pages: &dyn PageSource,
    ) -> Vec<Verdict> {
        observation
            .chunks
            .iter()
            .map(|&chunk| {
                let frequency = self.document_frequency(observation.cluster, chunk);
                Verdict::scored(
                    frequency < self.settings.min_documents,
                    Rule::ChunkDocumentFrequency,
                    frequency as f32,
                    self.settings.min_documents as f32,
                )
            })
            .collect()
    }

    fn observation_bytes(&self, observation: &PageChunks) -> usize {
        std::mem::size_of::<PageChunks>() + observation.chunks.capacity() * 8
    }

    fn state_bytes(&self) -> usize {
        // A hash map entry of (u64, u32) with its control byte, padded.
        self.clusters
            .values()
            .map(|chunks| 64 + chunks.capacity() * 17)
            .sum()
    }

    fn settings(&self) -> serde_json::Value {
        serde_json::to_value(self.settings).unwrap_or_default()
    }

    fn counters(&self) -> Vec<Counter> {
        vec![
            Counter::sum("clusters", self.clusters.len() as u64),
            Counter::sum(
                "chunks",
                self.clusters.values().map(|c| c.len() as u64).sum(),
            ),
            Counter::sum("chunks_not_counted", self.uncounted),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::{NoPages, counter, test_page};

    fn page_of(detector: &TableChunk, url: &str, html: &str) -> SegmentedPage {
        test_page(url, html, detector.segment_options())
    }

    fn html(i: usize) -> String {
        format!(
            "<body><table><tr><td>Home | News | Contact</td><td>Story {i} text <b>bold</b></td></tr>\
             </table>after table {i}<div>Copyright ACME</div></body>"
        )
    }

    #[test]
    fn chunks_are_cut_at_table_tags_only() {
        let detector = TableChunk::new(TableChunkSettings::default());
        let page = page_of(&detector, "http://a.example/1", &html(1));
        let texts: Vec<_> = page.blocks.iter().map(|b| b.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "Home | News | Contact",
                "Story 1 text bold",
                "after table 1 Copyright ACME"
            ]
        );
        let with_layout = TableChunk::new(TableChunkSettings {
            layout_tags: true,
            ..TableChunkSettings::default()
        });
        let page = page_of(&with_layout, "http://a.example/1", &html(1));
        let texts: Vec<_> = page.blocks.iter().map(|b| b.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "Home | News | Contact",
                "Story 1 text bold",
                "after table 1",
                "Copyright ACME"
            ]
        );
    }

    #[test]
    fn a_chunk_is_template_from_the_threshold_on() {
        let settings = TableChunkSettings {
            layout_tags: true,
            ..TableChunkSettings::default()
        };
        for (pages, template) in [(3, false), (4, true)] {
            let mut detector = TableChunk::new(settings);
            let pages: Vec<_> = (0..pages)
                .map(|i| page_of(&detector, &format!("http://a.example/{i}"), &html(i)))
                .collect();
            for page in &pages {
                let observation = detector.observe(page, "");
                detector.learn(&observation);
            }
            let keep = detector.keeps(&pages[0], &detector.observe(&pages[0], ""), &NoPages);
            assert_eq!(keep, [!template, true, true, !template], "{pages:?}");
        }
    }

    #[test]
    fn a_chunk_counts_once_per_page() {
        let mut detector = TableChunk::new(TableChunkSettings::default());
        let repeated = "<table><tr><td>x</td><td>x</td><td>x</td><td>x</td><td>x</td></tr></table>";
        let page = page_of(&detector, "http://a.example/", repeated);
        assert_eq!(page.blocks.len(), 5);
        let observation = detector.observe(&page, "");
        detector.learn(&observation);
        assert_eq!(
            detector.document_frequency(observation.cluster, observation.chunks[0]),
            1
        );
        assert!(
            detector
                .keeps(&page, &observation, &NoPages)
                .iter()
                .all(|&k| k)
        );
    }

    #[test]
    fn clusters_follow_the_setting() {
        assert_eq!(
            url_pattern("http://n.example/2009/05/story-1.html"),
            url_pattern("http://n.example/2010/11/other.html")
        );
        assert_ne!(
            url_pattern("http://n.example/sport/a.html"),
            url_pattern("http://n.example/news/a.html")
        );
        assert_ne!(
            url_pattern("http://10.0.0.1/a"),
            url_pattern("http://10.0.0.2/a")
        );
        let mut detector = TableChunk::new(TableChunkSettings {
            cluster: Cluster::UrlPattern,
            ..TableChunkSettings::default()
        });
        for i in 0..5 {
            let page = page_of(&detector, &format!("http://a.example/s{i}/p"), &html(i));
            let observation = detector.observe(&page, "");
            detector.learn(&observation);
        }
        // s0/ … s4/ fold into one pattern, s#/; other/ is a cluster of its own.
        let page = page_of(&detector, "http://a.example/s9/p", &html(9));
        let keep = detector.keeps(&page, &detector.observe(&page, ""), &NoPages);
        assert!(!keep[0]);
        let other = page_of(&detector, "http://a.example/other/p", &html(9));
        let keep = detector.keeps(&other, &detector.observe(&other, ""), &NoPages);
        assert!(keep[0]);
    }

    #[test]
    fn a_full_cluster_counts_no_new_chunks() {
        let mut detector = TableChunk::new(TableChunkSettings {
            max_chunks_per_cluster: 2,
            ..TableChunkSettings::default()
        });
        let page = page_of(&detector, "http://a.example/", &html(1));
        let observation = detector.observe(&page, "");
        detector.learn(&observation);
        assert_eq!(counter(&detector.counters(), "chunks"), 2);
        assert_eq!(counter(&detector.counters(), "chunks_not_counted"), 1);
    }
}
