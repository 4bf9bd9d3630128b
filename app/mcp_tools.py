"""The tools `flashback mcp` offers, as an assistant sees them: names, documented and typed
parameters (ranges from the engine's settings schema), structured results (app/mcp_models.py).

Each tool reads the caller's language (Accept-Language over HTTP, FLASHBACK_LANG otherwise)
and name (`clientInfo.name` from the MCP initialize request, kept with every recorded run)
from the request context, and hands the work to `MemoryTools`."""

# No `from __future__ import annotations`: the SDK reads these signatures at registration.
import asyncio
import logging
import time
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import ToolAnnotations
from pydantic import Field

from app import mcp_models as out
from app.mcp_memory import QUERY_CHARS, QUERY_WORDS, MemoryTools
from app.mcp_words import environment_language, from_accept_language
from engine.api import SETTINGS

log = logging.getLogger(__name__)
READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=False, open_world_hint=False)
_BUDGET = SETTINGS["budget_tokens"]

# The largest id SQLite stores (a signed 64-bit integer): a bigger one reached SQLite as an
# OverflowError, "an unexpected error" with a traceback (issue 35).
LARGEST_ID = 2**63 - 1
DAY_CHARS = 40  # a day is 10 characters; room for spaces, never for a page
CHAT_CHARS = 200  # a chat's id or (part of) its name

# Not max_length: a long query is cut, with a note, rather than refused (app/mcp_memory.py).
Query = Annotated[str, Field(description="what to look for, in any words and in the chats' languages (its first "
                                         f"{QUERY_WORDS} words and {QUERY_CHARS:,} characters are searched)")]
Since = Annotated[str | None, Field(max_length=DAY_CHARS,
                                    description="only what was said on or after this day, YYYY-MM-DD (UTC)")]
Until = Annotated[str | None, Field(max_length=DAY_CHARS,
                                    description="only what was said on or before this day, YYYY-MM-DD (UTC)")]
Chat = Annotated[str | None, Field(max_length=CHAT_CHARS,
                                   description="only this chat: its id or (part of) its name, see list_chats")]


def language_of(ctx: Context | None) -> str:
    """The client's language: Accept-Language on HTTP, else FLASHBACK_LANG, else English."""
    try:
        request = ctx.request_context.request if ctx is not None else None
    except ValueError:  # no request context (a direct call)
        request = None
    headers = getattr(request, "headers", None)
    return (from_accept_language(headers.get("accept-language")) if headers is not None else None) \
        or environment_language()


def client_of(ctx: Context) -> str:
    """`clientInfo.name` of the MCP initialize request ("" when the client sent none)."""
    try:
        params = ctx.request_context.session.client_params
    except ValueError:
        return ""
    info = params.client_info if params is not None else None
    return (info.name if info is not None else "") or ""


class _Timed:
    """One log line per call: tool, client, outcome and time (never the arguments: they are the person's)."""

    def __init__(self, tool: str, ctx: Context) -> None:
        self.tool, self.client, self.started = tool, client_of(ctx), time.perf_counter()

    def __enter__(self) -> "_Timed":
        return self

    def __exit__(self, kind: Any, *_: Any) -> None:
        log.info("%s for %s: %s in %.0f ms", self.tool, self.client or "a client without a name",
                 "failed" if kind else "done", (time.perf_counter() - self.started) * 1000)


def _paragraph(doc: str | None) -> str:
    """A docstring as one paragraph: what a client shows the model, without the source's indentation."""
    return " ".join((doc or "").split())


def register(server: MCPServer, memory: MemoryTools) -> None:
    async def search_memory(
        query: Query, ctx: Context, since: Since = None, until: Until = None, chat: Chat = None,
        reranker: Annotated[Literal["threshold", "flash", "cross-encoder", "none"], Field(
            description="threshold: the person's tuned similarity threshold, gap and top-K (free, instant); "
                        "flash: an LLM reads the candidates and keeps what answers the query (the endpoint and "
                        "model chosen in Flashback's window; costs a call); cross-encoder: the rerank server "
                        "chosen in the window scores each candidate against the query; none: stage 1's "
                        "ranking")] = "threshold",
        limit: Annotated[int, Field(ge=1, le=50, description="at most this many selected items")] = 10,
        include_candidates: Annotated[bool, Field(description="also return every stage-1 candidate")] = False,
    ) -> out.SearchResult:
        """Search the person's own chat history (Telegram, WhatsApp, ChatGPT exports) for the topics, people
        and files a query is about. Returns the selected items with why each was kept; read a topic's
        messages with get_topic. Recorded in Flashback's Run history."""
        with _Timed("search_memory", ctx) as call:
            return await memory.search(query, since, until, chat, reranker, limit, include_candidates,
                                       language_of(ctx), call.client)

    async def get_topic(
        id: Annotated[int, Field(ge=1, le=LARGEST_ID, description="a topic id from search_memory")], ctx: Context,
        offset: Annotated[int, Field(ge=0, le=LARGEST_ID,
                                     description="messages to skip (next_offset of the previous page)")] = 0,
        limit: Annotated[int, Field(ge=1, le=200, description="messages per page")] = 50,
    ) -> out.TopicResult:
        """One topic's messages in order (author, time, text), a page at a time; a message longer than
        4,000 characters is cut (truncated: true)."""
        with _Timed("get_topic", ctx):
            return await asyncio.to_thread(memory.topic, id, offset, limit, language_of(ctx))

    async def get_context(
        query: Query, ctx: Context,
        budget_tokens: Annotated[int | None, Field(
            ge=int(_BUDGET.minimum), le=int(_BUDGET.maximum),
            description="the most tokens the context may take (default: the budget saved in Flashback)")] = None,
    ) -> out.ContextResult:
        """Search with the person's threshold settings and return the selected topics, people and files
        packed into a token budget as Markdown: what Flashback's "Export selected context" writes."""
        with _Timed("get_context", ctx) as call:
            return await memory.context(query, budget_tokens, language_of(ctx), call.client)

    async def list_chats(ctx: Context) -> out.ChatsResult:
        """The imported chats with their ids, message and topic counts and date ranges (for `chat`)."""
        with _Timed("list_chats", ctx):
            return await asyncio.to_thread(memory.chats, language_of(ctx))

    async def ask_memory(question: Annotated[str, Field(description="a question about what was said in the chats "
                                                                    f"(at most {QUERY_WORDS} words, {QUERY_CHARS:,} "
                                                                    "characters)")],
                         ctx: Context, since: Since = None, until: Until = None, chat: Chat = None) -> out.AskResult:
        """Answer a question from the person's chats with numbered sources ([n] markers in the answer) and
        each claim marked verified or not against the messages it cites. Uses the chat model chosen in
        Flashback's window; without one it returns the sentences of the sources that answer (quotes, each with
        its source, author and time) and the sources found, and says what to set."""
        with _Timed("ask_memory", ctx) as call:
            return await memory.ask(question, since, until, chat, language_of(ctx), call.client)

    async def get_profile(
        ctx: Context,
        token_budget: Annotated[int, Field(ge=100, le=8000, description="the most tokens the profile may take "
                                                                       "(Flash and Ask are given 1,500)")] = 1500,
    ) -> out.ProfileResult:
        """What is known of the person whose chats these are: their key facts (identity, important, pinned)
        and the people close to them, as the text Flashback's reranker and answers are given, with each
        fact's messages. Empty until memory is built with a chat model."""
        with _Timed("get_profile", ctx):
            return await asyncio.to_thread(memory.profile, token_budget, language_of(ctx))

    async def search_facts(
        query: Annotated[str, Field(description="words to find in facts (\"sister job\", \"allergy\"); empty: "
                                                "every fact of `person`")],
        ctx: Context,
        person: Annotated[str | None, Field(description="only facts about this person: a name or alias as the "
                                                        "chats say it, or \"you\" for the owner")] = None,
        limit: Annotated[int, Field(ge=1, le=100, description="at most this many facts")] = 20,
    ) -> out.FactsResult:
        """Search what is known of the owner and the people in their chats: facts whose text, category or
        person's names hold the query's words, best first, each with the ids of the messages that state
        it (read them with get_topic and the fact's topic_id)."""
        with _Timed("search_facts", ctx):
            return await asyncio.to_thread(memory.search_facts, query, person, limit, language_of(ctx))

    for tool in (search_memory, get_topic, get_context, list_chats, ask_memory, get_profile, search_facts):
        server.add_tool(tool, description=_paragraph(tool.__doc__), annotations=READ_ONLY)
