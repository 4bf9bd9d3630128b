"""Issue 31, as a user meets it: right after an import that is not built yet, the MCP server's
`search_memory` with candidates or `reranker: "none"` answered a raw pydantic ValidationError (its
item kinds had no "message") and said both "not searchable yet" and "found by their words";
`export --reranker none` and `get_context` dropped the new messages as "not in the store any
more". The real CLI and the real MCP server over stdio (the official SDK's client)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.cli_run import flashback
from tests.island_export import QUERY, write_island_export
from tests.mcp_client import session_run, structured


@pytest.fixture(scope="module")
def store(built_demo, tmp_path_factory) -> Path:
    folder = Path(shutil.copytree(built_demo, tmp_path_factory.mktemp("unbuilt") / "data"))
    export = write_island_export(folder.parent)
    assert flashback("import", str(export), data_dir=folder).returncode == 0  # imported, not built
    return folder


def test_mcp_search_and_context_carry_unbuilt_messages(store, tmp_path):
    async def work(session):
        return {
            "none": await session.call_tool("search_memory", {"query": QUERY, "reranker": "none",
                                                             "include_candidates": True}),
            "threshold": await session.call_tool("search_memory", {"query": QUERY, "include_candidates": True}),
            "context": await session.call_tool("get_context", {"query": QUERY, "budget_tokens": 2000}),
        }
    got = session_run(store, tmp_path / "err.log", work)
    for name in ("none", "threshold"):
        assert not got[name].is_error, got[name].content
        found = structured(got[name])
        assert any(c["kind"] == "message" for c in found["candidates"]), name
        assert any(s["kind"] == "message" and "quokka" in s["summary"] for s in found["selected"]), name
        said = " ".join(found["notes"])
        assert "not built into memory yet were searched by their words" in said
        assert "not searchable yet" not in said  # one true sentence, not two that contradict
    context = structured(got["context"])
    assert "quokka selfie on Rottnest" in context["markdown"]
    assert "not in the store any more" not in context["markdown"]


def test_export_with_no_reranker_keeps_unbuilt_messages(store):
    exported = flashback("export", QUERY, "--reranker", "none", data_dir=store)
    assert exported.returncode == 0, exported.stderr
    assert "quokka selfie on Rottnest" in exported.stdout
    assert "not in the store any more" not in exported.stdout
