"""Waiting for the inspector's content: it is the engine's answer to a request, which comes on a later turn."""

from __future__ import annotations


def read(qtbot, inspector) -> None:
    """Until the inspector shows the content of the moment it shows (the engine's answer drawn)."""
    qtbot.waitUntil(lambda: not inspector.is_reading, timeout=20_000)


def inspector_answered(qtbot, window) -> None:
    """Until the window's moment has settled and its inspector drew the engine's answer for it: no request of the
    inspector's is under way (tests that count the engine's replies)."""
    qtbot.waitUntil(lambda: not getattr(window.session, "settle_pending", False), timeout=20_000)
    read(qtbot, window.panels["inspector"])
