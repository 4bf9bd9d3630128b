"""Help → About Flashback: the version, where the data lives (a link that opens it), which
embedder and chat model are in use, the licence, and what stays on this computer.

`ui` cannot import `app` (where `__version__` lives), so the window is given an `AboutInfo`;
without one the installed distribution's metadata answers.
"""

from __future__ import annotations

import html
import logging
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from PySide6.QtCore import QCoreApplication, Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QFormLayout, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from engine.api import EMBEDDING_PRESETS, EmbeddingConfig
from engine.api import PRESETS as CHAT_PRESETS
from ui.app_icon import app_icon
from ui.i18n import engine_words

log = logging.getLogger(__name__)
translate = QCoreApplication.translate  # lupdate reads translate("AboutDialog", "…") calls
LICENCE = "MIT"


@dataclass(frozen=True)
class AboutInfo:
    version: str
    data_dir: Path | None = None  # None: the service's
    licence: str = LICENCE


def complete_info(about: AboutInfo | None, data_dir: Path) -> AboutInfo:
    """What app/ passed in, with the installed version and the service's folder where it left them out."""
    about = about or AboutInfo(installed_version())
    return about if about.data_dir is not None else AboutInfo(about.version, Path(data_dir), about.licence)


def about_dialog(parent: QWidget, info: AboutInfo, embedding: EmbeddingConfig, settings) -> AboutDialog:
    """Open (window-modal, not blocking) the About box for the embedder in use and the Settings
    panel's chat endpoint and model (`settings`: a `SearchSettings`)."""
    dialog = AboutDialog(info, describe_embedder(embedding),
                         describe_chat_model(settings.preset, settings.model, settings.base_url), parent)
    dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    dialog.open()
    return dialog


def installed_version() -> str:
    """The version pip recorded for the `flashback` distribution (what `flashback --version` says)."""
    try:
        return version("flashback")
    except PackageNotFoundError:  # a bare checkout on sys.path, never installed
        return "0+unknown"


def open_folder(path: Path) -> bool:
    """Show `path` in the system's file manager; False when the desktop refused (no handler)."""
    opened = QDesktopServices.openUrl(QUrl.fromLocalFile(str(path)))
    if not opened:
        log.info("the desktop could not open %s", path)
    return opened


def describe_embedder(config: EmbeddingConfig) -> str:
    if config.provider == "builtin":
        return translate("AboutDialog", "Built-in (character n-grams, offline)")
    preset = EMBEDDING_PRESETS.get(config.provider, EMBEDDING_PRESETS["custom"])
    where = config.base_url or preset.base_url
    label = preset.label if config.provider != "custom" else where
    return f"{label} · {config.model or preset.model}"


def describe_chat_model(preset_name: str, model: str, base_url: str) -> str:
    """"OpenRouter · google/gemini-3-flash-preview"; a custom server is named by its URL."""
    preset = CHAT_PRESETS[preset_name]
    label = (base_url.strip() or preset.base_url) if preset_name == "custom" else engine_words(preset.label_message())
    return f"{label} · {model.strip() or translate('AboutDialog', '(no model chosen)')}"


class AboutDialog(QDialog):
    def __init__(self, info: AboutInfo, embedder: str, chat_model: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.info = info
        self.setWindowTitle(self.tr("About Flashback"))
        self.setMinimumWidth(520)
        icon = QLabel()
        icon.setPixmap(app_icon().pixmap(64, 64))
        icon.setVisible(not app_icon().isNull())
        title = QLabel(self.tr("<span style='font-size:16pt; font-weight:600'>Flashback</span><br>"
                               "Version {0}").format(html.escape(info.version)))
        title.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        tagline = QLabel(self.tr("Your chat history as searchable memory."))
        header = QHBoxLayout()
        header.addWidget(icon, alignment=Qt.AlignmentFlag.AlignTop)
        text = QVBoxLayout()
        text.addWidget(title)
        text.addWidget(tagline)
        header.addLayout(text, 1)

        folder = str(info.data_dir or "")
        self.data_link = QLabel(f"<a href='{html.escape(QUrl.fromLocalFile(folder).toString())}'>"
                                f"{html.escape(folder)}</a>")
        self.data_link.setToolTip(self.tr("Open the data folder"))
        self.data_link.setWordWrap(True)
        self.data_link.setTextInteractionFlags(Qt.TextInteractionFlag.LinksAccessibleByMouse
                                               | Qt.TextInteractionFlag.LinksAccessibleByKeyboard)
        self.data_link.linkActivated.connect(lambda _url: open_folder(Path(folder)))
        self.embedder = self._value(embedder)
        self.chat_model = self._value(chat_model)
        form = QFormLayout()
        form.addRow(self.tr("Data folder:"), self.data_link)
        form.addRow(self.tr("Embedder:"), self.embedder)
        form.addRow(self.tr("Chat model (Flash):"), self.chat_model)
        form.addRow(self.tr("Licence:"), self._value(info.licence))
        self.privacy = QLabel(self.tr(
            "Your chats, their memory and your searches stay in the data folder on this computer. "
            "Text leaves it only when you ask: Flash and “Also make topics with this model” send it to the "
            "chat model above, an API embedder to its server. API keys stay in the system keyring."))
        self.privacy.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(header)
        layout.addSpacing(8)
        layout.addLayout(form)
        layout.addSpacing(4)
        layout.addWidget(self.privacy)
        layout.addWidget(buttons)

    @staticmethod
    def _value(text: str) -> QLabel:
        label = QLabel(text)
        label.setWordWrap(True)
        label.setTextFormat(Qt.TextFormat.PlainText)  # a model name or URL is data, not markup
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        return label
