"""Consolidation's bar for a model the engine has not measured (engine/topics/merge_scale.py):
raised when most neighbouring topics would merge, kept where they sit below it."""

from __future__ import annotations

import numpy as np

from engine.topics.merge_scale import MIN_PAIRS, merge_bar, neighbour_cosines
from tests.engine.topics.conftest import BASE, conversation


def test_a_model_whose_neighbours_sit_above_the_bar_gets_a_bar_only_the_closest_clear():
    high = np.linspace(0.94, 0.99, 200)  # an E5-like scale: every neighbour "similar" at 0.8
    bar = merge_bar(high, 0.8)
    assert 0.98 < bar < 0.99 and np.mean(high >= bar) <= 0.05 + 1e-9


def test_a_model_whose_neighbours_sit_below_the_bar_keeps_it():
    assert merge_bar(np.linspace(0.1, 0.95, 200), 0.8) == 0.8  # median 0.525: most do not merge
    assert merge_bar(np.full(MIN_PAIRS - 1, 0.97), 0.8) == 0.8  # too few pairs to say


def test_neighbours_are_adjacent_topics_of_one_chat_and_unembedded_ones_are_left_out(store):
    from engine.topics import TopicSettings, build_topics

    rows = []
    for chat, first in (("A", 1), ("B", 100)):
        for session in range(4):
            rows += conversation(chat, BASE + session * 7200, [("Ann", f"{chat} session {session}")],
                                 first_id=first + session)
    store.add(rows)
    build_topics(store.connection, settings=TopicSettings(subject_chars=0))
    topics = {chat: [t for (t,) in store.rows(
        "SELECT t.id FROM topic t JOIN chat c ON c.id = t.chat_id WHERE c.title = ? ORDER BY t.first_at", chat)]
        for chat in ("A", "B")}
    assert len(topics["A"]) == len(topics["B"]) == 4
    unembedded = topics["B"][3]
    seen: list[int] = []

    def vectors_for(ids: list[int]) -> np.ndarray:
        seen.extend(ids)
        return np.array([[0.0, 0.0] if t == unembedded else [1.0, 0.0] for t in ids], dtype=np.float32)

    cosines = neighbour_cosines(store.connection, vectors_for)
    assert len(cosines) == 3 + 2  # 3 pairs in A, 3 in B less the one with no vector; none across chats
    assert np.allclose(cosines, 1.0)


def test_a_build_with_an_unmeasured_high_scale_model_does_not_merge_a_chat_into_one_topic(tmp_path):
    """The embeddings server here answers like E5 (every text near one direction, neighbouring
    topics at cosine ~0.97): at the built-in bar of 0.8 every session merged into one topic."""
    from engine.api import Flashback
    from engine.embeddings.base import EmbeddingConfig
    from tests.engine.topics.conftest import write_jsonl
    from tests.fake_openai import FakeOpenAI, FakeResponse, default_embedding

    def high_scale(request):
        inputs = request.body["input"]
        rows = []
        for text in inputs:
            vector = np.ones(16) * 4 + np.asarray(default_embedding(text))  # shared direction + a little text
            rows.append((vector / np.linalg.norm(vector)).tolist())
        return FakeResponse(json={"data": [{"index": i, "embedding": v} for i, v in enumerate(rows)]})

    rows = []
    for session in range(30):  # sessions an hour and more apart: 30 topics before consolidation
        texts = [("Ann", f"session {session} about thing {session}"), ("Bob", f"reply {session}")]
        rows += conversation("Notes", BASE + session * 3 * 3600, texts, first_id=1 + 2 * session)
    export = write_jsonl(tmp_path / "notes.jsonl", rows)
    with FakeOpenAI() as server:
        server.handle("/v1/embeddings", high_scale)
        service = Flashback(tmp_path / "data", EmbeddingConfig("custom", model="e5-like",
                                                                      base_url=server.base_url))
        service.imports.import_path(export)
        report = service.memory.build()
    assert report.topics_created == 30
    assert report.merge_threshold is not None and report.merge_threshold > 0.9
    assert report.topics_merged <= 5, report.topics_merged  # not 29 (one topic for the whole chat)


def test_a_calibration_whose_probes_cannot_separate_raw_cosines_becomes_relative(tmp_path):
    """Probes of 4-10 words scored their own topic no higher than the others (an E5-like
    scale: unrelated 0.848 above related 0.833 on LoCoMo conv-30), and the absolute anchors
    then gave every topic under the upper one a score of 0."""
    from engine.api import Flashback
    from engine.embeddings.base import EmbeddingConfig
    from engine.memory.calibration import RELATIVE_FALLBACK, load
    from engine.memory.indexes import INDEX_FOLDER
    from tests.engine.topics.conftest import write_jsonl
    from tests.fake_openai import FakeOpenAI, FakeResponse, default_embedding

    def same_for_all(request):  # one direction plus noise unrelated to the words: nothing to tell apart
        rows = [(np.ones(16) * 4 + np.asarray(default_embedding(f"noise {text[::-1]}"))).tolist()
                for text in request.body["input"]]
        return FakeResponse(json={"data": [{"index": i, "embedding": row} for i, row in enumerate(rows)]})

    rows = []
    for session in range(30):  # 29 neighbouring pairs: enough to measure the model's scale
        text = f"session {session}: a long enough message about the garden, the roof and the plans for spring"
        rows += conversation("Notes", BASE + session * 3 * 3600, [("Ann", text)], first_id=1 + session)
    with FakeOpenAI() as server:
        server.handle("/v1/embeddings", same_for_all)
        service = Flashback(tmp_path / "data", EmbeddingConfig("custom", model="flat",
                                                                      base_url=server.base_url))
        service.imports.import_path(write_jsonl(tmp_path / "notes.jsonl", rows))
        report = service.memory.build()
        assert report.calibration["probes"] > 0
        saved = load(tmp_path / "data" / INDEX_FOLDER, service.memory.embedder())
    assert saved.relative and (saved.unrelated, saved.related) == RELATIVE_FALLBACK
