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
        where = self.path
        if self.line is not None:
            where += f", line {self.line}"
            if self.column is not None:
                where += f", column {self.column}"
        return where

    def __str__(self) -> str:
        return f"{self.where()}: {self.message}"


class LoadError(Exception):
    """A file that cannot be opened as a run. `problem` says where and why, for a person to read."""

    def __init__(self, path: str, message: str, line: int | None = None, column: int | None = None):
        self.problem = Problem(str(path), message, line, column)
        super().__init__(str(self.problem))


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
