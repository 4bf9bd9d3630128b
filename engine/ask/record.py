"""An Ask run in the run history: one `rerank_run` row with reranker "ask" (no schema change).

The row's columns keep their meaning: the question, the model, the fused candidates, the
reranker's selection, the flow's fallback, its total time, tokens and cost. `report` is the
outcome without its step details (what a list or a comparison reads), `trace` the whole
outcome with every step's prompts and replies. Everything goes through the one scrubber
(`save_run`), the API key included.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from engine.ask.types import AskDeps, AskOutcome, AskSettings
from engine.errors import EngineError
from engine.messages import msg
from engine.rerank.base import RerankResult
from engine.scrub import scrub
from engine.traces import save_run

RERANKER_NAME = "ask"


def run_result(outcome: AskOutcome, settings: AskSettings, secrets: list[str]) -> RerankResult:
    whole = scrub(outcome.as_dict(), secrets)
    whole.pop("candidates")  # the row's own candidates column holds them
    report = {key: value for key, value in whole.items() if key != "steps"}
    report["steps"] = [{k: v for k, v in step.items() if k != "detail"} for step in whole["steps"]]
    whole["settings"] = {"model": outcome.model, **scrub(settings.as_dict(), secrets)}
    selected = list(outcome.selection.selected) if outcome.selection is not None else []
    return RerankResult(RERANKER_NAME, selected, report, fallback=outcome.fallback, tool_calls=[],
                        usage=dict(outcome.usage), trace=whole)


def save_ask_run(deps: AskDeps, outcome: AskOutcome, settings: AskSettings) -> int:
    """Blocking: store the run and return its id (raises EngineError or sqlite3.Error)."""
    secrets = deps.secrets
    result = run_result(outcome, settings, secrets)
    stored_settings: dict[str, Any] = {"ask": settings.as_dict(), "model": outcome.model,
                                       "reranker": {"name": deps.reranker.name}}
    if deps.client_name:  # RunRecord.client: Run history names the assistant that asked
        stored_settings["client"] = deps.client_name
    connection = deps.connect()
    try:
        return save_run(connection, query=outcome.question, reranker=RERANKER_NAME, settings=stored_settings,
                        candidates=[c.as_dict() for c in outcome.candidates], result=result,
                        timings_ms=dict(outcome.timings_ms), secrets=secrets)
    finally:
        connection.close()


def try_save(deps: AskDeps, outcome: AskOutcome, settings: AskSettings) -> None:
    """Record the run; a run that cannot be recorded still stands, with a note saying why."""
    try:
        outcome.run_id = save_ask_run(deps, outcome, settings)
    except (EngineError, sqlite3.Error) as exc:
        reason = exc.message if isinstance(exc, EngineError) else str(exc)
        outcome.notes.append(msg("search.not_recorded", reason=reason))
