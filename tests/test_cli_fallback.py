"""A Flash fallback in the CLI explains itself (issue 23): the reason's sentence, what was kept
instead and by which rule, in the text and in `--json`; a fallback keeps what `--threshold`,
`--gap` and `--top-k` keep (it kept five topics, some below the threshold asked for).

Real processes: `flashback search` against a local server that is not running (a port
nothing listens on), so the reason is the one a person meets when Ollama is not started."""

from __future__ import annotations

import json
import socket

from tests.cli_run import copy_data, flashback

QUERY = "hotel in Lisbon"


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _flash(data_dir, *extra: str):
    return flashback("search", QUERY, "--reranker", "flash", "--endpoint", "ollama", "--model", "llama3.2",
                     "--base-url", f"http://127.0.0.1:{_closed_port()}/v1", *extra, data_dir=data_dir)


def _kept(stdout: str) -> list[str]:
    return [line.split()[2] for line in stdout.splitlines() if line.startswith("✔ topic")]


def test_a_fallback_keeps_the_threshold_selection_and_says_why(built_demo, tmp_path):
    data_dir = copy_data(built_demo, tmp_path)
    threshold = flashback("search", QUERY, "--threshold", "0.55", data_dir=data_dir)
    found = _flash(data_dir, "--threshold", "0.55")
    assert found.returncode == 0, found.stderr
    assert _kept(found.stdout) == _kept(threshold.stdout) and 0 < len(_kept(found.stdout)) < 5, found.stdout
    assert "fallback: the call to the model's server failed (Could not reach Ollama" in found.stdout, found.stdout
    assert ("fallback: kept what the threshold filter keeps with your settings (threshold 0.55, gap 0.15, top 3): "
            f"{len(_kept(found.stdout))} topic") in found.stdout, found.stdout

    as_json = json.loads(_flash(data_dir, "--threshold", "0.55", "--json").stdout)
    assert as_json["fallback"] == "llm_error"
    assert as_json["fallback_reason"].startswith("Could not reach Ollama")
    assert "Check that the server is running" in as_json["fallback_reason"]
    assert as_json["fallback_kept"]["policy"] == "threshold"
    assert [s["id"] for s in as_json["selected"]] == [int(i) for i in _kept(found.stdout)]

    shown = json.loads(flashback("runs", "--show", str(as_json["run_id"]), "--json", data_dir=data_dir).stdout)
    assert shown["report"]["error"] == as_json["fallback_reason"]  # the reason is kept with the run


def test_where_the_threshold_keeps_nothing_the_vector_top_5_and_it_says_so(built_demo, tmp_path):
    data_dir = copy_data(built_demo, tmp_path)
    found = _flash(data_dir, "--threshold", "0.99")
    assert found.returncode == 0, found.stderr
    assert len(_kept(found.stdout)) == 5
    assert ("fallback: nothing passed the threshold 0.99, so kept stage 1's best 5 topics by vector score"
            in found.stdout), found.stdout
