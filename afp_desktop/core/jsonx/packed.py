"""A file's bytes kept compressed, sliced like `bytes`: what a large Trace's lazy payloads point into.

Why: a loaded large Trace keeps its whole file in memory for its payloads (LazyJSON, core/jsonx/lazyjson.py),
the largest single thing a loaded run holds. Agent traces repeat themselves (each call carries the conversation
so far): LZ4 makes them several times smaller, and fast enough to compress a whole file during the load (zlib's
fastest level compresses as well but several times slower).

How: the bytes are cut in blocks of 64 KiB, each compressed on its own, so reading one payload inflates one
or two small blocks. The last two blocks inflated are kept, so reading every payload in file order
(the validity check, search, an export) inflates each block once. Without the lz4 module, `pack` gives None
and the payloads keep pointing into the file's bytes.
"""

from __future__ import annotations

from afp_desktop.core.breathing import breathe

BLOCK = 1 << 16
_BREATHE_EVERY = 64  # blocks compressed between two breaths (a short stretch of compression)


class PackedBytes:
    """Immutable bytes, compressed in blocks; `packed[a:b]` gives the bytes, `len(packed)` their length."""

    __slots__ = ("_blocks", "_size", "_recent", "_decompress")

    def __init__(self, data: bytes | memoryview, codec) -> None:
        view = memoryview(data)
        compress = codec.compress
        blocks = []
        for n, start in enumerate(range(0, len(view), BLOCK)):
            if n % _BREATHE_EVERY == 0:
                breathe()
            blocks.append(compress(view[start:start + BLOCK], store_size=True))
        self._blocks = blocks
        self._size = len(view)
        self._decompress = codec.decompress
        self._recent: tuple = (-1, b"", -1, b"")  # (block, bytes) twice: the last two inflated

    def __len__(self) -> int:
        return self._size

    def __getitem__(self, key: slice) -> bytes:
        if not isinstance(key, slice):
            raise TypeError("PackedBytes is read in slices")
        start, stop, step = key.indices(self._size)
        if step != 1:
            raise ValueError("PackedBytes is read in contiguous slices")
        if stop <= start:
            return b""
        first, last = start // BLOCK, (stop - 1) // BLOCK
        if first == last:
            return self._block(first)[start - first * BLOCK:stop - first * BLOCK]
        joined = b"".join([self._block(k) for k in range(first, last + 1)])
        return joined[start - first * BLOCK:stop - first * BLOCK]

    def packed_size(self) -> int:
        return sum(len(block) for block in self._blocks)

    def _block(self, index: int) -> bytes:
        recent = self._recent  # (one read of the tuple: another thread may replace it meanwhile)
        if recent[0] == index:
            return recent[1]
        if recent[2] == index:
            return recent[3]
        block = self._decompress(self._blocks[index])
        self._recent = (index, block, recent[0], recent[1])
        return block


def pack(data: bytes | memoryview) -> PackedBytes | None:
    """`data` compressed in blocks, or None when the lz4 module is missing or memory ran out."""
    try:
        import lz4.block as codec
    except ImportError:
        return None
    try:
        return PackedBytes(data, codec)
    except MemoryError:
        return None
