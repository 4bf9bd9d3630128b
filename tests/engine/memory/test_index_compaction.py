"""An index whose deleted items outnumber its live ones is rebuilt (issue 35's soak: builds that
replace topics again and again grew topics.hnsw to 14 times its live items, and the memory of
every process that loads it)."""

from __future__ import annotations

import resources
from engine.api import Flashback
from engine.index.sidecar import read_sidecar
from engine.memory import indexes


def test_deleted_items_do_not_pile_up_in_the_topic_index(tmp_path, monkeypatch):
    service = Flashback(tmp_path / "data")
    service.imports.import_path(resources.demo_export())
    service.memory.build()
    path = tmp_path / "data" / "index" / "topics.hnsw"
    before = read_sidecar(path)
    assert not before.deleted

    monkeypatch.setattr(indexes, "COMPACT_FLOOR", 10)  # the demo store is small; the rule is the ratio
    chats = sorted(service.browse.chats(), key=lambda chat: -chat.topics)
    for chat in chats[:-1]:  # every chat but the smallest: far more topics gone than kept
        service.store.forget(chat_id=chat.id)
        service.memory.build()

    after = read_sidecar(path)
    live = after.elements - len(after.deleted)
    assert live > 0 and len(after.deleted) <= max(10, 2 * live), (after.elements, len(after.deleted))
    assert after.elements < before.elements
