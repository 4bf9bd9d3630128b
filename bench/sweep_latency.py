"""Sweep redraw latency in the Evaluate view: `python -m bench.sweep_latency [--queries 200 760]
[--screenshots docs/screenshots]`.

For each size, a LoCoMo dev-slice store (bench/locomo_tune.py) gets the first N judged
questions as its labels; a search view and an Evaluate view are opened offscreen and
refreshed (stage 1 once per query); then the threshold slider is moved through 41 values,
and each step is timed from `set_value` to the view fully repainted (`repaint()` paints
synchronously): the sweep over the frozen candidates, the per-query table, the summary and
the chart. Target (issue 14): ≤ 50 ms for 200 labelled queries. With --screenshots, the
view is saved there (after an auto-tune, so its box shows) for the largest size.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

from bench.locomo import DEFAULT_LOCOMO
from bench.locomo_convert import convert

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def _store(work: Path, count: int):
    from engine.api import Flashback
    from engine.evaluation.labels import LabelStore

    export, qrels = work / "locomo.jsonl", work / "qrels.json"
    convert(DEFAULT_LOCOMO, export, qrels)
    document = json.loads(qrels.read_text(encoding="utf-8"))
    document["queries"] = document["queries"][:count]
    subset = work / f"qrels-{count}.json"
    subset.write_text(json.dumps(document), encoding="utf-8")
    service = Flashback(work / f"store-{count}")
    service.imports.import_path(export)
    service.memory.build()
    LabelStore(service.data_dir).import_qrels(subset)
    return service


def _wait(app, predicate, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError("the Evaluate view did not finish in time")
        app.processEvents()
        time.sleep(0.005)


def measure(app, count: int, screenshots: Path | None) -> dict:
    from ui.evaluate import EvaluatePanel
    from ui.search import SearchPanel

    work = Path(tempfile.mkdtemp(prefix="flashback-sweep-"))
    service = _store(work, count)
    search = SearchPanel(service, None)
    evaluate = EvaluatePanel(service, search)
    evaluate.resize(1200, 680)
    evaluate.show()
    started = time.perf_counter()
    evaluate.refresh()
    _wait(app, lambda: evaluate._task is None and len(evaluate.frozen()) == count)
    freeze_s = time.perf_counter() - started
    settings = search.settings_panel
    steps = []
    for value in [round(0.10 + 0.02 * i, 2) for i in range(41)]:
        mark = time.perf_counter()
        settings.set_value("threshold", value)
        evaluate.repaint()
        steps.append((time.perf_counter() - mark) * 1000)
    settings.set_value("threshold", 0.5)
    if screenshots is not None:
        evaluate.auto_tune()
        _wait(app, lambda: evaluate.controls.apply_button.isEnabled())
        evaluate.repaint()
        screenshots.mkdir(parents=True, exist_ok=True)
        evaluate.grab().save(str(screenshots / "evaluate.png"))
        evaluate.controls.axis.setCurrentIndex(2)
        evaluate.repaint()
        evaluate.chart.grab().save(str(screenshots / "evaluate_sweep_top_k.png"))
    evaluate.close()
    search.close()
    return {"queries": count, "freeze_s": round(freeze_s, 2), "step_ms_median": round(statistics.median(steps), 2),
            "step_ms_p95": round(sorted(steps)[int(0.95 * (len(steps) - 1))], 2), "step_ms_max": round(max(steps), 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, nargs="+", default=[200, 760])
    parser.add_argument("--screenshots", type=Path, default=None)
    args = parser.parse_args()
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([])
    results = []
    for position, count in enumerate(args.queries):
        last = position == len(args.queries) - 1
        result = measure(app, count, args.screenshots if last else None)
        results.append(result)
        print(f"{count} labelled queries: stage 1 frozen in {result['freeze_s']} s; slider step to repainted view "
              f"median {result['step_ms_median']} ms, p95 {result['step_ms_p95']} ms, max {result['step_ms_max']} ms")
    print(json.dumps(results))


if __name__ == "__main__":
    main()
