"""A big file is read into its one buffer a piece at a time, a breath between pieces (core/formats/source.py):
one read of the 894 MB recording held the loader 0.2 s with no breath. What is read is the file, byte for byte,
whatever it does meanwhile (shrinks, grows)."""

from __future__ import annotations

import io
import lzma
import os

import orjson
import pytest

from afp_desktop.core.breathing import breathing
from afp_desktop.core.formats import source


@pytest.fixture
def small_pieces(monkeypatch):
    monkeypatch.setattr(source, "PIECE_READ", 1 << 16)  # (64 KiB pieces: a 1 MB file is read in 16)


def test_a_big_file_is_read_whole_in_pieces_with_a_breath_between(tmp_path, small_pieces):
    data = os.urandom(1 << 20) + b"the end"
    path = tmp_path / "big.json"
    path.write_bytes(data)
    breaths: list[int] = []
    with breathing(lambda: breaths.append(1)):
        read = source.read_source(path)
    assert read == data
    assert len(breaths) >= len(data) // source.PIECE_READ


class Shrinking(io.RawIOBase):
    """A file whose size said more than it holds (cut while it was read)."""

    def __init__(self, content: bytes):
        self.stream = io.BytesIO(content)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        return self.stream.readinto(buffer)


@pytest.mark.parametrize("held, said", [(300_000, 400_000), (400_000, 300_000), (300_000, 300_000)])
def test_what_is_read_is_what_the_file_holds_when_its_size_was_wrong(small_pieces, held, said):
    """Shorter than its size said (cut while read): what it held. Longer (growing): all of it, read on."""
    content = bytes(range(256)) * (held // 256) + b"x" * (held % 256)
    # private: a file whose size was wrong (cut or grown while read) cannot be made on disk at the right moment
    read = source._read_capped(Shrinking(content), 10_000_000, said)
    assert read == content


def test_the_limit_still_holds_for_a_file_that_grows_past_it(small_pieces):
    content = b"y" * 500_000
    read = source._read_capped(Shrinking(content), 400_001, 300_000)  # private: as above
    assert len(read) == 400_001  # (one byte over: the caller says the file is larger than the limit)


@pytest.mark.parametrize("name, compressed", [("trace.json", False), ("trace.json", True),
                                              ("recording.json", False), ("events.ndjson", False)])
def test_a_file_read_into_a_bytearray_gives_what_its_bytes_give(tmp_path, monkeypatch, capsysbinary, name,
                                                                compressed):
    """A big file's text is a bytearray (a compressed one's too); every reader (the lazy ones included) reads it
    as it reads bytes: the command line prints the same projection either way."""
    from afp_desktop import cli
    from afp_desktop.core.formats import lazy_recording, lazy_trace
    from tests.corpus_util import read_bytes

    monkeypatch.setattr(lazy_trace, "MIN_BYTES", 0)
    monkeypatch.setattr(lazy_trace, "ONCE_MIN_BYTES", 0)  # (the command line too)
    monkeypatch.setattr(lazy_recording, "MIN_BYTES", 0)
    text = read_bytes("15-large-run", name)
    path = tmp_path / (name + (".xz" if compressed else ""))
    path.write_bytes(lzma.compress(text, preset=0) if compressed else text)
    command = "status" if name.endswith("ndjson") else "stepgraph"
    printed = []
    for piece in (source.PIECE_READ, 1 << 16):  # (bytes, then a bytearray: 64 KiB pieces)
        monkeypatch.setattr(source, "PIECE_READ", piece)
        assert type(source.read_source(path)) is (bytes if len(text) < 2 * piece else bytearray)
        assert cli.main([command, str(path)]) == 0
        printed.append(orjson.loads(capsysbinary.readouterr().out))
    assert printed[0] == printed[1] and printed[0]
