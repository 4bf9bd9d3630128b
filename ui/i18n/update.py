"""Refresh the Russian catalogue after UI strings changed: `python -m ui.i18n.update`.

Runs PySide6's `lupdate` over every `ui/**/*.py` (new strings come in as unfinished, gone
ones are dropped), then `lrelease` to the `.qm` the app loads, and lists what still needs
a translation. Translate those in `resources/i18n/flashback_ru.ts` (Qt Linguist, or by hand:
fill the `<translation>` and drop `type="unfinished"`), then run this again. Both files are
committed, so neither CI nor users need the tools.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

UI = Path(__file__).resolve().parents[1]
# A developer tool: it edits the catalogue in the checkout, next to the `.qm` it compiles.
CATALOGUE = UI.parent / "resources" / "i18n" / "flashback_ru.ts"


def _tool(name: str) -> str:
    found = shutil.which(f"pyside6-{name}", path=str(Path(sys.executable).parent)) or shutil.which(f"pyside6-{name}")
    if found is None:
        raise SystemExit(f"pyside6-{name} not found: install PySide6 (the Essentials wheel has it)")
    return found


def unfinished(catalogue: Path = CATALOGUE) -> list[tuple[str, str]]:
    root = ET.parse(catalogue).getroot()
    return [(context.findtext("name", ""), message.findtext("source", ""))
            for context in root.findall("context") for message in context.findall("message")
            if (translation := message.find("translation")) is not None
            and translation.get("type") == "unfinished"]


def main() -> int:
    sources = sorted(str(path) for path in UI.rglob("*.py"))
    subprocess.run([_tool("lupdate"), *sources, "-ts", str(CATALOGUE), "-target-language", "ru_RU",
                    "-no-obsolete"], check=True)
    subprocess.run([_tool("lrelease"), str(CATALOGUE), "-qm", str(CATALOGUE.with_suffix(".qm"))], check=True)
    missing = unfinished()
    for context, source in missing:
        sys.stdout.write(f"untranslated [{context}] {source}\n")
    return 1 if missing else 0


if __name__ == "__main__":
    raise SystemExit(main())
