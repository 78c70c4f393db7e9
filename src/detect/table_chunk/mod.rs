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

use super::{Counter, Detector, Flag, PageSource, Passes, Rule, Verdict, url_directory};
use crate::segment::{Granularity, SegmentOptions, SegmentedPage, stable_hash_bytes};

/// How many of the cluster's pages hold the chunk; dropped at or above the threshold.
pub const CHUNK_DOCUMENT_FREQUENCY: Rule = Rule::new(8, "chunk_document_frequency");

named_choices! {
    /// How pages are grouped before chunks are counted.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
    #[serde(rename_all = "kebab-case")]
    pub enum Cluster {
        /// All pages of a site.
        Site = "site",
        /// Pages whose URL directories match once digits are ignored (`/2009/05/a.html` and
        /// `/2010/11/b.html` group together).
        UrlPattern = "url-pattern",
        /// Pages of a site grouped by their block styles and URL pattern, as the paper clusters
        /// pages first.
        Structure = "structure",
    }
}

/// How alike a page must be to a cluster's first page to join it ([`Cluster::Structure`]).
pub const STRUCTURE_LIKENESS: f64 = 0.5;

/// Clusters per site at most under [`Cluster::Structure`]; past it a page joins the most
/// alike.
const MAX_CLUSTERS_PER_SITE: usize = 64;

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
    /// The page's cluster, or under [`Cluster::Structure`] its site.
    cluster: u64,
    chunks: Vec<u64>,
    /// [`Cluster::Structure`] only: the page's URL (hashed), URL pattern (hashed) and block
    /// styles (sorted, distinct).
    structure: Option<(u64, u64, Vec<u64>)>,
}

/// A structure cluster: its id and its first page's URL pattern and block styles.
#[derive(Debug, Clone)]
struct StructureCluster {
    id: u64,
    pattern: u64,
    styles: Vec<u64>,
}

/// The Jaccard similarity of two sorted, distinct lists.
fn jaccard(a: &[u64], b: &[u64]) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let (mut i, mut j, mut common) = (0, 0, 0usize);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    common as f64 / (a.len() + b.len() - common) as f64
}

/// The `table-chunk` detector.
#[derive(Debug, Default)]
pub struct TableChunk {
    settings: TableChunkSettings,
    /// Per cluster: pages counted for each chunk key.
    clusters: FxHashMap<u64, FxHashMap<u64, u32>>,
    /// Chunks not counted because their cluster was full.
    uncounted: u64,
    /// [`Cluster::Structure`]: each site's clusters.
    structure_clusters: FxHashMap<u64, Vec<StructureCluster>>,
    /// [`Cluster::Structure`]: each page's cluster, by URL hash.
    page_clusters: FxHashMap<u64, u64>,
}

impl TableChunk {
    /// The cluster `page` belongs to.
    fn cluster_of(&self, page: &SegmentedPage) -> u64 {
        match self.settings.cluster {
            Cluster::Site | Cluster::Structure => stable_hash_bytes(page.site.as_bytes()),
            Cluster::UrlPattern => stable_hash_bytes(url_pattern(&page.url).as_bytes()),
        }
    }

    /// The cluster a page's chunks count in, assigning it under [`Cluster::Structure`].
    fn join_cluster(&mut self, observation: &PageChunks) -> u64 {
        let Some((url, pattern, styles)) = &observation.structure else {
            return observation.cluster;
        };
        if let Some(&known) = self.page_clusters.get(url) {
            return known;
        }
        let clusters = self
            .structure_clusters
            .entry(observation.cluster)
            .or_default();
        let likeness = |cluster: &StructureCluster| {
            0.7 * jaccard(styles, &cluster.styles)
                + if cluster.pattern == *pattern {
                    0.3
                } else {
                    0.0
                }
        };
        let best = clusters
            .iter()
            .map(|cluster| (likeness(cluster), cluster.id))
            .fold(None, |best: Option<(f64, u64)>, (score, id)| match best {
                Some((top, _)) if top >= score => best,
                _ => Some((score, id)),
            });
        let id = match best {
            Some((score, id)) if score >= STRUCTURE_LIKENESS => id,
            Some((_, id)) if clusters.len() >= MAX_CLUSTERS_PER_SITE => id,
            _ => {
                let mut hasher = FxHasher::default();
                hasher.write_u64(observation.cluster);
                hasher.write_usize(clusters.len());
                let id = hasher.finish();
                clusters.push(StructureCluster {
                    id,
                    pattern: *pattern,
                    styles: styles.clone(),
                });
                id
            }
        };
        self.page_clusters.insert(*url, id);
        id
    }

    /// The cluster `observation`'s chunks were counted in.
    fn counted_cluster(&self, observation: &PageChunks) -> u64 {
        match &observation.structure {
            Some((url, _, _)) => self
                .page_clusters
                .get(url)
                .copied()
                .unwrap_or(observation.cluster),
            None => observation.cluster,
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
    const RULES: &'static [Rule] = &[CHUNK_DOCUMENT_FREQUENCY];
    // Measured 0.005 (table tags) and 0.03 (layout tags) on the docs corpus.
    const STATE_PER_HTML_BYTE: f64 = 0.05;

    type Settings = TableChunkSettings;

    fn flags() -> Vec<Flag<TableChunkSettings>> {
        vec![
            Flag::count(
                "table-chunk-min-documents",
                "A chunk on at least this many pages of its cluster is template.",
                0,
                |s| &mut s.min_documents,
            ),
            Flag::choice("table-chunk-cluster", "How pages are clustered.", |s| {
                &mut s.cluster
            }),
            Flag::switch(
                "table-chunk-layout-tags",
                "Cut chunks at layout elements (div, p, lists…) as well as table elements.",
                |s| s.layout_tags = true,
            ),
            Flag::switch(
                "table-chunk-key-by-path",
                "Count chunks by element position and attributes as well as text.",
                |s| s.key_by_path = true,
            ),
            Flag::switch(
                "table-chunk-ignore-alt",
                "Leave images' ALT text out (the paper counts it as text).",
                |s| s.image_alt = false,
            ),
        ]
    }
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
        let structure = (self.settings.cluster == Cluster::Structure).then(|| {
            let mut styles: Vec<u64> = page.blocks.iter().map(|block| block.style.0).collect();
            styles.sort_unstable();
            styles.dedup();
            (
                stable_hash_bytes(page.url.as_bytes()),
                stable_hash_bytes(url_pattern(&page.url).as_bytes()),
                styles,
            )
        });
        PageChunks {
            cluster: self.cluster_of(page),
            chunks,
            structure,
        }
    }

    fn learn(&mut self, observation: &PageChunks) {
        let limit = self.settings.max_chunks_per_cluster as usize;
        let cluster = self.join_cluster(observation);
        let counts = self.clusters.entry(cluster).or_default();
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
        let cluster = self.counted_cluster(observation);
        observation
            .chunks
            .iter()
            .map(|&chunk| {
                let frequency = self.document_frequency(cluster, chunk);
                Verdict::scored(
                    frequency < self.settings.min_documents,
                    CHUNK_DOCUMENT_FREQUENCY,
                    frequency as f32,
                    self.settings.min_documents as f32,
                )
            })
            .collect()
    }

    fn observation_bytes(&self, observation: &PageChunks) -> usize {
        std::mem::size_of::<PageChunks>()
            + observation.chunks.capacity() * 8
            + observation
                .structure
                .as_ref()
                .map_or(0, |(_, _, styles)| styles.capacity() * 8)
    }

    fn state_bytes(&self) -> usize {
        // A hash map entry of (u64, u32) with its control byte, padded.
        let structure: usize = self
            .structure_clusters
            .values()
            .flatten()
            .map(|cluster| 48 + cluster.styles.capacity() * 8)
            .sum::<usize>()
            + self.page_clusters.capacity() * 17;
        self.clusters
            .values()
            .map(|chunks| 64 + chunks.capacity() * 17)
            .sum::<usize>()
            + structure
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
    fn structure_clusters_group_pages_by_layout_and_url() {
        let settings = TableChunkSettings {
            cluster: Cluster::Structure,
            layout_tags: true,
            ..TableChunkSettings::default()
        };
        let mut detector = TableChunk::new(settings);
        // Four articles with one layout, four listing pages with another: the footer is on
        // all eight, the article nav only on the articles.
        let article = |i: usize| {
            format!(
                "<body><div class=nav>Home News</div><div class=story><p>Story {i}</p></div>\
                 <div class=foot>Copyright ACME</div></body>"
            )
        };
        let listing = |i: usize| {
            format!(
                "<body><ul class=list><li>Item {i}</li><li>More {i}</li></ul><table><tr><td>Cell {i}</td></tr></table>\
                 <div class=foot>Copyright ACME</div></body>"
            )
        };
        let mut pages = Vec::new();
        for i in 0..4 {
            pages.push(page_of(
                &detector,
                &format!("http://a.example/story/{i}.html"),
                &article(i),
            ));
            pages.push(page_of(
                &detector,
                &format!("http://a.example/list/{i}.html"),
                &listing(i),
            ));
        }
        let observations: Vec<_> = pages
            .iter()
            .map(|page| detector.observe(page, ""))
            .collect();
        for observation in &observations {
            detector.learn(observation);
        }
        assert_eq!(counter(&detector.counters(), "clusters"), 2);
        // In the articles' cluster the nav and footer are on 4 pages: template.
        let keep = detector.keeps(&pages[0], &observations[0], &NoPages);
        assert_eq!(keep, [false, true, false]);
        assert!((jaccard(&[1, 2, 3], &[2, 3, 4]) - 0.5).abs() < 1e-12);
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
