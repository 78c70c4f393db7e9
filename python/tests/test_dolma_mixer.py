"""The real dolma toolkit's mixer on `indexer extract --format dolma` output: a
`span_replacement` of the `indexer__template__dropped` runs scored ≥ 0.5 gives `indexer extract`'s
text, byte for byte, on every page; one of the `indexer__template__probability` spans at another
threshold takes the decision again without extracting again.

dolma runs as its command (`dolma -c CONFIG mix`) from a venv of its own, `$INDEXER_DOLMA_VENV`
or target/dolma-venv, which python/check.sh makes from python/requirements-dolma.txt (its pins
conflict with datatrove's, so it cannot share this suite's venv).
"""

import gzip
import json
import os
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from conftest import REPO

CRAWLS = sorted(REPO.glob("data/*.warc.gz"))


@pytest.fixture(scope="module")
def dolma_cmd():
    venv = Path(os.environ.get("INDEXER_DOLMA_VENV", REPO / "target" / "dolma-venv"))
    cmd = venv / "bin" / "dolma"
    if not cmd.is_file():
        pytest.fail(
            f"dolma's mixer is needed: no {cmd}; python/check.sh makes that venv "
            "(python/requirements-dolma.txt), or set INDEXER_DOLMA_VENV"
        )
    return cmd


@pytest.fixture(scope="module")
def dolma_dir(indexer_bin, tmp_path_factory):
    """`indexer extract data/*.warc.gz --format dolma -o DIR`: DIR."""
    out = tmp_path_factory.mktemp("dolma") / "indexer"
    subprocess.run(
        [str(indexer_bin), "extract", *map(str, CRAWLS), "--format", "dolma", "-o", str(out)],
        check=True,
        capture_output=True,
    )
    return out


@pytest.fixture(scope="module")
def extracted(indexer_bin):
    """`indexer extract data/*.warc.gz`'s texts, by URL (the same inputs in one run, as the
    site-level pass sees them together)."""
    done = subprocess.run(
        [str(indexer_bin), "extract", *map(str, CRAWLS)], check=True, capture_output=True
    )
    texts = {}
    for line in done.stdout.splitlines():
        page = json.loads(line)
        assert page["url"] not in texts
        texts[page["url"]] = page["text"]
    return texts


def read_docs(paths):
    """The documents of dolma's gzip-compressed JSON lines files, text by URL."""
    texts = {}
    for path in paths:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            for line in f:
                doc = json.loads(line)
                url = doc["metadata"]["url"]
                assert url not in texts, f"{url} twice"
                texts[url] = doc["text"]
    return texts


def mix(dolma_cmd, dolma_dir, work, attribute, min_score):
    """dolma's mixer over `dolma_dir` with one span replacement (spans of `attribute` scored
    ≥ `min_score` replaced with nothing): the mixed texts, by URL."""
    work.mkdir()
    out = work / "out"
    config = work / "mixer.yaml"
    config.write_text(
        f"""\
streams:
  - name: indexer
    documents:
      - {dolma_dir}/documents/*.jsonl.gz
    attributes:
      - indexer
    output:
      path: {out}
      max_size_in_bytes: 1000000000
    span_replacement:
      - span: $.attributes.{attribute}
        min_score: {min_score}
        replacement: ""
processes: 1
""",
        encoding="utf-8",
    )
    # Importing dolma downloads nltk's punkt tokenizer when it finds none (the mixer never uses
    # it): an empty one found stops that, so the run needs no network.
    nltk_data = work / "nltk_data"
    (nltk_data / "tokenizers" / "punkt").mkdir(parents=True)
    env = {**os.environ, "NLTK_DATA": str(nltk_data)}
    done = subprocess.run(
        [str(dolma_cmd), "-c", str(config), "mix"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    outputs = sorted(out.glob("*.json.gz"))
    assert outputs, f"the mixer wrote nothing in {out}: {done.stderr}"
    return read_docs(outputs)


def test_dropped_spans_give_extracts_text(dolma_cmd, dolma_dir, extracted, tmp_path):
    mixed = mix(dolma_cmd, dolma_dir, tmp_path / "dropped", "indexer__template__dropped", 0.5)
    assert len(extracted) >= 100
    assert mixed.keys() == extracted.keys()
    different = [url for url in extracted if mixed[url] != extracted[url]]
    assert not different, f"{len(different)} of {len(extracted)} differ, first {different[0]}"


def test_rethresholded_probability_keeps_between_none_and_extract(
    dolma_cmd, dolma_dir, extracted, tmp_path
):
    """Blocks of template probability ≥ 0.9 cut: every one of them is one `extract` drops too,
    so each page keeps every word `extract` keeps, and some more, within the whole text's."""
    whole = read_docs(sorted((dolma_dir / "documents").glob("*.jsonl.gz")))
    mixed = mix(dolma_cmd, dolma_dir, tmp_path / "p09", "indexer__template__probability", 0.9)
    assert mixed.keys() == extracted.keys() == whole.keys()
    for url in extracted:
        kept, extract_words, whole_words = (
            Counter(texts[url].split()) for texts in (mixed, extracted, whole)
        )
        assert extract_words <= kept <= whole_words, url
    totals = [
        sum(len(texts[url].split()) for url in extracted) for texts in (extracted, mixed, whole)
    ]
    # data/: 116,105 < 116,433 < 148,802 words (2026-11-29).
    assert totals[0] < totals[1] < totals[2], totals
