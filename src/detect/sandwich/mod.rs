//! `sandwich`: template removal by comparison with a peer page, after Rowlands, Thomas & Wan,
//! "Web Indexing on a Diet: Template Removal with the Sandwich Algorithm" (ADCS 2009).
//!
//! No HTML parsing takes part in detection. A page's source is cut into *units* — its lines
//! ([`Unit::Line`]), or, for pages whose markup sits on a few long lines, its HTML tokens: tags
//! and the text between them ([`Unit::Token`], the paper's footnote variant). The page is
//! compared with one *peer* of its directory (same URL up to the last `/`), chosen by one of
//! the paper's two rules:
//!
//! - on an existing crawl (two passes, the default): of *all* the directory's pages, the one
//!   whose file name is closest by edit distance. The first pass learns the names; the second
//!   reads the peer again from the input;
//! - during a crawl (`--one-pass`): the page crawled last from the directory
//!   ([`OnePassPeer::LastCrawled`]), or, our earlier variant, the closest name among the
//!   directory's recent pages ([`OnePassPeer::ClosestRecent`]).
//!
//! Units in a longest common subsequence of the two pages are template; the rest is kept. A
//! page without a peer keeps everything.
//!
//! The subsequence is found with Myers' difference algorithm in linear space ([`lcs`]), whose
//! cost grows with the number of differences, not with the product of the page lengths.
//!
//! Blocks are text nodes (cut at line breaks in line mode), so each block lies in the units
//! it came from; a block is dropped when every unit it overlaps is template.

pub mod lcs;

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use rustc_hash::{FxHashMap, FxHashSet};

use super::{Counter, Detector, Flag, PageSource, Passes, Rule, Verdict, url_directory};
use crate::segment::{Granularity, SegmentOptions, SegmentedPage, stable_hash_bytes};

/// The share of the block's units also found, in order, in the peer page; dropped when all
/// are (at the threshold 1).
pub const SHARED_WITH_PEER: Rule = Rule::new(6, "shared_with_peer");
/// The page had no peer in its directory, so every block is kept.
pub const NO_PEER: Rule = Rule::new(7, "no_peer");

named_choices! {
    /// What a page is compared in.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
    #[serde(rename_all = "kebab-case")]
    pub enum Unit {
        /// Physical lines of the HTML source, leading and trailing whitespace ignored.
        Line = "line",
        /// HTML tokens: each tag, comment and run of text between tags.
        Token = "token",
    }
}

named_choices! {
    /// How a one-pass run picks a page's peer.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
    #[serde(rename_all = "kebab-case")]
    pub enum OnePassPeer {
        /// The page crawled last from the directory (the paper's rule during a crawl).
        LastCrawled = "last-crawled",
        /// The closest name by edit distance among the directory's recent pages
        /// (`peers_per_directory` of them; our earlier variant).
        ClosestRecent = "closest-recent",
    }
}

/// The settings of `sandwich`.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SandwichSettings {
    /// Lines or tokens.
    pub unit: Unit,
    /// The peer rule of a one-pass run (two passes compare with the closest name of all the
    /// directory's pages).
    #[serde(default = "last_crawled")]
    pub one_pass_peer: OnePassPeer,
    /// Differences the subsequence search may explore per sub-problem before it gives up
    /// on that part (treating it as not shared): bounds the work on very different pages.
    pub max_cost: u32,
    /// Pages remembered per directory as peers under [`OnePassPeer::ClosestRecent`].
    pub peers_per_directory: u32,
    /// Units of one page compared, at most; the rest is kept.
    pub max_units: u32,
}

fn last_crawled() -> OnePassPeer {
    OnePassPeer::LastCrawled
}

impl Default for SandwichSettings {
    fn default() -> Self {
        SandwichSettings {
            unit: Unit::Line,
            one_pass_peer: OnePassPeer::LastCrawled,
            max_cost: 10_000,
            peers_per_directory: 64,
            max_units: 200_000,
        }
    }
}

/// One page cut into units.
#[derive(Debug, Clone)]
pub struct PageUnits {
    url: String,
    directory: String,
    name: String,
    units: Vec<u64>,
    /// Byte range of each unit in the source.
    spans: Vec<(u32, u32)>,
}

struct Peer {
    name: String,
    units: Vec<u64>,
}

/// The `sandwich` detector.
pub struct Sandwich {
    settings: SandwichSettings,
    /// Two passes: every page's name and URL, by directory, in input order.
    names: Option<FxHashMap<String, Vec<(String, String)>>>,
    /// Two passes: peers' units read again, by URL.
    peer_units: Mutex<FxHashMap<String, Arc<Vec<u64>>>>,
    /// One pass: the directories' recent pages.
    directories: FxHashMap<String, VecDeque<Peer>>,
    /// Bytes held by `directories`, kept as a running total.
    held_bytes: usize,
    with_peer: AtomicU64,
    without_peer: AtomicU64,
    gave_up: AtomicU64,
}

/// Peers' units cached at once in a two-pass run, at most.
const CACHED_PEERS: usize = 1024;

impl Sandwich {
    /// Two passes: the page of `directory`, other than `name`, whose name is closest to it
    /// (the first in input order of equally close ones): its URL.
    fn closest_of_all<'a>(&'a self, directory: &str, name: &str) -> Option<&'a str> {
        let pages = self.names.as_ref()?.get(directory)?;
        let mut best: Option<(usize, &str)> = None;
        for (other, url) in pages.iter().filter(|(other, _)| other != name) {
            let cap = best.map_or(usize::MAX, |(distance, _)| distance);
            let distance = lcs::edit_distance(name, other, cap);
            if best.is_none_or(|(closest, _)| distance < closest) {
                best = Some((distance, url));
            }
        }
        best.map(|(_, url)| url)
    }

    /// Two passes: the units of the page at `url`, read again (or from the cache).
    fn units_of_peer(&self, url: &str, pages: &dyn PageSource) -> Option<Arc<Vec<u64>>> {
        let cached = self
            .peer_units
            .lock()
            .ok()
            .and_then(|cache| cache.get(url).cloned());
        if let Some(units) = cached {
            return Some(units);
        }
        let html = pages.load_html(url)?;
        let units =
            Arc::new(units_of(&html, self.settings.unit, self.settings.max_units as usize).0);
        if let Ok(mut cache) = self.peer_units.lock() {
            if cache.len() >= CACHED_PEERS {
                cache.clear();
            }
            cache.insert(url.to_string(), Arc::clone(&units));
        }
        Some(units)
    }

    /// One pass: the remembered page of `directory` whose name is closest to `name` (the most
    /// recent of equally close ones).
    fn peer(&self, directory: &str, name: &str) -> Option<&Peer> {
        let peers = self.directories.get(directory)?;
        let mut best: Option<(usize, &Peer)> = None;
        // A page's own earlier copy (the same URL crawled twice) is no peer: it shares
        // everything.
        for peer in peers.iter().rev().filter(|peer| peer.name != name) {
            let cap = best.map_or(usize::MAX, |(distance, _)| distance);
            let distance = lcs::edit_distance(name, &peer.name, cap);
            if best.is_none_or(|(closest, _)| distance < closest) {
                best = Some((distance, peer));
            }
        }
        best.map(|(_, peer)| peer)
    }
}

/// Cuts `html` into units: their hashes and byte ranges, at most `max` of them.
pub fn units_of(html: &str, unit: Unit, max: usize) -> (Vec<u64>, Vec<(u32, u32)>) {
    let mut hashes = Vec::new();
    let mut spans = Vec::new();
    let mut push = |start: usize, piece: &str| {
        let trimmed = piece.trim();
        if trimmed.is_empty() || hashes.len() >= max {
            return;
        }
        hashes.push(stable_hash_bytes(trimmed.as_bytes()));
        spans.push((start as u32, (start + piece.len()) as u32));
    };
    match unit {
        Unit::Line => {
            let mut start = 0;
            for line in html.split_inclusive('\n') {
                push(start, line);
                start += line.len();
            }
        }
        Unit::Token => {
            let bytes = html.as_bytes();
            let starts_tag = |at: usize| {
                bytes[at] == b'<'
                    && bytes
                        .get(at + 1)
                        .is_some_and(|&c| c.is_ascii_alphabetic() || b"/!?".contains(&c))
            };
            let mut at = 0;
            while at < bytes.len() {
                let end = if starts_tag(at) {
                    let close: &[u8] = if html[at..].starts_with("<!--") {
                        b"-->"
                    } else {
                        b">"
                    };
                    find(bytes, at + 1, close).map_or(bytes.len(), |found| found + close.len())
                } else {
                    let mut next = at + 1;
                    while next < bytes.len() && !starts_tag(next) {
                        next += 1;
                    }
                    next
                };
                // Token boundaries fall on ASCII bytes, so they are char boundaries.
                push(at, &html[at..end]);
                at = end;
            }
        }
    }
    (hashes, spans)
}

/// Which units of `page` are in a longest common subsequence with `peer`.
pub struct SharedUnits {
    /// Per unit of the page.
    pub in_page: Vec<bool>,
    /// Whether the subsequence is exact (no comparison was cut at `max_cost`).
    pub exact: bool,
}

/// The units of `page` in a longest common subsequence with `peer`. Units that occur in only
/// one of the two can never be matched, so they are set aside before the search (as GNU diff
/// does): the search then only pays for differences among the units the pages share.
pub fn shared_units(page: &[u64], peer: &[u64], max_cost: usize) -> SharedUnits {
    let in_peer: FxHashSet<u64> = peer.iter().copied().collect();
    let (positions, page_common): (Vec<usize>, Vec<u64>) = page
        .iter()
        .enumerate()
        .filter(|(_, unit)| in_peer.contains(unit))
        .map(|(at, &unit)| (at, unit))
        .unzip();
    let in_page_set: FxHashSet<u64> = page_common.iter().copied().collect();
    let peer_common: Vec<u64> = peer
        .iter()
        .copied()
        .filter(|unit| in_page_set.contains(unit))
        .collect();
    let found = lcs::common_subsequence(&page_common, &peer_common, max_cost);
    let mut in_page = vec![false; page.len()];
    for (&at, &matched) in positions.iter().zip(&found.in_a) {
        in_page[at] = matched;
    }
    SharedUnits {
        in_page,
        exact: found.exact,
    }
}

fn find(haystack: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    haystack
        .get(from..)?
        .windows(needle.len())
        .position(|window| window == needle)
        .map(|at| at + from)
}

impl Detector for Sandwich {
    const NAME: &'static str = "sandwich";
    const ABOUT: &'static str =
        "Rowlands, Thomas & Wan (2009): lines shared with a peer page of the same directory";
    const PASSES: Passes = Passes::Two;
    const RULES: &'static [Rule] = &[SHARED_WITH_PEER, NO_PEER];
    const ONE_PASS_TOO: bool = true;
    // Measured 0.07 (lines) and 0.32 (tokens) on the docs corpus.
    const STATE_PER_HTML_BYTE: f64 = 0.4;

    type Settings = SandwichSettings;

    fn flags() -> Vec<Flag<SandwichSettings>> {
        vec![
            Flag::choice(
                "sandwich-unit",
                "Compare pages by source lines or by HTML tokens (for pages on few lines).",
                |s| &mut s.unit,
            ),
            Flag::choice(
                "sandwich-one-pass-peer",
                "Under --one-pass: the peer rule (two passes compare with the closest name of \
                 all the directory's pages).",
                |s| &mut s.one_pass_peer,
            ),
            Flag::count(
                "sandwich-max-cost",
                "Differences explored per comparison before the rest counts as not shared.",
                0,
                |s| &mut s.max_cost,
            ),
            Flag::count(
                "sandwich-peers",
                "Under --one-pass --sandwich-one-pass-peer closest-recent: pages remembered per \
                 URL directory as peers.",
                0,
                |s| &mut s.peers_per_directory,
            ),
        ]
    }
    type Observation = PageUnits;

    /// A two-pass detector with `settings` and no pages seen: each page's peer is the
    /// closest name of all its directory's pages.
    fn new(settings: SandwichSettings) -> Self {
        Sandwich {
            names: Some(FxHashMap::default()),
            ..Self::new_one_pass(settings)
        }
    }

    /// A one-pass detector: each page's peer is chosen among the pages before it
    /// ([`SandwichSettings::one_pass_peer`]).
    fn new_one_pass(settings: SandwichSettings) -> Self {
        Sandwich {
            settings,
            names: None,
            peer_units: Mutex::new(FxHashMap::default()),
            directories: FxHashMap::default(),
            held_bytes: 0,
            with_peer: AtomicU64::new(0),
            without_peer: AtomicU64::new(0),
            gave_up: AtomicU64::new(0),
        }
    }

    fn segment_options(&self) -> SegmentOptions {
        SegmentOptions {
            granularity: Granularity::TextNodes {
                split_lines: self.settings.unit == Unit::Line,
            },
            ..SegmentOptions::default()
        }
    }

    fn loads_pages(&self) -> bool {
        self.names.is_some()
    }

    fn observe(&self, page: &SegmentedPage, html: &str) -> PageUnits {
        let (directory, name) = url_directory(&page.url);
        let (units, spans) = units_of(html, self.settings.unit, self.settings.max_units as usize);
        PageUnits {
            url: page.url.clone(),
            directory: directory.to_string(),
            name: name.to_string(),
            units,
            spans,
        }
    }

    fn learn(&mut self, observation: &PageUnits) {
        if let Some(names) = &mut self.names {
            let pages = names.entry(observation.directory.clone()).or_default();
            if pages.iter().all(|(_, url)| url != &observation.url) {
                self.held_bytes += 48 + observation.name.len() + observation.url.len();
                pages.push((observation.name.clone(), observation.url.clone()));
            }
            return;
        }
        let limit = match self.settings.one_pass_peer {
            OnePassPeer::LastCrawled => 1,
            OnePassPeer::ClosestRecent => self.settings.peers_per_directory as usize,
        };
        if limit == 0 {
            return;
        }
        let peer_bytes = |peer: &Peer| 48 + peer.name.capacity() + peer.units.capacity() * 8;
        if !self.directories.contains_key(&observation.directory) {
            self.held_bytes += 64 + observation.directory.len();
        }
        let peers = self
            .directories
            .entry(observation.directory.clone())
            .or_default();
        if peers.len() >= limit
            && let Some(oldest) = peers.pop_front()
        {
            self.held_bytes -= peer_bytes(&oldest);
        }
        let peer = Peer {
            name: observation.name.clone(),
            units: observation.units.clone(),
        };
        self.held_bytes += peer_bytes(&peer);
        peers.push_back(peer);
    }

    fn decide(
        &self,
        page: &SegmentedPage,
        observation: &PageUnits,
        pages: &dyn PageSource,
    ) -> Vec<Verdict> {
        let no_peer = || {
            self.without_peer.fetch_add(1, Ordering::Relaxed);
            vec![Verdict::kept(NO_PEER); page.blocks.len()]
        };
        let read_again;
        let peer_units: &[u64] = if self.names.is_some() {
            let found = self
                .closest_of_all(&observation.directory, &observation.name)
                .and_then(|url| self.units_of_peer(url, pages));
            match found {
                Some(units) => {
                    read_again = units;
                    &read_again
                }
                None => return no_peer(),
            }
        } else {
            match self.peer(&observation.directory, &observation.name) {
                Some(peer) => &peer.units,
                None => return no_peer(),
            }
        };
        self.with_peer.fetch_add(1, Ordering::Relaxed);
        let shared = shared_units(
            &observation.units,
            peer_units,
            self.settings.max_cost as usize,
        );
        if !shared.exact {
            self.gave_up.fetch_add(1, Ordering::Relaxed);
        }
        let spans = &observation.spans;
        page.blocks
            .iter()
            .map(|block| {
                let (start, end) = block.source;
                let first = spans.partition_point(|&(_, unit_end)| unit_end <= start);
                let overlapping = spans[first..]
                    .iter()
                    .take_while(|&&(unit_start, _)| unit_start < end.max(start + 1))
                    .count();
                let in_peer = shared.in_page[first..first + overlapping]
                    .iter()
                    .filter(|&&t| t)
                    .count();
                let share = if overlapping == 0 {
                    0.0
                } else {
                    in_peer as f32 / overlapping as f32
                };
                let template = overlapping > 0 && in_peer == overlapping;
                Verdict::scored(!template, SHARED_WITH_PEER, share, 1.0)
            })
            .collect()
    }

    fn observation_bytes(&self, observation: &PageUnits) -> usize {
        std::mem::size_of::<PageUnits>()
            + observation.url.capacity()
            + observation.directory.capacity()
            + observation.name.capacity()
            + observation.units.capacity() * 8
            + observation.spans.capacity() * 8
    }

    fn state_bytes(&self) -> usize {
        self.held_bytes
    }

    fn settings(&self) -> serde_json::Value {
        serde_json::to_value(self.settings).unwrap_or_default()
    }

    fn counters(&self) -> Vec<Counter> {
        let load = |counter: &AtomicU64| counter.load(Ordering::Relaxed);
        vec![
            Counter::sum("pages_with_peer", load(&self.with_peer)),
            Counter::sum("pages_without_peer", load(&self.without_peer)),
            Counter::sum("comparisons_cut_at_max_cost", load(&self.gave_up)),
            Counter::sum(
                "directories",
                self.names
                    .as_ref()
                    .map_or(self.directories.len(), FxHashMap::len) as u64,
            ),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::{NoPages, counter, test_page};

    fn page_html(story: &str) -> String {
        format!(
            "<html><body>\n<div class=nav><a href=/>Home</a> | <a href=/news/>News</a></div>\n\
             <h1>{story}</h1>\n<p>The {story} story goes on.</p>\n\
             <div class=foot>Copyright ACME</div>\n</body></html>\n"
        )
    }

    /// One pass: decides then learns, one page at a time.
    fn run(detector: &mut Sandwich, pages: &[(&str, String)]) -> Vec<Vec<String>> {
        pages
            .iter()
            .map(|(url, html)| {
                let page = test_page(url, html, detector.segment_options());
                let observation = detector.observe(&page, html);
                let keep = detector.keeps(&page, &observation, &NoPages);
                detector.learn(&observation);
                page.blocks
                    .iter()
                    .zip(keep)
                    .filter(|(_, k)| *k)
                    .map(|(b, _)| b.text.clone())
                    .collect()
            })
            .collect()
    }

    #[test]
    fn lines_shared_with_the_peer_are_dropped() {
        let mut detector = Sandwich::new_one_pass(SandwichSettings::default());
        let kept = run(
            &mut detector,
            &[
                ("http://n.example/news/a.html", page_html("Flood")),
                ("http://n.example/news/b.html", page_html("Fire")),
            ],
        );
        // The first page has no peer; the second loses the lines it shares with it.
        assert_eq!(kept[0].len(), 6);
        assert_eq!(kept[1], ["Fire", "The Fire story goes on."]);
        assert_eq!(counter(&detector.counters(), "pages_without_peer"), 1);
    }

    #[test]
    fn peers_come_from_the_same_directory_only() {
        let mut detector = Sandwich::new_one_pass(SandwichSettings::default());
        let kept = run(
            &mut detector,
            &[
                ("http://n.example/news/a.html", page_html("Flood")),
                ("http://n.example/sport/b.html", page_html("Fire")),
            ],
        );
        assert_eq!(kept[1].len(), 6);
    }

    #[test]
    fn a_page_crawled_twice_is_not_its_own_peer() {
        let mut detector = Sandwich::new_one_pass(SandwichSettings::default());
        let same = ("http://n.example/news/a.html", page_html("Flood"));
        let kept = run(&mut detector, &[same.clone(), same]);
        assert_eq!(kept[1].len(), 6);
    }

    fn three_pages() -> [(&'static str, String); 3] {
        [
            ("http://n.example/d/story-12.html", page_html("Flood")),
            (
                "http://n.example/d/zzz.html",
                "<p>\nunrelated\n</p>\n".to_string(),
            ),
            ("http://n.example/d/story-13.html", page_html("Fire")),
        ]
    }

    #[test]
    fn one_pass_peers_are_the_last_crawled_page_or_the_closest_recent_name() {
        let pages = three_pages();
        // The paper's crawl rule: the page crawled last (zzz), which shares nothing.
        let mut last = Sandwich::new_one_pass(SandwichSettings::default());
        assert_eq!(run(&mut last, &pages)[2].len(), 6);
        // Our earlier variant: the closest name among recent pages (story-12).
        let mut closest = Sandwich::new_one_pass(SandwichSettings {
            one_pass_peer: OnePassPeer::ClosestRecent,
            ..SandwichSettings::default()
        });
        assert_eq!(
            run(&mut closest, &pages)[2],
            ["Fire", "The Fire story goes on."]
        );
    }

    /// Pages by URL with their sources, as the input gives them again.
    struct Sources(Vec<(&'static str, String)>);

    impl PageSource for Sources {
        fn load(&self, url: &str) -> Option<SegmentedPage> {
            let html = self.load_html(url)?;
            let options = Sandwich::new(SandwichSettings::default()).segment_options();
            Some(test_page(url, &html, options))
        }

        fn load_html(&self, url: &str) -> Option<String> {
            let (_, html) = self.0.iter().find(|(at, _)| *at == url)?;
            Some(html.clone())
        }
    }

    #[test]
    fn two_passes_compare_with_the_closest_name_of_all_the_directory() {
        let sources = Sources(three_pages().to_vec());
        let mut detector = Sandwich::new(SandwichSettings::default());
        assert!(detector.loads_pages());
        let pages: Vec<(SegmentedPage, PageUnits)> = sources
            .0
            .iter()
            .map(|(url, html)| {
                let page = test_page(url, html, detector.segment_options());
                let observation = detector.observe(&page, html);
                (page, observation)
            })
            .collect();
        for (_, observation) in &pages {
            detector.learn(observation);
        }
        let kept = |at: usize| -> Vec<String> {
            let (page, observation) = &pages[at];
            let keep = detector.keeps(page, observation, &sources);
            page.blocks
                .iter()
                .zip(keep)
                .filter(|(_, k)| *k)
                .map(|(b, _)| b.text.clone())
                .collect()
        };
        // The first page of the directory has a peer too: story-13, the closest name.
        assert_eq!(kept(0), ["Flood", "The Flood story goes on."]);
        assert_eq!(kept(2), ["Fire", "The Fire story goes on."]);
        assert_eq!(counter(&detector.counters(), "pages_without_peer"), 0);
    }

    #[test]
    fn one_line_pages_need_tokens() {
        let one_line = |story: &str| page_html(story).replace('\n', "");
        let pages = [
            ("http://n.example/a.html", one_line("Flood")),
            ("http://n.example/b.html", one_line("Fire")),
        ];
        let mut lines = Sandwich::new_one_pass(SandwichSettings::default());
        assert_eq!(run(&mut lines, &pages)[1].len(), 6);
        let mut tokens = Sandwich::new_one_pass(SandwichSettings {
            unit: Unit::Token,
            ..SandwichSettings::default()
        });
        assert_eq!(
            run(&mut tokens, &pages)[1],
            ["Fire", "The Fire story goes on."]
        );
    }

    #[test]
    fn setting_aside_unshared_units_keeps_the_subsequence_exact() {
        // LCS of "abcxdefg" and "ybcdzfeg" has length 5 (b c d f g, or b c d e g).
        let page: Vec<u64> = "abcxdefg".bytes().map(u64::from).collect();
        let peer: Vec<u64> = "ybcdzfeg".bytes().map(u64::from).collect();
        let shared = shared_units(&page, &peer, 100);
        assert!(shared.exact);
        assert_eq!(shared.in_page.iter().filter(|&&m| m).count(), 5);
        assert!(!shared.in_page[0] && !shared.in_page[3]);
        let direct = lcs::common_subsequence(&page, &peer, 100);
        assert_eq!(direct.in_a.iter().filter(|&&m| m).count(), 5);
    }

    #[test]
    fn tokens_are_tags_comments_and_text() {
        let html = "<p class=x>a &lt; b<!-- <i> -->c</p> 1 < 2";
        let (units, spans) = units_of(html, Unit::Token, 100);
        let pieces: Vec<&str> = spans
            .iter()
            .map(|&(s, e)| html[s as usize..e as usize].trim())
            .collect();
        assert_eq!(
            pieces,
            [
                "<p class=x>",
                "a &lt; b",
                "<!-- <i> -->",
                "c",
                "</p>",
                "1 < 2"
            ]
        );
        assert_eq!(units.len(), 6);
        assert_eq!(units_of(html, Unit::Token, 2).0.len(), 2);
    }
}
