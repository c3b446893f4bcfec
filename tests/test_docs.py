"""The README is a front door and docs/ holds the rest: every file, folder and image the README and the docs name
exists, every link between them leads somewhere, and the README stays short."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "packaging" / "README.md"]
HISTORY = ROOT / "docs" / "big-runs-history.md"  # a record of earlier rounds: it names the code of its time
# A path in backticks: something with a slash or a known suffix, as a reader would type it.
CODE_PATH = re.compile(r"`((?:afp_desktop|core|app|bench|tests|docs|scripts|packaging|resources|sample_traces|\.ci)"
                       r"/[\w./-]*[\w/])`")
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
PLACES = (ROOT, ROOT / "afp_desktop")  # `core/x.py` is afp_desktop/core/x.py


def _named_paths(document: Path) -> list[str]:
    text = document.read_text(encoding="utf-8")
    return [m.group(1) for m in CODE_PATH.finditer(text)]


@pytest.mark.parametrize("document", [d for d in DOCUMENTS if d != HISTORY], ids=lambda p: str(p.relative_to(ROOT)))
def test_every_path_a_document_names_exists(document):
    missing = [name for name in _named_paths(document)
               if "*" not in name and not any((place / name.rstrip("/")).exists() for place in PLACES)]
    assert not missing, f"{document.relative_to(ROOT)} names paths that do not exist: {missing}"


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_local_link_leads_somewhere(document):
    text = document.read_text(encoding="utf-8")
    links = [link for link in LINK.findall(text) if not re.match(r"[a-z]+:", link)]
    missing = [link for link in links if not (document.parent / link).exists()]
    assert not missing, f"{document.relative_to(ROOT)} links to what does not exist: {missing}"


def test_the_readme_is_a_front_door():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 200
    text = "\n".join(lines)
    assert "bash scripts/try.sh" in text and "bash scripts/test.sh" in text
