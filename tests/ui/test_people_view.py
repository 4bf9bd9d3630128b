"""Issue 33: the People view — a card per person and one for the owner, what is known of each
with its messages one click away, the person's edits; offline it still shows people, their
activity and topics and says what a model would add.

Real widgets (offscreen) over the bundled demo imported and built into a real store; facts are
written through the facade's facts service, as extraction or the person would."""

from __future__ import annotations

import sqlite3
from contextlib import closing

import pytest
from PySide6.QtWidgets import QApplication

from engine.api import Changes
from engine.store.database import DB_FILE_NAME
from ui import i18n
from ui.people import PeopleView
from ui.people.card import TOPIC_ROLE


def _view(qtbot, service) -> PeopleView:
    view = PeopleView(service)
    qtbot.addWidget(view)
    view.resize(1000, 800)
    view.show()
    view.refresh()
    qtbot.waitUntil(lambda: view.card.data is not None, timeout=20_000)
    return view


def _choose(qtbot, view: PeopleView, name: str) -> None:
    view.choose(next(p.id for p in view.people if p.name == name))
    qtbot.waitUntil(lambda: view.card.data is not None and view.card.data.activity.person.name == name,
                    timeout=20_000)


def _messages(service, sql: str, *params) -> list[int]:
    with closing(sqlite3.connect(service.data_dir / DB_FILE_NAME)) as connection:
        return [row[0] for row in connection.execute(sql, params)]


def test_offline_every_person_has_a_card_with_activity_and_topics(qtbot, demo_service):
    view = _view(qtbot, demo_service)
    assert view.list.topLevelItemCount() == 12
    assert view.list.topLevelItem(0).text(0) == "Alex Morozov (you)"  # the owner's card comes first and is chosen
    card = view.card
    assert card.data.activity.person.is_self and card.name.text() == "Alex Morozov (you)"
    _choose(qtbot, view, "Tom Becker")
    assert card.activity.text() == "20 messages from 2025-04-08 to 2025-11-05"
    assert card.chats.text() == "Chats: Flat hunting / Квартира"
    assert [m for m, _ in card.chart.months][0] == "2025-04" and sum(n for _, n in card.chart.months) == 20
    assert card.topics.topLevelItemCount() == 13 and card.topics_title.text() == "Topics (13)"
    # No model, no facts: nothing invented, and the card says what a model would add.
    assert not card.rows and card.no_facts.isVisible()
    assert "Nothing is known of Tom Becker beyond their messages" in card.no_facts.text()
    assert "chat model" in card.no_facts.text()
    with qtbot.waitSignal(card.open_topic, timeout=5_000) as opened:
        card.topics.itemDoubleClicked.emit(card.topics.topLevelItem(0), 0)
    assert opened.args == [card.topics.topLevelItem(0).data(0, TOPIC_ROLE), []]


def test_a_fact_shows_its_sources_and_the_person_can_pin_edit_mark_wrong_and_delete(qtbot, demo_service):
    mother = next(p for p in demo_service.people.everyone() if p.name == "Мама")
    said = _messages(demo_service, "SELECT id FROM message WHERE text LIKE '%записалась к терапевту%'")
    facts = demo_service.facts
    demo_service.facts.set_person(mother.id, aliases=["Lena"], circle="family", bio="The owner's mother")
    appointment = facts.add("Booked a therapist appointment for March 14", person_id=mother.id,
                            kind="about_other", importance=4, message_ids=said)
    cake = facts.add("Bakes a honey cake for birthdays", person_id=mother.id, kind="about_other")
    temporary = facts.add("Is in Tver this week", person_id=mother.id, kind="about_other")
    view = _view(qtbot, demo_service)
    _choose(qtbot, view, "Мама")
    card = view.card
    assert card.who.text() == "Family · Also called: Lena" and card.bio.text() == "The owner's mother"
    assert set(card.rows) == {appointment.id, cake.id, temporary.id} and not card.no_facts.isVisible()

    row = card.rows[appointment.id]
    assert row.sources_button.text() == "Sources (1)"
    row.sources_button.click()  # one click: the messages that say it, quoted under the fact
    qtbot.waitUntil(lambda: row.sources.isVisible(), timeout=10_000)
    assert "записалась к терапевту" in row.sources.text()
    with qtbot.waitSignal(row.open_topic, timeout=5_000) as opened:
        row.sources.linkActivated.emit(row.sources.text().split("href='", 1)[1].split("'", 1)[0])
    assert opened.args[1] == said

    card.rows[appointment.id].pin_button.click()
    qtbot.waitUntil(lambda: facts.get(appointment.id).pinned and card.rows[appointment.id].fact.pinned,
                    timeout=10_000)
    assert card.status.text() == "Pinned: always in the profile Flash and Ask are given."

    card.rows[cake.id].edit_button.click()
    dialog = card.edit_dialog
    dialog.setTextValue("Bakes a honey cake (medovik) for every family birthday")
    dialog.accept()
    qtbot.waitUntil(lambda: card.rows[cake.id].fact.text.startswith("Bakes a honey cake (medovik)"), timeout=10_000)
    assert facts.get(cake.id).origin == "person"

    card.rows[temporary.id].wrong_button.click()
    qtbot.waitUntil(lambda: temporary.id not in card.rows, timeout=10_000)
    assert facts.get(temporary.id).state == "wrong"
    card.rows[cake.id].delete_button.click()
    qtbot.waitUntil(lambda: cake.id not in card.rows, timeout=10_000)
    assert facts.get(cake.id).state == "deleted" and set(card.rows) == {appointment.id}


def test_the_owners_card_shows_the_owners_facts(qtbot, demo_service):
    demo_service.facts.add("Works as a backend engineer", type="identity", importance=5)
    view = _view(qtbot, demo_service)
    assert [row.fact.text for row in view.card.rows.values()] == ["Works as a backend engineer"]
    assert view.card.rows[next(iter(view.card.rows))].sources_button.text() == "added by you"


def test_a_build_or_import_refreshes_the_people(qtbot, demo_service):
    view = _view(qtbot, demo_service)
    view.list.clear()
    view.apply_changes(Changes(runs=True))  # a search recorded: people unchanged, nothing read
    assert view.list.topLevelItemCount() == 0
    view.apply_changes(Changes(messages=True))
    qtbot.waitUntil(lambda: view.list.topLevelItemCount() == 12, timeout=20_000)


@pytest.fixture
def russian():
    app = QApplication.instance()
    translators = i18n.install(app, "ru")
    yield
    i18n.uninstall(app, translators)


def test_the_view_speaks_russian(qtbot, demo_service, russian):
    view = _view(qtbot, demo_service)
    assert view.list.topLevelItem(0).text(0) == "Alex Morozov (вы)"
    _choose(qtbot, view, "Паша Ветров")
    card = view.card
    assert card.activity.text() == "5 сообщений с 2025-03-15 по 2025-09-21"
    assert card.topics_title.text() == "Темы (5)" and card.facts_title.text() == "Что известно"
    assert card.no_facts.text().startswith("О человеке «Паша Ветров» пока ничего не известно")
