from tests.engine.topics.conftest import store  # noqa: F401 (the topic tests' JSONL store fixture)
