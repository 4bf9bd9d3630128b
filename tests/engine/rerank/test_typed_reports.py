"""What each reranker reports, as the faces read it (issue 31): `SearchResult.report` is the typed
record of the reranker that ran, built from the dict the traces store, with the same figures.
Real store and stage 1; the chat model and the rerank server scripted on 127.0.0.1."""

from __future__ import annotations

import dataclasses
import json

from engine.api import (
    CrossEncoderReport,
    CrossEncoderSettings,
    EvaluationFigures,
    Flashback,
    FlashReport,
    KeepAllReport,
    LockHolder,
    MetricSet,
    RerankEndpoint,
    RetrievalSettings,
    RunMetrics,
    SearchRequest,
    Step,
    ThresholdReport,
    ThresholdSettings,
    make_reranker,
)
from engine.api.pipeline import _step_from_json
from engine.evaluation.metrics import summarise
from engine.llm.presets import Endpoint
from engine.rerank.flash import FlashSettings
from engine.traces.metrics import run_metrics
from tests.engine.rerank.conftest import CHAT, FAST, KEY
from tests.fake_openai import FakeResponse, LocalServerModel

QUERY = "hotel in Lisbon"


def search(app: Flashback, reranker, **request):
    return app.search.search_sync(SearchRequest(QUERY, RetrievalSettings(safety_threshold=0.0), reranker, **request))


def flash(app: Flashback, url: str):
    return app.search.flash_reranker(Endpoint(base_url=url, api_key=KEY, model="test/flash", preset="openrouter"),
                                     FlashSettings(model="test/flash", protocol="tools"),
                                     threshold=ThresholdSettings(0.3, 0.15, 3))


def cross_encoder(app: Flashback, url: str, **settings):
    return app.search.cross_encoder_reranker(RerankEndpoint("tei", url), CrossEncoderSettings(**settings),
                                             retry=FAST)


def test_the_threshold_and_keep_all_reports_carry_the_dicts_counts(data_dir):
    app = Flashback(data_dir)
    settings = ThresholdSettings(0.3, 0.2, 4)
    outcome = search(app, make_reranker("threshold", settings))
    raw, report = outcome.result.report, outcome.report

    assert isinstance(report, ThresholdReport) and report.settings == settings
    assert dataclasses.asdict(report.topics) == {key: raw[key] for key in dataclasses.asdict(report.topics)}
    assert {kind: dataclasses.asdict(counts) for kind, counts in report.by_kind.items()} == raw["by_kind"]
    assert report.topics.kept == len(outcome.result.selected_ids("topic")) > 0

    kept_all = search(app, make_reranker("none")).report
    assert isinstance(kept_all, KeepAllReport)
    assert kept_all.topics.retrieved == kept_all.topics.kept == sum(1 for c in outcome.stage1.candidates
                                                                    if c.kind == "topic")


def test_flash_chained_after_the_cross_encoder_reports_its_turns_usage_and_chain(server, rerank_server, data_dir):
    server.handle(CHAT, LocalServerModel(forces=frozenset({"required", "named"}), picks=3))
    rerank_server.serve("tei")
    app = Flashback(data_dir)
    chained = app.search.chained_reranker(cross_encoder(app, rerank_server.root, chain_keep=8, skip_small=False,
                                                        skip_flat=False), flash(app, server.base_url))
    outcome = search(app, chained)
    raw, report = outcome.result.report, outcome.report

    assert isinstance(report, FlashReport) and report.fallback is None and report.error is None
    assert report.turns == raw["turns"] > 0 and report.protocol == "tools"
    assert report.tool_calls == tuple(tuple(ids) for ids in outcome.result.tool_calls)
    assert report.usage is not None and report.usage.counts_turns
    assert report.usage.prompt_tokens == raw["usage"]["prompt_tokens"]
    assert report.timings_ms["total"] == raw["timings_ms"]["total"]
    chain = report.chain
    assert chain is not None and chain.after == 8 and chain.before == raw["chain"]["before"]
    assert [s.id for s in chain.scores] == [entry["id"] for entry in raw["chain"]["scores"]]
    assert list(chain.kept_ids) == raw["chain"]["kept_ids"] and str(chain.note) == raw["chain"]["note"]


def test_a_flash_fallback_says_why_and_what_it_kept(server, data_dir):
    server.handle(CHAT, lambda _request: FakeResponse(status=401, json={"error": {"message": "bad key"}}))
    app = Flashback(data_dir)
    outcome = search(app, flash(app, server.base_url))
    raw, report = outcome.result.report, outcome.report

    assert isinstance(report, FlashReport) and report.fallback == "llm_error" == outcome.result.fallback
    assert report.error is not None and str(report.error) == raw["error"]
    assert report.fallback_kept is not None and str(report.fallback_kept) == raw["fallback_kept"]["text"]
    assert report.topics.kept == len(outcome.result.selected_ids("topic"))


def test_the_cross_encoder_reports_its_scores_endpoint_and_cut(rerank_server, data_dir):
    rerank_server.serve("tei")
    app = Flashback(data_dir)
    outcome = search(app, cross_encoder(app, rerank_server.root, threshold=0.3, top_k=4, skip_small=False,
                                        skip_flat=False))
    raw, report = outcome.result.report, outcome.report

    assert isinstance(report, CrossEncoderReport) and report.fallback is None and report.skipped is None
    assert [(s.id, s.score, s.stage1_rank) for s in report.scores] == [
        (e["id"], e["score"], e["stage1_rank"]) for e in raw["scores"]]
    assert report.sent == raw["sent"] and report.batches == raw["batches"] and report.requests == raw["requests"]
    assert report.settings.threshold == 0.3 and report.settings.top_k == 4
    assert report.endpoint.label == raw["endpoint"]["label"] and report.endpoint.local
    assert report.topics.kept == raw["kept"] and report.topics.removed_by_threshold == raw["removed_by_threshold"]
    recut = outcome.recut_scores(0.0, 2).report  # the sliders' re-cut reads the same way
    assert isinstance(recut, CrossEncoderReport) and recut.topics.kept == 2 and recut.settings.top_k == 2


def test_the_figures_give_back_the_json_scripts_read():
    metrics = summarise([], {1: 100})
    assert list(MetricSet.from_json(metrics).as_json().items()) == list(metrics.items())
    shaped = {"metrics": metrics, "by_category": {"travel": metrics}, "unmatched_messages": 2}
    assert json.dumps(EvaluationFigures.from_json(shaped).as_json()) == json.dumps(shaped)


def test_run_metrics_are_the_traces_figures(service):
    connection = service._context.connect()
    try:
        raw = run_metrics(connection)
    finally:
        connection.close()
    figures = service.runs.metrics()
    assert isinstance(figures, RunMetrics) and json.dumps(figures.as_json()) == json.dumps(raw)


def test_a_wait_step_carries_its_holder_over_the_childs_json():
    step = Step("wait", "the import in another Flashback window", 0, 0, holder=LockHolder(4242, "import", "window",
                                                                                          1700000000.0))
    sent = json.loads(json.dumps(dataclasses.asdict(step)))  # what the child writes on its pipe
    assert _step_from_json(sent) == step
