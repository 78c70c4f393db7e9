//! Collectors, a segment's matching pages in: the best pages by score with ties ranked by URL
//! ([`BestByScoreThenUrl`], scores compared by their [`tie_class`]), merged over segments and
//! indexes by [`best_first`]; and the matching pages counted per site ([`SiteCounts`]).

use std::collections::BTreeMap;

use tantivy::collector::{Collector, SegmentCollector};
use tantivy::columnar::StrColumn;
use tantivy::query::Weight;
use tantivy::{DocAddress, DocId, Score, SegmentOrdinal, SegmentReader};

/// A page found: its score, which shard, where in it, and its URL as an ordinal of its
/// segment's sorted URL dictionary (read as text only where pages of two segments tie).
#[derive(Clone)]
pub(super) struct Found {
    pub(super) score: Score,
    pub(super) shard: usize,
    pub(super) address: DocAddress,
    pub(super) url: u64,
    pub(super) urls: Option<StrColumn>,
}

impl Found {
    /// The page's URL as text (empty in an index built before `url` was a fast field).
    fn url_text(&self) -> String {
        let mut url = String::new();
        if let Some(urls) = &self.urls
            && self.url != u64::MAX
            && !urls.ord_to_str(self.url, &mut url).unwrap_or(false)
        {
            url.clear();
        }
        url
    }
}

/// The best `wanted` of `found`: higher score first, equal scores by URL, then by place (a URL
/// in two indexes).
pub(super) fn best_first(mut found: Vec<Found>, wanted: usize) -> Vec<Found> {
    found.sort_by(|a, b| b.score.total_cmp(&a.score));
    let mut best = Vec::with_capacity(wanted.min(found.len()));
    let mut rest = found.into_iter().peekable();
    while best.len() < wanted {
        let Some(first) = rest.next() else { break };
        let mut run = vec![first];
        while let Some(page) = rest.next_if(|page| page.score == run[0].score) {
            run.push(page);
        }
        let room = wanted - best.len();
        if run.len() == 1 {
            best.extend(run);
        } else {
            best.extend(by_url(run, room));
        }
    }
    best
}

/// The first `wanted` of `ranked` (best first) that are the first of their URL, and how many
/// pages before the last of them were passed over for a URL already taken. Pages whose URL
/// cannot be read (an index without the `url` fast field) are all taken.
pub(super) fn best_of_each_url(ranked: Vec<Found>, wanted: usize) -> (Vec<Found>, usize) {
    let mut taken = rustc_hash::FxHashSet::default();
    let mut best = Vec::with_capacity(wanted.min(ranked.len()));
    let mut hidden = 0;
    for page in ranked {
        if best.len() >= wanted {
            break;
        }
        let url = page.url_text();
        if url.is_empty() || taken.insert(url) {
            best.push(page);
        } else {
            hidden += 1;
        }
    }
    (best, hidden)
}

/// The first `room` pages of a run of equal score, by URL. Within a segment the dictionary
/// ordinals are in URL order, so URLs are read as text only to merge segments: the head of
/// each segment's list, as it is taken.
fn by_url(run: Vec<Found>, room: usize) -> Vec<Found> {
    let room = room.min(run.len());
    let mut lists: BTreeMap<(usize, SegmentOrdinal), Vec<Found>> = BTreeMap::new();
    for page in run {
        lists
            .entry((page.shard, page.address.segment_ord))
            .or_default()
            .push(page);
    }
    let mut lists: Vec<std::collections::VecDeque<Found>> = lists
        .into_values()
        .map(|mut list| {
            list.sort_by_key(|page| (page.url, page.address.doc_id));
            list.into()
        })
        .collect();
    if let [list] = lists.as_mut_slice() {
        return list.drain(..).take(room).collect();
    }
    let mut heads: Vec<Option<String>> = lists
        .iter()
        .map(|list| list.front().map(Found::url_text))
        .collect();
    let mut out = Vec::with_capacity(room);
    while out.len() < room {
        let next = (0..lists.len())
            .filter_map(|at| {
                let page = lists[at].front()?;
                Some((heads[at].as_deref()?, page.shard, page.address, at))
            })
            .min()
            .map(|(_, _, _, at)| at);
        let Some(at) = next else { break };
        out.extend(lists[at].pop_front());
        heads[at] = lists[at].front().map(Found::url_text);
    }
    out
}

/// The best pages by score, pages of equal score ranked by URL: what
/// [`TopDocs`](tantivy::collector::TopDocs) does, with ties broken by the `url` fast field
/// instead of by where a page lies, so that the ranking
/// of a page does not depend on how pages are spread over indexes and segments. A page's URL
/// is read only when its score could put it among the best. Indexes built before `url` was a
/// fast field rank ties by place.
pub(super) struct BestByScoreThenUrl(pub(super) usize);

/// [`BestByScoreThenUrl`] in one segment: the best so far, the worst on top of the heap.
pub(super) struct SegmentBest {
    limit: usize,
    segment: SegmentOrdinal,
    urls: Option<StrColumn>,
    best: std::collections::BinaryHeap<Candidate>,
}

/// A page of one segment among the best: its URL as the ordinal of the segment's sorted URL
/// dictionary, so URLs compare without being read.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Candidate {
    score: Score,
    pub(super) url: u64,
    doc: DocId,
}

impl Eq for Candidate {}

impl Ord for Candidate {
    /// Greater is worse: lower score, then later URL, then later place.
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        other
            .score
            .total_cmp(&self.score)
            .then_with(|| self.url.cmp(&other.url))
            .then_with(|| self.doc.cmp(&other.doc))
    }
}

impl PartialOrd for Candidate {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Collector for BestByScoreThenUrl {
    type Fruit = Vec<Found>;
    type Child = SegmentBest;

    fn for_segment(
        &self,
        segment: SegmentOrdinal,
        reader: &SegmentReader,
    ) -> tantivy::Result<SegmentBest> {
        let urls = reader.fast_fields().str("url").ok().flatten();
        Ok(SegmentBest {
            limit: self.0,
            segment,
            urls,
            best: std::collections::BinaryHeap::with_capacity(
                self.0.min(reader.num_docs() as usize),
            ),
        })
    }

    fn requires_scoring(&self) -> bool {
        true
    }

    /// As [`TopDocs`](tantivy::collector::TopDocs) does, lets the query skip pages that cannot score enough (block-max
    /// WAND): once the best are full, only pages scoring at least the worst of them are
    /// visited.
    fn collect_segment(
        &self,
        weight: &dyn Weight,
        segment: SegmentOrdinal,
        reader: &SegmentReader,
    ) -> tantivy::Result<Vec<Found>> {
        let mut best = self.for_segment(segment, reader)?;
        if self.0 > 0 {
            let alive = reader.alive_bitset();
            weight.for_each_pruning(Score::MIN, reader, &mut |doc, score| {
                if alive.is_none_or(|alive| alive.is_alive(doc)) {
                    best.collect(doc, score);
                }
                best.threshold()
            })?;
        }
        Ok(best.harvest())
    }

    /// Every segment's best: ordering them needs URLs across segments, read by
    /// [`best_first`] only where scores tie.
    fn merge_fruits(&self, fruits: Vec<Self::Fruit>) -> tantivy::Result<Self::Fruit> {
        Ok(fruits.into_iter().flatten().collect())
    }
}

/// Low bits of a positive score's mantissa that [`tie_class`] clears.
const SCORE_NOISE_BITS: u32 = 10;

/// `score` rounded down to a multiple of 2¹⁰ units in the last place (a step of 0.006–0.012 %
/// of the score), so that pages of the same text almost always score the same. A page's score
/// is a float sum whose order tantivy takes from the page's neighbours in its segment (the
/// order of the scorers as block-max WAND or an intersection advances them), so two identical
/// pages could differ in the last bits by where each landed, and two builds of one crawl rank
/// them apart; with the bits cleared they tie and rank by URL, unless a step boundary falls
/// between them (odds of about their distance in units over 1024). Rounding down keeps the
/// pruning threshold safe: a cleared score is never above the score the query computed. Zero
/// and negative scores (a negative weight) are left as they are.
fn tie_class(score: Score) -> Score {
    if score > 0.0 && score.is_finite() {
        Score::from_bits(score.to_bits() & !((1 << SCORE_NOISE_BITS) - 1))
    } else {
        score
    }
}

impl SegmentBest {
    /// Scores a page must exceed to be visited once the best are full: the bottom of the
    /// [`tie_class`] step below the worst of the best, so that a page of equal class and earlier
    /// URL still gets in with a whole step to spare against the rounding of tantivy's
    /// pruning bounds (pages of the step below are turned away by `collect`).
    fn threshold(&self) -> Score {
        match self.best.peek() {
            Some(worst) if self.best.len() >= self.limit => {
                tie_class(worst.score.next_down()).next_down()
            }
            _ => Score::MIN,
        }
    }
}

impl SegmentCollector for SegmentBest {
    type Fruit = Vec<Found>;

    fn collect(&mut self, doc: DocId, score: Score) {
        if self.limit == 0 {
            return;
        }
        let score = tie_class(score);
        let full = self.best.len() >= self.limit;
        if full && self.best.peek().is_some_and(|worst| score < worst.score) {
            return;
        }
        let url = self
            .urls
            .as_ref()
            .and_then(|urls| urls.term_ords(doc).next())
            .unwrap_or(u64::MAX);
        let candidate = Candidate { score, url, doc };
        if !full {
            self.best.push(candidate);
        } else if self.best.peek().is_some_and(|worst| candidate < *worst) {
            self.best.pop();
            self.best.push(candidate);
        }
    }

    fn harvest(self) -> Self::Fruit {
        let (segment, urls) = (self.segment, self.urls);
        self.best
            .into_iter()
            .map(|candidate| Found {
                score: candidate.score,
                shard: 0,
                address: DocAddress::new(segment, candidate.doc),
                url: candidate.url,
                urls: urls.clone(),
            })
            .collect()
    }
}

/// Counts matching pages by their `site` fast field.
pub(super) struct SiteCounts;

/// [`SiteCounts`] in one segment: counts by the site's term ordinal.
pub(super) struct SegmentSiteCounts {
    column: Option<StrColumn>,
    counts: Vec<u64>,
}

impl Collector for SiteCounts {
    type Fruit = BTreeMap<String, u64>;
    type Child = SegmentSiteCounts;

    fn for_segment(
        &self,
        _segment: SegmentOrdinal,
        reader: &SegmentReader,
    ) -> tantivy::Result<SegmentSiteCounts> {
        let column = reader.fast_fields().str("site")?;
        let terms = column.as_ref().map_or(0, |column| column.num_terms());
        Ok(SegmentSiteCounts {
            column,
            counts: vec![0; terms],
        })
    }

    fn requires_scoring(&self) -> bool {
        false
    }

    fn merge_fruits(&self, fruits: Vec<Self::Fruit>) -> tantivy::Result<Self::Fruit> {
        let mut all = BTreeMap::new();
        for fruit in fruits {
            for (site, count) in fruit {
                *all.entry(site).or_default() += count;
            }
        }
        Ok(all)
    }
}

impl SegmentCollector for SegmentSiteCounts {
    type Fruit = BTreeMap<String, u64>;

    fn collect(&mut self, doc: DocId, _score: Score) {
        if let Some(column) = &self.column {
            for ord in column.term_ords(doc) {
                if let Some(count) = self.counts.get_mut(ord as usize) {
                    *count += 1;
                }
            }
        }
    }

    fn harvest(self) -> Self::Fruit {
        let mut sites = BTreeMap::new();
        let Some(column) = self.column else {
            return sites;
        };
        let mut name = String::new();
        for (ord, &count) in self.counts.iter().enumerate() {
            if count > 0 && column.ord_to_str(ord as u64, &mut name).unwrap_or(false) {
                sites.insert(name.clone(), count);
            }
        }
        sites
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::{Weights, index_of, top_urls};

    #[test]
    fn scores_a_few_last_bits_apart_tie_and_distinct_scores_stay_apart() {
        let score: Score = 17.25;
        let mut noisy = score;
        for _ in 0..8 {
            noisy = noisy.next_up();
        }
        assert_ne!(score, noisy);
        assert_eq!(tie_class(score), tie_class(noisy));
        assert!(tie_class(17.26) > tie_class(17.25));
        assert!(tie_class(noisy) <= noisy, "never rounded up");
        assert_eq!(tie_class(0.0), 0.0);
        assert_eq!(tie_class(-1.5), -1.5);
    }

    #[test]
    fn asking_for_more_than_exists_allocates_for_what_exists() {
        // Five pages of one score over two segments: a run of ties merged by URL, with room
        // for usize::MAX.
        let found: Vec<Found> = (0..5)
            .map(|at| Found {
                score: 1.5,
                shard: 0,
                address: DocAddress::new(at % 2, at),
                url: u64::from(at),
                urls: None,
            })
            .collect();
        let best = best_first(found, usize::MAX);
        assert_eq!(best.len(), 5);
    }

    #[test]
    fn the_best_few_are_the_head_of_the_whole_ranking_ties_by_url() {
        // Copies of two texts, added out of URL order: each copy of one text ties.
        let order = [7, 3, 11, 0, 9, 5, 1, 10, 2, 8, 6, 4];
        let urls = order.map(|at| format!("https://copies.example/{at:02}.html"));
        let pages: Vec<(&str, &str, &str)> = order
            .iter()
            .zip(&urls)
            .map(|(at, url)| {
                let body = if at % 3 == 0 {
                    "alpha alpha beta, a page about alpha"
                } else {
                    "alpha beta gamma delta, a page about other things"
                };
                (url.as_str(), "Copy", body)
            })
            .collect();
        let (_dir, open) = index_of(&pages);
        let all = top_urls(&open, "alpha beta", 12, Weights::default()).unwrap();
        assert_eq!(all.len(), 12);
        assert_eq!(all[0], "https://copies.example/00.html");
        assert_eq!(all[4], "https://copies.example/01.html");
        for limit in 1..12 {
            assert_eq!(
                top_urls(&open, "alpha beta", limit, Weights::default()).unwrap(),
                all[..limit],
                "the best {limit}"
            );
        }
    }
}
