//! `incremental`: one-pass template detection with a text-segment table, after Wang, Fang,
//! Cheng, Guo & Xu, "Incremental Web Page Template Detection" (WWW 2008).
//!
//! A *text segment* is a text node, identified by its text and its DOM path; a *block* is a
//! layout block of several segments. Each site has a segment table holding, for each
//! segment, its document frequency (pages it was on) and the page it was last seen on, with
//! the site's page count as the clock. Every page is decided as soon as it arrives, in the
//! paper's steps:
//!
//! 1. the page's segments count in the table (expansion: the page counts toward its own
//!    segments' frequencies before it is judged; [`IncrementalSettings::count_page_first`]);
//! 2. a segment whose document frequency is at least [`IncrementalSettings::min_frequency`]
//!    is template;
//! 3. a block whose template share of text (by bytes) exceeds
//!    [`IncrementalSettings::drop_ratio`] is dropped;
//! 4. segments unseen for longer than their lifetime are evicted (shrinkage): a segment
//!    of frequency `df` lives `Tb·N / (1 + (N−1)·e^−(df−1))` pages, from `Tb` for a segment
//!    seen once up to `Tb·N` for a frequent one — a logistic curve, so that one-off text
//!    leaves soon and the template stays, and the table's size stays bounded.

use std::hash::Hasher;

use rustc_hash::{FxHashMap, FxHashSet, FxHasher};

use super::site_model::{
    BadSiteModel, MIN_SAVED_COUNT, SiteModelReader, SiteModelWriter, most_frequent,
};
use super::{Counter, Detector, Flag, PageSource, Passes, Rule, Verdict};
use crate::segment::{SegmentedPage, stable_hash_bytes};

/// The share of the block's text segments seen on at least the minimum number of the site's
/// pages; dropped above the threshold.
pub const FREQUENT_SEGMENT_SHARE: Rule = Rule::new(5, "frequent_segment_share");

/// The settings of `incremental`.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct IncrementalSettings {
    /// A segment on at least this many pages is template (the paper: 5).
    pub min_frequency: u32,
    /// A block whose template share of text exceeds this is dropped (the paper: 0.7).
    pub drop_ratio: f64,
    /// `Tb`: pages a segment seen once survives unseen.
    pub base_lifetime: u32,
    /// `N`: how many times longer than `Tb` a frequent segment survives unseen.
    pub lifetime_factor: f64,
    /// Segments held per site at most; beyond it the least frequent are evicted early.
    pub max_segments_per_site: u32,
    /// Count a page toward its own segments' frequencies before judging it, as the paper's
    /// steps do (expansion, then detection). Off: judge first, then count (our earlier order,
    /// which keeps the template of one more page per site).
    #[serde(default = "yes")]
    pub count_page_first: bool,
    /// Shrink after every page, as the paper does; off (chosen), every `Tb/2` pages, for a
    /// fraction of the sweeps (docs/MEASUREMENTS.md, the papers' variants and options).
    #[serde(default)]
    pub shrink_every_page: bool,
}

fn yes() -> bool {
    true
}

impl Default for IncrementalSettings {
    fn default() -> Self {
        IncrementalSettings {
            min_frequency: 5,
            drop_ratio: 0.7,
            base_lifetime: 100,
            lifetime_factor: 10.0,
            max_segments_per_site: 200_000,
            count_page_first: true,
            shrink_every_page: false,
        }
    }
}

impl IncrementalSettings {
    /// Pages a segment of frequency `df` survives unseen.
    pub fn lifetime(&self, df: u32) -> f64 {
        let n = self.lifetime_factor.max(1.0);
        let tb = f64::from(self.base_lifetime);
        tb * n / (1.0 + (n - 1.0) * (-(f64::from(df.max(1)) - 1.0)).exp())
    }
}

/// One page's segments: per block, each segment's key and length in bytes.
#[derive(Debug, Clone)]
pub struct PageSegments {
    site: u64,
    blocks: Vec<Vec<(u64, u32)>>,
}

/// Every site's segment table: for each key (a segment, or whatever the caller counts), the
/// pages it was on and the page it was last seen on, with the site's page count as the
/// clock; shrunk as [`IncrementalSettings::lifetime`] says. `incremental` counts text
/// segments in it; `hybrid` under `--one-pass` counts segments, block texts and styles.
#[derive(Debug, Default)]
pub struct SegmentTables {
    sites: FxHashMap<u64, SiteTable>,
    peak: u64,
    evicted: u64,
    /// Keys held over all sites (kept as a running count: summing over sites on every
    /// page would cost as much as the sites).
    held: u64,
}

#[derive(Debug, Clone, Copy)]
struct SegmentEntry {
    frequency: u32,
    last_seen: u32,
}

#[derive(Debug, Default)]
struct SiteTable {
    /// Pages of the site seen so far: the clock.
    clock: u32,
    segments: FxHashMap<u64, SegmentEntry>,
}

impl SegmentTables {
    /// Keys held now, over all sites.
    pub fn held(&self) -> u64 {
        self.held
    }

    /// The most keys held at once.
    pub fn peak(&self) -> u64 {
        self.peak
    }

    /// Keys evicted by shrinkage so far.
    pub fn evicted(&self) -> u64 {
        self.evicted
    }

    /// Pages of `site` learned.
    pub fn pages(&self, site: u64) -> u32 {
        self.sites.get(&site).map_or(0, |table| table.clock)
    }

    /// Pages of `site` that held `key`, among those still remembered.
    pub fn frequency(&self, site: u64, key: u64) -> u32 {
        self.sites
            .get(&site)
            .and_then(|table| table.segments.get(&key))
            .map_or(0, |entry| entry.frequency)
    }

    /// One more page of `site`, holding `keys` (repeats count once): expansion, then
    /// shrinkage every `Tb/2` pages of the site or whenever the site's cap is passed.
    pub fn learn(
        &mut self,
        settings: &IncrementalSettings,
        site: u64,
        keys: impl IntoIterator<Item = u64>,
    ) {
        let table = self.sites.entry(site).or_default();
        table.clock += 1;
        let now = table.clock;
        let mut seen = FxHashSet::default();
        let before = table.segments.len();
        for key in keys {
            if !seen.insert(key) {
                continue;
            }
            let entry = table.segments.entry(key).or_insert(SegmentEntry {
                frequency: 0,
                last_seen: now,
            });
            entry.frequency = entry.frequency.saturating_add(1);
            entry.last_seen = now;
        }
        // No key outlives its lifetime by more than Tb/2 pages (or by any, shrinking after
        // every page).
        let sweep_every = if settings.shrink_every_page {
            1
        } else {
            (settings.base_lifetime / 2).max(1)
        };
        if now.is_multiple_of(sweep_every)
            || table.segments.len() > settings.max_segments_per_site as usize
        {
            self.evicted += Self::shrink(settings, table);
        }
        self.held = (self.held + table.segments.len() as u64).saturating_sub(before as u64);
        self.peak = self.peak.max(self.held);
    }

    /// Approximate bytes held, from the running count (hash tables run between half and
    /// fully loaded): asked every few hundred pages, this must not walk every site.
    /// Writes the table of `site` (`false` when there is none): its clock, and the segments
    /// seen on at least [`MIN_SAVED_COUNT`] pages — at most [`MAX_SAVED_ENTRIES`], the most
    /// frequent — each with its frequency and how many pages ago it was last seen.
    ///
    /// [`MAX_SAVED_ENTRIES`]: crate::detect::site_model::MAX_SAVED_ENTRIES
    pub fn save_site(&self, site: u64, writer: &mut SiteModelWriter) -> bool {
        let Some(table) = self.sites.get(&site) else {
            return false;
        };
        writer.count(u64::from(table.clock));
        let saved = most_frequent(
            table
                .segments
                .iter()
                .map(|(&key, entry)| (key, entry.frequency))
                .filter(|&(_, frequency)| frequency >= MIN_SAVED_COUNT),
        );
        writer.count(saved.len() as u64);
        for (key, frequency) in saved {
            let age = table
                .segments
                .get(&key)
                .map_or(0, |entry| table.clock - entry.last_seen);
            writer.hash(key);
            writer.count(u64::from(frequency));
            writer.count(u64::from(age));
        }
        true
    }

    /// Reads back what [`save_site`](Self::save_site) wrote of `site`, in place of its table.
    pub fn restore_site(
        &mut self,
        site: u64,
        reader: &mut SiteModelReader<'_>,
    ) -> Result<(), BadSiteModel> {
        let clock = reader.count32()?;
        let entries = reader.count()?;
        let mut table = SiteTable {
            clock,
            segments: FxHashMap::default(),
        };
        for _ in 0..entries {
            let key = reader.hash()?;
            let frequency = reader.count32()?;
            let age = reader.count32()?;
            if age > clock {
                return Err(reader.bad(format!("a segment seen {age} pages before page 1")));
            }
            table.segments.insert(
                key,
                SegmentEntry {
                    frequency,
                    last_seen: clock - age,
                },
            );
        }
        let before = self.sites.get(&site).map_or(0, |old| old.segments.len());
        self.held = (self.held + table.segments.len() as u64).saturating_sub(before as u64);
        self.peak = self.peak.max(self.held);
        self.sites.insert(site, table);
        Ok(())
    }

    pub fn state_bytes(&self) -> usize {
        self.sites.len() * 64 + self.held as usize * 17 * 3 / 2
    }

    /// Evicts the keys of `table` whose lifetime has passed; if the table is still over its
    /// cap, the least frequent (oldest first) go too.
    fn shrink(settings: &IncrementalSettings, table: &mut SiteTable) -> u64 {
        let now = table.clock;
        let before = table.segments.len();
        table.segments.retain(|_, entry| {
            f64::from(now - entry.last_seen) <= settings.lifetime(entry.frequency)
        });
        let cap = settings.max_segments_per_site as usize;
        if table.segments.len() > cap {
            let mut ranked: Vec<(u32, u32, u64)> = table
                .segments
                .iter()
                .map(|(&key, entry)| (entry.frequency, entry.last_seen, key))
                .collect();
            ranked.sort_unstable();
            let excess = table.segments.len() - cap;
            for &(_, _, key) in &ranked[..excess] {
                table.segments.remove(&key);
            }
        }
        (before - table.segments.len()) as u64
    }
}

/// The text segments of `page`: per block, each text node's key (its DOM path and trimmed
/// text) and length in bytes.
pub fn block_segments(page: &SegmentedPage) -> Vec<Vec<(u64, u32)>> {
    page.blocks
        .iter()
        .map(|block| {
            let mut start = 0usize;
            block
                .runs
                .iter()
                .filter_map(|run| {
                    let end = (run.end as usize).min(block.text.len());
                    let text = block.text.get(start..end).unwrap_or_default().trim();
                    start = end;
                    if text.is_empty() {
                        return None;
                    }
                    let mut hasher = FxHasher::default();
                    hasher.write_u64(run.path);
                    hasher.write(text.as_bytes());
                    Some((hasher.finish(), text.len() as u32))
                })
                .collect()
        })
        .collect()
}

/// The share of `segments`' bytes (key, length) that `is_template` says are template; 0
/// for a block without text.
pub fn template_share(segments: &[(u64, u32)], is_template: impl Fn(u64) -> bool) -> f64 {
    let total: u64 = segments.iter().map(|&(_, len)| u64::from(len)).sum();
    if total == 0 {
        return 0.0;
    }
    let template: u64 = segments
        .iter()
        .filter(|&&(segment, _)| is_template(segment))
        .map(|&(_, len)| u64::from(len))
        .sum();
    template as f64 / total as f64
}

/// The layout version of `incremental`'s site models.
const SITE_MODEL_LAYOUT: u8 = 1;

/// The `incremental` detector.
#[derive(Debug, Default)]
pub struct Incremental {
    settings: IncrementalSettings,
    tables: SegmentTables,
}

impl Incremental {
    /// Segments held now, over all sites.
    pub fn segments(&self) -> usize {
        self.tables.held() as usize
    }
}

impl Detector for Incremental {
    const NAME: &'static str = "incremental";
    const ABOUT: &'static str =
        "Wang, Fang, Cheng, Guo & Xu (2008): one pass, a text-segment table with shrinkage";
    const PASSES: Passes = Passes::One;
    const RULES: &'static [Rule] = &[FREQUENT_SEGMENT_SHARE];
    // A little above the share measured on docs (docs/MEASUREMENTS.md, "Constants and the
    // figures behind them").
    const STATE_PER_HTML_BYTE: f64 = 0.15;

    type Settings = IncrementalSettings;

    fn flags() -> Vec<Flag<IncrementalSettings>> {
        vec![
            Flag::count(
                "incremental-min-frequency",
                "A text segment on at least this many pages is template.",
                0,
                |s| &mut s.min_frequency,
            ),
            Flag::share(
                "incremental-drop-ratio",
                "A block whose template share of text exceeds this is dropped.",
                |s| &mut s.drop_ratio,
            ),
            Flag::count(
                "incremental-base-lifetime",
                "Tb, pages a segment seen once survives unseen.",
                1,
                |s| &mut s.base_lifetime,
            ),
            Flag::number(
                "incremental-lifetime-factor",
                "N, how many times Tb a frequent segment survives unseen.",
                1.0,
                |s| &mut s.lifetime_factor,
            ),
            Flag::count(
                "incremental-max-segments",
                "Text segments held per site at most.",
                0,
                |s| &mut s.max_segments_per_site,
            ),
            Flag::switch(
                "incremental-judge-first",
                "Judge a page before counting it in its segments' frequencies (our earlier \
                 order; the paper counts it first).",
                |s| s.count_page_first = false,
            ),
            Flag::switch(
                "incremental-shrink-every-page",
                "Shrink the table after every page, as the paper does (default: every Tb/2 \
                 pages, measured the same).",
                |s| s.shrink_every_page = true,
            ),
        ]
    }
    type Observation = PageSegments;

    /// A detector with `settings` and empty tables.
    fn new(settings: IncrementalSettings) -> Self {
        Incremental {
            settings,
            ..Incremental::default()
        }
    }

    fn observe(&self, page: &SegmentedPage, _html: &str) -> PageSegments {
        PageSegments {
            site: stable_hash_bytes(page.site.as_bytes()),
            blocks: block_segments(page),
        }
    }

    fn learn(&mut self, observation: &PageSegments) {
        let keys = observation
            .blocks
            .iter()
            .flatten()
            .map(|&(segment, _)| segment);
        self.tables.learn(&self.settings, observation.site, keys);
    }

    fn decide(
        &self,
        _page: &SegmentedPage,
        observation: &PageSegments,
        _pages: &dyn PageSource,
    ) -> Vec<Verdict> {
        observation
            .blocks
            .iter()
            .map(|segments| {
                let this_page = u32::from(self.settings.count_page_first);
                let share = template_share(segments, |segment| {
                    self.tables.frequency(observation.site, segment) + this_page
                        >= self.settings.min_frequency
                });
                Verdict::scored(
                    share <= self.settings.drop_ratio,
                    FREQUENT_SEGMENT_SHARE,
                    share as f32,
                    self.settings.drop_ratio as f32,
                )
            })
            .collect()
    }

    fn observation_bytes(&self, observation: &PageSegments) -> usize {
        std::mem::size_of::<PageSegments>()
            + observation
                .blocks
                .iter()
                .map(|b| 24 + b.capacity() * 16)
                .sum::<usize>()
    }

    fn save_site(&self, site: &str) -> Option<Vec<u8>> {
        let mut writer = SiteModelWriter::new(SITE_MODEL_LAYOUT);
        self.tables
            .save_site(stable_hash_bytes(site.as_bytes()), &mut writer)
            .then(|| writer.finish())
    }

    fn restore_site(&mut self, site: &str, saved: &[u8]) -> Result<(), BadSiteModel> {
        let mut reader = SiteModelReader::new(site, saved, SITE_MODEL_LAYOUT)?;
        self.tables
            .restore_site(stable_hash_bytes(site.as_bytes()), &mut reader)?;
        reader.end()
    }

    fn state_bytes(&self) -> usize {
        self.tables.state_bytes()
    }

    fn settings(&self) -> serde_json::Value {
        serde_json::to_value(self.settings).unwrap_or_default()
    }

    fn counters(&self) -> Vec<Counter> {
        vec![
            Counter::sum("segments", self.segments() as u64),
            Counter::max("segments_peak", self.tables.peak()),
            Counter::sum("segments_evicted", self.tables.evicted()),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::{NoPages, counter, test_page};

    fn page(i: usize) -> SegmentedPage {
        let html = format!(
            "<body><div id=nav><a href=/>Home</a> <a href=/n>News</a> <a href=/c>Contact us</a></div>\
             <div id=main><p>Story number {i} is here</p></div></body>"
        );
        test_page(&format!("http://a.example/{i}"), &html, Default::default())
    }

    /// Decides then learns, one page at a time; returns each page's decisions.
    fn run(detector: &mut Incremental, pages: &[SegmentedPage]) -> Vec<Vec<bool>> {
        pages
            .iter()
            .map(|page| {
                let observation = detector.observe(page, "");
                let keep = detector.keeps(page, &observation, &NoPages);
                detector.learn(&observation);
                keep
            })
            .collect()
    }

    #[test]
    fn segments_are_text_nodes_keyed_by_text_and_path() {
        let detector = Incremental::default();
        let observation = detector.observe(&page(1), "");
        // The nav block holds three links' text nodes (spaces between them are not segments).
        assert_eq!(observation.blocks[0].len(), 3);
        let moved = test_page(
            "http://a.example/x",
            "<body><div id=main><p>Home</p></div><div id=nav><a href=/>Home</a></div></body>",
            Default::default(),
        );
        let moved = detector.observe(&moved, "");
        assert_ne!(moved.blocks[0][0].0, moved.blocks[1][0].0);
    }

    #[test]
    fn a_block_is_dropped_once_its_segments_reach_the_frequency() {
        let mut detector = Incremental::new(IncrementalSettings::default());
        let pages: Vec<_> = (0..7).map(page).collect();
        let decisions = run(&mut detector, &pages);
        // The paper's order: a page counts toward its own segments first, so the fifth page
        // sees the nav on 5 pages (4 earlier and itself).
        for keep in &decisions[..4] {
            assert_eq!(keep, &[true, true]);
        }
        assert_eq!(decisions[4], [false, true]);
        assert_eq!(decisions[6], [false, true]);
        // Judged first (our earlier order), the fifth page still keeps it.
        let mut judge_first = Incremental::new(IncrementalSettings {
            count_page_first: false,
            ..IncrementalSettings::default()
        });
        let decisions = run(&mut judge_first, &pages);
        assert_eq!(decisions[4], [true, true]);
        assert_eq!(decisions[5], [false, true]);
    }

    #[test]
    fn shrinking_after_every_page_evicts_as_soon_as_a_lifetime_ends() {
        let settings = IncrementalSettings {
            base_lifetime: 10,
            shrink_every_page: true,
            ..IncrementalSettings::default()
        };
        let mut detector = Incremental::new(settings);
        let pages: Vec<_> = (0..40).map(page).collect();
        run(&mut detector, &pages);
        // The nav (3 segments) and the stories of the last 11 pages (lifetime 10, unseen).
        assert_eq!(detector.segments(), 3 + 11);
    }

    #[test]
    fn the_block_ratio_must_exceed_the_threshold() {
        // Template text "aaaaaaa" (7 bytes) beside new text "bbb" (3 bytes): 0.7, kept.
        let mut detector = Incremental::new(IncrementalSettings::default());
        let pages: Vec<_> = (0..6)
            .map(|i| {
                let new = ["bbb", "ccc", "ddd", "eee", "fff", "ggg"][i];
                test_page(
                    &format!("http://a.example/{i}"),
                    &format!("<div><b>aaaaaaa</b><i>{new}</i></div>"),
                    Default::default(),
                )
            })
            .collect();
        let decisions = run(&mut detector, &pages);
        assert_eq!(decisions[4], [true]);
        let mut stricter = Incremental::new(IncrementalSettings {
            drop_ratio: 0.69,
            ..IncrementalSettings::default()
        });
        assert_eq!(run(&mut stricter, &pages)[4], [false]);
    }

    #[test]
    fn lifetime_is_logistic_in_frequency() {
        let settings = IncrementalSettings {
            base_lifetime: 100,
            lifetime_factor: 10.0,
            ..IncrementalSettings::default()
        };
        assert!((settings.lifetime(1) - 100.0).abs() < 1e-9);
        // df = 2: 1000 / (1 + 9/e) = 232.0…
        assert!((settings.lifetime(2) - 1000.0 / (1.0 + 9.0 / std::f64::consts::E)).abs() < 1e-9);
        assert!(settings.lifetime(30) > 999.0 && settings.lifetime(30) <= 1000.0);
    }

    #[test]
    fn shrinkage_evicts_old_segments_and_bounds_the_table() {
        let settings = IncrementalSettings {
            base_lifetime: 10,
            ..IncrementalSettings::default()
        };
        let mut detector = Incremental::new(settings);
        let pages: Vec<_> = (0..200).map(page).collect();
        run(&mut detector, &pages);
        // Three nav segments and the story segments of at most the last ~Tb+sweep pages.
        let held = detector.segments();
        assert!(held <= 3 + 15, "{held}");
        assert!(counter(&detector.counters(), "segments_evicted") >= 180);
        // The frequent nav segments survive.
        let observation = detector.observe(&pages[0], "");
        assert!(!detector.keeps(&pages[0], &observation, &NoPages)[0]);

        let capped = IncrementalSettings {
            max_segments_per_site: 50,
            base_lifetime: 1_000_000,
            ..IncrementalSettings::default()
        };
        let mut detector = Incremental::new(capped);
        run(&mut detector, &pages);
        assert!(detector.segments() <= 50);
    }
}
