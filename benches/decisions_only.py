#!/usr/bin/env python3
"""Reads `indexer extract --explain` JSON lines on stdin and prints each page's decisions
alone — its URL, then each block's kept flag, rule and score — so that two builds whose text
differs (a change to how kept text is written) can be checked to decide the same."""
import json
import sys

for line in sys.stdin:
    page = json.loads(line)
    blocks = [[b.get("kept"), b.get("rule"), b.get("score")] for b in page.get("blocks", [])]
    print(json.dumps([page.get("url"), blocks], separators=(",", ":")))
