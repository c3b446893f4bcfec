"""Hostile bug-report bundles: how long each command takes on them and how much memory (a script).

    .venv/bin/python bench/bench_hostile_bundles.py [CASE ...] [--commands info,diff,stops]

Each case is a small zip made here that lies about its size or shape: conversation files of exactly 1 MiB full of
empty recordings (compressed a thousandfold), hundreds of thousands of recordings that compress as JSON does, a
manifest listing hundreds of thousands of files against 2,000 entries, manifests just under their cap with long
lists, millions of small JSON containers (beside the recordings, or as them), readable entries nested 200,000
deep, a manifest of 100 MB. Commands: info, info --json, stops, diff (the file with itself) and the window
(--screenshot, offscreen). Every command runs in a child process under a 4 GB address-space limit and a 120 s
processor-time limit; the script prints wall time, peak memory (RSS), the exit code, the output's size and its first line.
Target: every case under 20 s and 1.5 GB, ending in a clear message or a faithful result.
"""

from __future__ import annotations

import io
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # (the window case renders without a display)
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
MIB = 2**20

from tests.corpus_util import read_bytes  # noqa: E402


def _zip(entries: dict[str, bytes], level: int = 9) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=level) as archive:
        for name, data in entries.items():
            archive.writestr(name, data)
    return out.getvalue()


def _padded(head: bytes, item: bytes, tail: bytes, size: int) -> bytes:
    """head item,item,… tail, padded with spaces to exactly `size` bytes."""
    count = (size - len(head) - len(tail)) // (len(item) + 1)
    body = head + b",".join([item] * count) + tail
    return body + b" " * (size - len(body))


MANIFEST = json.dumps({"manifestVersion": 2, "report": {"title": "hostile"}}).encode()
RECORDING = read_bytes("01-llmcall-single", "recording.json")


def conversations_at_the_floor(files: int) -> bytes:
    """Each conversation file exactly 1 MiB of empty recordings: ~350,000 of them a file, ~1 KB compressed."""
    entry = _padded(b'{"recordings":[', b"{}", b"]}", MIB)
    return _zip({"manifest.json": MANIFEST, **{f"conversations/c{i}.json": entry for i in range(files)}})


def numbers_at_the_floor() -> bytes:
    return _zip({"manifest.json": MANIFEST, "conversations/c.json": _padded(b'{"recordings":[', b"0", b"]}", MIB)})


def conversations_under_the_ratio(count: int) -> bytes:
    """Recordings that differ, so that the file compresses as JSON does: only the count of them lies."""
    items = b",".join(b'{"i":"%08x"}' % (i * 2654435761 % 2**32) for i in range(count))
    return _zip({"manifest.json": MANIFEST, "conversations/c.json": b'{"recordings":[' + items + b"]}"})


def listed_files_times_entries(listed: int, entries: int = 1_998) -> bytes:
    """The manifest lists `listed` files, none in the zip; the zip has `entries` the manifest does not list."""
    manifest = {"manifestVersion": 2, "files": [{"name": f"f{i:07d}"} for i in range(listed)]}
    return _zip({"manifest.json": json.dumps(manifest).encode(), "recording.json": RECORDING,
                 **{f"e{i}": b"" for i in range(entries)}})


def big_manifest(megabytes: float, unit: dict) -> bytes:
    count = int(megabytes * MIB) // (len(json.dumps({**unit, "id": "u1000000"})) + 2)
    units = [{**unit, "id": f"u{i}"} for i in range(count)]
    return _zip({"manifest.json": json.dumps({"manifestVersion": 2, "units": units}).encode(),
                 "recording.json": RECORDING})


def big_lists(megabytes: float) -> bytes:
    """The manifest's lists a sentence names: redacted keys, warnings, withheld ids."""
    count = int(megabytes * MIB) // 45
    keys = [f"k{i:06d}" for i in range(count)]
    manifest = {"manifestVersion": 2, "redactedKeys": keys, "warnings": keys, "notes": keys,
                "excluded": {"conversations": count, "unitIds": keys}}
    return _zip({"manifest.json": json.dumps(manifest).encode(), "recording.json": RECORDING})


def dense_containers(count: int, key: bytes) -> bytes:
    """`count` small lists and objects in a random mix (compressing about tenfold, under the ratio), as the
    member `key` of a conversation file holding one recording."""
    rng = random.Random(1)
    tokens = [b"[]", b"[[]]", b"{}", b"[{}]"]
    body = b",".join(rng.choice(tokens) for _ in range(count))
    if key == b"recordings":
        doc = b'{"recordings":[' + body + b"]}"
    else:
        doc = b'{"recordings":[{"events":[]}],"' + key + b'":[' + body + b"]}"
    return _zip({"manifest.json": MANIFEST, "conversations/c.json": doc}, level=6)


def deep_entries(depth: int) -> bytes:
    rng = random.Random(1)
    nested = "".join("[" + rng.choice(" \n\t") for _ in range(depth)) + "]" * depth
    return _zip({"manifest.json": MANIFEST, "recording.json": RECORDING, "conversation.json": nested,
                 "environment.json": nested})


CASES = {
    "conversations-24-files": lambda: conversations_at_the_floor(24),
    "conversations-1-file": lambda: conversations_at_the_floor(1),
    "numbers-1-file": numbers_at_the_floor,
    "conversations-under-the-ratio": lambda: conversations_under_the_ratio(300_000),
    "listed-files-x-entries": lambda: listed_files_times_entries(300_000),
    "manifest-7.9MB-units": lambda: big_manifest(7.9, {"id": "u", "kind": "conversation", "label": "x",
                                                       "files": ["a", "b"]}),
    "manifest-7.9MB-empty-units": lambda: big_manifest(7.9, {}),
    "manifest-7.9MB-lists": lambda: big_lists(7.9),
    "dense-containers-10M": lambda: dense_containers(10_500_000, b"x"),
    "dense-containers-15M": lambda: dense_containers(15_000_000, b"x"),
    "dense-recordings-list": lambda: dense_containers(10_500_000, b"recordings"),
    "deep-readable-entries": lambda: deep_entries(200_000),
    "manifest-93MB-units": lambda: big_manifest(93, {"id": "u", "kind": "conversation", "label": "x",
                                                     "files": ["a", "b"]}),
}
COMMANDS = {"info": ["info"], "info-json": ["info", "--json"], "stops": ["stops"],
            "diff": ["diff"], "window": ["--screenshot"]}


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
    resource.setrlimit(resource.RLIMIT_CPU, (120, 120))


def run(path: Path, command: list[str]) -> None:
    argv = [sys.executable, "-m", "afp_desktop", *command, str(path)]
    if command == ["diff"]:
        argv.append(str(path))
    if command == ["--screenshot"]:  # the window, rendered offscreen: FILE --screenshot OUT.png
        argv[-2:] = [str(path), "--screenshot", str(path.with_suffix(".png"))]
    started = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(argv, cwd=ROOT, stdout=out, stderr=err, preexec_fn=_limit)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        seconds = time.perf_counter() - started
        size = out.seek(0, 2) + err.seek(0, 2)
        err.seek(0)
        first = err.readline()[:160].decode("utf-8", "replace").strip()
        if not first:
            out.seek(0)
            first = out.readline()[:160].decode("utf-8", "replace").strip()
    print(f"  {' '.join(command):12} {seconds:7.2f} s {usage.ru_maxrss / 1024:8.0f} MB  exit {proc.returncode}  "
          f"{size:,} bytes out: {first}", flush=True)


def main() -> None:
    names = [a for a in sys.argv[1:] if not a.startswith("--")] or list(CASES)
    commands = list(COMMANDS)
    for arg in sys.argv[1:]:
        if arg.startswith("--commands="):
            commands = arg.split("=", 1)[1].split(",")
    with tempfile.TemporaryDirectory() as folder:
        for name in names:
            data = CASES[name]()
            path = Path(folder) / f"{name}.zip"
            path.write_bytes(data)
            print(f"{name}: {len(data):,} bytes", flush=True)
            for command in commands:
                run(path, COMMANDS[command])
            assert path.read_bytes() == data, "the input changed"


if __name__ == "__main__":
    main()
