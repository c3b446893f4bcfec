"""No dead code: vulture finds nothing unused in the package that is not named, with its reason, in
scripts/dead_code_allowed.py (Qt's overrides, the shapes of the library's JSON, the spec's tables)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_vulture_finds_no_unused_code():
    pytest.importorskip("vulture")
    done = subprocess.run([sys.executable, "-m", "vulture", "afp_desktop", "tests", "bench",
                           "scripts/dead_code_allowed.py", "--min-confidence", "60"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    unused = [line for line in done.stdout.splitlines() if line.startswith("afp_desktop/")]
    assert not unused, "\n".join(unused)
