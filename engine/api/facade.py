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

Methods are blocking and thread-safe (run them off the GUI thread; coroutines are marked);
each opens its own SQLite connection, so searches read while a build writes (WAL)."""

from __future__ import annotations

from pathlib import Path

from engine.api.ask import AskService
from engine.api.context import StoreContext
from engine.api.evaluation import EvaluationService
from engine.api.memory import MemoryService
from engine.api.people import PeopleService
from engine.api.search import SearchService
from engine.api.store import ImportService, StoreService
from engine.api.views import BrowseService, LabelService, RunService
from engine.embeddings.base import EmbeddingConfig
from engine.store.database import open_store


class Flashback:
    def __init__(self, data_dir: Path, embedding: EmbeddingConfig | None = None, *, origin: str = "") -> None:
        """`origin` ("window", "command", "mcp") is what other processes are told while this one writes."""
        open_store(Path(data_dir))  # fail early (and clearly) on an unusable store
        self._context = StoreContext(Path(data_dir), embedding, origin)
        self.store = StoreService(self._context)
        self.imports = ImportService(self._context)
        self.memory = MemoryService(self._context)
        self.search = SearchService(self._context)
        self.runs = RunService(self._context)
        self.browse = BrowseService(self._context)
        self.people = PeopleService(self._context)
        self.labels = LabelService(self._context)
        self.evaluation = EvaluationService(self._context, self.search)
        self.ask = AskService(self._context, self.search)

    @property
    def data_dir(self) -> Path:
        return self._context.data_dir

    @property
    def origin(self) -> str:
        return self._context.origin

    def __repr__(self) -> str:
        return f"Flashback({str(self.data_dir)!r}, origin={self.origin!r})"
