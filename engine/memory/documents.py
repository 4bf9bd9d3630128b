"""The texts that get embedded: topic chunks, person profiles, artifact descriptions.

A topic is embedded as NOTES.md says (`Topic Summary: …` + the conversation log); a long
topic is cut into windows of whole log lines, each carrying the summary, because one vector
for 25,000 chars blurs the details a question asks about. Search maps every window back to
its topic and keeps the best one. Windows are 4,000 chars: since long sessions are cut
into subjects of ~2,000 chars (engine/topics/session_split.py), that is one vector for most
topics (LoCoMo: 193 vectors instead of 341 at 2,000, recall@5 0.924 vs 0.921).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

DEFAULT_CHUNK_CHARS = 4000
MAX_DATES = 7  # distinct days named; a topic spanning more names its months instead
_MONTHS_EN = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
              "November", "December")
_MONTHS_RU = ("января", "февраля", "марта", "апреля", "мая", "июня", "июля", "августа", "сентября", "октября",
              "ноября", "декабря")  # genitive: "8 мая 2023"; the Russian stemmer maps май/мае/мая alike
_MONTHS_RU_NOMINATIVE = ("январь", "февраль", "март", "апрель", "май", "июнь", "июль", "август", "сентябрь",
                         "октябрь", "ноябрь", "декабрь")


def date_words(timestamps: Iterable[float]) -> str:
    """When a topic happened, in words a question uses: "8 May 2023 · 8 мая 2023".

    Topics store epoch seconds and show ISO dates ("2023-05-08"); people ask "what did we
    discuss in May 2023" or "что было в мае". Naming the days (UTC, as the log does) in
    English and Russian lets BM25 match those words. Up to `MAX_DATES` distinct days;
    a longer topic names its months ("May 2023 · май 2023") instead.
    """
    days = sorted({datetime.fromtimestamp(t, UTC).date() for t in timestamps})
    if not days:
        return ""
    if len(days) <= MAX_DATES:
        english = [f"{d.day} {_MONTHS_EN[d.month - 1]} {d.year}" for d in days]
        russian = [f"{d.day} {_MONTHS_RU[d.month - 1]} {d.year}" for d in days]
    else:
        months = sorted({(d.year, d.month) for d in days})
        english = [f"{_MONTHS_EN[m - 1]} {y}" for y, m in months]
        russian = [f"{_MONTHS_RU_NOMINATIVE[m - 1]} {y}" for y, m in months]
    return " · ".join(english + russian)


def log_windows(lines: Sequence[str], chunk_chars: int) -> list[list[str]]:
    """Consecutive runs of whole lines of at most `chunk_chars` (a longer line is its own run)."""
    windows: list[list[str]] = []
    current: list[str] = []
    size = 0
    for line in lines:
        if current and size + len(line) > chunk_chars:
            windows.append(current)
            current, size = [], 0
        current.append(line)
        size += len(line) + 1
    if current:
        windows.append(current)
    return windows


def topic_documents(summary: str, log_lines: Sequence[str], chunk_chars: int = DEFAULT_CHUNK_CHARS) -> list[str]:
    windows = log_windows(log_lines, chunk_chars) or [[]]
    return [f"Topic Summary: {summary}\n\nConversation Log:\n" + "\n".join(window) for window in windows]


@dataclass(frozen=True)
class PassageShape:
    """How a sentence-embedding model sees a topic: short passages of plain "Author: text"
    lines, at most `max_windows` of them, and the summary as a passage of its own.

    A model like multilingual-e5-small mean-pools its tokens: a 4,000-char window with the
    summary in front averages a question's answer away (Russian questions over English
    LoCoMo chats: recall@5 0.10 that way against 0.50 per message, issue 15). Per-message
    vectors cost one model pass per message (hours for a million messages on a laptop), so
    lines are grouped into windows of `window_chars`, and a long topic keeps
    `max_windows` windows spread evenly over it: BM25 still reads all of it, the vectors
    see a bounded sample. Measured choices: docs/benchmarks.md, "A local multilingual model".
    """

    window_chars: int = 600
    max_windows: int = 6
    summary: bool = True
    # People and files: the model reads the head of their documents (who, how many messages and
    # where; a file's name, caption and sender). The rest (samples of what a person wrote, the
    # messages around a file) is in the topics already, and costs most: LoCoMo's 602 photos had
    # 689k chars of documents, more than every topic's passages (461k); their heads, 235k.
    entity_chars: int = 500

    def documents(self, summary: str, lines: Sequence[str]) -> list[str]:
        windows = ["\n".join(w) for w in log_windows(lines, self.window_chars)] if self.max_windows > 0 else []
        if len(windows) > self.max_windows:
            step = len(windows) / self.max_windows
            windows = [windows[int(i * step)] for i in range(self.max_windows)]
        head = [summary] if self.summary and summary.strip() else []
        return head + windows or [summary or " "]

    def entities(self, documents: dict[int, list[str]]) -> dict[int, list[str]]:
        """Person or artifact documents cut to `entity_chars`, at a word boundary."""
        return {entity: [_head(text, self.entity_chars) for text in texts] for entity, texts in documents.items()}


def _head(text: str, chars: int) -> str:
    if len(text) <= chars:
        return text
    cut = text[:chars]
    return cut[:cut.rfind(" ")] if " " in cut[chars // 2:] else cut


def chunking_for(embedder: object, chunk_chars: int = DEFAULT_CHUNK_CHARS) -> int | PassageShape:
    """What `topic_documents_for` should cut topics into for `embedder`: short passages for a
    sentence model (an embedder with `sentence_model = True`), else windows of `chunk_chars`."""
    return PassageShape() if getattr(embedder, "sentence_model", False) else chunk_chars


def person_document(name: str, handle: str | None, message_count: int, chats: Sequence[str],
                    first: str | None, last: str | None, sample_lines: Sequence[str]) -> str:
    """A person as seed 003 describes them: who, where, when, and what they talk about."""
    head = f"Person: {name}" + (f" ({handle})" if handle and handle != name else "")
    span = f", {first} – {last}" if first and last else ""
    where = f" in {', '.join(chats[:5])}" if chats else ""
    return f"{head}. {message_count} messages{where}{span}.\nTalks about:\n" + "\n".join(sample_lines)


def artifact_document(kind: str, file_name: str | None, caption: str | None, author: str | None,
                      date: str | None, context_lines: Sequence[str]) -> str:
    """An attachment by its name, caption and the messages around it (seed 003)."""
    head = f"{kind}: \"{file_name}\"" if file_name else kind
    parts = [head]
    if caption:
        parts.append(f"Caption: {caption}")
    if author or date:
        parts.append(f"Sent by {author or 'someone'}" + (f" on {date}" if date else ""))
    if context_lines:
        parts.append("Around it:\n" + "\n".join(context_lines))
    return "\n".join(parts)
