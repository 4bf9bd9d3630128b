"""The Ask plan as chips the person can edit: sub-queries, the date range, chats and people.

Each chip is an editable field with a × (a chat chip is picked from the store's chats, not
typed); "+" adds one; "Ask again with this plan" sends the edited plan back (`rerun_requested`,
an `engine.api.Plan` with source "user"), which the engine searches as given, with no plan call.
A date chip shows the range's days ("2025-04-01 … 2025-04-30") and accepts days or words
("last week", "в мае"), read by the engine's own date reader (`engine.api.read_dates`).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QLineEdit, QMenu, QPushButton, QToolButton, QWidget

from engine.api import DateRange, Plan, read_dates
from ui.search.flow_layout import FlowLayout

KIND_COLOURS = {"query": "#e8f0fb", "dates": "#fdf3e1", "chat": "#e6f4ec", "person": "#f1e9f7"}
CHIP_MIN_WIDTH = 60
CHIP_MAX_WIDTH = 420


class Chip(QFrame):
    changed = Signal()
    removed = Signal(object)  # the chip

    def __init__(self, kind: str, text: str, *, caption: str = "", editable: bool = True, tip: str = "",
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.kind = kind
        self.setObjectName("planChip")
        self.setStyleSheet(f"#planChip {{ background: {KIND_COLOURS[kind]}; border: 1px solid #cfd6de;"
                           " border-radius: 10px; }")
        self.setToolTip(tip)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 1, 2, 1)
        layout.setSpacing(3)
        if caption:
            label = QLabel(caption)
            label.setStyleSheet("color: #6b7280;")
            layout.addWidget(label)
        self.edit = QLineEdit(text)
        self.edit.setFrame(False)
        self.edit.setReadOnly(not editable)
        self.edit.setStyleSheet("background: transparent;")
        self.edit.textEdited.connect(self._on_edited)
        layout.addWidget(self.edit)
        remove = QToolButton(autoRaise=True)
        remove.setText("×")
        remove.setToolTip(self.tr("Remove from the plan"))
        remove.clicked.connect(lambda: self.removed.emit(self))
        layout.addWidget(remove)
        self._fit()

    def text(self) -> str:
        return " ".join(self.edit.text().split())

    def _on_edited(self, _text: str) -> None:
        self._fit()
        self.changed.emit()

    def _fit(self) -> None:
        wanted = self.edit.fontMetrics().horizontalAdvance(self.edit.text() or "M" * 6) + 12
        self.edit.setFixedWidth(max(CHIP_MIN_WIDTH, min(CHIP_MAX_WIDTH, wanted)))
        self.updateGeometry()


class PlanChips(QWidget):
    rerun_requested = Signal(object)  # the edited Plan

    def __init__(self, chat_names: Callable[[], list[str]], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._chat_names = chat_names
        self._dates: DateRange | None = None  # the range the date chip showed, kept while its text is unchanged
        self.now: Callable[[], datetime] = lambda: datetime.now().astimezone()
        self.chips: list[Chip] = []
        self.edited = False
        self._flow = FlowLayout(self, spacing=5)
        self.caption = QLabel(self.tr("Plan:"))
        self.caption.setStyleSheet("font-weight: 600;")
        self.add_button = QToolButton(popupMode=QToolButton.ToolButtonPopupMode.InstantPopup)
        self.add_button.setText(self.tr("+ Add"))
        self.add_button.setToolTip(self.tr("Add search words, a date range, a chat or a person to the plan"))
        self.add_menu = QMenu(self)
        self.add_menu.aboutToShow.connect(self._fill_add_menu)
        self.add_button.setMenu(self.add_menu)
        self.rerun_button = QPushButton(self.tr("Ask again with this plan"))
        self.rerun_button.setToolTip(self.tr("Search the plan as edited, without asking the model for a plan"))
        self.rerun_button.clicked.connect(self._on_rerun)
        self.error = QLabel(wordWrap=True)
        self.error.setStyleSheet("color: #b42318;")
        self.error.hide()
        self._relayout()

    # -- showing a plan ---------------------------------------------------------------------
    def set_plan(self, plan: Plan) -> None:
        for chip in self.chips:
            chip.deleteLater()
        self.chips = []
        self._dates = plan.date_range
        for query in plan.subqueries:
            self._add("query", query)
        if plan.date_range is not None:
            self._add("dates", plan.date_range.label())
        for chat in plan.chats:
            self._add("chat", chat)
        for person in plan.people:
            self._add("person", person)
        self._set_edited(False)

    def plan(self) -> Plan | None:
        """The plan as the chips now say it; None (and the reason shown) when a date chip is unreadable."""
        dates: DateRange | None = None
        for chip in self._of("dates"):
            if self._dates is not None and chip.text() == self._dates.label():
                dates = self._dates
            elif chip.text():
                dates = read_dates(chip.text(), self.now())
                if dates is None:
                    self.error.setText(self.tr("“{0}” is not a date range: write days like 2025-04-01 … "
                                               "2025-04-30, or words like “last week”.").format(chip.text()))
                    self.error.show()
                    return None
        self.error.hide()
        texts = {kind: [c.text() for c in self._of(kind) if c.text()] for kind in ("query", "chat", "person")}
        return Plan(texts["query"], dates, texts["chat"], texts["person"], "user")

    # -- editing ----------------------------------------------------------------------------
    def add_chip(self, kind: str, text: str = "") -> Chip:
        chip = self._add(kind, text)
        self._set_edited(True)
        chip.edit.setFocus()
        return chip

    def _add(self, kind: str, text: str) -> Chip:
        captions = {"dates": self.tr("dates:"), "chat": self.tr("chat:"), "person": self.tr("person:")}
        tips = {"query": self.tr("Searched for: edit the words, or remove them"),
                "dates": self.tr("Topics in this range count for more (never a cut)"),
                "chat": self.tr("Only this chat is searched"),
                "person": self.tr("Only topics where this person wrote")}
        chip = Chip(kind, text, caption=captions.get(kind, ""), editable=kind != "chat", tip=tips[kind], parent=self)
        chip.changed.connect(lambda: self._set_edited(True))
        chip.removed.connect(self._remove)
        order = ("query", "dates", "chat", "person")
        after = [i for i, c in enumerate(self.chips) if order.index(c.kind) <= order.index(kind)]
        self.chips.insert(after[-1] + 1 if after else 0, chip)
        self._relayout()
        return chip

    def _remove(self, chip: Chip) -> None:
        self.chips.remove(chip)
        chip.deleteLater()
        self._set_edited(True)
        self._relayout()

    def _fill_add_menu(self) -> None:
        menu = self.add_menu
        menu.clear()
        menu.addAction(self.tr("Search words"), lambda: self.add_chip("query"))
        dates = menu.addAction(self.tr("Dates"), lambda: self.add_chip("dates"))
        dates.setEnabled(not self._of("dates"))
        menu.addAction(self.tr("Person"), lambda: self.add_chip("person"))
        chats = menu.addMenu(self.tr("Chat"))
        shown = {c.text() for c in self._of("chat")}
        for name in self._chat_names():
            if name not in shown:
                chats.addAction(name, self._chat_adder(name))
        chats.setEnabled(not chats.isEmpty())

    def _chat_adder(self, name: str) -> Callable[[], Chip]:
        """What the Add menu's item for chat `name` calls (a closure per name, not the loop's last)."""
        return lambda: self.add_chip("chat", name)

    def _on_rerun(self) -> None:
        plan = self.plan()
        if plan is not None:
            self.rerun_requested.emit(plan)

    # -- helpers ------------------------------------------------------------------------------
    def _of(self, kind: str) -> list[Chip]:
        return [c for c in self.chips if c.kind == kind]

    def _set_edited(self, edited: bool) -> None:
        self.edited = edited
        self.rerun_button.setEnabled(edited)
        if not edited:
            self.error.hide()

    def _relayout(self) -> None:
        while self._flow.count():
            self._flow.takeAt(0)
        for widget in (self.caption, *self.chips, self.add_button, self.rerun_button, self.error):
            self._flow.addWidget(widget)
        self._flow.invalidate()
        self.updateGeometry()

    def sizeHint(self):  # noqa: N802 (Qt's name)
        hint = super().sizeHint()
        hint.setHeight(self._flow.heightForWidth(max(self.width(), 200)))
        return hint

    def hasHeightForWidth(self) -> bool:  # noqa: N802 (Qt's name)
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802 (Qt's name)
        return self._flow.heightForWidth(width)
