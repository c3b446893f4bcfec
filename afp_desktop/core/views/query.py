"""A search query: plain text or a Python regular expression, refused with one sentence when it cannot be searched,
and searched within a time budget. Pure, no Qt.

  compile_query(query, regex, ignore_case) -> Query   or QueryError saying plainly what is wrong
  query.finditer(text, pos, endpos, deadline)          the matches; TimeoutError once `deadline` has passed
  too_slow(seconds, regex) -> SearchTooSlow            the sentence for a search that ran out of time

Python's `re` defines what a regular expression is (its syntax and its error messages). A regular expression is
then searched with the `regex` module, which reads the same syntax, stops at a timeout and lets other threads run
while it scans: `re` can backtrack for ever on patterns like (a|aa)+$ and cannot be stopped. Plain text is a literal
and is searched with `re`, in time linear in the text. Before compiling, a pattern is refused when its repeats
multiply out too far ((a{1000}){1000}): the `regex` module unrolls counted repeats while compiling.
"""

from __future__ import annotations

import re
import time
import warnings
from re import _parser as re_parser  # type: ignore[attr-defined]  # (the tree the repeat weight is measured on)
from re._constants import MAXREPEAT, MAX_REPEAT, MIN_REPEAT, POSSESSIVE_REPEAT
from typing import Any, Iterator

import regex as regex_engine

from afp_desktop.core.views.search_limits import DEFAULT_TIME_LIMIT_S

MAX_QUERY_LENGTH = 10_000  # characters of a query
MAX_REPEAT_WEIGHT = 100_000  # the pattern's size with every counted repeat multiplied out
_EMPTY_CHECK_S = 1.0  # whether the pattern matches empty text


class QueryError(ValueError):
    """The query cannot be searched for (an invalid regular expression); the message says why, plainly."""


class SearchTooSlow(QueryError):
    """The search ran out of time: the message says so and how to make the query cheaper."""


def too_slow(seconds: float, regex: bool) -> SearchTooSlow:
    why = (": a regular expression like this one can try the same text in very many ways (nested or overlapping "
           "repeats such as (a+)+ or (a|aa)+) or match far too often; make it more specific") if regex \
        else "; make it longer or more specific"
    return SearchTooSlow(f"the search took longer than {seconds:g} s and was stopped{why}")


def compile_query(query: str, regex: bool = False, ignore_case: bool = False) -> "Query":
    if not isinstance(query, str) or query == "":
        raise QueryError("the search text is empty")
    if len(query) > MAX_QUERY_LENGTH:
        raise QueryError(f"the search text is {len(query):,} characters long; at most {MAX_QUERY_LENGTH:,} are "
                         "searched for")
    if not regex:
        flags = re.IGNORECASE if ignore_case else 0
        lowered_text = query.lower()
        lowered_literal = re.escape(lowered_text) if ignore_case and len(lowered_text) == len(query) else None
        return Query(Matcher(re.compile(re.escape(query), flags), timed=False),
                     None if lowered_literal is None else Matcher(re.compile(lowered_literal), timed=False))
    flags = re.MULTILINE | (re.IGNORECASE if ignore_case else 0)  # ^ and $: start and end of any line of a text
    _check_syntax(query, flags)
    pattern = Matcher(_compile_bounded(query, flags), timed=True)
    try:
        matches_empty = pattern.fullmatch_empty()
    except TimeoutError:
        raise QueryError("this regular expression is too costly to search (it took too long to try on empty "
                         "text); simplify it") from None
    if matches_empty:
        raise QueryError("this regular expression matches empty text, so it would match everywhere; make it "
                         "match at least one character (for example x+ instead of x*)")
    lowered: Matcher | None = None
    if ignore_case and _lowers_safely(query):
        try:  # (lower-casing made it invalid: keep to the slower, exact way)
            _check_syntax(query.lower(), re.MULTILINE)
            lowered = Matcher(_compile_bounded(query.lower(), re.MULTILINE), timed=True)
        except QueryError:
            lowered = None
    return Query(pattern, lowered)


def _check_syntax(source: str, flags: int) -> None:
    """Refuse, with `re`'s own words, what `re` refuses; and a pattern too deep or too large once unrolled."""
    try:
        with warnings.catch_warnings():  # ("possible nested set" and the like: notes for programmers, not people)
            warnings.simplefilter("ignore")
            re.compile(source, flags)
            weight = _weight(re_parser.parse(source, flags))
    except re.error as err:
        where = f" at position {err.pos}" if err.pos is not None else ""
        raise QueryError(f"not a valid regular expression: {err.msg}{where}") from None
    except RecursionError:
        raise QueryError("this regular expression nests groups too deeply to be searched; use fewer groups "
                         "inside one another") from None
    except OverflowError:
        raise QueryError("not a valid regular expression: a repeat count is too large (at most 4,294,967,294)") \
            from None
    if weight > MAX_REPEAT_WEIGHT:
        raise QueryError(f"this regular expression is too large to search: with its counted repeats multiplied "
                         f"out it has more than {MAX_REPEAT_WEIGHT:,} parts (as (a{{1000}}){{1000}} would); use "
                         "smaller repeat counts")


def _compile_bounded(source: str, flags: int) -> Any:
    engine_flags = regex_engine.MULTILINE if flags & re.MULTILINE else 0
    if flags & re.IGNORECASE:
        engine_flags |= regex_engine.IGNORECASE
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return regex_engine.compile(source, engine_flags)
    except RecursionError:
        raise QueryError("this regular expression nests groups too deeply to be searched; use fewer groups "
                         "inside one another") from None
    except (regex_engine.error, OverflowError, ValueError, MemoryError) as err:
        raise QueryError(f"this regular expression cannot be searched ({err})") from None


_REPEATS = {MAX_REPEAT, MIN_REPEAT, POSSESSIVE_REPEAT}


def _weight(tree: Any) -> int:
    """The size of a parsed pattern with each counted repeat's body counted as often as it repeats (an open
    repeat as often as its minimum): what unrolling it would make."""
    total = 0
    for op, value in tree:
        if op in _REPEATS:
            low, high, body = value
            total += _weight(body) * (max(low, 1) if high == MAXREPEAT else max(high, 1))
        else:
            total += 1 + sum(_weight(sub) for sub in _subpatterns(value))
        if total > MAX_REPEAT_WEIGHT:
            return total
    return total


def _subpatterns(value: Any) -> Iterator[Any]:
    """The subpatterns inside one parsed item's value (a group's body, a branch's alternatives, …)."""
    if isinstance(value, re_parser.SubPattern):
        yield value
    elif isinstance(value, (tuple, list)):
        for item in value:
            if isinstance(item, (re_parser.SubPattern, tuple, list)):
                yield from _subpatterns(item)


# An escape whose meaning lower-casing would change (\D → \d, \A → \a, \N{…}), one naming a character by its
# code (\x41 is "A" however it is written), a backreference, or a flag group turning ignore-case off in a part.
_CASE_SENSITIVE_SYNTAX = re.compile(r"\\[A-Zxu0-9]|\(\?[a-zA-Z]*-[a-zA-Z]*i")


def _lowers_safely(source: str) -> bool:
    """Whether the lower-cased pattern, matched case-sensitively in lower-cased text, finds what the pattern
    finds ignoring case: yes unless lower-casing changes an escape's meaning or a character's length."""
    return len(source.lower()) == len(source) and not _CASE_SENSITIVE_SYNTAX.search(source)


class Matcher:
    """One compiled pattern. A timed one (a regular expression) stops at the deadline with TimeoutError and lets
    other threads run while it scans."""

    def __init__(self, compiled: Any, timed: bool):
        self.compiled = compiled
        self.timed = timed
        self.span = regex_engine.Match.span if timed else re.Match.span  # a match's (start, end)

    def finditer(self, text: str, pos: int = 0, endpos: int | None = None, deadline: float | None = None):
        end = len(text) if endpos is None else endpos
        if not self.timed:
            return self.compiled.finditer(text, pos, end)
        return self.compiled.finditer(text, pos, end, timeout=_seconds_left(deadline), concurrent=True)

    def search(self, text: str):
        if self.timed:
            return self.compiled.search(text, timeout=DEFAULT_TIME_LIMIT_S, concurrent=True)
        return self.compiled.search(text)

    def fullmatch_empty(self) -> bool:
        if self.timed:
            return self.compiled.fullmatch("", timeout=_EMPTY_CHECK_S) is not None
        return self.compiled.fullmatch("") is not None


def deadline_in(seconds: float) -> float:
    return time.monotonic() + seconds


def _seconds_left(deadline: float | None) -> float:
    if deadline is None:
        return DEFAULT_TIME_LIMIT_S
    left = deadline - time.monotonic()
    if left <= 0:
        raise TimeoutError("the search's time is up")
    return left


def check_deadline(deadline: float | None) -> None:
    """TimeoutError once `deadline` (time.monotonic()) has passed."""
    if deadline is not None and time.monotonic() >= deadline:
        raise TimeoutError("the search's time is up")


class Query:
    """A compiled query. Ignoring case, `lowered` (when set) is the same query for lower-cased text, matched
    case-sensitively: ignoring case cannot use the fast literal search and is several times slower."""

    def __init__(self, pattern: Matcher, lowered: Matcher | None = None):
        self.pattern = pattern
        self.lowered = lowered

    def finditer(self, text: str, pos: int = 0, endpos: int | None = None, deadline: float | None = None):
        return self.pattern.finditer(text, pos, endpos, deadline)

    def search(self, text: str):
        """The first match in `text`, or None; SearchTooSlow past the default time limit."""
        try:
            return self.pattern.search(text)
        except TimeoutError:
            raise too_slow(DEFAULT_TIME_LIMIT_S, self.pattern.timed) from None
