"""Render resources/icons/afp-desktop-<N>.png (N = 16 … 512) from the hand-written afp-desktop.svg with QtSvg,
and copy the SVG to packaging/ for the .desktop entry. Run after editing the SVG:

    QT_QPA_PLATFORM=offscreen .venv/bin/python packaging/render_icons.py
"""

import shutil
import sys
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from afp_desktop.app.look.resources import ICON_SIZES  # noqa: E402

ICONS = ROOT / "resources" / "icons"


def main() -> None:
    app = QGuiApplication(sys.argv[:1])  # noqa: F841  (QPainter on QImage needs a Gui application)
    svg = ICONS / "afp-desktop.svg"
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        sys.exit(f"{svg}: not a valid SVG")
    for size in ICON_SIZES:
        image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        renderer.render(painter)
        painter.end()
        image.save(str(ICONS / f"afp-desktop-{size}.png"))
    shutil.copyfile(svg, ROOT / "packaging" / "afp-desktop.svg")
    print(f"rendered {len(ICON_SIZES)} PNGs into {ICONS}")


if __name__ == "__main__":
    main()
