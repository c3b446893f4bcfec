"""The command line's numbers, checked as they are read. Every numeric option of every command has one of these
argparse types, so a value that is not a number, not finite (nan, inf), or outside the option's range is
refused before anything runs, with a sentence saying what the option takes (argparse names the option); no
command ever meets such a number later (as a hang, an overflow or an internal error).
"""

from __future__ import annotations

import argparse
import math
from typing import Callable

MAX_WHOLE_DIGITS = 18  # an index or a count: more digits than that is no position in any run


def number_arg(*, above: float | None = None, least: float | None = None,
               most: float) -> Callable[[str], float]:
    """A finite number greater than `above` (or at least `least`) and at most `most`."""
    low = f"greater than {_shown(above)}" if above is not None else f"at least {_shown(least or 0.0)}"
    wanted = f"must be a number {low} and at most {_shown(most)}"

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = math.nan
        in_range = (value > above if above is not None else value >= (least or 0.0)) and value <= most
        if not (math.isfinite(value) and in_range):
            raise argparse.ArgumentTypeError(f"{wanted}, not {text!r}")
        return value

    return parse


def whole_arg(least: int = 0) -> Callable[[str], int]:
    """A whole number of at least `least` (a position, an index, a count)."""

    def parse(text: str) -> int:
        digits = text.strip().lstrip("+-")
        value = int(text) if digits.isdigit() and digits.isascii() and len(digits) <= MAX_WHOLE_DIGITS else None
        if value is None or value < least:
            raise argparse.ArgumentTypeError(f"must be a whole number of at least {least}, not {text!r}")
        return value

    return parse


def _shown(number: float) -> str:
    return str(int(number)) if number == int(number) else f"{number:g}"


def size_arg(text: str) -> int:
    """--max-bytes: a size such as 500M, 4G or a number of bytes (at least one byte, finite)."""
    from afp_desktop.core.formats.source import parse_size

    try:
        return parse_size(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (write e.g. 500M, 4G or a number of bytes)") from None
