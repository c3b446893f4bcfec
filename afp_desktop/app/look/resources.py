"""Where the app's own files (icon, fonts, default templates) live, however it was started.

Three layouts, tried in order:
  1. a PyInstaller bundle: the spec copies resources/ to `<bundle>/afp_desktop/resources` (sys._MEIPASS);
  2. an installed wheel (or an editable install): the package `afp_desktop.resources`, which pyproject maps
     to the repository's top-level resources/ folder;
  3. a plain source checkout run without installing: `<repo>/resources`.
"""

from __future__ import annotations

import importlib.resources
import sys
from functools import lru_cache
from pathlib import Path

ICON_SIZES = (16, 24, 32, 48, 64, 128, 256, 512)
_REPO = Path(__file__).resolve().parents[3]  # afp_desktop/app/look/resources.py → the checkout


@lru_cache(maxsize=1)
def resource_roots() -> tuple[Path, ...]:
    """The folders that may hold the resources, best first (only those that exist)."""
    roots: list[Path] = []
    bundle = getattr(sys, "_MEIPASS", None)
    if getattr(sys, "frozen", False) and bundle:
        roots.append(Path(bundle) / "afp_desktop" / "resources")
    try:
        package = importlib.resources.files("afp_desktop.resources")
    except (ModuleNotFoundError, TypeError):
        package = None
    # Only a real folder will do: Qt and the font database want file names, not zip members.
    if isinstance(package, Path):
        roots.append(package)
    # Only a checkout: installed, parents[3] is site-packages, whose "resources" could be anybody's.
    if (_REPO / "pyproject.toml").is_file():
        roots.append(_REPO / "resources")
    unique: list[Path] = []
    for root in roots:
        if root.is_dir() and root not in unique:
            unique.append(root)
    return tuple(unique)


def resource_path(*parts: str) -> Path:
    """The file `resources/<parts…>` from the first root that has it; FileNotFoundError saying where it looked."""
    for root in resource_roots():
        candidate = root.joinpath(*parts)
        if candidate.exists():
            return candidate
    looked = ", ".join(str(r) for r in resource_roots()) or "no resource folder found"
    raise FileNotFoundError(f"afp-desktop resource {'/'.join(parts)!r} is missing (looked in: {looked})")



def app_icon():
    """The application icon at every size we ship (the scalable SVG plus pixel-tuned PNGs).

    An empty QIcon when the files are missing: a missing icon must never stop the app."""
    from PySide6.QtGui import QIcon

    icon = QIcon()
    for size in ICON_SIZES:
        try:
            icon.addFile(str(resource_path("icons", f"afp-desktop-{size}.png")))
        except FileNotFoundError:
            pass
    if icon.isNull():
        try:
            icon.addFile(str(resource_path("icons", "afp-desktop.svg")))
        except FileNotFoundError:
            pass
    return icon
