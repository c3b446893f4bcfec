"""Every keyboard shortcut in ONE table: the window binds its actions from it, the help overlay (F1 or ?)
lists it, and the README's table is `markdown_table()` of it (a test keeps the two equal). No Qt here, so the
README test and docs need no display; `key_sequences()` imports Qt only when asked.

Keys are written in Qt's portable QKeySequence syntax ("Ctrl+Shift+E", "Right"); `display_keys()` turns them
into what people read ("Ctrl+Shift+E", "→").
"""

from __future__ import annotations

from dataclasses import dataclass

WINDOW = "Window"  # anywhere in the main window except while typing in a text field
INSPECTOR = "JSON inspector"
SEARCH = "JSON inspector search box"
OVERLAY = "Shortcut list"
FIND = "Find panel search box"


@dataclass(frozen=True)
class Shortcut:
    action: str           # the id the window's QAction is registered under
    keys: tuple[str, ...]  # QKeySequence portable text; the first is the primary one, the rest alternatives
    description: str
    where: str


SHORTCUTS: tuple[Shortcut, ...] = (
    Shortcut("open", ("Ctrl+O",), "Open a trace file (or drop one on the window)", WINDOW),
    Shortcut("export", ("Ctrl+Shift+E",), "Export the step graph (PNG or SVG: the file name's extension decides)",
             WINDOW),
    Shortcut("reload", ("F5", "Ctrl+R"), "Reload the file from disk (the cursor stays where it was)", WINDOW),
    Shortcut("close", ("Ctrl+W",), "Close the run", WINDOW),
    Shortcut("quit", ("Ctrl+Q",), "Quit", WINDOW),
    Shortcut("previous_stop", ("Left",), "Previous stop", WINDOW),
    Shortcut("next_stop", ("Right",), "Next stop", WINDOW),
    Shortcut("previous_event", ("Shift+Left",), "Previous single event", WINDOW),
    Shortcut("next_event", ("Shift+Right",), "Next single event", WINDOW),
    Shortcut("home", ("Home",), "Start of the run", WINDOW),
    Shortcut("end", ("End",), "End of the run", WINDOW),
    Shortcut("play", ("Space",), "Play / pause the replay", WINDOW),
    Shortcut("back_out", ("Backspace",), "Back out of a drilled-into subflow", WINDOW),
    Shortcut("go_to", ("Ctrl+G",), "Go to a stop number, event (e300), iteration (i5), time (1m20s) or step id",
             WINDOW),
    Shortcut("centre", ("C",), "Centre the graph on the step at the cursor", WINDOW),
    Shortcut("zoom_in", ("Ctrl++", "Ctrl+="), "Zoom the graph in", WINDOW),
    Shortcut("zoom_out", ("Ctrl+-",), "Zoom the graph out", WINDOW),
    Shortcut("fit", ("Ctrl+0",), "Fit the graph to the window", WINDOW),
    Shortcut("actual_size", ("Ctrl+1",), "Show the graph at actual size (100 %)", WINDOW),
    Shortcut("hide_framework", ("Ctrl+Shift+H",),
             "Hide or show the framework's own steps in the graph (injection engine, cache, route…)", WINDOW),
    Shortcut("find_in_run", ("Ctrl+Shift+F",), "Find in the whole run: labels, tools, messages, status lines…",
             WINDOW),
    Shortcut("next_hit", ("Down",), "Next match: the cursor goes there (Enter too)", FIND),
    Shortcut("previous_hit", ("Up",), "Previous match", FIND),
    Shortcut("bookmark", ("Ctrl+B",), "Bookmark the stop at the cursor, with a note", WINDOW),
    Shortcut("copy_link", ("Ctrl+Shift+L",), "Copy a link to the stop at the cursor (afp-desktop FILE --at STAGE)",
             WINDOW),
    Shortcut("find", ("Ctrl+F",), "Search keys and values in the JSON inspector", INSPECTOR),
    Shortcut("find_next", ("Return",), "Next match", SEARCH),
    Shortcut("copy_value", ("Ctrl+C",), "Copy the selected value as JSON", INSPECTOR),
    Shortcut("copy_path", ("Ctrl+Shift+C",), "Copy the selected value's path", INSPECTOR),
    Shortcut("help", ("F1", "?"), "Show or hide the shortcut list", WINDOW),
    Shortcut("close_help", ("Esc",), "Close the shortcut list (a click anywhere does too)", OVERLAY),
)

# Mouse gestures worth knowing: (gesture, action, where); listed under the keys in the overlay and README.
GESTURES: tuple[tuple[str, str, str], ...] = (
    ("Click a graph card", "Select it and move the cursor to when it appeared", "Step graph"),
    ("Right-click a graph card", "Copy the step's JSON or id, or export the graph", "Step graph"),
    ("Mouse wheel", "Zoom the graph around the pointer", "Step graph"),
    ("Click a folded “Iterations 3–999” card", "Expand the iterations it stands for", "Step graph"),
    ("Click or drag on the minimap", "Show that part of the graph", "Step graph"),
    ("↑ ↓ (and ← → once reached with Tab)", "Select the neighbouring card", "Step graph"),
    ("Enter on a selected card", "Move the cursor to when it appeared (as a click does)", "Step graph"),
    ("Double-click a square stop", "Drill into its inner stops", "Timeline"),
    ("Click or drag on the overview strip", "Show those stops (Fit all: every stop)", "Timeline"),
    ("Drop a file on the window", "Open it", WINDOW),
)

NOTE = "The replay keys work anywhere in the window except while typing in a text field."

_KEY_NAMES = {"Left": "←", "Right": "→", "Up": "↑", "Down": "↓", "Return": "Enter", "Escape": "Esc"}


def shortcut(action: str) -> Shortcut:
    for entry in SHORTCUTS:
        if entry.action == action:
            return entry
    raise KeyError(f"no shortcut for action {action!r}")


def _display_one(keys: str) -> str:
    if keys.endswith("++"):  # "Ctrl++": the key itself is "+"
        modifiers, key = keys[:-2], "+"
    else:
        modifiers, _, key = keys.rpartition("+")
    name = _KEY_NAMES.get(key, key)
    return f"{modifiers}+{name}" if modifiers else name


def display_keys(entry: Shortcut, separator: str = " or ") -> str:
    """The keys as people read them: "Shift+→", "F1 or ?"."""
    return separator.join(_display_one(k) for k in entry.keys)


def key_sequences(action: str):
    """The QKeySequences for an action, primary first, ready for QAction.setShortcuts()."""
    from PySide6.QtGui import QKeySequence

    return [QKeySequence(k) for k in shortcut(action).keys]


def bind(action, action_id: str):
    """Give a QAction the table's keys for `action_id`, so menus show what the overlay and README say."""
    action.setShortcuts(key_sequences(action_id))
    return action


def _md(text: str) -> str:
    # A "|" in a cell would end the cell early.
    return text.replace("|", "\\|")


def markdown_table() -> str:
    """The shortcuts (and mouse gestures) as the README's Markdown table, ending with a newline."""
    rows = ["| Keys | Action | Where |", "| --- | --- | --- |"]
    rows += [f"| {_md(display_keys(s))} | {_md(s.description)} | {_md(s.where)} |" for s in SHORTCUTS]
    rows += [f"| {_md(gesture)} | {_md(what)} | {_md(where)} |" for gesture, what, where in GESTURES]
    return "\n".join(rows) + "\n"


def plain_rows() -> list[tuple[str, str, str]]:
    """(keys, action, where) rows for plain-text display: the shortcuts, then the mouse gestures."""
    rows = [(display_keys(s), s.description, s.where) for s in SHORTCUTS]
    rows += list(GESTURES)
    return rows
