"""JavaScript string semantics the projections depend on (PROJECTIONS.md notation, §6.4).

Python counts code points and strips a different whitespace set; agentfootprint counts UTF-16 code units,
trims with the ECMAScript set, and turns any value into text with `String(value)`. These helpers reproduce
the JavaScript behaviour so the port's output matches the library's byte for byte.

  JS_WHITESPACE / js_trim   String.prototype.trim (WhiteSpace + LineTerminator)
  js_length                 str.length (UTF-16 code units)
  js_slice_units            str.slice(0, n) (may leave a lone high surrogate)
  js_string                 String(value) for JSON values, plus `undefined`
"""

from __future__ import annotations

from typing import Any

from decimal import Decimal

JS_WHITESPACE = (
    "\u0009\u000a\u000b\u000c\u000d\u0020\u00a0\u1680"
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)

class _Undefined:
    """The one value standing for JavaScript `undefined`: read back from a pickle as itself (what holds it is told
    apart by `is UNDEFINED`, in the window's copy of a run too)."""

    __slots__ = ()

    def __reduce__(self) -> str:
        return "UNDEFINED"

    def __repr__(self) -> str:
        return "UNDEFINED"


UNDEFINED = _Undefined()
"""Stands for JavaScript `undefined` (a missing key), which `js_string` renders as "undefined"."""

_BMP_END = "\U00010000"


def _is_bmp(s: str) -> bool:
    # Cheap C-level checks first: in a BMP-only string one code point is one UTF-16 unit.
    return s.isascii() or max(s) < _BMP_END


def js_trim(s: str) -> str:
    """`s.trim()`: strips exactly the ECMAScript whitespace and line terminators (not U+001C–U+001F, U+0085)."""
    return s.strip(JS_WHITESPACE)


def js_length(s: str) -> int:
    """`s.length`: the number of UTF-16 code units (a non-BMP character counts 2)."""
    if _is_bmp(s):
        return len(s)
    return len(s.encode("utf-16-le", "surrogatepass")) // 2


def js_slice_units(s: str, n: int) -> str:
    """`s.slice(0, n)` for n >= 0: the first n UTF-16 code units; a cut inside a pair leaves a lone high surrogate."""
    if _is_bmp(s):
        return s[:n]
    return s.encode("utf-16-le", "surrogatepass")[: 2 * n].decode("utf-16-le", "surrogatepass")


def _js_number(x: int | float) -> str:
    """Number.prototype.toString() for a JSON number (JavaScript holds every number as a double)."""
    if isinstance(x, int) and abs(x) < 2**53:
        return str(x)
    try:
        x = float(x)
    except OverflowError:  # a literal past the double range: JSON.parse gives ±Infinity
        x = float("inf") if x > 0 else float("-inf")
    if x != x:
        return "NaN"
    if x in (float("inf"), float("-inf")):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "0"  # String(-0) is "0"
    # repr gives the shortest round-trip digits, the same digits JavaScript picks; only the layout differs.
    _, digit_tuple, exponent = Decimal(repr(abs(x))).normalize().as_tuple()
    digits = "".join(map(str, digit_tuple))
    k, n = len(digits), len(digits) + int(exponent)  # n = position of the decimal point (finite: an int)
    if k <= n <= 21:
        body = digits + "0" * (n - k)
    elif 0 < n <= 21:
        body = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        body = "0." + "0" * -n + digits
    else:
        e = n - 1
        body = digits[0] + ("." + digits[1:] if k > 1 else "") + ("e+" if e >= 0 else "e-") + str(abs(e))
    return ("-" if x < 0 else "") + body


def js_string(value) -> str:
    """`String(value)` for a parsed JSON value (or UNDEFINED), as template literals and `+=` produce it."""
    if isinstance(value, str):
        return value
    if value is UNDEFINED:
        return "undefined"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return _js_number(value)
    if isinstance(value, (list, tuple)):
        # Array.prototype.join: null and undefined elements become empty.
        return _js_join(value)
    return "[object Object]"


def _js_join(value) -> str:
    """Array.prototype.join(",") of nested lists, iteratively: a list nested thousands deep is no RecursionError."""
    stack: list[tuple[Any, list[str]]] = [(iter(value), [])]
    while True:
        items, parts = stack[-1]
        for item in items:
            if isinstance(item, (list, tuple)):
                stack.append((iter(item), []))
                break
            parts.append("" if item is None or item is UNDEFINED else js_string(item))
        else:
            text = ",".join(parts)
            stack.pop()
            if not stack:
                return text
            stack[-1][1].append(text)
