//! The layout's text and Markdown on pages written for the tests, the Markdown read back by
//! pulldown-cmark (CommonMark with GitHub tables).

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

use super::MarkdownOptions;
use crate::analyze::words;
use crate::segment::tests::page;
use crate::segment::{SegmentLimits, SegmentedPage, segment};

fn segmented(html: &str) -> SegmentedPage {
    segment(&page(html), &SegmentLimits::default()).unwrap()
}

/// The page's text as lines, every block kept.
fn lines(html: &str) -> String {
    let page = segmented(html);
    page.layout.plain_text(&page.blocks, |_| true)
}

/// The page's Markdown, every block kept.
fn markdown(html: &str) -> String {
    markdown_with(html, &MarkdownOptions::default())
}

fn markdown_with(html: &str, options: &MarkdownOptions) -> String {
    let page = segmented(html);
    page.layout.markdown(&page.blocks, |_| true, options)
}

/// What a CommonMark reader finds in Markdown.
#[derive(Debug, Default)]
struct Parsed {
    /// The document's text, blocks and cells set apart by spaces.
    text: String,
    /// Each code block's language (info string) and content.
    code: Vec<(String, String)>,
    /// Each table's rows of cell texts, the header row first.
    tables: Vec<Vec<Vec<String>>>,
    headings: Vec<(u32, String)>,
    /// Emphasis and strong elements read.
    emphasis: usize,
}

fn parse(markdown: &str) -> Parsed {
    let mut parsed = Parsed::default();
    let mut code: Option<(String, String)> = None;
    let mut cell: Option<String> = None;
    let mut heading: Option<(u32, String)> = None;
    for event in Parser::new_ext(markdown, Options::ENABLE_TABLES) {
        match event {
            Event::Text(text) | Event::Code(text) => {
                if let Some((_, content)) = &mut code {
                    content.push_str(&text);
                }
                if let Some(cell) = &mut cell {
                    cell.push_str(&text);
                }
                if let Some((_, heading)) = &mut heading {
                    heading.push_str(&text);
                }
                parsed.text.push_str(&text);
            }
            Event::SoftBreak | Event::HardBreak => parsed.text.push(' '),
            Event::Start(Tag::CodeBlock(kind)) => {
                let language = match kind {
                    CodeBlockKind::Fenced(info) => info.to_string(),
                    CodeBlockKind::Indented => String::new(),
                };
                code = Some((language, String::new()));
            }
            Event::End(TagEnd::CodeBlock) => parsed.code.extend(code.take()),
            Event::Start(Tag::Emphasis | Tag::Strong) => parsed.emphasis += 1,
            Event::Start(Tag::Table(_)) => parsed.tables.push(Vec::new()),
            Event::Start(Tag::TableHead | Tag::TableRow) => {
                if let Some(table) = parsed.tables.last_mut() {
                    table.push(Vec::new());
                }
            }
            Event::Start(Tag::TableCell) => cell = Some(String::new()),
            Event::End(TagEnd::TableCell) => {
                if let (Some(row), Some(cell)) = (
                    parsed.tables.last_mut().and_then(|table| table.last_mut()),
                    cell.take(),
                ) {
                    row.push(cell);
                }
                parsed.text.push(' ');
            }
            Event::Start(Tag::Heading { level, .. }) => {
                heading = Some((level as u32, String::new()));
            }
            Event::End(TagEnd::Heading(_)) => {
                parsed.headings.extend(heading.take());
                parsed.text.push(' ');
            }
            Event::End(TagEnd::Emphasis | TagEnd::Strong | TagEnd::Link | TagEnd::Image) => {}
            Event::End(_) => parsed.text.push(' '),
            Event::Html(html) | Event::InlineHtml(html) => {
                panic!("text read as HTML: {html:?} in\n{markdown}")
            }
            _ => {}
        }
    }
    parsed
}

/// Markdown read back holds the words of the text, in order.
fn assert_same_words(html: &str) {
    let (text, markdown) = (lines(html), markdown(html));
    assert_eq!(
        words(&parse(&markdown).text),
        words(&text),
        "text:\n{text}\nmarkdown:\n{markdown}"
    );
}

#[test]
fn code_keeps_its_lines_and_indentation() {
    let html =
        "<p>Intro</p><pre>\nfn main() {\n    println!(\"hi\");\n\n\tdone();\n}\n</pre><p>After</p>";
    assert_eq!(
        lines(html),
        "Intro\nfn main() {\n    println!(\"hi\");\n\n\tdone();\n}\nAfter"
    );
    let parsed = parse(&markdown(html));
    assert_eq!(
        parsed.code,
        [(
            String::new(),
            "fn main() {\n    println!(\"hi\");\n\n\tdone();\n}\n".to_string()
        )]
    );
    assert_same_words(html);
}

#[test]
fn highlighted_code_is_one_block_with_its_entities_decoded() {
    // Pygments' markup: a span per token, entities in the source.
    let html = "<div class=\"highlight-python notranslate\"><div class=\"highlight\"><pre>\
        <span class=\"k\">if</span> <span class=\"n\">a</span> <span class=\"o\">&lt;</span> \
        <span class=\"mi\">2</span><span class=\"p\">:</span>\n    \
        <span class=\"nb\">print</span><span class=\"p\">(</span><span class=\"s2\">&quot;a &amp; b&quot;</span>)\n</pre></div></div>";
    assert_eq!(lines(html), "if a < 2:\n    print(\"a & b\")");
    let parsed = parse(&markdown(html));
    assert_eq!(
        parsed.code,
        [(
            "python".to_string(),
            "if a < 2:\n    print(\"a & b\")\n".to_string()
        )]
    );
}

#[test]
fn the_language_comes_from_the_conventions_sites_use() {
    let cases = [
        ("<pre><code class=\"language-rust\">x</code></pre>", "rust"),
        ("<pre class=\"lang-js prettyprint\">x</pre>", "js"),
        ("<pre class=\"brush: php; gutter: false\">x</pre>", "php"),
        (
            "<div class=\"sourceCode\"><pre class=\"sourceCode python\">x</pre></div>",
            "python",
        ),
        (
            "<div class=\"highlight highlight-source-shell\"><pre>x</pre></div>",
            "shell",
        ),
        ("<pre><code data-lang=\"go\">x</code></pre>", "go"),
        ("<pre class=\"highlight-default\">x</pre>", ""),
        ("<pre>x</pre>", ""),
    ];
    for (html, language) in cases {
        let parsed = parse(&markdown(html));
        assert_eq!(parsed.code.len(), 1, "{html}");
        assert_eq!(parsed.code[0].0, language, "{html}");
    }
}

#[test]
fn the_fence_is_longer_than_any_run_of_backticks_inside() {
    let html = "<pre>```\nnested ```` fence\n```</pre>";
    let markdown = markdown(html);
    assert!(markdown.starts_with("`````\n"), "{markdown}");
    assert_eq!(parse(&markdown).code[0].1, "```\nnested ```` fence\n```\n");
}

#[test]
fn line_number_gutters_are_left_out_and_never_interleaved() {
    // Sphinx's table of line numbers beside the code, and Pygments' inline numbers.
    let table = "<table class=\"highlighttable\"><tr><td class=\"linenos\"><div class=\"linenodiv\">\
        <pre>1\n2</pre></div></td><td class=\"code\"><div class=\"highlight\"><pre>first()\nsecond()\n\
        </pre></div></td></tr></table>";
    let inline = "<pre><span class=\"linenos\">1</span>first()\n<span class=\"linenos\">2</span>second()\n</pre>";
    for html in [table, inline] {
        assert_eq!(lines(html), "first()\nsecond()", "{html}");
        let parsed = parse(&markdown(html));
        assert_eq!(parsed.code.len(), 1, "{html}");
        assert_eq!(parsed.code[0].1, "first()\nsecond()\n", "{html}");
    }
}

#[test]
fn other_preformatted_containers_keep_their_whitespace() {
    assert_eq!(lines("<xmp>a  <b>\n  c</xmp>"), "a  <b>\n  c");
    assert_eq!(lines("<listing>x\n  y</listing>"), "x\n  y");
    assert_eq!(
        lines("<code style=\"display: block; white-space: pre\">one\n  two</code>"),
        "one\n  two"
    );
    assert_eq!(lines("<pre>a<br>  b</pre>"), "a\n  b");
}

#[test]
fn rows_are_lines_with_tab_separated_cells_and_blocks_start_lines() {
    let html = "<h2>Title</h2><table><tr><th>Name</th><th>Size</th></tr>\
        <tr><td>\"char\"</td><td>1 <b>byte</b></td></tr></table>\
        <ul><li>one<li>two <i>and</i> three</ul><dl><dt>term<dd>definition</dl>\
        <p>line<br>break</p><blockquote>quoted</blockquote>";
    assert_eq!(
        lines(html),
        "Title\nName\tSize\n\"char\"\t1 byte\none\ntwo and three\nterm\ndefinition\nline\nbreak\nquoted"
    );
    assert_same_words(html);
}

#[test]
fn inline_elements_never_split_a_line_and_whitespace_collapses() {
    assert_eq!(
        lines("<p>  a <b>bold</b><i>italic</i>   <a href=x>link</a>\n <code>c</code>  </p>"),
        "a bolditalic link c"
    );
    // Element boundaries that separate words today still do.
    assert_eq!(lines("<p>Home<button>x</button>About</p>"), "Home x About");
}

#[test]
fn an_inline_element_of_only_whitespace_still_parts_words() {
    let html = "<p>The court <em>may</em><i> </i>attempt the recent<a href=x><span> </span></a>\
        rulings<b><br></b>next line</p>";
    assert_eq!(
        lines(html),
        "The court may attempt the recent rulings\nnext line"
    );
    assert_eq!(
        markdown(html),
        "The court *may* attempt the recent rulings\\\nnext line"
    );
    assert_same_words(html);
    assert_words_of_blocks(html);
}

#[test]
fn a_span_that_keeps_whitespace_stays_inline() {
    // Pasted word-processor text: every run of prose in a `white-space: pre-wrap` span.
    let html = "<p><span style=\"white-space: pre-wrap\">A</span><span style=\"white-space:\
        pre-wrap\">ustin, Texas</span>; a city.</p><div style=\"white-space: pre\">kept\n  as is</div>";
    assert_eq!(lines(html), "Austin, Texas; a city.\nkept\n  as is");
    assert_same_words(html);
    assert_words_of_blocks(html);
}

/// The text's words are its blocks' words: rendering joins and parts no word.
fn assert_words_of_blocks(html: &str) {
    let page = segmented(html);
    let of_blocks: Vec<&str> = page
        .blocks
        .iter()
        .flat_map(|block| block.text.split_whitespace())
        .collect();
    let text = lines(html);
    assert_eq!(
        text.split_whitespace().collect::<Vec<_>>(),
        of_blocks,
        "{text}"
    );
}

#[test]
fn headings_lists_and_quotes_in_markdown() {
    let html = "<h1>Top</h1><h3>Third</h3><ol start=3><li>three<li>four<ul><li>nested \
        <em>emphasis</em> and <strong>strong</strong></ul></ol>\
        <ol reversed><li>b<li>a</ol><blockquote><p>quoted</p><p>again</p></blockquote>";
    let markdown = markdown(html);
    assert_eq!(
        markdown,
        "# Top\n\n### Third\n\n3. three\n4. four\n   - nested *emphasis* and **strong**\n\n\
         2. b\n1. a\n\n> quoted\n>\n> again"
    );
    let parsed = parse(&markdown);
    assert_eq!(
        parsed.headings,
        [(1, "Top".to_string()), (3, "Third".to_string())]
    );
    assert_same_words(html);
}

#[test]
fn data_tables_are_pipe_tables_and_layout_tables_their_blocks() {
    let html = "<table><thead><tr><th>Name<th>Storage | Size<th>Notes</thead>\
        <tr><td colspan=2>wide<td>a<br>b\n<tr><td>x<td><td>z</table>";
    let parsed = parse(&markdown(html));
    assert_eq!(
        parsed.tables,
        [[
            vec!["Name", "Storage | Size", "Notes"],
            vec!["wide", "", "a b"],
            vec!["x", "", "z"],
        ]]
    );
    // One column, a role saying so, or cells holding headings or code: the blocks inside.
    let layouts = [
        "<table><tr><td>one</td></tr><tr><td>two</td></tr></table>",
        "<table role=presentation><tr><td>one</td><td>two</td></tr></table>",
        "<table><tr><td><h2>one</h2></td><td><pre>two</pre></td></tr></table>",
    ];
    for html in layouts {
        let markdown = markdown(html);
        assert!(parse(&markdown).tables.is_empty(), "{markdown}");
        assert_same_words(html);
    }
    // A table inside a data table's cell is flattened to its text.
    let nested = "<table><tr><th>a</th><th>b</th></tr><tr><td>c</td>\
        <td><table><tr><td>d</td><td>e</td></tr></table></td></tr></table>";
    assert_eq!(
        parse(&markdown(nested)).tables,
        [[vec!["a", "b"], vec!["c", "d e"]]]
    );
}

#[test]
fn text_that_reads_as_markdown_is_escaped() {
    let html = "<p># not a heading</p><p>* not a list</p><p>1. not numbered</p>\
        <p>- dash</p><p>&lt;div&gt; and &amp;amp; and [link](x) and _under_ a_b *star* `tick`</p>\
        <h2>C# ##</h2><table><tr><td>a|b</td><td>c</td></tr></table>";
    let markdown = markdown(html);
    let parsed = parse(&markdown);
    assert!(
        parsed.tables.len() == 1 && parsed.code.is_empty(),
        "{markdown}"
    );
    assert_eq!(
        parsed.text.split_whitespace().collect::<Vec<_>>().join(" "),
        "# not a heading * not a list 1. not numbered - dash <div> and &amp; and [link](x) \
         and _under_ a_b *star* `tick` C# ## a|b c",
        "{markdown}"
    );
}

#[test]
fn links_and_images_only_when_asked_and_absolute() {
    let html =
        "<p>See <a href=\"/docs/a b.html\">the docs</a> <img src=\"img/x.png\" alt=\"An X\"></p>";
    assert_eq!(markdown(html), "See the docs");
    let options = MarkdownOptions {
        links: true,
        images: true,
        base_url: "http://example.org/dir/page.html".into(),
    };
    assert_eq!(
        markdown_with(html, &options),
        "See [the docs](http://example.org/docs/a%20b.html) ![An X](http://example.org/dir/img/x.png)"
    );
    let script = "<p><a href=\"javascript:void(0)\">menu</a></p>";
    assert_eq!(markdown_with(script, &options), "menu");
}

#[test]
fn dropped_blocks_leave_no_trace() {
    let html = "<ul><li>kept<li><div>dropped</div></ul><h2><div>gone</div></h2>\
        <table><tr><th>h1</th><th>h2</th></tr><tr><td><p>dropped</p></td><td><p>dropped</p></td></tr></table>\
        <p>last</p>";
    let page = segmented(html);
    let keep = |block: usize| !["dropped", "gone"].contains(&page.blocks[block].text.as_str());
    let text = page.layout.plain_text(&page.blocks, keep);
    assert_eq!(text, "kept\nh1\th2\nlast");
    let markdown = page
        .layout
        .markdown(&page.blocks, keep, &MarkdownOptions::default());
    assert_eq!(markdown, "- kept\n\n| h1 | h2 |\n| --- | --- |\n\nlast");
}

#[test]
fn the_detectors_blocks_and_words_are_those_of_before() {
    // The layout is recorded beside the blocks: their text is still collapsed.
    let page =
        segmented("<div><pre>a\n  b</pre><table><tr><td>c</td><td>d</td></tr></table></div>");
    let texts: Vec<_> = page
        .blocks
        .iter()
        .map(|block| block.text.as_str())
        .collect();
    assert_eq!(texts, ["a b", "c d"]);
}

/// Hostile pages: bounded work, text and Markdown that parses, no panic.
#[test]
fn hostile_structure_is_bounded_and_still_parses() {
    let pages = [
        format!("<ul>{}deep", "<li><ul>".repeat(100_000)),
        format!("<table><tr>{}</tr></table>", "<td>c</td>".repeat(10_000)),
        "<table><tr><td rowspan=2147483647 colspan=2147483647>x</td><td>y</td></tr></table>"
            .to_string(),
        "<ul><li><table><tr><td>a</td><td><pre>code\n  more".to_string(),
        "<pre>unclosed <table><tr><td>cell".to_string(),
        format!(
            "<table>{}</table>",
            "<tr><td>a</td><td>b</td></tr>".repeat(100_000)
        ),
    ];
    for html in &pages {
        let text = lines(html);
        let markdown = markdown(html);
        assert_eq!(
            words(&parse(&markdown).text),
            words(&text),
            "{}",
            &html[..html.len().min(80)]
        );
    }
    // Too deep for the segmenter's stack: nesting stops at its limit.
    let deep = markdown(&pages[0]);
    assert!(
        deep.lines().all(|line| line.len() < 2_000),
        "lines stay short"
    );
}

/// Text-node blocks (sandwich, menu) carry the same lines as layout blocks: each piece of a
/// highlighted `<pre>` goes with the block its text went to.
#[test]
fn every_granularity_keeps_the_same_lines() {
    use crate::segment::{Granularity, SegmentOptions, segment_with};
    let html = "<p>Intro <b>bold</b> text</p><pre><span>fn</span> <span>main</span>() {\n    \
        <span>go</span>();\n}</pre><ul><li>one</li><li>two</li></ul>";
    let expected = lines(html);
    assert_eq!(
        expected,
        "Intro bold text\nfn main() {\n    go();\n}\none\ntwo"
    );
    for granularity in [
        Granularity::TextNodes { split_lines: false },
        Granularity::TextNodes { split_lines: true },
    ] {
        let options = SegmentOptions {
            granularity,
            ..SegmentOptions::default()
        };
        let page = segment_with(&page(html), &SegmentLimits::default(), options).unwrap();
        assert!(
            page.blocks.len() > 3,
            "{granularity:?}: one block per text node"
        );
        assert_eq!(
            page.layout.plain_text(&page.blocks, |_| true),
            expected,
            "{granularity:?}"
        );
    }
}

/// Each block's own text laid out alone: its prose lines and its listings apart, nothing of
/// another block; past the marks budget, the collapsed text.
#[test]
fn a_blocks_pieces_are_its_own_lines_and_listings() {
    use super::TextPiece;
    // A listing in spans (as mdBook writes one) is one piece.
    let html = "<div><p>one<br>two</p><pre><code class=\"language-rust\">\n<span>a\n</span>  \
        b\n<span>}\n</span></code></pre><div>other block</div></div>";
    let page = segmented(html);
    let texts: Vec<_> = page
        .blocks
        .iter()
        .map(|block| block.text.as_str())
        .collect();
    assert_eq!(texts, ["one two", "a b }", "other block"]);
    let pieces = page.layout.block_pieces(&page.blocks, 3, usize::MAX);
    assert_eq!(
        pieces,
        [
            vec![TextPiece::prose("one\ntwo".into())],
            vec![TextPiece {
                code: true,
                text: "a\n  b\n}".into()
            }],
            vec![TextPiece::prose("other block".into())],
        ]
    );
    let cut = page.layout.block_pieces(&page.blocks, 1, 2);
    assert_eq!(cut, [vec![TextPiece::prose("one two".into())]]);
}

/// A data table's cell holding a paragraph (as Sphinx writes every cell) is still one cell of
/// its row's line; a table whose cells hold several blocks, line breaks or lists is a
/// page's layout, its cells' blocks lines of their own.
#[test]
fn a_data_tables_row_is_one_line_and_a_layout_tables_cells_are_blocks() {
    let html = "<table><tr><th><p>Format</p></th><th><p>Type</p></th></tr>\
        <tr><td><p><code>%c</code></p></td><td><p>int <em>or</em> char</p></td></tr></table>";
    assert_eq!(lines(html), "Format\tType\n%c\tint or char");
    let parsed = parse(&markdown(html));
    assert_eq!(
        parsed.tables,
        [vec![
            vec!["Format".to_string(), "Type".to_string()],
            vec!["%c".to_string(), "int or char".to_string()]
        ]]
    );
    for layout in [
        "<table><tr><td><p>one</p><p>two</p></td><td>three</td></tr></table>",
        "<table><tr><td>one<br>two<br></td><td>three</td></tr></table>",
        "<table><tr><td><ul><li>one</li><li>two</li></ul></td><td>three</td></tr></table>",
        "<table><tr><td><table><tr><td><p>one</p><p>two</p></td></tr></table></td><td>three</td></tr></table>",
    ] {
        assert_eq!(lines(layout), "one\ntwo\nthree", "{layout}");
        assert!(parse(&markdown(layout)).tables.is_empty(), "{layout}");
    }
}

/// Inline code whose element ends in white space is still set apart from the next word.
#[test]
fn inline_code_ending_in_white_space_keeps_the_space_after_it() {
    let html = "<p>the <code>/var/www\n</code> directory and <code> x</code>y</p>";
    assert_eq!(lines(html), "the /var/www directory and xy");
    assert_eq!(markdown(html), "the `/var/www` directory and `x`y");
    assert_same_words(html);
}

/// Markdown that would read otherwise: deep nesting stays linear, `!` before a link, `|` in a
/// cell's link, a carriage return in a listing, a paragraph shaped like a table, a caption's
/// lines, `&` before an entity's letters in the next text node.
#[test]
fn markdown_that_could_read_otherwise_is_written_safely() {
    let deep = format!("{}<p>word</p>", "<blockquote>".repeat(200));
    let out = markdown(&deep);
    assert!(out.len() < 100, "{out}");
    assert!(out.ends_with("word"));
    let deep_list = format!("{}x", "<ol start=999999999><li>".repeat(200));
    assert!(markdown(&deep_list).len() < 1000);
    let links = MarkdownOptions {
        links: true,
        images: false,
        base_url: "http://a.example/".into(),
    };
    let bang = markdown_with("<p>Wow!<a href=/x>click</a></p>", &links);
    assert_eq!(bang, "Wow\\![click](http://a.example/x)");
    let cell = markdown_with(
        "<table><tr><th>a</th><th>b</th></tr><tr><td><a href=\"/a|b\">t</a></td><td>u</td></tr></table>",
        &links,
    );
    assert!(
        cell.contains("| [t](http://a.example/a%7Cb) | u |"),
        "{cell}"
    );
    let carriage = markdown("<ul><li><pre>a&#13;- b</pre></li></ul>");
    let parsed = parse(&carriage);
    assert_eq!(
        parsed.code,
        [(String::new(), "a\n- b\n".to_string())],
        "{carriage}"
    );
    let table_like = markdown("<p>a|b<br>|-|-|</p>");
    assert!(parse(&table_like).tables.is_empty(), "{table_like}");
    assert_same_words("<p>a|b<br>|-|-|</p>");
    let caption = "<table><caption>a<br>- b</caption><tr><td>1</td><td>2</td></tr></table>";
    assert!(markdown(caption).contains("\\- b"), "{}", markdown(caption));
    let entity = markdown("<p>&amp;<!---->lt;</p>");
    assert_eq!(entity, "\\&lt;");
}

#[test]
fn emphasis_is_marked_only_where_commonmark_reads_it_as_emphasis() {
    let cases = [
        // Closing after punctuation, a letter next: CommonMark would not close it.
        ("<p><em>Expect:</em>ation</p>", 0),
        // Opening before punctuation, a letter before it.
        ("<p>socket<b>(2)</b> and</p>", 0),
        // Emphasis right after emphasis: the second is not marked (`****` reads as text).
        ("<p><b>a</b><b>b</b> c</p>", 1),
        ("<p><em>argument</em><b>(</b><code>,</code></p>", 1),
        (
            "<p><b><i>Welcome</i></b><a href=/x><b><i>Hell</i></b></a><b><i>, our</i></b></p>",
            2,
        ),
        // Where the delimiters can open and close, they stay.
        (
            "<p>Byte<em>n</em> and <em>A</em>x, <strong>a:</strong> b</p>",
            3,
        ),
        ("<p><em><strong>both</strong></em></p>", 2),
        // Inside emphasis, emphasis opening within a word would close the outer one.
        (
            "<p>in <em><span>post<em>apocalyptic</em> tale,</span> </em>The Road</p>",
            1,
        ),
    ];
    for (html, marked) in cases {
        let out = markdown(html);
        assert_eq!(parse(&out).emphasis, marked, "{html}\n{out}");
        assert_same_words(html);
    }
}

#[test]
fn adjacent_code_spans_join_and_stray_list_content_is_one_item() {
    let html = "<p><code>Request.</code><a href=/m><code>meta['x']</code></a> and \
                <code>a</code><br><code>b</code></p>";
    let out = markdown(html);
    assert!(out.contains("`Request.meta['x']`"), "{out}");
    assert_same_words(html);
    let stray = "<ul><br><b>Warning</b>:  Use of <b>x</b><li>item</li></ul>";
    let out = markdown(stray);
    assert_eq!(out, "- **Warning**: Use of **x**\n- item");
    assert_same_words(stray);
}

/// A waiting page's packed marks render what its marks did: every real page of two committed
/// crawls (the sample's documentation pages and a Common Crawl slice of personal pages), as
/// lines by block, Markdown with links and images, and each block's pieces, every block kept
/// and every other block kept; packed for lines only, as lines and pieces.
#[test]
fn packed_marks_render_what_the_marks_did_on_real_pages() {
    use crate::read::{InputSet, page_from_record};

    let crawls = [
        concat!(env!("CARGO_MANIFEST_DIR"), "/data/python311.warc.gz"),
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/fixtures/dolma-sample-0000.warc.gz"
        ),
    ];
    let (mut pages, mut packed_bytes, mut mark_bytes) = (0, 0, 0);
    let (mut strings, mut strings_kept) = (0, 0);
    for crawl in crawls {
        let inputs = InputSet::open(&[crawl.into()], None).unwrap();
        for record in inputs.records().filter_map(Result::ok) {
            let Ok(html) = page_from_record(record, usize::MAX) else {
                continue;
            };
            let Ok(page) = segment(&html, &SegmentLimits::default()) else {
                continue;
            };
            let options = MarkdownOptions {
                links: true,
                images: true,
                base_url: page.url.clone(),
            };
            if page.layout.is_empty() {
                continue;
            }
            let mut packed = page.layout.clone();
            packed.pack(false);
            assert!(packed.marks.is_empty() && packed.packed.is_some());
            packed_bytes += packed.packed.as_ref().map_or(0, |marks| marks.heap_bytes());
            mark_bytes += page.layout.marks.len() * std::mem::size_of::<super::Mark>();
            assert_eq!(packed.marks(), page.layout.marks(), "{}", page.url);
            let mut lines_only = page.layout.clone();
            lines_only.pack(true);
            assert!(lines_only.strings.len() <= page.layout.strings.len());
            strings += page.layout.strings.len();
            strings_kept += lines_only.strings.len();
            let blocks = &page.blocks;
            for keep in [&(|_| true) as &dyn Fn(usize) -> bool, &|block| {
                block % 2 == 0
            }] {
                let lines = page.layout.plain_text_by_block(blocks, keep);
                assert_eq!(packed.plain_text_by_block(blocks, keep), lines);
                assert_eq!(lines_only.plain_text_by_block(blocks, keep), lines);
                assert_eq!(
                    packed.markdown(blocks, keep, &options),
                    page.layout.markdown(blocks, keep, &options)
                );
            }
            let pieces = page.layout.block_pieces(blocks, blocks.len(), 10_000);
            assert_eq!(packed.block_pieces(blocks, blocks.len(), 10_000), pieces);
            assert_eq!(
                lines_only.block_pieces(blocks, blocks.len(), 10_000),
                pieces
            );
            packed.unpack();
            assert_eq!(packed, page.layout);
            pages += 1;
        }
    }
    assert!(pages >= 40, "{pages} pages read");
    assert!(
        packed_bytes * 4 < mark_bytes,
        "marks packed into {packed_bytes} bytes of {mark_bytes}"
    );
    // Links' targets are most of a documentation page's strings.
    assert!(
        strings_kept * 2 < strings,
        "{strings_kept} of {strings} bytes of strings kept"
    );
}
