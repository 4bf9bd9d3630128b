"""Issue 23: `flashback forget --chat ID_OR_NAME | --source ID [--yes]` in a real process.

Asked at a terminal (a pseudo-terminal here) it says what will go and waits for "y"; without
a terminal it removes nothing unless --yes; a store another process writes, or a read-only
one, is refused in one sentence."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from engine.store.database import db_path
from tests.cli_run import ROOT, flashback, one_sentence
from tests.test_read_only_store import read_only_folder  # noqa: F401 (a fixture: the built demo on a read-only mount)

ALICE = "".join(f"[03/02/2024, 10:{n:02d}:00] {who}: {text}\n" for n, (who, text) in enumerate([
    ("Alice", "Did you book the ferry to Zanzibar?"), ("Me", "Yes, the Zanzibar ferry on Friday"),
    ("Alice", "Bring the snorkel")]))
BOB = "".join(f"04/02/2024, 10:{n:02d} - {who}: {text}\n" for n, (who, text) in enumerate([
    ("Bob", "The quarterly report is late"), ("Me", "Tonight, promised")]))


@pytest.fixture
def two_chats(tmp_path) -> Path:
    data = tmp_path / "data"
    alice = tmp_path / "WhatsApp Chat - Alice.zip"
    with zipfile.ZipFile(alice, "w") as bundle:
        bundle.writestr("_chat.txt", ALICE)
    bob = tmp_path / "WhatsApp Chat with Bob.txt"
    bob.write_text(BOB, encoding="utf-8")
    assert flashback("import", str(alice), str(bob), data_dir=data).returncode == 0
    assert flashback("build", data_dir=data).returncode == 0
    return data


def chats(data: Path) -> dict[str, int]:
    listed = json.loads(flashback("chats", "--json", data_dir=data).stdout)
    return {chat["name"]: chat["id"] for chat in listed}


def test_without_a_terminal_nothing_goes_without_yes(two_chats):
    refused = flashback("forget", "--chat", "Alice", data_dir=two_chats)  # stdin is /dev/null
    assert refused.returncode == 1 and one_sentence(refused.stderr), refused.stderr
    assert "--yes" in refused.stderr and refused.stdout == ""
    assert set(chats(two_chats)) == {"Alice", "Bob"}

    done = flashback("forget", "--chat", str(chats(two_chats)["Alice"]), "--yes", data_dir=two_chats)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Forgot Alice: 3 messages, 1 topic, 1 person and 0 recorded searches removed"), \
        done.stdout  # then the sizes ("went from", or "no smaller" when vacuuming packs a page differently)
    assert set(chats(two_chats)) == {"Bob"}
    assert b"zanzibar" not in db_path(two_chats).read_bytes().lower()


def _at_a_terminal(answer: str, *args: str, data: Path) -> tuple[int, str]:
    """`flashback forget …` with a pseudo-terminal as its standard input, answering `answer`."""
    leader, follower = pty.openpty()
    environment = {**{k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")},
                   "FLASHBACK_DATA_DIR": str(data)}
    process = subprocess.Popen([sys.executable, "-m", "app", "forget", *args], cwd=ROOT, env=environment,
                               stdin=follower, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    os.close(follower)
    os.write(leader, answer.encode() + b"\n")
    out, err = process.communicate(timeout=120)
    os.close(leader)
    return process.returncode, out + err


def test_at_a_terminal_it_says_what_goes_and_asks(two_chats):
    code, said = _at_a_terminal("n", "--chat", "Alice", data=two_chats)
    assert code == 1 and "Nothing was removed." in said
    assert "Forgetting the chat “Alice” removes 3 messages, 1 topic, 1 person found only there" in said
    assert "Remove them for good? [y/N]" in said
    assert set(chats(two_chats)) == {"Alice", "Bob"}
    code, said = _at_a_terminal("y", "--chat", "alice", data=two_chats)
    assert code == 0 and "Forgot Alice" in said, said
    assert set(chats(two_chats)) == {"Bob"}


def test_an_import_is_forgotten_by_its_id(two_chats):
    listed = flashback("forget", "--sources", data_dir=two_chats)
    assert listed.returncode == 0 and "WhatsApp Chat with Bob.txt" in listed.stdout
    sources = json.loads(flashback("forget", "--sources", "--json", data_dir=two_chats).stdout)
    bob = next(source for source in sources if source["name"] == "WhatsApp Chat with Bob.txt")
    done = flashback("forget", "--source", str(bob["id"]), "--yes", "--json", data_dir=two_chats)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["forgot"]["chats"] == ["Bob"]
    assert set(chats(two_chats)) == {"Alice"}


@pytest.mark.parametrize("args", [(), ("--chat", "Nobody", "--yes"), ("--source", "999", "--yes")])
def test_nothing_or_something_unknown_named_is_one_sentence(two_chats, args):
    result = flashback("forget", *args, data_dir=two_chats)
    assert result.returncode == 1 and one_sentence(result.stderr), result.stderr
    assert set(chats(two_chats)) == {"Alice", "Bob"}


_HOLD = "import sys, time\nfrom engine.store.lock import StoreWriteLock\n" \
        "with StoreWriteLock(sys.argv[1], 'build', 'command'):\n    print('held', flush=True)\n    time.sleep(60)\n"


def test_a_store_another_process_writes_is_refused_in_one_sentence(two_chats):
    holder = subprocess.Popen([sys.executable, "-c", _HOLD, str(two_chats)], cwd=ROOT, stdout=subprocess.PIPE,
                              text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        result = flashback("forget", "--chat", "Alice", "--yes", data_dir=two_chats, timeout=60)
    finally:
        holder.kill()
        holder.wait()
    assert result.returncode == 1 and one_sentence(result.stderr), result.stderr
    assert "`flashback build` in another terminal" in result.stderr
    assert set(chats(two_chats)) == {"Alice", "Bob"}


def test_a_read_only_folder_is_refused_in_one_sentence(read_only_folder):  # noqa: F811 (the imported fixture)
    before = json.loads(flashback("stats", "--json", data_dir=read_only_folder).stdout)
    result = flashback("forget", "--chat", "1", "--yes", data_dir=read_only_folder)
    assert result.returncode == 1 and one_sentence(result.stderr), result.stderr
    assert f"The data folder {read_only_folder} is read-only" in result.stderr
    assert json.loads(flashback("stats", "--json", data_dir=read_only_folder).stdout) == before


def test_another_process_sees_a_forgotten_chat_as_changed_chats(two_chats):
    """A window's watcher compares change tokens: forgetting the older chat moves no newest id."""
    from engine.api import Flashback

    service = Flashback(two_chats)
    _, token = service.store.changes_since(None)
    assert flashback("forget", "--chat", "Alice", "--yes", data_dir=two_chats).returncode == 0
    changes, _ = service.store.changes_since(token)
    assert changes.messages and changes.chats
