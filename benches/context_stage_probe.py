#!/usr/bin/env python3
"""Issue 56: would a second, learned stage over the model's block scores help lone pages?

What it measures
    The one-pass model scores each block of a lone page on its own features and those of its
    neighbours' shape; what it adds on lone articles is mostly prose after the article
    (docs/MEASUREMENTS.md, "The articles held out"). A stacked second stage — a model that
    reads each block's score beside the scores around it (the blocks before and after, the
    highest score before and after, the share of the page's confident words before it, its
    distance to the nearest confident block, whether it lies between the first and the last
    of them) — is the usual remedy. This probe measures the most that remedy could give
    before any of it is built into the product:

    - the blocks and scores of `indexer extract --explain` with the built-in models, on a
      lone-page set no model was trained on (so the scores are what an unseen page gets);
    - each block labelled content when at least half its words are the gold's (each gold
      word counted once, in page order);
    - a second stage fitted with scikit-learn's HistGradientBoostingClassifier on the first
      set, five folds by page (each page is its own site), blocks weighted by their words;
      blocks decided by a rule other than `content_probability` (reader comments, the
      title) keep their decision;
    - the kept text scored as shared/tools/score.py scores it (bag-of-words micro and macro
      F1), at several second-stage thresholds, beside the built-in decisions; and the stage
      fitted on the whole first set applied to the second set, as a model trained on one
      labelled set meets another's pages.

    Folds inside one set share its labelling conventions, so its figure is the most a second
    stage could give; the second set's is nearer what the product would see.

Usage
    indexer extract -q --keep-empty --no-lang --explain dragnet.warc.gz -o DRAGNET.jsonl
    indexer extract -q --keep-empty --no-lang --explain cleaneval-dev.warc.gz -o CLEANEVAL.jsonl
    python3 benches/context_stage_probe.py DRAGNET.jsonl dragnet.labels.jsonl.gz \\
        CLEANEVAL.jsonl cleaneval-dev.labels.jsonl.gz

    Needs numpy and scikit-learn (`pip install scikit-learn`); not run by CI.
"""
import collections
import gzip
import json
import math
import re
import sys

import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.model_selection import GroupKFold

TOKEN = re.compile(r"\w+", re.UNICODE)
# The built-in models' keep threshold.
KEEP_THRESHOLD = 0.6


def words(text):
    return [token.lower() for token in TOKEN.findall(text or "")]


def lines_of(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as file:
        for line in file:
            if line.strip():
                yield json.loads(line)


def context_features(blocks):
    """A row per block: its score and the scores around it."""
    count = len(blocks)
    scores = np.array(
        [b["score"] if b.get("score") is not None else float(b["kept"]) for b in blocks]
    )
    sizes = np.array([len(words(b["text"])) for b in blocks], float)
    by_model = np.array([b["rule"] == "content_probability" for b in blocks])
    confident = (scores >= KEEP_THRESHOLD) & by_model
    confident_words = sizes * confident
    total = confident_words.sum() + 1e-9
    before = np.concatenate([[0], np.cumsum(confident_words)[:-1]])
    after = total - before - confident_words
    best_before = np.maximum.accumulate(np.concatenate([[0], scores[:-1]]))
    best_after = np.maximum.accumulate(np.concatenate([[0], scores[::-1][:-1]]))[::-1]
    places = np.where(confident)[0]
    first, last = (places[0], places[-1]) if len(places) else (-1, -1)
    rows = []
    for at in range(count):
        def score(j):
            return scores[j] if 0 <= j < count else -1.0

        def size(j):
            return math.log1p(sizes[j]) if 0 <= j < count else -1.0

        others = np.abs(places - at)
        nearest = others[others > 0].min() if (others > 0).any() else 99
        rows.append([
            scores[at], math.log1p(sizes[at]), score(at - 1), score(at + 1), score(at - 2),
            score(at + 2), size(at - 1), size(at + 1), best_before[at], best_after[at],
            before[at] / total, after[at] / total, min(nearest, 99), float(at < first),
            float(at > last), float(first <= at <= last), at - last if last >= 0 else 99,
            first - at if first >= 0 else 99, scores.max(), scores.mean(), total, at / count,
        ])
    return np.array(rows), sizes, by_model, np.array([b["kept"] for b in blocks])


def block_labels(blocks, gold_text):
    gold = collections.Counter(words(gold_text))
    labels = []
    for block in blocks:
        tokens = words(block["text"])
        found = 0
        for token in tokens:
            if gold[token] > 0:
                gold[token] -= 1
                found += 1
        labels.append(1 if tokens and found / len(tokens) >= 0.5 else 0)
    return np.array(labels)


def load(explained, labels):
    gold = {
        r["url"]: r["content_text"]
        for r in lines_of(labels)
        if r.get("usable") is not False and r.get("content_text") is not None
    }
    pages = []
    for page in lines_of(explained):
        if page["url"] not in gold:
            continue
        blocks = page["blocks"]
        rows = None
        if blocks:
            features, sizes, by_model, kept = context_features(blocks)
            rows = (features, sizes, by_model, kept, block_labels(blocks, gold[page["url"]]))
        pages.append((blocks, gold[page["url"]], rows))
    return pages


def f1(tp, fp, fn):
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    return 2 * precision * recall / (precision + recall) if precision + recall else 0.0


def scored(pages, keep):
    """Micro and macro F1 of the text kept by `keep(page number, rows)`, as score.py counts."""
    totals, per_page = [0, 0, 0], []
    for number, (blocks, gold_text, rows) in enumerate(pages):
        kept_text = ""
        if rows is not None:
            kept_text = "\n".join(b["text"] for b, k in zip(blocks, keep(number, rows)) if k)
        gold, kept = collections.Counter(words(gold_text)), collections.Counter(words(kept_text))
        counts = (
            sum((kept & gold).values()),
            sum((kept - gold).values()),
            sum((gold - kept).values()),
        )
        totals = [a + b for a, b in zip(totals, counts)]
        per_page.append(f1(*counts))
    return f1(*totals), sum(per_page) / len(per_page)


def stage():
    return HistGradientBoostingClassifier(
        max_iter=200, learning_rate=0.1, max_leaf_nodes=15, early_stopping=False, random_state=1
    )


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    first = load(sys.argv[1], sys.argv[2])
    second = load(sys.argv[3], sys.argv[4])
    builtin = lambda number, rows: rows[3]
    print("set\tdecisions\tmicro F1\tmacro F1")
    for name, pages in (("first", first), ("second", second)):
        print("%s\tbuilt in\t%.4f\t%.4f" % ((name,) + scored(pages, builtin)))
    numbers = [n for n, page in enumerate(first) if page[2] is not None]
    features = np.vstack([first[n][2][0] for n in numbers])
    labels = np.concatenate([first[n][2][4] for n in numbers])
    weights = np.concatenate([first[n][2][1] for n in numbers]) + 1
    groups = np.concatenate([[n] * len(first[n][2][4]) for n in numbers])
    held_out = np.zeros(len(labels))
    for fit, test in GroupKFold(5).split(features, labels, groups):
        model = stage().fit(features[fit], labels[fit], sample_weight=weights[fit])
        held_out[test] = model.predict_proba(features[test])[:, 1]
    by_page, start = {}, 0
    for n in numbers:
        end = start + len(first[n][2][4])
        by_page[n] = held_out[start:end]
        start = end
    whole = stage().fit(features, labels, sample_weight=weights)
    for threshold in (0.3, 0.4, 0.5, 0.6):
        figures = scored(
            first, lambda n, rows: np.where(rows[2], by_page[n] >= threshold, rows[3])
        )
        print("first\tsecond stage, 5 folds, at %.1f\t%.4f\t%.4f" % ((threshold,) + figures))
        figures = scored(
            second,
            lambda n, rows: np.where(rows[2], whole.predict_proba(rows[0])[:, 1] >= threshold, rows[3]),
        )
        print("second\tsecond stage from the first, at %.1f\t%.4f\t%.4f" % ((threshold,) + figures))


if __name__ == "__main__":
    main()
