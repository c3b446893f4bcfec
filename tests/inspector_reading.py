"""Waiting for the inspector's content: it is the engine's answer to a request, which comes on a later turn."""

from __future__ import annotations


def read(qtbot, inspector) -> None:
    """Until the inspector shows the content of the moment it shows (the engine's answer drawn)."""
    qtbot.waitUntil(lambda: not inspector.is_reading, timeout=20_000)
