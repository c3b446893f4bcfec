"""Light and dark widget themes (Fusion style + a QPalette), and following the desktop's colour scheme.

    apply_theme(app, "system" | "light" | "dark") -> "light" | "dark"   (the theme actually in use)
    theme_notifier(app).theme_changed(str)   fires whenever the effective theme changes, including when the
                                             desktop switches scheme while the mode is "system"

Only widget colours live here; the step graph and timeline take theirs from style.palette_for(theme), so the
window connects theme_changed to them.

Fusion because it draws everything from the QPalette: native styles (GTK, Windows) ignore parts of it, and
a half-dark window is worse than none.
"""

from __future__ import annotations

import shiboken6
from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtGui import QColor, QGuiApplication, QPalette

MODES = ("system", "light", "dark")

_R = QPalette.ColorRole
_G = QPalette.ColorGroup

# role: (light, dark). Chosen to sit with the graph palette (style.py) without sharing its values.
_COLOURS: dict[QPalette.ColorRole, tuple[str, str]] = {
    _R.Window: ("#f3f4f6", "#23262d"),
    _R.WindowText: ("#1b2030", "#e8ebf1"),
    _R.Base: ("#ffffff", "#1a1d23"),
    _R.AlternateBase: ("#eef0f4", "#22262d"),
    _R.ToolTipBase: ("#fffbe6", "#2c313a"),
    _R.ToolTipText: ("#1b2030", "#e8ebf1"),
    _R.PlaceholderText: ("#5f6675", "#8d96a8"),  # muted text: ≥ 4.5:1 on Window and Base (a test checks)
    _R.Text: ("#1b2030", "#e8ebf1"),
    _R.Button: ("#eceef2", "#2e323b"),
    _R.ButtonText: ("#1b2030", "#e8ebf1"),
    _R.BrightText: ("#ffffff", "#ffffff"),
    _R.Light: ("#ffffff", "#3b404b"),
    _R.Midlight: ("#e3e6eb", "#333842"),
    _R.Mid: ("#b8bec9", "#282c34"),
    _R.Dark: ("#9aa1b0", "#16181d"),
    _R.Shadow: ("#5d6679", "#0b0c0f"),
    _R.Highlight: ("#2f62d0", "#3d6fd6"),
    _R.HighlightedText: ("#ffffff", "#ffffff"),
    _R.Link: ("#1a56c4", "#7ea6ff"),
    _R.LinkVisited: ("#6a3fb8", "#b69cf5"),
    _R.Accent: ("#2f62d0", "#3d6fd6"),
}
# Text colours for states, (light, dark), each ≥ 4.5:1 on that theme's Window colour (tests/test_contrast.py).
ERROR_TEXT = ("#b3261e", "#ff8a80")
NOTE_TEXT = ("#7a4100", "#ffb86b")
FOCUS_RING = ("#1a56c4", "#7ea6ff")  # the keyboard focus ring (non-text: ≥ 3:1)

_DISABLED: dict[QPalette.ColorRole, tuple[str, str]] = {
    _R.WindowText: ("#9aa1b0", "#6b7280"),
    _R.Text: ("#9aa1b0", "#6b7280"),
    _R.ButtonText: ("#9aa1b0", "#6b7280"),
    _R.Highlight: ("#c3c8d2", "#3e4451"),
    _R.HighlightedText: ("#f3f4f6", "#9aa1ae"),
}


def build_palette(theme: str) -> QPalette:
    """The widget palette for "light" or "dark"."""
    if theme not in ("light", "dark"):
        raise ValueError(f"unknown theme {theme!r}: use 'light' or 'dark'")
    index = 1 if theme == "dark" else 0
    palette = QPalette()
    for role, colours in _COLOURS.items():
        palette.setColor(role, QColor(colours[index]))  # all groups
    for role, colours in _DISABLED.items():
        palette.setColor(_G.Disabled, role, QColor(colours[index]))
    return palette


def is_dark_palette() -> bool:
    """Whether the application's widgets are dark now."""
    from PySide6.QtWidgets import QApplication

    palette = QApplication.palette() if QApplication.instance() is not None else QPalette()
    return palette.color(_R.Window).lightness() < 128


def system_theme(app: QGuiApplication | None = None) -> str:
    """The desktop's scheme as "light" or "dark" ("light" when the platform does not say)."""
    app = app or QGuiApplication.instance()
    scheme = app.styleHints().colorScheme() if app is not None else Qt.ColorScheme.Unknown
    return "dark" if scheme == Qt.ColorScheme.Dark else "light"


class ThemeNotifier(QObject):
    """One per application: remembers the chosen mode and re-applies it when the desktop's scheme changes."""

    theme_changed = Signal(str)  # the effective theme, "light" or "dark"

    def __init__(self, app: QGuiApplication):
        super().__init__(app)
        self.app = app
        self.mode = "system"
        self.effective: str | None = None
        self._applying = False
        app.styleHints().colorSchemeChanged.connect(self._system_changed)

    def apply(self, mode: str) -> str:
        if mode not in MODES:
            raise ValueError(f"unknown theme mode {mode!r}: use one of {', '.join(MODES)}")
        self.mode = mode
        self._applying = True  # setColorScheme below may emit colorSchemeChanged synchronously
        try:
            effective = self._resolve(mode)
            _use_fusion(self.app)
            self.app.setPalette(build_palette(effective))
        finally:
            self._applying = False
        if effective != self.effective:
            self.effective = effective
            self.theme_changed.emit(effective)
        return effective

    def _resolve(self, mode: str) -> str:
        hints = self.app.styleHints()
        # Qt ≥ 6.8 can also tell the platform which scheme we want (window decorations, native dialogs);
        # in "system" mode the request is withdrawn so colorScheme() reports the desktop's own choice again.
        if hasattr(hints, "setColorScheme"):
            wanted = {"light": Qt.ColorScheme.Light, "dark": Qt.ColorScheme.Dark}.get(mode, Qt.ColorScheme.Unknown)
            hints.setColorScheme(wanted)
        return mode if mode != "system" else system_theme(self.app)

    def _system_changed(self, _scheme) -> None:
        if self.mode == "system" and not self._applying:
            self.apply("system")


_notifier: ThemeNotifier | None = None


def theme_notifier(app: QGuiApplication | None = None) -> ThemeNotifier:
    """The application's ThemeNotifier (made on first use, lives as the application's child)."""
    global _notifier
    app = app or QGuiApplication.instance()
    if app is None:
        raise RuntimeError("themes need a QGuiApplication")
    if _notifier is None or not shiboken6.isValid(_notifier) or _notifier.app is not app:
        _notifier = ThemeNotifier(app)
    return _notifier


def apply_theme(app: QGuiApplication, mode: str) -> str:
    """Use the "light" or "dark" palette, or the one matching the desktop for "system" (and keep following
    it). Returns the effective theme, "light" or "dark"."""
    return theme_notifier(app).apply(mode)


def _use_fusion(app: QGuiApplication) -> None:
    """Fusion with a visible keyboard focus ring (focus_style.py)."""
    from PySide6.QtWidgets import QApplication

    from afp_desktop.app.look.focus_style import FocusRingStyle, follow_keyboard_focus

    global _style
    if isinstance(app, QApplication) and not isinstance(app.style(), FocusRingStyle):
        _style = FocusRingStyle()  # (kept referenced here as well as by the application)
        app.setStyle(_style)
    if isinstance(app, QApplication):
        follow_keyboard_focus(app)


_style = None
