"""The service calls the window uses: browsing views, frozen candidates re-ranked as a coroutine."""

from __future__ import annotations

import asyncio

import pytest

import resources
from engine.api import Flashback, SearchRequest, SearchResult
from engine.browse import BrowseError
from engine.rerank.threshold import ThresholdReranker, ThresholdSettings
from engine.retrieval.search import RetrievalSettings

DEMO = resources.demo_export()


@pytest.fixture(scope="module")
def service(tmp_path_factory) -> Flashback:
    service = Flashback(tmp_path_factory.mktemp("views"))
    service.imports.import_path(DEMO)
    service.memory.build()
    return service


def test_chats_topics_people_agree_with_the_store(service):
    chats = service.browse.chats()
    stats = service.store.stats()
    assert len(chats) == stats.chats
    assert sum(chat.messages for chat in chats) == stats.messages
    assert sum(chat.topics for chat in chats) == len(service.browse.topics(limit=100000))
    busiest = max(chats, key=lambda chat: chat.topics)
    own = service.browse.topics(chat_id=busiest.id)
    assert len(own) == busiest.topics and all(topic.chat == busiest.name for topic in own)
    assert [t.first_at for t in own] == sorted((t.first_at for t in own), reverse=True)
    people = service.browse.people()
    assert people and people[0].messages >= people[-1].messages and all(p.chats >= 1 for p in people if p.messages)


def test_topic_filter_matches_summary_text_literally(service):
    some = service.browse.topics(limit=1)[0]
    word = next(w for w in some.summary.split() if len(w) > 4)
    assert some.id in [t.id for t in service.browse.topics(text=word.upper())] or not word.isascii()
    assert service.browse.topics(text="%") == [t for t in service.browse.topics(limit=100000) if "%" in t.summary][:500]


def test_topic_detail_has_the_whole_conversation_in_order(service):
    topic = max(service.browse.topics(limit=100000), key=lambda t: t.messages)
    detail = service.browse.topic_detail(topic.id)
    assert detail.info == topic
    assert len(detail.messages) == topic.messages
    assert [m.sent_at for m in detail.messages] == sorted(m.sent_at for m in detail.messages)
    with pytest.raises(BrowseError, match="not in the store"):
        service.browse.topic_detail(10**9)


def test_frozen_candidates_rerank_without_a_new_stage1(service):
    stage1 = service.search.candidates("hotel in Lisbon", RetrievalSettings())
    assert stage1.settings == RetrievalSettings()
    loose_settings = ThresholdSettings(threshold=0.1, gap=0.5, top_k=10)

    def on_frozen(reranker: ThresholdReranker) -> SearchResult:
        return asyncio.run(service.search.search(SearchRequest(stage1.query, stage1.settings, reranker,
                                                               frozen=stage1)))

    loose = on_frozen(ThresholdReranker(loose_settings))
    strict = on_frozen(ThresholdReranker(ThresholdSettings(threshold=0.9)))
    assert loose.stage1 is strict.stage1 is stage1
    assert len(strict.result.selected_ids()) <= len(loose.result.selected_ids())
    assert loose.result.reranker == "threshold" and loose.reranker_settings == loose_settings
    assert loose.run_id is None and "run_id" not in loose.as_dict()
