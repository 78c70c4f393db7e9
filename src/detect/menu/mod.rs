//! `menu`: template extraction by hyperlink analysis and tree mapping, after Alarte, Insa,
//! Silva & Tamarit, "Web Template Extraction Based on Hyperlink Analysis" (WWV 2015).
//!
//! Pages that share a template link to each other through its menu. For a *key page*, the
//! detector looks among the same-host pages the key page links to for a *complete
//! subdigraph*: [`MenuSettings::pages`] of them (the paper's n = 4), each linking to every
//! other (the key page is not part of it, and they need not link back to it). It then maps the
//! key page's DOM tree onto each of those pages' trees in turn ([`equal_top_down_mapping`]),
//! refining the template as the paper's Algorithm 2 does: the roots map, and each child of a
//! mapped node maps to the child of its partner that is *equal* to it and most alike. Equal
//! is our reading of the paper's weighted node equality: the same tag and attributes (the
//! class name among them; link targets aside), or for text the same text. Among equal
//! children the partner is the one closest in number of children and in relative position.
//! A linked page whose root is not equal to the key page's is skipped. The template is what
//! maps in every page; text in it is dropped.
//!
//! Two passes: the first learns the link graph (and where each page is in the input); the
//! second decides each page, reading the pages of its complete subdigraph again from the
//! input. Read trees are cached by URL, so a page linked from many key pages is read once
//! while it stays in the cache; which pages a key page is compared with depends on the link
//! graph alone, so decisions do not depend on thread timing. When no complete subdigraph of
//! the asked size exists, the largest found is used, and counted.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use rustc_hash::{FxHashMap, FxHashSet};

use super::{Counter, Detector, Flag, PageSource, Passes, Rule, Verdict, normalized_url};
use crate::segment::{DomTree, Granularity, SegmentOptions, SegmentedPage};

/// 1 when one of the block's nodes is in the template (mapped in every linked page compared),
/// else 0; dropped at the threshold 1.
pub const MAPPED_IN_LINKED_PAGES: Rule = Rule::new(9, "mapped_in_linked_pages");
/// No linked pages to compare with, so every block is kept.
pub const NO_LINKED_PAGES: Rule = Rule::new(10, "no_linked_pages");

/// The settings of `menu`.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MenuSettings {
    /// Pages in the complete subdigraph, besides the key page (the paper's n, 4).
    pub pages: u32,
    /// Links of a page considered (in document order, menus first), at most (chosen).
    pub max_links: u32,
    /// Candidate sets tried in the search for a complete subdigraph, at most per page
    /// (chosen).
    pub search_budget: u32,
    /// Page trees cached at once, at most (chosen; only speed depends on it).
    pub cached_trees: u32,
}

impl Default for MenuSettings {
    fn default() -> Self {
        MenuSettings {
            pages: 4,
            max_links: 256,
            search_budget: 20_000,
            cached_trees: 1024,
        }
    }
}

/// One page's URL and its same-host links, absolute, in document order, without repeats.
#[derive(Debug, Clone)]
pub struct PageLinks {
    url: String,
    links: Vec<String>,
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
    /// Trees of linked pages read so far, by URL id (`None`: could not be read).
    trees: Mutex<FxHashMap<u32, Option<Arc<PeerTree>>>>,
    complete: AtomicU64,
    partial: AtomicU64,
    alone: AtomicU64,
    tree_reuses: AtomicU64,
    pages_read: AtomicU64,
    unreadable: AtomicU64,
    roots_unequal: AtomicU64,
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

    /// The pages `key` links to that form the largest complete subdigraph found among them
    /// (at most [`MenuSettings::pages`]), in link order.
    pub fn complete_subdigraph(&self, key: u32) -> Vec<u32> {
        let candidates: Vec<u32> = self
            .ordered_links
            .get(key as usize)
            .map(|links| {
                links
                    .iter()
                    .copied()
                    .filter(|&page| {
                        page != key
                            && self
                                .out_links
                                .get(page as usize)
                                .is_some_and(Option::is_some)
                    })
                    .collect()
            })
            .unwrap_or_default();
        largest_complete_set(
            &candidates,
            |a, b| self.links(a, b) && self.links(b, a),
            self.settings.pages as usize,
            self.settings.search_budget as usize,
        )
    }

    /// The trees of the pages of `url`'s complete subdigraph that could be read, or `None`
    /// when it has none.
    fn linked_trees(&self, url: &str, pages: &dyn PageSource) -> Option<Vec<Arc<PeerTree>>> {
        let &key = self.ids.get(&normalized_url(url))?;
        let members = self.complete_subdigraph(key);
        if members.is_empty() {
            self.alone.fetch_add(1, Ordering::Relaxed);
            return None;
        }
        if members.len() >= self.settings.pages as usize {
            self.complete.fetch_add(1, Ordering::Relaxed);
        } else {
            self.partial.fetch_add(1, Ordering::Relaxed);
        }
        let trees = members
            .into_iter()
            .filter_map(|member| self.tree_of(member, pages))
            .collect();
        Some(trees)
    }

    /// The tree of page `id`, from the cache or read.
    fn tree_of(&self, id: u32, pages: &dyn PageSource) -> Option<Arc<PeerTree>> {
        if let Some(cached) = self.lock_trees().get(&id) {
            self.tree_reuses.fetch_add(1, Ordering::Relaxed);
            return cached.clone();
        }
        self.pages_read.fetch_add(1, Ordering::Relaxed);
        let tree = pages
            .load(&self.names[id as usize])
            .and_then(|page| page.tree)
            .map(|tree| {
                let children = tree.children();
                Arc::new(PeerTree { tree, children })
            });
        if tree.is_none() {
            self.unreadable.fetch_add(1, Ordering::Relaxed);
        }
        let mut cache = self.lock_trees();
        if cache.len() >= self.settings.cached_trees as usize {
            cache.clear();
        }
        cache.insert(id, tree.clone());
        tree
    }

    fn lock_trees(&self) -> std::sync::MutexGuard<'_, FxHashMap<u32, Option<Arc<PeerTree>>>> {
        self.trees
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

/// Which nodes of `a` the equal top-down mapping between `a` and `b` maps, `a` restricted to
/// the nodes of `template` (Algorithm 2 maps the template refined so far): the roots map when
/// equal, and each child of a mapped node (in `template`) maps to the equal child of its
/// partner, not yet taken, that is most alike ([`likeness`]). Equal: the same label (tag and
/// attributes, or text).
pub fn equal_top_down_mapping(
    a: &DomTree,
    a_children: &[Vec<u32>],
    template: &[bool],
    b: &DomTree,
    b_children: &[Vec<u32>],
) -> Vec<bool> {
    let mut mapped = vec![false; a.nodes.len()];
    let equal = |x: u32, y: u32| a.nodes[x as usize].label == b.nodes[y as usize].label;
    if a.nodes.is_empty() || b.nodes.is_empty() || !template[0] || !equal(0, 0) {
        return mapped;
    }
    let mut stack = vec![(0u32, 0u32)];
    let mut taken: Vec<bool> = Vec::new();
    while let Some((x, y)) = stack.pop() {
        mapped[x as usize] = true;
        let (xs, ys) = (&a_children[x as usize], &b_children[y as usize]);
        taken.clear();
        taken.resize(ys.len(), false);
        for (at, &cx) in xs.iter().enumerate() {
            if !template[cx as usize] {
                continue;
            }
            let mut best: Option<(usize, f32)> = None;
            for (bt, &cy) in ys.iter().enumerate() {
                if taken[bt] || !equal(cx, cy) {
                    continue;
                }
                let score = likeness(
                    (at, xs.len(), a_children[cx as usize].len()),
                    (bt, ys.len(), b_children[cy as usize].len()),
                );
                if best.is_none_or(|(_, best)| score > best) {
                    best = Some((bt, score));
                }
            }
            if let Some((bt, _)) = best {
                taken[bt] = true;
                stack.push((cx, ys[bt]));
            }
        }
    }
    mapped
}

/// How alike two equal nodes are, in [0, 1], each given as (position among its siblings,
/// sibling count, child count): half the closeness of their relative positions, half the
/// ratio of their child counts.
fn likeness(a: (usize, usize, usize), b: (usize, usize, usize)) -> f32 {
    let relative = |(at, of, _): (usize, usize, usize)| {
        if of > 1 {
            at as f32 / (of - 1) as f32
        } else {
            0.0
        }
    };
    let position = 1.0 - (relative(a) - relative(b)).abs();
    let (fewer, more) = (a.2.min(b.2), a.2.max(b.2));
    let children = if more == 0 {
        1.0
    } else {
        fewer as f32 / more as f32
    };
    0.5 * position + 0.5 * children
}

/// Resolves a page's links against its URL: same host only (the same site, as
/// [`crate::read::site_of_url`] tells it, so a web archive's replayed page links to the replays of
/// its own site), fragment dropped, first occurrence kept, at most `max` of them.
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
        if !matches!(target.scheme(), "http" | "https")
            || crate::read::site_of_url(&target) != page.site.as_str()
        {
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
    const RULES: &'static [Rule] = &[MAPPED_IN_LINKED_PAGES, NO_LINKED_PAGES];
    // Measured 0.02 on the docs corpus (its waiting pages are bounded by the batch).
    const STATE_PER_HTML_BYTE: f64 = 0.05;

    type Settings = MenuSettings;

    fn flags() -> Vec<Flag<MenuSettings>> {
        vec![
            Flag::count(
                "menu-pages",
                "Pages in the complete subdigraph, besides the key page (the paper's n = 4).",
                1,
                |s| &mut s.pages,
            ),
            Flag::count(
                "menu-max-links",
                "Links of a page considered, in document order.",
                0,
                |s| &mut s.max_links,
            ),
        ]
    }
    type Observation = PageLinks;

    /// A detector with `settings` and no link graph.
    fn new(settings: MenuSettings) -> Self {
        Menu {
            settings,
            ids: FxHashMap::default(),
            out_links: Vec::new(),
            ordered_links: Vec::new(),
            names: Vec::new(),
            trees: Mutex::new(FxHashMap::default()),
            complete: AtomicU64::new(0),
            partial: AtomicU64::new(0),
            alone: AtomicU64::new(0),
            tree_reuses: AtomicU64::new(0),
            pages_read: AtomicU64::new(0),
            unreadable: AtomicU64::new(0),
            roots_unequal: AtomicU64::new(0),
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
        let unjudged = vec![Verdict::kept(NO_LINKED_PAGES); page.blocks.len()];
        let Some(tree) = &page.tree else {
            return unjudged;
        };
        let Some(linked) = self.linked_trees(&page.url, pages) else {
            return unjudged;
        };
        // Algorithm 2: the template starts as the key page and each linked page whose root
        // is equal to the key page's refines it.
        let children = tree.children();
        let mut template = vec![true; tree.nodes.len()];
        let mut compared = 0u32;
        for peer in &linked {
            let roots_equal = !tree.nodes.is_empty()
                && peer
                    .tree
                    .nodes
                    .first()
                    .is_some_and(|root| root.label == tree.nodes[0].label);
            if !roots_equal {
                self.roots_unequal.fetch_add(1, Ordering::Relaxed);
                continue;
            }
            template =
                equal_top_down_mapping(tree, &children, &template, &peer.tree, &peer.children);
            compared += 1;
        }
        // With no page to compare (none read, or no root equal), the paper's template would be
        // the whole key page; we keep the page instead.
        if compared == 0 {
            return unjudged;
        }
        // A block is template when one of its nodes is in the template.
        let mut verdicts =
            vec![Verdict::scored(true, MAPPED_IN_LINKED_PAGES, 0.0, 1.0); page.blocks.len()];
        for (node, &in_template) in tree.nodes.iter().zip(&template) {
            if let (Some(verdict), true) = (
                node.block
                    .and_then(|block| verdicts.get_mut(block as usize)),
                in_template,
            ) {
                *verdict = Verdict::scored(false, MAPPED_IN_LINKED_PAGES, 1.0, 1.0);
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
            .lock_trees()
            .values()
            .flatten()
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
            Counter::sum("linked_trees_reused", load(&self.tree_reuses)),
            Counter::sum("pages_read_again", load(&self.pages_read)),
            Counter::sum("pages_not_read_again", load(&self.unreadable)),
            Counter::sum("linked_pages_with_unequal_root", load(&self.roots_unequal)),
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

    fn mapped_text(a: &DomTree, mapped: &[bool], page: &SegmentedPage) -> Vec<String> {
        a.nodes
            .iter()
            .zip(mapped)
            .filter_map(|(node, &m)| node.block.filter(|_| m))
            .map(|block| page.blocks[block as usize].text.clone())
            .collect()
    }

    #[test]
    fn equal_top_down_mapping_pairs_equal_children_however_they_are_placed() {
        let (a, ac, page) = tree_of(
            "<body><ul class=menu><li>Home<li>Docs</ul><div id=main><p>alpha</p><p>beta</p></div></body>",
        );
        let all = vec![true; a.nodes.len()];
        // An inserted element does not misalign the rest: the menu still maps. The main div,
        // with a child fewer, still maps; its first <p> pairs with the other's only <p> (the
        // same relative position), whose text differs.
        let (b, bc, _) = tree_of(
            "<body><div id=ad>Ad</div><ul class=menu><li>Home<li>Docs</ul><div id=main><p>beta</p></div></body>",
        );
        let mapped = equal_top_down_mapping(&a, &ac, &all, &b, &bc);
        assert_eq!(mapped_text(&a, &mapped, &page), ["Home", "Docs"]);
        // Different attributes break the mapping at that node.
        let (c, cc, _) = tree_of(
            "<body><ul class=nav><li>Home<li>Docs</ul><div id=main><p>alpha</p><p>beta</p></div></body>",
        );
        let mapped = equal_top_down_mapping(&a, &ac, &all, &c, &cc);
        assert_eq!(mapped_text(&a, &mapped, &page), ["alpha", "beta"]);
        // Only the template given is mapped (Algorithm 2 refines it page by page): after c
        // the menu is out of it, and b maps none of alpha and beta.
        let refined = equal_top_down_mapping(&a, &ac, &mapped, &b, &bc);
        assert!(mapped_text(&a, &refined, &page).is_empty());
    }

    #[test]
    fn of_several_equal_children_the_most_alike_is_the_partner() {
        // Two equal <li> in `b` for the last of `a`: the one at the same relative position
        // (the last) is taken, and its text is equal, so "Docs" maps; "Home" pairs with the
        // first item, whose text differs.
        let (a, ac, page) = tree_of("<body><ul><li>Home</li><li>Docs</li></ul></body>");
        let (b, bc, _) = tree_of("<body><ul><li>Docs</li><li>Blog</li><li>Docs</li></ul></body>");
        let all = vec![true; a.nodes.len()];
        let mapped = equal_top_down_mapping(&a, &ac, &all, &b, &bc);
        assert_eq!(mapped_text(&a, &mapped, &page), ["Docs"]);
        assert!(likeness((1, 2, 1), (2, 3, 1)) > likeness((1, 2, 1), (0, 3, 1)));
        assert_eq!(likeness((0, 1, 0), (0, 1, 0)), 1.0);
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

    /// Pages a–e share a menu linking a–e; f links only to a; g links nowhere.
    fn site() -> Site {
        let names = ["a", "b", "c", "d", "e"];
        let menu: String = names
            .iter()
            .map(|n| format!("<li><a href=/{n}.html>Page {n}</a>"))
            .collect();
        let mut pages: Vec<(String, String)> = names
            .iter()
            .map(|name| {
                let html = format!(
                    "<html><body><ul class=menu>{menu}</ul><div id=main><h1>About {name}</h1>\
                     <p>Only {name} says this.</p></div><div id=foot>Footer text</div></body></html>"
                );
                (format!("http://a.example/{name}.html"), html)
            })
            .collect();
        pages.push((
            "http://a.example/f.html".into(),
            "<html><body><p>See <a href=/a.html>a</a>.</p></body></html>".into(),
        ));
        pages.push((
            "http://a.example/g.html".into(),
            "<html><body><p>Alone.</p></body></html>".into(),
        ));
        Site(pages)
    }

    fn learned(site: &Site, settings: MenuSettings) -> Menu {
        let mut detector = Menu::new(settings);
        for (url, _) in &site.0 {
            let page = site.load(url).unwrap();
            let observation = detector.observe(&page, "");
            detector.learn(&observation);
        }
        detector
    }

    fn kept_text(detector: &Menu, site: &Site, url: &str) -> Vec<String> {
        let page = site.load(url).unwrap();
        let observation = detector.observe(&page, "");
        let keep = detector.keeps(&page, &observation, site);
        page.blocks
            .iter()
            .zip(&keep)
            .filter(|(_, k)| **k)
            .map(|(b, _)| b.text.clone())
            .collect()
    }

    #[test]
    fn template_text_of_the_menu_pages_is_dropped() {
        let site = site();
        let detector = learned(&site, MenuSettings::default());
        // a links to b–e, which link to each other: a 4-complete subdigraph without a.
        assert_eq!(
            kept_text(&detector, &site, "http://a.example/a.html"),
            ["About a", "Only a says this."]
        );
        assert_eq!(
            counter(&detector.counters(), "pages_with_complete_subdigraph"),
            1
        );
        // Decided again, the same answer, with the linked trees from the cache.
        assert_eq!(
            kept_text(&detector, &site, "http://a.example/a.html"),
            ["About a", "Only a says this."]
        );
        assert_eq!(counter(&detector.counters(), "linked_trees_reused"), 4);
    }

    #[test]
    fn linked_pages_need_not_link_back_and_unequal_roots_are_skipped() {
        let site = site();
        let detector = learned(
            &site,
            MenuSettings {
                pages: 1,
                ..MenuSettings::default()
            },
        );
        // f links to a, which does not link back: a is f's 1-complete subdigraph. Their
        // roots (<html>) are equal, so f's own text, absent from a, is kept, and nothing
        // of f maps but the root and body.
        assert_eq!(
            kept_text(&detector, &site, "http://a.example/f.html"),
            ["See", "a", "."]
        );
        assert_eq!(
            counter(&detector.counters(), "pages_with_complete_subdigraph"),
            1
        );
    }

    #[test]
    fn a_page_without_linked_peers_keeps_everything() {
        let site = site();
        let detector = learned(&site, MenuSettings::default());
        assert_eq!(
            kept_text(&detector, &site, "http://a.example/g.html"),
            ["Alone."]
        );
        assert_eq!(
            counter(&detector.counters(), "pages_without_linked_peers"),
            1
        );
    }

    #[test]
    fn a_smaller_subdigraph_is_used_and_counted() {
        let site = site();
        let detector = learned(
            &site,
            MenuSettings {
                pages: 6,
                ..MenuSettings::default()
            },
        );
        // b's links a, c, d, e form a 4-complete subdigraph, not the 6 asked for.
        assert_eq!(
            kept_text(&detector, &site, "http://a.example/b.html"),
            ["About b", "Only b says this."]
        );
        assert_eq!(
            counter(
                &detector.counters(),
                "pages_with_smaller_subdigraph_fallback"
            ),
            1
        );
    }
}
