"""The PyInstaller bundle: `bash packaging/build.sh` builds dist/afp-desktop/, and the frozen binary runs the
command line, exports PNG and SVG and takes a window screenshot headless, with resources (fonts included)
loaded from inside the bundle. Slow (about a minute): runs when AFP_RUN_SLOW=1 (CI) or with `-m slow`."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from PySide6.QtGui import QColor, QImage

from afp_desktop import __version__

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "sample_traces" / "react-two-tools.trace.json"
BUILD_TIMEOUT_S = 600
# Lean guard, measured without the Python interpreter's own libraries (their size depends on how Python was
# built: with or without debug info, stripped or not). ~153 MiB today; 166 MiB in all.
MAX_BUNDLE_MIB = 175

# The build is the first test's (the timeout); one worker builds it, in a folder of its own (never the repository's
# dist/ and build/, which a person's own build or another tool may be using).
pytestmark = [pytest.mark.slow, pytest.mark.timeout(BUILD_TIMEOUT_S + 300),
              pytest.mark.xdist_group("builds in the repository")]


@pytest.fixture(scope="module")
def bundle(request, tmp_path_factory):
    if not (os.environ.get("AFP_RUN_SLOW") == "1" or "slow" in (request.config.option.markexpr or "")):
        pytest.skip("builds the PyInstaller bundle (~1 min): set AFP_RUN_SLOW=1 or run with -m slow")
    if not sys.platform.startswith("linux"):
        pytest.skip("the bundle smoke test runs on Linux")
    start = time.monotonic()
    folder = tmp_path_factory.mktemp("bundle")
    env = dict(os.environ, DIST_DIR=str(folder / "dist"), WORK_DIR=str(folder / "work"))
    done = subprocess.run(["bash", str(ROOT / "packaging" / "build.sh")], cwd=ROOT, capture_output=True, text=True,
                          timeout=BUILD_TIMEOUT_S, env=env)
    assert done.returncode == 0, f"build failed:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    binary = folder / "dist" / "afp-desktop" / "afp-desktop"
    assert binary.is_file() and os.access(binary, os.X_OK)
    print(f"\nbundle built in {time.monotonic() - start:.0f} s: {done.stdout.strip().splitlines()[-1]}")
    return binary


def run(binary, *args, env=None, timeout=120):
    env = dict(os.environ if env is None else env, QT_QPA_PLATFORM="offscreen")
    env.pop("PYTHONPATH", None)  # the frozen app must not need anything from outside the bundle
    return subprocess.run([str(binary), *map(str, args)], cwd=ROOT, capture_output=True, text=True, env=env,
                          timeout=timeout)


def check_png(path: Path, min_width: int, min_height: int) -> QImage:
    image = QImage(str(path))
    assert not image.isNull(), f"{path} is not a readable PNG"
    assert image.width() >= min_width and image.height() >= min_height, (image.width(), image.height())
    colours = {image.pixel(x, y) for x in range(0, image.width(), 7) for y in range(0, image.height(), 7)}
    assert len(colours) > 20, "the image is (almost) blank"
    return image


def test_version_help_and_info_print_to_stdout(bundle):
    done = run(bundle, "--version")
    assert done.returncode == 0 and done.stdout.strip() == f"afp-desktop {__version__}"
    done = run(bundle, "--help")
    assert done.returncode == 0
    for word in ("--screenshot", "export", "stepgraph", "info", "convert"):
        assert word in done.stdout
    done = run(bundle, "info", SAMPLE)
    assert done.returncode == 0, done.stderr
    assert "Format:" in done.stdout and "Trace v1" in done.stdout


def test_export_png_and_svg(bundle, tmp_path):
    png, svg = tmp_path / "graph.png", tmp_path / "graph.svg"
    for out in (png, svg):
        done = run(bundle, "export", SAMPLE, "-o", out)
        assert done.returncode == 0, done.stderr
    check_png(png, 300, 150)

    root = ET.parse(svg).getroot()
    assert root.tag.endswith("svg")
    width, height = float(root.get("width")), float(root.get("height"))
    view_box = [float(v) for v in root.get("viewBox").split()]
    assert width >= 300 and height >= 150
    assert view_box == [0, 0, width, height]
    texts = "".join(el.text or "" for el in root.iter() if el.tag.endswith("text"))
    assert "llm" in texts and "tool" in texts


def test_bundled_fonts_load_from_the_bundle(bundle, tmp_path):
    """With fontconfig emptied the frozen app has only the fonts inside the bundle: the export must still
    draw its text, i.e. come out (nearly) the same as with the system's fonts."""
    empty = tmp_path / "no-fonts"
    empty.mkdir()
    conf = tmp_path / "fonts.conf"
    conf.write_text('<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">\n'
                    f"<fontconfig><dir>{empty}</dir><cachedir>{tmp_path / 'cache'}</cachedir></fontconfig>\n")
    no_fonts = dict(os.environ, FONTCONFIG_FILE=str(conf), QT_QPA_FONTDIR=str(empty))
    normal, bare = tmp_path / "normal.png", tmp_path / "bare.png"
    assert run(bundle, "export", SAMPLE, "-o", normal).returncode == 0
    done = run(bundle, "export", SAMPLE, "-o", bare, env=no_fonts)
    assert done.returncode == 0, done.stderr
    a, b = QImage(str(normal)), QImage(str(bare))
    assert a.size() == b.size()

    def dark(image):  # text pixels: the text colour (#1b2030) is far darker than fills, edges and muted text
        return sum(1 for y in range(image.height()) for x in range(image.width())
                   if QColor(image.pixel(x, y)).lightness() < 60)

    text_a, text_b = dark(a), dark(b)
    assert text_a > 500
    assert abs(text_a - text_b) < 0.1 * text_a, (text_a, text_b)

    shot = tmp_path / "bare-window.png"
    done = run(bundle, SAMPLE, "--screenshot", shot, env=no_fonts)
    assert done.returncode == 0, done.stderr
    check_png(shot, 800, 500)


def test_window_screenshot(bundle, tmp_path):
    shot = tmp_path / "window.png"
    done = run(bundle, SAMPLE, "--screenshot", shot, "--stop", 2)
    assert done.returncode == 0, done.stderr
    check_png(shot, 800, 500)


def test_bundle_is_lean(bundle):
    folder = bundle.parent
    internal = folder / "_internal"
    files = [p for p in folder.rglob("*") if p.is_file() and not p.is_symlink()]  # PyInstaller links some libs
    size_mib = sum(p.stat().st_size for p in files) / 2**20
    python_own = [p for p in files if p.name.startswith("libpython") or "lib-dynload" in p.parts]
    app_mib = size_mib - sum(p.stat().st_size for p in python_own) / 2**20
    print(f"\nbundle: {size_mib:.0f} MiB in {len(files)} files ({app_mib:.0f} MiB without the interpreter)")
    assert app_mib < MAX_BUNDLE_MIB
    names = {p.name for p in files}
    for unwanted in ("libQt6Qml.so.6", "libQt6Quick.so.6", "libQt6Network.so.6", "libQt6Pdf.so.6",
                     "libQt6WaylandClient.so.6", "libQt6WebEngineCore.so.6", "libQt6Multimedia.so.6",
                     "QtNetwork.abi3.so", "QtQml.abi3.so"):
        assert unwanted not in names, unwanted
    qt = internal / "PySide6" / "Qt"
    assert not (qt / "translations").exists()
    plugins = {p.relative_to(qt / "plugins").as_posix() for p in (qt / "plugins").rglob("*.so")}
    assert {"platforms/libqxcb.so", "platforms/libqoffscreen.so", "imageformats/libqsvg.so"} <= plugins
    assert not any(p.startswith(("platforms/libqwayland", "platforms/libqeglfs", "tls/", "sqldrivers/"))
                   for p in plugins), plugins
    resources = internal / "afp_desktop" / "resources"
    for rel in ("default-templates.json", "fonts/DejaVuSans.ttf", "fonts/LICENSE.txt", "icons/afp-desktop.svg",
                "icons/afp-desktop-256.png"):
        assert (resources / rel).is_file(), rel
    assert not any("sample_traces" in p.parts for p in files)
    assert any("lz4" in p.parts and p.suffix == ".so" for p in files), "lz4 (packed Trace payloads) is bundled"
