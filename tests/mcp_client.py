"""Driving `flashback mcp` as an assistant does: the official SDK's client over stdio, a real
child process (`python -m app --data-dir X mcp`), and the window's settings file written the
way QSettings writes it. Shared by tests/test_mcp*.py and bench/mcp_latency.py."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp_types import Implementation

ROOT = Path(__file__).resolve().parents[1]
CLIENT = "flashback-test-assistant"


@asynccontextmanager
async def connected(data_dir: Path, errlog: Path, env: dict[str, str] | None = None,
                    name: str = CLIENT) -> AsyncIterator[ClientSession]:
    """An initialized session with the server on `data_dir`; its stderr goes to `errlog`."""
    params = StdioServerParameters(command=sys.executable, args=["-m", "app", "--data-dir", str(data_dir), "mcp"],
                                   cwd=str(ROOT), env=dict(env or {}))
    with errlog.open("a", encoding="utf-8") as stderr:
        async with stdio_client(params, errlog=stderr) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=180,
                                     client_info=Implementation(name=name, version="1.0")) as session:
                await session.initialize()
                yield session


def session_run(data_dir: Path, errlog: Path, work, env: dict[str, str] | None = None, name: str = CLIENT):
    """`await work(session)` on a fresh server, from synchronous test code."""
    async def go():
        async with connected(data_dir, errlog, env, name) as session:
            return await work(session)
    return asyncio.run(go())


def structured(result) -> dict[str, Any]:
    assert not result.is_error, result.content[0].text
    return result.structured_content


def error_text(result) -> str:
    assert result.is_error, json.dumps(result.structured_content)[:300]
    return result.content[0].text


def tools_as_seen(tools) -> list[dict[str, Any]]:
    """`tools/list` as a client receives it (the wire's camelCase names), for docs/mcp.md."""
    return [tool.model_dump(by_alias=True, exclude_none=True, mode="json") for tool in tools]


def documented_tools() -> list[dict[str, Any]]:
    """The JSON block docs/mcp.md shows after its `<!-- tools.json -->` marker."""
    text = (ROOT / "docs" / "mcp.md").read_text(encoding="utf-8")
    block = text.split("<!-- tools.json -->", 1)[1].split("```json\n", 1)[1].split("\n```", 1)[0]
    return json.loads(block)


def write_window_settings(data_dir: Path, values: dict[str, str]) -> Path:
    """The window's settings file for a named data folder, as QSettings writes it (app/gui.py)."""
    path = data_dir / "Flashback" / "Flashback.ini"
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = ["[General]", "language=en", "", "[search]", *(f"{key}={value}" for key, value in values.items())]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


if __name__ == "__main__":  # python -m tests.mcp_client DATA_DIR: the block docs/mcp.md shows
    async def _list(session):
        return (await session.list_tools()).tools
    listed = session_run(Path(sys.argv[1]), Path(sys.argv[1]) / "mcp-stderr.log", _list)
    print(json.dumps(tools_as_seen(listed), indent=1, ensure_ascii=False))
