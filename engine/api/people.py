"""Who the account owner is (issue 23): one person across every import, shown as "(you)".

Telegram, ChatGPT and a JSONL `"role": "user"` say who made the export; a WhatsApp export
does not, so its own name is given once (`flashback owner --name "Alice"`), and every
WhatsApp or JSONL chat imported afterwards that names Alice counts her as you too
(engine/importers/owner.py). A change takes the store's write lock, like an import."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import TypeVar

from engine.api.context import StoreContext
from engine.changes import Changes
from engine.errors import EngineError
from engine.facts.people import (
    CannotMerge,
    MergeReport,
    PersonSide,
    SamePerson,
    merge_people,
    refuse_same,
    same_person_pairs,
)
from engine.importers.owner import OwnerAlias, OwnerInfo, mark_owner_name, owner_info, unmark_owner_name
from engine.memory.people_activity import (
    PersonActivity,
    PersonSummary,
    PersonTopic,
    SourceMessage,
    people_list,
    person_activity,
    source_messages,
)
from engine.retrieval.facts_search import FactMatch, PersonUnknown, search_facts
from engine.store.faults import plain_faults
from engine.store.lock import StoreWriteLock, WaitCallback
from engine.store.transaction import write_transaction

__all__ = ["CannotMerge", "FactMatch", "MergeReport", "OwnerAlias", "OwnerInfo", "OwnerNameUnknown", "PeopleService",
           "PersonActivity", "PersonNotFound", "PersonSide", "PersonSummary", "PersonTopic", "SamePerson",
           "SourceMessage"]

T = TypeVar("T")

OWNER_CHANGES = Changes(messages=True)  # people's messages moved: profiles and counts change


class OwnerNameUnknown(EngineError):
    """No WhatsApp or JSONL chat has an author of that name (or none that is not you already)."""

    code = "owner.name_unknown"


class PersonNotFound(EngineError):
    """No person of that name or alias (a facts search narrowed to one person)."""

    code = "people.not_found"


class PeopleService:
    def __init__(self, context: StoreContext) -> None:
        self._context = context

    def owner(self) -> OwnerInfo:
        return self._context.read(owner_info)

    def everyone(self, limit: int = 1000) -> list[PersonSummary]:
        """The people of the store, the owner first, then by how much they wrote (no assistants)."""
        return self._context.read(lambda connection: people_list(connection, limit))

    def activity(self, person_id: int) -> PersonActivity | None:
        """One person's first and last message, messages per month, chats and topics (issue 33);
        None when there is no such person."""
        return self._context.read(lambda connection: person_activity(connection, person_id))

    def messages(self, message_ids: list[int]) -> list[SourceMessage]:
        """The messages with these ids, oldest first: a fact's sources, quoted on its card."""
        return self._context.read(lambda connection: source_messages(connection, list(message_ids)))

    def search_facts(self, query: str, person: str | None = None, limit: int = 20) -> list[FactMatch]:
        """Active facts whose text, category or person's names hold the query's words, best first,
        each with its messages; `person` (a name or alias, or "you") narrows them to one person.
        PersonNotFound when nobody has that name."""
        def run(connection: sqlite3.Connection) -> list[FactMatch]:
            try:
                return search_facts(connection, query, person=person, limit=limit)
            except PersonUnknown:
                raise PersonNotFound(name=person or "") from None
        return self._context.read(run)

    def same_person(self, person_id: int | None = None) -> list[SamePerson]:
        """Likely same-person pairs (the same name or alias on rows from different chats or
        formats) the person has not refused; only those of `person_id` when given."""
        return self._context.read(lambda connection: same_person_pairs(connection, person_id))

    def merge(self, kept_id: int, merged_id: int, on_wait: WaitCallback | None = None) -> tuple[MergeReport, Changes]:
        """The person confirmed these are one: `merged_id`'s messages, aliases, facts and their
        provenance move to `kept_id`, in one transaction, recorded in the store's merge history.
        CannotMerge for the owner or the same row twice."""
        report = self._write(lambda connection: merge_people(connection, kept_id, merged_id), on_wait)
        return report, OWNER_CHANGES

    def not_same(self, first_id: int, second_id: int, on_wait: WaitCallback | None = None) -> None:
        """The person says these two are different people: the pair is never suggested again."""
        self._write(lambda connection: refuse_same(connection, first_id, second_id), on_wait)

    def add_owner_name(self, name: str, on_wait: WaitCallback | None = None) -> tuple[OwnerInfo, Changes]:
        """The WhatsApp and JSONL people called `name` (as the export writes it) are you from now
        on, in the chats imported so far and in those imported later. OwnerNameUnknown when
        nobody of that name wrote in such a chat (or they already are you)."""
        marked = self._write(lambda connection: mark_owner_name(connection, name.strip()), on_wait)
        if not marked:
            raise OwnerNameUnknown(name=name.strip())
        return self.owner(), OWNER_CHANGES

    def remove_owner_name(self, name: str, on_wait: WaitCallback | None = None) -> tuple[OwnerInfo, Changes]:
        """Undo `add_owner_name`: the people called `name` are themselves again, with their messages."""
        if not self._write(lambda connection: unmark_owner_name(connection, name.strip()), on_wait):
            raise OwnerNameUnknown(name=name.strip())
        return self.owner(), OWNER_CHANGES

    def _write(self, change: Callable[[sqlite3.Connection], T], on_wait: WaitCallback | None) -> T:
        context = self._context
        with plain_faults(context.data_dir, "owner"), StoreWriteLock(context.data_dir, "owner", context.origin,
                                                                       on_wait):
            connection = context.connect()
            try:
                with write_transaction(connection):
                    return change(connection)
            finally:
                connection.close()
