"""Peak memory of `flashback import` and `flashback build` with one huge message, against the
same export without it, measured in the same run:
`python -m bench.big_message [--mb 50] [--messages 20000] [--formats jsonl,telegram,whatsapp]`.

For each format it writes an export of `--messages` ordinary messages (a few chats, Russian
and English), and a copy where one message is `--mb` MB of text. Each command runs in a
fresh process through `_measure_child`, which reports the peak resident memory of the
command and everything it started (the import's parse child included:
`RUSAGE_CHILDREN`'s max RSS). The ratio with/without is the figure: 1.0 means the size of
one message does not show in memory at all. Ends with one JSON line.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from bench.synth_telegram import _CYRILLIC, _LATIN  # the vocabulary of the import benchmark

_MEASURE = """
import resource, subprocess, sys
code = subprocess.call(sys.argv[1:], stdout=subprocess.DEVNULL)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KiB on Linux
print(f"{code} {peak}")
"""


def _measure_child(command: list[str]) -> tuple[int, float]:
    """(exit code, peak RSS in MiB) of `command` and its descendants."""
    out = subprocess.run([sys.executable, "-c", _MEASURE, *command], capture_output=True, text=True, check=True)
    code, peak = out.stdout.split()
    return int(code), int(peak) / 1024


def _texts(count: int) -> list[str]:
    words = _LATIN + _CYRILLIC
    return [" ".join(words[(i * 7 + j * 13) % len(words)] for j in range(8 + i % 20)) for i in range(count)]


def _huge(mb: int) -> str:
    # Words, not one repeated letter: the build's tokenisers and summaries see real work.
    unit = "Huge pasted log line with words like Lisbon, passport, deploy and Постгрес. "
    return unit * (mb * 1024 * 1024 // len(unit.encode()))


def write_jsonl(path: Path, texts: list[str], huge: str | None) -> None:
    with open(path, "w", encoding="utf-8") as out:
        for i, text in enumerate(texts):
            row = {"chat": f"Chat {i % 5}", "id": str(i), "author": f"Person {i % 7}",
                   "date": f"2025-0{1 + i % 9}-1{i % 10}T1{i % 10}:00:00+00:00", "text": text}
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
        if huge is not None:
            out.write(json.dumps({"chat": "Chat 0", "id": "huge", "author": "Person 1",
                                  "date": "2025-10-01T10:00:00+00:00", "text": huge}, ensure_ascii=False) + "\n")


def write_telegram(path: Path, texts: list[str], huge: str | None) -> None:
    messages = [{"id": i + 1, "type": "message", "date": f"2025-0{1 + i % 9}-1{i % 10}T1{i % 10}:00:00",
                 "date_unixtime": str(1735700000 + i * 600), "from": f"Person {i % 7}", "from_id": f"user{i % 7}",
                 "text": text} for i, text in enumerate(texts)]
    if huge is not None:
        messages.append({"id": len(texts) + 1, "type": "message", "date": "2025-10-01T10:00:00",
                         "date_unixtime": "1759312800", "from": "Person 1", "from_id": "user1", "text": huge})
    path.write_text(json.dumps({"name": "Big chat", "type": "personal_chat", "id": 4242, "messages": messages},
                               ensure_ascii=False), encoding="utf-8")


def write_whatsapp(path: Path, texts: list[str], huge: str | None) -> None:
    with open(path, "w", encoding="utf-8") as out:
        for i, text in enumerate(texts):
            out.write(f"1{i % 10}/0{1 + i % 9}/2025, 1{i % 10}:{i % 60:02d} - Person {i % 7}: {text}\n")
        if huge is not None:
            out.write(f"01/10/2025, 10:00 - Person 1: {huge}\n")


WRITERS = {"jsonl": (write_jsonl, "jsonl"), "telegram": (write_telegram, "json"), "whatsapp": (write_whatsapp, "txt")}


def run(mb: int, messages: int, formats: list[str]) -> dict:
    texts, huge = _texts(messages), _huge(mb)
    figures: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="flashback-bigmsg-") as scratch:
        root = Path(scratch)
        for name in formats:
            writer, suffix = WRITERS[name]
            row: dict[str, float] = {}
            for label, extra in (("baseline", None), ("huge", huge)):
                export = root / f"{name}-{label}.{suffix}"
                writer(export, texts, extra)
                data = root / f"data-{name}-{label}"
                flashback = [sys.executable, "-m", "app", "--data-dir", str(data)]
                code, row[f"import_{label}_mib"] = _measure_child([*flashback, "import", str(export)])
                if code:
                    row[f"import_{label}_exit"] = code
                code, row[f"build_{label}_mib"] = _measure_child([*flashback, "build"])
                if code:
                    row[f"build_{label}_exit"] = code
                export.unlink()
            row["import_ratio"] = round(row["import_huge_mib"] / row["import_baseline_mib"], 2)
            row["build_ratio"] = round(row["build_huge_mib"] / row["build_baseline_mib"], 2)
            figures[name] = {key: round(value, 1) if key.endswith("_mib") else value for key, value in row.items()}
            sys.stderr.write(f"{name:<9} import {row['import_baseline_mib']:7.0f} → {row['import_huge_mib']:7.0f} MiB "
                             f"(×{row['import_ratio']:.2f})   build {row['build_baseline_mib']:7.0f} → "
                             f"{row['build_huge_mib']:7.0f} MiB (×{row['build_ratio']:.2f})\n")
    return {"bench": "big_message", "message_mb": mb, "messages": messages, "formats": figures}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=50)
    parser.add_argument("--messages", type=int, default=20_000)
    parser.add_argument("--formats", default="jsonl,telegram,whatsapp")
    args = parser.parse_args()
    sys.stdout.write(json.dumps(run(args.mb, args.messages, args.formats.split(",")), ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
