#!/usr/bin/env python3
"""How often `extract`'s `lang` agrees with what each page says of itself.

usage: lang_accuracy.py WARC PAGES.jsonl

The reference is the page's own `<html lang="...">` attribute (its primary subtag, mapped to
ISO 639-3), read from the WARC's HTML with the standard library only; pages without one, or
with a language whatlang does not know, are not scored. Also prints the agreement with the
country-code TLD of the URL for the few TLDs of one clear language (de, at, fr, it, es, nl, pl,
ru, jp, cn), a rougher check. An attribute is the site's claim, not a label: templates copied
from English sites keep `lang="en"` on German text, so disagreement is an upper bound on error.
"""
import gzip, json, re, sys
from collections import Counter

ISO1_TO_3 = dict(
    af="afr", ar="ara", be="bel", bg="bul", bn="ben", ca="cat", cs="ces", cy="cym", da="dan",
    de="deu", el="ell", en="eng", eo="epo", es="spa", et="est", fa="pes", fi="fin", fr="fra",
    he="heb", hi="hin", hr="hrv", hu="hun", hy="hye", id="ind", it="ita", ja="jpn", ka="kat",
    ko="kor", la="lat", lt="lit", lv="lav", mk="mkd", nb="nob", no="nob", nl="nld", pl="pol",
    pt="por", ro="ron", ru="rus", sk="slk", sl="slv", sr="srp", sv="swe", th="tha", tr="tur",
    uk="ukr", ur="urd", vi="vie", zh="cmn",
)
TLD = dict(de="deu", at="deu", fr="fra", it="ita", es="spa", nl="nld", pl="pol", ru="rus", jp="jpn", cn="cmn")
LANG_ATTR = re.compile(rb"<html[^>]*?\slang\s*=\s*[\"']?([A-Za-z]{2,3})", re.I)


def html_langs(path):
    """URL -> primary language subtag of <html lang>, for each response record."""
    data = gzip.open(path).read()
    langs, pos = {}, 0
    while True:
        start = data.find(b"WARC/1.", pos)
        if start < 0:
            return langs
        end = data.find(b"\r\n\r\n", start)
        head = data[start:end].decode("utf-8", "replace")
        length = int(re.search(r"Content-Length:\s*(\d+)", head, re.I).group(1))
        url = re.search(r"WARC-Target-URI:\s*(\S+)", head)
        block = data[end + 4 : end + 4 + length]
        match = LANG_ATTR.search(block[:200_000])
        if url and match:
            langs[url.group(1).strip("<>")] = match.group(1).decode().lower()
        pos = end + 4 + length


def main():
    warc, pages = sys.argv[1], sys.argv[2]
    attrs = html_langs(warc)
    by_attr, by_tld, confusions, detected = Counter(), Counter(), Counter(), Counter()
    for line in open(pages):
        page = json.loads(line)
        lang = page["lang"]
        if not page["text"]:
            continue
        detected[lang] += 1
        claimed = ISO1_TO_3.get(attrs.get(page["url"], "")[:2])
        if claimed:
            by_attr[lang == claimed] += 1
            if lang != claimed:
                confusions[(claimed, lang)] += 1
        tld = page["site"].rsplit(".", 1)[-1]
        if tld in TLD:
            by_tld[lang == TLD[tld]] += 1
    total = sum(detected.values())
    print(f"pages with kept text: {total}; detected: {', '.join(f'{k}: {v}' for k, v in detected.most_common(8))}")
    n = sum(by_attr.values())
    print(f"agree with <html lang>: {by_attr[True]}/{n} = {by_attr[True] / max(n, 1):.3f}")
    print(f"  most common disagreements (attribute -> detected): {confusions.most_common(6)}")
    n = sum(by_tld.values())
    print(f"agree with a one-language TLD: {by_tld[True]}/{n} = {by_tld[True] / max(n, 1):.3f}")


main()
