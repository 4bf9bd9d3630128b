"""`flashback --self-test`: the whole app on its bundled demo, without a window.

Imports the demo export into a fresh folder (or `--data-dir`), builds memory, searches once
in English and once in Russian, and checks that each search finds the chat the question is
about. It proves an installation (a wheel in a new venv, a PyInstaller bundle) carries
everything it reads at run time and that the compiled parts (hnswlib, SQLite FTS5) work.
One line on stdout says what was found; any failure is one line on stderr and exit 1.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import resources
from engine.api import EngineError


@dataclass(frozen=True)
class Probe:
    language: str
    query: str
    chat: str  # the demo chat the question is about: the top candidate must come from it


PROBES = (
    Probe("en", "hotel in Lisbon", "Dan Whitfield"),
    Probe("ru", "анализы крови у врача", "Мама"),
)


class SelfTestFailed(EngineError):
    """The installation does not work: what failed, in one sentence."""


def run_self_test(data_dir: Path | None = None, *, as_json: bool = False) -> int:
    started = time.perf_counter()
    try:
        if data_dir is None:
            with tempfile.TemporaryDirectory(prefix="flashback-self-test-") as folder:
                figures = _check(Path(folder))
        else:
            figures = _check(data_dir)
    except EngineError as exc:
        sys.stderr.write(f"flashback self-test FAILED: {exc}\n")
        return 1
    figures["seconds"] = round(time.perf_counter() - started, 2)
    if as_json:
        sys.stdout.write(json.dumps(figures, ensure_ascii=False) + "\n")
    else:
        found = "; ".join(f"{p['language']} {p['query']!r} → topic {p['topic']} in {p['chat']!r} "
                          f"(score {p['score']:.2f})" for p in figures["searches"])
        sys.stdout.write(f"flashback self-test passed: {figures['messages']} messages, {figures['topics']} topics; "
                         f"{found}; {figures['seconds']:.1f} s\n")
    return 0


def _check(data_dir: Path) -> dict:
    from engine.api import Flashback, SearchRequest, ThresholdReranker

    demo = resources.demo_export()
    if demo is None:
        raise SelfTestFailed("the bundled demo export is missing from this installation (package data not shipped)")
    for language in ("ru",):
        if resources.translation(language) is None:
            raise SelfTestFailed(f"the {language} translation is missing from this installation")
    service = Flashback(data_dir)
    service.imports.import_path(demo)
    stats = service.store.stats()
    if stats.messages != resources.DEMO_MESSAGES:
        raise SelfTestFailed(f"the demo should hold {resources.DEMO_MESSAGES} messages, the store has {stats.messages}")
    report = service.memory.build()
    topics = service.store.stats().topics
    vectors = sum(report.vectors.values())
    if not topics or not vectors:
        raise SelfTestFailed(f"the build made {topics} topics and {vectors} vectors")
    searches = []
    for probe in PROBES:
        outcome = service.search.search_sync(SearchRequest(probe.query, reranker=ThresholdReranker(),
                                                           client="self-test"))
        candidates = [c for c in outcome.stage1.candidates if c.kind == "topic"]
        if not candidates:
            raise SelfTestFailed(f"the {probe.language} search {probe.query!r} found nothing")
        best = candidates[0]
        if best.chat != probe.chat:
            raise SelfTestFailed(f"the {probe.language} search {probe.query!r} ranked a topic of {best.chat!r} "
                                 f"first, not one of {probe.chat!r}")
        searches.append({"language": probe.language, "query": probe.query, "topic": best.id, "chat": best.chat,
                         "score": round(best.score, 3), "kept": len(outcome.result.selected)})
    return {"messages": stats.messages, "topics": topics, "vectors": vectors, "searches": searches}
