"""bench/perf_table.py's table: figures to Markdown, written between its markers with the rest of the file kept."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "bench" / "perf_table.py"


@pytest.fixture(scope="module")
def perf_table():
    spec = importlib.util.spec_from_file_location("perf_table", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules["perf_table"] = module  # (its dataclass looks its module up there)
    spec.loader.exec_module(module)
    yield module
    del sys.modules["perf_table"]


def table_lines(text: str) -> list[list[str]]:
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in text.splitlines()
            if line.startswith("| ") and not line.startswith("| measure")]


def test_a_row_shows_the_worst_and_the_median_and_is_met_only_when_the_worst_is(perf_table):
    rows = [perf_table.Row("longest stall", "48 MB Trace", "≤ 50 ms", 50, "ms", [31.0, 62.5, 40.0]),
            perf_table.Row("complete ÷ bare parse", "53 MB stream", "≤ 1.3×", 1.3, "×", [1.1, 1.25]),
            perf_table.Row("first frame", "48 MB Trace", "≤ 0.5 s", 0.5, "s", [0.5])]
    text = perf_table.table_markdown(rows, "Measured today.")
    assert text.splitlines()[0] == "Measured today."
    assert "| measure | file | target | worst of N | median | met? |" in text
    assert table_lines(text) == [
        ["longest stall", "48 MB Trace", "≤ 50 ms", "62.5 ms (of 3)", "40.0 ms", "not met"],
        ["complete ÷ bare parse", "53 MB stream", "≤ 1.3×", "1.25× (of 2)", "1.18×", "met"],
        ["first frame", "48 MB Trace", "≤ 0.5 s", "0.50 s", "0.50 s", "met"],
    ]


def test_a_row_without_figures_says_not_measured_and_why_never_a_figure(perf_table):
    rows = [perf_table.Row("memory", "448 MB recording", "≤ 0.25×", 0.25, "×", [], "the bench failed (no memory)"),
            perf_table.Row("scrub", "48 MB Trace", "≤ 8 ms", 8, "ms")]
    assert table_lines(perf_table.table_markdown(rows, "Measured.")) == [
        ["memory", "448 MB recording", "≤ 0.25×", "not measured: the bench failed (no memory)", "—", "—"],
        ["scrub", "48 MB Trace", "≤ 8 ms", "not measured: no run gave a figure", "—", "—"],
    ]


def test_the_table_replaces_what_lies_between_the_markers_and_keeps_the_rest(perf_table):
    begin, end = perf_table.BEGIN, perf_table.END
    document = f"# Performance\n\nBefore.\n\n{begin}\nold table\nold line\n{end}\n\nAfter, unchanged.\n"
    written = perf_table.with_table(document, "| new |")
    assert written == f"# Performance\n\nBefore.\n\n{begin}\n| new |\n{end}\n\nAfter, unchanged.\n"
    assert perf_table.with_table(written, "| newer |") == written.replace("| new |", "| newer |")


def test_a_document_without_the_markers_gets_them_and_the_table_at_its_end(perf_table):
    written = perf_table.with_table("# Performance\n\nText.\n", "| t |")
    assert written == f"# Performance\n\nText.\n\n{perf_table.BEGIN}\n| t |\n{perf_table.END}\n"


def test_long_recordings_come_from_the_flag_and_the_environment_and_absent_ones_are_skipped(perf_table, tmp_path,
                                                                                            monkeypatch, capsys):
    present, also, absent = tmp_path / "long.json", tmp_path / "longer.json", tmp_path / "absent.json"
    present.write_bytes(b"x" * 2_000_000)
    also.write_bytes(b"y" * 3_000_000)
    monkeypatch.setenv(perf_table.LONG_RECORDINGS_ENV, f"{also}:{absent}:{present}")
    measures, paths = perf_table.long_recordings([present])
    assert list(paths) == [str(present), str(also)]  # (each once, in the order named)
    assert [m.cold_part.file for m in measures.values()] == ["2 MB recording (long.json)", "3 MB recording (longer.json)"]
    assert all(m.recording for m in measures.values())
    assert f"{absent}: not found, skipped" in capsys.readouterr().err


def test_a_long_recording_may_take_longer_to_load_than_the_default_waits(perf_table, tmp_path):
    small, big = tmp_path / "small.json", tmp_path / "big.json"
    small.write_bytes(b"{}")
    with open(big, "wb") as handle:
        handle.truncate(1_400_000_000)  # (sparse: nothing written)
    assert perf_table.load_timeout(small) == 120
    assert perf_table.load_timeout(big) == 1400 * perf_table.LOAD_SECONDS_PER_MB
