"""The timeline's slider over every event of the run, repainted only when its handle moves a pixel.

Each move of the cursor sets the slider's value, and QSlider repaints itself at every new value. On a long run
the handle moves a pixel only every few stops (tens of thousands of events over a thousand-odd pixels), and
each repaint goes through the window's style in Python to show the same picture.
"""

from __future__ import annotations

from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import QAbstractSlider, QSlider, QStyle, QStyleOptionSlider


class EventSlider(QSlider):
    def __init__(self) -> None:
        super().__init__(Qt.Orientation.Horizontal)
        self.painted_handle: QRect | None = None  # where the handle was when the slider was last painted

    def handle_rect(self) -> QRect:
        option = QStyleOptionSlider()
        self.initStyleOption(option)
        return self.style().subControlRect(QStyle.ComplexControl.CC_Slider, option,
                                           QStyle.SubControl.SC_SliderHandle, self)

    def sliderChange(self, change) -> None:  # noqa: N802 (Qt's name)
        if change == QAbstractSlider.SliderChange.SliderValueChange and not self.isSliderDown() \
                and self.painted_handle is not None and self.handle_rect() == self.painted_handle:
            return  # the same picture as painted (the value still changed: value() and the signals have it)
        super().sliderChange(change)

    def paintEvent(self, event) -> None:  # noqa: N802
        self.painted_handle = self.handle_rect()
        super().paintEvent(event)
