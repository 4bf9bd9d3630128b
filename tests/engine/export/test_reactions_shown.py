"""Issue 34: a message's reactions (kept in `message.meta`, never its text) are shown under its
line where the export shows the message: a topic's transcript and an unbuilt message's context."""

from __future__ import annotations

import json

from engine.export.material import material


def test_reactions_are_shown_under_their_message_and_never_in_its_line(memory):
    connection = memory.connection
    first, second = (row[0] for row in connection.execute(
        "SELECT id FROM message WHERE topic_id = ? ORDER BY sent_at, id LIMIT 2", (memory.short,)))
    reactions = [{"emoji": "\U0001F44D", "by": ["Bob", "Carol"], "count": 2}, {"emoji": ":tada:", "by": [], "count": 3}]
    with connection:
        connection.execute("UPDATE message SET meta = ? WHERE id = ?", (json.dumps({"reactions": reactions}), first))
        connection.execute("UPDATE message SET meta = ? WHERE id = ?", (json.dumps({"model": "gpt-4o"}), second))
    topic = material(connection, "topic", memory.short, None)
    assert topic is not None
    shown = "\n(reactions: \U0001F44D Bob, Carol \u00b7 :tada: 3)"
    assert topic.pieces[0].endswith("Which key does the staging bot use?" + shown)
    assert "reactions" not in topic.pieces[1]  # a model, no reactions: nothing shown
    message = material(connection, "message", first, None)
    assert message is not None
    assert any(piece.endswith(shown) for piece in message.pieces)


def test_the_topic_viewer_gets_each_messages_reactions_beside_its_text(memory):
    from engine.browse import topic_detail

    connection = memory.connection
    first = connection.execute("SELECT id FROM message WHERE topic_id = ? ORDER BY sent_at, id LIMIT 1",
                               (memory.short,)).fetchone()[0]
    with connection:
        connection.execute("UPDATE message SET meta = ? WHERE id = ?",
                           (json.dumps({"reactions": [{"emoji": "\u2764\ufe0f", "by": ["Anna"], "count": 1}]}), first))
    lines = {line.id: line for line in topic_detail(connection, memory.short).messages}
    assert lines[first].reactions == "\u2764\ufe0f Anna" and "Anna" not in lines[first].text
    assert all(line.reactions == "" for line_id, line in lines.items() if line_id != first)
