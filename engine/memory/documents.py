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
