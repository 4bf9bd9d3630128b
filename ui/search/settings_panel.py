"""The search settings as a side panel: reranker mode, sliders with spin boxes, the rerank server
(ui/search/cross_encoder_settings.py) and the LLM endpoint.

It edits one `SearchSettings`, saves every change at once through the engine (the data folder's
settings file, which the CLI and the MCP server read too), and
says what changed through `changed(name)`; the search panel decides what that means
(re-filter instantly, re-run stage 1, or nothing until the next Flash run).
"""

from __future__ import annotations

import sys
from dataclasses import fields, replace
from typing import Any, cast

from PySide6.QtCore import QCoreApplication, QDate, QEvent, QSettings, Qt, Signal
from PySide6.QtGui import QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractSlider,
    QAbstractSpinBox,
    QCheckBox,
    QComboBox,
    QDateEdit,
    QFormLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from engine.api import INSTALL_HINT, PRESETS, SETTINGS, local_model_available
from ui.i18n import engine_words
from ui.search import settings_model
from ui.search.cross_encoder_settings import CrossEncoderGroup
from ui.search.settings_model import EFFORTS, MODEL_CHOICES, PRESET_ORDER, RANGES, SearchSettings
from ui.search.slider_spin import SliderSpin, WheelGuard, guard_wheel

NO_DATE = QDate(1970, 1, 1)  # the date edits' minimum, shown as "any": no bound


def unit_suffix(unit: str) -> str:
    """The schema's unit (" s", " tokens") as a spin box suffix in the window's language."""
    words = {" s": QCoreApplication.translate("SettingsPanel", " s"),
             " tokens": QCoreApplication.translate("SettingsPanel", " tokens")}
    return words.get(unit, unit)


class _DayEdit(QDateEdit):
    """A date edit with a calendar popup that opens on this month while it says "any" (not on 1970)."""

    def __init__(self) -> None:
        super().__init__()
        self.setCalendarPopup(True)
        self.calendarWidget().installEventFilter(self)

    def eventFilter(self, watched, event) -> bool:  # noqa: N802 (Qt's name)
        # The popup sets the calendar to the edit's date, then shows it: turn the page on Show.
        if event.type() == QEvent.Type.Show and watched is self.calendarWidget() and self.date() == NO_DATE:
            today = QDate.currentDate()
            self.calendarWidget().setCurrentPage(today.year(), today.month())
        return super().eventFilter(watched, event)


class SettingsPanel(QWidget):
    changed = Signal(str)  # the SearchSettings field that changed

    def __init__(self, store: QSettings | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._store = store if store is not None else QSettings()
        self._settings = settings_model.load(self._store)
        self._sliders: dict[str, SliderSpin] = {}
        self._combos: dict[str, QComboBox] = {}
        layout = QVBoxLayout(self)
        layout.addWidget(self._search_group())
        layout.addWidget(self._threshold_group())
        self.cross_encoder = CrossEncoderGroup(self._slider, self._combo)
        self.cross_encoder.edited.connect(self._update)
        layout.addWidget(self.cross_encoder)
        layout.addWidget(self._flash_group())
        layout.addWidget(self._embeddings_group())
        self.reset_button = QPushButton(self.tr("Reset to defaults"))
        self.reset_button.clicked.connect(self.reset_to_defaults)
        layout.addWidget(self.reset_button)
        layout.addStretch(1)
        self._wheel_guard = WheelGuard(self)
        for kind in (QAbstractSlider, QAbstractSpinBox, QComboBox):  # sliders, spin and date boxes, combo boxes
            for control in self.findChildren(kind):
                guard_wheel(control, self._wheel_guard)
        self._show(self._settings)

    # -- public -------------------------------------------------------------------------
    def settings(self) -> SearchSettings:
        return self._settings

    def set_value(self, name: str, value: object) -> None:
        """Change one setting as if the user had (widgets follow, it is saved, `changed` fires)."""
        self._update({name: value})

    def reset_to_defaults(self) -> None:
        """Every search setting and filter at its default (the window's language is not one of them)."""
        defaults = SearchSettings()
        self._update({spec.name: getattr(defaults, spec.name) for spec in fields(SearchSettings)
                      if spec.name not in SETTINGS or SETTINGS[spec.name].section == "search"})

    def slider(self, name: str) -> SliderSpin:
        return self._sliders[name]

    def combo(self, name: str) -> QComboBox:
        return self._combos[name]

    # -- building -----------------------------------------------------------------------
    def _search_group(self) -> QGroupBox:
        group = QGroupBox(self.tr("Search"))
        form = QFormLayout(group)
        mode = self._combo("mode", [(self.tr("Vector only"), "vector"), (self.tr("Threshold"), "threshold"),
                                    (self.tr("Cross-encoder"), "cross-encoder"), (self.tr("Flash (LLM)"), "flash")])
        mode.setToolTip(self.tr("Vector only keeps every candidate; Threshold cuts by score instantly; "
                                "Cross-encoder has a rerank server score the best topics with each search; "
                                "Flash asks an LLM to choose (one API call per run)."))
        form.addRow(self.tr("Reranker"), mode)
        form.addRow(self.tr("Candidates"), self._slider("candidates"))
        self.hybrid = QCheckBox(self.tr("Hybrid (vectors + keywords)"))
        self.hybrid.toggled.connect(lambda on: self._update({"hybrid": on}))
        form.addRow(self.hybrid)  # across both columns: a check box's label is its own
        form.addRow(self.tr("Chat"), self._combo("chat_id", [(self.tr("All chats"), 0)]))
        self.date_from, self.date_to = self._date("date_from"), self._date("date_to")
        form.addRow(self.tr("From"), self.date_from)
        form.addRow(self.tr("To"), self.date_to)
        # From after To: said under the dates, and no search runs (SearchPanel.search)
        self.date_note = QLabel(wordWrap=True)
        self.date_note.setVisible(False)
        self.date_note.setStyleSheet("color: #b42318;")
        form.addRow(self.date_note)
        return group

    def _threshold_group(self) -> QGroupBox:
        group = QGroupBox(self.tr("Threshold"))
        form = QFormLayout(group)
        form.addRow(self.tr("Score ≥"), self._slider("threshold"))
        form.addRow(self.tr("Score gap"), self._slider("gap"))
        form.addRow(self.tr("Final top-K"), self._slider("top_k"))
        return group

    def _flash_group(self) -> QGroupBox:
        group = QGroupBox(self.tr("Flash (LLM)"))
        form = QFormLayout(group)
        labels = {"openrouter": "OpenRouter", "openai": "OpenAI", "ollama": "Ollama", "llamacpp": "llama.cpp",
                  "lmstudio": "LM Studio", "custom": self.tr("Custom URL")}
        form.addRow(self.tr("Endpoint"), self._combo("preset", [(labels[name], name) for name in PRESET_ORDER]))
        self.base_url = QLineEdit()
        self.base_url.editingFinished.connect(lambda: self._update({"base_url": self.base_url.text().strip()}))
        form.addRow(self.tr("URL"), self.base_url)
        self.model = QComboBox()
        self.model.setEditable(True)
        self.model.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.model.setMinimumContentsLength(12)  # the provider and most of the name; full text on hover
        self.model.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.model.currentTextChanged.connect(lambda text: self._update({"model": text}))
        self.model.currentTextChanged.connect(self.model.setToolTip)
        form.addRow(self.tr("Model"), self.model)
        efforts = {"none": self.tr("none"), "minimal": self.tr("minimal"), "low": self.tr("low"),
                   "medium": self.tr("medium"), "high": self.tr("high")}  # the API's words, saved as they are
        reasoning = self._combo("reasoning_effort", [(efforts[e], e) for e in EFFORTS])
        reasoning.setToolTip(self.tr("How long the model may think before it answers (the API's reasoning effort)."))
        form.addRow(self.tr("Reasoning"), reasoning)
        form.addRow(self.tr("Timeout"), self._slider("timeout"))
        form.addRow(self.tr("Max tool calls"), self._slider("max_tool_calls"))
        form.addRow(self.tr("Max topics"), self._slider("max_topics"))
        form.addRow(self.tr("Max people"), self._slider("max_people"))
        form.addRow(self.tr("Max artifacts"), self._slider("max_artifacts"))
        self.rewrite_query = QCheckBox(self.tr("Rewrite the query first"))
        self.rewrite_query.setToolTip(self.tr(
            "With recent messages pasted, one short call first rewrites a vague question (“what did he say?”) "
            "into a self-contained one; the search runs for both and Flash sees both. Nothing is sent "
            "without recent messages."))
        self.rewrite_query.toggled.connect(lambda on: self._update({"rewrite_query": on}))
        form.addRow(self.rewrite_query)
        self.chain_cross_encoder = QCheckBox(self.tr("Cross-encoder first"))
        self.chain_cross_encoder.setToolTip(self.tr(
            "The rerank server (Settings → Cross-encoder) scores the topics first and Flash reads only the best "
            "of them: fewer tokens sent to the LLM. When the cross-encoder is not asked or fails, Flash reads "
            "every candidate."))
        self.chain_cross_encoder.toggled.connect(lambda on: self._update({"chain_cross_encoder": on}))
        form.addRow(self.chain_cross_encoder)
        form.addRow(self.tr("Flash reads"), self._slider("ce_chain_keep"))  # topics, the cross-encoder's best
        self.topics_llm = QCheckBox(self.tr("Also make topics with this model"))
        self.topics_llm.setToolTip(self.tr(
            "When memory is built, the model splits conversations into topics and decides merges "
            "(one API call per chunk of up to 400 messages). Without it, or where it fails, "
            "topics get extractive summaries."))
        self.topics_llm.toggled.connect(lambda on: self._update({"topics_llm": on}))
        form.addRow(self.topics_llm)
        return group

    def _embeddings_group(self) -> QGroupBox:
        group = QGroupBox(self.tr("Embeddings"))
        form = QFormLayout(group)
        # Short item names keep the settings column narrow (the window fits 1280 px without
        # a horizontal scroll bar); what each one means is in its tooltip.
        combo = self._combo("embedder", [(self.tr("Built-in"), "builtin"), (self.tr("Local model"), "local")])
        combo.setToolTip(self.tr("Changing it embeds every topic again in the background; search keeps working."))
        tips = {"builtin": self.tr("Matches words and their forms; instant, built into the app."),
                "local": self.tr("Matches meaning, also across Russian and English (multilingual-e5-small on "
                                 "this computer's CPU; building takes minutes to hours).")}
        if not local_model_available():  # offered, but says what to install instead of failing later
            # A QComboBox's own model is a QStandardItemModel (Qt documents it); the stubs say its base.
            items = cast(QStandardItemModel, combo.model())
            items.item(combo.findData("local")).setEnabled(False)
            tips["local"] = (self.tr("Not available on Windows yet.") if sys.platform == "win32"
                             else self.tr("Not installed: run {command}").format(command=INSTALL_HINT))
        for provider, tip in tips.items():
            combo.setItemData(combo.findData(provider), tip, Qt.ItemDataRole.ToolTipRole)
        form.addRow(self.tr("Model"), combo)
        return group

    def _slider(self, name: str) -> SliderSpin:
        """A slider and spin box over the range the engine's schema allows (the CLI's too)."""
        low, high, decimals = RANGES[name]
        widget = SliderSpin(low, high, decimals, unit_suffix(SETTINGS[name].unit))
        widget.valueChanged.connect(lambda value: self._update({name: value}))
        self._sliders[name] = widget
        return widget

    def _date(self, name: str) -> QDateEdit:
        """A day, or "any" (the minimum date) for no bound."""
        edit = _DayEdit()
        edit.setDisplayFormat("yyyy-MM-dd")
        edit.setMinimumDate(NO_DATE)
        edit.setSpecialValueText(self.tr("any"))
        edit.dateChanged.connect(
            lambda day: self._update({name: "" if day == NO_DATE else day.toString("yyyy-MM-dd")}))
        return edit

    def set_chats(self, chats: list[tuple[int, str]]) -> None:
        """The chats the Chat filter offers, as (id, title); the current choice stays if it still exists."""
        combo = self._combos["chat_id"]
        combo.blockSignals(True)
        try:
            combo.clear()
            combo.addItem(self.tr("All chats"), 0)
            for chat_id, title in chats:
                combo.addItem(title or self.tr("(unnamed)"), chat_id)
        finally:
            combo.blockSignals(False)
        if combo.findData(self._settings.chat_id) < 0:
            self._update({"chat_id": 0})
        else:
            self._show(self._settings)

    def _combo(self, name: str, items: list[tuple[str, object]]) -> QComboBox:
        combo = QComboBox()
        for label, data in items:
            combo.addItem(label, data)
        combo.currentIndexChanged.connect(lambda _index: self._update({name: combo.currentData()}))
        self._combos[name] = combo
        return combo

    # -- state --------------------------------------------------------------------------
    def _update(self, values: dict[str, Any]) -> None:  # field name → value of that field's type
        before = self._settings
        if "preset" in values and values["preset"] != before.preset and "model" not in values:
            values["model"] = self._model_for_new_preset(before, str(values["preset"]))
        if "preset" in values and "timeout" not in values and \
                before.timeout == SearchSettings.default_timeout(before.preset):
            values["timeout"] = SearchSettings.default_timeout(str(values["preset"]))  # unless the user chose one
        after = replace(before, **values)
        if after == before:
            return
        changed = [spec.name for spec in fields(SearchSettings)
                   if getattr(before, spec.name) != getattr(after, spec.name)]
        self._settings = after
        settings_model.save(self._store, {name: getattr(after, name) for name in changed})
        self._show(after)
        for name in changed:
            self.changed.emit(name)

    @staticmethod
    def _model_for_new_preset(before: SearchSettings, preset: str) -> str:
        """Follow the endpoint with the model unless the user typed a name of their own."""
        if before.model and before.model not in MODEL_CHOICES.get(before.preset, ()) and \
                before.model != PRESETS[before.preset].default_model:
            return before.model
        return PRESETS[preset].default_model or next(iter(MODEL_CHOICES.get(preset, ())), "")

    def _show(self, settings: SearchSettings) -> None:
        """Put `settings` into the widgets without echoing their change signals back."""
        widgets = [*self._sliders.values(), *self._combos.values(), self.hybrid, self.topics_llm,
                   self.rewrite_query, self.chain_cross_encoder, self.base_url,
                   self.model, self.date_from, self.date_to]
        for widget in widgets:
            widget.blockSignals(True)
        try:
            for name, widget in self._sliders.items():
                widget.setValue(getattr(settings, name))
            for name, combo in self._combos.items():
                combo.setCurrentIndex(max(0, combo.findData(getattr(settings, name))))
            self.hybrid.setChecked(settings.hybrid)
            self.topics_llm.setChecked(settings.topics_llm)
            self.rewrite_query.setChecked(settings.rewrite_query)
            self.chain_cross_encoder.setChecked(settings.chain_cross_encoder)
            self.cross_encoder.show_settings(settings)
            for edit, day in ((self.date_from, settings.date_from), (self.date_to, settings.date_to)):
                edit.setDate(QDate.fromString(day, "yyyy-MM-dd") if day else NO_DATE)
            problem = settings.date_problem()
            self.date_note.setText(engine_words(problem) if problem is not None else "")
            self.date_note.setVisible(problem is not None)
            self.base_url.setText(settings.base_url)
            self.base_url.setPlaceholderText(PRESETS[settings.preset].base_url or self.tr("http://host:port/v1"))
            choices = MODEL_CHOICES.get(settings.preset, ())
            if [self.model.itemText(i) for i in range(self.model.count())] != list(choices):
                self.model.clear()
                self.model.addItems(list(choices))
            if self.model.currentText() != settings.model:  # keep the cursor while the user types
                self.model.setEditText(settings.model)
                self._show_model_start()
        finally:
            for widget in widgets:
                widget.blockSignals(False)

    def showEvent(self, event) -> None:  # noqa: N802 (Qt's naming)
        if not self.model.hasFocus():  # a long model name shows its provider part, not its tail
            self._show_model_start()
        super().showEvent(event)

    def _show_model_start(self) -> None:
        """Show the provider part of a long model name (the combo box is editable: it has a line edit)."""
        line = self.model.lineEdit()
        if line is not None:
            line.setCursorPosition(0)
