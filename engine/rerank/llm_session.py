"""The Flash reranker as the service hands it out: one HTTP client per run.

`httpx.AsyncClient` belongs to the event loop it first ran on. The CLI runs each rerank
in its own `asyncio.run` (one loop per query in `eval`), while the window keeps one qasync
loop; a client per run is right for both and costs one TCP/TLS handshake, small next to an
LLM call. What an endpoint accepts (forced tool_choice, response_format, reasoning) is
remembered across runs in one shared `CapabilityMemory`, so a degraded server is not
re-probed every time.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from engine.llm import CapabilityMemory, ChatClient, Endpoint
from engine.rerank.base import Candidate, Reranker, RerankResult
from engine.rerank.flash import FlashReranker, FlashSettings, store_topic_source

_CAPABILITIES = CapabilityMemory()  # per process: what each endpoint was found to accept


class FlashSession(Reranker):
    name = "flash"

    def __init__(self, endpoint: Endpoint, settings: FlashSettings,
                 connection_factory: Callable[[], sqlite3.Connection], recent_messages: str = "",
                 client_options: dict | None = None) -> None:
        self.endpoint = endpoint
        self.settings = settings  # recorded with the run (never the key)
        self.recent_messages = recent_messages
        self._topics = store_topic_source(connection_factory)
        self._client_options = client_options or {}

    @property
    def api_key(self) -> str | None:
        """For scrubbing traces; never stored."""
        return self.endpoint.api_key

    async def arerank(self, query: str, candidates: list[Candidate]) -> RerankResult:
        async with ChatClient(self.endpoint, capabilities=_CAPABILITIES, **self._client_options) as client:
            reranker = FlashReranker(client, self._topics, self.settings, recent_messages=self.recent_messages)
            return await reranker.arerank(query, candidates)
