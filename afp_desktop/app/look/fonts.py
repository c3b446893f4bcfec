"""The bundled DejaVu fonts, so text renders on machines (containers, minimal installs, the frozen bundle
on a bare system) that have no fonts at all: Qt would otherwise draw every glyph as an empty box or nothing.
Fallbacks cover what DejaVu lacks — Droid Sans Fallback (Chinese, Japanese), NanumSquare (Korean) and Symbola
(emoji and symbols, in outline) — so trace text in any of those never turns into empty boxes, in the window or
in exports.

The graph canvas asks for "DejaVu Sans" first, so registering the files is enough for it. Widgets use the
application font; that stays the desktop's own font whenever the system really has one, and becomes DejaVu
Sans only when the system font resolves to nothing.
"""

from __future__ import annotations

import logging

from PySide6.QtGui import QFont, QFontDatabase, QFontInfo, QGuiApplication

from afp_desktop.app.look.resources import resource_path
from afp_desktop.app.widgets.drawable_glyphs import forget_answers

log = logging.getLogger(__name__)

FALLBACK_FILES = ("DroidSansFallbackFull.ttf", "NanumSquareR.ttf", "Symbola.ttf")
FONT_FILES = ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSansMono.ttf", *FALLBACK_FILES)
SANS = "DejaVu Sans"
MONO = "DejaVu Sans Mono"
FALLBACKS = ["Droid Sans Fallback", "NanumSquare", "Symbola"]  # after the chosen family, for glyphs it lacks
# fontconfig lists these generic aliases even when it has no font files behind them.
_GENERIC_ALIASES = {"Sans Serif", "Serif", "Monospace", "Sans", "Mono"}

_loaded: list[str] | None = None
_system_had_fonts: bool | None = None


def load_bundled_fonts() -> list[str]:
    """Register the bundled font files with Qt (once per process); returns the families they provide.

    Needs a QGuiApplication. A missing or unreadable file is logged and skipped."""
    global _loaded, _system_had_fonts
    if _loaded is not None:
        return list(_loaded)
    if QGuiApplication.instance() is None:
        raise RuntimeError("load_bundled_fonts needs a QGuiApplication")
    # Looked at before our files join the database, to tell "the system has fonts" from "only ours".
    _system_had_fonts = bool(set(QFontDatabase.families()) - _GENERIC_ALIASES)
    app_family = QGuiApplication.font().family()
    resolved = QFontInfo(QGuiApplication.font()).family()  # what the system draws it in (before substitutions)
    families: list[str] = []
    for name in FONT_FILES:
        try:
            path = resource_path("fonts", name)
        except FileNotFoundError as err:
            log.warning("%s", err)
            continue
        font_id = QFontDatabase.addApplicationFont(str(path))
        if font_id < 0:
            log.warning("Qt could not load the bundled font %s", path)
            continue
        families += [f for f in QFontDatabase.applicationFontFamilies(font_id) if f not in families]
    _loaded = families
    forget_answers()
    fallbacks = [family for family in FALLBACKS if family in families]
    if fallbacks:
        for family in (SANS, MONO):
            QFont.insertSubstitutions(family, fallbacks)
        if app_family not in (SANS, MONO):
            # A generic alias ("Sans Serif") is drawn in its first substitute: the font the system resolved it to
            # comes first, or the whole window would be drawn in Droid Sans Fallback (no visible "•", "…" as "···").
            lead = [resolved] if resolved and resolved != app_family and resolved not in fallbacks else []
            QFont.insertSubstitutions(app_family, lead + fallbacks)
    return list(families)


def system_has_fonts() -> bool:
    """Whether the system offered any real font before the bundled ones were added."""
    load_bundled_fonts()
    return bool(_system_had_fonts)


def apply_default_font(app: QGuiApplication) -> str:
    """Register the bundled fonts and make sure the application font resolves to a real one.

    Returns the family text is drawn in. Keeps the desktop's font when there is one (users chose it);
    otherwise sets DejaVu Sans and points the generic families at the bundled files."""
    families = load_bundled_fonts()
    current = app.font()
    if system_has_fonts() and QFontInfo(current).family():
        return QFontInfo(current).family()
    if SANS not in families:
        log.warning("no system fonts and no bundled fonts: text may not render")
        return QFontInfo(current).family()
    for generic in ("Sans Serif", "Sans", "Helvetica", "Arial", "Segoe UI"):
        QFont.insertSubstitution(generic, SANS)
    if MONO in families:
        for generic in ("Monospace", "Mono", "Courier", "Courier New"):
            QFont.insertSubstitution(generic, MONO)
    font = QFont(SANS)
    font.setPointSizeF(current.pointSizeF() if current.pointSizeF() > 0 else 10.0)
    app.setFont(font)
    return SANS


def fixed_font() -> QFont:
    """A monospace font that exists: the system's fixed font, or the bundled DejaVu Sans Mono without one."""
    families = load_bundled_fonts()
    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    if (not system_has_fonts() or not QFontInfo(font).fixedPitch()) and MONO in families:
        size = font.pointSizeF()
        font = QFont(MONO)
        if size > 0:
            font.setPointSizeF(size)
    return font
