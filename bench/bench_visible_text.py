"""How long `visible_text` takes on the text a label or text box is given: prints figures, asserts nothing.

    QT_QPA_PLATFORM=offscreen python bench/bench_visible_text.py

The first sight of a character asks the fonts (drawable_glyphs.py); later sights are a dictionary look-up.
"""

from __future__ import annotations

import sys
import time


def timed(label: str, run, repeat: int = 5) -> None:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    print(f"{label:<58} {best * 1000:8.2f} ms")


def main() -> None:
    from PySide6.QtWidgets import QApplication

    app = QApplication(sys.argv)
    from afp_desktop.app.look.fonts import apply_default_font
    from afp_desktop.app.widgets import drawable_glyphs
    from afp_desktop.app.widgets.visible_text import visible_text

    apply_default_font(app)
    ascii_text = "The weather in Oslo is 18°C, light rain. " * 2500
    plain = "plain ascii text, no controls. " * 3300
    mixed = "中文 café 😀 \x1b[31mred\x1b[0m " * 5000
    cjk = "".join(chr(c) for c in range(0x4E00, 0x4E00 + 5000))
    print(f"{len(plain):,} ASCII characters; others as labelled")
    timed("ASCII, nothing to mark", lambda: visible_text(plain))
    timed(f"{len(ascii_text):,} characters, one non-ASCII", lambda: visible_text(ascii_text))
    timed(f"{len(mixed):,} characters: CJK, accents, emoji, ESC", lambda: visible_text(mixed))
    drawable_glyphs.forget_answers()
    timed("5,000 distinct CJK characters, first sight (fonts asked)", lambda: visible_text(cjk), repeat=1)
    timed("5,000 distinct CJK characters, seen before", lambda: visible_text(cjk))


if __name__ == "__main__":
    main()
