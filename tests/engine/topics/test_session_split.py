"""Long sessions cut where the subject changes: balanced parts, cut at the valley, never without words."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.topics.session_split import boundary_strength, split_subjects
from engine.topics.sessions import MessageRow, cut_sessions
from engine.topics.settings import TopicSettings

PASTA = ["Boiling the pasta water with plenty of salt tonight", "Carbonara needs guanciale pecorino and eggs",
         "Pasta should stay al dente, drain it early", "Toss the spaghetti with the eggs off the heat",
         "Grate more pecorino over the carbonara plates", "Leftover guanciale goes into tomorrow's sauce"]
CAR = ["Машина опять не заводится утром", "Наверное аккумулятор сел после морозов",
       "Отвези машину в сервис проверить аккумулятор", "В сервисе сказали менять стартер и аккумулятор",
       "Стартер обойдется дороже чем думали", "Заберу машину из сервиса в пятницу"]


def rows(texts: list[str], step: float = 30.0, pauses: dict[int, float] | None = None) -> list[MessageRow]:
    out, at = [], 0.0
    for i, text in enumerate(texts):
        at += (pauses or {}).get(i, step) if i else 0.0
        out.append(MessageRow(i + 1, 1, "Anna" if i % 2 else "Bob", "other", at, text, f"h{i}"))
    return out


def shape(parts) -> list[list[int]]:
    return [[row.id for row in part] for part in parts]


def test_a_short_session_stays_whole_and_zero_target_turns_splitting_off():
    session = rows(PASTA + CAR)
    assert shape(split_subjects(session, 2000, 3600)) == [[row.id for row in session]]  # ~500 chars
    assert len(split_subjects(session, 0, 3600)) == 1


def test_two_subjects_are_cut_where_one_ends_and_the_other_begins():
    session = rows(PASTA * 3 + CAR * 3)  # Latin then Cyrillic: the change is at message 18
    parts = split_subjects(session, sum(len(r.text) for r in session) // 2, 3600)
    assert [len(part) for part in parts] == [18, 18]
    strength = boundary_strength(session, 3600)
    assert max(range(1, len(session)), key=lambda g: strength[g]) == 18


def test_parts_stay_near_the_target_size():
    session = rows((PASTA + CAR) * 8)  # ~3,900 chars per 4 repeats, subjects alternate every 6 messages
    total = sum(len(r.text) for r in session)
    parts = split_subjects(session, 1000, 3600)
    assert len(parts) == round(total / 1000)
    share = total / len(parts)
    assert all(0.3 * share <= sum(len(r.text) for r in part) <= 1.7 * share for part in parts)


def test_a_pause_decides_between_equally_cohesive_gaps():
    texts = [f"status update number {i} about the same deployment pipeline" for i in range(40)]
    session = rows(texts, pauses={23: 1800.0})  # half an hour of silence before message 24
    parts = split_subjects(session, sum(len(t) for t in texts) // 2, 3600)
    assert [part[0].id for part in parts] == [1, 24]


def test_without_words_there_is_no_evidence_of_a_subject_change():
    session = rows(["x" * 900, "ok", "y" * 700, "👍", "zzzz" * 200, "..."] * 3)
    assert len(split_subjects(session, 500, 3600)) == 1


def test_cut_sessions_applies_the_setting_and_keeps_every_message_once():
    session = rows(PASTA * 3 + CAR * 3)
    half = sum(len(r.text) for r in session) // 2
    assert len(list(cut_sessions(session, TopicSettings(subject_chars=half)))) == 2
    assert len(list(cut_sessions(session, TopicSettings(subject_chars=0)))) == 1
    assert len(list(cut_sessions(session, TopicSettings()))) == 1  # 2,000 chars: this session is too short


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(PASTA + CAR + ["ok", "", "x" * 300]), st.floats(0, 3000)),
                max_size=80),
       st.integers(1, 3000))
def test_parts_are_consecutive_non_empty_and_cover_the_session(messages, target):
    session = rows([text for text, _ in messages], pauses={i: gap for i, (_, gap) in enumerate(messages)})
    parts = split_subjects(session, target, 3600)
    assert [row for part in parts for row in part] == session
    assert all(parts) or session == []
    # Half rounds up, as the splitter counts its parts (Python's round() would take 2.5 to 2).
    assert len(parts) <= max(1, math.floor(sum(len(r.text) for r in session) / target + 0.5))
    assert split_subjects(session, target, 3600) == parts  # deterministic
