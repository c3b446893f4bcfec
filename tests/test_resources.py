"""The app's own files and first-run polish: resources found from the source tree (and a simulated frozen
bundle), the bundled fonts rendering text on a system without fonts, default templates, icon, themes, the
shortcut table with its help overlay and README copy, the .desktop entry, and (slow) the wheel's contents."""

from __future__ import annotations

import configparser
import fnmatch
import json
import os
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage, QKeySequence, QPalette
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QLabel, QMainWindow

from afp_desktop.app.look.resources import ICON_SIZES, app_icon, resource_path, resource_roots
from afp_desktop.core.library.status import DEFAULT_TEMPLATES

ROOT = Path(__file__).resolve().parent.parent
FONT_FILES = ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSansMono.ttf")


def slow_enabled(config) -> bool:
    return os.environ.get("AFP_RUN_SLOW") == "1" or "slow" in (config.option.markexpr or "")


# ── resources ──────────────────────────────────────────────────────────────────────────────────────────


def test_resource_path_finds_icon_fonts_and_templates_in_the_source_tree():
    assert (ROOT / "resources") in resource_roots() or any(r.resolve() == (ROOT / "resources").resolve()
                                                          for r in resource_roots())
    for parts in [("icons", "afp-desktop.svg"), ("default-templates.json",), ("fonts", "LICENSE.txt"),
                  *[("fonts", name) for name in FONT_FILES],
                  *[("icons", f"afp-desktop-{size}.png") for size in ICON_SIZES]]:
        path = resource_path(*parts)
        assert path.is_file(), parts
        assert path.resolve().is_relative_to((ROOT / "resources").resolve())


def test_missing_resource_says_where_it_looked():
    with pytest.raises(FileNotFoundError, match="no-such-file.txt"):
        resource_path("no-such-file.txt")


def test_frozen_bundle_location_comes_first(tmp_path, monkeypatch):
    bundled = tmp_path / "afp_desktop" / "resources"
    (bundled / "icons").mkdir(parents=True)
    (bundled / "icons" / "afp-desktop.svg").write_text("<svg/>")
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)
    resource_roots.cache_clear()
    try:
        assert resource_roots()[0] == bundled
        assert resource_path("icons", "afp-desktop.svg") == bundled / "icons" / "afp-desktop.svg"
        # Whatever the bundle lacks still comes from the next root rather than failing.
        assert resource_path("default-templates.json").is_file()
    finally:
        resource_roots.cache_clear()


def test_default_templates_file_equals_the_core_defaults():
    assert json.loads(resource_path("default-templates.json").read_text(encoding="utf-8")) == DEFAULT_TEMPLATES


def test_every_resource_file_is_covered_by_the_package_data_globs():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    globs = config["tool"]["setuptools"]["package-data"]["afp_desktop.resources"]
    for path in (ROOT / "resources").rglob("*"):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".py":
            rel = path.relative_to(ROOT / "resources").as_posix()
            # setuptools globs do not cross "/" unless they say so, like fnmatch on each level.
            assert any(fnmatch.fnmatch(rel, g) and rel.count("/") == g.count("/") for g in globs), rel


def test_font_license_ships_with_the_fonts():
    text = resource_path("fonts", "LICENSE.txt").read_text(encoding="utf-8")
    assert "Bitstream Vera Fonts Copyright" in text and "Arev Fonts Copyright" in text


# ── icon ───────────────────────────────────────────────────────────────────────────────────────────────


def test_icon_pngs_have_their_sizes_and_the_svg_is_valid(qapp):
    assert QSvgRenderer(str(resource_path("icons", "afp-desktop.svg"))).isValid()
    for size in ICON_SIZES:
        image = QImage(str(resource_path("icons", f"afp-desktop-{size}.png")))
        assert (image.width(), image.height()) == (size, size)
        assert image.hasAlphaChannel()
    icon = app_icon()
    assert not icon.isNull()
    assert {s.width() for s in icon.availableSizes()} >= {16, 32, 48, 256}


def test_packaging_icon_is_the_resource_icon():
    packaged = (ROOT / "packaging" / "afp-desktop.svg").read_bytes()
    assert packaged == resource_path("icons", "afp-desktop.svg").read_bytes(), "run packaging/render_icons.py"


# ── fonts ──────────────────────────────────────────────────────────────────────────────────────────────


def test_bundled_fonts_register(qapp):
    from afp_desktop.app.look.fonts import load_bundled_fonts

    families = load_bundled_fonts()
    assert "DejaVu Sans" in families and "DejaVu Sans Mono" in families
    assert load_bundled_fonts() == families  # idempotent


_FONT_PROBE = r"""
import json, sys
from PySide6.QtCore import QRectF
from PySide6.QtGui import QColor, QFontInfo, QImage, QPainter, QTextDocument
from PySide6.QtWidgets import QApplication

app = QApplication(["probe"])

def measure(font):
    # QTextDocument is what failed without fonts (inspector text, the timeline's labels): it does not fall back
    # the way QPainter.drawText does. Tofu boxes all have one width and one shape.
    def doc(text):
        d = QTextDocument()
        d.setDefaultFont(font)
        d.setPlainText(text)
        return d
    def ink(text):
        d = doc(text)
        image = QImage(300, 60, QImage.Format.Format_ARGB32)
        image.fill(QColor("white"))
        painter = QPainter(image)
        d.drawContents(painter, QRectF(0, 0, 300, 60))
        painter.end()
        return sum(1 for y in range(60) for x in range(300) if QColor(image.pixel(x, y)).lightness() < 128)
    return {"family": QFontInfo(font).family(), "narrow": doc("iiiiiiii").idealWidth(),
            "wide": doc("WWWWWWWW").idealWidth(), "ink_i": ink("iiiiiiii"), "ink_w": ink("WWWWWWWW")}

result = {"before": measure(app.font())}
from afp_desktop.app.look.fonts import apply_default_font, fixed_font, system_has_fonts
result["applied"] = apply_default_font(app)
result["system_has_fonts"] = system_has_fonts()
result["after"] = measure(app.font())
result["mono"] = measure(fixed_font())
print(json.dumps(result))
"""


def test_text_renders_on_a_system_without_fonts(tmp_path):
    """fontconfig pointed at an empty folder: Qt has no font at all until the bundled ones are loaded."""
    empty = tmp_path / "no-fonts"
    empty.mkdir()
    conf = tmp_path / "fonts.conf"
    conf.write_text('<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">\n'
                    f"<fontconfig><dir>{empty}</dir><cachedir>{tmp_path / 'cache'}</cachedir></fontconfig>\n")
    env = dict(os.environ, FONTCONFIG_FILE=str(conf), QT_QPA_FONTDIR=str(empty), QT_QPA_PLATFORM="offscreen")
    done = subprocess.run([sys.executable, "-c", _FONT_PROBE], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    before, after, mono = result["before"], result["after"], result["mono"]
    if before["narrow"] < 0.8 * before["wide"] and before["ink_i"] != before["ink_w"]:
        pytest.skip(f"this environment still finds a font with fontconfig emptied ({before['family']!r})")
    assert not result["system_has_fonts"]
    assert result["applied"] == "DejaVu Sans"
    assert after["family"] == "DejaVu Sans"
    # Real glyphs: "i" is much narrower than "W" and they look different.
    assert after["narrow"] < 0.6 * after["wide"]
    assert 0 < after["ink_i"] < after["ink_w"]
    assert mono["family"] == "DejaVu Sans Mono"
    assert mono["narrow"] == pytest.approx(mono["wide"], rel=0.02)  # monospace …
    assert 0 < mono["ink_i"] < mono["ink_w"]  # … but real glyphs, not boxes


# ── theme ──────────────────────────────────────────────────────────────────────────────────────────────


def test_light_and_dark_themes_differ(restore_app_look):
    from afp_desktop.app.look.theme import apply_theme, build_palette, theme_notifier

    app = restore_app_look
    apply_theme(app, "light")  # (from a known look: an earlier test may have left the app dark)
    seen = []
    theme_notifier(app).theme_changed.connect(seen.append)
    assert apply_theme(app, "dark") == "dark"
    dark = app.palette().color(QPalette.ColorRole.Window)
    assert app.style().name().lower() == "fusion"
    assert apply_theme(app, "light") == "light"
    light = app.palette().color(QPalette.ColorRole.Window)
    assert dark.lightness() < 80 < 200 < light.lightness()
    assert app.palette().color(QPalette.ColorRole.Text) == build_palette("light").color(QPalette.ColorRole.Text)
    assert seen[-2:] == ["dark", "light"]
    assert apply_theme(app, "system") in ("light", "dark")
    with pytest.raises(ValueError):
        apply_theme(app, "purple")


def test_system_mode_follows_the_desktop_scheme(restore_app_look, monkeypatch):
    from afp_desktop.app.look import theme

    app = restore_app_look
    monkeypatch.setattr(theme, "system_theme", lambda _app=None: "dark")
    assert theme.apply_theme(app, "system") == "dark"
    monkeypatch.setattr(theme, "system_theme", lambda _app=None: "light")
    seen = []
    theme.theme_notifier(app).theme_changed.connect(seen.append)
    app.styleHints().colorSchemeChanged.emit(Qt.ColorScheme.Light)  # the desktop changes its scheme
    assert seen == ["light"]
    assert app.palette().color(QPalette.ColorRole.Window).lightness() > 200
    theme.apply_theme(app, "dark")
    app.styleHints().colorSchemeChanged.emit(Qt.ColorScheme.Light)  # an explicit choice is kept
    assert app.palette().color(QPalette.ColorRole.Window).lightness() < 80


# ── shortcuts and the help overlay ─────────────────────────────────────────────────────────────────────


def test_shortcut_table_is_consistent(qapp):
    from afp_desktop.app.shell.action_table import SHORTCUTS, display_keys, key_sequences

    actions = [s.action for s in SHORTCUTS]
    assert len(actions) == len(set(actions))
    all_keys = [k for s in SHORTCUTS for k in s.keys]
    assert len(all_keys) == len(set(all_keys)), "one key, one meaning"
    for entry in SHORTCUTS:
        for sequence in key_sequences(entry.action):
            assert sequence.count() == 1 and not sequence.isEmpty(), entry
        assert display_keys(entry)
    expected = {"open": "Ctrl+O", "export": "Ctrl+Shift+E", "previous_stop": "Left", "next_stop": "Right",
                "previous_event": "Shift+Left", "next_event": "Shift+Right", "home": "Home", "end": "End",
                "play": "Space", "zoom_in": "Ctrl++", "zoom_out": "Ctrl+-", "fit": "Ctrl+0", "help": "F1",
                "find": "Ctrl+F", "quit": "Ctrl+Q"}
    for action, keys in expected.items():
        assert key_sequences(action)[0] == QKeySequence(keys), action
    assert QKeySequence("?") in key_sequences("help")


def test_markdown_table_is_in_the_docs():
    from afp_desktop.app.shell.help_overlay import markdown_table
    from afp_desktop.app.shell.action_table import SHORTCUTS

    table = markdown_table()
    assert table.count("\n") >= len(SHORTCUTS) + 2
    assert "| Ctrl+O |" in table and "| F1 or ? |" in table and "| Shift+→ |" in table
    assert table in (ROOT / "docs" / "shortcuts.md").read_text(encoding="utf-8")


def test_help_overlay_lists_every_shortcut_and_closes(qtbot):
    from afp_desktop.app.shell.help_overlay import HelpOverlay
    from afp_desktop.app.shell.action_table import GESTURES, SHORTCUTS, display_keys

    window = QMainWindow()
    window.resize(900, 700)
    qtbot.addWidget(window)
    window.show()
    overlay = HelpOverlay(window)
    overlay.open()
    assert overlay.isVisible() and overlay.geometry() == window.rect()
    shown = {label.text() for label in overlay.findChildren(QLabel)}
    for entry in SHORTCUTS:
        assert display_keys(entry) in shown and entry.description in shown
        assert f"{display_keys(entry)}\t{entry.description}" in overlay.text()
    for gesture, what, _where in GESTURES:
        assert gesture in shown and what in shown
    assert all(label.textFormat() == Qt.TextFormat.PlainText for label in overlay.findChildren(QLabel))

    window.resize(500, 300)  # follows the window, panel stays inside
    qtbot.waitUntil(lambda: overlay.geometry() == window.rect())
    assert overlay.rect().contains(overlay.panel.geometry())

    with qtbot.waitSignal(overlay.closed):
        qtbot.keyClick(overlay, Qt.Key.Key_Escape)
    assert not overlay.isVisible()
    overlay.toggle()
    assert overlay.isVisible()
    qtbot.keyClick(overlay, Qt.Key.Key_F1)
    assert not overlay.isVisible()
    overlay.open()
    qtbot.mouseClick(overlay, Qt.MouseButton.LeftButton)
    assert not overlay.isVisible()


# ── packaging files ────────────────────────────────────────────────────────────────────────────────────


def test_desktop_entry():
    entry = configparser.ConfigParser(interpolation=None)
    entry.optionxform = str  # keys are case-sensitive
    entry.read(ROOT / "packaging" / "afp-desktop.desktop", encoding="utf-8")
    section = entry["Desktop Entry"]
    assert section["Type"] == "Application" and section["Name"] and section["Comment"]
    assert section["Exec"] == "afp-desktop %f"
    assert section["Icon"] == "afp-desktop"
    assert section["Categories"] == "Development;Debug;"
    assert set(section["MimeType"].strip(";").split(";")) == {"application/json", "application/x-ndjson"}


def test_spec_and_build_script_are_present():
    spec = (ROOT / "packaging" / "afp-desktop.spec").read_text(encoding="utf-8")
    compile(spec, "afp-desktop.spec", "exec")
    assert "afp_desktop/resources" in spec
    assert "dist" in (ROOT / "packaging" / "build.sh").read_text(encoding="utf-8")


@pytest.mark.slow
@pytest.mark.xdist_group("builds in the repository")  # (build/, beside the bundle's: one worker builds at a time)
def test_wheel_contains_the_resources(tmp_path, request):
    if not slow_enabled(request.config):
        pytest.skip("builds a wheel (~10 s): set AFP_RUN_SLOW=1 or run with -m slow")
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path), str(ROOT)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    (wheel,) = tmp_path.glob("afp_desktop-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        entry_points = next(archive.read(n).decode() for n in names if n.endswith(".dist-info/entry_points.txt"))
    for path in (ROOT / "resources").rglob("*"):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
            assert f"afp_desktop/resources/{path.relative_to(ROOT / 'resources').as_posix()}" in names, path
    assert "afp_desktop/__main__.py" in names
    assert "afp-desktop = afp_desktop.cli:main" in entry_points
