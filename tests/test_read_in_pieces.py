"""A big file is read into its one bytes object a piece at a time, a breath between pieces (core/formats/source.py):
one read of the 894 MB recording held the loader 0.2 s with no breath. What is read is the file, byte for byte,
whatever it does meanwhile (shrinks, grows)."""

from __future__ import annotations

import io
import os

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
    assert type(read) is bytes and read == data
    assert len(breaths) >= len(data) // source.PIECE_READ
    assert hash(read) == hash(bytes(data))  # (an ordinary bytes object: its hash taken once it is whole)


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
    assert read == content and type(read) is bytes


def test_the_limit_still_holds_for_a_file_that_grows_past_it(small_pieces):
    content = b"y" * 500_000
    read = source._read_capped(Shrinking(content), 400_001, 300_000)  # private: as above
    assert len(read) == 400_001  # (one byte over: the caller says the file is larger than the limit)
