#!/usr/bin/env python3
"""Picks the regression inputs of one fuzz target from a libFuzzer merge control file.

Greedy set cover over the coverage features each input reaches (the `FT` lines of a control
file written by `-set_cover_merge=1`, which lists every feature of every input; `COV` lines
only list the edges first seen at that input), largest gain first and smaller files on ties,
capped at 200 files and 2,000,000 bytes. Each input is cut to the -max_len the merge ran with, so that the committed file is
the unit whose coverage was measured.

    python3 fuzz/select_regressions.py CONTROL_FILE OUT_DIR MAX_LEN

See fuzz/README.md for the merge command that writes CONTROL_FILE.
"""

import hashlib
import os
import sys

MAX_FILES = 200
MAX_BYTES = 2_000_000


def main():
    control, out, max_len = sys.argv[1], sys.argv[2], int(sys.argv[3])
    lines = open(control).read().splitlines()
    count = int(lines[0])
    files = lines[2 : 2 + count]
    features = {}
    for line in lines[2 + count :]:
        if line.startswith("FT "):
            parts = line.split()
            features[int(parts[1])] = set(map(int, parts[2:]))
    size = {i: min(os.path.getsize(files[i]), max_len) for i in features}
    universe = set().union(*features.values())
    covered, chosen, total = set(), [], 0
    while len(chosen) < MAX_FILES:
        best = max(
            (i for i in features if i not in chosen and total + size[i] <= MAX_BYTES),
            key=lambda i: (len(features[i] - covered), -size[i]),
            default=None,
        )
        if best is None or not features[best] - covered:
            break
        chosen.append(best)
        covered |= features[best]
        total += size[best]
    os.makedirs(out, exist_ok=True)
    for i in chosen:
        with open(files[i], "rb") as f:
            data = f.read(max_len)
        with open(os.path.join(out, hashlib.sha1(data).hexdigest()), "wb") as f:
            f.write(data)
    print(f"{len(chosen)} files, {total} bytes, {len(covered)} of {len(universe)} features")


if __name__ == "__main__":
    main()
