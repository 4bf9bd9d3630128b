"""Import throughput of the multi-file formats against `json.load` of the same files.

    python -m bench.import_formats --messages 200000 [--formats discord,messenger,slack] [--runs 1]

For each format a synthetic export of about --messages messages is written in the format's
own layout (Discord: one channel in two `[part N]` files; Messenger: one thread in Meta's
10,000-message parts, text in Meta's Latin-1 escapes; Slack: a workspace of 20 channels of
daily files). Each is then imported, each way in a fresh process so peak RSS is its own:
  * baseline: `json.load` of every file of the export + raw `sqlite3.executemany` of the
    messages' (chat, id, author, time, text) rows — the naive importer;
  * flashback: `import_path` through the real service (grouping, people, artifacts,
    reactions, FTS5, dedup keys, one transaction).
The ratio is flashback's messages per second over the baseline's (>= 1.0: no slower than
loading the JSON). Also the CPU seconds of each (the process and its parse child): the work
done, which a loaded machine does not stretch as it stretches the wall clock; Flashback's is
spread over two cores, the baseline's is on one. Prints a table, then one JSON line with every
figure. Other formats can add a `_write_<format>` and a `_rows_<format>` and join `WRITERS`.
"""

from __future__ import annotations

import argparse
import json
import resource
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

_WORDS = ("hike trail river plan saturday station coffee map ridge lake meet tomorrow photo "
          "привет встреча завтра поезд карта озеро José año café").split()


def _text(index: int) -> str:
    return " ".join(_WORDS[(index * 7 + k * 3) % len(_WORDS)] for k in range(4 + index % 9))


# -- writers: a synthetic export per format ------------------------------------------
def _write_discord(folder: Path, count: int) -> Path:
    author: list[dict] = [{"id": str(800 + k), "name": f"user{k}", "discriminator": "0000", "nickname": f"User {k}",
               "color": None, "isBot": False, "roles": [], "avatarUrl": ""} for k in range(5)]
    half = count // 2
    for part, (start, stop) in enumerate(((0, half), (half, count)), 1):
        messages = [{
            "id": str(10**17 + i), "type": "Default", "timestamp": _iso(1_700_000_000 + i * 30),
            "timestampEdited": None, "callEndedTimestamp": None, "isPinned": False, "content": _text(i),
            "author": author[i % 5], "attachments": [], "components": [], "embeds": [], "stickers": [],
            "reactions": [{"emoji": {"id": "", "name": "\U0001F44D", "code": "thumbsup", "isAnimated": False,
                                     "imageUrl": ""}, "count": 1, "users": [author[(i + 1) % 5]]}]
            if i % 10 == 0 else [],
            "mentions": [], "inlineEmojis": []} for i in range(start, stop)]
        suffix = "" if part == 1 else f" [part {part}]"
        document = {"guild": {"id": "1", "name": "Bench", "iconUrl": ""},
                    "channel": {"id": "2", "type": "GuildTextChat", "categoryId": "3", "category": "Text",
                                "name": "general", "topic": None},
                    "dateRange": {"after": None, "before": None}, "exportedAt": _iso(1_800_000_000),
                    "messages": messages, "messageCount": len(messages)}
        (folder / f"Bench - Text - general [2]{suffix}.json").write_text(json.dumps(document, indent=2),
                                                                         encoding="utf-8")
    return folder


def _write_messenger(folder: Path, count: int) -> Path:
    thread = folder / "your_activity_across_facebook" / "messages" / "inbox" / "anna_1234567890"
    thread.mkdir(parents=True)
    people = ["Anna Ivanova", "José Álvarez"]
    meta = [name.encode().decode("latin-1") for name in people]
    per_part = 10_000
    parts = (count + per_part - 1) // per_part
    for part in range(1, parts + 1):
        newest = count - (part - 1) * per_part  # message_1 holds the newest, newest first
        indexes = range(newest - 1, max(newest - per_part, 0) - 1, -1)
        messages = [{"sender_name": meta[i % 2], "timestamp_ms": (1_600_000_000 + i * 30) * 1000,
                     "content": _text(i).encode().decode("latin-1"),
                     **({"reactions": [{"reaction": "\u2764".encode().decode("latin-1"), "actor": meta[1 - i % 2]}]}
                        if i % 10 == 0 else {})} for i in indexes]
        document = {"participants": [{"name": name} for name in meta], "messages": messages, "title": meta[1],
                    "is_still_participant": True, "thread_type": "Regular", "thread_path": "inbox/anna_1234567890"}
        (thread / f"message_{part}.json").write_text(json.dumps(document, indent=2), encoding="ascii")
    return folder


def _write_slack(folder: Path, count: int) -> Path:
    users = [{"id": f"U{k:03}", "team_id": "T1", "name": f"user{k}", "real_name": f"User {k}",
              "profile": {"display_name": f"User {k}", "real_name": f"User {k}"}} for k in range(10)]
    channels: list[dict] = [{"id": f"C{k:03}", "name": f"channel-{k}", "created": 1_600_000_000, "creator": "U000",
                 "is_archived": False, "is_general": k == 0, "members": [u["id"] for u in users]} for k in range(20)]
    (folder / "users.json").write_text(json.dumps(users, indent=4), encoding="utf-8")
    (folder / "channels.json").write_text(json.dumps(channels, indent=4), encoding="utf-8")
    # 8 days per channel: 162 files, under `inputs._MAX_CANDIDATES` (200 files per folder or zip today,
    # counted before grouping: a real workspace of more files is cut, see docs/formats.md).
    per_day = max(250, -(-count // (len(channels) * 8)))
    for channel_index, channel in enumerate(channels):
        share = count // len(channels) + (1 if channel_index < count % len(channels) else 0)
        (folder / channel["name"]).mkdir()
        for day_start in range(0, share, per_day):
            day = [{"type": "message", "user": f"U{(i % 10):03}", "text": _text(i) + " <@U001>",
                    "ts": f"{1_600_000_000 + day_start // per_day * 86400 + i:.6f}",
                    **({"thread_ts": f"{1_600_000_000 + day_start // per_day * 86400 + day_start:.6f}"}
                       if i % 7 == 3 else {}),
                    **({"reactions": [{"name": "tada", "users": ["U002"], "count": 1}]} if i % 10 == 0 else {})}
                   for i in range(day_start, min(day_start + per_day, share))]
            date = time.strftime("%Y-%m-%d", time.gmtime(1_600_000_000 + day_start // per_day * 86400))
            (folder / channel["name"] / f"{date}.json").write_text(json.dumps(day, indent=4), encoding="utf-8")
    return folder


def _iso(seconds: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S.000+00:00", time.gmtime(seconds))


# -- the baseline's rows: what a naive importer would keep ---------------------------
def _rows_discord(folder: Path) -> Iterator[tuple]:
    for path in sorted(folder.glob("*.json")):
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
        for message in data["messages"]:
            yield (data["channel"]["id"], message["id"], message["author"]["nickname"], message["timestamp"],
                   message["content"])


def _rows_messenger(folder: Path) -> Iterator[tuple]:
    for path in sorted(folder.rglob("message_*.json")):
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
        for message in data["messages"]:
            yield (data["thread_path"], None, message["sender_name"], message["timestamp_ms"] / 1000,
                   message.get("content", ""))


def _rows_slack(folder: Path) -> Iterator[tuple]:
    for path in sorted(folder.glob("*/*.json")):
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
        for message in data:
            yield (path.parent.name, message["ts"], message.get("user"), float(message["ts"]), message["text"])


WRITERS: dict[str, tuple[Callable[[Path, int], Path], Callable[[Path], Iterator[tuple]]]] = {
    "discord": (_write_discord, _rows_discord),
    "messenger": (_write_messenger, _rows_messenger),
    "slack": (_write_slack, _rows_slack),
}


# -- one measurement, in its own process ---------------------------------------------
def _cpu_s() -> float:
    """CPU seconds of this process and its waited-for children (the parse child): the work done,
    which a loaded machine does not stretch as it stretches the wall clock."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _measure(way: str, format_name: str, export: Path, work: Path) -> dict:
    cpu_before = _cpu_s()
    started = time.perf_counter()
    if way == "baseline":
        rows = list(WRITERS[format_name][1](export))
        conn = sqlite3.connect(work / "baseline.sqlite3")
        conn.execute("CREATE TABLE message (chat TEXT, ext TEXT, author TEXT, sent_at, text TEXT)")
        conn.executemany("INSERT INTO message VALUES (?,?,?,?,?)", rows)
        conn.commit()
        conn.close()
        messages = len(rows)
    else:
        from engine.importers.runner import import_path

        report = import_path(work / "data", export)
        messages = report.messages_added
    seconds = time.perf_counter() - started
    cpu_s = _cpu_s() - cpu_before
    # The parse child (a big export) is a child of this process: its peak counts too. Linux: VmHWM,
    # since ru_maxrss keeps the forking bench's own peak across exec.
    own_kb = _high_water_kb() or resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    child_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return {"seconds": seconds, "cpu_s": round(cpu_s, 3), "messages": messages,
            "peak_rss_mb": round((own_kb + child_kb) / 1024, 1),
            "own_rss_mb": round(own_kb / 1024, 1), "child_rss_mb": round(child_kb / 1024, 1)}


def _high_water_kb() -> int | None:
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def _run(way: str, format_name: str, export: Path, scratch: Path) -> dict:
    work = Path(tempfile.mkdtemp(dir=scratch))
    done = subprocess.run([sys.executable, "-m", "bench.import_formats", "--measure", way, "--format", format_name,
                           "--export", str(export), "--work", str(work)], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{way} {format_name} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=200_000)
    parser.add_argument("--formats", default=",".join(WRITERS))
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--measure", choices=("baseline", "flashback"), help=argparse.SUPPRESS)
    parser.add_argument("--format", help=argparse.SUPPRESS)
    parser.add_argument("--export", help=argparse.SUPPRESS)
    parser.add_argument("--work", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        figures = _measure(args.measure, args.format, Path(args.export), Path(args.work))
        sys.stdout.write(json.dumps(figures) + "\n")
        return
    results: dict[str, dict] = {}
    with tempfile.TemporaryDirectory(prefix="flashback-bench-formats-") as scratch_name:
        scratch = Path(scratch_name)
        for format_name in args.formats.split(","):
            export = scratch / format_name
            export.mkdir()
            WRITERS[format_name][0](export, args.messages)
            size = sum(path.stat().st_size for path in export.rglob("*.json"))
            runs: dict[str, list[dict]] = {"baseline": [], "flashback": []}
            for _ in range(args.runs):  # alternating, so drift hits both alike
                for way in ("baseline", "flashback"):
                    runs[way].append(_run(way, format_name, export, scratch))
            best = {way: min(found, key=lambda run: run["seconds"]) for way, found in runs.items()}
            rate = {way: run["messages"] / run["seconds"] for way, run in best.items()}
            results[format_name] = {
                "export_mb": round(size / 1024**2, 1), "messages": best["flashback"]["messages"],
                "baseline_s": round(best["baseline"]["seconds"], 3),
                "flashback_s": round(best["flashback"]["seconds"], 3),
                "baseline_msgs_per_s": round(rate["baseline"]), "flashback_msgs_per_s": round(rate["flashback"]),
                "ratio": round(rate["flashback"] / rate["baseline"], 3),
                "baseline_cpu_s": best["baseline"]["cpu_s"], "flashback_cpu_s": best["flashback"]["cpu_s"],
                "baseline_peak_rss_mb": best["baseline"]["peak_rss_mb"],
                "flashback_peak_rss_mb": best["flashback"]["peak_rss_mb"],
            }
    sys.stdout.write(f"{'format':<10} {'MB':>6} {'messages':>9} {'json.load s':>11} {'flashback s':>11} "
                     f"{'ratio':>6} {'RSS json MB':>11} {'RSS fb MB':>9} {'cpu json s':>10} {'cpu fb s':>8}\n")
    for name, row in results.items():
        sys.stdout.write(f"{name:<10} {row['export_mb']:>6} {row['messages']:>9} {row['baseline_s']:>11} "
                         f"{row['flashback_s']:>11} {row['ratio']:>6} {row['baseline_peak_rss_mb']:>11} "
                         f"{row['flashback_peak_rss_mb']:>9} {row['baseline_cpu_s']:>10} {row['flashback_cpu_s']:>8}\n")
    sys.stdout.write(json.dumps({"bench": "import_formats", "messages_asked": args.messages, "runs": args.runs,
                                 "formats": results}) + "\n")


if __name__ == "__main__":
    main()
