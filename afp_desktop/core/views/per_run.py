"""Read once per run: a view's answer kept for as long as the run it was computed from is alive.

The window's loader thread computes these beside the run's own projections (engine/service.py load_run), so the
window's thread finds them ready instead of walking 100,000 events or 20,000 commits while it paints.
"""

from __future__ import annotations

import functools
import weakref
from typing import Any, Callable, TypeVar

T = TypeVar("T")


def per_run(compute: Callable[[Any], T]) -> Callable[[Any], T]:
    """`compute(run)`, computed once per run (kept by the run's identity, dropped once the run is freed). Treat
    what it returns as read-only."""
    cache: dict[int, tuple[weakref.ref, Any]] = {}

    @functools.wraps(compute)
    def cached(run) -> T:
        hit = cache.get(id(run))
        if hit is not None and hit[0]() is run:
            return hit[1]
        value = compute(run)
        for key, (ref, _) in list(cache.items()):  # (a copy: a loader thread may add one meanwhile)
            if ref() is None:
                cache.pop(key, None)
        cache[id(run)] = (weakref.ref(run), value)
        return value

    return cached
