"""Import throughput and peak memory of the Signal, iMessage and LINE importers (issue 34).

    python -m bench.import_text_formats [--messages 200000] [--runs 2]

For each format (and WhatsApp's, the text format Flashback already read, for scale) a
synthetic export of `--messages` messages is written (Signal: its Markdown and its JSON
lines), then measured, each run in a fresh process so peak RSS is its own:
  * baseline: the file read plainly, the naive way: read whole, split into lines, one regex
    (or `json.loads` for JSON lines) per line, rows into a bare SQLite table by executemany;
  * parse: the importer alone (records yielded, nothing written), for where the time goes;
  * flashback: `import_path` through the real service (dedup keys, people, attachments,
    FTS5, chat identity, one transaction; big files parsed in a child, whose peak counts too).
Prints a table and, last, one JSON line: per format the messages per second of both, their
ratio (flashback / baseline), both peaks in MiB and both CPU seconds (the process and its
parse child: the work done, which a loaded machine does not stretch as it stretches the wall
clock; Flashback's is spread over two cores, the baseline's is on one).
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta
from pathlib import Path

_START = datetime(2020, 1, 1, 8, 0, 0)
_NAMES = ("Anna", "Me", "Ken", "Sakura")
_WORDS = "the ferry leaves at nine so bring snacks and the tent we should meet at the pier".split()
_PLAIN_LINE = {
    "signal-md": re.compile(r"\[(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})\] (.*?): (.*)"),
    "imessage": re.compile(r"(\w{3} \d{2}, \d{4} +\d{1,2}:\d{2}:\d{2} [AP]M)"),
    "line": re.compile(r"(\d{1,2}:\d{2})\t([^\t]*)\t(.*)"),
    "imessage-html": re.compile(r'<span class="timestamp">(.*?)</span>\s*<span class="sender">(.*?)</span>.*?'
                                r'<span class="bubble">(.*?)</span>', re.DOTALL),
    "whatsapp": re.compile(r"(\d{2}/\d{2}/\d{4}, \d{2}:\d{2}) - (.*?): (.*)"),
}


def _text(n: int) -> str:
    return " ".join(_WORDS[(n * 7 + k) % len(_WORDS)] for k in range(5 + n % 9)) + f" #{n}"


def write_export(kind: str, path: Path, messages: int) -> None:
    with open(path, "w", encoding="utf-8") as out:
        if kind == "line":
            out.write("[LINE] Chat history in Bench Group\nSaved on: 2030/01/01 10:00\n\n")
        day = None
        for n in range(messages):
            at = _START + timedelta(seconds=37 * n)
            who, text = _NAMES[n % len(_NAMES)], _text(n)
            if kind == "signal-md":
                out.write(f"[{at:%Y-%m-%d %H:%M:%S}] {who}: {text}  \n\n")
            elif kind == "signal-json":
                row: dict[str, object] = {
                    "date": at.isoformat(), "sender": who, "body": text + "  ", "quote": "", "sticker": None,
                    "reactions": [], "attachments": [], "deleted": False, "call": False, "missed": False}
                out.write(json.dumps(row, ensure_ascii=False) + "\n")
            elif kind == "imessage-html":
                hour = at.hour % 12 or 12
                stamp = f"{at:%b %d, %Y} {hour:2d}:{at:%M:%S} {'PM' if at.hour >= 12 else 'AM'}"
                out.write(f'<div class="message">\n<div class="received">\n<p><span class="timestamp">{stamp}</span>\n'
                          f'<span class="sender">{who}</span></p>\n<hr><div class="message_part">\n'
                          f'<span class="bubble">{text}</span>\n</div>\n</div>\n</div>\n')
            elif kind == "whatsapp":
                out.write(f"{at:%d/%m/%Y, %H:%M} - {who}: {text}\n")
            elif kind == "imessage":
                hour = at.hour % 12 or 12
                out.write(f"{at:%b %d, %Y} {hour:2d}:{at:%M:%S} {'PM' if at.hour >= 12 else 'AM'}\n{who}\n{text}\n\n")
            else:
                if at.date() != day:
                    day = at.date()
                    out.write(f"\n{at:%Y/%m/%d}({at:%a})\n")
                out.write(f"{at:%H:%M}\t{who}\t{text}\n")


def _baseline(kind: str, export: Path, work: Path) -> dict:
    started = time.perf_counter()
    with open(export, encoding="utf-8") as handle:
        lines = handle.read().split("\n")
    rows = []
    if kind == "signal-json":
        for line in lines:
            if line:
                row = json.loads(line)
                rows.append((row["sender"], row["date"], row["body"].strip()))
    elif kind == "imessage-html":
        rows = [(match[2], match[1], match[3]) for match in _PLAIN_LINE[kind].finditer("\n".join(lines))]
    elif kind == "imessage":
        stamp = _PLAIN_LINE[kind]
        for i, line in enumerate(lines):
            if stamp.fullmatch(line):
                rows.append((lines[i + 1], line, lines[i + 2]))
    else:
        pattern = _PLAIN_LINE[kind]
        for line in lines:
            if match := pattern.fullmatch(line):
                rows.append((match[2], match[1], match[3]))
    connection = sqlite3.connect(work / "baseline.sqlite3")
    connection.execute("CREATE TABLE message (author TEXT, sent TEXT, text TEXT)")
    connection.executemany("INSERT INTO message VALUES (?,?,?)", rows)
    connection.commit()
    connection.close()
    return {"seconds": time.perf_counter() - started, "messages": len(rows)}


def _flashback(export: Path, work: Path) -> dict:
    from engine.importers.runner import import_path

    started = time.perf_counter()
    report = import_path(work / "store", export)
    return {"seconds": time.perf_counter() - started, "messages": report.messages_added,
            "format": report.sources[0].format}


def _parse_only(export: Path) -> dict:
    from engine.importers.inputs import ExportInput
    from engine.importers.records import MessageRecord
    from engine.importers.registry import importer_classes
    from engine.importers.runner import detect_format

    started = time.perf_counter()
    source = ExportInput(export, export.name)
    format_name = detect_format(source)
    assert format_name is not None
    count = sum(1 for record in importer_classes()[format_name]().parse(source, lambda done: None)
                if type(record) is MessageRecord)
    return {"seconds": time.perf_counter() - started, "messages": count}


def _cpu_s() -> float:
    """CPU seconds of this process and its waited-for children (the parse child): the work done,
    which a loaded machine does not stretch as it stretches the wall clock."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _peak_mib() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # the parse child, once waited for
    return (own + children) / 1024


def _one(mode: str, kind: str, export: str) -> None:
    cpu_before = _cpu_s()
    with tempfile.TemporaryDirectory(prefix="flashback-bench-") as scratch:
        work = Path(scratch)
        if mode == "baseline":
            result = _baseline(kind, Path(export), work)
        elif mode == "parse":
            result = _parse_only(Path(export))
        else:
            result = _flashback(Path(export), work)
    result["cpu_s"] = round(_cpu_s() - cpu_before, 3)
    result["peak_mib"] = round(_peak_mib(), 1)
    sys.stdout.write(json.dumps(result) + "\n")


def _run(mode: str, kind: str, export: Path) -> dict:
    done = subprocess.run([sys.executable, "-m", "bench.import_text_formats", "--one", mode, kind, str(export)],
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--messages", type=int, default=200_000)
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--one", nargs=3, metavar=("MODE", "KIND", "EXPORT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        _one(*args.one)
        return
    summary: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="flashback-bench-exports-") as scratch:
        for kind, file_name in (("signal-md", "chat.md"), ("signal-json", "data.json"),
                                ("imessage", "Bench.txt"), ("imessage-html", "Bench.html"), ("line", "line.txt"),
                                ("whatsapp", "WhatsApp Chat with Bench.txt")):  # the existing text format, for scale
            folder = Path(scratch) / kind
            folder.mkdir()
            export = folder / file_name
            write_export(kind, export, args.messages)
            runs: dict[str, list[dict]] = {"baseline": [], "parse": [], "flashback": []}
            for _ in range(args.runs):  # alternating, so a busy machine slows both alike
                for mode in runs:
                    runs[mode].append(_run(mode, kind, export))
            best = {mode: min(results, key=lambda r: r["seconds"]) for mode, results in runs.items()}
            rate = {mode: best[mode]["messages"] / best[mode]["seconds"] for mode in best}
            summary[kind] = {
                "messages": best["flashback"]["messages"], "detected": best["flashback"]["format"],
                "size_mib": round(export.stat().st_size / 2**20, 1),
                "baseline_msgs_per_s": round(rate["baseline"]), "flashback_msgs_per_s": round(rate["flashback"]),
                "ratio": round(rate["flashback"] / rate["baseline"], 3),
                "parse_only_msgs_per_s": round(rate["parse"]),
                "parse_only_ratio": round(rate["parse"] / rate["baseline"], 3),
                "baseline_cpu_s": best["baseline"]["cpu_s"], "flashback_cpu_s": best["flashback"]["cpu_s"],
                "baseline_peak_mib": max(r["peak_mib"] for r in runs["baseline"]),
                "flashback_peak_mib": max(r["peak_mib"] for r in runs["flashback"]),
            }
            row = summary[kind]
            sys.stdout.write(f"{kind:12} {row['size_mib']:7.1f} MiB  baseline {row['baseline_msgs_per_s']:>9,}/s "
                             f"{row['baseline_peak_mib']:7.1f} MiB   flashback {row['flashback_msgs_per_s']:>9,}/s "
                             f"{row['flashback_peak_mib']:7.1f} MiB   ratio {row['ratio']:.2f}   parse only "
                             f"{row['parse_only_msgs_per_s']:>9,}/s   cpu s {row['baseline_cpu_s']:.2f} / "
                             f"{row['flashback_cpu_s']:.2f}\n")
    sys.stdout.write(json.dumps({"bench": "import_text_formats", "messages": args.messages, "runs": args.runs,
                                 "formats": summary}) + "\n")


if __name__ == "__main__":
    main()
