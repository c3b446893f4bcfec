"""The size limit: the memory available over what opening the file's format takes (size_limit.py), applied to
plain and compressed files (source.py), explained in the refusal, and raised by --max-bytes in every command and
in the window."""

from __future__ import annotations

import gzip
import re

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from afp_desktop import cli
from afp_desktop.core.formats import LoadError, open_run, source
from afp_desktop.core.formats.size_limit import (EXPANSION, HEAD_BYTES, MEMORY_SHARE, WHOLE_EXPANSION, WHOLE_FROM,
                                                 available_memory, expansion_at, kind_of_head, size_limit)
from afp_desktop.core.formats.source import parse_size, read_source, suggested_size
from tests.corpus_util import CORPUS, corpus_path, read_bytes

KINDS = sorted(EXPANSION)
MEMORY = st.integers(min_value=0, max_value=1 << 44)
HEADS = {"trace": b'{"version":1,"events":[', "recording": b'{"snapshot":{', "stream": b'{"type":"a"}\n',
         "unknown": b'[{"type":"a"}'}


@given(MEMORY, MEMORY, st.sampled_from(KINDS))
def test_more_memory_never_lowers_the_limit(a, b, kind):
    low, high = sorted((a, b))
    assert size_limit(low, kind) <= size_limit(high, kind)


@given(MEMORY, st.sampled_from(KINDS), st.floats(min_value=0, max_value=1))
def test_every_file_up_to_the_limit_fits_in_the_memory_available(memory, kind, fraction):
    limit = size_limit(memory, kind)
    size = int(limit * fraction)
    for bytes_ in (size, limit):
        assert 0 <= bytes_ * expansion_at(kind, bytes_) <= memory * MEMORY_SHARE + WHOLE_EXPANSION
    assert limit <= memory


@given(MEMORY)
def test_a_document_too_large_to_read_by_its_parts_is_limited_by_parsing_it_whole(memory):
    for kind in ("recording", "trace"):
        limit = size_limit(memory, kind)
        assert limit < WHOLE_FROM or limit * WHOLE_EXPANSION <= memory * MEMORY_SHARE


@given(MEMORY, st.sampled_from(KINDS))
def test_an_unknown_format_gets_the_least_room(memory, kind):
    assert size_limit(memory, "unknown") <= size_limit(memory, kind)


def test_a_recording_of_a_tenth_of_the_memory_opens():
    """What opening a recording takes (about twice its size) leaves room for one a tenth of the memory (up to
    the size from which it is parsed whole)."""
    assert size_limit(14 << 30, "recording") >= 1400 * 10**6
    assert size_limit(24 << 30, "recording") == WHOLE_FROM - 1
    assert size_limit(64 << 30, "recording") > WHOLE_FROM


def test_available_memory_reads_memavailable_else_the_physical_memory():
    meminfo = "MemTotal:       24000000 kB\nMemFree:         1000 kB\nMemAvailable:   2000000 kB\n"
    assert available_memory(lambda: meminfo) == 2000000 * 1024

    def unreadable() -> str:
        raise OSError("no /proc")

    physical = available_memory(unreadable)
    assert physical > 0 and physical == available_memory(lambda: "MemTotal: 1 kB\n")


@pytest.mark.parametrize("scenario,name,kind", [
    ("02-react-two-tools", "trace.json", "trace"), ("02-react-two-tools", "recording.json", "recording"),
    ("02-react-two-tools", "events.ndjson", "stream"), ("15-large-run", "trace.redacted.json", "trace")])
def test_the_head_names_the_format(scenario, name, kind):
    assert kind_of_head(read_bytes(scenario, name)[:HEAD_BYTES]) == kind


@pytest.mark.parametrize("head", [b"\x00\x00", b'[{"type":"a"}]', b'{"events":[]}', b"", b"x"])
def test_any_other_head_is_read_whole(head):
    assert kind_of_head(head) == "unknown" and EXPANSION["unknown"] == max(EXPANSION.values())


def test_the_head_of_a_lossless_file_and_of_a_bundle(tmp_path):
    out = tmp_path / "run.jsonl"
    assert cli.main(["convert", str(corpus_path("02-react-two-tools", "trace.json")), "-o", str(out)]) == 0
    assert kind_of_head(out.read_bytes()[:HEAD_BYTES]) == "lossless"
    bundle = CORPUS / "bundles" / "one-conversation.zip"
    assert kind_of_head(bundle.read_bytes()[:HEAD_BYTES]) == "bundle"


@given(st.integers(min_value=1, max_value=1 << 50))
def test_the_size_suggested_is_enough_and_close(n):
    suggested = parse_size(suggested_size(n))
    assert n <= suggested <= n * 1.2 + 1024


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(memory=st.integers(min_value=0, max_value=4 << 20), size=st.integers(min_value=0, max_value=3 << 20),
       kind=st.sampled_from(sorted(HEADS)), compressed=st.booleans())
def test_a_file_is_read_exactly_when_it_is_within_the_limit(tmp_path_factory, monkeypatch, memory, size, kind,
                                                            compressed):
    """Plain or compressed (then: what it expands to), a file larger than the limit of the memory available is
    refused, and one within it is read as it is: a bomb never yields more than the limit."""
    monkeypatch.setattr(source, "available_memory", lambda: memory)
    monkeypatch.delenv("AFP_DESKTOP_MAX_BYTES", raising=False)
    head = HEADS[kind]
    content = head + b" " * max(size - len(head), 0)
    path = tmp_path_factory.mktemp("limit") / ("run.json.gz" if compressed else "run.json")
    path.write_bytes(gzip.compress(content, 1) if compressed else content)
    limit = size_limit(memory, kind)
    if len(content) <= limit:
        assert read_source(path) == content
    else:
        with pytest.raises(LoadError, match="expands to more than the limit" if compressed else "too large"):
            read_source(path)


def _big_trace(tmp_path):
    path = tmp_path / "trace.json"
    path.write_bytes(read_bytes("15-large-run", "trace.json"))  # ~4 MB
    return path


def test_the_refusal_says_the_size_the_limit_the_memory_and_what_to_pass(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(source, "available_memory", lambda: 4 << 20)
    monkeypatch.delenv("AFP_DESKTOP_MAX_BYTES", raising=False)
    path = _big_trace(tmp_path)
    with pytest.raises(LoadError) as info:
        open_run(path)
    message = str(info.value)
    limit = size_limit(4 << 20, "trace")
    assert str(path) in message and "the file is 3.78 MiB, too large to open" in message
    assert f"the limit for a Trace is {source.describe_size(limit)}" in message
    assert f"about {EXPANSION['trace']:g}× its size in memory" in message
    assert "4 MiB of memory is available" in message and "\n" not in message
    suggested = re.search(r"pass --max-bytes (\S+) \(or set AFP_DESKTOP_MAX_BYTES=\1\)", message).group(1)
    assert parse_size(suggested) >= path.stat().st_size
    assert cli.main(["info", str(path)]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert cli.main(["info", str(path), "--max-bytes", suggested]) == 0  # what the message says works


def test_the_window_takes_max_bytes_as_the_message_says(qtbot, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(source, "available_memory", lambda: 4 << 20)
    monkeypatch.delenv("AFP_DESKTOP_MAX_BYTES", raising=False)
    path = _big_trace(tmp_path)
    shot = tmp_path / "shot.png"
    assert cli.main([str(path), "--screenshot", str(shot)]) == 2
    err = capsys.readouterr().err
    suggested = re.search(r"pass --max-bytes (\S+)", err).group(1)
    assert not shot.exists()
    assert cli.main([str(path), "--max-bytes", suggested, "--screenshot", str(shot)]) == 0
    assert shot.stat().st_size > 0
    assert cli.main([str(path), "--max-bytes", "1K", "--screenshot", str(shot)]) == 2
    assert "the limit is 1 KiB, set by --max-bytes" in capsys.readouterr().err
