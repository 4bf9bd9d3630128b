"""What the Archivist's store returns (issue 33): facts, their changes, the owner's profile,
and what an extraction costs and did. Plain frozen dataclasses, so every face and test can
compare them; the faces reach them through `engine.api`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

FactKind = Literal["self", "about_other", "plan", "preference"]
FactType = Literal["identity", "context", "status"]
FactState = Literal["active", "wrong", "deleted", "expired"]
FactOrigin = Literal["model", "person"]
FactAction = Literal["add", "update", "remove", "edit", "pin", "unpin", "wrong", "delete", "expire",
                     "merge"]  # merge: its person was merged into another (engine.facts.people)
Circle = Literal["family", "friends", "work", "other"]

KINDS: tuple[FactKind, ...] = ("self", "about_other", "plan", "preference")
TYPES: tuple[FactType, ...] = ("identity", "context", "status")
STATES: tuple[FactState, ...] = ("active", "wrong", "deleted", "expired")
CIRCLES: tuple[Circle, ...] = ("family", "friends", "work", "other")


@dataclass(frozen=True)
class FactInfo:
    """One fact. `person_id` None: the account owner ("you"); `person_name` is then the owner's
    name as the store knows it ("" when no import said who the owner is)."""

    id: int
    person_id: int | None
    person_name: str
    text: str
    category: str
    kind: str  # FactKind
    type: str  # FactType
    importance: int  # 1-5
    valid_from: float | None
    valid_until: float | None
    topic_id: int | None
    message_ids: tuple[int, ...]  # the provenance: the messages that state it
    origin: str  # FactOrigin
    pinned: bool
    state: str  # FactState
    created_at: float
    updated_at: float

    @property
    def about_owner(self) -> bool:
        return self.person_id is None


@dataclass(frozen=True)
class FactChangeInfo:
    """One line of a fact's history: who changed it (a topic read by the model, or the person:
    topic_id None) and why."""

    id: int
    fact_id: int
    topic_id: int | None
    action: str  # FactAction
    before_text: str | None
    after_text: str | None
    reason: str
    at: float


@dataclass(frozen=True)
class Profile:
    """The owner's key facts and close people as prompt text (seed 000's user profile):
    bounded by tokens, most important first. Empty text when nothing is known."""

    text: str
    fact_ids: tuple[int, ...]
    tokens: int

    @property
    def empty(self) -> bool:
        return not self.text


@dataclass(frozen=True)
class ExtractionEstimate:
    """What reading every unread topic would cost, before a run: `cost_usd` None when the
    endpoint's price is not known (a local server costs nothing: 0.0)."""

    topics: int
    tokens_in: int
    tokens_out: int
    cost_usd: float | None


@dataclass(frozen=True)
class ExtractionReport:
    """What one extraction run did. `stopped` names why it ended early ("cancelled",
    "budget", "llm_error": calls kept failing, "no_model": none is set, so nothing was read),
    None when every unread topic was read. Refused facts are counted, never stored: a cited
    message outside the topic counts as unsupported."""

    topics_read: int = 0
    facts_added: int = 0
    facts_updated: int = 0
    facts_removed: int = 0
    facts_refused_unsupported: int = 0
    facts_refused_secret: int = 0
    people_added: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    stopped: str | None = None
    topics_failed: int = 0  # calls that gave nothing usable: those topics stay unread for the next run
