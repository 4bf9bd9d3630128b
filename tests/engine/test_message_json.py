"""Issue 22: a message stored with a run (JSON) comes back as the same message, nested ones included,
so a face renders a recorded run in its own language."""

from __future__ import annotations

import json

from engine.messages import Message, msg


def test_a_message_survives_json_with_its_nested_messages():
    inner = msg("import.cancelled")
    outer = msg("import.cannot_read", source="chat.json", problem=inner)
    back = Message.from_json(json.loads(json.dumps(outer.to_json())))
    assert back == outer
    assert back.render("ru") == "Не удалось импортировать chat.json: Импорт отменён; ничего не изменено."


def test_anything_else_is_no_message():
    assert Message.from_json(None) is None
    assert Message.from_json("text") is None
    assert Message.from_json({"params": {}}) is None
    assert Message.from_json({"code": "import.cancelled"}) == msg("import.cancelled")
