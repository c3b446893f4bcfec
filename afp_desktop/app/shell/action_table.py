"""Every action of the window in ONE table: its menu (by id, never by visible label), its place there, its keys and
what the shortcut list says of it. The window's menus are laid out from it (shell/menus.py), the help overlay
(F1 or ?) lists its keys, and docs/shortcuts.md is `markdown_table()` of it (a test keeps the two equal). No Qt
here, so the documentation and its tests need no display; `key_sequences()` imports Qt only when asked.

Keys are written in Qt's portable QKeySequence syntax ("Ctrl+Shift+E", "Right"); `display_keys()` turns them into
what people read ("Ctrl+Shift+E", "→"). Within a menu, actions stand in table order; a separator stands between
two actions of different groups.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

WINDOW = "Window"  # anywhere in the main window except while typing in a text field
INSPECTOR = "JSON inspector"
SEARCH = "JSON inspector search box"
OVERLAY = "Shortcut list"
FIND = "Find panel search box"


class MenuId(Enum):
    FILE = "file"
    RECENT = "recent"
    VIEW = "view"
    THEME = "theme"
    PANELS = "panels"
    GO = "go"
    FIND = "find"
    HELP = "help"


@dataclass(frozen=True)
class Menu:
    id: MenuId
    text: str
    parent: MenuId | None = None  # None: on the menu bar, in table order


MENUS: tuple[Menu, ...] = (
    Menu(MenuId.FILE, "&File"),
    Menu(MenuId.VIEW, "&View"),
    Menu(MenuId.GO, "&Go"),
    Menu(MenuId.FIND, "F&ind"),
    Menu(MenuId.HELP, "&Help"),
    Menu(MenuId.RECENT, "Open &Recent", MenuId.FILE),
    Menu(MenuId.THEME, "&Theme", MenuId.VIEW),
    Menu(MenuId.PANELS, "&Panels", MenuId.VIEW),
)


@dataclass(frozen=True)
class Action:
    id: str
    text: str = ""                 # the menu item's text ("" for a key that belongs to a panel, not a menu)
    menu: MenuId | None = None     # None: not in a menu
    group: str = ""                # a separator stands between groups
    keys: tuple[str, ...] = ()     # QKeySequence portable text; the first is the primary one
    description: str = ""          # the shortcut list's words (actions with keys)
    where: str = WINDOW
    checkable: bool = False
    opens: MenuId | None = None    # the item is this submenu
    tooltip: str = ""

    @property
    def action(self) -> str:  # (the shortcut list's name for the id)
        return self.id


F, V, G, N, H = MenuId.FILE, MenuId.VIEW, MenuId.GO, MenuId.FIND, MenuId.HELP

ACTIONS: tuple[Action, ...] = (
    # File
    Action("open", "&Open…", F, "open", ("Ctrl+O",), "Open a trace file (or drop one on the window)"),
    Action("recent", "Open &Recent", F, "open", opens=MenuId.RECENT),
    Action("compare", "Compare &with…", F, "open"),
    Action("export", "&Export graph (PNG or SVG)…", F, "export", ("Ctrl+Shift+E",),
           "Export the step graph (PNG or SVG: the file name's extension decides)"),
    Action("share", "&Share as web page…", F, "export",
           tooltip="One HTML file that replays this run in any browser, offline (it carries the conversation)"),
    Action("reload", "&Reload", F, "run", ("F5", "Ctrl+R"), "Reload the file from disk (the cursor stays where it was)"),
    Action("follow", "&Follow", F, "run", checkable=True,
           tooltip="Show the run as it is written: new events appear as the agent writes them"),
    Action("close", "&Close", F, "run", ("Ctrl+W",), "Close the run"),
    Action("quit", "&Quit", F, "run", ("Ctrl+Q",), "Quit"),
    # View
    Action("show_events", "&Event list", V, "panels"),
    Action("show_findings", "Fin&dings", V, "panels",
           tooltip="What a reviewer must look at: rejected arguments, denied permissions, schema retries, integrity "
                   "errors, risk flags, budget stops…"),
    Action("find", "&Find in inspector", V, "graph", ("Ctrl+F",), "Search keys and values in the JSON inspector",
           INSPECTOR),
    Action("zoom_in", "Zoom &in", V, "graph", ("Ctrl++", "Ctrl+="), "Zoom the graph in"),
    Action("zoom_out", "Zoom &out", V, "graph", ("Ctrl+-",), "Zoom the graph out"),
    Action("fit", "&Fit graph to window", V, "graph", ("Ctrl+0",), "Fit the graph to the window"),
    Action("actual_size", "&Actual size", V, "graph", ("Ctrl+1",), "Show the graph at actual size (100 %)"),
    Action("fold", "Fold similar &iterations", V, "graph", checkable=True),
    Action("hide_framework", "Hide &framework steps", V, "graph", ("Ctrl+Shift+H",),
           "Hide or show the framework's own steps in the graph (injection engine, cache, route…)", checkable=True),
    Action("prices", "Token &prices (cost)…", V, "graph", tooltip="Prices per model, to show what the LLM calls cost"),
    Action("future_dim", "Future steps &dimmed", V, "future", checkable=True),
    Action("future_hide", "Future steps &hidden", V, "future", checkable=True),
    Action("theme", "&Theme", V, "look", opens=MenuId.THEME),
    Action("theme_system", "&System", MenuId.THEME, "theme", checkable=True),
    Action("theme_light", "&Light", MenuId.THEME, "theme", checkable=True),
    Action("theme_dark", "&Dark", MenuId.THEME, "theme", checkable=True),
    Action("panels", "&Panels", V, "layout", opens=MenuId.PANELS),
    Action("reset_layout", "&Reset layout", V, "layout"),
    # Go
    Action("next_stop", "&Next stop", G, "move", ("Right",), "Next stop"),
    Action("previous_stop", "&Previous stop", G, "move", ("Left",), "Previous stop"),
    Action("next_event", "Next &event", G, "move", ("Shift+Right",), "Next single event"),
    Action("previous_event", "Previous e&vent", G, "move", ("Shift+Left",), "Previous single event"),
    Action("home", "&Start of run", G, "move", ("Home",), "Start of the run"),
    Action("end", "E&nd of run", G, "move", ("End",), "End of the run"),
    Action("play", "Play / &pause", G, "move", ("Space",), "Play / pause the replay"),
    Action("back_out", "&Back out of subflow", G, "move", ("Backspace",), "Back out of a drilled-into subflow"),
    Action("centre", "&Centre the graph on the cursor", G, "move", ("C",), "Centre the graph on the step at the cursor"),
    Action("go_to", "&Go to…", G, "jump", ("Ctrl+G",),
           "Go to a stop number, event (e300), iteration (i5), time (1m20s) or step id"),
    Action("jump_to_live", "Jump to &live", G, "jump"),
    Action("copy_link", "Copy &link to this stop", G, "link", ("Ctrl+Shift+L",),
           "Copy a link to the stop at the cursor (afp-desktop FILE --at STAGE)"),
    # Find
    Action("find_in_run", "&Find in run…", N, "find", ("Ctrl+Shift+F",),
           "Find in the whole run: labels, tools, messages, status lines…"),
    Action("bookmark", "&Bookmark this stop…", N, "bookmarks", ("Ctrl+B",),
           "Bookmark the stop at the cursor, with a note"),
    Action("show_bookmarks", "Bookmarks", N, "bookmarks", checkable=True),  # (the dock's own toggle)
    Action("export_bookmarks", "Export bookmarks as &JSON…", N, "bookmarks"),
    Action("export_with_notes", "Export graph with bookmark &notes…", N, "bookmarks"),
    # Help
    Action("help", "&Keyboard shortcuts", H, "help", ("F1", "?"), "Show or hide the shortcut list"),
    Action("about", "&About afp-desktop", H, "help"),
    # Keys of a panel, not in a menu
    Action("next_hit", keys=("Down",), description="Next match: the cursor goes there (Enter too)", where=FIND),
    Action("previous_hit", keys=("Up",), description="Previous match", where=FIND),
    Action("find_next", keys=("Return",), description="Next match", where=SEARCH),
    Action("copy_value", keys=("Ctrl+C",), description="Copy the selected value as JSON", where=INSPECTOR),
    Action("copy_path", keys=("Ctrl+Shift+C",), description="Copy the selected value's path", where=INSPECTOR),
    Action("close_help", keys=("Esc",), description="Close the shortcut list (a click anywhere does too)",
           where=OVERLAY),
)

# The order the shortcut list shows keys in (the table's own order is the menus').
_SHORTCUT_ORDER = ("open", "export", "reload", "close", "quit", "previous_stop", "next_stop", "previous_event",
                   "next_event", "home", "end", "play", "back_out", "go_to", "centre", "zoom_in", "zoom_out", "fit",
                   "actual_size", "hide_framework", "find_in_run", "next_hit", "previous_hit", "bookmark",
                   "copy_link", "find", "find_next", "copy_value", "copy_path", "help", "close_help")

ACTION_BY_ID: dict[str, Action] = {entry.id: entry for entry in ACTIONS}
SHORTCUTS: tuple[Action, ...] = tuple(ACTION_BY_ID[i] for i in _SHORTCUT_ORDER)

# Mouse gestures worth knowing: (gesture, action, where); listed under the keys in the overlay and docs.
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


def action_spec(action_id: str) -> Action:
    try:
        return ACTION_BY_ID[action_id]
    except KeyError:
        raise KeyError(f"no action {action_id!r} in the action table") from None




def in_menu(menu: MenuId) -> list[Action]:
    """The table's actions of one menu, in their order."""
    return [entry for entry in ACTIONS if entry.menu == menu]


def _display_one(keys: str) -> str:
    if keys.endswith("++"):  # "Ctrl++": the key itself is "+"
        modifiers, key = keys[:-2], "+"
    else:
        modifiers, _, key = keys.rpartition("+")
    name = _KEY_NAMES.get(key, key)
    return f"{modifiers}+{name}" if modifiers else name


def display_keys(entry: Action, separator: str = " or ") -> str:
    """The keys as people read them: "Shift+→", "F1 or ?"."""
    return separator.join(_display_one(k) for k in entry.keys)


def key_sequences(action_id: str):
    """The QKeySequences for an action, primary first, ready for QAction.setShortcuts()."""
    from PySide6.QtGui import QKeySequence

    return [QKeySequence(k) for k in action_spec(action_id).keys]


def _md(text: str) -> str:
    return text.replace("|", "\\|")  # a "|" in a cell would end the cell early


def markdown_table() -> str:
    """The shortcuts (and mouse gestures) as a Markdown table, ending with a newline."""
    rows = ["| Keys | Action | Where |", "| --- | --- | --- |"]
    rows += [f"| {_md(display_keys(s))} | {_md(s.description)} | {_md(s.where)} |" for s in SHORTCUTS]
    rows += [f"| {_md(gesture)} | {_md(what)} | {_md(where)} |" for gesture, what, where in GESTURES]
    return "\n".join(rows) + "\n"


def plain_rows() -> list[tuple[str, str, str]]:
    """(keys, action, where) rows for plain-text display: the shortcuts, then the mouse gestures."""
    rows = [(display_keys(s), s.description, s.where) for s in SHORTCUTS]
    rows += list(GESTURES)
    return rows
