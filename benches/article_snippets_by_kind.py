#!/usr/bin/env python3
"""Issue 56, item 2, for the articles: which labelled passages a run gets wrong, by kind.

What it measures
    The articles are labelled by snippets (trafilatura's evaluation): passages a page's text
    should hold ("with") and passages it should not ("without"). `indexer eval --snippets`
    counts a "without" passage found in the kept text (whitespace collapsed, as a substring) as
    a false positive and a "with" passage not found as a false negative. This script makes the
    same judgement per passage and sorts the wrong ones by what they are, with the kinds of
    benches/lone_false_positives.py (comment, newsletter, share bar, byline, date line,
    caption, bio, teaser, navigation, short list item, other prose, other), each passage
    classified by the line of text that holds it (the kept text's line for a passage kept
    wrongly; for a passage missed, the line of --all, the whole page's text as `indexer extract
    --detector none` writes it, else the passage alone). Given a second run (--against), it also counts the passages
    only one of the two runs gets wrong: what a model that never saw the page adds or loses
    against the same model trained on it. Each passage kept wrongly is also placed against the
    page's article: in the kept text's first line (the headline), before the line of the first
    "with" passage found, after the line of the last, or between them.

Usage
    python3 benches/article_snippets_by_kind.py PRED.jsonl SNIPPETS.jsonl.gz \\
        [--all NONE.jsonl] [--against OTHER.jsonl] [--examples 3] [--seed 1] [--json]
    PRED.jsonl: JSON lines with "url" and "text" (`indexer extract -o`, or the held-out text
    `benches/hybrid.sh` writes: OUT/cv-both.jsonl).

Inputs
    Python 3 standard library only (and lone_false_positives.py beside this file).
"""
import argparse, collections, json, os, random, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lone_false_positives import TOKEN, classify, load  # noqa: E402


def collapsed(text):
    return " ".join((text or "").split())


def texts_of(path):
    return {r["url"]: r.get("text") or "" for r in load(path)} if path else {}


def line_index(lines, passage):
    """The index of the first of `lines` that holds `passage` (whitespace collapsed), or None."""
    wanted = collapsed(passage)
    return next((i for i, line in enumerate(lines) if wanted and wanted in collapsed(line)), None)


def line_holding(text, passage):
    """The line of `text` that holds `passage`, or None."""
    lines = (text or "").split("\n")
    at = line_index(lines, passage)
    return None if at is None else lines[at]


def place(text, label, passage):
    """Where a passage kept wrongly lies against the page's "with" passages."""
    lines = [line for line in (text or "").split("\n") if line.strip()]
    at = line_index(lines, passage)
    found = [i for i in (line_index(lines, p) for p in label.get("with") or []) if i is not None]
    if at is None or not found:
        return "not placed (across lines, or no passage to keep found)"
    if at == 0:
        return "the first line (the headline)"
    if at < min(found):
        return "before the article"
    if at > max(found):
        return "after the article"
    return "among the article's lines"


def judged(texts, labels):
    """{(url, "with"|"without", index): True when the run whose text is `texts` (by URL)
    judges that passage wrongly}."""
    texts = {url: collapsed(text) for url, text in texts.items()}
    wrong = {}
    for url, label in labels.items():
        text = texts.get(url, "")
        for side in ("with", "without"):
            for i, passage in enumerate(label.get(side) or []):
                found = collapsed(passage) in text
                wrong[(url, side, i)] = found if side == "without" else not found
    return wrong


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("pred")
    ap.add_argument("snippets")
    ap.add_argument("--all")
    ap.add_argument("--against")
    ap.add_argument("--examples", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    labels = {r["url"]: r for r in load(a.snippets)}
    kept_texts = texts_of(a.pred)
    all_texts = texts_of(a.all)
    wrong = judged(kept_texts, labels)
    other = judged(texts_of(a.against), labels) if a.against else None

    def passage(key):
        url, side, i = key
        return labels[url][side][i]

    def kind_of(text):
        return classify(text, len(TOKEN.findall(text)), False)

    totals = collections.Counter(side for (_, side, _) in wrong)
    places = collections.Counter(
        place(kept_texts.get(key[0]), labels[key[0]], passage(key))
        for key, is_wrong in wrong.items() if is_wrong and key[1] == "without")
    rows = collections.defaultdict(lambda: {"fp": 0, "fn": 0, "only_fp": 0, "only_fn": 0, "texts": []})
    for key, is_wrong in wrong.items():
        if not is_wrong:
            continue
        side = key[1]
        label = "fp" if side == "without" else "fn"
        only = other is not None and not other[key]
        text = passage(key)
        source = kept_texts if side == "without" else all_texts
        context = line_holding(source.get(key[0]), text) or text
        row = rows[kind_of(context)]
        row[label] += 1
        if only:
            row["only_" + label] += 1
        row["texts"].append((label, collapsed(context)[:70]))
    fp = sum(r["fp"] for r in rows.values())
    fn = sum(r["fn"] for r in rows.values())
    tp = totals["with"] - fn
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / totals["with"] if totals["with"] else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    rng = random.Random(a.seed)
    kinds = sorted(rows.items(), key=lambda kv: -(kv[1]["fp"] + kv[1]["fn"]))
    out = {
        "pages": len(labels), "with": totals["with"], "without": totals["without"],
        "false_positives": fp, "false_negatives": fn,
        "precision": precision, "recall": recall, "f1": f1,
        "false_positives_by_place": dict(places.most_common()),
        "kinds": [{"kind": k, "false_positives": v["fp"], "false_negatives": v["fn"],
                   **({"only_this_run_fp": v["only_fp"], "only_this_run_fn": v["only_fn"]} if other else {}),
                   "examples": rng.sample(v["texts"], min(a.examples, len(v["texts"])))}
                  for k, v in kinds],
    }
    if a.json:
        print(json.dumps(out, indent=1, ensure_ascii=False))
        return
    print(f"pages {out['pages']}; passages with {out['with']}, without {out['without']}; "
          f"P {precision:.4f} R {recall:.4f} F1 {f1:.4f}; false positives {fp}, false negatives {fn}")
    head = "| kind | false positives | false negatives |"
    rule = "|---|---:|---:|"
    if other:
        head += " FP only in this run | FN only in this run |"
        rule += "---:|---:|"
    print("\nfalse positives by place: " + ", ".join(f"{k} {v}" for k, v in places.most_common()))
    print("\n" + head + "\n" + rule)
    for k in out["kinds"]:
        line = f"| {k['kind']} | {k['false_positives']} | {k['false_negatives']} |"
        if other:
            line += f" {k['only_this_run_fp']} | {k['only_this_run_fn']} |"
        print(line)
    print()
    for k in out["kinds"]:
        print(f"{k['kind']}: " + " || ".join(f"{side} {text!r}" for side, text in k["examples"]))


if __name__ == "__main__":
    main()
