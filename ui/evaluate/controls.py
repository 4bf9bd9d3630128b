"""The Evaluate view's buttons and text boxes, and the words they show (kept apart from the
panel's flow so each file reads in one sitting)."""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from engine.api import DEFAULT_BUDGET, OBJECTIVES


class EvaluateControls(QObject):
    def __init__(self, panel: QWidget) -> None:
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

        self.estimate_button = QPushButton(self.tr("Estimate Flash cost"))
        self.run_flash_button = QPushButton(self.tr("Compare with Flash"))
        self.run_flash_button.setEnabled(False)  # the estimate comes first
        self.cancel_button = QPushButton(self.tr("Cancel"))
        self.progress = QProgressBar(maximumHeight=14, textVisible=False)
        self.flash_text = self._text()
        self.flash_box = self._box((self.estimate_button, self.run_flash_button, self.cancel_button, self.progress),
                                   self.flash_text)
        self.set_flash_running(False)

    @staticmethod
    def _text() -> QLabel:
        label = QLabel(wordWrap=True, minimumWidth=200)
        # Three lines kept free: beside an expanding chart in a splitter, a wrapped label's
        # height-for-width is not asked for, and the text would be cut to one line.
        label.setMinimumHeight(3 * label.fontMetrics().lineSpacing() + 4)
        return label

    @staticmethod
    def _box(row_widgets, text: QLabel) -> QFrame:
        box = QFrame(frameShape=QFrame.Shape.StyledPanel)
        layout = QVBoxLayout(box)
        layout.setContentsMargins(6, 4, 6, 4)
        row = QHBoxLayout()
        for widget in row_widgets:
            row.addWidget(widget)
        row.addStretch(1)
        layout.addLayout(row)
        layout.addWidget(text)
        return box

    def set_flash_running(self, running: bool) -> None:
        self.cancel_button.setVisible(running)
        self.progress.setVisible(running)
        self.estimate_button.setEnabled(not running)
        self.run_flash_button.setEnabled(not running and bool(self.flash_text.text()))

    # -- words --------------------------------------------------------------------------
    def summary_text(self, means: dict, current, keep_all: bool, flash: dict | None) -> str:
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
        if flash:
            text += "<br>" + self.tr("Flash on the same candidates: precision <b>{0:.2f}</b> · recall <b>{1:.2f}</b> · "
                                     "F1 <b>{2:.2f}</b> over {3} queries").format(
                flash["kept_precision"], flash["kept_recall"], flash["kept_f1"], flash["queries"])
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

    def show_estimate(self, cost) -> None:
        tokens = self.tr("about {0:,} prompt + {1:,} reply tokens for {2} queries").format(
            cost.prompt_tokens, cost.completion_tokens, cost.queries)
        price = self.tr("≈ ${0:.2f} at the provider's price").format(cost.usd) if cost.usd is not None else \
            self.tr("the provider gives no price (a local server costs nothing)")
        self.flash_text.setText(self.tr("Flash would send {0}; {1}. One call per query, each kept in the run "
                                        "history.").format(tokens, price))
        self.run_flash_button.setEnabled(True)

    # -- files --------------------------------------------------------------------------
    def _choose_import(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self._panel, self.tr("Import labels (QRELS JSON)"), "",
                                              self.tr("QRELS JSON (*.json);;All files (*)"))
        if path:
            self._panel.import_labels(path)

    def _choose_export(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self._panel, self.tr("Export labels (QRELS JSON)"), "labels.json",
                                              self.tr("QRELS JSON (*.json)"))
        if path:
            self._panel.export_labels(path)
