"""The API key dialog: where the key in use comes from, a field to paste a new one, Save
(OS keyring), Forget, and, where no keyring exists, a session-only key.

The dialog talks only to the `KeyStore` it is given (ui never imports keyring or app).
A key is never shown back in full, never put in a tooltip or a log line: only `mask_key`.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from engine.api import EngineError
from ui.i18n import engine_words

# The chat endpoints, then the rerank APIs and a local rerank server started with a key (issue 25).
PROVIDERS = ("openrouter", "openai", "custom", "jina", "cohere", "voyage", "rerank")


def mask_key(key: str | None) -> str:
    """What may be shown of a key: its last four characters (none of a short one)."""
    if not key:
        return ""
    return f"…{key[-4:]}" if len(key) > 8 else "…"


class KeysDialog(QDialog):
    def __init__(self, keys, parent: QWidget | None = None, provider: str = "openrouter") -> None:
        super().__init__(parent)
        self._keys = keys
        self.setWindowTitle(self.tr("API key"))
        self.setMinimumWidth(580)
        self.provider = QComboBox()
        labels = {"openrouter": "OpenRouter", "openai": "OpenAI", "custom": self.tr("Custom endpoint"),
                  "jina": self.tr("Jina AI (cross-encoder)"), "cohere": self.tr("Cohere (cross-encoder)"),
                  "voyage": self.tr("Voyage AI (cross-encoder)"),
                  "rerank": self.tr("Rerank server on this computer (cross-encoder)")}
        for name in PROVIDERS:
            self.provider.addItem(labels[name], name)
        self.provider.setCurrentIndex(max(self.provider.findData(provider), 0))
        self.provider.currentIndexChanged.connect(self._update)
        self.in_use = QLabel()
        self.in_use.setWordWrap(True)
        self.key_field = QLineEdit()
        self.key_field.setEchoMode(QLineEdit.EchoMode.Password)
        self.key_field.setPlaceholderText(self.tr("Paste a new key here"))
        self.key_field.textChanged.connect(self._update_buttons)
        self.save_button = QPushButton(self.tr("Save in keyring"))
        self.save_button.clicked.connect(self.save)
        self.forget_button = QPushButton(self.tr("Forget"))
        self.forget_button.setToolTip(self.tr("Remove the key from the keyring and from this session."))
        self.forget_button.clicked.connect(self.forget)

        self.notice = QFrame()
        self.notice.setObjectName("no_keyring_notice")
        self.notice.setFrameShape(QFrame.Shape.StyledPanel)
        self.notice_text = QLabel()
        self.notice_text.setWordWrap(True)
        self.session_button = QPushButton(self.tr("Use for this session only"))
        self.session_button.clicked.connect(self.use_for_session)
        notice_layout = QVBoxLayout(self.notice)
        notice_layout.addWidget(self.notice_text)
        notice_layout.addWidget(self.session_button, alignment=Qt.AlignmentFlag.AlignRight)
        self.notice.hide()
        self.status = QLabel()
        self.status.setWordWrap(True)

        intro = QLabel(self.tr("Flash (the LLM reranker), API embeddings and the cross-encoder's rerank APIs need "
                               "a key. Flashback keeps it in the system keyring, never in its own files, and never "
                               "shows it in full."))
        intro.setWordWrap(True)
        form = QFormLayout()
        form.addRow(self.tr("Provider:"), self.provider)
        form.addRow(self.tr("Key in use:"), self.in_use)
        entry = QHBoxLayout()
        entry.addWidget(self.key_field, stretch=1)
        entry.addWidget(self.save_button)
        form.addRow(self.tr("New key:"), entry)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        close.rejected.connect(self.reject)
        close.addButton(self.forget_button, QDialogButtonBox.ButtonRole.ResetRole)
        layout = QVBoxLayout(self)
        layout.addWidget(intro)
        layout.addSpacing(6)
        layout.addLayout(form)
        layout.addWidget(self.notice)
        layout.addWidget(self.status)
        layout.addStretch()
        layout.addWidget(close)
        self._update()
        if not keys.backend_available():
            self.status.setText(self.tr("This system has no keyring: a key can be used for this session only, "
                                        "or set in an environment variable."))

    def current_provider(self) -> str:
        return self.provider.currentData()

    # -- actions --------------------------------------------------------------------------
    def save(self) -> None:
        key = self.key_field.text().strip()
        if not key:
            return
        if not self._keys.backend_available():
            self._offer_session()
            return
        try:
            self._keys.save(self.current_provider(), key)
        except EngineError as error:  # KeyStoreError: the keyring refused after all
            self._offer_session(engine_words(error))
            return
        self.key_field.clear()
        self.status.setText(self.tr("Saved in the system keyring."))
        self._update()

    def use_for_session(self) -> None:
        key = self.key_field.text().strip()
        if not key:
            self.status.setText(self.tr("Paste the key first."))
            return
        self._keys.set_session(self.current_provider(), key)
        self.key_field.clear()
        self.notice.hide()
        self.status.setText(self.tr("The key will be used until Flashback closes."))
        self._update()

    def forget(self) -> None:
        self._keys.forget(self.current_provider())
        self.status.setText(self.tr("Forgotten."))
        self._update()

    def _offer_session(self, reason: str = "") -> None:
        names = ", ".join(self._keys.env_vars(self.current_provider()))
        text = self.tr("This system has no keyring to keep the key in, so it cannot be saved. "
                       "Use it for this session only (it is forgotten when Flashback closes), or set "
                       "one of these environment variables before starting Flashback: {names}.").format(names=names)
        self.notice_text.setText(text + (f"\n\n{reason}" if reason and reason not in text else ""))
        self.status.clear()  # the notice says it all; the one-line hint would repeat it
        self.notice.show()
        self.session_button.setFocus()
        self.adjustSize()  # grow to the wrapped notice instead of clipping it

    # -- display --------------------------------------------------------------------------
    def _update(self) -> None:
        provider = self.current_provider()
        source = self._keys.source(provider)
        masked = mask_key(self._keys.get(provider))
        if source == "keyring":
            text = self.tr("{key} from the system keyring").format(key=masked)
        elif source == "session":
            text = self.tr("{key} for this session only").format(key=masked)
        elif source == "env":
            text = self.tr("{key} from an environment variable ({names})").format(
                key=masked, names=", ".join(self._keys.env_vars(provider)))
        else:
            text = self.tr("none set")
        self.in_use.setText(text)
        self.forget_button.setEnabled(source in ("keyring", "session"))
        if self.notice.isVisible():
            self.notice.hide()
            self.adjustSize()
        self._update_buttons()

    def _update_buttons(self, *_args) -> None:
        has_text = bool(self.key_field.text().strip())
        self.save_button.setEnabled(has_text)
        self.session_button.setEnabled(has_text)
