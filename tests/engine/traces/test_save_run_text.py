"""save_run stores whatever text a caller hands it, even text SQLite cannot encode."""

from __future__ import annotations

from engine.rerank.base import RerankResult
from engine.traces import get_run, save_run


def test_lone_surrogates_are_stored_as_replacement_characters(connection):
    # `flashback search "$(printf 'caf\xd0')"`: argv decoded with surrogateescape
    query = "caf\udcd0"
    result = RerankResult("threshold", [], {"retrieved": 0, "kept": 0, "query": query})
    run_id = save_run(connection, query=query, reranker="threshold", settings={"q": query}, candidates=[],
                      result=result, timings_ms={"total": 1.0})
    run = get_run(connection, run_id)
    assert run["query"] == "caf\ufffd" and run["settings"] == {"q": "caf\ufffd"}
    assert run["report"]["query"] == "caf\ufffd"
