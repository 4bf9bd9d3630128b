"""The Flash reranker as the service hands it out: one HTTP client per run.

`httpx.AsyncClient` belongs to the event loop it first ran on. The CLI runs each rerank
in its own `asyncio.run` (one loop per query in `eval`), while the window keeps one qasync
loop; a client per run is right for both and costs one TCP/TLS handshake, small next to an
LLM call. What an endpoint accepts (forced tool_choice, response_format, the reply bound's
name) and which Flash protocol it needs is remembered across runs in one
`CapabilityMemory`: the process-wide one, or the caller's (pass `capabilities=`, e.g. one
backed by a JSON file in the data folder so the CLI remembers between processes).

    session = FlashSession(endpoint, FlashSettings(), connect, recent_messages="Kim: the lease…")
    rewrite = await session.arewrite(query)        # step 1: stage 1 searches both queries
    result = await session.arerank(query, candidates, rewrite)
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable

from engine.facts.records import Profile
from engine.facts.store import known_profile, profile_budget
from engine.llm import CapabilityMemory, ChatClient, Endpoint
from engine.rerank.base import Candidate, Reranker, RerankResult
from engine.rerank.flash import FlashReranker, FlashSettings, QueryRewrite, rewrite_query, store_topic_source
from engine.rerank.threshold import ThresholdSettings

_CAPABILITIES = CapabilityMemory()  # per process: what each endpoint was found to accept


class FlashSession(Reranker):
    name = "flash"
    reads = ("topic", "person", "artifact")  # unbuilt messages are cut by the threshold (the pipeline)

    def __init__(self, endpoint: Endpoint, settings: FlashSettings,
                 connection_factory: Callable[[], sqlite3.Connection], recent_messages: str = "",
                 client_options: dict | None = None, threshold: ThresholdSettings | None = None,
                 profile: bool = True) -> None:
        """`profile`: give turn 1 the owner's key facts when the store has any (issue 33);
        False: the prompt without them (evaluation: with and without the profile)."""
        self.endpoint = endpoint
        self._connect = connection_factory
        self.use_profile = profile
        self.settings = settings  # recorded with the run (never the key)
        self.recent_messages = recent_messages
        self.threshold = threshold  # the person's threshold filter, which a fallback keeps to
        self._topics = store_topic_source(connection_factory)
        self._client_options = {"capabilities": _CAPABILITIES, **(client_options or {})}

    @property
    def api_key(self) -> str | None:  # type: ignore[override]  # Reranker declares a plain attribute; never stored here
        """For scrubbing traces; never stored."""
        return self.endpoint.api_key

    def _read_profile(self) -> Profile | None:
        """The owner's key facts, read per run (the person may have edited them meanwhile),
        within their share of turn 1's budget."""
        connection = self._connect()
        try:
            return known_profile(connection, profile_budget(
                self.settings.resolved(self.endpoint.is_local).prompt_budget_tokens))
        finally:
            connection.close()

    def _client(self) -> ChatClient:
        return ChatClient(self.endpoint, **self._client_options)

    async def arewrite(self, query: str) -> QueryRewrite | None:
        """The contextualized query (seed 000 step 1), or None when it is off or there is
        nothing to restate it with; a failed call is a QueryRewrite with the reason."""
        settings = self.settings.resolved(self.endpoint.is_local)
        if not settings.contextualize_query or not self.recent_messages.strip():
            return None
        async with self._client() as client:
            return await rewrite_query(client, query, self.recent_messages, timeout=settings.rewrite_timeout,
                                       max_tokens=settings.max_tokens_rewrite, model=settings.model,
                                       language=settings.prompt_language)

    async def arerank(self, query: str, candidates: list[Candidate],
                      rewrite: QueryRewrite | None = None) -> RerankResult:
        profile = await asyncio.to_thread(self._read_profile) if self.use_profile else None
        async with self._client() as client:
            reranker = FlashReranker(client, self._topics, self.settings, recent_messages=self.recent_messages,
                                     threshold=self.threshold, profile=profile)
            return await reranker.arerank(query, candidates, rewrite)
