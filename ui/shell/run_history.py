"""Past searches: a list, one run in detail, the aggregate metrics, and "Re-run".

Re-running hands the recorded settings and query back to the search panel, which runs
them with whatever is set now, so the two can be compared (the panel decides how). An Ask
run (issue 27, reranker "ask") shows its answer, plan, sources and steps, and is asked again
(`reask_requested`): the new answer says what changed against this one. A run an assistant
asked for over MCP (issue 24) names it: the "Asked by" column and "via <assistant>" in the detail.
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QTextBrowser,
    QTreeWidget,
    QVBoxLayout,
    QWidget,
)

from engine.api import (
    Changes,
    Flashback,
    RunMetrics,
    RunRecord,
    catalogue,
    kind_message,
    msg,
    reranker_message,
    runs_summary,
)
from ui.i18n import engine_words
from ui.search.ask_words import ASK_RERANKER, duration, step_fallback, step_name
from ui.search.reasons import fallback_explained, fallback_name, recorded_reasons
from ui.shell.formatting import minute, row
from ui.tasks import LatestWins, run_in_background

ID_ROLE = Qt.ItemDataRole.UserRole + 1
QUERY_COLUMN = 1
CLIENT_COLUMN = 5  # who asked, shown only when an assistant did
QUERY_WIDTH_CHARS = (16, 48)  # the Query column: at least this many average characters, at most (then clipped)
RUN_LIMIT = 200
_CANDIDATES_SHOWN = 15


class RunHistoryPanel(QWidget):
    rerun_requested = Signal(object, str)  # the run's settings (dict), its query
    reask_requested = Signal(object)  # an Ask run (RunRecord): asked again and compared
    failed = Signal(object)

    def __init__(self, service: Flashback, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._service = service
        self._detail = LatestWins(self)  # the run picked last is the one shown
        self._run: RunRecord | None = None
        self.metrics = QLabel()
        self.metrics.setWordWrap(True)
        self.runs = QTreeWidget()
        self.runs.setHeaderLabels([self.tr("When"), self.tr("Query"), self.tr("Reranker"), self.tr("Kept"),
                                   self.tr("ms"), self.tr("Asked by")])
        self.runs.setRootIsDecorated(False)
        self.runs.setUniformRowHeights(True)
        self.runs.setAlternatingRowColors(True)
        header = self.runs.header()
        # The query is what a person reads a run by: its column is as wide as the queries (within
        # QUERY_WIDTH_CHARS), never squeezed by the others (a Stretch column in a narrow dock was
        # one character wide, issue 31); the last visible column takes what room is left.
        header.setStretchLastSection(True)
        for column in range(CLIENT_COLUMN + 1):
            header.setSectionResizeMode(column, header.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(QUERY_COLUMN, header.ResizeMode.Interactive)
        self.runs.setColumnHidden(CLIENT_COLUMN, True)
        self._fit_query_column([])
        self.runs.currentItemChanged.connect(self._on_current_changed)
        self.detail = QTextBrowser()
        self.detail.setPlaceholderText(self.tr("Choose a run to see its settings, candidates, selections and trace."))
        self.rerun_button = QPushButton(self.tr("Re-run with current settings"))
        self.rerun_button.setToolTip(self.tr("Search this query again with the settings now in the search panel."))
        self.rerun_button.setEnabled(False)
        self.rerun_button.clicked.connect(self._on_rerun_clicked)
        self.refresh_button = QPushButton(self.tr("Refresh"))
        self.refresh_button.clicked.connect(self.refresh)

        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self.runs)
        splitter.addWidget(self.detail)
        splitter.setSizes([200, 300])
        buttons = QHBoxLayout()
        buttons.addWidget(self.refresh_button)
        buttons.addStretch()
        buttons.addWidget(self.rerun_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(4, 4, 4, 4)
        layout.addWidget(self.metrics)
        layout.addWidget(splitter, stretch=1)
        layout.addLayout(buttons)
        self._show_metrics(RunMetrics())

    # -- loading --------------------------------------------------------------------------
    def refresh(self, *_args) -> None:
        runs = self._service.runs
        run_in_background(self, lambda: runs.list(RUN_LIMIT), self._show_runs, self.failed.emit)
        run_in_background(self, runs.metrics, self._show_metrics, self.failed.emit)

    def apply_changes(self, changes: Changes) -> None:
        """A run was recorded (here or in another process): the list and the figures follow."""
        if changes.runs:
            self.refresh()

    def _on_current_changed(self, current, _previous) -> None:
        self._detail.supersede()
        self.rerun_button.setEnabled(False)
        if current is None:
            self._run = None
            self.detail.clear()
            return
        run_id, runs = current.data(0, ID_ROLE), self._service.runs
        self._detail.call(lambda: runs.get(run_id), self._show_run, self.failed.emit)

    # -- showing --------------------------------------------------------------------------
    def _show_runs(self, runs: list) -> None:
        current = self.runs.currentItem()
        selected = current.data(0, ID_ROLE) if current else None
        self.runs.clear()
        for run in runs:
            item = row([minute(run.created_at), run.query, engine_words(reranker_message(run.reranker)),
                        f"{run.selected} / {run.candidates}", round(run.duration_ms), run.client])
            item.setData(0, ID_ROLE, run.id)
            item.setToolTip(1, run.query)
            self.runs.addTopLevelItem(item)
            if run.id == selected:
                self.runs.setCurrentItem(item)
        self.runs.setColumnHidden(CLIENT_COLUMN, not any(run.client for run in runs))
        self._fit_query_column([run.query for run in runs])

    def _fit_query_column(self, queries: list[str]) -> None:
        metrics = self.runs.fontMetrics()
        low, high = (chars * metrics.averageCharWidth() for chars in QUERY_WIDTH_CHARS)
        widest = max((metrics.horizontalAdvance(query) for query in queries), default=0)
        self.runs.setColumnWidth(QUERY_COLUMN, max(low, min(high, widest + 2 * metrics.averageCharWidth())))

    def _show_metrics(self, metrics: RunMetrics) -> None:
        runs = metrics.runs
        if not runs:
            self.metrics.setText(self.tr("No searches recorded yet. Each search you run is kept here."))
            return
        # One summary for this panel and `flashback runs`, from the engine's catalogue (issue 31).
        self.metrics.setText(" · ".join(engine_words(part) for part in runs_summary(metrics.as_json())))

    def _show_run(self, run: RunRecord | None) -> None:
        self._run = run
        self.rerun_button.setEnabled(run is not None)
        asked = run is not None and run.reranker == ASK_RERANKER
        self.rerun_button.setToolTip(self.tr("Ask this question again with the settings now in the search panel, "
                                             "and compare the answers.") if asked else
                                     self.tr("Search this query again with the settings now in the search panel."))
        self.detail.setHtml(self.run_html(run) if run else self.tr("This run is no longer stored."))

    def _on_rerun_clicked(self) -> None:
        if self._run is not None and self._run.reranker == ASK_RERANKER:
            self.reask_requested.emit(self._run)
        elif self._run is not None:
            self.rerun_requested.emit(self._run.settings, self._run.query)

    def run_html(self, run: RunRecord) -> str:
        esc = html.escape
        kept = {(s.get("kind"), s.get("id")) for s in run.selected}
        duration = self.tr("{0} ms").format(f"{run.duration_ms or 0:,.0f}")
        out = [f"<h3>{esc(run.query)}</h3>",
               f"<p>{esc(minute(run.created_at))} · {esc(engine_words(reranker_message(run.reranker)))}"
               f"{' · ' + esc(run.model) if run.model else ''} · {esc(duration)}"]
        if run.client:  # an assistant asked over MCP
            out.append(" · " + esc(self.tr("via {client}").format(client=run.client)))
        if run.fallback:
            out.append(" · <b>" + esc(self.tr("fallback: {reason}").format(reason=fallback_name(run.fallback)))
                       + "</b>")
            why = fallback_explained(run.report)  # recorded with the run (issue 23)
            if why:
                out.append(" — " + esc(why))
        tokens = (run.prompt_tokens or 0) + (run.completion_tokens or 0)
        if tokens:
            out.append(" · " + esc(self.tr("{tokens} tokens").format(tokens=f"{tokens:,}")))
        if run.cost is not None:
            out.append(f" · ${run.cost:.4f}")
        out.append("</p>")
        if run.reranker == ASK_RERANKER:
            out.append(self._ask_html(run.report or {}))
        out.append("<h4>" + esc(self.tr("Selected")) + "</h4><ol>")
        for selection, reason in zip(run.selected, recorded_reasons(run.selected), strict=True):
            out.append(f"<li>{esc(_kind(selection.get('kind')))} {selection.get('id')}: {esc(reason)}</li>")
        out.append("</ol><h4>" + esc(self.tr("Candidates")) + "</h4><table cellspacing='0' cellpadding='2'>")
        candidates = run.candidates
        for candidate in candidates[:_CANDIDATES_SHOWN]:
            mark = "✔" if (candidate.get("kind"), candidate.get("id")) in kept else ""
            out.append(f"<tr><td>{candidate.get('rank')}</td><td>{mark}</td><td>{esc(_kind(candidate.get('kind')))} "
                       f"{candidate.get('id')}</td><td>{candidate.get('score', 0):.3f}</td>"
                       f"<td>{esc(_clip(candidate.get('summary') or '', 120))}</td></tr>")
        out.append("</table>")
        if len(candidates) > _CANDIDATES_SHOWN:
            out.append("<p>" + esc(self.tr("…and {more} more").format(more=len(candidates) - _CANDIDATES_SHOWN))
                       + "</p>")
        tool_calls = run.tool_calls
        if tool_calls:
            out.append("<h4>" + esc(self.tr("Tool calls")) + "</h4><ol>")
            out.extend(f"<li>{esc(', '.join(str(i) for i in call))}</li>" for call in tool_calls)
            out.append("</ol>")
        out.append("<h4>" + esc(self.tr("Settings")) + "</h4>" + _settings_html(run.settings))
        return "".join(out)


    def _ask_html(self, report: dict) -> str:
        """An Ask run's answer (claims marked ✓ supported, ⚠ not), plan, sources and steps."""
        esc = html.escape
        out = ["<h4>" + esc(self.tr("Answer")) + "</h4>"]
        answer = report.get("answer") or {}
        claims = answer.get("claims") or []
        if claims:
            marks = {True: "✓ ", False: "⚠ "}
            out.append("<ul>" + "".join(
                f"<li>{marks.get(c.get('supported'), '')}{esc(c.get('text') or '')} "
                f"{''.join(f'[{n}]' for n in c.get('citations') or [])}</li>" for c in claims) + "</ul>")
        elif answer:
            out.append(f"<p>{esc(answer.get('text') or '')}</p>")
        else:
            out.append("<p>" + esc(self.tr("No answer: the sources found are below.")) + "</p>")
        plan = report.get("plan") or {}
        dates = (plan.get("date_range") or {}).get("label")
        out.append("<h4>" + esc(self.tr("Plan")) + "</h4><p>" + esc(" | ".join(plan.get("subqueries") or [])))
        for label, value in ((self.tr("dates"), dates), (self.tr("chats"), ", ".join(plan.get("chats") or [])),
                             (self.tr("people"), ", ".join(plan.get("people") or []))):
            if value:
                out.append(f"<br>{esc(label)}: {esc(value)}")
        out.append("</p><h4>" + esc(self.tr("Sources")) + "</h4><ol>")
        for source in report.get("sources") or []:
            out.append(f"<li>{esc(source.get('chat') or '')} · {esc(', '.join(source.get('authors') or []))} · "
                       f"{esc(minute(source.get('first_at')))}</li>")
        out.append("</ol><h4>" + esc(self.tr("Steps")) + "</h4><p>")
        steps = [f"{esc(step_name(s.get('name', '')))} {esc(duration(s.get('ms')))}"
                 + (f" ({esc(step_fallback(s['fallback']))})" if step_fallback(s.get("fallback")) else "")
                 for s in report.get("steps") or []]
        out.append(" · ".join(steps) + "</p>")
        return "".join(out)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


def _kind(kind: str | None) -> str:
    """A candidate's kind (topic, person, artifact, unbuilt message) in the window's language."""
    return engine_words(kind_message(kind or ""))


def _label(key: str, prefix: str = "runs.setting.") -> str:
    """A recorded setting's name in words: the catalogue's label, else the name with its
    underscores as spaces (a setting added later still reads as words, not `max_tokens_read`)."""
    code = prefix + key
    return engine_words(msg(code)) if code in catalogue("en") else key.replace("_", " ")


def _value(key: str, value) -> str:
    if isinstance(value, bool):
        return engine_words(msg("runs.settings.on" if value else "runs.settings.off"))
    if value is None or value == [] or value == "":
        return engine_words(msg("runs.settings.none"))
    if key == "name":
        return engine_words(reranker_message(str(value)))
    if f"runs.value.{key}.{value}" in catalogue("en"):  # a choice ("offline", "rrf") in words
        return engine_words(msg(f"runs.value.{key}.{value}"))
    if isinstance(value, list):
        return ", ".join(str(item) for item in value)
    return f"{value:g}" if isinstance(value, float) else str(value)


def _settings_html(settings: dict) -> str:
    """The run's settings as labelled lines, a group per paragraph line: "Search: candidates 50,
    hybrid (vectors + keywords) on, …", not `hybrid=True` (issue 31)."""
    lines = []
    for group, values in settings.items():
        if values is None or group == "client":
            continue  # an Ask run without a model: "model: None" says nothing; the client is "via …" above
        title = html.escape(_label(str(group), "runs.setting.group."))
        if isinstance(values, dict):
            pairs = ", ".join(f"{_label(key)} {_value(key, value)}" for key, value in values.items()
                              if not isinstance(value, dict))
            lines.append(f"<b>{title}</b>: {html.escape(pairs)}")
            lines.extend(f"<b>{html.escape(_label(key, 'runs.setting.group.'))}</b>: "
                         + html.escape(", ".join(f"{_label(k)} {_value(k, v)}" for k, v in value.items()))
                         for key, value in values.items() if isinstance(value, dict))
        else:  # a setting of its own (an Ask run's are not grouped)
            lines.append(f"<b>{html.escape(_label(str(group)))}</b>: {html.escape(_value(str(group), values))}")
    return "<p>" + "<br>".join(lines) + "</p>"
