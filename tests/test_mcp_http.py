"""`flashback mcp --http PORT`: streamable HTTP on 127.0.0.1 behind the bearer token it prints
once; a request without the token, with a wrong one, or from a foreign Origin (DNS rebinding)
is refused before the MCP server sees it, and the SDK's own client with the token gets in."""

from __future__ import annotations

import asyncio
import os
import re
import selectors
import shutil
import subprocess
import sys
import time

import httpx
import httpx2
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp_types import Implementation

from tests.mcp_client import ROOT

INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "probe", "version": "0"}}}
ACCEPT = {"accept": "application/json, text/event-stream", "content-type": "application/json"}


@pytest.fixture
def http_server(built_demo, tmp_path):
    """The server on a free port; yields (url, token, stderr so far)."""
    data = shutil.copytree(built_demo, tmp_path / "data")
    environment = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and k != "FLASHBACK_MCP_TOKEN"}
    process = subprocess.Popen([sys.executable, "-m", "app", "--data-dir", str(data), "mcp", "--http", "0"],
                               cwd=ROOT, env=environment, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    try:
        stderr = _read_until(process, "token ", timeout=120)
        url = re.search(r"serving (http://127\.0\.0\.1:\d+/mcp)", stderr).group(1)
        token = re.search(r"token (\S+)", stderr).group(1)
        yield url, token, stderr, data
    finally:
        process.terminate()
        out, _ = process.communicate(timeout=30)
        assert out == b"", "the HTTP server wrote on stdout"


def _read_until(process: subprocess.Popen, marker: str, timeout: float) -> str:
    """stderr up to the line holding `marker`, read from the descriptor (a text wrapper's buffer
    would hide from the selector what it already read)."""
    seen, deadline = b"", time.monotonic() + timeout
    with selectors.DefaultSelector() as selector:
        selector.register(process.stderr, selectors.EVENT_READ)
        while marker.encode() not in seen or not seen.endswith(b"\n"):
            assert time.monotonic() < deadline and process.poll() is None, f"the server did not start: {seen!r}"
            if selector.select(timeout=1):
                seen += os.read(process.stderr.fileno(), 4096)
    return seen.decode()


def test_http_needs_the_token_and_refuses_foreign_origins(http_server):
    url, token, stderr, data = http_server
    assert url.startswith("http://127.0.0.1:") and len(token) >= 40
    good = {"authorization": f"Bearer {token}", **ACCEPT}
    assert httpx.post(url, json=INITIALIZE, headers=ACCEPT).status_code == 401
    assert httpx.post(url, json=INITIALIZE, headers={**good, "authorization": f"Bearer {token}x"}).status_code == 401
    assert httpx.post(url, json=INITIALIZE, headers={**good, "origin": "http://evil.example"}).status_code == 403
    assert httpx.post(url, json=INITIALIZE, headers={**good, "origin": "http://127.0.0.1:1"}).status_code == 403
    # A rebinding attacker's page reaches 127.0.0.1 under its own host name: wrong Host, refused.
    assert httpx.post(url, json=INITIALIZE, headers={**good, "host": "evil.example"}).status_code == 421
    assert httpx.post(url, json=INITIALIZE, headers=good).status_code == 200  # the same request, ours

    async def with_the_token():
        client = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}", "Accept-Language": "ru, en;q=0.5"},
                                    timeout=120)
        async with client, streamable_http_client(url, http_client=client) as (read, write):
            async with ClientSession(read, write, client_info=Implementation(name="http-assistant", version="2")) as s:
                await s.initialize()
                tools = await s.list_tools()
                found = await s.call_tool("search_memory", {"query": "hotel in Lisbon"})
                refused = await s.call_tool("search_memory", {})
                return tools, found, refused
    tools, found, refused = asyncio.run(with_the_token())
    assert len(tools.tools) == 7 and found.structured_content["selected"]
    assert refused.is_error and refused.content[0].text == "Нужен аргумент query."  # Accept-Language: ru

    from engine.api import Flashback

    assert Flashback(data).runs.get(found.structured_content["run_id"]).client == "http-assistant"
    log = (data / "logs" / "flashback.log").read_text()
    assert token not in log and "refused a request from origin 'http://evil.example'" in log
