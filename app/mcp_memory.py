"""What the MCP tools do, over one `engine.api.Flashback`: read-only (never an import or a build;
a store that is not built is a tool error saying how to build it), with the window's saved
settings, every search recorded in Run history under the client's name.

Each method takes the caller's language and client name and raises `ToolError` with one
sentence in that language; engine errors arrive as message codes and are rendered here."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import assert_never

from mcp.server.mcpserver.exceptions import ToolError

from app import mcp_models as out
from app.keys import KeyStore, api_key_for
from app.mcp_settings import SavedSettings, SettingsWatcher
from app.mcp_words import said, say
from engine.api import (
    AskSettings,
    ChangeToken,
    CrossEncoderReport,
    EmbeddingConfig,
    EngineError,
    FactInfo,
    Flashback,
    FlashReport,
    SearchRequest,
    SearchResult,
    clean_query,
    day_bounds,
    make_reranker,
)

log = logging.getLogger(__name__)
MESSAGE_CHARS = 4000  # a message longer than this is cut in get_topic (truncated: true)
# A query or question is cut to this (a note says so): a search question is a sentence or a
# paragraph; past that, more words only cost time (each is stemmed, embedded, looked up) and a
# page pasted as a query finds nothing a paragraph of it would not (issue 35).
QUERY_CHARS = 2000
QUERY_WORDS = 200


def cut_query(text: str) -> tuple[str, bool]:
    """`text`'s first `QUERY_CHARS` characters and at most `QUERY_WORDS` words of them, and whether
    anything was cut."""
    cut = len(text) > QUERY_CHARS
    text = text[:QUERY_CHARS]
    words = text.split()
    if len(words) > QUERY_WORDS:
        return " ".join(words[:QUERY_WORDS]), True
    return text, cut


def _day(epoch: float | None) -> str | None:
    return datetime.fromtimestamp(epoch, UTC).date().isoformat() if epoch else None


def _time(epoch: float | None) -> str | None:
    return datetime.fromtimestamp(epoch, UTC).isoformat(timespec="seconds") if epoch else None


class MemoryTools:
    def __init__(self, data_dir: Path, settings: SettingsWatcher, keys: KeyStore | None = None) -> None:
        self.service = Flashback(data_dir, origin="mcp")
        self.settings = settings
        self.keys = keys or KeyStore()
        self._token: ChangeToken | None = None
        self._follow_the_store()

    # -- the store ------------------------------------------------------------------------
    def _follow_the_store(self) -> None:
        """Search with the embedder the store was built with (as `flashback search` does)."""
        built = self.service.memory.built_embedding()
        provider = built.provider if built is not None else "builtin"
        config = EmbeddingConfig(provider=provider, model=built.model if built else "",
                                 dimensions=built.dimensions if built else None, api_key=api_key_for(provider))
        current = self.service.memory.embedding
        if (current.provider, current.model, current.dimensions) != (config.provider, config.model, config.dimensions):
            self.service.memory.use_embedding(config)

    def _ready(self, language: str) -> list[str]:
        """Notes for a search of what is built, or ToolError saying how to build it."""
        changes, self._token = self.service.store.changes_since(self._token)
        if changes.vectors:  # another process built: its embedder, its indexes
            self._follow_the_store()
        status = self.service.memory.status()
        if not status.messages:
            raise ToolError(say("no_messages", language))
        if status.index_lost or status.vectors == 0:
            # A build that re-embeds (the built-in embedder refitted to new messages) leaves no
            # finished vectors until it is done: "not built" would send the person to build again.
            writer = self.service.store.writer()
            if writer is not None and writer.operation == "build":
                raise ToolError(say("building", language, who=writer.message()))
        if status.index_lost:
            raise ToolError(say("index_lost", language))
        if status.vectors == 0:
            raise ToolError(say("other_embedder" if status.other_vectors else "not_built", language))
        return []  # messages imported since the last build: the search's own note says how many it found

    # -- arguments ------------------------------------------------------------------------
    @staticmethod
    def _cut_note(cut: bool, key: str, language: str) -> list[str]:
        return [say(key, language, chars=QUERY_CHARS, words=QUERY_WORDS)] if cut else []

    def _filters(self, since: str | None, until: str | None, chat: str | None,
                 language: str) -> tuple[tuple[int, ...], float | None, float | None]:
        bounds = []
        for name, value, side in (("since", since, 0), ("until", until, 1)):
            try:
                bounds.append(day_bounds(value, value)[side] if value else None)
            except ValueError:
                raise ToolError(say("bad_day", language, name=name, value=value)) from None
        if bounds[0] is not None and bounds[1] is not None and bounds[0] > bounds[1]:
            raise ToolError(say("since_after_until", language, since=since, until=until))
        return (self._chat(chat, language),) if chat else (), bounds[0], bounds[1]

    def _chat(self, value: str, language: str) -> int:
        """A chat by id or name: exact, case-insensitive, a unique prefix, a unique substring."""
        chats = self.service.browse.chats()
        wanted = value.strip()
        if wanted.isdigit() and int(wanted) in {c.id for c in chats}:
            return int(wanted)
        folded = wanted.casefold()
        for rule in (lambda c: c.name == wanted, lambda c: c.name.casefold() == folded,
                     lambda c: c.name.casefold().startswith(folded), lambda c: folded in c.name.casefold()):
            found = [c for c in chats if wanted and rule(c)]
            if len(found) == 1:
                return found[0].id
            if found:
                listed = "; ".join(f"{c.id} {c.name}" for c in found[:8])
                raise ToolError(say("chat_many", language, value=value, count=len(found), listed=listed))
        raise ToolError(say("chat_none", language, value=value))

    def _flash(self, saved: SavedSettings, language: str):
        key = self.keys.get(saved.preset)
        if saved.needs_key() and not key:
            raise ToolError(say("missing_key", language, provider=saved.preset))
        if not saved.endpoint(key).default_model:
            raise ToolError(say("no_model", language, provider=saved.preset))
        # A fallback keeps what the window's threshold settings keep (issue 23).
        return self.service.search.flash_reranker(saved.endpoint(key), saved.flash_settings(),
                                                  threshold=saved.threshold_settings())

    def _cross_encoder(self, saved: SavedSettings, language: str):
        """The cross-encoder of the window's Settings → Cross-encoder (people and files cut by the
        threshold settings, as `flashback search --reranker cross-encoder` does)."""
        if saved.rerank_preset == "custom" and not saved.rerank_url.strip():
            raise ToolError(say("no_rerank_url", language))
        name = saved.rerank_key_name()
        key = self.keys.get(name) if name else None
        if saved.rerank_needs_key() and not key:
            raise ToolError(say("missing_key", language, provider=name))
        return self.service.search.cross_encoder_reranker(saved.rerank_endpoint(key), saved.cross_encoder_settings(),
                                                          saved.threshold_settings())

    def _reranker(self, name: str, saved: SavedSettings, language: str):
        if name == "flash":
            return self._flash(saved, language)
        if name == "cross-encoder":
            return self._cross_encoder(saved, language)
        return make_reranker(name, saved.threshold_settings())

    # -- the tools ------------------------------------------------------------------------
    async def search(self, query: str, since: str | None, until: str | None, chat: str | None, reranker: str,
                     limit: int, include_candidates: bool, language: str, client: str) -> out.SearchResult:
        started = time.perf_counter()
        with plainly(language):
            query, cut = cut_query(query)
            query = clean_query(query)
            saved = self.settings.current()
            notes = await asyncio.to_thread(self._ready, language) + self._cut_note(cut, "query_cut", language)
            retrieval = saved.retrieval(*await asyncio.to_thread(self._filters, since, until, chat, language))
            request = SearchRequest(query, retrieval, self._reranker(reranker, saved, language),
                                    threshold=saved.threshold_settings(), record=True, client=client)
            outcome = await self.service.search.search(request)
            items = await asyncio.to_thread(self._items, outcome, limit, language)
        kept = {(s.kind, s.id) for s in outcome.result.selected}
        candidates = [out.CandidateItem(id=c.id, kind=c.kind, chat=c.chat, date=c.date, score=round(c.score, 4),
                                        summary=c.summary, selected=(c.kind, c.id) in kept)
                      for c in outcome.stage1.candidates] if include_candidates else None
        result = outcome.result
        report = outcome.report
        why = report.error or report.note if isinstance(report, FlashReport | CrossEncoderReport) else None
        problem = why if result.fallback else None
        return out.SearchResult(
            query=query, reranker=result.reranker, selected=items, candidates=candidates, fallback=result.fallback,
            run_id=outcome.run_id, notes=notes + [said(n, language) for n in [*outcome.notes, problem] if n],
            ms=round((time.perf_counter() - started) * 1000, 1))

    def _items(self, outcome: SearchResult, limit: int, language: str) -> list[out.Item]:
        by_key = {(c.kind, c.id): c for c in outcome.stage1.candidates}
        items = []
        for selection in outcome.result.selected[:limit]:
            candidate = by_key.get((selection.kind, selection.id))
            first = last = candidate.date if candidate else None
            kind = selection.kind
            if kind == "topic":
                info = self.service.browse.topic_detail(selection.id).info
                first, last = _day(info.first_at), _day(info.last_at)
            elif kind == "person":
                first = None
            elif kind == "artifact" or kind == "message":
                pass  # one day: the file's or the message's
            else:
                assert_never(kind)
            items.append(out.Item(id=selection.id, kind=selection.kind, chat=candidate.chat if candidate else None,
                                  first_date=first, last_date=last,
                                  score=round(candidate.score, 4) if candidate else 0.0,
                                  reason=selection.reason_in(language),
                                  summary=candidate.summary if candidate else ""))
        return items

    async def context(self, query: str, budget_tokens: int | None, language: str, client: str) -> out.ContextResult:
        from engine.api import to_markdown

        with plainly(language):
            query, cut = cut_query(query)
            query = clean_query(query)
            saved = self.settings.current()
            budget = budget_tokens or saved.budget_tokens
            notes = await asyncio.to_thread(self._ready, language) + self._cut_note(cut, "query_cut", language)
            threshold = saved.threshold_settings()
            request = SearchRequest(query, saved.retrieval(), make_reranker("threshold", threshold),
                                    threshold=threshold, record=True, client=client)
            outcome = await self.service.search.search(request)
            pack = await asyncio.to_thread(self.service.search.context, outcome, budget)
        return out.ContextResult(query=query, markdown=to_markdown(pack), items=len(pack.items),
                                 used_tokens=pack.used_tokens, budget_tokens=pack.budget_tokens, run_id=outcome.run_id,
                                 notes=notes + [said(n, language) for n in outcome.notes])

    def topic(self, topic_id: int, offset: int, limit: int, language: str) -> out.TopicResult:
        with plainly(language):
            detail = self.service.browse.topic_detail(topic_id)
        total = len(detail.messages)
        if offset and offset >= total:
            raise ToolError(say("offset_past_end", language, offset=offset, total=total))
        page = detail.messages[offset:offset + limit]
        end = offset + len(page)
        return out.TopicResult(
            id=detail.info.id, chat=detail.info.chat, summary=detail.info.summary,
            first_time=_time(detail.info.first_at), last_time=_time(detail.info.last_at), total_messages=total,
            offset=offset, next_offset=end if end < total else None,
            messages=[out.MessageItem(id=m.id, author=m.author, time=_time(m.sent_at) or "",
                                      text=m.text[:MESSAGE_CHARS], truncated=len(m.text) > MESSAGE_CHARS)
                      for m in page])

    def chats(self, language: str) -> out.ChatsResult:
        with plainly(language):
            chats = self.service.browse.chats()
            formats = self.service.browse.chat_formats()
        return out.ChatsResult(
            chats=[out.ChatItem(id=c.id, name=c.name, kind=c.kind, format=formats.get(c.id, ""), messages=c.messages,
                                topics=c.topics, first_date=_day(c.first_at), last_date=_day(c.last_at))
                   for c in chats],
            notes=[] if chats else [say("empty_store_chats", language)])

    async def ask(self, question: str, since: str | None, until: str | None, chat: str | None,
                  language: str, client: str) -> out.AskResult:
        started = time.perf_counter()
        with plainly(language):
            question, cut = cut_query(question)
            question = clean_query(question)
            saved = self.settings.current()
            notes = await asyncio.to_thread(self._ready, language) + self._cut_note(cut, "question_cut", language)
            retrieval = saved.retrieval(*await asyncio.to_thread(self._filters, since, until, chat, language))
            key = self.keys.get(saved.preset)
            endpoint = saved.endpoint(key) if key or not saved.needs_key() else None
            if endpoint is None:
                notes.append(say("missing_key", language, provider=saved.preset))
            outcome = await self.service.ask.ask(
                question, make_reranker("threshold", saved.threshold_settings()), endpoint=endpoint,
                settings=AskSettings(retrieval=retrieval), client_name=client)
        answer = outcome.answer
        sources = [out.SourceItem(number=s.number, topic_id=s.topic_id, chat=s.chat, authors=s.authors,
                                  first_time=_time(s.first_at) or "", last_time=_time(s.last_at) or "",
                                  message_ids=s.message_ids, text=s.text) for s in outcome.sources]
        claims = [out.ClaimItem(text=c.text, citations=c.citations, verified=c.supported, support=round(c.support, 3),
                                note=c.note) for c in (answer.claims if answer else [])]
        quotes = [out.QuoteItem(source=q.source, message_id=q.message_id, author=q.author,
                                time=_time(q.sent_at) or "", text=q.text,
                                answer_words=[q.text[a:b] for a, b in q.highlights]) for q in outcome.quotes]
        return out.AskResult(question=question, answer=answer.text if answer else None, quotes=quotes,
                             not_found=bool(answer and answer.not_found), sources=sources, claims=claims,
                             model=outcome.model, fallback=outcome.fallback, run_id=outcome.run_id,
                             notes=notes + [said(n, language) for n in outcome.notes],
                             ms=round((time.perf_counter() - started) * 1000, 1))

    # -- what is known (issue 33) ------------------------------------------------------------
    def profile(self, token_budget: int, language: str) -> out.ProfileResult:
        with plainly(language):
            profile = self.service.facts.profile(token_budget)
            facts = [self.service.facts.get(fact_id) for fact_id in profile.fact_ids]
            owner = self.service.people.owner()
        notes = [] if profile.text else [say("profile_empty", language)]
        return out.ProfileResult(owner=owner.name or "", text=profile.text, tokens=profile.tokens,
                                 facts=[_fact_item(f) for f in facts], notes=notes)

    def search_facts(self, query: str, person: str | None, limit: int, language: str) -> out.FactsResult:
        with plainly(language):
            matches = self.service.people.search_facts(query, person, limit)
        notes = [] if matches else [say("facts_none", language)]
        return out.FactsResult(query=query, facts=[_fact_item(m.fact, m.score) for m in matches], notes=notes)


def _fact_item(fact: FactInfo, score: float | None = None) -> out.FactItem:
    return out.FactItem(id=fact.id, about=fact.person_name or ("you" if fact.person_id is None else ""),
                        person_id=fact.person_id, text=fact.text, category=fact.category, kind=fact.kind,
                        type=fact.type, importance=fact.importance, pinned=fact.pinned, origin=fact.origin,
                        valid_until=_day(fact.valid_until), message_ids=list(fact.message_ids),
                        topic_id=fact.topic_id, score=score)


@contextmanager
def plainly(language: str) -> Iterator[None]:
    """An engine error (a bad store, an empty query, a setting out of range) as one sentence."""
    try:
        yield
    except EngineError as exc:
        raise ToolError(said(exc.message, language)) from exc
