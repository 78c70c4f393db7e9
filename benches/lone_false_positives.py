#!/usr/bin/env python3
"""Issue 56, item 2: what the extra text `hybrid` keeps on lone pages is, by kind.

What it measures
    Reads `indexer extract --explain` JSON lines (each page's "blocks": [{"text", "kept",
    "rule", "score", "threshold"}]) and the set's gold `content_text`. Per page, the
    false-positive (FP) tokens are score.py's: the bag of \\w+ tokens (lower-cased) of the kept
    blocks minus the gold bag. Each FP token of type t is shared out over the kept blocks that
    hold t, in proportion to their count of t, so per-block FP figures sum exactly to the
    page's FP count. A kept block is "mostly FP" when at least half its tokens are FP.

    Mostly-FP blocks are classified by the first matching heuristic (regular expressions on
    the block text, see KINDS below; "after a comment header" is positional: any block after
    one whose text looks like "12 Comments", "Leave a Reply", "Post a comment" ...):
      comments / comment form, newsletter/cookie/subscribe, share/social bar, tag/category
      list, byline/author, date line, copyright/legal, caption/photo credit, author bio,
      related/recommended teasers, navigation/breadcrumb, short list item (<= 4 words, no
      sentence punctuation: sidebar lists, archives, city/country lists), other prose
      (>= 12 words), other.
    Prints: FP tokens by kind (share of all FP tokens, blocks, mean model score, decision
    rules), FP tokens by decision rule, FP in blocks that are mostly gold ("mixed"), and up to
    3 example texts per kind (first 60 characters).

Usage
    indexer extract -q --keep-empty --explain SHARED/corpus/lone/dragnet.warc.gz -o dragnet.explain.jsonl
    python3 benches/lone_false_positives.py dragnet.explain.jsonl \\
        SHARED/corpus/lone/dragnet.labels.jsonl.gz [--examples 3] [--seed 1] [--json]

Inputs
    An --explain JSONL (plain or .gz) and the labels JSONL(.gz) with "url" and "content_text".
    Python 3 standard library only.
"""
import argparse, collections, gzip, json, random, re

TOKEN = re.compile(r"\w+", re.UNICODE)
MONTH = r"(jan(uary)?|feb(ruary)?|mar(ch)?|apr(il)?|may|june?|july?|aug(ust)?|sep(t(ember)?)?|oct(ober)?|nov(ember)?|dec(ember)?)"
DATE = re.compile(rf"\b{MONTH}\.?\s+\d{{1,2}}\b|\b\d{{1,2}}\s+{MONTH}\b|\b\d{{1,4}}[/.-]\d{{1,2}}[/.-]\d{{2,4}}\b|\b(19|20)\d\d\b"
                  r"|\b(mon|tues?|wed(nes)?|thu(rs)?|fri|sat(ur)?|sun)(day)?\b|\bago\b|\b\d{1,2}:\d\d\b", re.I)
COMMENT_HEADER = re.compile(r"^\W*(\d+\s+)?(comments?|responses?|replies|discussion)\b|leave a (reply|comment)"
                            r"|(post|add|write) (a|your) comment|^\W*\d+\s+(comments?|responses?|replies)\b"
                            r"|comments? (are|is) closed|^\W*(reader )?comments\s*(\(\d+\))?\W*$", re.I)
RE = lambda p: re.compile(p, re.I)
# (kind, predicate(text, words)) in order; the first that matches names the block's kind.
KINDS = [
    ("comments / comment form", lambda t, n: bool(RE(
        r"\bsays:|\bwrote:|^\W*reply\b|\breply\W*$|posted by:?\s*\S.*\b(at|\|)\b|\bcomments?\b.*\b(closed|policy|feed)"
        r"|your (email|e-mail)( address)? will not|name \(required\)|email \(required|\bcaptcha|letters and numbers you see"
        r"|leave a (reply|comment)|post a comment|add a comment|\bcommenting\b|\bcommenters?\b|log in to comment"
        r"|^\W*\d+\s+(comments?|responses?|replies)\b|\bpermalink\b").search(t))),
    ("newsletter/cookie/subscribe", lambda t, n: bool(RE(
        r"subscri|newsletter|sign(ing)? up|cookie|e-?mail address|in-?box|\brss\b|feed ?burner|get (our|the) (latest|updates)"
        r"|delivered (to|straight)|privacy policy.*(email|newsletter)|enter your e-?mail|register|log ?in\b").search(t))),
    ("share/social bar", lambda t, n: n <= 30 and bool(RE(
        r"\bshare\b|\btweet|facebook|twitter|google\s*\+|google plus|pinterest|linkedin|digg|stumble|reddit|delicious"
        r"|e-?mail (this|to a friend)|\bprint\b|\bfont\b|\blike us\b|follow (us|me)|\+1\b|\brecommend\b").search(t))),
    ("tag/category list", lambda t, n: bool(RE(
        r"^\W*(tags?|tagged( with)?|filed (under|in)|categor(y|ies|ized)|posted in|topics?|labels?|keywords?)\b\s*:?").search(t))),
    ("byline/author", lambda t, n: n <= 20 and bool(RE(
        r"^\W*(by|posted by|written by|author|words by|story by|from)\b\s*:?|^\W*posted (on|at)\b").search(t))),
    ("date line", lambda t, n: n <= 12 and bool(DATE.search(t))),
    ("copyright/legal", lambda t, n: bool(RE(
        r"©|\(c\) ?\d{4}|copyright|all rights reserved|may not be (published|reproduced)|terms of (use|service)"
        r"|disclaimer|affiliate|disclosure|creative commons").search(t))),
    ("caption/photo credit", lambda t, n: n <= 80 and bool(RE(
        r"\bphoto(graph)?s?\b|\bimage\b|\bcredit\b|getty|\(ap\)|ap photo|reuters|\bafp\b|courtesy|pictured|photographer"
        r"|\bcaption\b|\b(left|right|center|above|below)\)|\bgallery\b|\bslideshow\b").search(t))),
    ("author bio", lambda t, n: n <= 120 and bool(RE(
        r"about the author|about me\b|\bis (a|an|the) [^.]{0,60}\b(writer|editor|journalist|author|founder|reporter|blogger"
        r"|columnist|contributor|president|ceo|professor|correspondent|director)\b|follow (him|her)\b|\bhis (book|blog)\b"
        r"|\bher (book|blog)\b|@\w+\)? is\b|my books?\b|\bi wr(ote|ite)\b").search(t))),
    ("related/recommended teasers", lambda t, n: bool(RE(
        r"related|you (may|might) (also|like)|recommended|more (from|on|in|about|stories|news)|popular|most (read|viewed|emailed|shared)"
        r"|read more|see also|(previous|next|older|newer) (post|article|entry|story)|trending|featured|latest|top stories|»\s*$"
        r"|\bwatch\b|\bvideo\b|\bpast articles\b").search(t))),
    ("navigation/breadcrumb", lambda t, n: bool(RE(
        r"^\W*home\b|\barchives?\b|\bcontact( us| me)?\b|\babout( us)?\b|\bmenu\b|\bsearch\b|skip to|»|›|\s>\s|\|\s*main\s*\|"
        r"|^\W*(next|previous|prev|older|newer|back)\b|\bsee all\b|\bsitemap\b|\bsite map\b").search(t))),
    ("short list item", lambda t, n: n <= 4 and not re.search(r"[.!?]\s*$", t.strip())),
    ("other prose", lambda t, n: n >= 12),
    ("other", lambda t, n: True),
]


def bag(text):
    return collections.Counter(t.lower() for t in TOKEN.findall(text or ""))


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        for line in f:
            if line.strip():
                yield json.loads(line)


def classify(text, words, after_comment_header):
    if after_comment_header:
        return "comments / comment form"
    t = " ".join(text.split())
    for kind, pred in KINDS:
        if pred(t, words):
            return kind


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("explain")
    ap.add_argument("labels")
    ap.add_argument("--examples", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    gold = {r["url"]: r.get("content_text") or "" for r in load(a.labels)}
    fp_total = mixed_fp = 0.0
    pages = 0
    by_kind = collections.defaultdict(lambda: {"fp": 0.0, "tokens": 0, "blocks": 0, "score": 0.0,
                                               "rules": collections.Counter(), "texts": []})
    by_rule = collections.Counter()
    floor_pages = set()
    for r in load(a.explain):
        if r["url"] not in gold:
            continue
        pages += 1
        g = bag(gold[r["url"]])
        blocks = r.get("blocks") or []
        kept_bags = [bag(b["text"]) if b["kept"] else None for b in blocks]
        kb = sum((x for x in kept_bags if x), collections.Counter())
        fp = kb - g
        after_header = False
        for b, bb in zip(blocks, kept_bags):
            words = len(TOKEN.findall(b["text"] or ""))
            header_here = words <= 12 and bool(COMMENT_HEADER.search(" ".join((b["text"] or "").split())))
            if bb:
                n = sum(bb.values())
                f = sum(fp[t] * c / kb[t] for t, c in bb.items() if fp[t])
                fp_total += f
                by_rule[b["rule"]] += f
                if b["rule"] == "page_own_text":
                    floor_pages.add(r["url"])
                if f >= 0.5 * n:
                    k = by_kind[classify(b["text"], words, after_header)]
                    k["fp"] += f; k["tokens"] += n; k["blocks"] += 1; k["score"] += b.get("score") or 0.0
                    k["rules"][b["rule"]] += f
                    k["texts"].append(" ".join(b["text"].split())[:60])
                else:
                    mixed_fp += f
            if header_here:
                after_header = True
    rng = random.Random(a.seed)
    kinds = sorted(by_kind.items(), key=lambda kv: -kv[1]["fp"])
    out = {"pages": pages, "fp_tokens": round(fp_total), "fp_in_mixed_blocks": round(mixed_fp),
           "pages_with_page_own_text": len(floor_pages),
           "by_rule": {k: round(v) for k, v in by_rule.most_common()},
           "kinds": [{"kind": k, "fp_tokens": round(v["fp"]), "share": v["fp"] / fp_total, "blocks": v["blocks"],
                      "mean_score": v["score"] / v["blocks"],
                      "rules": {r: round(x / v["fp"], 3) for r, x in v["rules"].most_common()},
                      "examples": rng.sample(v["texts"], min(a.examples, len(v["texts"])))} for k, v in kinds]}
    if a.json:
        print(json.dumps(out, indent=1, ensure_ascii=False))
        return
    print(f"pages {pages}; FP tokens {fp_total:.0f}; in mixed blocks (< half FP) {mixed_fp:.0f} "
          f"({mixed_fp / fp_total:.1%}); pages where page_own_text kept blocks {len(floor_pages)}")
    print("FP tokens by decision rule: " + ", ".join(f"{k} {v / fp_total:.1%}" for k, v in by_rule.most_common()))
    print("\n| kind | share of FP tokens | blocks | mean score | FP by rule |\n|---|---|---|---|---|")
    for k in out["kinds"]:
        rules = ", ".join(f"{r} {x:.0%}" for r, x in list(k["rules"].items())[:3])
        print(f"| {k['kind']} | {k['share']:.1%} | {k['blocks']} | {k['mean_score']:.2f} | {rules} |")
    print(f"| (FP in mixed blocks) | {mixed_fp / fp_total:.1%} | | | |")
    print()
    for k in out["kinds"]:
        print(f"{k['kind']}: " + " || ".join(repr(e) for e in k["examples"]))


if __name__ == "__main__":
    main()
