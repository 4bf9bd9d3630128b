"""Issue 22: what is wrong with a QRELS file, and a stopped evaluation, said in Russian."""

from __future__ import annotations

import json

import pytest

from engine.evaluation.frozen import EvaluationCancelled
from engine.evaluation.labels import LabelStore
from engine.evaluation.qrels import QrelsError, load_qrels
from engine.evaluation.tune import tune
from engine.messages import Message
from engine.rerank.threshold import ThresholdSettings
from tests.engine.russian_text import assert_russian


@pytest.mark.parametrize(("content", "says"), [
    ("{not json", "это не JSON (строка 1)"),
    ('{"queries": [{"id": 1, "query": "x", "relevant": "D1:3"}]}', "«relevant» в запросе 1 — не список"),
    ('{"queries": [{"id": 1, "query": " ", "relevant": []}]}', "у запроса 1 нет текста"),
    (b"\xff\xfe", "это не текст в кодировке UTF-8"),
])
def test_a_bad_qrels_file_is_said_in_russian(tmp_path, content, says):
    path = tmp_path / "bad.json"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(QrelsError) as caught:
        load_qrels(path)
    text = caught.value.render("ru")
    assert text.startswith(f"{path} — не файл QRELS: ") and says in text
    assert_russian(text.split("; ")[0], str(path), "QRELS", "JSON", "UTF", "relevant")


def test_a_qrels_file_about_other_chats_is_refused_in_russian(store, tmp_path):
    from tests.engine.evaluation.test_labels import three_sessions

    three_sessions(store)
    path = tmp_path / "other.json"
    path.write_text(json.dumps({"queries": [{"id": "a", "query": "x",
                                              "relevant": [{"chat": "Nope", "message": "1"}]}]}))
    with pytest.raises(QrelsError) as caught:
        LabelStore(store.data).import_qrels(path)
    assert caught.value.render("ru") == ("Ни одного из сообщений, названных в other.json (1 сообщение), нет в этом "
                                         "хранилище: сначала импортируйте чаты, по которым он составлен.")


def test_a_stopped_evaluation_is_said_in_russian():
    error = EvaluationCancelled()
    assert str(error) == "Stopped before every labelled query was searched."
    assert_russian(error.render("ru"))



def test_the_tuners_note_is_said_in_russian():
    result = tune({None: []}, ThresholdSettings())
    assert result.noise["note"] == "fewer than two scorable queries: nothing to cross-validate with"
    assert_russian(Message.from_json(result.noise["note_message"]).render("ru"))
