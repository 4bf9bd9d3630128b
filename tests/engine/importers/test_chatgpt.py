# Sample exports: shared/data/exports/chatgpt/librechat_chatgpt-*.json, copied from
# danny-avila/LibreChat (api/server/utils/import/__data__/), MIT licence. They are read in
# place through the `exports_dir` fixture; every other case below is hand-written.
"""Tests for the ChatGPT `conversations.json` importer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.errors import ImportFormatError
from engine.importers.chatgpt import ChatGPTImporter
from engine.importers.inputs import ExportInput
from engine.importers.records import ChatRecord, MessageRecord

TREE = "chatgpt/librechat_chatgpt-tree.json"
MODERN = "chatgpt/librechat_chatgpt-modern-export.json"
INTERRUPTED = "ada93f81-f59e-4b31-933d-1357efd68bfc"


def _parse(path: Path) -> list[ChatRecord | MessageRecord]:
    reports: list[int] = []
    records = list(ChatGPTImporter().parse(ExportInput(path, path.name), reports.append))
    assert reports == sorted(reports)
    return records


def _messages(records: list[ChatRecord | MessageRecord]) -> list[MessageRecord]:
    return [r for r in records if isinstance(r, MessageRecord)]


def _write(tmp_path: Path, data: Any) -> Path:
    path = tmp_path / "conversations.json"
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def _msg(node_id: str, role: str, content: dict, **extra: Any) -> dict:
    author = {"role": role, "name": extra.pop("name", None), "metadata": {}}
    message = {"id": node_id, "author": author, "create_time": extra.pop("create_time", 1700000000.0)}
    return {**message, "content": content, "status": "finished_successfully", "metadata": {}, **extra}


def _chain(*messages: dict, **conv: Any) -> dict:
    """A conversation whose messages follow each other under a `root` node, no forks."""
    mapping: dict[str, dict] = {"root": {"id": "root", "message": None, "parent": None, "children": []}}
    parent = "root"
    for message in messages:
        mapping[parent]["children"].append(message["id"])
        mapping[message["id"]] = {"id": message["id"], "message": message, "parent": parent, "children": []}
        parent = message["id"]
    base = {"title": "Edge", "create_time": 1690000000.0, "update_time": 1690000100.0, "id": "c1"}
    return {**base, "mapping": mapping, "current_node": parent, **conv}


def _text(*parts: Any) -> dict:
    return {"content_type": "text", "parts": list(parts)}


# --- the samples -------------------------------------------------------------------------


def test_tree_sample_yields_only_the_displayed_thread(exports_dir: Path) -> None:
    records = _parse(exports_dir / TREE)
    assert records[0] == ChatRecord(
        "chatgpt:d5dc5307-6807-41a0-8b04-4acee626eeb7", "Assist user with summary", "assistant"
    )
    messages = _messages(records)
    assert [(m.role, m.text.split("\n")[0]) for m in messages] == [
        ("user", "hi there"),
        ("assistant", "Hello! How can I assist you today?"),
        ("user", "hi again"),
        ("assistant", "Hey! Welcome back. What's on your mind?"),
        ("user", "tell me a joke"),
        ("assistant", "Sure, here's one for you:"),
    ]
    texts = " ".join(m.text for m in messages)
    for abandoned in ("so cool bro", "tell me a story", "Thanks! What brings you here today?"):
        assert abandoned not in texts
    assert messages[-1].external_id == "f63b8e17-aa5c-4ca6-a1bf-d4d285e269b8"  # not the sibling d0d2a7df
    assert [m.reply_to for m in messages[1:]] == [m.external_id for m in messages[:-1]]
    assert messages[0].reply_to is None
    # Issue 34: answers are ChatGPT's, whichever model wrote them (not "text-davinci-002-render-sha")
    assert messages[1].author == "ChatGPT" and messages[1].author_key == "assistant"
    assert messages[0].author == "User"
    assert [m.sent_at for m in messages] == sorted(m.sent_at for m in messages)
    assert "message aaa297ba" in messages[0].where and "conversation 1" in messages[0].where


def test_interrupted_message_is_kept(exports_dir: Path, tmp_path: Path) -> None:
    # In the sample the interrupted answer sits on an abandoned branch; point the export at it.
    data = json.loads((exports_dir / TREE).read_text(encoding="utf-8"))
    data[0]["current_node"] = INTERRUPTED
    messages = _messages(_parse(_write(tmp_path, data)))
    assert [m.text.split("\n")[0] for m in messages][-3:] == [
        "Thanks! What brings you here today?",
        "tell me a story",
        "Sure! Here's a short story for you:",
    ]
    assert messages[-1].external_id == INTERRUPTED
    assert messages[-1].text.endswith("nestled between rolling")


def test_modern_sample(exports_dir: Path) -> None:
    records = _parse(exports_dir / MODERN)
    chats = [r for r in records if isinstance(r, ChatRecord)]
    assert [c.title for c in chats] == ["Deploying the staging cluster", "Corrupted entry", "Weeknight pasta"]
    by_chat = {c.key: [m for m in _messages(records) if m.chat_key == c.key] for c in chats}
    first, empty, last = by_chat.values()
    assert [m.external_id for m in first] == ["user-1", "assistant-1", "user-2", "assistant-2"]
    assert all("SRE" not in m.text and "concisely" not in m.text for m in first)  # hidden context node
    assert first[0].reply_to is None  # the hidden node and client-created-root are not in the thread
    assert first[3].author == first[1].author == "ChatGPT"  # issue 34: not the slug "o4-mini"
    assert empty == []  # the conversation with no mapping
    assert [m.text for m in last] == ["Something with anchovies?", "Puttanesca."]


def test_sniff_samples_and_other_formats(exports_dir: Path) -> None:
    for name in (TREE, MODERN):
        assert ChatGPTImporter.sniff(ExportInput(exports_dir / name, name).head())
    for path in sorted((exports_dir / "telegram").glob("*.json")) + sorted(
        (exports_dir / "whatsapp").glob("*.txt")
    ):
        assert not ChatGPTImporter.sniff(ExportInput(path, path.name).head()), path.name
    jsonl = b'{"title": "x", "mapping": {}, "create_time": 1}\n{"title": "y", "mapping": {}}\n'
    assert not ChatGPTImporter.sniff(jsonl)
    telegram = b'[{"name": "x", "messages": [{"from": "A", "text": "hi", "title": "t"}]}]'
    assert not ChatGPTImporter.sniff(telegram)
    assert not ChatGPTImporter.sniff(b'[12/03/21, 10:00:00] Ann: the "mapping" and "create_time"')
    assert not ChatGPTImporter.sniff(b"[]")


def test_sniff_survives_a_head_cut_mid_document(exports_dir: Path) -> None:
    head = (exports_dir / TREE).read_bytes()[:200]
    assert b'"mapping"' in head and b"current_node" not in head
    assert ChatGPTImporter.sniff(head)
    assert ChatGPTImporter.sniff(b'\xef\xbb\xbf [ {"title": "t", "conversation_id": "x"')


# --- hand-written edge cases ----------------------------------------------------------------


def test_code_browsing_tool_and_image_content(tmp_path: Path) -> None:
    image = {
        "content_type": "image_asset_pointer",
        "asset_pointer": "file-service://file-abc",
        "size_bytes": 120,
    }
    conv = _chain(
        _msg("u1", "user", {"content_type": "multimodal_text", "parts": [image, "what is this?"]}),
        _msg(
            "a1",
            "assistant",
            {"content_type": "code", "language": "python", "text": "print(1)"},
            recipient="python",
        ),
        _msg("t1", "tool", {"content_type": "execution_output", "text": "1"}, name="python"),
        _msg(
            "t2",
            "tool",
            {"content_type": "tether_browsing_display", "result": "", "summary": "A page"},
            name="browser",
        ),
        _msg("t3", "tool", {"content_type": "tether_browsing_display", "result": "Full result"}, name=None),
        _msg("u2", "user", {"content_type": "multimodal_text", "parts": [image]}),
    )
    messages = _messages(_parse(_write(tmp_path, [conv])))
    assert [(m.external_id, m.role, m.author, m.text) for m in messages] == [
        ("u1", "user", "User", "what is this?"),
        ("a1", "assistant", "ChatGPT", "```python\nprint(1)\n```"),
        ("t1", "other", "python", "1"),
        ("t2", "other", "browser", "A page"),
        ("t3", "other", "tool", "Full result"),
        ("u2", "user", "User", ""),  # an image alone is still a message
    ]
    for message in (messages[0], messages[-1]):
        [attachment] = message.attachments
        assert attachment.kind == "photo" and attachment.file_name == "file-service://file-abc"
        assert attachment.missing == "not in export" and attachment.size == 120


def test_hidden_empty_and_context_nodes_are_skipped(tmp_path: Path) -> None:
    conv = _chain(
        _msg("s1", "system", _text(""), create_time=None),
        _msg("s2", "system", _text("You are helpful"), weight=0),
        _msg("s3", "system", _text("Shown system note")),
        _msg("h1", "user", _text("hidden"), metadata={"is_visually_hidden_from_conversation": True}),
        _msg("c1", "user", {"content_type": "user_editable_context", "user_profile": "me", "text": "me"}),
        _msg("e1", "assistant", _text("", "  ")),
        _msg("u1", "user", _text("first line", "second line")),
    )
    messages = _messages(_parse(_write(tmp_path, [conv])))
    assert [(m.external_id, m.role, m.text) for m in messages] == [
        ("s3", "other", "Shown system note"),
        ("u1", "user", "first line\nsecond line"),
    ]
    assert messages[1].reply_to == "s3"


def test_null_and_missing_times_fall_back(tmp_path: Path) -> None:
    conv = _chain(
        _msg("u1", "user", _text("a"), create_time=None),
        _msg("a1", "assistant", _text("b"), create_time=1700000500.0),
        _msg("u2", "user", _text("c"), create_time=None),
    )
    no_times = _chain(
        _msg("x1", "user", _text("d"), create_time="soon"), id="c2", create_time=None, update_time=None
    )
    only_update = _chain(_msg("y1", "user", _text("e"), create_time=None), id="c3", create_time=None)
    messages = _messages(_parse(_write(tmp_path, [conv, no_times, only_update])))
    assert [m.sent_at for m in messages] == [1690000000.0, 1700000500.0, 1700000500.0, 0.0, 1690000100.0]


def test_missing_current_node_follows_the_last_child(tmp_path: Path) -> None:
    conv = _chain(_msg("u1", "user", _text("question")), _msg("a1", "assistant", _text("old answer")))
    conv["mapping"]["a2"] = {
        "id": "a2",
        "message": _msg("a2", "assistant", _text("new answer")),
        "parent": "u1",
    }
    conv["mapping"]["u1"]["children"].append("a2")
    del conv["current_node"]
    gone = json.loads(json.dumps(conv)) | {"id": "c2", "current_node": "no-such-node"}
    messages = _messages(_parse(_write(tmp_path, [conv, gone])))
    assert [m.text for m in messages] == ["question", "new answer"] * 2


def test_ids_and_titles_fall_back(tmp_path: Path) -> None:
    conv = _chain(_msg("u1", "user", _text("hi")), title="")
    del conv["id"]
    by_conversation_id = conv | {"conversation_id": "cid"}
    first, _, second, _ = _parse(_write(tmp_path, [conv, by_conversation_id]))
    assert first.title == "Untitled conversation" and first.key.startswith("chatgpt:")
    assert second.key == "chatgpt:cid"
    again = _parse(_write(tmp_path, [conv]))[0]
    assert again.key == first.key  # the hash fallback is stable across imports


def test_a_cycle_in_parent_links_is_an_import_error(tmp_path: Path) -> None:
    conv = _chain(_msg("u1", "user", _text("a")), _msg("a1", "assistant", _text("b")))
    conv["mapping"]["root"]["parent"] = "a1"
    with pytest.raises(ImportFormatError, match="circle") as caught:
        _parse(_write(tmp_path, [conv]))
    assert "conversation 1" in (caught.value.where or "")
    del conv["current_node"]  # no root at all to start from
    with pytest.raises(ImportFormatError, match="circle"):
        _parse(_write(tmp_path, [conv]))


@pytest.mark.parametrize("body", ["[]", " \n[ ]\n", "\ufeff[]"])
def test_an_empty_list_imports_nothing(tmp_path: Path, body: str) -> None:
    assert _parse(_write(tmp_path, body)) == []


@pytest.mark.parametrize(
    ("body", "problem"),  # body: str is written as UTF-8, bytes as they are
    [
        ('[{"title": "a", "mapping": {', "cut off"),
        ('{"title": "a", "mapping": {}}', "list of conversations"),
        ("", "empty"),
        (b'[{"title": "\xed\xa0\x80"}]', "not valid UTF-8"),
        (b"\xff\xfe[\x00", "list of conversations"),
        ("[1, 2]", "not a conversation"),
        ('[{"title": "a"}] trailing', "damaged"),
        ('[{"title": "a", "mapping": ["x"]}]', "not stored as expected"),
        ('[{"title": "a", "mapping": {"n": {"message": 5}}, "current_node": "n"}]', "not laid out"),
    ],
)
def test_unreadable_files_raise_import_format_error(tmp_path: Path, body: str | bytes, problem: str) -> None:
    with pytest.raises(ImportFormatError, match=problem) as caught:
        _parse(_write(tmp_path, body))
    assert caught.value.source == "conversations.json"


def test_errors_from_the_consumer_are_not_relabelled(exports_dir: Path) -> None:
    path = exports_dir / MODERN

    def cancel(_: int) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        list(ChatGPTImporter().parse(ExportInput(path, path.name), cancel))


# --- properties ----------------------------------------------------------------------------

_SAMPLES = [
    Path(__file__).resolve().parents[4] / "shared" / "data" / "exports" / name for name in (TREE, MODERN)
]
_SAMPLE_BYTES = [path.read_bytes() for path in _SAMPLES if path.exists()]


@st.composite
def _mutated_sample(draw: st.DrawFn) -> bytes:
    data = bytearray(draw(st.sampled_from(_SAMPLE_BYTES or [b'[{"mapping": {}}]'])))
    for _ in range(draw(st.integers(1, 8))):
        at = draw(st.integers(0, len(data)))
        chunk = draw(st.binary(min_size=1, max_size=4))
        match draw(st.sampled_from(["insert", "delete", "replace"])):
            case "insert":
                data[at:at] = chunk
            case "delete":
                del data[at : at + len(chunk)]
            case _:
                data[at : at + len(chunk)] = chunk
    return bytes(data)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.one_of(st.binary(max_size=512), _mutated_sample()))
def test_any_bytes_parse_or_raise_import_format_error(
    tmp_path_factory: pytest.TempPathFactory, data: bytes
) -> None:
    assert isinstance(ChatGPTImporter.sniff(data[:65536]), bool)
    path = tmp_path_factory.mktemp("fuzz") / "conversations.json"
    path.write_bytes(data)
    try:
        records = list(ChatGPTImporter().parse(ExportInput(path, path.name), lambda _: None))
    except ImportFormatError as exc:
        assert exc.problem and exc.source == "conversations.json"
    else:
        assert all(isinstance(r, ChatRecord | MessageRecord) for r in records)
        assert all(isinstance(r.sent_at, float) for r in records if isinstance(r, MessageRecord))
