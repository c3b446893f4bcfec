"""The engine process's entry point, light to import.

A spawned process's target is named by its module, which the starting process imports to name it: the window names
this one, so that it starts its engine process before it has imported engine/process.py and the formats it reads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from multiprocessing.connection import Connection


def serve(connection: Connection, spill_folder: str) -> None:
    """engine/process.py's `serve`, imported in the engine process."""
    from afp_desktop.engine.process import serve as serve_requests

    serve_requests(connection, spill_folder)
