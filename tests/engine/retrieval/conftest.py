"""Fixtures shared with the topic tests: a store imported from JSONL by the real import service."""

from tests.engine.topics.conftest import store  # noqa: F401 (a pytest fixture, re-exported)
