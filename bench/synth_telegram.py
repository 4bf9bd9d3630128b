"""Generate a realistic synthetic Telegram Desktop full-account export, streamed to disk.

The shape follows tdesktop's serializer (see shared/data/exports/FORMATS.md): `chats.list`
and `left_chats.list`, `text` as a plain string or a list mixing strings and entity
objects, `text_entities`, media (photos, files, placeholders), replies, service messages,
`date` plus `date_unixtime` as a string. Deterministic for a given seed.
"""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime
from pathlib import Path

_LATIN = (
    "meeting budget release deploy server review coffee weekend trip ticket invoice "
    "python database backup migration doctor appointment birthday present garden "
    "football concert museum flight hotel visa passport recipe dinner apartment rent"
).split()
_CYRILLIC = (
    "встреча бюджет релиз сервер отпуск билет поезд дача ремонт ёлка праздник врач "
    "анализы зарплата квартира аренда кофе выходные концерт музей рецепт ужин школа "
    "экзамен машина страховка подарок день рождения погода дождь снег прогулка"
).split()
_PEOPLE = [
    ("Анна Смирнова", "user1001"), ("Boris Ivanov", "user1002"), ("Мария", "user1003"),
    ("John Carter", "user1004"), ("Дмитрий К.", "user1005"), ("Elena", "user1006"),
    ("Sergey P", "user1007"), ("Ольга", "user1008"),
]
_SELF = ("Me Myself", "user1000")
_PLACEHOLDER = "(File not included. Change data exporting settings to download.)"


def _sentence(rng: random.Random) -> str:
    words = _CYRILLIC if rng.random() < 0.6 else _LATIN
    n = rng.randint(3, 18)
    return " ".join(rng.choice(words) for _ in range(n)).capitalize()


def _text_field(rng: random.Random) -> tuple[object, list[dict]]:
    """Return (`text`, `text_entities`) as tdesktop writes them."""
    plain = _sentence(rng)
    if rng.random() < 0.7:
        return plain, [{"type": "plain", "text": plain}]
    entity_type = rng.choice(["bold", "link", "mention", "italic", "code", "text_link"])
    special = {"type": entity_type, "text": rng.choice(_LATIN + _CYRILLIC)}
    if entity_type == "text_link":
        special["href"] = "https://example.org/" + rng.choice(_LATIN)
    tail = " " + _sentence(rng)
    parts: list[object] = [plain + " ", special, tail]
    entities = [{"type": "plain", "text": plain + " "}, dict(special), {"type": "plain", "text": tail}]
    return parts, entities


def _message(rng: random.Random, msg_id: int, ts: int, members: list[tuple[str, str]]) -> dict:
    date = datetime.fromtimestamp(ts, tz=UTC).strftime("%Y-%m-%dT%H:%M:%S")
    if rng.random() < 0.01:
        actor, actor_id = rng.choice(members)
        return {"id": msg_id, "type": "service", "date": date, "date_unixtime": str(ts),
                "actor": actor, "actor_id": actor_id, "action": "pin_message",
                "message_id": max(1, msg_id - 3), "text": "", "text_entities": []}
    author, author_id = rng.choice(members)
    msg: dict = {"id": msg_id, "type": "message", "date": date, "date_unixtime": str(ts),
                 "from": author, "from_id": author_id}
    if msg_id > 5 and rng.random() < 0.15:
        msg["reply_to_message_id"] = msg_id - rng.randint(1, 5)
    if rng.random() < 0.02:
        msg["forwarded_from"] = rng.choice(_PEOPLE)[0]
    roll = rng.random()
    if roll < 0.04:
        msg["photo"] = f"photos/photo_{msg_id}@{date[:10]}.jpg" if rng.random() < 0.7 else _PLACEHOLDER
        msg["width"], msg["height"] = 1280, 960
    elif roll < 0.06:
        kind = rng.choice(["voice_message", "video_file", "sticker", None])
        if kind is None:
            msg["file"] = f"files/report_{msg_id}.pdf"
            msg["mime_type"] = "application/pdf"
        else:
            msg["file"] = _PLACEHOLDER if rng.random() < 0.5 else f"{kind}s/{kind}_{msg_id}.ogg"
            msg["media_type"] = kind
            msg["mime_type"] = "audio/ogg" if kind == "voice_message" else "video/mp4"
    text, entities = _text_field(rng) if roll >= 0.04 or rng.random() < 0.3 else ("", [])
    msg["text"] = text
    msg["text_entities"] = entities
    return msg


def write_export(path: Path, messages: int, chats: int = 8, seed: int = 7) -> int:
    """Write a full-account export with `messages` messages spread over `chats` chats."""
    rng = random.Random(seed)
    per_chat = [messages // chats] * chats
    per_chat[0] += messages - sum(per_chat)
    written = 0
    with open(path, "w", encoding="utf-8") as out:
        out.write('{\n "about": "Here is the data you requested.",\n')
        out.write(' "personal_information": {"user_id": 1000, "first_name": "Me", "last_name": "Myself"},\n')
        sections = {"chats": range(0, chats - 1), "left_chats": range(chats - 1, chats)}
        for s_index, (section, chat_range) in enumerate(sections.items()):
            out.write(f' "{section}": {{\n  "about": "",\n  "list": [\n')
            for c_pos, c in enumerate(chat_range):
                members = [_SELF] + rng.sample(_PEOPLE, k=min(len(_PEOPLE), 1 + c % 5))
                chat_type = "personal_chat" if len(members) == 2 else "private_supergroup"
                name = members[1][0] if chat_type == "personal_chat" else f"Группа {c} / Group {c}"
                head = {"name": name, "type": chat_type, "id": 5000 + c}
                out.write("   " + json.dumps(head, ensure_ascii=False)[:-1] + ', "messages": [\n')
                ts = 1_600_000_000 + c * 1000
                for i in range(per_chat[c]):
                    ts += rng.choice((5, 30, 60, 300, 900, 4000, 20000))
                    sep = ",\n" if i else ""
                    out.write(sep + "    " + json.dumps(_message(rng, i + 1, ts, members), ensure_ascii=False))
                    written += 1
                out.write("\n   ]}" + ("," if c_pos < len(chat_range) - 1 else "") + "\n")
            out.write("  ]\n }" + ("," if s_index == 0 else "") + "\n")
        out.write("}\n")
    return written
