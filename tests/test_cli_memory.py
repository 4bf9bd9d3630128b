"""`flashback build`, `search` and `eval` as a user (or a script) runs them."""

from __future__ import annotations

import json
from pathlib import Path

import resources
from tests.test_cli import run

DEMO = resources.demo_export()
METRIC_KEYS = {"recall@1_any", "recall@5_any", "recall@10_any", "recall@5_all", "mrr", "ndcg@10", "evidence@8000",
               "evidence@32000", "topic_chars_mean", "topic_chars_p90", "latency_ms_p50", "latency_ms_p95", "queries",
               "kept_precision", "kept_recall", "kept_f1"}


def test_build_search_eval_json(tmp_path: Path):
    data = tmp_path / "store"
    assert run("import", str(DEMO), data_dir=data).returncode == 0
    built = run("build", "--json", data_dir=data)
    assert built.returncode == 0, built.stderr
    report = json.loads(built.stdout)
    assert report["topics_created"] > 0 and report["vectors"]["topic"] > 0

    found = run("search", "hotel in Lisbon", "--json", data_dir=data)
    assert found.returncode == 0, found.stderr
    result = json.loads(found.stdout)
    assert {"query", "reranker", "candidates", "selected", "report", "fallback", "timings_ms"} <= result.keys()
    first = result["candidates"][0]
    assert {"kind", "id", "rank", "score", "date", "chat", "messages", "chars", "summary"} <= first.keys()
    assert result["reranker"] == "threshold" and result["report"]["retrieved"] >= result["report"]["kept"]

    export = tmp_path / "demo.jsonl"
    export.write_text(json.dumps({"chat": "Trip", "id": "1", "author": "Ann", "date": "2025-01-01T10:00:00+00:00",
                                  "text": "We booked the Casa dos Remédios hotel in Alfama"}) + "\n", encoding="utf-8")
    assert run("import", str(export), data_dir=data).returncode == 0
    assert run("build", data_dir=data).returncode == 0
    qrels = tmp_path / "qrels.json"
    qrels.write_text(json.dumps({"queries": [{"id": "q1", "query": "Which hotel in Alfama did Ann book?",
                                              "relevant": [{"chat": "Trip", "message": "1"}], "category": "single"}]}))
    scored = run("eval", str(qrels), "--json", data_dir=data)
    assert scored.returncode == 0, scored.stderr
    metrics = json.loads(scored.stdout)
    assert set(metrics["metrics"]) == METRIC_KEYS and set(metrics["by_category"]) == {"single"}
    assert metrics["metrics"]["recall@10_any"] == 1.0


def test_eval_with_a_broken_qrels_file_says_what_is_wrong(tmp_path: Path, built_demo):
    bad = tmp_path / "qrels.json"
    bad.write_text("{\"nope\": 1}")
    result = run("eval", str(bad), data_dir=built_demo)
    assert result.returncode == 1 and "QRELS" in result.stderr and "Traceback" not in result.stderr
