#!/usr/bin/env python3
"""Builds one search index from many WARC files with Apache Spark and the `indexer` binary.

A map-reduce in the way of Common Crawl's cc-pyspark: Spark only schedules, retries and moves
file names around; the work is done by the `indexer` binary, run as a subprocess in each task.

  1. map     one task per group of inputs (--maps, contiguous groups in input order): the task
             stages remote inputs (s3://, http(s)://) to a local temporary folder, then runs
             `indexer partition INPUTS --buckets B --out WORK/map/map-NNNNN --json -q`, which
             writes every record to bucket-K.warc.gz by a hash of its host, plus manifest.json.
  2. reduce  one task per non-empty bucket: `indexer build` of that bucket's files from every
             map folder, in map order (so each host's pages keep their crawl order), into the
             shard index WORK/shards/bucket-KKKKK.attempt-N of the attempt that succeeded.
  3. combine on the driver: `indexer combine SHARDS --index OUT --manifest MANIFESTS`, then a
             JSON report on stdout (stage wall times, tasks, bytes and records per bucket).

Every host lands in exactly one bucket, so each shard sees whole sites and the per-site template
detection is the same as in a single-machine build.

usage (local mode, 2 cores, each task tried up to 3 times):
  PYSPARK_PYTHON=$PWD/target/spark-venv/bin/python SPARK_LOCAL_IP=127.0.0.1 \\
  target/spark-venv/bin/spark-submit --master 'local[2,3]' --files target/release/indexer \\
      contrib/spark/indexer_spark.py --buckets 4 --work /tmp/w --index /tmp/out \\
      /tmp/crawl/part-*.warc.gz [-- --detector bloom]

WORK must be reachable under the same path by the driver and every executor: any local folder
in local mode, a shared mount (NFS, HDFS fuse) on a cluster. Local input paths must be too.
"""
import argparse
import collections
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

from pyspark import SparkConf, SparkContext, SparkFiles, TaskContext


class IndexerError(RuntimeError):
    """A failed `indexer` run; the message carries the command and the tail of its stderr, so
    Spark shows the cause in its task failure (and retries the task)."""


def run_indexer(command):
    """Runs `command` (a list), returns its stdout; raises IndexerError on a non-zero exit."""
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if result.returncode != 0:
        tail = result.stderr.decode("utf-8", "replace")[-4000:].rstrip()
        raise IndexerError(f"exit {result.returncode}: {' '.join(command)}\n{tail}")
    return result.stdout.decode("utf-8", "replace")


def resolve_binary(name, spark_files=""):
    """The path of the indexer binary, made executable.

    First the file of that name shipped with `spark-submit --files` (SparkFiles.get, on the
    driver and on executors alike), then an entry of spark.files with that name (the driver of
    a cluster), then `name` as a path, then `name` on PATH."""
    candidates = [SparkFiles.get(os.path.basename(name))]
    for uri in filter(None, spark_files.split(",")):
        parsed = urllib.parse.urlparse(uri)
        if parsed.scheme in ("", "file") and os.path.basename(parsed.path) == os.path.basename(name):
            candidates.append(urllib.request.url2pathname(parsed.path))
    candidates += [os.path.abspath(name), shutil.which(name)]
    for path in filter(None, candidates):
        if os.path.isfile(path):
            mode = os.stat(path).st_mode
            if not mode & stat.S_IXUSR:
                os.chmod(path, mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
            return path
    raise FileNotFoundError(f"indexer binary {name!r} not found: ship it with --files "
                            "or give a path every executor can reach with --binary")


def stage_input(url, folder, number):
    """A local path for one input: local paths and file:// URLs as they are; s3:// and
    http(s):// downloaded into `folder` (the binary then needs no object-store client)."""
    parsed = urllib.parse.urlparse(url)
    if parsed.scheme in ("", "file"):
        return urllib.request.url2pathname(parsed.path) if parsed.scheme else url
    # The file name keeps its .warc/.warc.gz ending, by which the indexer knows the format.
    local = os.path.join(folder, f"{number:05d}-{os.path.basename(parsed.path) or 'input'}")
    if parsed.scheme in ("s3", "s3a", "s3n"):
        import boto3  # only where there are s3 inputs

        boto3.client("s3").download_file(parsed.netloc, parsed.path.lstrip("/"), local)
    elif parsed.scheme in ("http", "https"):
        with urllib.request.urlopen(url) as response, open(local, "wb") as sink:
            shutil.copyfileobj(response, sink, 1 << 20)
    else:
        raise ValueError(f"unsupported input URL scheme: {url}")
    return local


def map_task(task, settings):
    """Stage 1, one task: partition a group of inputs into buckets; returns the manifest.

    Remote inputs are staged under a folder named after the task, not a random one, so that a
    retried task passes `partition` the same paths and writes the same bytes (a record's
    WARC-Record-ID is made from its input's path and offset)."""
    index, inputs = task
    out = os.path.join(settings["work"], "map", f"map-{index:05d}")
    binary = resolve_binary(settings["binary"])
    folder = os.path.join(tempfile.gettempdir(), f"indexer-map-{index:05d}")
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)
    try:
        local = [stage_input(url, folder, n) for n, url in enumerate(inputs)]
        command = [binary, "partition", *local, "--buckets", str(settings["buckets"]),
                   "--out", out, "--json", "-q"]
        manifest = json.loads(run_indexer(command))
        if index == settings["fail_map"] and TaskContext.get().attemptNumber() == 0:
            damage_map_output(out, manifest)
            raise RuntimeError(f"--fail-first-attempt-of-map {index}: first attempt stopped")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    # Staged copies are gone: name the inputs as the user gave them, in the manifest on disk
    # too (combine reads it), replaced whole.
    renamed = dict(zip(local, inputs))
    if any(path != url for path, url in renamed.items()):
        manifest["inputs"] = [renamed.get(path, path) for path in manifest.get("inputs", [])]
        for skipped in manifest.get("skipped_records", []):
            skipped["input"] = renamed.get(skipped.get("input"), skipped.get("input"))
        path = os.path.join(out, "manifest.json")
        with open(path + ".renamed", "w") as sink:
            json.dump(manifest, sink, indent=2)
        os.replace(path + ".renamed", path)
    manifest["attempt"] = TaskContext.get().attemptNumber()
    return manifest


def damage_map_output(out, manifest):
    """For --fail-first-attempt-of-map: leaves the folder as a task killed midway could, and
    worse: no manifest, every bucket file cut to half its length. The retry must replace all."""
    os.remove(os.path.join(out, "manifest.json"))
    for entry in manifest["files"]:
        path = os.path.join(out, entry["file"])
        os.truncate(path, os.path.getsize(path) // 2)


def reduce_task(task, settings):
    """Stage 2, one task: build the shard index of one bucket; returns (bucket, shard, seconds).

    Each attempt builds into a folder of its own (WORK/shards/bucket-KKKKK.attempt-N) and
    returns it; the driver combines the folders the successful attempts returned and removes
    the others. No two attempts ever write, rename or remove the same folder (two can run at
    once: speculation, a lost executor's task run again), and a late speculative copy cannot
    disturb the shard combine reads."""
    bucket, files = task
    started = time.monotonic()
    shard = os.path.join(settings["work"], "shards",
                         f"bucket-{bucket:05d}.attempt-{TaskContext.get().taskAttemptId()}")
    shutil.rmtree(shard, ignore_errors=True)
    command = [resolve_binary(settings["binary"]), "build", *files, "--index", shard,
               "--threads", str(settings["threads"]), "-q"]
    if settings["memory_budget"]:
        command += ["--memory-budget", settings["memory_budget"]]
    try:
        run_indexer(command + settings["build_args"])
    except Exception:
        shutil.rmtree(shard, ignore_errors=True)  # whatever a failed build left
        raise
    return bucket, shard, round(time.monotonic() - started, 3)


def parse_args(argv):
    """The driver's options; everything after `--` goes to `indexer build`."""
    build_args = []
    if "--" in argv:
        at = argv.index("--")
        argv, build_args = argv[:at], argv[at + 1:]
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("inputs", nargs="*", help="WARC files: paths, file://, s3://, http(s)://")
    parser.add_argument("--input-list", help="a file naming one input per line")
    parser.add_argument("--buckets", type=int, required=True, help="reduce tasks (shards)")
    parser.add_argument("--maps", type=int, help="map tasks (default: one per input)")
    parser.add_argument("--work", required=True, help="scratch folder every executor reaches")
    parser.add_argument("--index", required=True, help="the combined index to write")
    parser.add_argument("--binary", default="indexer", help="as shipped with --files, or a path")
    parser.add_argument("--threads", type=int, help="build threads (default: spark.task.cpus)")
    parser.add_argument("--memory-budget", help="passed to indexer build")
    parser.add_argument("--merge", action="store_true", help="passed to indexer combine")
    parser.add_argument("--fail-first-attempt-of-map", type=int, metavar="K",
                        help="testing: map task K fails its first attempt after writing")
    args = parser.parse_args(argv)
    if args.input_list:
        with open(args.input_list) as listing:
            args.inputs += [line.strip() for line in listing
                            if line.strip() and not line.lstrip().startswith("#")]
    if not args.inputs:
        parser.error("no inputs: give WARC paths or --input-list")
    # Relative paths are the driver's: executors may run in another folder.
    args.inputs = [os.path.abspath(url) if "://" not in url else url for url in args.inputs]
    if os.sep in args.binary:
        args.binary = os.path.abspath(args.binary)
    if args.buckets < 1 or (args.maps is not None and args.maps < 1):
        parser.error("--buckets and --maps must be at least 1")
    args.build_args = build_args
    return args


def groups_of(inputs, count):
    """`inputs` cut into `count` contiguous groups of (almost) equal size, in order."""
    count = min(count, len(inputs))
    return [inputs[k * len(inputs) // count:(k + 1) * len(inputs) // count] for k in range(count)]


def main(argv):
    args = parse_args(argv)
    sc = SparkContext(conf=SparkConf().setAppName("indexer"))
    sc.setLogLevel("WARN")
    work = os.path.abspath(args.work)
    settings = {
        "work": work, "binary": args.binary, "buckets": args.buckets,
        "threads": args.threads or int(sc.getConf().get("spark.task.cpus", "1")),
        "memory_budget": args.memory_budget, "build_args": args.build_args,
        "fail_map": args.fail_first_attempt_of_map,
    }
    walls = {}

    started = time.monotonic()
    groups = groups_of(args.inputs, args.maps or len(args.inputs))
    maps = sc.parallelize(list(enumerate(groups)), len(groups))
    manifests = maps.map(lambda task: map_task(task, settings)).collect()
    walls["map"] = time.monotonic() - started

    # Each bucket's files, from the manifests (never a glob: a failed attempt's leftovers are
    # not listed), in map order.
    files = collections.defaultdict(list)
    bucket_bytes, bucket_records = collections.Counter(), collections.Counter()
    for index, manifest in enumerate(manifests):
        for entry in manifest["files"]:
            path = os.path.join(work, "map", f"map-{index:05d}", entry["file"])
            files[entry["bucket"]].append(path)
            bucket_bytes[entry["bucket"]] += entry["bytes"]
            bucket_records[entry["bucket"]] += entry["records"]

    started = time.monotonic()
    tasks = sorted(files.items())
    reduces = sc.parallelize(tasks, max(len(tasks), 1))
    shards = sorted(reduces.map(lambda task: reduce_task(task, settings)).collect())
    walls["reduce"] = time.monotonic() - started

    started = time.monotonic()
    binary = resolve_binary(args.binary, sc.getConf().get("spark.files", ""))
    manifest_paths = [os.path.join(work, "map", f"map-{i:05d}", "manifest.json")
                      for i in range(len(manifests))]
    command = [binary, "combine", *[shard for _, shard, _ in shards], "--index",
               os.path.abspath(args.index), "-q", "--json"]
    for path in manifest_paths:  # one flag per file: right whether clap takes 1 or 1.. values
        command += ["--manifest", path]
    if args.merge:
        command.append("--merge")
    output = run_indexer(command)
    walls["combine"] = time.monotonic() - started
    sc.stop()
    # Shards of attempts whose result was not used (a speculative copy that also finished).
    used = {os.path.basename(shard) for _, shard, _ in shards}
    for name in os.listdir(os.path.join(work, "shards")):
        if name not in used:
            shutil.rmtree(os.path.join(work, "shards", name), ignore_errors=True)

    skipped = collections.Counter()
    for manifest in manifests:
        skipped.update(manifest.get("skipped", {}))
    try:
        combined = json.loads(output)
    except ValueError:
        combined = output.strip()
    report = {
        "index": os.path.abspath(args.index),
        "inputs": len(args.inputs),
        "map_tasks": len(groups),
        "map_attempts": [manifest.get("attempt", 0) for manifest in manifests],
        "reduce_tasks": len(tasks),
        "seconds": {stage: round(wall, 3) for stage, wall in walls.items()},
        "records": sum(manifest.get("records", 0) for manifest in manifests),
        "skipped": dict(skipped),
        "buckets": [{"bucket": bucket, "files": len(files[bucket]),
                     "records": bucket_records[bucket], "bytes": bucket_bytes[bucket],
                     "build_seconds": seconds}
                    for bucket, _, seconds in shards],
        "combine": combined,
    }
    json.dump(report, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main(sys.argv[1:])
