"""What the MCP server itself says (its own sentences; the engine's come as message codes and
are rendered with `engine.api.render`), in English and Russian, and which language a client
asked for.

MCP has no locale field. A client says a language the way HTTP clients do, with
`Accept-Language` on the streamable-HTTP transport; over stdio the client's configuration can
set `FLASHBACK_LANG` in the server's environment. Anything else gets English.
"""

from __future__ import annotations

import os
from typing import Any

from engine.api import LANGUAGES, Message, normalise_language, render

WORDS: dict[str, dict[str, str]] = {
    "en": {
        "no_messages": "The memory is empty: import a chat export and build it first "
                       "(`flashback import PATH`, then `flashback build`).",
        "not_built": "The memory is not built yet: run `flashback build` (or open the window), then ask again.",
        "other_embedder": "The memory was built with another embedder than the one it would search with: "
                          "run `flashback build` with the embedder options it was built with.",
        "index_lost": "The search index folder is missing: run `flashback build` to rebuild it "
                      "(nothing is re-embedded), then ask again.",
        "new_messages": "Messages imported since the last build are not searchable yet; `flashback build` adds them.",
        "missing_key": "No API key for {provider}: save one with `flashback key set --provider {provider}`, "
                       "or set FLASHBACK_API_KEY in this server's environment (the client's configuration).",
        "no_model": "Name the model to use on the {provider} endpoint in the window's Settings first.",
        "no_rerank_url": "Enter the rerank server's URL in the window's Settings → Cross-encoder first.",
        "bad_day": "{name} must be a day like 2024-05-31, not {value!r}.",
        "since_after_until": "since ({since}) is after until ({until}): nothing can match.",
        "chat_none": "No chat has the id or name {value!r}; list_chats lists them.",
        "chat_many": "{value!r} fits {count} chats ({listed}): give its id or more of its name.",
        "bad_argument": "The argument {name} is not valid: {problem}.",
        "missing_argument": "The argument {name} is required.",
        "unknown_argument": "{tool} has no argument {name!r}; it takes {known}.",
        "unexpected": "Flashback could not do that because of an unexpected error; the details are in {log}.",
        "empty_store_chats": "No chats yet: `flashback import PATH` adds an export.",
        "topic_not_found": "There is no topic {id}; search_memory gives the ids of topics.",
        "offset_past_end": "offset {offset} is past the topic's {total} messages.",
    },
    "ru": {
        "no_messages": "Память пуста: сначала импортируйте экспорт чата и постройте её "
                       "(`flashback import PATH`, затем `flashback build`).",
        "not_built": "Память ещё не построена: выполните `flashback build` (или откройте окно) и спросите снова.",
        "other_embedder": "Память построена другим эмбеддером, чем тот, которым шёл бы поиск: выполните "
                          "`flashback build` с параметрами эмбеддера, которыми она строилась.",
        "index_lost": "Папка поискового индекса пропала: выполните `flashback build`, чтобы восстановить её "
                      "(ничего не пересчитывается заново), и спросите снова.",
        "new_messages": "Сообщения, импортированные после последней сборки, пока не ищутся; "
                        "`flashback build` добавит их.",
        "missing_key": "Нет API-ключа для {provider}: сохраните его командой "
                       "`flashback key set --provider {provider}` или задайте FLASHBACK_API_KEY в окружении "
                       "этого сервера (в настройках клиента).",
        "no_model": "Сначала укажите модель для {provider} в настройках окна.",
        "no_rerank_url": "Сначала укажите адрес сервера переранжирования в настройках окна → Кросс-энкодер.",
        "bad_day": "{name} должен быть днём вида 2024-05-31, а не {value!r}.",
        "since_after_until": "since ({since}) позже, чем until ({until}): ничего не найдётся.",
        "chat_none": "Нет чата с id или названием {value!r}; их перечисляет list_chats.",
        "chat_many": "Под {value!r} подходят чаты ({count}: {listed}): укажите id или название полнее.",
        "bad_argument": "Аргумент {name} не подходит: {problem}.",
        "missing_argument": "Нужен аргумент {name}.",
        "unknown_argument": "У {tool} нет аргумента {name!r}; он принимает {known}.",
        "unexpected": "Flashback не смог это сделать из-за непредвиденной ошибки; подробности в {log}.",
        "empty_store_chats": "Чатов пока нет: `flashback import PATH` добавит экспорт.",
        "topic_not_found": "Темы {id} нет; id тем даёт search_memory.",
        "offset_past_end": "offset {offset} дальше, чем {total} сообщений темы.",
    },
}


def say(key: str, language: str, **params: Any) -> str:
    table = WORDS.get(language) or WORDS["en"]
    return (table.get(key) or WORDS["en"][key]).format(**params)


def said(message: Message | str, language: str) -> str:
    """An engine message (a code, or the plain English of an older error) in `language`."""
    return render(message, language)


def from_accept_language(header: str | None) -> str | None:
    """The first language of an Accept-Language header that Flashback speaks, by weight; None if none."""
    if not header:
        return None
    ranked: list[tuple[float, int, str]] = []
    for position, part in enumerate(header.split(",")):
        tag, _, params = part.strip().partition(";")
        weight = 1.0
        if params.strip().startswith("q="):
            try:
                weight = float(params.strip()[2:])
            except ValueError:
                weight = 0.0
        short = tag.strip().replace("_", "-").split("-")[0].lower()
        if short in LANGUAGES and weight > 0:
            ranked.append((-weight, position, short))
    return min(ranked)[2] if ranked else None


def environment_language(environ=os.environ) -> str:
    """FLASHBACK_LANG from the client's configuration of this server; English otherwise."""
    return normalise_language(environ.get("FLASHBACK_LANG") or "en")
