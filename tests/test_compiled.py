"""The compiled loops are used only when built from the source beside them (core/compiled.py): a module built from
another version of its .c is refused with a warning, and the install's one line tells how many are built."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from afp_desktop.core import compiled

ROOT = Path(__file__).resolve().parents[1]
NAMES = ["afp_desktop.core.formats.ndjson_c", "afp_desktop.core.jsonx.brackets_c", "afp_desktop.core.jsonx.fields_c"]


def test_every_c_source_in_the_core_is_one_compiled_module():
    assert compiled.all_names() == NAMES
    assert all(compiled.source_of(name).is_file() for name in NAMES)
    assert sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "afp_desktop").rglob("*.c")) == \
        sorted(compiled.source_of(name).relative_to(ROOT).as_posix() for name in NAMES)


def built_or_skip(name: str):
    state, module = compiled.state_of(name)
    if state != compiled.BUILT and not os.environ.get("AFP_REQUIRE_NATIVE"):
        pytest.skip(f"{name} is {state}")
    assert state == compiled.BUILT and module is not None
    return module


@pytest.mark.parametrize("name", NAMES)
def test_a_module_built_from_its_source_is_used(name):
    module = built_or_skip(name)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert compiled.load(name) is module


@pytest.mark.parametrize("name", NAMES)
def test_a_module_built_from_another_version_of_its_source_is_refused_with_a_warning(name, tmp_path, monkeypatch):
    built_or_skip(name)
    changed = tmp_path / compiled.source_of(name).name
    changed.write_bytes(compiled.source_of(name).read_bytes() + b"\n/* changed */\n")
    monkeypatch.setattr(compiled, "source_of", lambda _name: changed)
    with pytest.warns(compiled.StaleModuleWarning, match="changed after its compiled module was built"):
        assert compiled.load(name) is None
    assert compiled.state_of(name) == (compiled.STALE, None)
    assert compiled.summary() == f"C loops built: 0 of 3; {compiled.STALE}: ndjson_c, brackets_c, fields_c"


def test_a_module_without_its_source_beside_it_is_used_as_it_is(tmp_path, monkeypatch):
    module = built_or_skip(NAMES[2])
    monkeypatch.setattr(compiled, "source_of", lambda _name: tmp_path / "gone.c")
    assert compiled.load(NAMES[2]) is module


def test_a_module_not_built_is_none_without_a_word(monkeypatch):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert compiled.load("afp_desktop.core.jsonx.never_c") is None
    assert compiled.state_of("afp_desktop.core.jsonx.never_c") == (compiled.NOT_BUILT, None)


def test_the_install_s_line_counts_the_built_loops():
    for name in NAMES:
        built_or_skip(name)
    out = subprocess.run([sys.executable, "-W", "ignore", "-m", "afp_desktop.core.compiled"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout == "C loops built: 3 of 3\n", out


def test_a_copy_without_its_modules_says_which_are_not_built(tmp_path):
    copy = tmp_path / "afp_desktop"
    shutil.copytree(ROOT / "afp_desktop", copy, ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__"))
    out = subprocess.run([sys.executable, "-W", "ignore", "-m", "afp_desktop.core.compiled"], cwd=tmp_path,
                         capture_output=True, text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert out.stdout == f"C loops built: 0 of 3; {compiled.NOT_BUILT}: ndjson_c, brackets_c, fields_c\n", out
