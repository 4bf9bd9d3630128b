"""Русские тексты для каждого кода сообщений движка (`engine.messages`); ключи — те же, что в `en.py`."""

from __future__ import annotations

CATALOGUE: dict[str, str] = {
    "error.text": "{text}",
    "import.cannot_read": "Не удалось импортировать {source}: {problem}",
    "import.cannot_read_at": "Не удалось импортировать {source} ({where}): {problem}",
    "import.cancelled": "Импорт отменён; ничего не изменено.",
}
