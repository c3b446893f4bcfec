"""Find and read the reference corpus copied into tests/corpus (large files are stored as .xz)."""

from __future__ import annotations

import lzma
from pathlib import Path

from afp_desktop.core.jsonx import jsonio

CORPUS = Path(__file__).parent / "corpus"
SCENARIOS = sorted(p.name for p in CORPUS.iterdir() if p.is_dir() and p.name[:2].isdigit())  # (not bundles/)
SMALL_SCENARIOS = [s for s in SCENARIOS if s != "15-large-run"]


def corpus_path(scenario: str, name: str) -> Path:
    """Path of a corpus file, plain or .xz (the loaders read both)."""
    plain = CORPUS / scenario / name
    if plain.exists():
        return plain
    packed = plain.with_name(plain.name + ".xz")
    if packed.exists():
        return packed
    raise FileNotFoundError(plain)


def read_bytes(scenario: str, name: str) -> bytes:
    path = corpus_path(scenario, name)
    return lzma.open(path).read() if path.suffix == ".xz" else path.read_bytes()


def load_json(scenario: str, name: str):
    return jsonio.loads(read_bytes(scenario, name))


CUSTOM_TEMPLATES = CORPUS / "custom-templates.json"
