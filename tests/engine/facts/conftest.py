"""Stores for the Archivist's tests: a JSONL export imported by the real import service."""

from __future__ import annotations

import pytest

from tests.engine.topics.conftest import BASE, Store, conversation

__all__ = ["BASE", "Store", "conversation"]


@pytest.fixture
def store(tmp_path):
    made = Store(tmp_path)
    yield made
    if made.connection is not None:
        made.connection.close()


@pytest.fixture
def chatted(store):
    """Alice (the owner, role user) talks with Bob; nothing built yet."""
    store.add(conversation("Bob", BASE, [
        ("Alice", "I started a new job as a nurse at St. Mary's hospital last week"),
        ("Bob", "Congrats! How is your sister Lena?"),
        ("Alice", "Lena is fine, she moved to Berlin in March"),
        ("Bob", "Say hi to her"),
        ("Alice", "I am allergic to peanuts, so no satay for me on Friday"),
    ], role_of={"Alice": "user"}))
    return store
