"""SQLModel tables of the local store (schema version 6).

Times are UTC seconds since the epoch (REAL): exports disagree on time formats, and one
numeric column sorts, compares and bulk-inserts fast. Bulk imports bypass the ORM
(`engine.importers.writer`); everything else reads and writes through these models.
"""

from __future__ import annotations

from sqlalchemy import Column, Index, LargeBinary, UniqueConstraint, text
from sqlmodel import Field, SQLModel


class Source(SQLModel, table=True):
    """One imported export file."""

    id: int | None = Field(default=None, primary_key=True)
    path: str  # as the user gave it
    display_name: str  # "export.zip › result.json"
    format: str  # telegram | chatgpt | whatsapp | jsonl
    sha256: str = Field(index=True)
    size_bytes: int = 0
    chats: int = 0
    messages_seen: int = 0
    messages_added: int = 0
    artifacts_added: int = 0
    imported_at: float = 0.0


class Chat(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    key: str = Field(unique=True)  # "telegram:5000": stable across re-imports
    title: str
    kind: str = "other"  # personal | group | channel | saved | assistant | other
    format: str
    message_count: int = 0
    first_at: float | None = None
    last_at: float | None = None


class Person(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    key: str = Field(unique=True)  # "telegram:user123" or "whatsapp:name:Bob"
    display_name: str
    external_id: str | None = None
    message_count: int = 0
    first_seen: float | None = None
    last_seen: float | None = None
    is_self: bool = False  # the person who made the export
    # Issue 33 (the Archivist): what is known of the person beyond their messages. Server
    # defaults, because the importers insert people with raw SQL that names none of these.
    aliases: str = Field(default="[]", sa_column_kwargs={"server_default": "[]"})  # JSON list of other names
    circle: str | None = None  # family | friends | work | other; None: not known
    bio: str = Field(default="", sa_column_kwargs={"server_default": ""})  # a short bio rebuilt from their facts


class Topic(SQLModel, table=True):
    """A conversation segment with a summary (seed 004's `Topic`, single user)."""

    id: int | None = Field(default=None, primary_key=True)
    chat_id: int = Field(foreign_key="chat.id", index=True)
    summary: str = ""
    start_msg_id: int
    end_msg_id: int
    size_chars: int = 0
    message_count: int = 0
    embedding: bytes | None = Field(default=None, sa_column=Column(LargeBinary, nullable=True))
    facts_extracted: bool = False
    # Schema 10: the last message the Archivist has read of a topic too long for one prompt
    # (read in parts, each written as it is read); NULL before the first part.
    facts_read_through: int | None = None
    is_consolidated: bool = False
    consolidation_checked: bool = False
    created_at: float = 0.0
    # Schema 2: what stage 1 shows without touching messages, and what the embedding cache keys on.
    first_at: float | None = None
    last_at: float | None = None
    content_hash: str | None = None  # of summary + member messages; changes when the topic does


class VectorItem(SQLModel, table=True):
    """One embedded text: a topic chunk, a person profile or an artifact description.

    Its id is the label in the hnswlib index of its kind, so a hit maps straight back to
    the row, and from there to the topic, person or artifact (`entity_id`). A topic may have
    several items (chunks of a long conversation); search keeps each entity's best chunk.
    """

    __tablename__ = "vector_item"
    __table_args__ = (Index("ix_vector_item_lookup", "model_id", "kind", "entity_id"),)

    id: int | None = Field(default=None, primary_key=True)
    kind: str  # topic | person | artifact
    entity_id: int
    chunk: int = 0
    model_id: str
    text_hash: str  # sha256 of the embedded text: the key into EmbeddingCache


class EmbeddingCache(SQLModel, table=True):
    """Vectors by (model, sha256 of the text): a rebuild or a merge never pays twice."""

    __tablename__ = "embedding_cache"

    model_id: str = Field(primary_key=True)
    text_hash: str = Field(primary_key=True)
    dim: int
    vector: bytes = Field(sa_column=Column(LargeBinary, nullable=False))  # float32, L2-normalised


class Message(SQLModel, table=True):
    __table_args__ = (
        UniqueConstraint("chat_id", "dedup_key", name="uq_message_chat_dedup"),
        Index("ix_message_chat_time", "chat_id", "sent_at"),
        # Partial: messages arrive without a topic, so imports pay nothing for this index.
        Index("ix_message_topic_id", "topic_id", sqlite_where=text("topic_id IS NOT NULL")),
    )

    id: int | None = Field(default=None, primary_key=True)
    chat_id: int = Field(foreign_key="chat.id")
    dedup_key: str  # the export's message id, or "h:<hash>" for formats without ids
    external_id: str | None = None
    person_id: int | None = Field(default=None, foreign_key="person.id", index=True)
    author: str | None = None  # display name as written in this export
    role: str = "other"  # user | assistant | other
    sent_at: float  # UTC seconds since the epoch
    text: str = ""
    reply_to: str | None = None  # external id of the message replied to, same chat
    forwarded_from: str | None = None
    content_hash: str
    is_service: bool = False  # joins, pins, calls: never part of a topic
    source_id: int = Field(foreign_key="source.id")
    topic_id: int | None = Field(default=None, foreign_key="topic.id")
    # JSON, what the export says beside the text (schema 7): {"reactions": [{"emoji", "by", "count"}],
    # "model": "gpt-4o"}; never searched. None when it says nothing.
    meta: str | None = None


class Artifact(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    message_id: int = Field(foreign_key="message.id", index=True)
    kind: str  # photo | file | voice | video | sticker | audio | animation | other
    file_name: str | None = None
    mime: str | None = None
    size: int | None = None
    rel_path: str | None = None  # inside the export; None when the file was not exported
    caption: str | None = None
    missing: str | None = None  # why the file is absent, as the export says


class RerankRun(SQLModel, table=True):
    """One recorded rerank (schema 3): what went in, what came out, and the whole LLM trace.

    Scalar columns carry what `flashback runs` lists and the metrics aggregate, so neither
    parses JSON; the JSON text columns keep everything else for the run detail view.
    Written only by `engine.traces`, which scrubs secrets from every string first.
    """

    __tablename__ = "rerank_run"

    id: int | None = Field(default=None, primary_key=True)
    created_at: float = Field(index=True)  # UTC epoch seconds
    query: str
    reranker: str  # flash | threshold | none | …
    model: str | None = None  # the LLM, when there was one
    candidates_count: int = 0  # every kind shown to the reranker
    selected_count: int = 0
    tool_calls_count: int = 0
    fallback: str | None = None  # reason name, None when the reranker's own choice stood
    duration_ms: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = None  # USD as the provider reported it; None when it did not
    settings: str = "{}"  # JSON text from here on
    candidates: str = "[]"
    selected: str = "[]"
    tool_calls: str = "[]"
    timings_ms: str = "{}"
    report: str = "{}"
    trace: str | None = None


class Fact(SQLModel, table=True):
    """Something known of the owner or of one person (issue 33), with the messages that say it.

    `person_id` NULL means the account owner, whoever the store says that is: owner rows are
    merged, swapped and unmarked (engine/importers/owner.py), and a fact about "you" must not
    follow one of those rows. `topic_id` is the topic it was read from, kept without a foreign
    key: consolidation and rebuilds delete topics, while the fact lives on by its messages.
    A wrong or deleted fact stays (state) with its messages, so they never yield it again.
    """

    id: int | None = Field(default=None, primary_key=True)
    person_id: int | None = Field(default=None, foreign_key="person.id", index=True, ondelete="CASCADE")
    text: str
    category: str = "other"  # a free short word: work, family, health, hobby, place, …
    kind: str = "self"  # self | about_other | plan | preference
    type: str = "context"  # identity | context | status (status facts expire)
    importance: int = 3  # 1-5
    valid_from: float | None = None
    valid_until: float | None = None
    topic_id: int | None = Field(default=None, index=True)
    origin: str = "model"  # model | person: the person's edits outrank the model's
    pinned: bool = False
    state: str = Field(default="active", index=True)  # active | wrong | deleted | expired
    created_at: float = 0.0
    updated_at: float = 0.0


class FactMessage(SQLModel, table=True):
    """A fact's provenance: the messages that state it (all in the fact's topic when read)."""

    __tablename__ = "fact_message"

    fact_id: int = Field(foreign_key="fact.id", primary_key=True, ondelete="CASCADE")
    message_id: int = Field(foreign_key="message.id", primary_key=True, index=True, ondelete="CASCADE")


class FactHistory(SQLModel, table=True):
    """Every change to a fact, with the topic that caused it (None: the person's own edit)."""

    __tablename__ = "fact_history"

    id: int | None = Field(default=None, primary_key=True)
    fact_id: int = Field(foreign_key="fact.id", index=True, ondelete="CASCADE")
    topic_id: int | None = None
    action: str  # add | update | remove | edit | pin | unpin | wrong | delete | expire
    before_text: str | None = None
    after_text: str | None = None
    reason: str = ""
    at: float = 0.0
