"""Settings → Cross-encoder: which rerank server scores stage 1's best topics, and the seed's
conditions and cuts (issue 25, seed 002 §7; docs/rerankers.md).

The group only lays the controls out: its sliders and the server combo box come from the
settings panel's own factories (one range per setting, from engine.api.SETTINGS, and the
same save-and-signal path as every other control); the address, the model and the check
boxes report their edits through `edited`, and `show_settings` puts a `SearchSettings` back
without echoing it.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QCheckBox, QComboBox, QFormLayout, QGroupBox, QLineEdit, QWidget

from engine.api import RERANK_PRESETS, CrossEncoderSettings
from ui.search.settings_model import RERANK_PRESET_ORDER, SearchSettings
from ui.search.slider_spin import SliderSpin

# Product names, the same in every language; "custom" is the window's own words.
SERVER_NAMES = {"llamacpp": "llama.cpp", "tei": "TEI", "infinity": "Infinity", "vllm": "vLLM",
                "jina": "Jina AI", "cohere": "Cohere", "voyage": "Voyage AI"}


class CrossEncoderGroup(QGroupBox):
    edited = Signal(dict)  # SearchSettings fields → their new values

    def __init__(self, slider: Callable[[str], SliderSpin], combo: Callable[[str, list], QComboBox],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTitle(self.tr("Cross-encoder"))
        self.setToolTip(self.tr("A rerank model scores each (query, topic) pair on a rerank server: a local one "
                                "(llama.cpp, TEI, Infinity, vLLM) sends nothing off this computer; an API "
                                "(Jina, Cohere, Voyage) receives the query and about 40 topic excerpts."))
        form = QFormLayout(self)
        names = {**SERVER_NAMES, "custom": self.tr("Custom URL")}
        self.server = combo("rerank_preset", [(names[name], name) for name in RERANK_PRESET_ORDER])
        form.addRow(self.tr("Server"), self.server)
        self.url = QLineEdit()
        self.url.editingFinished.connect(lambda: self.edited.emit({"rerank_url": self.url.text().strip()}))
        form.addRow(self.tr("URL"), self.url)
        self.model = QLineEdit()
        self.model.editingFinished.connect(lambda: self.edited.emit({"rerank_model": self.model.text().strip()}))
        form.addRow(self.tr("Model"), self.model)
        form.addRow(self.tr("Score ≥"), slider("ce_threshold"))
        form.addRow(self.tr("Final top-K"), slider("ce_top_k"))
        limit = CrossEncoderSettings().small_limit
        self.skip_small = self._check("ce_skip_small", self.tr("Skip at ≤ {0} topics").format(limit))
        self.skip_small.setToolTip(self.tr("With few candidates whose scores are clearly apart, stage 1 has already "
                                           "chosen: nothing is sent and its first topics are kept."))
        self.skip_flat = self._check("ce_skip_flat", self.tr("Skip when scores stand apart"))
        self.skip_flat.setToolTip(self.tr("Asked only when stage 1's top scores barely differ. With both boxes "
                                          "clear, the cross-encoder is asked for every search."))
        form.addRow(self.skip_small)
        form.addRow(self.skip_flat)
        form.addRow(self.tr("Topics sent"), slider("ce_top_n"))
        passage = slider("ce_passage_tokens")
        passage.spin.setSuffix("")  # in the tooltip: " tokens" would widen the settings column
        passage.setToolTip(self.tr("Each topic is sent as about this many tokens: its date, summary and the "
                                   "opening of its conversation."))
        form.addRow(self.tr("Passage size"), passage)
        form.addRow(self.tr("Per request"), slider("ce_batch"))
        form.addRow(self.tr("Timeout"), slider("ce_timeout"))

    def _check(self, name: str, text: str) -> QCheckBox:
        box = QCheckBox(text)
        box.toggled.connect(lambda on: self.edited.emit({name: on}))
        return box

    def show_settings(self, settings: SearchSettings) -> None:
        """The address, model and check boxes as `settings` has them (no `edited` echoed back)."""
        spec = RERANK_PRESETS[settings.rerank_preset]
        widgets = (self.url, self.model, self.skip_small, self.skip_flat)
        for widget in widgets:
            widget.blockSignals(True)
        try:
            if self.url.text() != settings.rerank_url:  # keep the cursor while the person types
                self.url.setText(settings.rerank_url)
            self.url.setPlaceholderText(spec.base_url or self.tr("http://host:port"))
            if self.model.text() != settings.rerank_model:
                self.model.setText(settings.rerank_model)
            self.model.setPlaceholderText(spec.default_model or self.tr("the server's model"))
            self.skip_small.setChecked(settings.ce_skip_small)
            self.skip_flat.setChecked(settings.ce_skip_flat)
        finally:
            for widget in widgets:
                widget.blockSignals(False)
