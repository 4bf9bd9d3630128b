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
from app.cli_options import say
from engine.api import EngineError, msg


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
        sys.stderr.write(say(msg("cli.self_test.failed", problem=say(exc.message))) + "\n")
        return 1
    figures["seconds"] = round(time.perf_counter() - started, 2)
    if as_json:
        sys.stdout.write(json.dumps(figures, ensure_ascii=False) + "\n")
    else:
        found = "; ".join(say(msg("cli.self_test.found", language=p["language"], query=p["query"], topic=p["topic"],
                                  chat=p["chat"], score=p["score"])) for p in figures["searches"])
        sys.stdout.write(say(msg("cli.self_test.passed", messages=figures["messages"], topics=figures["topics"],
                                 found=found, seconds=figures["seconds"])) + "\n")
    return 0


def _check(data_dir: Path) -> dict:
    from engine.api import Flashback, SearchRequest, ThresholdReranker

    demo = resources.demo_export()
    if demo is None:
        raise SelfTestFailed(msg("cli.self_test.no_demo"))
    for language in ("ru",):
        if resources.translation(language) is None:
            raise SelfTestFailed(msg("cli.self_test.no_translation", language=language))
    service = Flashback(data_dir)
    service.imports.import_path(demo)
    stats = service.store.stats()
    if stats.messages != resources.DEMO_MESSAGES:
        raise SelfTestFailed(msg("cli.self_test.demo_count", expected=resources.DEMO_MESSAGES, found=stats.messages))
    report = service.memory.build()
    topics = service.store.stats().topics
    vectors = sum(report.vectors.values())
    if not topics or not vectors:
        raise SelfTestFailed(msg("cli.self_test.build", topics=topics, vectors=vectors))
    searches = []
    for probe in PROBES:
        outcome = service.search.search_sync(SearchRequest(probe.query, reranker=ThresholdReranker(),
                                                           client="self-test"))
        candidates = [c for c in outcome.stage1.candidates if c.kind == "topic"]
        if not candidates:
            raise SelfTestFailed(msg("cli.self_test.nothing_found", language=probe.language, query=probe.query))
        best = candidates[0]
        if best.chat != probe.chat:
            raise SelfTestFailed(msg("cli.self_test.wrong_chat", language=probe.language, query=probe.query,
                                     found=best.chat, expected=probe.chat))
        searches.append({"language": probe.language, "query": probe.query, "topic": best.id, "chat": best.chat,
                         "score": round(best.score, 3), "kept": len(outcome.result.selected)})
    return {"messages": stats.messages, "topics": topics, "vectors": vectors, "searches": searches}
