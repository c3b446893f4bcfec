"""A large Trace's payloads point into a compressed copy of the file (core/jsonx/packed.py), read back exactly."""

from __future__ import annotations

import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from afp_desktop.core.formats import lazy_trace, open_run
from afp_desktop.core.jsonx import packed
from afp_desktop.core.jsonx.lazyjson import LazyJSON
from afp_desktop.core.jsonx.packed import BLOCK, PackedBytes, pack
from tests.corpus_util import read_bytes

DATA = bytes(range(256)) * 700 + b'{"role": "user", "content": "again"}' * 3000  # random-ish, then repetitive


@settings(max_examples=300, deadline=None)
@given(st.integers(-len(DATA) - 10, len(DATA) + 10), st.integers(-len(DATA) - 10, len(DATA) + 10))
def test_any_slice_reads_back_the_same_bytes(start, stop):
    store = pack(DATA)
    assert store is not None and len(store) == len(DATA)
    assert store[start:stop] == DATA[start:stop]
    assert store[start:] == DATA[start:] and store[:stop] == DATA[:stop]


def test_slices_across_block_edges_and_in_file_order():
    store = pack(DATA)
    assert store is not None and store.packed_size() < len(DATA) / 2
    for edge in range(BLOCK, len(DATA), BLOCK):
        assert store[edge - 3:edge + 3] == DATA[edge - 3:edge + 3]
        assert store[edge - BLOCK - 1:edge + 1] == DATA[edge - BLOCK - 1:edge + 1]  # three blocks
    assert b"".join(store[k:k + 1000] for k in range(0, len(DATA), 1000)) == DATA
    assert store[:] == DATA and store[5:5] == b""
    with pytest.raises(TypeError):
        store[3]  # type: ignore[index]
    with pytest.raises(ValueError):
        store[::2]


def test_without_lz4_the_payloads_keep_the_file_bytes(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "lz4.block", None)  # `import lz4.block` now raises ImportError
    assert pack(DATA) is None
    monkeypatch.setattr(lazy_trace, "MIN_BYTES", 0)
    path = tmp_path / "trace.json"
    path.write_bytes(read_bytes("02-react-two-tools", "trace.json"))
    run = open_run(path)
    lazy = [e["payload"] for e in run.domain_events if type(e.get("payload")) is LazyJSON]
    # private: which bytes a lazy payload keeps is seen only in memory
    assert lazy and all(type(p._buffer) is bytes for p in lazy)


def test_a_large_trace_keeps_its_payloads_packed_and_reads_them_exactly(tmp_path):
    data = read_bytes("15-large-run", "trace.json")
    assert len(data) >= lazy_trace.MIN_BYTES
    path = tmp_path / "large.json"
    path.write_bytes(data)
    run = open_run(path)
    lazy = [e["payload"] for e in run.domain_events if type(e.get("payload")) is LazyJSON]
    # private: as above
    assert lazy and all(type(p._buffer) is PackedBytes for p in lazy)  # the file's bytes are not kept
    assert all(p.raw() == data[p._start:p._end] for p in lazy)  # private: where in the file each payload was found
    assert not run.payload_problems


def test_packing_breathes(monkeypatch):
    breaths = []
    monkeypatch.setattr(packed, "breathe", lambda: breaths.append(1))
    pack(b"x" * (BLOCK * 200))
    assert len(breaths) >= 3
