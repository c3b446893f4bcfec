"""How a file is named in File ▸ Open Recent: its name and its folder (two `trace.json` stay apart), the
home folder shortened to ~ and a long folder cut in the middle. No Qt."""

from __future__ import annotations

import os

MAX_FOLDER_CHARS = 60


def short_folder(folder: str, home: str | None = None) -> str:
    home = home if home is not None else os.path.expanduser("~")
    if home and home != os.sep and (folder == home or folder.startswith(home.rstrip(os.sep) + os.sep)):
        folder = "~" + folder[len(home.rstrip(os.sep)):]
    if len(folder) > MAX_FOLDER_CHARS:
        keep = (MAX_FOLDER_CHARS - 1) // 2
        folder = folder[:keep] + "…" + folder[-keep:]
    return folder


def recent_label(path: str, home: str | None = None) -> str:
    """"name — folder" for a menu entry; `&` doubled so Qt does not take it for a mnemonic."""
    text = f"{os.path.basename(path)}   —   {short_folder(os.path.dirname(path), home)}"
    return text.replace("&", "&&")


# The file dialogs' filter: every kind of file the app opens first, then anything.
TRACE_FILTER = ("Trace files (*.ndjson *.jsonl *.json *.gz *.xz *.1 *.zip);;"
                "All files (*)")
