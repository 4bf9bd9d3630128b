"""The MCP server holds its limits (issue 35): ids beyond SQLite's range, queries of megabytes
and tens of thousands of words, unknown arguments, slow, stalled and vanishing HTTP clients
each get one sentence in the client's language (or a closed connection), never "an
unexpected error" with a traceback in the log, and never a run of megabytes in Run history.
Lexical search stays within an old SQLite's host-parameter limit whatever the query."""

from __future__ import annotations

import contextlib
import re
import shutil
import socket
import sqlite3
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from app.mcp_http import BODY_SECONDS, HEADERS_SECONDS
from app.mcp_memory import QUERY_CHARS, QUERY_WORDS
from app.mcp_words import say
from engine.api import Flashback
from tests.mcp_client import error_text, session_run, structured
from tests.test_mcp_http import ACCEPT, INITIALIZE, http_server  # noqa: F401 (the fixture)

LARGEST_ID = 2**63 - 1
MARGIN = 90  # seconds beyond a deadline a busy 2-core machine may take to act on it


@pytest.fixture(scope="module")
def store(built_demo, tmp_path_factory):
    return shutil.copytree(built_demo, tmp_path_factory.mktemp("limits") / "data")


def _log(data: Path) -> str:
    path = data / "logs" / "flashback.log"
    return path.read_text(encoding="utf-8") if path.exists() else ""


def _one_sentence(text: str) -> bool:
    return "\n" not in text and len(text) < 300 and text.endswith(".") and "unexpected" not in text


def _distinct_words(count: int, first: str = "") -> str:
    """`count` different made-up words (letters only, so each stems to a term of its own)."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = []
    for number in range(count):
        word = ""
        while True:
            number, digit = divmod(number, 26)
            word += letters[digit]
            if not number:
                break
        words.append("qz" + word)
    return (first + " " + " ".join(words)).strip()


def test_ids_beyond_sqlites_range_and_long_texts_are_refused_in_one_sentence(store, tmp_path):
    async def work(session):
        return {
            "huge": error_text(await session.call_tool("get_topic", {"id": 2**63})),
            "float": error_text(await session.call_tool("get_topic", {"id": 1e30})),
            "largest": error_text(await session.call_tool("get_topic", {"id": LARGEST_ID})),
            "offset": error_text(await session.call_tool("get_topic", {"id": 23, "offset": 2**63})),
            "chat": error_text(await session.call_tool("search_memory", {"query": "hotel", "chat": "9" * 5000})),
            "since": error_text(await session.call_tool("ask_memory", {"question": "hotel", "since": "2" * 5000})),
            "no_arguments": error_text(await session.call_tool("list_chats", {"all": True})),
        }
    got = session_run(store, tmp_path / "err.log", work)
    range_sentence = say("argument_range", "en", name="id", minimum=1, maximum=LARGEST_ID)
    assert got["huge"] == got["float"] == range_sentence
    assert got["largest"].startswith(f"Topic {LARGEST_ID} is not in the store")
    assert got["offset"] == say("argument_range", "en", name="offset", minimum=0, maximum=LARGEST_ID)
    assert got["chat"] == "The argument chat must be at most 200 characters long."
    assert got["since"] == "The argument since must be at most 40 characters long."
    assert got["no_arguments"] == "The tool list_chats takes no arguments, so not 'all'."
    assert all(_one_sentence(text) for text in got.values()), got
    log = _log(store)
    assert "Traceback" not in log and "failed unexpectedly" not in log

    async def in_russian(session):
        return [error_text(await session.call_tool("get_topic", {"id": 1e30})),
                error_text(await session.call_tool("list_chats", {"all": True}))]
    russian = session_run(store, tmp_path / "err.log", in_russian, env={"FLASHBACK_LANG": "ru"})
    assert russian == [f"Аргумент id должен быть целым числом от 1 до {LARGEST_ID}.",
                       "Инструмент list_chats не принимает аргументов, так что 'all' лишний."]


def test_a_query_of_tens_of_thousands_of_words_is_cut_with_a_note_and_stored_small(store, tmp_path):
    query = _distinct_words(32_767, first="hotel in Lisbon")  # 32,767 words: SQLite's usual variable limit
    sqlite_file = store / "flashback.sqlite3"

    def on_disk() -> int:
        return sum(p.stat().st_size for p in store.glob("flashback.sqlite3*"))

    async def work(session):
        results = [structured(await session.call_tool("search_memory", {"query": query})) for _ in range(3)]
        results.append(structured(await session.call_tool("get_context", {"query": query})))
        results.append(structured(await session.call_tool("ask_memory", {"question": query})))
        return results
    before = on_disk()
    *searches, context, ask = session_run(store, tmp_path / "err.log", work)
    assert len(query) > 200_000
    cut_note = say("query_cut", "en", words=QUERY_WORDS, chars=QUERY_CHARS)
    for found in searches:
        assert cut_note in found["notes"] and found["selected"], found["notes"]
        assert found["query"].startswith("hotel in Lisbon") and len(found["query"]) <= QUERY_CHARS
        assert len(found["query"].split()) <= QUERY_WORDS
    assert cut_note in context["notes"] and context["items"] > 0
    assert say("question_cut", "en", words=QUERY_WORDS, chars=QUERY_CHARS) in ask["notes"]
    runs = Flashback(store).runs
    assert all(len(runs.get(found["run_id"]).query) <= QUERY_CHARS for found in searches)
    # Five calls with a 200 KB query stored whole added 1 MB; cut, a run is a few KB.
    assert on_disk() - before < 200_000, f"{sqlite_file} grew by {on_disk() - before} bytes"
    assert "Traceback" not in _log(store)


def test_lexical_search_stays_within_an_old_sqlites_variable_limit(store):
    """SQLite before 3.32 allowed 999 host parameters per statement (most builds now 32,766):
    a query of thousands of distinct words searches its first terms, in statements of a few
    hundred parameters, from any face."""
    from engine.retrieval.lexical import MAX_QUERY_TERMS, TermStatistics, query_terms, topic_lexical_scores

    connection = sqlite3.connect(f"file:{store / 'flashback.sqlite3'}?mode=ro", uri=True)
    connection.setlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER, 999)
    query = "Lisbon hotel Alfama " + _distinct_words(5000)
    assert len(query_terms(query)) == MAX_QUERY_TERMS
    hits = topic_lexical_scores(connection, query, statistics=TermStatistics())
    assert hits and hits[0][1] > 0
    statistics = TermStatistics()  # and the frequencies of more terms than one statement may name
    frequencies = statistics.frequencies(connection, [*_distinct_words(3000).split(), "lisbon"])
    assert len(frequencies) == 3001 and frequencies["lisbon"] > 0
    connection.close()


def test_a_filter_of_any_number_of_chats_stays_within_sqlites_variable_limit(store):
    """A chat filter is one host parameter whatever its length: 300,000 chat ids (past the
    250,000 this SQLite allows) through the whole search, 5,000 through BM25 on an old SQLite's 999."""
    import asyncio

    from engine.api import RetrievalSettings, SearchRequest, make_reranker
    from engine.retrieval.lexical import TermStatistics, topic_lexical_scores

    service = Flashback(store)
    dan = next(chat.id for chat in service.browse.chats() if chat.name == "Dan Whitfield")
    many = (dan, *range(10**6, 10**6 + 300_000))
    outcome = asyncio.run(service.search.search(SearchRequest(
        "hotel in Lisbon", RetrievalSettings(chat_ids=many), make_reranker("none"), record=False)))
    assert outcome.stage1.candidates and {c.chat for c in outcome.stage1.candidates if c.kind == "topic"} \
        == {"Dan Whitfield"}
    connection = sqlite3.connect(f"file:{store / 'flashback.sqlite3'}?mode=ro", uri=True)
    connection.setlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER, 999)
    assert topic_lexical_scores(connection, "hotel Lisbon", chat_ids=list(many[:5000]), statistics=TermStatistics())
    connection.close()


def test_run_history_keeps_a_long_query_cut(store):
    """Whatever face searches (the CLI and the window do not cut queries), Run history stores
    at most `STORED_QUERY_CHARS` of it."""
    import asyncio

    from engine.api import RetrievalSettings, SearchRequest, make_reranker
    from engine.traces.runs import STORED_QUERY_CHARS

    service = Flashback(store)
    query = "hotel in Lisbon " * 60_000  # ~1 MB
    outcome = asyncio.run(service.search.search(SearchRequest(query, RetrievalSettings(), make_reranker("threshold"),
                                                              record=True)))
    stored = service.runs.get(outcome.run_id).query
    assert stored.startswith("hotel in Lisbon") and len(stored) == STORED_QUERY_CHARS + 1 and stored.endswith("…")


def test_a_search_during_a_build_says_a_build_is_running_not_that_memory_is_unbuilt(tmp_path):
    """A build that re-embeds leaves no finished vectors until it is done (found by
    bench/mcp_soak.py): the server names the build instead of sending the person to build."""
    from engine.store.lock import StoreWriteLock
    from tests.cli_run import DEMO, flashback

    data = tmp_path / "data"
    assert flashback("import", str(DEMO), data_dir=data).returncode == 0

    async def work(session):
        return [error_text(await session.call_tool("search_memory", {"query": "hotel"})),
                error_text(await session.call_tool("ask_memory", {"question": "hotel?"}))]
    with StoreWriteLock(data, "build", "command"):
        during = session_run(data, tmp_path / "err.log", work)
    assert all(text.startswith("The memory is being built by `flashback build` in another terminal (pid ")
               and text.endswith("; ask again when it finishes.") for text in during), during
    after = session_run(data, tmp_path / "err.log", work)
    assert all(text.startswith("The memory is not built yet") for text in after), after


# -- HTTP: slow, stalled, vanishing and oversized clients ---------------------------------------
def _address(url: str) -> tuple[str, int]:
    host, port = re.match(r"http://([\d.]+):(\d+)/", url).groups()
    return host, int(port)


def _dribble(url: str, head: bytes, dribble: bytes, limit: float) -> tuple[float, bytes]:
    """Send `head`, then `dribble` a byte a second until the server closes the connection (or
    `limit` seconds pass); returns (seconds until closed, what the server sent)."""
    started = time.monotonic()
    received = b""
    with socket.create_connection(_address(url), timeout=5) as connection:
        connection.sendall(head)
        connection.settimeout(1.0)
        for byte in dribble * 1000:
            if time.monotonic() - started > limit:
                break
            try:
                connection.send(bytes([byte]))
                chunk = connection.recv(65536)
            except TimeoutError:
                continue  # nothing from the server this second
            except OSError:  # reset, broken pipe: closed
                return time.monotonic() - started, received
            if not chunk:
                return time.monotonic() - started, received
            received += chunk
    return float("inf"), received


def _request_head(url: str, token: str, length: int, language: str = "en") -> bytes:
    host, port = _address(url)
    return (f"POST /mcp HTTP/1.1\r\nHost: {host}:{port}\r\nAuthorization: Bearer {token}\r\n"
            f"Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n"
            f"Accept-Language: {language}\r\nContent-Length: {length}\r\n\r\n").encode()


def test_slow_and_stalled_clients_are_timed_out_and_a_vanished_one_is_one_log_line(http_server):  # noqa: F811
    url, token, _, data = http_server
    with ThreadPoolExecutor(2) as pool:
        headers = pool.submit(_dribble, url, b"POST /mcp HTTP/1.1\r\n", b"X-Slow: aaaa\r\n",
                              HEADERS_SECONDS + MARGIN)
        body = pool.submit(_dribble, url, _request_head(url, token, 10_000, "ru"), b" ", BODY_SECONDS + MARGIN)
        # Meanwhile one client sends half a body and goes.
        with socket.create_connection(_address(url), timeout=5) as vanishing:
            vanishing.sendall(_request_head(url, token, 10_000) + b'{"jsonrpc": "2.0", ')
        header_seconds, _ = headers.result()
        body_seconds, body_answer = body.result()
    assert HEADERS_SECONDS - 1 <= header_seconds <= HEADERS_SECONDS + MARGIN
    assert BODY_SECONDS - 1 <= body_seconds <= BODY_SECONDS + MARGIN
    assert body_answer.startswith(b"HTTP/1.1 408")
    assert say("body_too_slow", "ru", seconds=round(BODY_SECONDS)).encode() in body_answer
    deadline = time.monotonic() + MARGIN
    while "disconnected before sending its whole request" not in _log(data):
        assert time.monotonic() < deadline, _log(data)[-2000:]
        time.sleep(0.2)
    log = _log(data)
    assert "Traceback" not in log and " ERROR " not in log, log[-3000:]
    assert "did not send a request's headers within" in log and "timed out a client that sent" in log

    good = {"authorization": f"Bearer {token}", **ACCEPT}
    too_big = httpx.post(url, content=b" " * (2 * 2**20), headers={**good, "accept-language": "ru"}, timeout=60)
    assert too_big.status_code == 413 and too_big.text == "Запрос больше 1 МБ; отправьте запрос покороче."
    no_token = httpx.post(url, json=INITIALIZE, headers={**ACCEPT, "accept-language": "ru"}, timeout=60)
    assert no_token.status_code == 401 and no_token.text == say("http_token", "ru") and "токен" in no_token.text
    assert httpx.post(url, json=INITIALIZE, headers=good, timeout=60).status_code == 200  # and it still serves


def test_calls_cancelled_mid_way_leave_no_traceback(http_server):  # noqa: F811
    """An assistant that gives up on a call closes its session while its cancellation is on the
    way; the SDK met the closed session with two tracebacks in the log each time."""
    import asyncio

    import httpx2
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    url, token, _, data = http_server

    async def give_up_after(seconds: float) -> None:
        client = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=120)
        with contextlib.suppress(BaseException):  # the client's own teardown of a cancelled call
            async with client, streamable_http_client(url, http_client=client) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    await asyncio.wait_for(session.call_tool("get_context", {"query": "hotel in Lisbon"}), seconds)

    async def many() -> None:
        for seconds in (0.005, 0.01, 0.02, 0.05, 0.1) * 3:
            await give_up_after(seconds)
    asyncio.run(many())
    good = {"authorization": f"Bearer {token}", **ACCEPT}
    assert httpx.post(url, json=INITIALIZE, headers=good, timeout=60).status_code == 200  # still serving
    log = _log(data)
    assert "Traceback" not in log and " ERROR " not in log, log[-3000:]
