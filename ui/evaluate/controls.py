"""The Evaluate view's buttons and text boxes, and the words they show (kept apart from the
panel's flow so each file reads in one sitting)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
)

from engine.api import DEFAULT_BUDGET, OBJECTIVES

if TYPE_CHECKING:  # the panel builds these controls: a run-time import would be a cycle
    from ui.evaluate.panel import EvaluatePanel


class EvaluateControls(QObject):
    def __init__(self, panel: EvaluatePanel) -> None:
        super().__init__(panel)
        self._panel = panel
        self.refresh_button = QPushButton(self.tr("Refresh"))
        self.refresh_button.setToolTip(self.tr("Search every labelled query again with the current candidates "
                                               "settings and re-read the labels"))
        self.import_button = QPushButton(self.tr("Import labels…"))
        self.export_button = QPushButton(self.tr("Export labels…"))
        self.import_button.clicked.connect(self._choose_import)
        self.export_button.clicked.connect(self._choose_export)
        self.help_button = QPushButton(self.tr("What do the figures mean?"))
        self.toolbar = QHBoxLayout()
        for widget in (self.refresh_button, self.import_button, self.export_button):
            self.toolbar.addWidget(widget)
        self.toolbar.addStretch(1)
        self.toolbar.addWidget(self.help_button)

        self.axis = QComboBox()
        for label, key in ((self.tr("Threshold"), "threshold"), (self.tr("Gap"), "gap"), (self.tr("Top-K"), "top_k")):
            self.axis.addItem(label, key)
        self.chart_row = QHBoxLayout()
        self.chart_row.addWidget(QLabel(self.tr("<b>Sweep</b> over")))
        self.chart_row.addWidget(self.axis)
        self.chart_row.addStretch(1)

        self.objective = QComboBox()
        for label, key in zip((self.tr("kept F1"), self.tr("recall within {0:,} characters").format(DEFAULT_BUDGET)),
                              OBJECTIVES, strict=True):
            self.objective.addItem(label, key)
        self.tune_button = QPushButton(self.tr("Auto-tune"))
        self.apply_button = QPushButton(self.tr("Apply"))
        self.apply_button.setToolTip(self.tr("Move the sliders to the tuned settings"))
        self.apply_button.setEnabled(False)
        self.tune_text = self._text()
        self.tune_box = self._box((QLabel(self.tr("Tune for")), self.objective, self.tune_button, self.apply_button),
                                  self.tune_text)

        # Beside the threshold filter (issue 25): the cross-encoder, Flash, or both, on the same candidates.
        self.compare_label = QLabel(self.tr("<b>Compare</b> the threshold with"))
        self.compare_cross_encoder = QCheckBox(self.tr("Cross-encoder"))
        self.compare_cross_encoder.setToolTip(self.tr("The rerank server set in Settings → Cross-encoder"))
        self.compare_flash = QCheckBox(self.tr("Flash"))
        self.compare_flash.setChecked(True)
        self.compare_flash.setToolTip(self.tr("The LLM set in Settings → Flash"))
        self.estimate_button = QPushButton(self.tr("Estimate cost"))
        self.compare_button = QPushButton(self.tr("Compare"))
        self.compare_button.setEnabled(False)  # the estimate comes first
        for box in (self.compare_cross_encoder, self.compare_flash):  # another choice, another estimate
            box.toggled.connect(self._choice_changed)
        self.cancel_button = QPushButton(self.tr("Cancel"))
        self.progress = QProgressBar(textVisible=False)
        self.progress.setMaximumHeight(14)
        self.compare_text = self._text()
        self.compare_box = self._box((self.compare_label, self.compare_cross_encoder, self.compare_flash),
                                     self.compare_text,
                                     (self.estimate_button, self.compare_button, self.cancel_button, self.progress))
        self.set_comparing(False)

    @staticmethod
    def _text() -> QLabel:
        label = QLabel(wordWrap=True)
        label.setMinimumWidth(200)
        # Three lines kept free: beside an expanding chart in a splitter, a wrapped label's
        # height-for-width is not asked for, and the text would be cut to one line.
        label.setMinimumHeight(3 * label.fontMetrics().lineSpacing() + 4)
        return label

    @staticmethod
    def _box(row_widgets, text: QLabel, *more_rows) -> QFrame:
        box = QFrame(frameShape=QFrame.Shape.StyledPanel)
        layout = QVBoxLayout(box)
        layout.setContentsMargins(6, 4, 6, 4)
        for widgets in (row_widgets, *more_rows):
            row = QHBoxLayout()
            for widget in widgets:
                row.addWidget(widget)
            row.addStretch(1)
            layout.addLayout(row)
        layout.addWidget(text)
        return box

    def compared(self) -> list[str]:
        """The rerankers chosen beside the threshold, in the table's order."""
        return [name for name, box in (("cross-encoder", self.compare_cross_encoder), ("flash", self.compare_flash))
                if box.isChecked()]

    def set_comparing(self, running: bool) -> None:
        self.cancel_button.setVisible(running)
        self.progress.setVisible(running)
        self.estimate_button.setEnabled(not running and bool(self.compared()))
        self.compare_button.setEnabled(not running and bool(self.compare_text.text()))
        for box in (self.compare_cross_encoder, self.compare_flash):
            box.setEnabled(not running)

    def _choice_changed(self) -> None:
        self.compare_text.clear()  # the estimate was for the other choice
        self.set_comparing(False)

    # -- words --------------------------------------------------------------------------
    def summary_text(self, means: dict, current, keep_all: bool, compared: dict) -> str:
        if not means["queries"] and not means["unscored"]:
            return self.tr("No labelled queries yet. In the search view, mark results relevant (✓) or not (✗): "
                           "click the ✓ column, press R or N, or use the buttons on the cards.")
        setting = self.tr("every candidate kept (vector only)") if keep_all else self.tr(
            "threshold {0:.2f}, gap {1:.2f}, top-K {2}").format(current.threshold, current.gap, current.top_k)
        text = self.tr("<b>{0} queries scored</b> ({1} without a relevant topic) with {2}: stage-1 recall@10 "
                       "<b>{3:.2f}</b> · kept precision <b>{4:.2f}</b> · recall <b>{5:.2f}</b> · F1 <b>{6:.2f}</b> · "
                       "evidence@8000 <b>{7:.2f}</b> · {8:.1f} topics kept").format(
            means["queries"], means["unscored"], setting, means["stage1_recall"], means["kept_precision"],
            means["kept_recall"], means["kept_f1"], means["evidence"], means["kept_topics"])
        lines = {"cross-encoder": self.tr("Cross-encoder on the same candidates: precision <b>{0:.2f}</b> · recall "
                                          "<b>{1:.2f}</b> · F1 <b>{2:.2f}</b> over {3} queries · {4} fell back"),
                 "flash": self.tr("Flash on the same candidates: precision <b>{0:.2f}</b> · recall <b>{1:.2f}</b> · "
                                  "F1 <b>{2:.2f}</b> over {3} queries · {4} fell back")}
        for name, figures in compared.items():
            if name in lines and figures.get("queries"):
                text += "<br>" + lines[name].format(figures["kept_precision"], figures["kept_recall"],
                                                    figures["kept_f1"], figures["queries"], figures.get("fallbacks", 0))
        return text

    def show_tuned(self, result) -> None:
        s, cv, before = result.tuned.settings, result.cross_validated, result.before
        key = "kept_f1" if result.objective == "f1" else "recall@budget"
        text = self.tr("Best: threshold {0:.2f}, gap {1:.2f}, top-K {2}. {3}: now {4:.3f}; tuned {5:.3f} on these "
                       "queries, <b>{6:.3f} expected on new ones</b> ({7}-fold cross-validated).").format(
            s.threshold, s.gap, s.top_k, self.objective.currentText(), before[key], result.after[key], cv[key],
            result.folds)
        if "standard_error" in result.noise and abs(result.noise["cross_validated_minus_before"]) <= \
                2 * result.noise["standard_error"]:
            text += " " + self.tr("The gain is within the noise of so few queries: label more before trusting it.")
        self.tune_text.setText(text)
        self.apply_button.setEnabled(True)

    def show_estimate(self, costs: dict) -> None:
        """What each chosen reranker would send, before anything is sent ({name: CostEstimate})."""
        lines = []
        cost = costs.get("cross-encoder")
        if cost is not None:
            asked = cost.queries - cost.skipped
            price = self.tr("free on a server on this computer") if cost.usd == 0 else \
                self.tr("≈ ${0:.4f}").format(cost.usd) if cost.usd is not None else \
                self.tr("priced by the API per token or search (see its price list)")
            lines.append(self.tr("The cross-encoder would be asked for {0} of {1} queries (the others are clear in "
                                 "stage 1): about {2:,} tokens in {3} requests; {4}.").format(
                asked, cost.queries, cost.prompt_tokens, cost.requests, price))
        cost = costs.get("flash")
        if cost is not None:
            tokens = self.tr("about {0:,} prompt + {1:,} reply tokens for {2} queries").format(
                cost.prompt_tokens, cost.completion_tokens, cost.queries)
            price = self.tr("≈ ${0:.2f} at the provider's price").format(cost.usd) if cost.usd is not None else \
                self.tr("the provider gives no price (a local server costs nothing)")
            lines.append(self.tr("Flash would send {0}; {1}.").format(tokens, price))
        lines.append(self.tr("One call per query and reranker, each kept in the run history."))
        self.compare_text.setText("<br>".join(lines))
        self.compare_button.setEnabled(True)

    # -- files --------------------------------------------------------------------------
    def _choose_import(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self._panel, self.tr("Import labels (QRELS JSON)"), "",
                                              self.tr("QRELS JSON (*.json);;All files (*)"))
        if path:
            self._panel.import_labels(Path(path))

    def _choose_export(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self._panel, self.tr("Export labels (QRELS JSON)"), "labels.json",
                                              self.tr("QRELS JSON (*.json)"))
        if path:
            self._panel.export_labels(Path(path))
