#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets to fuzz/corpus/<target>/ (not committed).

Seeds come from the committed WARC files (tests/data/fixtures/, data/*.warc.gz) plus a few
small hand-made HTTP messages for the content codings; every seed is under 64 KB. Standard
library only. Run from anywhere: python3 fuzz/make_seeds.py [CORPUS_DIR]
"""

import gzip
import hashlib
import re
import sys
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "data" / "fixtures"
DATA = ROOT / "data"
CORPUS = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "fuzz" / "corpus"
MAX_SEED = 64 * 1024

# "<!DOCTYPE html><title>Brotli</title><p>brotli encoded body, brotli encoded body</p>\n"
# compressed with the Rust `brotli` crate (quality 5, window 22), so that a seed covers the
# compressed path of the brotli decoder (Python has no brotli module).
BROTLI_HTML = bytes.fromhex(
    "1b5300004437d72d6974c15064c114c5221c94f37270c809d0856e0987d0164ce444cadbedcd08807ac4"
    "9d77fa224c5f260495fe90535f21e2b614"
)


def members(raw):
    """The gzip members of a file, as (offset, bytes) pairs."""
    out, pos = [], 0
    while pos < len(raw):
        d = zlib.decompressobj(31)
        d.decompress(raw[pos:])
        end = len(raw) - len(d.unused_data)
        out.append((pos, raw[pos:end]))
        if not d.eof:
            break
        pos = end
    return out


def records(plain):
    """(type, headers, block) of each record of a plain WARC file, framed by Content-Length."""
    pos = 0
    while True:
        start = plain.find(b"WARC/", pos)
        if start < 0:
            return
        crlf, lf = plain.find(b"\r\n\r\n", start), plain.find(b"\n\n", start)
        if crlf < 0 and lf < 0:
            return
        if crlf < 0 or (0 <= lf < crlf):
            head_end, sep = lf, 2
        else:
            head_end, sep = crlf, 4
        head = plain[start:head_end]
        length = re.search(rb"(?im)^Content-Length:\s*(\d+)", head)
        kind = re.search(rb"(?im)^WARC-Type:\s*(\S+)", head)
        if not length:
            pos = head_end + sep
            continue
        block = plain[head_end + sep : head_end + sep + int(length.group(1))]
        yield (kind.group(1).decode().lower() if kind else ""), head, block
        pos = head_end + sep + int(length.group(1))


def read_plain(path):
    raw = path.read_bytes()
    return gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw


def http_body(block):
    """The body of an HTTP message and its head (lower-cased)."""
    for sep in (b"\r\n\r\n", b"\n\n"):
        i = block.find(sep)
        if i >= 0:
            return block[:i].lower(), block[i + len(sep) :]
    return block.lower(), b""


def write(target, name, data):
    if not data or len(data) >= MAX_SEED:
        return
    folder = CORPUS / target
    folder.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha1(data).hexdigest()[:12]
    (folder / f"seed-{name}-{digest}").write_bytes(data)


def warc_seeds():
    for path in sorted(FIXTURES.glob("*.warc*")):
        raw = path.read_bytes()
        if len(raw) < MAX_SEED:
            write("warc_records", path.name, raw)
            continue
        if raw[:2] != b"\x1f\x8b":
            # A large plain file: the records that start in the first 64 KB, cut before the
            # last of them.
            cut = raw.rfind(b"\nWARC/", 0, MAX_SEED) + 1
            write("warc_records", path.name + "-head", raw[:cut])
            continue
        # Large gzip fixtures: the first members (one record each) that fit.
        head = b""
        for _, member in members(raw):
            if len(head) + len(member) >= MAX_SEED:
                break
            head += member
        write("warc_records", path.name + "-head", head)
    # Plain (uncompressed) WARC text, which mutates far better than deflate data.
    for name, count in [
        ("warcio-example.warc.gz", 6),
        ("resiliparse-cc2020-slice.warc.gz", 4),
        ("resiliparse-clueweb-quirk.warc.gz", 3),
    ]:
        raw = (FIXTURES / name).read_bytes()
        plain = b"".join(gzip.decompress(m) for _, m in members(raw)[:count])
        while len(plain) >= MAX_SEED and count > 1:
            count -= 1
            plain = b"".join(gzip.decompress(m) for _, m in members(raw)[:count])
        write("warc_records", name + "-plain", plain)


def http_seeds():
    picked = {
        "warcio-example.warc.gz": 1,
        "warcio-example-iana.org-chunked.warc": 1,
        "resiliparse-cc2020-slice.warc.gz": 6,
        "resiliparse-clueweb-quirk.warc.gz": 2,
        "dolma-sample-0000.warc.gz": 3,
        "dolma-sample-0001.warc.gz": 3,
    }
    for name, count in picked.items():
        if not (FIXTURES / name).exists():
            continue
        blocks = [
            b for kind, _, b in records(read_plain(FIXTURES / name)) if kind == "response"
        ]
        blocks = [b for b in blocks if len(b) < MAX_SEED]
        for i, block in enumerate(blocks[:count]):
            write("http_page", f"{name}-{i}", block)
    # One of each content coding and a few transfer codings, on a small page.
    html = b"<!DOCTYPE html><title>Coded</title><p>a small encoded body</p>\n"
    ok = b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n"
    raw_deflate = zlib.compressobj(6, zlib.DEFLATED, -15)
    raw_deflate = raw_deflate.compress(html) + raw_deflate.flush()
    gz = gzip.compress(html, mtime=0)
    chunked = b"".join(b"%x\r\n%s\r\n" % (len(c), c) for c in (gz[:20], gz[20:])) + b"0\r\n\r\n"
    for name, head, body in [
        ("gzip", b"Content-Encoding: gzip\r\n", gz),
        ("deflate-zlib", b"Content-Encoding: deflate\r\n", zlib.compress(html)),
        ("deflate-raw", b"Content-Encoding: deflate\r\n", raw_deflate),
        ("brotli", b"Content-Encoding: br\r\n", BROTLI_HTML),
        ("gzip-gzip", b"Content-Encoding: gzip, gzip\r\n", gzip.compress(gz, mtime=0)),
        ("chunked-gzip", b"Transfer-Encoding: chunked\r\nContent-Encoding: gzip\r\n", chunked),
        ("utf16", b"", "\ufeff<html><p>UTF-16 text</p>".encode("utf-16-le")),
        (
            "meta-charset",
            b"",
            "<html><meta charset=windows-1251><p>Привет</p>".encode("cp1251"),
        ),
    ]:
        write("http_page", name, ok + head + b"\r\n" + body)


def segment_seeds():
    for path in sorted(DATA.glob("*.warc.gz")):
        kept = 0
        for kind, _, block in records(read_plain(path)):
            head, body = http_body(block)
            if kind != "response" or len(body) >= MAX_SEED or b"content-encoding" in head:
                continue
            write("segment", path.stem, body)
            kept += 1
            if kept == 3:
                break
    # Decoded text in other scripts: Japanese (bigrams) and Russian.
    for name, encoding in [
        ("resiliparse-clueweb-quirk.warc.gz", "euc_jp"),
        ("resiliparse-cc2020-slice.warc.gz", None),
    ]:
        for kind, _, block in records(read_plain(FIXTURES / name)):
            head, body = http_body(block)
            if kind != "response" or len(body) >= MAX_SEED:
                continue
            if encoding is None:
                if b"windows-1251" not in head:
                    continue
                text = body.decode("cp1251", "replace")
            else:
                text = body.decode(encoding, "replace")
            write("segment", name, text.encode())
            break
    write(
        "segment",
        "tables",
        b"<html><head><title>t</title></head><body><table><tr><td>a<td>b<tr><th>c</table>"
        b"<div><p>one<p>two<ul><li><a href=/x>x</a><li>y</ul></div>"
        b"<pre>line one\nline two</pre><script>var s;</script></body></html>",
    )


if __name__ == "__main__":
    warc_seeds()
    http_seeds()
    segment_seeds()
    for target in ("warc_records", "http_page", "segment"):
        files = list((CORPUS / target).iterdir())
        total = sum(f.stat().st_size for f in files)
        print(f"{target}: {len(files)} seeds, {total} bytes")
