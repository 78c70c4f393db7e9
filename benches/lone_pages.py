#!/usr/bin/env python3
"""Two-pass held-out text as a two-pass build decides it: a site of one page by the one-pass model.

A two-pass `hybrid` build with the built-in models decides a site of one page as a one-pass
run does (the one-pass model, on the evidence of a site's first page). Cross-validation of the
two-pass model decides every held-out page with the two-pass fold model, so this takes each
held-out line of a page that is alone on its site in its sample (one page per site, or a site
of one page) from the one-pass cross-validation instead: the text the one-pass fold model
keeps there, which is what the rule does with a model that never saw the site.

Which pages are alone: a site's pages in an input are counted from `indexer extract --detector
none` of that input (the `site` of every line; one file per input that `eval` reads alone, as
a host may be in two), and a sample of K pages holds min(K, pages).

usage: benches/lone_pages.py TWO_PASS_CV ONE_PASS_CV SITES.jsonl [SITES.jsonl ...] > OUT
"""
import collections
import json
import sys


def main():
    two_pass, one_pass, *site_files = sys.argv[1:]
    if not site_files:
        sys.exit(__doc__)
    pages_of = collections.Counter()
    site_of = {}
    for at, path in enumerate(site_files):
        with open(path, encoding="utf-8") as lines:
            for line in lines:
                page = json.loads(line)
                pages_of[(at, page["site"])] += 1
                site_of[page["url"]] = (at, page["site"])
    one = {}
    with open(one_pass, encoding="utf-8") as lines:
        for line in lines:
            held = json.loads(line)
            one[(held["url"], held.get("pages_per_site"))] = line
    taken = kept = 0
    with open(two_pass, encoding="utf-8") as lines:
        for line in lines:
            held = json.loads(line)
            size = held.get("pages_per_site")
            site = site_of.get(held["url"])
            pages = pages_of.get(site, 0)
            alone = pages == 1 or size in (1, "1")
            key = (held["url"], size)
            if alone and key in one:
                sys.stdout.write(one[key])
                taken += 1
            else:
                sys.stdout.write(line)
                kept += 1
    print(f"lone_pages.py: {taken} held-out lines from the one-pass run (pages alone on their "
          f"site), {kept} from the two-pass run", file=sys.stderr)


if __name__ == "__main__":
    main()
