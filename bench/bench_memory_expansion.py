"""How much memory opening a file takes, per format (a script, not a test): the figures behind the size limit.

    .venv/bin/python bench/bench_memory_expansion.py FILE [FILE ...] [--command info] [--runs 1]

Each FILE is opened by `afp-desktop info FILE --max-bytes 1T` (the limit lifted, so the figure is measured, not
refused) in a fresh process; its peak resident memory (the kernel's ru_maxrss) less that of the same command on
a tiny file is the memory the file took. Divided by the file's size (decompressed, for a .gz or .xz), that is the
format's expansion: the figure afp_desktop/core/formats/size_limit.py's EXPANSION table holds for the format the
file's head says it is. The table printed at the end gives, per format, the largest expansion measured and the
one in the table.
"""

from __future__ import annotations

import argparse
import gzip
import lzma
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from afp_desktop.core.formats.size_limit import EXPANSION, HEAD_BYTES, kind_of_head  # noqa: E402

TINY = ROOT / "sample_traces" / "react-two-tools.trace.json"


def peak_rss(argv: list[str]) -> int:
    """Peak resident bytes of one fresh process running `argv`."""
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
    _pid, status, usage = os.wait4(child.pid, 0)
    if os.waitstatus_to_exitcode(status):
        raise SystemExit(f"{' '.join(argv)} failed: {child.stderr.read().decode(errors='replace')[:500]}")
    return usage.ru_maxrss * 1024  # (kilobytes on Linux)


def decompressed_head_and_size(path: Path) -> tuple[bytes, int]:
    with path.open("rb") as f:
        magic = f.read(6)
    if magic.startswith(b"\x1f\x8b") or magic.startswith(b"\xfd7zXZ\x00"):
        opener = gzip.open if magic.startswith(b"\x1f\x8b") else lzma.open
        size, head = 0, b""
        with opener(path, "rb") as f:
            while chunk := f.read(16 << 20):
                head = head or chunk[:HEAD_BYTES]
                size += len(chunk)
        return head, size
    with path.open("rb") as f:
        return f.read(HEAD_BYTES), path.stat().st_size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--command", default="info")
    parser.add_argument("--runs", type=int, default=1, help="fresh processes per file (the largest peak counts)")
    args = parser.parse_args()
    command = [sys.executable, "-m", "afp_desktop", args.command]
    with tempfile.TemporaryDirectory():
        base = min(peak_rss([*command, str(TINY)]) for _ in range(3))
    print(f"`afp-desktop {args.command}` on a tiny file: {base / 2**20:.0f} MiB resident (subtracted below)")
    worst: dict[str, float] = {}
    for path in args.files:
        head, size = decompressed_head_and_size(path)
        kind = kind_of_head(head)
        peak = max(peak_rss([*command, str(path), "--max-bytes", "1T"]) for _ in range(args.runs))
        expansion = (peak - base) / size
        worst[kind] = max(worst.get(kind, 0.0), expansion)
        packed = " (compressed)" if size != path.stat().st_size else ""
        print(f"  {path.name:40} {kind:10} {size / 1e6:9.1f} MB{packed:13} peak {peak / 2**20:7.0f} MiB   "
              f"expansion {expansion:5.2f}x")
    print("format      measured  table")
    for kind in sorted(worst):
        print(f"  {kind:10} {worst[kind]:6.2f}x  {EXPANSION[kind]:5.2f}x")


if __name__ == "__main__":
    main()
