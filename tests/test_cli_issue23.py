"""The CLI's rough edges of issue 23, as a user meets them (real `flashback` processes):

- `--since` after `--until` is refused in one sentence (exit 2), nothing opened;
- `import ""` says the path is empty (it used to import the current folder);
- `eval` prints a table whose columns line up, and `eval --help` says what a QRELS file holds;
- `tune` says whether its gain is within noise, and `tune --save` writes the tuned settings into
  the window's settings file (read back by the window's own loader) where a plain `search` takes
  them as its defaults; a flag still wins;
- `flashback owner` names the account owner in WhatsApp chats.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.cli_run import flashback, one_sentence

FACTS = [  # (chat, text): one topic each (sessions two hours apart)
    ("Team", "the Postgres upgrade moves to Friday night after the backup check"),
    ("Team", "Dan ordered new laptops for the design interns, they arrive Monday"),
    ("Team", "the quarterly budget review is postponed until the auditors reply"),
    ("Family", "grandma's birthday dinner is at the Italian place on Sunday at six"),
    ("Family", "the plumber fixes the kitchen sink leak on Wednesday morning"),
    ("Family", "our flight to Lisbon leaves at 7:40 from terminal two"),
    ("Team", "the office wifi password changed to the new guest network"),
    ("Family", "the cat's vaccination appointment is booked for Thursday"),
]
QUERIES = [("when is the Postgres upgrade", 0), ("laptops for the interns", 1), ("budget review auditors", 2),
           ("grandma birthday dinner", 3), ("kitchen sink plumber", 4), ("flight to Lisbon terminal", 5),
           ("office wifi password", 6), ("cat vaccination appointment", 7)]


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> tuple[Path, Path]:
    work = tmp_path_factory.mktemp("issue23")
    rows = [{"chat": chat, "id": str(i + 1), "author": "Anna" if i % 2 else "Dan",
             "date": f"2024-05-{i + 1:02d}T10:00:00", "text": text} for i, (chat, text) in enumerate(FACTS)]
    export = work / "chats.jsonl"
    export.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    qrels = work / "qrels.json"
    qrels.write_text(json.dumps({"queries": [
        {"id": f"q{n}", "query": query, "category": "team" if FACTS[fact][0] == "Team" else "family",
         "relevant": [{"chat": FACTS[fact][0], "message": str(fact + 1)}]}
        for n, (query, fact) in enumerate(QUERIES)]}), encoding="utf-8")
    data = work / "data"
    assert flashback("import", str(export), data_dir=data).returncode == 0
    assert flashback("build", data_dir=data).returncode == 0
    return data, qrels


def test_since_after_until_is_refused_before_anything_is_opened(tmp_path):
    data = tmp_path / "never"
    result = flashback("search", "hotel", "--since", "2024-05-01", "--until", "2024-04-01", data_dir=data)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    last = result.stderr.strip().splitlines()[-1]
    assert last == ("flashback search: error: The date range is empty: --since 2024-05-01 comes after --until "
                    "2024-04-01; choose a first day on or before the last one.")
    assert not data.exists()
    one_day = flashback("search", "hotel", "--since", "2024-05-01", "--until", "2024-05-01", data_dir=data)
    assert "date range" not in one_day.stderr  # one day is a range (refused only for the missing store)


def test_an_empty_import_path_is_named(tmp_path):
    result = flashback("import", "", data_dir=tmp_path / "data")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines()[-1] == (
        "flashback import: error: argument PATH: the path is empty: give an export file, a folder or a .zip")
    assert not (tmp_path / "data").exists()


def _columns(line: str) -> list[tuple[int, int]]:
    """(start, end) of each run of non-space text separated by two or more spaces."""
    return [(m.start(), m.end()) for m in re.finditer(r"\S+(?: \S+)*", line)]


def test_eval_prints_an_aligned_table_and_its_help_says_what_qrels_hold(small):
    data, qrels = small
    result = flashback("eval", str(qrels), "--reranker", "threshold", data_dir=data)
    assert result.returncode == 0, result.stderr
    header, *rows = result.stdout.splitlines()
    print(result.stdout)  # shown when an assertion below fails
    names = header.split()
    assert len(names) == len(set(names)) > 5 and all(name.count("@") <= 1 for name in names)  # none run together
    assert [row.split()[0] for row in rows] == ["all", "family", "team"]
    ends = [end for _, end in _columns(header)]
    for row in rows:
        cells = _columns(row)
        assert len(cells) == len(names) + 1  # the name, then one figure per header
        assert [end for _, end in cells[1:]] == ends  # right-aligned under their headers
    assert all(re.fullmatch(r"-?[\d,]+(\.\d+)?", cell) for cell in rows[0].split()[1:])

    helped = flashback("eval", "--help", data_dir=data)
    assert helped.returncode == 0
    for words in ('{"queries": [{"id"', '"relevant": [{"chat"', "chat      the chat's key",
                  "message   the export's own", '"not_relevant"', "Export labels"):
        assert words in helped.stdout, words


def test_tune_says_its_noise_and_save_writes_where_search_and_the_window_read(small, tmp_path):
    data, qrels = small
    ini = data / "Flashback" / "Flashback.ini"
    ini.parent.mkdir(exist_ok=True)
    ini.write_text("[General]\nui\\language=ru\n\n[search]\nmode=flash\nthreshold=0.9\nmodel=\"a, b\"\n",
                   encoding="utf-8")  # the window's own lines must survive
    result = flashback("tune", str(qrels), "--no-lexical", "--folds", "2", "--threshold", "0.85", "--save",
                       data_dir=data)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert re.search(r"^[+-]\d\.\d\d F1 over the current settings on queries it was not tuned on(, within noise "
                     r"\(±\d\.\d\d, two standard errors\)|, (worse, )?beyond noise|: the same on every query)",
                     result.stdout, re.M), result.stdout
    saved = next(line for line in lines if line.startswith("saved threshold"))
    assert str(ini) in saved and "`flashback search` and the window use them" in saved
    tuned = json.loads(flashback("tune", str(qrels), "--no-lexical", "--folds", "2", "--threshold", "0.85",
                                 "--json", data_dir=data).stdout)["settings"]

    from PySide6.QtCore import QSettings

    from ui.search.settings_model import load

    window = load(QSettings(str(ini), QSettings.Format.IniFormat))
    assert (window.threshold, window.gap, window.top_k) == pytest.approx(
        (tuned["threshold"], tuned["gap"], tuned["top_k"]))
    assert window.mode == "flash" and window.model == "a, b"
    assert "[General]\nui\\language=ru" in ini.read_text(encoding="utf-8")

    plain = json.loads(flashback("search", "Postgres upgrade", "--json", data_dir=data).stdout)
    assert plain["report"]["settings"] == {"threshold": pytest.approx(tuned["threshold"]),
                                           "gap": pytest.approx(tuned["gap"]), "top_k": tuned["top_k"]}
    flagged = json.loads(flashback("search", "Postgres upgrade", "--json", "--threshold", "0.2",
                                   data_dir=data).stdout)
    assert flagged["report"]["settings"]["threshold"] == pytest.approx(0.2)


def test_the_gain_is_said_against_its_noise():
    from app.cli_tune import noise_words

    assert noise_words({"cross_validated_minus_before": 0.04, "standard_error": 0.025}, "f1") == (
        "+0.04 F1 over the current settings on queries it was not tuned on, within noise (±0.05, two standard "
        "errors): not clearly better than the current settings")
    assert noise_words({"cross_validated_minus_before": 0.12, "standard_error": 0.01}, "f1").endswith(
        ", beyond noise (±0.02, two standard errors)")
    assert noise_words({"cross_validated_minus_before": -0.12, "standard_error": 0.01}, "recall@budget").startswith(
        "-0.12 recall@budget over the current settings on queries it was not tuned on, worse, beyond noise")


def test_tune_without_save_says_how_to_save(small):
    data, qrels = small
    result = flashback("tune", str(qrels), "--no-lexical", "--folds", "2", data_dir=data)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1].startswith("not saved: `flashback tune --save`")


def test_tune_options_come_from_the_settings_schema(tmp_path):
    for flag, value in (("--threshold", "1.5"), ("--top-k", "0"), ("--candidates", "0"), ("--budget", "50")):
        result = flashback("tune", flag, value, data_dir=tmp_path / "data")
        assert result.returncode == 2 and "must be between" in result.stderr, (flag, result.stderr)


def test_owner_names_you_in_whatsapp_chats(tmp_path):
    data = tmp_path / "data"
    chat = tmp_path / "WhatsApp Chat with Bob.txt"
    chat.write_text("1/5/24, 10:00 - Alice: lunch?\n1/5/24, 10:01 - Bob: yes\n", encoding="utf-8")
    assert flashback("import", str(chat), data_dir=data).returncode == 0
    shown = flashback("owner", data_dir=data)
    assert shown.returncode == 0 and shown.stdout.startswith("No import says who you are yet")
    unknown = flashback("owner", "--name", "Alicia", data_dir=data)
    assert unknown.returncode == 1 and one_sentence(unknown.stderr) and "Nobody called 'Alicia'" in unknown.stderr
    named = flashback("owner", "--name", "Alice", data_dir=data)
    assert named.returncode == 0 and named.stdout.startswith("You are Alice: 1 message in 1 chat")
    as_json = json.loads(flashback("owner", "--json", data_dir=data).stdout)
    assert as_json["name"] == "Alice" and as_json["aliases"] == [{"name": "Alice", "format": "whatsapp"}]
