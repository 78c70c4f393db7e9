//! Hits out of the pages found: each page's stored URL, title and site, and a passage of its
//! body (its title when only the title matches) around the query terms, with where they match
//! as character and byte ranges.

use tantivy::query::Query;
use tantivy::snippet::SnippetGenerator;
use tantivy::{Searcher, TantivyDocument};

use super::collect::Found;
use super::{Hit, SearchError};
use crate::index::{OpenIndex, stored_text};

/// The hits of `pages`, found in `shards` by `query`, the first ranked `offset + 1`.
pub(super) fn hits(
    shards: &[(&OpenIndex, Searcher)],
    query: &dyn Query,
    pages: &[Found],
    offset: usize,
) -> Result<Vec<Hit>, SearchError> {
    let mut hits = Vec::with_capacity(pages.len());
    // Each shard's snippet generators (body, title), made when a page of it first needs them.
    let mut snippets: Vec<Option<(SnippetGenerator, SnippetGenerator)>> =
        shards.iter().map(|_| None).collect();
    for (at, page) in pages.iter().enumerate() {
        let address = page.address;
        let (open, searcher) = &shards[page.shard];
        let generators = match &mut snippets[page.shard] {
            Some(generators) => generators,
            empty => {
                let mut body = SnippetGenerator::create(searcher, query, open.fields.body)?;
                body.set_max_num_chars(200);
                let title = SnippetGenerator::create(searcher, query, open.fields.title)?;
                empty.insert((body, title))
            }
        };
        let (body, title) = generators;
        let document: TantivyDocument = searcher.doc(address)?;
        let text = |field| stored_text(&document, field);
        let mut snippet = body.snippet_from_doc(&document);
        if snippet.highlighted().is_empty() {
            let in_title = title.snippet_from_doc(&document);
            if !in_title.highlighted().is_empty() {
                snippet = in_title;
            }
        }
        let fragment = snippet.fragment().replace('\n', " ");
        let bytes = merged(
            snippet
                .highlighted()
                .iter()
                .map(|range| (range.start, range.end)),
        );
        hits.push(Hit {
            rank: offset + at + 1,
            index: page.shard,
            score: page.score,
            url: text(open.fields.url),
            title: text(open.fields.title),
            site: text(open.fields.site),
            highlights: char_ranges(&fragment, &bytes),
            highlight_bytes: bytes,
            snippet: fragment,
        });
    }
    Ok(hits)
}

/// Byte ranges sorted, with overlapping and touching ones merged.
fn merged(ranges: impl Iterator<Item = (usize, usize)>) -> Vec<(usize, usize)> {
    let mut ranges: Vec<(usize, usize)> = ranges.filter(|(start, end)| start < end).collect();
    ranges.sort_unstable();
    let mut out: Vec<(usize, usize)> = Vec::with_capacity(ranges.len());
    for (start, end) in ranges {
        match out.last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(end),
            _ => out.push((start, end)),
        }
    }
    out
}

/// Byte ranges of `text` as character ranges.
fn char_ranges(text: &str, bytes: &[(usize, usize)]) -> Vec<(usize, usize)> {
    let char_at = |byte: usize| text.char_indices().take_while(|&(at, _)| at < byte).count();
    bytes
        .iter()
        .map(|&(start, end)| (char_at(start), char_at(end.min(text.len()))))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn highlights_are_merged_and_counted_in_characters() {
        let ranges = [(5, 9), (0, 3), (3, 4), (8, 12)];
        assert_eq!(merged(ranges.into_iter()), [(0, 4), (5, 12)]);
        // "ブリーフケース" is 7 characters in 21 bytes.
        let text = "ブリーフケース and more";
        assert_eq!(char_ranges(text, &[(0, 21), (22, 25)]), [(0, 7), (8, 11)]);
    }
}
