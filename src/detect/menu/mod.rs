//! `menu`: template extraction by hyperlink analysis and tree mapping, after Alarte, Insa,
//! Silva & Tamarit, "Web Template Extraction Based on Hyperlink Analysis" (WWV 2015).
//!
//! Pages that share a template link to each other through its menu. For a *key page*, the
//! detector looks among the same-host pages it links to for a *complete subdigraph*: a set of
//! pages, the key page among them, each linking to every other
//! ([`MenuSettings::pages`] pages in all). It then maps the key page's DOM tree onto each
//! other page's tree top-down ([`equal_top_down_mapping`]): the roots map, and the i-th
//! children of two mapped nodes map when they are *equal* — same tag, same attributes (link
//! targets aside), same number of children, or, for text, the same text. The template is what
//! maps in every one of those trees; text in it is dropped.
//!
//! Two passes: the first learns the link graph (and where each page is in the input); the
//! second decides each page, reading the pages of its complete subdigraph again from the
//! input. The pages found for one site section (URL directory) are reused for the others of
//! that section, so the search and the reads are not repeated for every page. When no
//! complete subdigraph of the asked size exists, the largest found is used, and counted.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use rustc_hash::{FxHashMap, FxHashSet};

use super::{Counter, Detector, PageSource, Passes, Rule, Verdict, normalized_url, url_directory};
use crate::segment::{DomTree, Granularity, SegmentOptions, SegmentedPage};

/// The settings of `menu`.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MenuSettings {
    /// Pages in the complete subdigraph, the key page included.
    pub pages: u32,
    /// Links of a page considered (in document order, menus first), at most.
    pub max_links: u32,
    /// Candidate sets tried in the search for a complete subdigraph, at most per page.
    pub search_budget: u32,
    /// Site sections whose pages are cached at once, at most.
    pub cached_sections: u32,
}

impl Default for MenuSettings {
    fn default() -> Self {
        MenuSettings {
            pages: 4,
            max_links: 256,
            search_budget: 20_000,
            cached_sections: 256,
        }
    }
}

/// One page's URL and its same-host links, absolute, in document order, without repeats.
#[derive(Debug, Clone)]
pub struct PageLinks {
    url: String,
    links: Vec<String>,
}

/// The pages found for one section, with their trees.
struct SectionPages {
    urls: Vec<String>,
    trees: Vec<PeerTree>,
}

/// A page's DOM tree with each node's children.
struct PeerTree {
    tree: DomTree,
    children: Vec<Vec<u32>>,
}

/// The `menu` detector.
pub struct Menu {
    settings: MenuSettings,
    ids: FxHashMap<String, u32>,
    /// For each URL id that is a page of the input, its links (URL ids, sorted).
    out_links: Vec<Option<Vec<u32>>>,
    /// For each URL id, its links in document order (pages only).
    ordered_links: Vec<Vec<u32>>,
    names: Vec<String>,
    sections: Mutex<FxHashMap<String, Arc<SectionPages>>>,
    complete: AtomicU64,
    partial: AtomicU64,
    alone: AtomicU64,
    section_reuses: AtomicU64,
    pages_read: AtomicU64,
    unreadable: AtomicU64,
}

impl Menu {
    fn id_of(&mut self, url: &str) -> u32 {
        if let Some(&id) = self.ids.get(url) {
            return id;
        }
        let id = self.names.len() as u32;
        self.ids.insert(url.to_string(), id);
        self.names.push(url.to_string());
        self.out_links.push(None);
        self.ordered_links.push(Vec::new());
        id
    }

    /// Whether page `from` links to `to`.
    fn links(&self, from: u32, to: u32) -> bool {
        self.out_links
            .get(from as usize)
            .and_then(Option::as_ref)
            .is_some_and(|links| links.binary_search(&to).is_ok())
    }

    /// The pages that, with `key`, form the largest complete subdigraph found (at most
    /// `pages − 1` of them), in link order.
    pub fn complete_subdigraph(&self, key: u32) -> Vec<u32> {
        let want = (self.settings.pages as usize).saturating_sub(1);
        let candidates: Vec<u32> = self
            .ordered_links
            .get(key as usize)
            .map(|links| {
                links
                    .iter()
                    .copied()
                    .filter(|&page| page != key && self.links(key, page) && self.links(page, key))
                    .collect()
            })
            .unwrap_or_default();
        largest_complete_set(
            &candidates,
            |a, b| self.links(a, b) && self.links(b, a),
            want,
            self.settings.search_budget as usize,
        )
    }

    /// The other pages of `key`'s complete subdigraph, with their trees: from the section's
    /// cache when it has pages other than `key`, else searched and read.
    fn section_pages(&self, url: &str, pages: &dyn PageSource) -> Option<Arc<SectionPages>> {
        let url = &normalized_url(url);
        let (section, _) = url_directory(url);
        if let Some(found) = self.lock_sections().get(section)
            && found.urls.iter().all(|member| member != url)
            && !found.trees.is_empty()
        {
            self.section_reuses.fetch_add(1, Ordering::Relaxed);
            return Some(Arc::clone(found));
        }
        let &key = self.ids.get(url)?;
        let members = self.complete_subdigraph(key);
        if members.is_empty() {
            self.alone.fetch_add(1, Ordering::Relaxed);
            return None;
        }
        if members.len() + 1 >= self.settings.pages as usize {
            self.complete.fetch_add(1, Ordering::Relaxed);
        } else {
            self.partial.fetch_add(1, Ordering::Relaxed);
        }
        let mut found = SectionPages {
            urls: Vec::new(),
            trees: Vec::new(),
        };
        for member in members {
            let member_url = &self.names[member as usize];
            self.pages_read.fetch_add(1, Ordering::Relaxed);
            if let Some(tree) = pages.load(member_url).and_then(|page| page.tree) {
                let children = tree.children();
                found.urls.push(member_url.clone());
                found.trees.push(PeerTree { tree, children });
            } else {
                self.unreadable.fetch_add(1, Ordering::Relaxed);
            }
        }
        let found = Arc::new(found);
        let mut sections = self.lock_sections();
        if sections.len() >= self.settings.cached_sections as usize {
            sections.clear();
        }
        sections.insert(section.to_string(), Arc::clone(&found));
        Some(found)
    }

    fn lock_sections(&self) -> std::sync::MutexGuard<'_, FxHashMap<String, Arc<SectionPages>>> {
        self.sections
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// The largest set of `candidates` (at most `want` of them) whose members are pairwise
/// `linked`, searched depth-first in candidate order; stops at the first set of `want` or
/// after `budget` extensions tried.
pub fn largest_complete_set(
    candidates: &[u32],
    linked: impl Fn(u32, u32) -> bool,
    want: usize,
    budget: usize,
) -> Vec<u32> {
    struct Search<'a, F> {
        candidates: &'a [u32],
        linked: F,
        want: usize,
        budget: usize,
        tried: usize,
        current: Vec<u32>,
        best: Vec<u32>,
    }

    impl<F: Fn(u32, u32) -> bool> Search<'_, F> {
        fn extend(&mut self, start: usize) {
            if self.current.len() > self.best.len() {
                self.best = self.current.clone();
            }
            for i in start..self.candidates.len() {
                if self.best.len() >= self.want || self.tried >= self.budget {
                    return;
                }
                self.tried += 1;
                let candidate = self.candidates[i];
                if self
                    .current
                    .iter()
                    .all(|&member| (self.linked)(member, candidate))
                {
                    self.current.push(candidate);
                    self.extend(i + 1);
                    self.current.pop();
                }
            }
        }
    }

    let mut search = Search {
        candidates,
        linked,
        want,
        budget,
        tried: 0,
        current: Vec::new(),
        best: Vec::new(),
    };
    if want > 0 {
        search.extend(0);
    }
    search.best
}

/// Which nodes of `a` the equal top-down mapping between `a` and `b` maps: the roots map;
/// the i-th children of mapped nodes map when they are equal (same label, same number of
/// children).
pub fn equal_top_down_mapping(
    a: &DomTree,
    a_children: &[Vec<u32>],
    b: &DomTree,
    b_children: &[Vec<u32>],
) -> Vec<bool> {
    let mut mapped = vec![false; a.nodes.len()];
    let equal = |x: u32, y: u32| {
        a.nodes[x as usize].label == b.nodes[y as usize].label
            && a_children[x as usize].len() == b_children[y as usize].len()
    };
    if a.nodes.is_empty() || b.nodes.is_empty() || !equal(0, 0) {
        return mapped;
    }
    let mut stack = vec![(0u32, 0u32)];
    while let Some((x, y)) = stack.pop() {
        mapped[x as usize] = true;
        for (&cx, &cy) in a_children[x as usize].iter().zip(&b_children[y as usize]) {
            if equal(cx, cy) {
                stack.push((cx, cy));
            }
        }
    }
    mapped
}

/// Resolves a page's links against its URL: same host only, fragment dropped, first
/// occurrence kept, at most `max` of them.
fn same_host_links(page: &SegmentedPage, max: usize) -> Vec<String> {
    let Ok(base) = url::Url::parse(&page.url) else {
        return Vec::new();
    };
    let mut seen = FxHashSet::default();
    let mut links = Vec::new();
    for href in &page.links {
        let Ok(mut target) = base.join(href.trim()) else {
            continue;
        };
        if target.host_str() != base.host_str() || !matches!(target.scheme(), "http" | "https") {
            continue;
        }
        target.set_fragment(None);
        let target = String::from(target);
        if seen.insert(target.clone()) {
            links.push(target);
            if links.len() >= max {
                break;
            }
        }
    }
    links
}

impl Detector for Menu {
    const NAME: &'static str = "menu";
    const ABOUT: &'static str =
        "Alarte, Insa, Silva & Tamarit (2015): tree mapping with mutually linked menu pages";
    const PASSES: Passes = Passes::Two;
    // Measured 0.02 on the docs corpus (its waiting pages are bounded by the batch).
    const STATE_PER_HTML_BYTE: f64 = 0.05;

    type Settings = MenuSettings;
    type Observation = PageLinks;

    /// A detector with `settings` and no link graph.
    fn new(settings: MenuSettings) -> Self {
        Menu {
            settings,
            ids: FxHashMap::default(),
            out_links: Vec::new(),
            ordered_links: Vec::new(),
            names: Vec::new(),
            sections: Mutex::new(FxHashMap::default()),
            complete: AtomicU64::new(0),
            partial: AtomicU64::new(0),
            alone: AtomicU64::new(0),
            section_reuses: AtomicU64::new(0),
            pages_read: AtomicU64::new(0),
            unreadable: AtomicU64::new(0),
        }
    }

    fn segment_options(&self) -> SegmentOptions {
        SegmentOptions {
            granularity: Granularity::TextNodes { split_lines: false },
            tree: true,
            links: true,
            ..SegmentOptions::default()
        }
    }

    fn loads_pages(&self) -> bool {
        true
    }

    fn observe(&self, page: &SegmentedPage, _html: &str) -> PageLinks {
        PageLinks {
            url: normalized_url(&page.url),
            links: same_host_links(page, self.settings.max_links as usize),
        }
    }

    fn learn(&mut self, observation: &PageLinks) {
        let page = self.id_of(&observation.url);
        if self.out_links[page as usize].is_some() {
            return;
        }
        let ordered: Vec<u32> = observation
            .links
            .iter()
            .map(|link| self.id_of(link))
            .collect();
        let mut sorted = ordered.clone();
        sorted.sort_unstable();
        sorted.dedup();
        self.out_links[page as usize] = Some(sorted);
        self.ordered_links[page as usize] = ordered;
    }

    fn decide(
        &self,
        page: &SegmentedPage,
        _observation: &PageLinks,
        pages: &dyn PageSource,
    ) -> Vec<Verdict> {
        let unjudged = vec![Verdict::kept(Rule::NoLinkedPages); page.blocks.len()];
        let Some(tree) = &page.tree else {
            return unjudged;
        };
        let Some(section) = self.section_pages(&page.url, pages) else {
            return unjudged;
        };
        if section.trees.is_empty() {
            return unjudged;
        }
        let children = tree.children();
        let mut mapped_in = vec![0u32; tree.nodes.len()];
        for PeerTree {
            tree: other,
            children: other_children,
        } in &section.trees
        {
            let mapped = equal_top_down_mapping(tree, &children, other, other_children);
            for (count, mapped) in mapped_in.iter_mut().zip(mapped) {
                *count += u32::from(mapped);
            }
        }
        // A block is template when one of its nodes is mapped in every linked page; its
        // figure is the largest share of linked pages mapping one of its nodes.
        let trees = section.trees.len() as u32;
        let mut verdicts =
            vec![Verdict::scored(true, Rule::MappedInLinkedPages, 0.0, 1.0); page.blocks.len()];
        for (node, &count) in tree.nodes.iter().zip(&mapped_in) {
            if let Some(verdict) = node
                .block
                .and_then(|block| verdicts.get_mut(block as usize))
                && count as f32 / trees as f32 >= verdict.score
            {
                verdict.score = count as f32 / trees as f32;
                verdict.keep = count < trees;
            }
        }
        verdicts
    }

    fn observation_bytes(&self, observation: &PageLinks) -> usize {
        std::mem::size_of::<PageLinks>()
            + observation.url.capacity()
            + observation
                .links
                .iter()
                .map(|l| 24 + l.capacity())
                .sum::<usize>()
    }

    fn state_bytes(&self) -> usize {
        let names: usize = self.names.iter().map(|n| 2 * (24 + n.capacity())).sum();
        let links: usize = self
            .out_links
            .iter()
            .flatten()
            .map(|l| 24 + l.capacity() * 4)
            .sum::<usize>()
            + self
                .ordered_links
                .iter()
                .map(|l| 24 + l.capacity() * 4)
                .sum::<usize>();
        let cached: usize = self
            .lock_sections()
            .values()
            .flat_map(|section| &section.trees)
            .map(|peer| peer.tree.heap_bytes() + peer.children.len() * 28)
            .sum();
        names + links + cached
    }

    fn settings(&self) -> serde_json::Value {
        serde_json::to_value(self.settings).unwrap_or_default()
    }

    fn counters(&self) -> Vec<Counter> {
        let load = |counter: &AtomicU64| counter.load(Ordering::Relaxed);
        vec![
            Counter::sum("pages_with_complete_subdigraph", load(&self.complete)),
            Counter::sum(
                "pages_with_smaller_subdigraph_fallback",
                load(&self.partial),
            ),
            Counter::sum("pages_without_linked_peers", load(&self.alone)),
            Counter::sum("pages_reusing_section_pages", load(&self.section_reuses)),
            Counter::sum("pages_read_again", load(&self.pages_read)),
            Counter::sum("pages_not_read_again", load(&self.unreadable)),
            Counter::sum(
                "link_graph_pages",
                self.out_links.iter().flatten().count() as u64,
            ),
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::counter;
    use crate::detect::test_page;

    fn tree_of(html: &str) -> (DomTree, Vec<Vec<u32>>, SegmentedPage) {
        let page = test_page(
            "http://a.example/",
            html,
            Menu::new(MenuSettings::default()).segment_options(),
        );
        let tree = page.tree.clone().expect("a tree was asked for");
        let children = tree.children();
        (tree, children, page)
    }

    #[test]
    fn equal_top_down_mapping_stops_at_the_first_difference() {
        let (a, ac, page) = tree_of(
            "<body><ul class=menu><li>Home<li>Docs</ul><div id=main><p>alpha</p><p>beta</p></div></body>",
        );
        let (b, bc, _) = tree_of(
            "<body><ul class=menu><li>Home<li>Docs</ul><div id=main><p>gamma</p></div></body>",
        );
        let mapped = equal_top_down_mapping(&a, &ac, &b, &bc);
        let mapped_text: Vec<&str> = a
            .nodes
            .iter()
            .zip(&mapped)
            .filter_map(|(node, &m)| node.block.filter(|_| m))
            .map(|block| page.blocks[block as usize].text.as_str())
            .collect();
        // The menu maps; the main div has 2 children against 1, so nothing under it maps.
        assert_eq!(mapped_text, ["Home", "Docs"]);
        // Different attributes break the mapping at that node.
        let (c, cc, _) = tree_of(
            "<body><ul class=nav><li>Home<li>Docs</ul><div id=main><p>alpha</p><p>beta</p></div></body>",
        );
        let mapped = equal_top_down_mapping(&a, &ac, &c, &cc);
        let texts = a
            .nodes
            .iter()
            .zip(&mapped)
            .filter(|(n, m)| **m && n.block.is_some());
        assert_eq!(texts.count(), 2, "alpha and beta map, the menu does not");
    }

    #[test]
    fn complete_sets_are_found_and_the_largest_is_the_fallback() {
        // 1–2–3 mutually linked; 4 linked with 1 only.
        let edges = [(1, 2), (1, 3), (2, 3), (1, 4)];
        let linked = |a: u32, b: u32| edges.contains(&(a.min(b), a.max(b)));
        assert_eq!(largest_complete_set(&[4, 2, 3], linked, 3, 1000), [2, 3]);
        assert_eq!(
            largest_complete_set(&[1, 2, 3, 4], linked, 3, 1000),
            [1, 2, 3]
        );
        assert_eq!(largest_complete_set(&[1, 4, 2], linked, 3, 1000), [1, 4]);
        assert!(largest_complete_set(&[], linked, 3, 1000).is_empty());
    }

    struct Site(Vec<(String, String)>);

    impl PageSource for Site {
        fn load(&self, url: &str) -> Option<SegmentedPage> {
            let (_, html) = self.0.iter().find(|(u, _)| u == url)?;
            Some(test_page(
                url,
                html,
                Menu::new(MenuSettings::default()).segment_options(),
            ))
        }
    }

    fn site() -> Site {
        let names = ["a", "b", "c", "d", "e"];
        let pages = names
            .iter()
            .map(|name| {
                let menu: String = names
                    .iter()
                    .take(4)
                    .map(|n| format!("<li><a href=/{n}.html>Page {n}</a>"))
                    .collect();
                let html = format!(
                    "<html><body><ul class=menu>{menu}</ul><div id=main><h1>About {name}</h1>\
                     <p>Only {name} says this.</p></div><div id=foot>Footer text</div></body></html>"
                );
                (format!("http://a.example/{name}.html"), html)
            })
            .collect();
        Site(pages)
    }

    #[test]
    fn template_text_of_the_menu_pages_is_dropped() {
        let site = site();
        let mut detector = Menu::new(MenuSettings::default());
        for (url, _) in &site.0 {
            let page = site.load(url).unwrap();
            let observation = detector.observe(&page, "");
            detector.learn(&observation);
        }
        let page = site.load("http://a.example/a.html").unwrap();
        let observation = detector.observe(&page, "");
        let keep = detector.keeps(&page, &observation, &site);
        let kept: Vec<&str> = page
            .blocks
            .iter()
            .zip(&keep)
            .filter(|(_, k)| **k)
            .map(|(b, _)| b.text.as_str())
            .collect();
        assert_eq!(kept, ["About a", "Only a says this."]);
        assert_eq!(
            counter(&detector.counters(), "pages_with_complete_subdigraph"),
            1
        );

        // Page e is in no menu, so it has no mutually linked pages of its own; it uses the
        // pages found for its section.
        let page = site.load("http://a.example/e.html").unwrap();
        let observation = detector.observe(&page, "");
        let keep = detector.keeps(&page, &observation, &site);
        assert_eq!(keep.iter().filter(|k| !**k).count(), 5);
        assert_eq!(
            counter(&detector.counters(), "pages_reusing_section_pages"),
            1
        );
    }

    #[test]
    fn a_page_without_linked_peers_keeps_everything() {
        let site = site();
        let mut detector = Menu::new(MenuSettings::default());
        for (url, _) in &site.0 {
            let page = site.load(url).unwrap();
            let observation = detector.observe(&page, "");
            detector.learn(&observation);
        }
        let page = site.load("http://a.example/e.html").unwrap();
        let observation = detector.observe(&page, "");
        assert!(
            detector
                .keeps(&page, &observation, &site)
                .iter()
                .all(|&k| k)
        );
        assert_eq!(
            counter(&detector.counters(), "pages_without_linked_peers"),
            1
        );
    }

    #[test]
    fn a_smaller_subdigraph_is_used_and_counted() {
        let site = site();
        let mut detector = Menu::new(MenuSettings {
            pages: 6,
            ..MenuSettings::default()
        });
        for (url, _) in &site.0 {
            let page = site.load(url).unwrap();
            let observation = detector.observe(&page, "");
            detector.learn(&observation);
        }
        let page = site.load("http://a.example/b.html").unwrap();
        let observation = detector.observe(&page, "");
        let keep = detector.keeps(&page, &observation, &site);
        assert_eq!(keep.iter().filter(|k| !**k).count(), 5);
        assert_eq!(
            counter(
                &detector.counters(),
                "pages_with_smaller_subdigraph_fallback"
            ),
            1
        );
    }
}
