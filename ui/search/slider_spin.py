"""A slider with a spin box beside it, kept in sync: drag for a feel, type for an exact value;
and the wheel guard every control in a scrolled settings panel wears."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt, Signal
from PySide6.QtWidgets import QAbstractScrollArea, QDoubleSpinBox, QHBoxLayout, QSlider, QSpinBox, QWidget


class WheelGuard(QObject):
    """Event filter: a control the person has not clicked or tabbed into ignores the mouse wheel
    and the scroll area around it scrolls instead. Without it, scrolling the settings panel
    moved whatever slider or spin box passed under the pointer (Score gap 0.15 → 0.00, saved,
    and every face then searched with it)."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt's name)
        if event.type() != QEvent.Type.Wheel or not isinstance(watched, QWidget) or watched.hasFocus():
            return False
        area = _scroll_area_around(watched)
        if area is not None:  # sent, not left to propagate: Qt does not propagate a synthesized wheel event
            QCoreApplication.sendEvent(area.viewport(), event)
        event.accept()
        return True  # the control itself never sees it


def _scroll_area_around(widget: QWidget) -> QAbstractScrollArea | None:
    parent = widget.parentWidget()
    while parent is not None and not isinstance(parent, QAbstractScrollArea):
        parent = parent.parentWidget()
    return parent


def guard_wheel(widget: QWidget, guard: WheelGuard) -> None:
    """The wheel changes `widget` only once it has focus, which the wheel alone no longer gives it."""
    widget.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
    widget.installEventFilter(guard)


class SliderSpin(QWidget):
    """An int (decimals=0) or float value in [minimum, maximum].

    The slider works in integer steps of 10**-decimals; `valueChanged` fires once per real
    change, whichever of the two widgets the user moved.
    """

    valueChanged = Signal(object)  # noqa: N815 (Qt's naming)

    def __init__(self, minimum: float, maximum: float, decimals: int = 0, suffix: str = "",
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._scale = 10 ** decimals
        self._decimals = decimals
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setRange(round(minimum * self._scale), round(maximum * self._scale))
        self.slider.setSingleStep(1)
        self.slider.setPageStep(max(1, round((maximum - minimum) * self._scale / 10)))
        if decimals:
            self.spin: QSpinBox | QDoubleSpinBox = QDoubleSpinBox()
            self.spin.setDecimals(decimals)
            self.spin.setSingleStep(1 / self._scale)
            self.spin.setRange(minimum, maximum)
        else:
            self.spin = QSpinBox()
            self.spin.setGroupSeparatorShown(maximum >= 10_000)
            self.spin.setRange(int(minimum), int(maximum))
        self.spin.setSuffix(suffix)
        self.spin.setKeyboardTracking(False)  # typing "0.35" must not fire for "0" and "0.3"
        self.spin.setMinimumWidth(72)
        self.spin.setAlignment(Qt.AlignmentFlag.AlignRight)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.slider, 1)
        layout.addWidget(self.spin)
        self.slider.valueChanged.connect(self._on_slider_changed)
        self.spin.valueChanged.connect(self._on_spin_changed)
        self._value = self.value()

    def value(self) -> float | int:
        value = self.spin.value()
        return round(value, self._decimals) if self._decimals else int(value)

    def setValue(self, value: float) -> None:  # noqa: N802 (Qt's naming)
        """Set both widgets; emits `valueChanged` only if the value really changed."""
        self._apply(value, from_slider=False)

    def _on_slider_changed(self, position: int) -> None:
        self._apply(position / self._scale, from_slider=True)

    def _on_spin_changed(self, value: float) -> None:
        self._apply(value, from_slider=False)

    def _apply(self, value: float, from_slider: bool) -> None:
        self.slider.blockSignals(True)
        self.spin.blockSignals(True)
        try:
            if isinstance(self.spin, QDoubleSpinBox):
                self.spin.setValue(value)
            else:  # whole numbers: int() cuts as PySide6 did with the float
                self.spin.setValue(int(value))
            if not from_slider:  # a typed 0.355 would otherwise snap the spin box back
                self.slider.setValue(round(self.spin.value() * self._scale))
        finally:
            self.slider.blockSignals(False)
            self.spin.blockSignals(False)
        if self.value() != self._value:
            self._value = self.value()
            self.valueChanged.emit(self._value)
