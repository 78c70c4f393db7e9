#!/usr/bin/env python3
"""Markdown read back by markdown-it-py (CommonMark + tables): does each page's Markdown hold
the words of its text, in order? Give it `indexer extract` output of the same inputs, once
plain and once with --markdown:

    indexer extract IN... > text.jsonl; indexer extract IN... --markdown > markdown.jsonl
    benches/markdown_words.py text.jsonl markdown.jsonl

Prints each page whose words differ (URL, number of differing runs, the first one) and a last
line `pages=N words_differ=D html_tokens=H` (H: pieces read as raw HTML, which our Markdown
escapes). Needs markdown-it-py (benches/lib.sh's peers venv has it)."""
import difflib
import json
import sys

from markdown_it import MarkdownIt

PARSER = MarkdownIt("commonmark").enable("table")
BLOCKS = {"paragraph", "heading", "list_item", "blockquote", "td", "th", "bullet_list",
          "ordered_list", "tr"}


def words(source):
    """The parsed document's words; block boundaries and line breaks separate words."""
    out, html = [], 0

    def walk(tokens):
        nonlocal html
        for token in tokens:
            if token.type in ("html_block", "html_inline"):
                html += 1
            if token.children:
                walk(token.children)
            elif token.type in ("text", "code_inline"):
                out.append(token.content)
            elif token.type in ("fence", "code_block"):
                out.append(" " + token.content + " ")
            elif token.type in ("softbreak", "hardbreak"):
                out.append(" ")
            elif token.type.endswith(("_open", "_close")) and token.type.rsplit("_", 1)[0] in BLOCKS:
                out.append(" ")

    walk(PARSER.parse(source))
    return "".join(out).split(), html


text = {}
for line in open(sys.argv[1], encoding="utf-8"):
    page = json.loads(line)
    text[page["url"]] = page["text"]
pages = differ = html_tokens = 0
for line in open(sys.argv[2], encoding="utf-8"):
    page = json.loads(line)
    pages += 1
    parsed, html = words(page["text"])
    html_tokens += html
    wanted = text.get(page["url"], "").split()
    if parsed != wanted:
        differ += 1
        runs = [op for op in difflib.SequenceMatcher(None, parsed, wanted, autojunk=False).get_opcodes()
                if op[0] != "equal"]
        tag, a0, a1, b0, b1 = runs[0]
        print(page["url"], len(runs), tag, parsed[a0:a1][:6], wanted[b0:b1][:6])
print(f"pages={pages} words_differ={differ} html_tokens={html_tokens}")
