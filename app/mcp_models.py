"""What the MCP tools return: pydantic models, so each tool publishes an output schema and its
result arrives as `structured_content` (and as the same JSON in a text block for clients that
read only text). Times are ISO 8601 in UTC; days are YYYY-MM-DD."""

from typing import Literal

from pydantic import BaseModel, Field

# What a selected or candidate item is: the engine's closed CandidateKind ("message": one not built
# into memory yet, found by its words); pydantic needs the Literal itself, so tests/app check they agree.
ItemKind = Literal["topic", "person", "artifact", "message"]


class Item(BaseModel):
    """One thing the reranker selected."""

    id: int = Field(description="the topic's, person's, file's or message's id (get_topic reads a topic)")
    kind: ItemKind
    chat: str | None = Field(description="the chat it is in (topics, files)")
    first_date: str | None = Field(description="day of the topic's first message (a file's day)")
    last_date: str | None = Field(description="day of the topic's last message (a person's last message)")
    score: float = Field(description="stage-1 similarity to the query, 0 to 1")
    reason: str = Field(description="why the reranker kept it")
    summary: str = Field(description="the topic's summary, the person's name, the file's name or the message")


class CandidateItem(BaseModel):
    """One stage-1 candidate, selected or not."""

    id: int
    kind: ItemKind
    chat: str | None
    date: str | None
    score: float
    summary: str
    selected: bool


class SearchResult(BaseModel):
    query: str
    reranker: str = Field(description="threshold, flash, cross-encoder or none, as it ran")
    selected: list[Item]
    candidates: list[CandidateItem] | None = Field(description="stage 1's candidates, when asked for")
    fallback: str | None = Field(description="why Flash fell back to stage 1's best (its reason name), else null")
    run_id: int | None = Field(description="the run in Flashback's Run history, null if it could not be recorded")
    notes: list[str] = Field(description="what the person would want to know about this search")
    ms: float = Field(description="time the search took, in milliseconds")


class MessageItem(BaseModel):
    id: int
    author: str
    time: str = Field(description="when it was sent, ISO 8601 UTC")
    text: str
    truncated: bool = Field(description="the text was cut to the tool's per-message limit")


class TopicResult(BaseModel):
    id: int
    chat: str
    summary: str
    first_time: str | None
    last_time: str | None
    total_messages: int
    offset: int
    messages: list[MessageItem]
    next_offset: int | None = Field(description="pass it as offset for the next page; null on the last page")


class ChatItem(BaseModel):
    id: int = Field(description="pass it (or the name) as `chat` to search_memory or ask_memory")
    name: str
    kind: str
    format: str = Field(description="the export it came from: telegram, whatsapp, chatgpt, jsonl")
    messages: int
    topics: int
    first_date: str | None
    last_date: str | None


class ChatsResult(BaseModel):
    chats: list[ChatItem]
    notes: list[str]


class ContextResult(BaseModel):
    query: str
    markdown: str = Field(description="the selected context as Flashback's export writes it")
    items: int = Field(description="topics, people and files in it")
    used_tokens: int
    budget_tokens: int
    run_id: int | None
    notes: list[str]


class SourceItem(BaseModel):
    number: int = Field(description="the [n] the answer cites")
    topic_id: int | None = Field(description="the topic the cited messages are in; null for messages not built yet")
    chat: str
    authors: list[str]
    first_time: str
    last_time: str
    message_ids: list[int]
    text: str = Field(description="a header line and one '[Author (time)]: text' line per message")


class ClaimItem(BaseModel):
    text: str
    citations: list[int] = Field(description="source numbers")
    verified: bool | None = Field(description="true: the cited messages support it; false: they do not; "
                                              "null: not checked")
    support: float = Field(description="the verifier's figure, 0 to 1")
    note: str


class QuoteItem(BaseModel):
    source: int = Field(description="the number of the source the sentence is in")
    message_id: int | None
    author: str
    time: str = Field(description="when the message was sent, ISO 8601 UTC")
    text: str = Field(description="the sentence, as written")
    answer_words: list[str] = Field(description="the words of the sentence that answer (dates, numbers, names)")


class AskResult(BaseModel):
    question: str
    answer: str | None = Field(description="the answer with [n] markers; null without a chat model")
    quotes: list[QuoteItem] = Field(default_factory=list, description="without a chat model's answer: the one to "
                                    "three sentences of the sources that best answer, best first")
    not_found: bool = Field(description="the chats hold no answer (a valid answer)")
    sources: list[SourceItem]
    claims: list[ClaimItem]
    model: str | None
    fallback: str | None = Field(description="the step that fell back and why, e.g. no_model")
    run_id: int | None
    notes: list[str]
    ms: float


class FactItem(BaseModel):
    """One thing known of the owner or of a person, with the messages that say it (issue 33)."""

    id: int
    about: str = Field(description="whom it is about: the person's name, or the owner's (\"you\")")
    person_id: int | None = Field(description="the person's id; null: the owner")
    text: str
    category: str
    kind: str = Field(description="self (the owner about themselves), about_other (the owner's testimony about "
                                  "someone, not proof), plan or preference")
    type: str = Field(description="identity, context or status (a status expires)")
    importance: int = Field(description="1 to 5")
    pinned: bool = Field(description="the person pinned it: always in the profile")
    origin: str = Field(description="model (read from a topic) or person (added or corrected by the person)")
    valid_until: str | None = Field(description="the day a status stops holding, YYYY-MM-DD; null: no end")
    message_ids: list[int] = Field(description="the messages that state it; get_topic reads their topic")
    topic_id: int | None = Field(description="the topic it was read from (null: added by the person)")
    score: float | None = Field(default=None, description="search_facts: share of the query's words it holds, 0 to 1")


class ProfileResult(BaseModel):
    owner: str = Field(description="the owner's name as the imports say it (\"\" when none did)")
    text: str = Field(description="the profile exactly as Flash's first turn and Ask's answer prompt are given it; "
                                  "empty when nothing is known")
    tokens: int
    facts: list[FactItem] = Field(description="the owner's facts in the profile, most important first")
    notes: list[str]


class FactsResult(BaseModel):
    query: str
    facts: list[FactItem]
    notes: list[str]
