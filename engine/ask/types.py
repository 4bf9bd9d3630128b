"""What the Ask flow takes and gives: the plan, sources, claims, the answer, each step's record.

Every type has `as_dict()` (JSON-safe), which is what `--json`, the window and the run's
trace read; nothing here holds a secret (the flow scrubs the trace before it is stored).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING, Any, TypeAlias, TypedDict

from engine.errors import Cancelled
from engine.messages import Message
from engine.retrieval.search import RetrievalSettings, Stage1Result

if TYPE_CHECKING:
    from engine.ask.dates import DateRange
    from engine.embeddings.base import Embedder
    from engine.llm import ChatClient
    from engine.rerank.base import Candidate, Reranker, RerankResult

STEPS = ("plan", "search", "rerank", "compose", "answer", "verify", "refine")
VERIFY_MODES = ("offline", "llm", "off")
ANSWER_FORMATS = ("auto", "schema", "text")

# What a step's detail holds: JSON as the trace stores it (each step its own keys, docs/ask.md).
JsonValue: TypeAlias = "str | int | float | bool | None | list[JsonValue] | dict[str, JsonValue]"


class StepUsage(TypedDict, total=False):
    """The tokens, cost and model time of a step (or, summed, of the whole Ask)."""

    prompt_tokens: int
    completion_tokens: int
    cost: float | None  # in dollars when the server says it, None when it does not
    model_ms: float



@dataclass
class Plan:
    subqueries: list[str]  # the question first, then the model's (each language of the store)
    date_range: DateRange | None
    chats: list[str]  # names, only ones the store has
    people: list[str]
    source: str  # "model" | "fallback" | "user" (the person's edited plan, searched as given)
    fallback: str | None = None  # why the offline plan stands: no_model, timeout, llm_error, parse_error, …
    # What was ignored and why (dates without a time word, …), as codes a face renders; English in as_dict.
    notes: list[Message | str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {"subqueries": list(self.subqueries),
                "date_range": self.date_range.as_dict() if self.date_range is not None else None,
                "chats": list(self.chats), "people": list(self.people), "source": self.source,
                "fallback": self.fallback, "notes": [str(note) for note in self.notes]}


@dataclass
class Source:
    """One numbered source: consecutive messages of one topic (or around one message no build has
    reached yet: `topic_id` None), as the model sees them."""

    number: int  # 1-based: the [n] the answer cites
    topic_id: int | None
    chat: str
    message_ids: list[int]
    first_at: float
    last_at: float
    authors: list[str]
    text: str  # the header line and one "[Author (time)]: text" line per message
    tokens: int
    messages: list[str] = field(default_factory=list, repr=False)  # each message's own text (verify reads)
    message_authors: list[str] = field(default_factory=list, repr=False)  # beside `messages`, one each
    message_times: list[float] = field(default_factory=list, repr=False)  # epoch seconds, one each

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        for internal in ("messages", "message_authors", "message_times"):
            data.pop(internal)
        return data


@dataclass
class Quote:
    """A sentence of a source that answers the question: what Ask shows without a model."""

    source: int  # the [n] of its source
    message_id: int | None
    author: str
    sent_at: float  # epoch seconds
    text: str
    score: float
    highlights: list[tuple[int, int]] = field(default_factory=list)  # answer-bearing words: (start, end) in text

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["highlights"] = [list(span) for span in self.highlights]
        return data


@dataclass
class Claim:
    text: str
    citations: list[int]  # source numbers, every one a real source
    supported: bool | None = None  # None: not checked (verify off, or it could not judge)
    support: float = 0.0  # the verifier's figure in [0, 1]
    method: str = "none"  # offline | llm | none
    note: str = ""  # why, in words, when not supported or not checked
    note_message: Message | None = None  # the same as a code, for a face in its language (not in as_dict)

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("note_message")
        return data


@dataclass
class Answer:
    text: str  # what the person reads, with [n] markers (only to real sources)
    claims: list[Claim]
    not_found: bool = False  # "not found in your chats": a valid answer
    dropped_citations: int = 0  # markers or ids to sources that do not exist, removed
    format: str = "text"  # "schema" (enum citations) | "text" ([n] markers)
    caveat: str | None = None  # what could not be supported, said in the answer
    refusal: str | None = None  # the first line when most claims are unsupported (seed 002's refusal)

    def as_dict(self) -> dict[str, Any]:
        return {"text": self.text, "claims": [c.as_dict() for c in self.claims], "not_found": self.not_found,
                "dropped_citations": self.dropped_citations, "format": self.format, "caveat": self.caveat,
                "refusal": self.refusal}


@dataclass
class StepRecord:
    name: str  # one of STEPS
    ms: float
    ok: bool
    fallback: str | None = None  # the named reason when the step did not do its own work
    detail: dict[str, JsonValue] = field(default_factory=dict)  # JSON: prompts, replies, counts (each step its own)
    usage: StepUsage = field(default_factory=lambda: StepUsage())

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class AskSettings:
    """None fields take the endpoint's default (`resolved`): cloud budgets or local ones."""

    total_budget_s: float | None = None  # 30 s cloud, 180 s local
    max_tokens_plan: int | None = None
    max_tokens_answer: int | None = None
    max_tokens_verify: int | None = None
    budget_tokens: int | None = None  # what the sources may cost in the answer's prompt: 6,000 cloud, 2,500 local
    source_messages: int = 6  # messages per source at most: a citation points at a few lines, not a topic
    max_subqueries: int = 6
    refine: bool = True
    verify: str = "offline"  # offline | llm | off
    answer_format: str = "auto"  # auto (schema where the server enforces one) | schema | text
    use_plan_model: bool = True  # False: the offline plan even with a model (the window's edited chips)
    retrieval: RetrievalSettings = field(default_factory=RetrievalSettings)  # the user's own filters live here
    rrf_k: int = 60
    refine_candidates: int = 100  # stage 1's depth in the refine round (seed 002: expand k)
    record: bool = True

    def __post_init__(self) -> None:
        if self.verify not in VERIFY_MODES:
            raise ValueError(f"verify must be one of {VERIFY_MODES}, not {self.verify!r}")
        if self.answer_format not in ANSWER_FORMATS:
            raise ValueError(f"answer_format must be one of {ANSWER_FORMATS}, not {self.answer_format!r}")
        if (self.budget_tokens is not None and self.budget_tokens <= 0) or self.source_messages <= 0 \
                or not 1 <= self.max_subqueries <= 6:
            raise ValueError("budget_tokens and source_messages must be > 0, max_subqueries 1 to 6")

    def resolved(self, local: bool) -> AskSettings:
        defaults: dict[str, Any] = LOCAL_BUDGETS if local else CLOUD_BUDGETS  # seconds (float) and tokens (int)
        return replace(self, **{k: v for k, v in defaults.items() if getattr(self, k) is None})

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


# Cloud replies are bounded roomily (reasoning models count their thinking in them); a CPU
# model gets short bounds: an unbounded reply from a small model holds the server for minutes.
# Local sources fit an 8K context as llama.cpp is usually started: a small model's tokenizer
# counts ~1.5× our estimate on chat text (docs/llm_servers.md), so 2,500 estimated ≈ 4K real,
# plus the instructions and a 768-token reply; at 100-200 prompt tokens/s, well inside 180 s.
CLOUD_BUDGETS = {"total_budget_s": 30.0, "max_tokens_plan": 2048, "max_tokens_answer": 4096,
                 "max_tokens_verify": 2048, "budget_tokens": 6000}
LOCAL_BUDGETS = {"total_budget_s": 180.0, "max_tokens_plan": 512, "max_tokens_answer": 768,
                 "max_tokens_verify": 384, "budget_tokens": 2500}


@dataclass
class AskDeps:
    """What the flow needs from the store and the settings; the service (or a test) builds it."""

    stage1: Callable[[str, RetrievalSettings], Stage1Result]  # blocking: run in a thread
    reranker: Reranker  # the user's: threshold, keep-all or Flash
    connect: Callable[[], sqlite3.Connection]  # a new connection per call (compose, verify, record)
    embedder: Embedder | None = None  # offline verify; None: lexical support only
    client: ChatClient | None = None  # None: no model configured
    model: str | None = None  # None: the endpoint's default
    chats: Mapping[str, int] = field(default_factory=dict)  # chat name → id (the plan's enum)
    languages: Sequence[str] = ("en",)  # what the store's chats are written in ("en", "ru")
    client_name: str = ""  # who asked (an assistant over MCP), kept with the recorded run; "" for the faces

    @property
    def local(self) -> bool:
        return bool(self.client is not None and self.client.endpoint.is_local)

    @property
    def secrets(self) -> list[str]:
        key = self.client.endpoint.api_key if self.client is not None else None
        return [key] if key else []


@dataclass
class AskOutcome:
    question: str
    plan: Plan
    candidates: list[Candidate] = field(default_factory=list)  # fused stage 1 (date boost applied)
    selection: RerankResult | None = None
    sources: list[Source] = field(default_factory=list)
    answer: Answer | None = None
    quotes: list[Quote] = field(default_factory=list)  # the answering sentences, when no model answered
    refined: bool = False
    fallback: str | None = None  # no_model, or "<step>_<reason>" for the failure that cost the answer
    steps: list[StepRecord] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    usage: StepUsage = field(default_factory=lambda: StepUsage())
    run_id: int | None = None
    notes: list[Message | str] = field(default_factory=list)  # codes a face renders; English in as_dict
    model: str | None = None

    def as_dict(self) -> dict[str, Any]:
        selection = None
        if self.selection is not None:
            selection = {"reranker": self.selection.reranker, "fallback": self.selection.fallback,
                         "selected": [s.as_dict() for s in self.selection.selected],
                         "usage": self.selection.usage or {}}
        data: dict[str, Any] = {"question": self.question, "plan": self.plan.as_dict(),
                "candidates": [c.as_dict() for c in self.candidates], "selection": selection,
                "sources": [s.as_dict() for s in self.sources],
                "answer": self.answer.as_dict() if self.answer is not None else None,
                "quotes": [q.as_dict() for q in self.quotes],
                "refined": self.refined, "fallback": self.fallback, "steps": [s.as_dict() for s in self.steps],
                "timings_ms": dict(self.timings_ms), "usage": dict(self.usage), "model": self.model,
                "notes": [str(note) for note in self.notes]}
        if self.run_id is not None:
            data["run_id"] = self.run_id
        return data


class AskCancelled(Cancelled):
    """The person stopped the question; `partial` holds what was found before (sources, steps)."""

    code = "ask.cancelled"

    def __init__(self, partial: AskOutcome | None = None) -> None:
        super().__init__()
        self.partial = partial


def step_usage(raw: Mapping[str, Any] | None) -> StepUsage:
    """A call's or a reranker's usage JSON as the typed record (only the keys a step keeps)."""
    usage = StepUsage()
    raw = raw or {}
    if isinstance(raw.get("prompt_tokens"), int):
        usage["prompt_tokens"] = raw["prompt_tokens"]
    if isinstance(raw.get("completion_tokens"), int):
        usage["completion_tokens"] = raw["completion_tokens"]
    if "cost" in raw:
        usage["cost"] = float(raw["cost"]) if isinstance(raw["cost"], int | float) else None
    if isinstance(raw.get("model_ms"), int | float):
        usage["model_ms"] = float(raw["model_ms"])
    return usage


def usage_of(*parts: Mapping[str, Any] | None) -> StepUsage:
    """Token and cost totals over steps (cost None when no call reported one)."""
    prompt = completion = 0
    cost: float | None = None
    for part in parts:
        if not part:
            continue
        prompt += int(part.get("prompt_tokens") or 0)
        completion += int(part.get("completion_tokens") or 0)
        if isinstance(part.get("cost"), int | float):
            cost = (cost or 0.0) + float(part["cost"])
    return StepUsage(prompt_tokens=prompt, completion_tokens=completion, cost=cost)


def candidates_of(items: Sequence[Candidate], kind: str = "topic") -> list[Candidate]:
    return [c for c in items if c.kind == kind]
