"""The one module of errors, warnings and notices: load errors and warnings are values that name the file, the
line and column where known, and what was wrong; a notice is a plain sentence about what a file cannot show."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Problem:
    path: str
    message: str
    line: int | None = None
    column: int | None = None

    def where(self) -> str:
        where = printable_path(self.path)
        if self.line is not None:
            where += f", line {self.line}"
            if self.column is not None:
                where += f", column {self.column}"
        return where

    def __str__(self) -> str:
        return f"{self.where()}: {self.message}"


def printable_path(path) -> str:
    """A file name as text any output takes: bytes that are not UTF-8 (kept by Python as lone surrogates) are
    written as \\xNN escapes instead of making a JSON writer, a terminal or a label fail."""
    import os

    text = os.fsdecode(path)
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return os.fsencode(text).decode("utf-8", "backslashreplace") if _only_escaped_bytes(text) else \
            text.encode("utf-8", "backslashreplace").decode("utf-8")


def _only_escaped_bytes(text: str) -> bool:
    return all(not 0xD800 <= ord(c) <= 0xDFFF or 0xDC80 <= ord(c) <= 0xDCFF for c in text)


class LoadError(Exception):
    """A file that cannot be opened as a run. `problem` says where and why, for a person to read."""

    def __init__(self, path: str, message: str, line: int | None = None, column: int | None = None):
        self.problem = Problem(str(path), message, line, column)
        super().__init__(str(self.problem))

    def __reduce__(self):
        """Pickled whole, whatever its class was made with (a payload's problems go from the engine process to the
        window's: an exception is otherwise remade from its words alone, which is not how a LoadError is made)."""
        return (_remade_load_error, (type(self), self.args, self.__dict__))


def _remade_load_error(cls: type[LoadError], args: tuple, state: dict) -> LoadError:
    error = cls.__new__(cls)
    Exception.__init__(error, *args)
    error.__dict__.update(state)
    return error


class LoadCancelled(Exception):
    """The caller asked to stop loading."""


def describe_type(value: object) -> str:
    """JSON-ish name of a Python value's type, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


@dataclass(frozen=True)
class Notice:
    """One plain sentence about what the file cannot show (or a fact worth knowing). `code` identifies it: the
    banner shows one notice per code."""

    code: str
    text: str
    level: str = "warning"  # "error" | "warning" | "info"
