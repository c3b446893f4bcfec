"""A JSON value left as bytes in the file until somebody reads it.

Most of a large Trace is DomainEvent payloads (slot contents, subflow inputs and outputs), which the StepGraph,
the stops and the status line only pass along. Keeping each one as a slice of the file's bytes, and parsing it
when the inspector or an export asks, keeps a loaded run close to the file's size in memory (parsed JSON is
many times its text in Python objects).

`LazyJSON.value()` parses on every call (callers that show it keep the result); two lazy values or a lazy value
and a plain one compare equal when their parsed values do. `resolve(x)` is `x.value()` for a lazy value and `x`
otherwise; `resolve_quietly` gives None instead of raising when the bytes are not valid JSON.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from afp_desktop.core.jsonx import jsonio
from afp_desktop.core.problems import LoadError

if TYPE_CHECKING:
    from afp_desktop.core.jsonx.packed import PackedBytes


class LazyJSONError(LoadError):
    """The bytes behind a LazyJSON are not valid JSON: the file, line and column, and what was wrong."""


class LazyJSON:
    __slots__ = ("_buffer", "_start", "_end", "_source")

    def __init__(self, buffer: "bytes | memoryview | PackedBytes", start: int, end: int, source: str = "") -> None:
        self._buffer = buffer
        self._start = start
        self._end = end
        self._source = source

    def repoint(self, buffer) -> None:
        """Read from `buffer` from now on: the same bytes, kept elsewhere (a compressed copy, packed.py)."""
        self._buffer = buffer

    def detached(self) -> "LazyJSON":
        """The same value over a copy of its own bytes (not the whole file's buffer, which it would keep alive and
        carry into every pickle of it)."""
        return LazyJSON(self.raw(), 0, len(self), self._source)

    def raw(self) -> bytes:
        """The value's JSON text exactly as it is in the file."""
        return bytes(self._buffer[self._start:self._end])

    def __len__(self) -> int:
        """Size of the JSON text in bytes (not the number of members)."""
        return self._end - self._start

    def value(self) -> Any:
        try:
            return jsonio.loads(self.raw())
        except jsonio.JSONSyntaxError as err:
            line, column = self._where(err)
            raise LazyJSONError(self._source or "the file", f"a payload is not valid JSON: {err.message}",
                                line, column) from None

    def json_value(self) -> Any:
        """What jsonio.dumps writes for this value (the protocol that keeps jsonio free of this module)."""
        return self.value()

    def problem(self) -> "LazyJSONError | None":
        """None when the bytes are valid JSON, else the error (what `value()` would raise)."""
        try:
            self.value()
        except LazyJSONError as err:
            return err
        return None

    def _where(self, err: jsonio.JSONSyntaxError) -> tuple[int, int | None]:
        """The error's line and column in the whole file (the parser counted from the value's start)."""
        before = bytes(self._buffer[:self._start])
        line = before.count(b"\n") + (err.line or 1)
        if err.line in (None, 1):  # on the value's first line: columns continue the file's line
            return line, len(before) - (before.rfind(b"\n") + 1) + (err.column or 1)
        return line, err.column

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LazyJSON):
            return self.raw() == other.raw() or self.value() == other.value()
        return self.value() == other

    __hash__ = None  # type: ignore[assignment]  # equal to a dict or list, which are unhashable

    def __repr__(self) -> str:
        return f"LazyJSON({len(self):,} bytes at {self._start})"


def resolve(value: Any) -> Any:
    """`value`, with a LazyJSON parsed (raises LazyJSONError when its bytes are not JSON)."""
    return value.value() if type(value) is LazyJSON else value


def resolve_quietly(value: Any) -> Any:
    """Like `resolve`, but None for bytes that are not valid JSON (for summaries that must not fail)."""
    if type(value) is not LazyJSON:
        return value
    try:
        return value.value()
    except LazyJSONError:
        return None


class Unreadable(str):
    """The words shown in place of a payload whose bytes in the file are not JSON."""


def read_lazy(value: Any) -> Any:
    """A payload still in the file's bytes (LazyJSON) parsed now (bytes that are not JSON: Unreadable, the error
    in words); any other value as it is. One level: what it holds is left as it is."""
    if type(value) is LazyJSON:
        try:
            return value.value()
        except LazyJSONError as err:
            problem = err.problem
            return Unreadable(f"⚠ {problem.message} ({problem.where().removeprefix(problem.path + ', ')})")
    return value
