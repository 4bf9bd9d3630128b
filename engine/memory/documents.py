"""The texts that get embedded: topic chunks, person profiles, artifact descriptions.

A topic is embedded as NOTES.md says (`Topic Summary: …` + the conversation log); a long
topic is cut into windows of whole log lines, each carrying the summary, because one vector
for 25,000 chars blurs the details a question asks about. Search maps every window back to
its topic and keeps the best one.
"""

from __future__ import annotations

from collections.abc import Sequence

DEFAULT_CHUNK_CHARS = 2000


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
