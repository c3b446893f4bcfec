"""JSON in and out, fast and without a depth limit.

orjson is the fast path. It refuses documents nested deeper than 1024 levels, and a real recording of a long
run nests its execution tree more than a thousand levels deep through `next`. Those are read and written by
deepjson.py (orjson piece by piece, CUT levels at a time) on a worker thread with a large stack and a raised
recursion limit; the standard library's parser is the last resort, which also locates the error in an invalid
deep document. A valid file is never refused for its depth, on any supported Python.
"""

from __future__ import annotations

import json
import sys
import threading
from typing import Any

import orjson

from afp_desktop.core.problems import LoadError

# Enough for millions of nesting levels; the thread's stack is reserved, not committed, until used.
_DEEP_STACK_BYTES = 512 * 1024 * 1024
_DEEP_RECURSION_LIMIT = 2_000_000
_deep_lock = threading.Lock()
_on_deep_thread = threading.local()  # (a deep value met while already on the deep thread: no second thread)


class JSONSyntaxError(ValueError):
    """Invalid JSON, with a 1-based line and column when the parser told us the position."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None, pos: int | None = None):
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column
        self.pos = pos


def _is_depth_error(err: Exception) -> bool:
    text = str(err).lower()
    return "recursion" in text or "depth" in text


def position_of(text: str | bytes | memoryview, pos: int) -> tuple[int, int]:
    """1-based line and column (in characters) of byte/char offset `pos`."""
    if isinstance(text, (bytes, bytearray, memoryview)):
        head = bytes(text[:pos]).decode("utf-8", "replace")
    else:
        head = text[:pos]
    line = head.count("\n") + 1
    column = len(head) - (head.rfind("\n") + 1) + 1
    return line, column


def run_deep(fn):
    """Run fn() on a thread with a large stack and a raised recursion limit; return or raise its outcome."""
    if getattr(_on_deep_thread, "active", False):
        return fn()  # (e.g. a lazy value parsed while a deep document is written: the lock is held)
    result: dict[str, Any] = {}

    def work() -> None:
        _on_deep_thread.active = True
        old = sys.getrecursionlimit()
        sys.setrecursionlimit(max(old, _DEEP_RECURSION_LIMIT))
        try:
            result["value"] = fn()
        except BaseException as err:  # noqa: BLE001 - handed back to the calling thread
            result["error"] = err
        finally:
            sys.setrecursionlimit(old)

    with _deep_lock:
        previous = threading.stack_size()
        threading.stack_size(_DEEP_STACK_BYTES)
        try:
            worker = threading.Thread(target=work, name="afp-deep-json")
            worker.start()
        finally:
            threading.stack_size(previous)
        worker.join()
    if "error" in result:
        raise result["error"]
    return result["value"]


def _loads_deep(data: str | bytes | memoryview) -> Any:
    """A document deeper than orjson goes: orjson piece by piece (deepjson), else the standard library, which
    also says where an invalid one is wrong (from Python 3.12 it stops at ~1,500 levels whatever the limit)."""
    from afp_desktop.core.jsonx import deepjson

    raw = data.encode("utf-8") if isinstance(data, str) else bytes(data)
    value = run_deep(lambda: deepjson.loads(raw))
    if value is not None:
        return value
    return _stdlib_loads(raw, "not valid JSON, and nested too deeply for the place of the error to be found")


TOO_DEEP = "nested more levels deep than such a file ever is (orjson's limit, 1,024)"


def loads(data: str | bytes | memoryview, *, deep: bool = True) -> Any:
    """Parse one JSON document. Raises JSONSyntaxError (with line/column) on invalid input. `deep=False`: a
    document nested deeper than orjson goes raises JSONSyntaxError(TOO_DEEP) instead of being read on a deep
    stack (slow, and never needed for a small file of settings or facts)."""
    try:
        return orjson.loads(data)
    except orjson.JSONDecodeError as err:
        if _is_depth_error(err):
            if not deep:
                raise JSONSyntaxError(TOO_DEEP) from None
            return _loads_deep(data)
        if "surrogate" in str(err):  # JSON.parse takes a lone "\\ud83d" escape (and JSON.stringify writes it)
            return _loads_with_lone_surrogates(data, err)
        pos = getattr(err, "pos", None)
        msg = getattr(err, "msg", None) or str(err)
        if pos is not None and pos >= 0:
            line, column = position_of(data, pos)
            raise JSONSyntaxError(msg, line, column, pos) from None
        raise JSONSyntaxError(msg) from None


def _loads_with_lone_surrogates(data: str | bytes | memoryview, orjson_error: Exception) -> Any:
    """The standard library's parser, which keeps a lone surrogate escape as that code point, as JavaScript
    does. Its errors are reported like orjson's."""
    return _stdlib_loads(data, str(orjson_error))


def _stdlib_loads(data: str | bytes | memoryview, too_deep: str) -> Any:
    """The standard library's parse on a deep stack, its errors said like orjson's (`too_deep`: the message
    when even it runs out of depth)."""
    try:
        text = data if isinstance(data, str) else bytes(data).decode("utf-8")
    except UnicodeDecodeError as err:
        line, column = position_of(data, err.start)
        raise JSONSyntaxError("invalid UTF-8", line, column, err.start) from None
    try:
        return run_deep(lambda: json.loads(text, parse_int=_int_as_orjson_reads_it,
                                           parse_float=_float_as_orjson_reads_it, parse_constant=_not_json))
    except json.JSONDecodeError as err:
        raise JSONSyntaxError(err.msg, err.lineno, err.colno, err.pos) from None
    except RecursionError:
        raise JSONSyntaxError(too_deep) from None


# The standard library's parser reads numbers as orjson does, so that a document is read the same whichever parser
# reads it: left alone, it keeps a 400-digit integer whole (Python code that takes it for a float fails on it),
# reads 1e400 as infinity and takes NaN and Infinity, none of which orjson (or JSON.parse, for the literals) takes.
_BEYOND_A_DOUBLE = "number is infinity when parsed as double"


def _int_as_orjson_reads_it(text: str) -> int | float:
    if len(text) < 20:  # (fewer digits than 2**64 has: a machine integer, as orjson gives)
        return int(text)
    number = _float_as_orjson_reads_it(text)  # (no digit limit, unlike int() on Python 3.11+)
    exact = int(text)
    return exact if -(2**63) <= exact < 2**64 else number


def _float_as_orjson_reads_it(text: str) -> float:
    number = float(text)
    if number in (float("inf"), float("-inf")):
        raise JSONSyntaxError(_BEYOND_A_DOUBLE)
    return number


def _not_json(text: str) -> Any:
    raise JSONSyntaxError(f"{text} is not JSON")


def decoder() -> json.JSONDecoder:
    """The standard library's decoder reading numbers as `loads` does (for reading one value after another,
    `raw_decode`); what it refuses raises a ValueError (JSONSyntaxError or json.JSONDecodeError)."""
    return json.JSONDecoder(parse_int=_int_as_orjson_reads_it, parse_float=_float_as_orjson_reads_it,
                            parse_constant=_not_json)


def dumps(value: Any, *, indent: bool = False, sort_keys: bool = False) -> bytes:
    """Serialize to UTF-8 JSON bytes, at any depth."""
    option = 0
    if indent:
        option |= orjson.OPT_INDENT_2
    if sort_keys:
        option |= orjson.OPT_SORT_KEYS
    try:
        try:
            return orjson.dumps(value, option=option, default=_lazy_value)
        except orjson.JSONEncodeError as err:
            if _is_javascript_only(err):
                return _dumps_like_javascript(value, indent, sort_keys)
            if not _is_depth_error(err):
                raise
        from afp_desktop.core.jsonx import deepjson

        # Deeper than orjson goes: what lies far down is serialized first and embedded (deepjson).
        try:
            return run_deep(lambda: deepjson.dumps(value, option, _lazy_value))
        except orjson.JSONEncodeError as err:
            if _is_javascript_only(err):
                return _dumps_like_javascript(value, indent, sort_keys)
            raise
    except orjson.JSONEncodeError as err:
        if isinstance(err.__cause__, LoadError):  # a LazyJSON whose bytes are not JSON: say where
            raise err.__cause__ from None
        raise


def text_of(value: Any) -> str:
    """A value from a file as text: a string as itself, anything else as its JSON text (never `str()`: a repr of a
    value nested 1,100 levels deep goes past Python's recursion limit)."""
    return value if isinstance(value, str) else dumps(value).decode("utf-8", "replace")


def one_line(value: Any, limit: int) -> str:
    """A value from a file as one line of plain text (text_of, runs of blanks made one space), cut to `limit`
    characters with "…"."""
    try:
        text = text_of(value)
    except Exception:  # noqa: BLE001 - a value that cannot be written still reads as something
        text = repr(value)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def value_key(value: Any) -> Any:
    """A dictionary key that stands for a JSON value (an id from a file): a string as itself, anything else as its
    JSON text — so 5, "5" and true stay apart as in a JavaScript Map, and a list or object can be a key at any
    depth (its repr went past Python's recursion limit on a value nested 1,100 levels deep)."""
    return value if isinstance(value, str) else dumps(value)


def path_key(path: Any) -> tuple:
    """A subflowPath as a tuple of `value_key`s (() when it is not a list): what paths are compared and keyed by
    (comparing segments nested 1,100 levels deep went past Python's recursion limit)."""
    return tuple(value_key(segment) for segment in path) if isinstance(path, list) else ()


def same_id(a: Any, b: Any) -> bool:
    """Whether two ids from a file are the same one, as `===` says in JavaScript: equal strings, equal numbers
    (true is not 1), and a list or object only itself — comparing two lists nested a thousand levels deep went
    past Python's recursion limit."""
    if a is b:
        return True
    if isinstance(a, (list, dict)) or isinstance(b, (list, dict)) or isinstance(a, bool) or isinstance(b, bool):
        return False
    return a == b


def _is_javascript_only(err: Exception) -> bool:
    """orjson refuses what JSON.stringify writes: integers past 64 bits, strings with a lone surrogate."""
    text = str(err)
    return "64-bit" in text or "surrogate" in text


def _dumps_like_javascript(value: Any, indent: bool, sort_keys: bool) -> bytes:
    """What JSON.stringify writes for such a value: an integer past 64 bits as the double JavaScript holds (null
    past the double range), a lone surrogate as its escape `\\udXXX`. Slower (the standard library), rare."""

    def convert(node: Any) -> Any:
        if type(node) is str or node is None or isinstance(node, bool):
            return node
        if isinstance(node, int):
            if -(2**63) <= node < 2**64:
                return node
            try:
                return float(node)
            except OverflowError:
                return None
        if isinstance(node, float):
            return node if node == node and node not in (float("inf"), float("-inf")) else None
        if isinstance(node, dict):
            return {convert_key(k): convert(v) for k, v in node.items()}
        if isinstance(node, (list, tuple)):
            return [convert(v) for v in node]
        if isinstance(node, str):
            return str(node)
        return convert(_lazy_value(node))

    def convert_key(key: Any) -> str:
        return key if isinstance(key, str) else str(key)

    def work() -> bytes:
        text = json.dumps(convert(value), ensure_ascii=False, sort_keys=sort_keys, allow_nan=False,
                          indent=2 if indent else None, separators=(",", ": ") if indent else (",", ":"))
        # A lone surrogate can only stand inside a string: its escape is what JSON.stringify writes there.
        return text.encode("utf-8", "backslashreplace")

    return run_deep(work)


def _lazy_value(value: Any) -> Any:
    """Serialize a value kept lazily (core/lazyjson.py's LazyJSON: anything with `json_value()`) as the value
    its bytes hold — parsed, so checked and re-indented. Duck-typed, so this module imports no reader of it."""
    json_value = getattr(type(value), "json_value", None)
    if json_value is None:
        raise TypeError(f"Type is not JSON serializable: {type(value).__name__}")
    return json_value(value)
