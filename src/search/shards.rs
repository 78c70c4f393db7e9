//! Several indexes searched as one: a request in, one ranking of the pages of every index out,
//! each page scored with the BM25 statistics of all their live pages summed, and each URL shown once
//! (its best-scoring page: two indexes may both hold a URL).

use std::collections::BTreeMap;

use tantivy::Searcher;
use tantivy::collector::Count;
use tantivy::query::Query;

use super::collect::{BestByScoreThenUrl, Found, SiteCounts, best_first, best_of_each_url};
use super::query::{Weights, parse, within_site};
use super::snippet::hits;
use super::statistics::LiveStatistics;
use super::{SearchError, SearchRequest, SearchResults};
use crate::index::OpenIndex;

/// [`search_many`](super::search_many) with searchers the caller keeps. Pages of equal score are ranked by URL,
/// so the order does not depend on how pages are spread over indexes and segments.
///
/// tantivy trusts the bytes of an index and panics on some damage (a posting list written
/// over). Such a panic is caught here and becomes [`SearchError::Damaged`] naming the files
/// that fail their checksums — read only then, so a search of a sound index pays nothing —
/// or [`SearchError::Panicked`] when none does. The panic hook still runs: a caller that
/// wants silence sets its own.
pub fn search_shards(
    shards: &[(&OpenIndex, Searcher)],
    request: &SearchRequest<'_>,
) -> Result<SearchResults, SearchError> {
    let search = std::panic::AssertUnwindSafe(|| search_unguarded(shards, request));
    let panic = match std::panic::catch_unwind(search) {
        Ok(results) => return results,
        Err(panic) => panic,
    };
    for (open, _) in shards {
        open.check()?;
    }
    let message = panic
        .downcast_ref::<&str>()
        .map(|text| text.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".to_string());
    let indexes: Vec<String> = shards
        .iter()
        .map(|(open, _)| open.directory.display().to_string())
        .collect();
    Err(SearchError::Panicked {
        indexes: indexes.join(", "),
        message,
    })
}

/// [`search_shards`] without the panic guard.
fn search_unguarded(
    shards: &[(&OpenIndex, Searcher)],
    request: &SearchRequest<'_>,
) -> Result<SearchResults, SearchError> {
    let (limit, offset) = (request.limit, request.offset);
    let mut results = SearchResults {
        query: request.query.to_string(),
        fallback: None,
        notes: Vec::new(),
        total: 0,
        offset,
        hits: Vec::new(),
        sites: Vec::new(),
        hidden_duplicates: 0,
    };
    let Some(&(first, _)) = shards.first() else {
        return Ok(results);
    };
    let schema = first.index.schema();
    if let Some((other, _)) = shards[1..]
        .iter()
        .find(|(open, _)| open.index.schema() != schema)
    {
        return Err(SearchError::Schemas(other.directory.display().to_string()));
    }
    let searchers: Vec<&Searcher> = shards.iter().map(|(_, searcher)| searcher).collect();
    let Some(parsed) = parse(first, &searchers, request.query, Weights::default())? else {
        return Ok(results);
    };
    results.fallback = parsed.fallback;
    results.notes = parsed.notes;
    if request.count_sites {
        results.sites = site_counts(shards, &*parsed.query)?;
    }
    let query = within_site(parsed.query, first.fields.site, request.site);
    let statistics = LiveStatistics(shards.iter().map(|(_, searcher)| searcher).collect());
    let wanted = offset.saturating_add(limit);
    if limit == 0 {
        for (_, searcher) in shards {
            results.total += searcher.search(&*query, &Count)?;
        }
        return Ok(results);
    }
    // Each index holds a URL once (a build keeps its latest record), so the best `wanted` of
    // each index hold the best `wanted` distinct URLs; an index that does not (built before
    // that rule) is asked for more until they do.
    let mut each = wanted;
    let found = loop {
        let mut found: Vec<Found> = Vec::new();
        let mut more_there = false;
        for (shard, (_, searcher)) in shards.iter().enumerate() {
            let best = if each == wanted {
                let (best, count) = searcher.search_with_statistics_provider(
                    &*query,
                    &(BestByScoreThenUrl(each), Count),
                    &statistics,
                )?;
                results.total += count;
                best
            } else {
                searcher.search_with_statistics_provider(
                    &*query,
                    &BestByScoreThenUrl(each),
                    &statistics,
                )?
            };
            more_there |= best.len() >= each;
            found.extend(best.into_iter().map(|page| Found { shard, ..page }));
        }
        let every = found.len();
        let ranked = best_first(found, every);
        let (distinct, hidden) = best_of_each_url(ranked, wanted);
        if distinct.len() >= wanted || !more_there || each == usize::MAX {
            results.hidden_duplicates = hidden;
            break distinct;
        }
        each = each.saturating_mul(2);
    };
    if found.len() <= offset {
        return Ok(results);
    }
    let end = found.len().min(wanted);
    results.hits = hits(shards, &*query, &found[offset..end], offset)?;
    Ok(results)
}

/// The pages of every shard matching `query`, per site: most first, then by site.
fn site_counts(
    shards: &[(&OpenIndex, Searcher)],
    query: &dyn Query,
) -> Result<Vec<(String, u64)>, SearchError> {
    let mut counts = BTreeMap::new();
    for (_, searcher) in shards {
        for (site, count) in searcher.search(query, &SiteCounts)? {
            *counts.entry(site).or_default() += count;
        }
    }
    let mut sites: Vec<(String, u64)> = counts.into_iter().collect();
    sites.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    Ok(sites)
}
