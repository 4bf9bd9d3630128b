"""What a first start shows: what Flashback does, and the two ways to begin."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget


class EmptyState(QWidget):
    import_requested = Signal()
    demo_requested = Signal()

    def __init__(self, demo_available: bool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("empty_state")
        self.title = QLabel(self.tr("No chats yet"))
        self.title.setStyleSheet("font-size: 22pt; font-weight: 600;")
        self.title.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.body = QLabel(self.tr(
            "Flashback turns your chat exports into a memory you can search: it groups the "
            "messages into topics and finds them again by meaning, in English and Russian.\n\n"
            "Import a Telegram Desktop, ChatGPT, WhatsApp or JSONL export (a file, a folder or a "
            "zip), or open the bundled demo to try it first. Everything stays on this computer."))
        self.body.setWordWrap(True)
        self.body.setAlignment(Qt.AlignmentFlag.AlignCenter)
        font = self.body.font()
        font.setPointSizeF(font.pointSizeF() * 1.15)
        self.body.setFont(font)
        # A wrapped label inside an aligned layout item gets no height-for-width: fix the
        # width and reserve the height it needs, or its first line is cut off.
        self.body.setFixedWidth(600)
        self.body.setMinimumHeight(self.body.heightForWidth(600))
        self.import_button = QPushButton(self.tr("Import an export…"))
        self.import_button.setDefault(True)
        self.import_button.clicked.connect(self.import_requested)
        self.demo_button = QPushButton(self.tr("Open the demo"))
        self.demo_button.clicked.connect(self.demo_requested)
        self.demo_button.setVisible(demo_available)
        for button in (self.import_button, self.demo_button):
            button.setMinimumSize(180, 40)
        self.hint = QLabel(self.tr("You can also drop files, folders or zips on this window."))
        self.hint.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.hint.setEnabled(False)  # drawn in the disabled (grey) colour: a hint, not an action

        buttons = QHBoxLayout()
        buttons.addStretch()
        buttons.addWidget(self.import_button)
        buttons.addSpacing(12)
        buttons.addWidget(self.demo_button)
        buttons.addStretch()
        layout = QVBoxLayout(self)
        layout.addStretch(2)
        layout.addWidget(self.title)
        layout.addSpacing(12)
        layout.addWidget(self.body, alignment=Qt.AlignmentFlag.AlignHCenter)
        layout.addSpacing(24)
        layout.addLayout(buttons)
        layout.addSpacing(16)
        layout.addWidget(self.hint)
        layout.addStretch(3)

    def set_busy(self, busy: bool) -> None:
        """While an import runs the buttons would only queue a second one: grey them."""
        self.import_button.setEnabled(not busy)
        self.demo_button.setEnabled(not busy)
