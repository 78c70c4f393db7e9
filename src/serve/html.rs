//! HTML: the search page, the page view, the index view and error pages, written out as
//! strings (every value escaped). No JavaScript; one small style sheet, served as a file of
//! its own (`/style.css`) so that the Content-Security-Policy allows no inline style or
//! script; readable on a phone. A URL from a crawl becomes a link only when it is `http:` or
//! `https:` — crawls are written by strangers, and `javascript:` or `data:` would run in this
//! origin when clicked.

use std::fmt::Write as _;

use super::catalog::{Catalog, CatalogResults};
use super::chart::site_chart;
use super::page_view::{BlockView, PageView};
use crate::report::{counted, format_skips, human_bytes};

/// Hits per page of results.
pub const HITS_PER_PAGE: usize = 10;

/// The style sheet, served at `/style.css`.
pub const STYLE: &str = "body{font:16px/1.45 system-ui,sans-serif;margin:0 auto;max-width:52rem;padding:0 1rem;color:#1b1b1b}\
header{display:flex;gap:1rem;align-items:baseline;flex-wrap:wrap;border-bottom:1px solid #ddd;padding:.6rem 0}\
header a{color:#1b1b1b;text-decoration:none}header b{font-size:1.2rem}\
form{display:flex;gap:.4rem;margin:1rem 0}input[type=search]{flex:1;font-size:1rem;padding:.45rem;min-width:0}\
button{font-size:1rem;padding:.45rem .8rem}\
.hit{margin:1.1rem 0}.hit a.title{font-size:1.08rem}.url{color:#166534;font-size:.85rem;word-break:break-all}\
.meta{color:#666;font-size:.85rem}mark{background:#fde68a;padding:0 .1rem}\
.sites{font-size:.9rem;margin:.5rem 0;line-height:1.9}.sites a{margin-right:.8rem;white-space:nowrap}\
.block{border-left:4px solid #16a34a;padding:.3rem .6rem;margin:.5rem 0;white-space:pre-wrap}\
.block pre{margin:.3rem 0;padding:.3rem;background:#f6f8fa;overflow-x:auto;white-space:pre}\
.dropped{border-left-color:#d4d4d4;color:#9a9a9a;background:#fafafa}\
.why{display:block;font-size:.78rem;color:#b45309;font-family:ui-monospace,monospace}\
.note{background:#fff7ed;border:1px solid #fed7aa;padding:.6rem}\
table{border-collapse:collapse;font-size:.9rem}td,th{padding:.2rem .6rem;text-align:left;border-bottom:1px solid #eee}\
td.n{text-align:right;font-variant-numeric:tabular-nums}nav.pages{margin:1.5rem 0}nav.pages a{margin-right:1rem}\
svg{max-width:100%;height:auto}.unlinked{color:#9a3412}";

/// Whether `url` may be a link: `http:` or `https:` (any case), nothing before the scheme.
pub fn is_web_url(url: &str) -> bool {
    let scheme = |prefix: &str| {
        url.get(..prefix.len())
            .is_some_and(|start| start.eq_ignore_ascii_case(prefix))
    };
    scheme("http://") || scheme("https://")
}

/// `url` from a crawl as HTML: a link when it is a web URL (no referrer sent: the address of
/// this server and the query stay here), else text marked as not linked.
fn crawled_link(url: &str, text: &str) -> String {
    if is_web_url(url) {
        format!(
            "<a href=\"{}\" rel=\"noreferrer noopener\">{}</a>",
            escape(url),
            escape(text)
        )
    } else {
        format!(
            "<span class=unlinked title=\"not an http(s) URL: not linked\">{}</span>",
            escape(text)
        )
    }
}

/// `text` with `& < > " '` escaped for HTML text and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// `text` percent-encoded for a URL query value.
pub fn query_value(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

fn page(title: &str, query: &str, body: &str) -> String {
    format!(
        "<!doctype html><html lang=en><head><meta charset=utf-8>\
<meta name=viewport content=\"width=device-width,initial-scale=1\">\
<title>{title}</title><link rel=stylesheet href=\"/style.css\"></head><body>\
<header><a href=\"/\"><b>indexer</b></a><a href=\"/stats\">index</a></header>\
<form action=\"/\" method=get role=search><input type=search name=q value=\"{query}\" \
aria-label=query placeholder=\"search\"><button>Search</button></form>{body}</body></html>",
        title = escape(title),
        query = escape(query),
    )
}

/// The search page: the form, and when there is a query its results.
pub fn search_page(results: Option<&CatalogResults>, site: Option<&str>) -> String {
    let Some(results) = results else {
        return page("indexer", "", "");
    };
    let mut body = String::new();
    if let Some(fallback) = &results.fallback {
        let _ = write!(
            body,
            "<p class=meta>Not query syntax ({}); searched as plain words.</p>",
            escape(fallback)
        );
    }
    for note in &results.notes {
        let _ = write!(body, "<p class=meta>Note: {}.</p>", escape(note));
    }
    let shown = match site {
        Some(site) => format!(" on {}", escape(site)),
        None => String::new(),
    };
    let _ = write!(
        body,
        "<p class=meta id=total>{} {}{shown}</p>",
        results.total,
        if results.total == 1 {
            "page matches"
        } else {
            "pages match"
        }
    );
    if !results.sites.is_empty() {
        body.push_str("<div class=sites>");
        let all = format!("/?q={}", query_value(&results.query));
        let _ = write!(body, "<a href=\"{}\">all sites</a>", escape(&all));
        for count in &results.sites {
            let link = format!(
                "/?q={}&site={}",
                query_value(&results.query),
                query_value(&count.site)
            );
            let current = if site == Some(count.site.as_str()) {
                " aria-current=true"
            } else {
                ""
            };
            let _ = write!(
                body,
                "<a href=\"{}\"{current}>{} ({})</a>",
                escape(&link),
                escape(&count.site),
                count.count
            );
        }
        body.push_str("</div>");
    }
    for hit in &results.hits {
        let view = format!(
            "/page?url={}&index={}",
            query_value(&hit.hit.url),
            hit.index
        );
        let title = if hit.hit.title.is_empty() {
            &hit.hit.url
        } else {
            &hit.hit.title
        };
        let _ = write!(
            body,
            "<div class=hit><a class=title href=\"{view}\">{title}</a>\
<div class=url>{url}</div><div class=snippet>{snippet}</div>\
<div class=meta>{rank}. score {score:.3} · {site} · {original}</div></div>",
            view = escape(&view),
            title = escape(title),
            url = escape(&hit.hit.url),
            original = crawled_link(&hit.hit.url, "original"),
            snippet = marked(&hit.hit.snippet, &hit.hit.highlight_bytes),
            rank = hit.hit.rank,
            score = hit.hit.score,
            site = escape(&hit.hit.site),
        );
    }
    let mut pages = String::new();
    let site_part = site.map_or(String::new(), |site| format!("&site={}", query_value(site)));
    if results.offset > 0 {
        let previous = results.offset.saturating_sub(HITS_PER_PAGE);
        let link = format!(
            "/?q={}{site_part}&offset={previous}",
            query_value(&results.query)
        );
        let _ = write!(
            pages,
            "<a href=\"{}\" rel=prev>← previous</a>",
            escape(&link)
        );
    }
    if results.offset + results.hits.len() < results.total {
        let next = results.offset + HITS_PER_PAGE;
        let link = format!(
            "/?q={}{site_part}&offset={next}",
            query_value(&results.query)
        );
        let _ = write!(pages, "<a href=\"{}\" rel=next>next →</a>", escape(&link));
    }
    if !pages.is_empty() {
        let _ = write!(body, "<nav class=pages>{pages}</nav>");
    }
    page(
        &format!("{} — indexer", results.query),
        &results.query,
        &body,
    )
}

/// `snippet` escaped, the byte ranges `highlights` marked.
fn marked(snippet: &str, highlights: &[(usize, usize)]) -> String {
    let mut out = String::new();
    let mut at = 0;
    for &(start, end) in highlights {
        let (Some(before), Some(inside)) = (snippet.get(at..start), snippet.get(start..end)) else {
            continue;
        };
        out.push_str(&escape(before));
        let _ = write!(out, "<mark>{}</mark>", escape(inside));
        at = end;
    }
    out.push_str(&escape(snippet.get(at..).unwrap_or_default()));
    out
}

/// The page view: the page's blocks in order, dropped ones dimmed with why (or hidden).
pub fn page_view(view: &PageView, hide_dropped: bool) -> String {
    let mut body = String::new();
    let title = if view.title.is_empty() {
        &view.url
    } else {
        &view.title
    };
    let _ = write!(
        body,
        "<h1>{}</h1><div class=url>{}</div>\
<p class=meta id=figures>{} kept ({}), {} dropped ({}) by {} · site {} · index {}</p>",
        escape(title),
        crawled_link(&view.url, &view.url),
        counted(view.kept_blocks, "block"),
        human_bytes(view.kept_text_bytes),
        view.dropped_blocks,
        human_bytes(view.dropped_text_bytes),
        escape(&view.detector),
        escape(&view.site),
        escape(&view.index_name),
    );
    if let Some(source) = &view.source {
        let _ = write!(
            body,
            "<p class=meta>record at byte {} of {}</p>",
            source.offset,
            escape(&source.path)
        );
    }
    match &view.unavailable {
        Some(reason) => {
            let _ = write!(
                body,
                "<p class=note id=unavailable>The blocks cannot be shown: {}. The kept text as \
indexed:</p><div class=block>{}</div>",
                escape(reason),
                escape(&view.kept_text)
            );
            if view.kept_text_cut {
                let _ = write!(
                    body,
                    "<p class=note id=cut>The rest of the kept text is not shown (a page view \
shows {} of text at most).</p>",
                    human_bytes(super::page_view::MAX_SHOWN_TEXT_BYTES as u64)
                );
            }
        }
        None => {
            let toggle = format!(
                "/page?url={}&index={}{}",
                query_value(&view.url),
                view.index,
                if hide_dropped { "" } else { "&hide=1" }
            );
            let _ = write!(
                body,
                "<p><a href=\"{}\" id=toggle>{}</a></p>",
                escape(&toggle),
                if hide_dropped {
                    "show dropped blocks"
                } else {
                    "hide dropped blocks"
                }
            );
            for block in view
                .blocks
                .iter()
                .filter(|block| block.kept || !hide_dropped)
            {
                let reason = format!("{}: {}", escape(&view.detector), escape(&why(block)));
                // A kept block says why in its tooltip, a dropped one in a line of its own.
                let (class, why_html) = if block.kept {
                    ("block", format!(" title=\"kept by {reason}\">"))
                } else {
                    (
                        "\"block dropped\"",
                        format!("><span class=why>dropped by {reason}</span>"),
                    )
                };
                let _ = write!(
                    body,
                    "<div class={class} data-rule=\"{}\"{why_html}{}</div>",
                    escape(block.rule.unwrap_or("")),
                    block_text(block)
                );
            }
            if view.blocks_not_shown > 0 {
                let _ = write!(
                    body,
                    "<p class=note id=cut>{} not shown (a page view shows {} of text at \
most).</p>",
                    counted(view.blocks_not_shown, "block"),
                    human_bytes(super::page_view::MAX_SHOWN_TEXT_BYTES as u64)
                );
            }
        }
    }
    page(&format!("{title} — indexer"), "", &body)
}

/// A block's text as HTML: its prose lines (the block keeps white space) and its code
/// listings in `<pre>`.
fn block_text(block: &BlockView) -> String {
    if block.pieces.is_empty() {
        return escape(&block.text);
    }
    let mut html = String::with_capacity(block.text.len() + 32);
    for (index, piece) in block.pieces.iter().enumerate() {
        if piece.code {
            let _ = write!(html, "<pre>{}</pre>", escape(&piece.text));
        } else {
            if index > 0 && !block.pieces[index - 1].code {
                html.push('\n');
            }
            html.push_str(&escape(&piece.text));
        }
    }
    html
}

/// Why a block was kept or dropped: its rule, and the figure the rule compared with its
/// threshold.
fn why(block: &BlockView) -> String {
    let Some(rule) = block.rule else {
        return "the index does not record why (built before indexer recorded it)".to_string();
    };
    match (block.score, block.threshold) {
        (Some(score), Some(threshold)) => format!("{rule} {score:.3} (threshold {threshold:.3})"),
        _ => rule.to_string(),
    }
}

/// The index view: each index's build summary and figures, and a chart of the text kept and
/// dropped per site.
pub fn stats_page(catalog: &Catalog) -> String {
    let mut body = String::new();
    for (at, served) in catalog.indexes.iter().enumerate() {
        let summary = &served.summary;
        let _ = write!(body, "<h2 id=\"index-{at}\">{}</h2>", escape(&served.name));
        let rows = [
            ("detector", summary.detector.clone()),
            (
                summary.made_by(),
                format!("{} by {}", summary.started, summary.tool),
            ),
            (
                "pages",
                format!(
                    "{} of {}{}{}",
                    summary.pages,
                    counted(summary.records, "record"),
                    format_skips(&summary.skipped),
                    match summary.replaced_by_later_record {
                        0 => String::new(),
                        replaced => format!("; {replaced} replaced by a later crawl of their URL"),
                    }
                ),
            ),
            (
                "blocks",
                format!(
                    "{} kept, {} dropped",
                    summary.blocks_kept, summary.blocks_dropped
                ),
            ),
            (
                "text",
                format!(
                    "{} kept, {} dropped",
                    human_bytes(summary.text_bytes_kept),
                    human_bytes(summary.text_bytes_dropped)
                ),
            ),
            ("documents", served.stats.documents.to_string()),
            ("unique terms", served.stats.unique_terms.to_string()),
            ("postings", served.stats.postings.to_string()),
            ("index size", human_bytes(served.stats.total_bytes)),
        ];
        body.push_str("<table>");
        for (name, value) in rows {
            let _ = write!(
                body,
                "<tr><th>{}</th><td>{}</td></tr>",
                escape(name),
                escape(&value)
            );
        }
        body.push_str("</table>");
        body.push_str(&site_chart(&served.sites));
        body.push_str(
            "<table><tr><th>site</th><th>pages</th><th>text kept</th><th>text dropped</th></tr>",
        );
        for site in &served.sites {
            let _ = write!(
                body,
                "<tr><td>{}</td><td class=n>{}</td><td class=n>{}</td><td class=n>{}</td></tr>",
                escape(&site.site),
                site.pages,
                human_bytes(site.kept_text_bytes),
                human_bytes(site.dropped_text_bytes)
            );
        }
        body.push_str("</table>");
    }
    page("index — indexer", "", &body)
}

/// An error page.
pub fn error_page(message: &str) -> String {
    page(
        "error — indexer",
        "",
        &format!("<p class=note id=error>{}</p>", escape(message)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_and_highlights_marked() {
        assert_eq!(
            escape("<a href=\"x\">&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;"
        );
        assert_eq!(marked("a <b> c", &[(2, 5)]), "a <mark>&lt;b&gt;</mark> c");
        // Ranges that do not fall on character boundaries are passed over, not a panic.
        assert_eq!(marked("é", &[(1, 2)]), "é");
        assert_eq!(query_value("a b&c/é"), "a+b%26c%2F%C3%A9");
    }

    use crate::search::Hit;
    use crate::segment::TextPiece;
    use crate::serve::{BlockView, CatalogHit, PageView, SiteCount, SourceView};

    const HOSTILE_URL: &str = "http://a.example/x?a=1&b=\"><script>";

    fn view(blocks: Vec<BlockView>) -> PageView {
        PageView {
            index: 1,
            index_name: "idx <1>".into(),
            detector: "bloom".into(),
            url: HOSTILE_URL.into(),
            title: "Tom & Jerry <script>alert('x')</script>".into(),
            site: "a.example".into(),
            kept_blocks: 1,
            dropped_blocks: 2,
            kept_text_bytes: 11,
            dropped_text_bytes: 9,
            source: Some(SourceView {
                path: "/data/<crawl>.warc".into(),
                offset: 1234,
            }),
            unavailable: None,
            blocks,
            blocks_not_shown: 0,
            kept_text: "Kept <text>".into(),
            kept_text_cut: false,
        }
    }

    fn block(text: &str, kept: bool, rule: &'static str, figures: Option<(f32, f32)>) -> BlockView {
        BlockView {
            text: text.into(),
            pieces: Vec::new(),
            kept,
            rule: Some(rule),
            score: figures.map(|(score, _)| score),
            threshold: figures.map(|(_, threshold)| threshold),
        }
    }

    #[test]
    fn a_blocks_code_is_shown_in_pre_and_its_prose_as_lines() {
        let mut code = block("Intro a < b fn main() {}", true, "keeps_everything", None);
        code.pieces = vec![
            TextPiece::prose("Intro".into()),
            TextPiece::prose("a < b".into()),
            TextPiece {
                code: true,
                text: "fn main() {\n    <x>\n}".into(),
            },
        ];
        assert_eq!(
            block_text(&code),
            "Intro\na &lt; b<pre>fn main() {\n    &lt;x&gt;\n}</pre>"
        );
        let html = page_view(&view(vec![code]), false);
        assert!(html.contains("<pre>fn main() {\n    &lt;x&gt;\n}</pre></div>"));
    }

    #[test]
    fn a_page_view_escapes_the_page_and_says_why_blocks_were_dropped() {
        let blocks = vec![
            block(
                "Menu & more",
                false,
                "template_word_ratio",
                Some((0.9, 0.8)),
            ),
            block("Kept <text>", true, "keeps_everything", None),
            block("No peer", false, "no_peer", None),
        ];
        let html = page_view(&view(blocks.clone()), false);
        assert!(!html.contains("<script>"), "{html}");
        let title = "Tom &amp; Jerry &lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;";
        assert!(html.contains(&format!("<title>{title} — indexer</title>")));
        assert!(html.contains(&format!("<h1>{title}</h1>")));
        let url = "http://a.example/x?a=1&amp;b=&quot;&gt;&lt;script&gt;";
        assert!(
            html.contains(&format!(
                "<a href=\"{url}\" rel=\"noreferrer noopener\">{url}</a>"
            )),
            "{html}"
        );
        assert!(
            html.contains("1 block kept (11 B), 2 dropped (9 B) by bloom"),
            "{html}"
        );
        assert!(html.contains("index idx &lt;1&gt;"));
        assert!(html.contains("record at byte 1234 of /data/&lt;crawl&gt;.warc"));
        assert!(html.contains(
            "<div class=\"block dropped\" data-rule=\"template_word_ratio\"><span class=why>\
             dropped by bloom: template_word_ratio 0.900 (threshold 0.800)</span>Menu &amp; more</div>"
        ), "{html}");
        assert!(html.contains("<span class=why>dropped by bloom: no_peer</span>No peer"));
        assert!(html.contains(
            "<div class=block data-rule=\"keeps_everything\" title=\"kept by bloom: keeps_everything\">Kept &lt;text&gt;</div>"
        ));
        // The link that hides the dropped blocks names the page by its encoded URL.
        let toggle = format!(
            "/page?url={}&amp;index=1&amp;hide=1",
            query_value(HOSTILE_URL)
        );
        assert!(html.contains(&format!(
            "<a href=\"{toggle}\" id=toggle>hide dropped blocks</a>"
        )));

        let hidden = page_view(&view(blocks), true);
        assert!(!hidden.contains("Menu &amp; more") && !hidden.contains("No peer"));
        assert!(
            hidden.contains("title=\"kept by bloom: keeps_everything\">Kept &lt;text&gt;</div>")
        );
        let toggle = format!("/page?url={}&amp;index=1\"", query_value(HOSTILE_URL));
        assert!(hidden.contains(&toggle) && hidden.contains("show dropped blocks"));
    }

    #[test]
    fn a_page_view_without_blocks_shows_why_and_the_kept_text() {
        let mut unavailable = view(Vec::new());
        unavailable.unavailable = Some("the source <x> is no longer there".into());
        let html = page_view(&unavailable, false);
        assert!(html.contains(
            "<p class=note id=unavailable>The blocks cannot be shown: the source &lt;x&gt; is no \
             longer there. The kept text as indexed:</p><div class=block>Kept &lt;text&gt;</div>"
        ), "{html}");
        assert!(!html.contains("id=toggle"));
    }

    fn results(offset: usize, hits: usize, total: usize) -> CatalogResults {
        let hit = |rank: usize| CatalogHit {
            hit: Hit {
                rank,
                score: 1.5,
                url: format!("http://a.example/{rank}?x=<{rank}>&y"),
                title: if rank == 1 {
                    String::new()
                } else {
                    format!("Page \"{rank}\"")
                },
                site: "a.example".into(),
                provenance: Default::default(),
                snippet: "say <hi> to all".into(),
                highlights: vec![(4, 8)],
                highlight_bytes: vec![(4, 8)],
                index: 0,
            },
            index: rank % 2,
        };
        CatalogResults {
            query: "hi & bye".into(),
            fallback: Some("unexpected <&>".into()),
            notes: Vec::new(),
            total,
            offset,
            hits: (offset + 1..=offset + hits).map(hit).collect(),
            sites: vec![
                SiteCount {
                    site: "a.example".into(),
                    count: 20,
                },
                SiteCount {
                    site: "b&c.example".into(),
                    count: 5,
                },
            ],
        }
    }

    #[test]
    fn search_results_link_every_hit_and_site_with_escaped_values() {
        let html = search_page(Some(&results(0, 10, 25)), Some("b&c.example"));
        assert!(html.contains("<title>hi &amp; bye — indexer</title>"));
        assert!(html.contains("name=q value=\"hi &amp; bye\""));
        assert!(html.contains("Not query syntax (unexpected &lt;&amp;&gt;)"));
        assert!(html.contains("<p class=meta id=total>25 pages match on b&amp;c.example</p>"));
        assert!(html.contains("<a href=\"/?q=hi+%26+bye\">all sites</a>"));
        assert!(html.contains(
            "<a href=\"/?q=hi+%26+bye&amp;site=b%26c.example\" aria-current=true>b&amp;c.example (5)</a>"
        ), "{html}");
        assert!(html.contains("<a href=\"/?q=hi+%26+bye&amp;site=a.example\">a.example (20)</a>"));
        assert_eq!(html.matches("<div class=hit>").count(), 10);
        // A hit without a title is shown by its URL; every value is escaped.
        let first = "http://a.example/1?x=&lt;1&gt;&amp;y";
        let view = format!(
            "/page?url={}&amp;index=1",
            query_value("http://a.example/1?x=<1>&y")
        );
        assert!(
            html.contains(&format!("<a class=title href=\"{view}\">{first}</a>")),
            "{html}"
        );
        assert!(html.contains(">Page &quot;2&quot;</a>"));
        assert!(html.contains("<div class=snippet>say <mark>&lt;hi&gt;</mark> to all</div>"));
        assert!(html.contains(&format!(
            "<a href=\"{first}\" rel=\"noreferrer noopener\">original</a>"
        )));
        assert!(!html.contains("<hi>") && !html.contains("<1>"));
    }

    #[test]
    fn search_results_page_forward_and_back() {
        let links = |offset: usize, hits: usize| {
            let html = search_page(Some(&results(offset, hits, 25)), Some("a.example"));
            let prev = html.contains("rel=prev");
            let next = html.contains("rel=next");
            (prev, next, html)
        };
        let (prev, next, first) = links(0, 10);
        assert!(!prev && next);
        assert!(
            first.contains("<a href=\"/?q=hi+%26+bye&amp;site=a.example&amp;offset=10\" rel=next>")
        );
        let (prev, next, middle) = links(10, 10);
        assert!(prev && next);
        assert!(middle.contains("&amp;offset=0\" rel=prev>"));
        assert!(middle.contains("&amp;offset=20\" rel=next>"));
        let (prev, next, _) = links(20, 5);
        assert!(prev && !next);
        let (prev, next, only) = links(0, 0);
        assert!(!prev && next, "more pages match than shown");
        assert!(only.contains("25 pages match on a.example"));
        let one = search_page(Some(&results(0, 1, 1)), None);
        assert!(one.contains("1 page matches</p>") && !one.contains("<nav"));
    }

    #[test]
    fn only_web_urls_become_links() {
        for url in ["http://a.example/", "HTTPS://a.example/x", "https://a"] {
            assert!(is_web_url(url), "{url}");
        }
        for url in [
            "javascript:alert(document.domain)//http://a.example/",
            "data:text/html,<script>alert(1)</script>",
            " http://a.example/",
            "\thttp://a.example/",
            "JaVaScRiPt:alert(1)",
            "vbscript:x",
            "file:///etc/passwd",
            "//evil.example/",
            "/relative",
            "http:/a.example",
            "",
        ] {
            assert!(!is_web_url(url), "{url}");
        }
        let mut hostile = results(0, 2, 2);
        hostile.hits[0].hit.url = "javascript:alert(document.domain)//".into();
        hostile.hits[1].hit.url = "data:text/html,<b>x</b>".into();
        let html = search_page(Some(&hostile), None);
        assert!(
            !html.contains("href=\"javascript:") && !html.contains("href=\"data:"),
            "{html}"
        );
        assert_eq!(html.matches("class=unlinked").count(), 2, "{html}");
        let mut page = view(Vec::new());
        page.url = "javascript:alert(1)".into();
        let html = page_view(&page, false);
        assert!(!html.contains("href=\"javascript:"), "{html}");
        assert!(html.contains("<span class=unlinked title=\"not an http(s) URL: not linked\">javascript:alert(1)</span>"));
    }

    #[test]
    fn pages_hold_no_inline_style_or_script() {
        for html in [
            search_page(None, None),
            error_page("x"),
            search_page(Some(&results(0, 3, 3)), None),
        ] {
            assert!(
                !html.contains("<style") && !html.contains("<script") && !html.contains("style="),
                "{html}"
            );
            assert!(html.contains("<link rel=stylesheet href=\"/style.css\">"));
        }
    }

    #[test]
    fn the_search_page_alone_and_errors_are_escaped_pages() {
        let home = search_page(None, None);
        assert!(home.contains("<form action=\"/\"") && home.contains("value=\"\""));
        assert!(!home.contains("id=total"));
        let error = error_page("no page <b>here</b> & there");
        assert!(
            error
                .contains("<p class=note id=error>no page &lt;b&gt;here&lt;/b&gt; &amp; there</p>")
        );
        assert!(error.starts_with("<!doctype html>") && error.ends_with("</body></html>"));
    }
}
