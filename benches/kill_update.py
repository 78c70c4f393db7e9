#!/usr/bin/env python3
"""kill -9 during `add` and `delete` at random moments (issue 27): after each kill the index
must open (`stats` checks every file's checksum), hold the old or the new documents — never
a mixture — and take the next add.

Makes a base index of 90 % of the docs corpus; each run copies it, starts `add` of the other
10 % (or `delete --site` of one site), kills it after a random time within the command's
usual duration, and checks: the document count is the old or the new one, the added URLs
(or the deleted site's pages) are all there or none, and a full add or delete afterwards
succeeds with only the live generation left.

usage: kill_update.py INDEXER [RUNS]      prints one line: kill -9: R runs, W whole (O old, N new), M mixed
ADD_FLAGS are given to each add (e.g. ADD_FLAGS="--redecide touched"); SHARED is the shared
folder (by default the one beside the repository).
"""
import glob
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
# The shared corpora: SHARED, or the shared folder beside the repository.
SHARED = os.environ.get("SHARED", os.path.join(HERE, "..", "..", "shared"))


def run(*args, check=True):
    result = subprocess.run(args, capture_output=True, text=True)
    if check and result.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed: {result.stderr}")
    return result


def documents(binary, index):
    out = run(binary, "stats", index, "--json").stdout
    return json.loads(out)["index"]["documents"]


def total(binary, index, query):
    out = run(binary, "search", index, query, "--json", "-n", "1").stdout
    return json.loads(out)["total"]


def generations(index):
    return sorted(name for name in os.listdir(index) if name.startswith("gen-"))


def main():
    binary, runs = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 60
    rng = random.Random(27)
    work = tempfile.mkdtemp(prefix="kill-update-")
    try:
        base_input, added_input = f"{work}/base.warc.gz", f"{work}/added.warc.gz"
        run("python3", f"{HERE}/update_split.py", "10", base_input, added_input,
            *sorted(glob.glob(f"{SHARED}/corpus/docs/*.warc.gz")))
        base = f"{work}/base"
        run(binary, "-q", "build", "--index", base, base_input)
        old = documents(binary, base)
        added_urls = [json.loads(line)["url"] for line in run(
            binary, "-q", "extract", added_input).stdout.splitlines()]
        probe_urls = rng.sample(added_urls, 3)
        site = "docs.python.org"
        site_pages = total(binary, base, f"site:{site} the")

        def timed(args):
            copy = f"{work}/timing"
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(base, copy)
            start = time.monotonic()
            run(binary, "-q", *args(copy))
            seconds = time.monotonic() - start
            return seconds, documents(binary, copy)

        add_flags = os.environ.get("ADD_FLAGS", "").split()
        add_args = lambda index: ["add", "--index", index, added_input, *add_flags]
        delete_args = lambda index: ["delete", "--index", index, "--site", site]
        add_seconds, after_add = timed(add_args)
        delete_seconds, after_delete = timed(delete_args)

        whole = olds = news = mixed = 0
        problems = []
        for number in range(runs):
            kind = "add" if number % 2 == 0 else "delete"
            args, usual, new = ((add_args, add_seconds, after_add) if kind == "add"
                                else (delete_args, delete_seconds, after_delete))
            copy = f"{work}/run"
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(base, copy)
            process = subprocess.Popen([binary, "-q", *args(copy)],
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            # A little past the usual time too, so that some runs finish (and check "new").
            time.sleep(rng.uniform(0, usual * 1.2))
            process.send_signal(signal.SIGKILL)
            process.wait()

            count = documents(binary, copy)
            if kind == "add":
                present = [total(binary, copy, f"url:{url}") > 0 for url in probe_urls]
                is_old = count == old and not any(present)
                is_new = count == new and all(present)
            else:
                left = total(binary, copy, f"site:{site} the")
                is_old = count == old and left == site_pages
                is_new = count == new and left == 0
            if is_old or is_new:
                whole += 1
                olds += is_old
                news += is_new
            else:
                mixed += 1
                problems.append(f"run {number} ({kind}): {count} documents")
            # The next writer removes the killed one's generation and succeeds.
            run(binary, "-q", *args(copy))
            if documents(binary, copy) != new or len(generations(copy)) != 1:
                problems.append(f"run {number} ({kind}): the next {kind} left {generations(copy)}")
        for problem in problems:
            print(problem, file=sys.stderr)
        print(f"kill -9: {runs} runs ({runs - runs // 2} add, {runs // 2} delete; add "
              f"{add_seconds:.2f}s, delete {delete_seconds:.2f}s), {whole} whole "
              f"({olds} old, {news} new), {mixed} mixed, {len(problems) - mixed} failed next runs")
        return 1 if problems else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
