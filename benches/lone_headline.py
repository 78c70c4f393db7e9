#!/usr/bin/env python3
"""Issue 56, item 3: token F1 of `hybrid` with and without the headline as the text's first line.

What it measures
    For each labelled lone-page set, scores the kept text of `indexer extract` (JSON lines
    {"url","title","text",...}) with ../shared/tools/score.py (bag-of-words token precision,
    recall, F1; micro over all tokens and macro over sites = pages here) two ways:
      as-is     the text exactly as `extract` prints it (headline kept as its first line);
      no-title  the same text with its first non-empty line removed when that line matches the
                page's `title`.
    Headline rule (both sides whitespace-collapsed and lower-cased): the first non-empty line L
    is removed when L == title, or title starts with L (prefix), or L occurs inside title
    (e.g. title "Headline - CBS News", L "Headline"). Nothing else is removed. The script
    also counts which sub-rule matched, and how often the removed line is itself a whole line
    of the gold `content_text` (i.e. the gold keeps the headline, so removing it costs recall).

Usage
    python3 benches/lone_headline.py [--indexer /tmp/new-indexer] [--shared ../shared]
                                     [--sets dragnet cleaneval-dev] [--pred-dir DIR] [--json]
    With --pred-dir, reuses DIR/SET.pred.jsonl when present (else runs
    `INDEXER extract -q --keep-empty SET.warc.gz -o DIR/SET.pred.jsonl`) and writes
    DIR/SET.notitle.jsonl.

Inputs
    SHARED/corpus/lone/SET.warc.gz and SET.labels.jsonl.gz; SHARED/tools/score.py (imported).
    Python 3 standard library only.
"""
import argparse, gzip, json, os, re, subprocess, sys, tempfile

WS = re.compile(r"\s+")


def norm(s):
    return WS.sub(" ", s or "").strip().lower()


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def headline_match(first, title):
    """Which rule removes `first` given `title` (both normalized): 'equal', 'prefix', 'contained' or None."""
    if not first or not title:
        return None
    if first == title:
        return "equal"
    if title.startswith(first):
        return "prefix"
    if first in title:
        return "contained"
    return None


def strip_headline(rec):
    """Return (text without its headline line, rule or None, removed line or None)."""
    text = rec.get("text") or ""
    lines = text.split("\n")
    i = next((k for k, l in enumerate(lines) if l.strip()), None)
    if i is None:
        return text, None, None
    rule = headline_match(norm(lines[i]), norm(rec.get("title")))
    if rule is None:
        return text, None, None
    return "\n".join(lines[:i] + lines[i + 1:]), rule, lines[i]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--indexer", default="/tmp/new-indexer")
    ap.add_argument("--shared", default=os.path.join(here, "..", "..", "shared"))
    ap.add_argument("--sets", nargs="+", default=["dragnet", "cleaneval-dev"])
    ap.add_argument("--pred-dir", default=None)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    sys.path.insert(0, os.path.join(a.shared, "tools"))
    import score  # ../shared/tools/score.py

    out_dir = a.pred_dir or tempfile.mkdtemp(prefix="lone_headline_")
    os.makedirs(out_dir, exist_ok=True)
    results = {}
    for s in a.sets:
        warc = os.path.join(a.shared, "corpus", "lone", s + ".warc.gz")
        labels = os.path.join(a.shared, "corpus", "lone", s + ".labels.jsonl.gz")
        pred = os.path.join(out_dir, s + ".pred.jsonl")
        if not os.path.exists(pred):
            subprocess.run([a.indexer, "extract", "-q", "--keep-empty", warc, "-o", pred], check=True)
        gold_lines = {r["url"]: {norm(l) for l in re.split(r"[\r\n]+", r.get("content_text") or "")}
                      for r in load(labels)}
        notitle = os.path.join(out_dir, s + ".notitle.jsonl")
        rules = {"equal": 0, "prefix": 0, "contained": 0}
        pages = removed_in_gold = 0
        with open(notitle, "w", encoding="utf-8") as f:
            for r in load(pred):
                pages += 1
                text, rule, line = strip_headline(r)
                if rule:
                    rules[rule] += 1
                    if norm(line) in gold_lines.get(r["url"], ()):
                        removed_in_gold += 1
                f.write(json.dumps({"url": r["url"], "text": text}, ensure_ascii=False) + "\n")
        res = {"pages": pages, "headline_removed": rules, "removed_line_is_gold_line": removed_in_gold}
        for way, p in (("as-is", pred), ("no-title", notitle)):
            sc = score.score([labels], p)
            res[way] = {"micro": sc["micro"], "macro": sc["macro"]}
        results[s] = res
    if a.json:
        print(json.dumps(results, indent=1))
        return
    print("| set | way | micro P | micro R | micro F1 | macro P | macro R | macro F1 |")
    print("|---|---|---|---|---|---|---|---|")
    for s, res in results.items():
        for way in ("as-is", "no-title"):
            mi, ma = res[way]["micro"], res[way]["macro"]
            print(f"| {s} | {way} | {mi[0]:.3f} | {mi[1]:.3f} | {mi[2]:.3f} | {ma[0]:.3f} | {ma[1]:.3f} | {ma[2]:.3f} |")
    for s, res in results.items():
        n = sum(res["headline_removed"].values())
        print(f"{s}: {res['pages']} pages; headline line removed on {n} "
              f"({', '.join(f'{k} {v}' for k, v in res['headline_removed'].items())}); "
              f"removed line is a whole line of the gold on {res['removed_line_is_gold_line']} of them")


if __name__ == "__main__":
    main()
