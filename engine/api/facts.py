"""What is known (issue 33): the Archivist's facts about the owner and the people in a
history, the owner's profile for prompts, the person's edits, and extraction.

Reads open their own connection; each change takes the store's write lock (refusing at
once when another process writes, like a relevance label) and returns the fact as it is now."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, TypeVar

from engine.api.context import StoreContext
from engine.errors import CancelToken
from engine.facts import store as facts_store
from engine.facts.people import rebuild_bio, rebuild_bios
from engine.facts.records import ExtractionEstimate, ExtractionReport, FactChangeInfo, FactInfo, Profile
from engine.store.faults import plain_faults
from engine.store.lock import StoreWriteLock, WaitCallback
from engine.store.transaction import write_transaction

if TYPE_CHECKING:
    from engine.llm import Endpoint

T = TypeVar("T")

__all__ = ["FactsService"]


class FactsService:
    def __init__(self, context: StoreContext) -> None:
        self._context = context
        self._writing = threading.Lock()  # this process's writes take turns instead of refusing each other

    # reads
    def of(self, person_id: int | None = None, states: Iterable[str] = facts_store.ACTIVE) -> list[FactInfo]:
        """The facts about one person (None: the owner, "you"), most important first."""
        wanted = tuple(states)
        return self._context.read(lambda connection: facts_store.facts_of(connection, person_id, wanted))

    def all(self, states: Iterable[str] = facts_store.ACTIVE) -> list[FactInfo]:
        wanted = tuple(states)
        return self._context.read(lambda connection: facts_store.all_facts(connection, wanted))

    def get(self, fact_id: int) -> FactInfo:
        """FactMissing when no fact has that id."""
        return self._context.read(lambda connection: facts_store.get_fact(connection, fact_id))

    def profile(self, token_budget: int = 1500) -> Profile:
        """The owner's key facts and close people as prompt text, at most `token_budget` tokens."""
        return self._context.read(lambda connection: facts_store.owner_profile(connection, token_budget))

    def history(self, fact_id: int) -> list[FactChangeInfo]:
        return self._context.read(lambda connection: facts_store.history(connection, fact_id))

    # the person's changes
    def add(self, text: str, *, person_id: int | None = None, category: str = "other", kind: str = "self",
            type: str = "context", importance: int = 3, message_ids: Sequence[int] = (),  # noqa: A002  (the schema's name)
            on_wait: WaitCallback | None = None) -> FactInfo:
        """A fact the person adds themselves (origin "person")."""
        def change(connection: sqlite3.Connection) -> FactInfo:
            fact_id = facts_store.add_fact(connection, text, person_id=person_id, category=category, kind=kind,
                                           type=type, importance=importance, message_ids=message_ids)
            return facts_store.get_fact(connection, fact_id)
        return self._write_fact(change, on_wait)

    def edit(self, fact_id: int, text: str | None = None, *, category: str | None = None,
             importance: int | None = None, type: str | None = None,  # noqa: A002  (the schema's name)
             on_wait: WaitCallback | None = None) -> FactInfo:
        return self._write_fact(lambda connection: facts_store.edit_fact(
            connection, fact_id, text, category=category, importance=importance, type=type), on_wait)

    def pin(self, fact_id: int, pinned: bool = True, on_wait: WaitCallback | None = None) -> FactInfo:
        return self._write_fact(lambda connection: facts_store.pin_fact(connection, fact_id, pinned), on_wait)

    def mark_wrong(self, fact_id: int, reason: str = "", on_wait: WaitCallback | None = None) -> FactInfo:
        return self._write_fact(lambda connection: facts_store.mark_wrong(connection, fact_id, reason), on_wait)

    def delete(self, fact_id: int, reason: str = "", on_wait: WaitCallback | None = None) -> FactInfo:
        return self._write_fact(lambda connection: facts_store.delete_fact(connection, fact_id, reason), on_wait)

    def forget(self, fact_id: int, on_wait: WaitCallback | None = None) -> None:
        """Erase the fact with its provenance and history (nothing of it stays)."""
        def change(connection: sqlite3.Connection) -> None:
            person_id = facts_store.get_fact(connection, fact_id).person_id
            facts_store.forget_fact(connection, fact_id)
            rebuild_bio(connection, person_id)
        self._write(change, on_wait)

    def set_person(self, person_id: int, *, aliases: Sequence[str] | None = None, circle: str | None = None,
                   bio: str | None = None, on_wait: WaitCallback | None = None) -> None:
        """Aliases, circle (family, friends, work, other) or bio of a person, as the person sets them.
        A bio they write outranks the one rebuilt from facts; an empty one hands it back to the facts."""
        def change(connection: sqlite3.Connection) -> None:
            facts_store.set_person(connection, person_id, aliases=aliases, circle=circle, bio=bio, by_person=True)
            if bio is not None and not bio.strip():
                rebuild_bio(connection, person_id)
        self._write(change, on_wait)

    # extraction
    def estimate(self, endpoint: Endpoint | None = None,
                 price_per_token: tuple[float, float] | None = None) -> ExtractionEstimate:
        """What reading every unread topic would send and get back, before a run: tokens, and
        dollars when `price_per_token` (prompt, completion) is given (a local server: 0)."""
        from engine.facts.extract import estimate

        local = endpoint is not None and endpoint.is_local
        return self._context.read(lambda connection: estimate(connection, local, price_per_token))

    def extract(self, endpoint: Endpoint | None, *, on_progress: Callable[[int, int], None] | None = None,
                cancel: CancelToken | None = None, budget_tokens: int | None = None, timeout: float | None = None,
                on_wait: WaitCallback | None = None) -> ExtractionReport:
        """Seed 004's last stage: every topic not yet read, read once by the chat model at
        `endpoint` (blocking: run it in a worker). Without a model nothing is read or invented
        (`stopped` "no_model"). Resumable: each topic is marked read with its facts."""
        from engine.facts.extract import bounds_for, run
        from engine.facts.model import DEFAULT_TIMEOUT_S, ArchivistModel

        if endpoint is None:
            return ExtractionReport(stopped="no_model")
        context = self._context
        with self._writing, plain_faults(context.data_dir, "facts"), StoreWriteLock(
                context.data_dir, "facts", context.origin, on_wait), ArchivistModel(
                endpoint, timeout=timeout or DEFAULT_TIMEOUT_S) as model:
            connection = context.connect()
            try:
                report = run(connection, model, on_progress=on_progress, cancel=cancel, budget_tokens=budget_tokens,
                             bounds=bounds_for(endpoint.is_local))
                with write_transaction(connection):  # the bios follow what was read (a cancelled run's too)
                    rebuild_bios(connection)
                return report
            finally:
                connection.close()

    def _write_fact(self, change: Callable[[sqlite3.Connection], FactInfo], on_wait: WaitCallback | None) -> FactInfo:
        """A change to one fact; its person's bio is rebuilt from their facts in the same transaction."""
        def changed(connection: sqlite3.Connection) -> FactInfo:
            fact = change(connection)
            rebuild_bio(connection, fact.person_id)
            return fact
        return self._write(changed, on_wait)

    def _write(self, change: Callable[[sqlite3.Connection], T], on_wait: WaitCallback | None) -> T:
        context = self._context
        with self._writing, plain_faults(context.data_dir, "facts"), StoreWriteLock(
                context.data_dir, "facts", context.origin, on_wait):
            connection = context.connect()
            try:
                with write_transaction(connection):
                    return change(connection)
            finally:
                connection.close()
