"""The cross-encoder in the window (issue 25): Settings → Reranker: Cross-encoder asks a scripted
rerank server (real HTTP on 127.0.0.1, tests/fake_rerank.py) about the frozen candidates on the
qasync loop; the cards say "cross-encoder score 0.83", the chart shows its scores with its
threshold, its own sliders re-cut without a request, a failing server ends in the fallback the
window names, and Flash can read only the topics the cross-encoder left it."""

from __future__ import annotations

import re
import time

import pytest

from tests.fake_openai import FakeResponse, LocalServerModel
from tests.fake_rerank import FakeRerank
from tests.ui.conftest import FakeKeys
from tests.ui.test_search_panel import CountingService
from tests.ui.test_search_panel_flash import make_panel, search
from ui.search import SearchPanel

QUERY = "Postgres upgrade incident"
CHAT = "/v1/chat/completions"


@pytest.fixture
def service(demo_service) -> CountingService:
    return CountingService(demo_service.data_dir)


@pytest.fixture
def rerank():
    with FakeRerank() as server:
        yield server


def use_rerank_server(panel: SearchPanel, server: FakeRerank, preset: str = "custom", **settings) -> None:
    values = {"rerank_preset": preset, "rerank_url": server.root, "ce_skip_small": False, "ce_skip_flat": False,
              **settings}
    for name, value in values.items():
        panel.settings_panel.set_value(name, value)


def wait_scored(qtbot, panel: SearchPanel) -> None:
    qtbot.waitUntil(lambda: panel._state.cross is not None and not panel.is_busy(), timeout=15_000)


def topics(panel: SearchPanel) -> list:
    return sorted((c for c in panel._state.stage1.candidates if c.kind == "topic"), key=lambda c: c.rank)


def test_the_reranker_choice_asks_the_server_and_shows_its_scores_and_reasons(qtbot, qasync_loop, service, rerank,
                                                                             screenshots_dir):
    rerank.serve("llamacpp", logits=True)  # raw logits, as llama-server sends a bge reranker's
    panel = make_panel(qtbot, service)
    use_rerank_server(panel, rerank, "llamacpp", ce_threshold=0.3, ce_top_k=3)
    panel.settings_panel.set_value("mode", "cross-encoder")
    recorded: list[int] = []
    panel.run_recorded.connect(recorded.append)
    search(qtbot, panel)
    wait_scored(qtbot, panel)

    outcome = panel.outcome()
    result, report = outcome.result, outcome.result.report
    assert result.reranker == "cross-encoder" and result.fallback is None and report["normalized"] == "sigmoid"
    sent = rerank.requests_to("/v1/rerank")
    assert sent and sent[0].body["query"] == QUERY and "top_n" in sent[0].body  # llama.cpp's request shape
    assert len(sent[0].body["documents"]) == min(len(topics(panel)), 16)  # one batch of ≤ 16
    best = {e["id"]: e["score"] for e in report["scores"]}
    kept = [c.data.id for c in panel.cards.cards if c.data.kind == "topic"]
    assert kept and len(kept) <= 3 and all(best[i] >= 0.3 for i in kept)
    assert kept == sorted(kept, key=lambda i: -best[i])  # best cross-encoder score first, not stage 1's order
    for card in panel.cards.cards[: len(kept)]:
        assert card.data.reason == f"cross-encoder score {best[card.data.id]:.2f}"
    chart = panel.chart.data()
    assert chart.threshold == pytest.approx(0.3) and "Cross-encoder scores" in chart.caption
    assert [p.score for p in chart.points] == pytest.approx([e["score"] for e in report["scores"]])
    assert "<b>Cross-encoder</b>" in panel.report.text() and "cross-encoder:" in panel.status.text()
    assert recorded == [outcome.run_id] and outcome.run_id is not None  # in the run history
    panel.grab().save(str(screenshots_dir / "cross_encoder.png"))  # docs/screenshots/cross_encoder.png is a copy

    # Score ≥ and top-K re-cut the scores already back: no request, at once.
    requests = len(rerank.requests_to("/v1/rerank"))
    panel.settings_panel.set_value("ce_top_k", 1)
    assert [c.data.id for c in panel.cards.cards if c.data.kind == "topic"] == kept[:1]
    assert panel.outcome().run_id is None and "over top-K (1)" in panel.report.text()
    panel.settings_panel.set_value("ce_threshold", 1.0)
    assert [c for c in panel.cards.cards if c.data.kind == "topic"] == []
    assert "no passage reached the cross-encoder threshold 1.00" in panel.cards._empty.text()
    panel.settings_panel.set_value("ce_threshold", 0.3)
    panel.settings_panel.set_value("ce_top_k", 3)
    assert panel.outcome() is outcome  # the recorded run again, with its run id
    assert len(rerank.requests_to("/v1/rerank")) == requests

    # What is sent changed: the server is asked again about the same candidates, once the hand rests.
    panel.settings_panel.set_value("ce_top_n", 5)
    qtbot.waitUntil(lambda: len(rerank.requests_to("/v1/rerank")) == requests + 1 and not panel.is_busy(),
                    timeout=10_000)
    wait_scored(qtbot, panel)
    assert len(rerank.requests_to("/v1/rerank")[-1].body["documents"]) == 5
    assert len(panel.outcome().result.report["scores"]) == 5
    assert service.stage1_calls == [QUERY]  # the frozen candidates, never searched again


def test_a_failing_server_ends_in_stage_1s_order_with_the_fallback_named(qtbot, qasync_loop, service, rerank):
    rerank.handle("/v1/rerank", lambda _request: FakeResponse(status=400, json={"error": "no reranking model loaded"}))
    panel = make_panel(qtbot, service)
    use_rerank_server(panel, rerank, ce_top_k=2)
    panel.settings_panel.set_value("mode", "cross-encoder")
    search(qtbot, panel)
    wait_scored(qtbot, panel)

    result = panel.outcome().result
    assert result.reranker == "cross-encoder" and result.fallback == "endpoint_error"
    first = [c.id for c in topics(panel)[:2]]
    assert [c.data.id for c in panel.cards.cards if c.data.kind == "topic"] == first  # stage 1's order
    for card, candidate in zip(panel.cards.cards, topics(panel), strict=False):
        said = (f"fallback (the rerank server answered with an error): vector rank {candidate.rank}, "
                f"score {candidate.score:.2f}")
        assert card.data.reason == said
    assert "Fallback</b>: the rerank server answered with an error" in panel.report.text()
    assert "the rerank server answered 400: no reranking model loaded" in panel.report.text()
    assert "the cross-encoder fell back: the rerank server answered 400" in panel.status.text()
    assert "fell back" in panel.chart.data().caption and panel.chart.data().threshold is None
    panel.settings_panel.set_value("ce_top_k", 3)  # its top-K still cuts stage 1's order
    assert [c.data.id for c in panel.cards.cards if c.data.kind == "topic"] == [c.id for c in topics(panel)[:3]]
    assert panel.cards.cards[2].data.reason.startswith("fallback (the rerank server answered with an error)")


def test_a_key_is_needed_for_a_rerank_api_and_a_url_for_a_custom_server(qtbot, qasync_loop, service, rerank):
    rerank.serve("jina")
    keys = FakeKeys()
    panel = make_panel(qtbot, service, keys)
    panel.settings_panel.set_value("rerank_preset", "custom")
    panel.settings_panel.set_value("mode", "cross-encoder")
    search(qtbot, panel)
    assert "Enter the rerank server's URL" in panel.status.text() and panel._state.cross is None
    panel.settings_panel.set_value("rerank_preset", "jina")
    panel.settings_panel.set_value("rerank_url", rerank.root)
    qtbot.waitUntil(lambda: "No API key for Jina AI" in panel.status.text(), timeout=5_000)
    assert rerank.requests_to("/v1/rerank") == []  # nothing sent without the key
    keys.keys["jina"] = "jina-test-key-1234"
    panel.settings_panel.set_value("ce_skip_small", False)
    panel.settings_panel.set_value("ce_skip_flat", False)
    wait_scored(qtbot, panel)
    sent = rerank.requests_to("/v1/rerank")
    assert sent and sent[0].headers.get("Authorization") == "Bearer jina-test-key-1234"
    assert sent[0].body["model"] == "jina-reranker-v2-base-multilingual"  # the preset's model
    assert panel.outcome().result.fallback is None


def test_flash_reads_only_the_topics_the_cross_encoder_left_it(qtbot, qasync_loop, service, rerank):
    from tests.fake_openai import FakeOpenAI

    rerank.serve("tei")
    panel = make_panel(qtbot, service)
    with FakeOpenAI() as chat:
        chat.handle(CHAT, LocalServerModel(forces=frozenset({"required", "named"}), picks=2))
        settings = panel.settings_panel
        for name, value in (("mode", "flash"), ("preset", "custom"), ("base_url", chat.base_url),
                            ("model", "test/flash"), ("chain_cross_encoder", True), ("ce_chain_keep", 4)):
            settings.set_value(name, value)
        use_rerank_server(panel, rerank, "tei")
        search(qtbot, panel)
        assert rerank.requests_to("/rerank") == []  # chained: asked when Flash runs, not with the search
        panel.flash_button.click()
        qtbot.waitUntil(lambda: panel._state.flash is not None and not panel.is_busy(), timeout=20_000)
        first_prompt = chat.requests_to(CHAT)[0].body["messages"][1]["content"]
    shown = [int(i) for i in re.findall(r"\[Topic:(\d+)\]", first_prompt)]
    chain = panel.outcome().result.report["chain"]
    assert len(rerank.requests_to("/rerank")) >= 1 and "texts" in rerank.requests_to("/rerank")[0].body
    assert chain["after"] == 4 and shown == chain["kept_ids"]  # only the cross-encoder's best four
    assert chain["before"] == len(topics(panel)) > 4
    assert "Cross-encoder first</b>: the cross-encoder left Flash 4 of" in panel.report.text()
    scores = {e["id"]: e["score"] for e in chain["scores"]}
    for card in (c for c in panel.cards.cards if c.data.kind == "topic"):
        assert card.data.score_note == f"cross-encoder score {scores[card.data.id]:.2f}"
    assert panel.cards.cards and panel.outcome().result.reranker == "flash"


def test_evaluate_compares_threshold_cross_encoder_and_flash_with_the_cost_first(qtbot, qasync_loop, demo_service,
                                                                              rerank):
    from engine.api import QueryFilters
    from tests.fake_openai import FakeOpenAI
    from tests.ui.test_labels_and_evaluate import QUERIES, refreshed
    from ui.evaluate import EvaluatePanel
    from ui.evaluate.queries_model import COLUMNS

    for query in QUERIES:  # stage 1's second topic is the relevant one, its first is not
        ids = [c.id for c in demo_service.search.candidates(query).candidates if c.kind == "topic"]
        demo_service.labels.label_topic(query, QueryFilters(), ids[1], True)
        demo_service.labels.label_topic(query, QueryFilters(), ids[0], False)
    search = SearchPanel(demo_service, FakeKeys())
    evaluate = EvaluatePanel(demo_service, search, FakeKeys())
    for widget in (search, evaluate):
        qtbot.addWidget(widget)
    evaluate.resize(1100, 640)
    evaluate.show()
    refreshed(qtbot, evaluate, 2)
    relevant = {c.summary for q in evaluate.frozen() for c in q.stage1.candidates if c.id in q.relevant}
    rerank.serve("tei", scorer=lambda _q, passage: 0.9 if any(s in passage for s in relevant) else 0.05)
    with FakeOpenAI() as chat:
        chat.handle(CHAT, LocalServerModel(forces=frozenset({"required", "named"}), picks=2))
        for name, value in (("preset", "custom"), ("base_url", chat.base_url), ("model", "test/flash"),
                            ("ce_top_k", 1)):
            search.settings_panel.set_value(name, value)
        use_rerank_server(search, rerank, "tei")
        controls = evaluate.controls
        controls.compare_cross_encoder.setChecked(True)
        assert controls.compared() == ["cross-encoder", "flash"] and not controls.compare_button.isEnabled()
        evaluate.estimate()
        qtbot.waitUntil(controls.compare_button.isEnabled, timeout=10_000)
        estimate = controls.compare_text.text()
        assert "The cross-encoder would be asked for 2 of 2 queries" in estimate
        assert "free on a server on this computer" in estimate and "Flash would send about" in estimate
        assert rerank.requests == [] and chat.requests_to(CHAT) == []  # nothing sent for the estimate
        runs_before = len(demo_service.runs.list())

        controls.compare_button.click()
        assert controls.cancel_button.isVisible()
        qtbot.waitUntil(lambda: not evaluate.comparer.running(), timeout=30_000)

    assert len(demo_service.runs.list()) == runs_before + 4  # each cross-encoder and Flash call recorded
    model = evaluate.table_model
    for column in ("ce_precision", "ce_recall", "ce_f1", "flash_f1"):
        assert not evaluate.table.isColumnHidden(COLUMNS.index(column)), column
        assert all(model.index(row, COLUMNS.index(column)).data() not in ("", None) for row in range(2))
    assert [model.index(row, COLUMNS.index("ce_f1")).data() for row in range(2)] == ["1.00", "1.00"]
    summary = evaluate.summary.text()
    assert "Cross-encoder on the same candidates: precision <b>1.00</b>" in summary
    assert "Flash on the same candidates" in summary
    assert "The cross-encoder ran on 2 queries; 0 fell back" in evaluate.status.text()
    assert "Flash ran on 2 queries" in evaluate.status.text()


def test_cancel_stops_the_server_call_and_a_new_search_supersedes_it(qtbot, qasync_loop, service, rerank):
    rerank.serve("custom", delay=2.0)  # a slow server: the call is still in flight when cancelled
    panel = make_panel(qtbot, service)
    use_rerank_server(panel, rerank)
    panel.settings_panel.set_value("mode", "cross-encoder")
    panel.query.setText(QUERY)
    panel.search()
    qtbot.waitUntil(lambda: panel.cross_encoder.running(), timeout=10_000)
    assert panel.cancel_button.isVisible() and panel.busy.isVisible()
    assert "cross-encoder is scoring" in panel.report.text()
    started = time.perf_counter()
    panel.cancel_button.click()
    qtbot.waitUntil(lambda: not panel.is_busy(), timeout=1_000)  # at once, not after the server's 2 s
    assert time.perf_counter() - started < 1.0
    assert panel._state.cross is None and panel.outcome() is None and "cancelled" in panel.status.text()
    assert not panel.cancel_button.isVisible()
    qtbot.wait(300)  # the cancelled call closes its connection on the loop before the test's loop goes
