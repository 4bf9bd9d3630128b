"""`Flashback`: the one object a face holds. It owns nothing but its sub-services, one per
concern, each taking and returning dataclasses (`engine.api` re-exports them all):

    store       counts, who writes, what changed (ChangeToken → Changes)
    imports     chat exports in
    memory      build, check, status, the embedder in use
    search      stage 1, rerankers, recording runs, the packed context
    runs        run history
    browse      chats, topics, people, one topic in full
    people      who the account owner ("you") is across imports
    labels      relevance labels
    evaluation  figures on judgements
    ask         a question answered with numbered citations (plan → … → verify)
    facts       what is known of the owner and the people (issue 33), the profile, extraction

Methods are blocking and thread-safe (run them off the GUI thread; coroutines are marked);
each opens its own SQLite connection, so searches read while a build writes (WAL)."""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from engine.api.context import StoreContext
from engine.embeddings.base import EmbeddingConfig
from engine.store.database import open_store

if TYPE_CHECKING:
    from engine.api.ask import AskService
    from engine.api.evaluation import EvaluationService
    from engine.api.facts import FactsService
    from engine.api.memory import MemoryService
    from engine.api.people import PeopleService
    from engine.api.search import SearchService
    from engine.api.store import ImportService, StoreService
    from engine.api.views import BrowseService, LabelService, RunService


class Flashback:
    """Each sub-service (and the part of the engine behind it) is made on first use: a
    `flashback search` imports no importer, Ask flow or evaluation (issue 26: a cold search
    spent 0.66 s importing what it never ran)."""

    def __init__(self, data_dir: Path, embedding: EmbeddingConfig | None = None, *, origin: str = "") -> None:
        """`origin` ("window", "command", "mcp") is what other processes are told while this one writes."""
        open_store(Path(data_dir))  # fail early (and clearly) on an unusable store
        self._context = StoreContext(Path(data_dir), embedding, origin)

    @cached_property
    def store(self) -> StoreService:
        from engine.api.store import StoreService

        return StoreService(self._context)

    @cached_property
    def imports(self) -> ImportService:
        from engine.api.store import ImportService

        return ImportService(self._context)

    @cached_property
    def memory(self) -> MemoryService:
        from engine.api.memory import MemoryService

        return MemoryService(self._context)

    @cached_property
    def search(self) -> SearchService:
        from engine.api.search import SearchService

        return SearchService(self._context)

    @cached_property
    def runs(self) -> RunService:
        from engine.api.views import RunService

        return RunService(self._context)

    @cached_property
    def browse(self) -> BrowseService:
        from engine.api.views import BrowseService

        return BrowseService(self._context)

    @cached_property
    def people(self) -> PeopleService:
        from engine.api.people import PeopleService

        return PeopleService(self._context)

    @cached_property
    def labels(self) -> LabelService:
        from engine.api.views import LabelService

        return LabelService(self._context)

    @cached_property
    def evaluation(self) -> EvaluationService:
        from engine.api.evaluation import EvaluationService

        return EvaluationService(self._context, self.search)

    @cached_property
    def ask(self) -> AskService:
        from engine.api.ask import AskService

        return AskService(self._context, self.search)

    @cached_property
    def facts(self) -> FactsService:
        from engine.api.facts import FactsService

        return FactsService(self._context)

    @property
    def data_dir(self) -> Path:
        return self._context.data_dir

    @property
    def origin(self) -> str:
        return self._context.origin

    def __repr__(self) -> str:
        return f"Flashback({str(self.data_dir)!r}, origin={self.origin!r})"
