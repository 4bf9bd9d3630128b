"""The pendant conversation of issue 32 (written here, after the held-out LoCoMo case): the
chats say France; a model answered "Japan", and the old check called it supported 1.0."""

from __future__ import annotations

import json
import re
from pathlib import Path

from engine.api import Flashback

QUESTION = "In what country did Jolene's mother buy her the pendant?"
LINES = [
    ("Jolene", "2023-03-02T18:04:00+00:00", "Look at this pendant! My mother bought it for me in Paris, France, "
                                            "on our trip when I was ten."),
    ("Deborah", "2023-03-02T18:05:00+00:00", "Wow, it's beautiful! Do you wear it every day?"),
    ("Jolene", "2023-03-02T18:06:00+00:00", "Almost every day. It reminds me of her and of that trip."),
    ("Deborah", "2023-03-02T18:07:00+00:00", "That's so sweet. My grandmother gave me a ring once."),
    ("Jolene", "2023-04-11T09:15:00+00:00", "I started a new yoga class on Tuesdays, it's hard but fun."),
    ("Deborah", "2023-04-11T09:16:00+00:00", "Yoga on Tuesdays sounds great, I might join you next week."),
]


def pendant_store(folder: Path) -> Flashback:
    export = folder / "jolene.jsonl"
    export.write_text("\n".join(json.dumps({"chat": "Jolene", "id": str(i), "author": a, "date": d, "text": t})
                                for i, (a, d, t) in enumerate(LINES, 1)) + "\n", encoding="utf-8")
    service = Flashback(folder / "data")
    service.imports.import_path(export)
    service.memory.build()
    return service


def names_not_cited(claim_text: str, cited_text: str) -> list[str]:
    """Capitalised words inside the claim that no cited message holds (a country, a name)."""
    words = re.findall(r"(?<=\s)[A-Z][a-z]+", claim_text)
    return [w for w in words if w.lower() not in cited_text.lower()]
