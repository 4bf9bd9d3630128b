"""What a write changed, so each face updates only what it shows (Anki's `OpChanges`).

Every write of the facade returns one (inside its report), and the cross-process watcher
produces the same record from the store's change token, so the window reacts to its own
import and to another process's build the same way."""

from __future__ import annotations

from dataclasses import dataclass, fields


@dataclass(frozen=True)
class Changes:
    messages: bool = False  # messages (and so chats, people, files) were added or removed
    chats: bool = False
    topics: bool = False  # topics were made, merged or removed
    vectors: bool = False  # the search indexes changed: cached search state is stale
    runs: bool = False  # run history
    labels: bool = False  # relevance labels

    def __or__(self, other: Changes) -> Changes:
        return Changes(**{f.name: getattr(self, f.name) or getattr(other, f.name) for f in fields(self)})

    @property
    def any(self) -> bool:
        return any(getattr(self, f.name) for f in fields(self))

    @classmethod
    def everything(cls) -> Changes:
        return cls(**{f.name: True for f in fields(cls)})


@dataclass(frozen=True)
class ChangeToken:
    """A few primary-key reads that move whenever a write in any process changed the store."""

    newest_message: int | None
    newest_source: int | None
    newest_topic: int | None
    vector_generation: int
    newest_run: int | None
    labels: float
    # How many chats and imports: a forgotten chat or import (issue 23) need not be the newest,
    # so the newest ids alone would not move.
    chats_and_sources: str = ""

    def changes_since(self, before: ChangeToken | None) -> Changes:
        if before is None:
            return Changes.everything()
        imported = ((self.newest_message, self.newest_source, self.chats_and_sources)
                    != (before.newest_message, before.newest_source, before.chats_and_sources))
        return Changes(messages=imported, chats=imported, topics=self.newest_topic != before.newest_topic,
                       vectors=self.vector_generation != before.vector_generation,
                       runs=self.newest_run != before.newest_run, labels=self.labels != before.labels)


def read_change_token(connection) -> ChangeToken:
    row = connection.execute(
        "SELECT (SELECT max(id) FROM message), (SELECT max(id) FROM source), (SELECT max(id) FROM topic), "
        "(SELECT coalesce(sum(generation), 0) FROM vector_generation), (SELECT max(id) FROM rerank_run)").fetchone()
    # Labels are edited in place: their latest time and count say more than an id would.
    labels = connection.execute("SELECT count(*) + coalesce(max(labelled_at), 0) FROM label_message").fetchone()[0]
    counted = connection.execute("SELECT (SELECT count(*) FROM chat) || ':' || (SELECT count(*) FROM source)")
    newest_message, newest_source, newest_topic, generation, newest_run = row
    return ChangeToken(newest_message, newest_source, newest_topic, generation, newest_run, labels,
                       counted.fetchone()[0])
