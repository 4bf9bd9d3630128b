"""Issue 33, items 2 and 4 in the People view: "Same person?" with Merge / Not the same, and a
person's other names, circle and bio edited in place on their card. Real widgets offscreen over
a real store: Alice talks with "Bob" in a JSONL chat and with "bob 🤓" on WhatsApp."""

from __future__ import annotations

import sqlite3
from contextlib import closing

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from engine.api import Flashback
from engine.store.database import DB_FILE_NAME
from tests.engine.topics.conftest import BASE, conversation, write_jsonl
from ui import i18n
from ui.people import PeopleView


@pytest.fixture
def service(tmp_path):
    service = Flashback(tmp_path / "data")
    service.imports.import_path(write_jsonl(tmp_path / "bob.jsonl", conversation("Bob", BASE, [
        ("Alice", "I started a new job as a nurse"),
        ("Bob", "Congrats! I am a carpenter in Porto by the way"),
        ("Bob", "And I play the cello on weekends"),
    ], role_of={"Alice": "user"})))
    whatsapp = tmp_path / "WhatsApp Chat with bob.txt"
    whatsapp.write_text("1/5/24, 10:00 - Alice: lunch?\n1/5/24, 10:01 - bob 🤓: yes, at noon\n", encoding="utf-8")
    service.imports.import_path(whatsapp)
    return service


def _rows(service, sql: str, *params) -> list[tuple]:
    with closing(sqlite3.connect(service.data_dir / DB_FILE_NAME)) as connection:
        return connection.execute(sql, params).fetchall()


def _view(qtbot, service) -> PeopleView:
    view = PeopleView(service)
    qtbot.addWidget(view)
    view.resize(1000, 900)
    view.show()
    view.refresh()
    qtbot.waitUntil(lambda: view.card.data is not None, timeout=20_000)
    return view


def _choose(qtbot, view: PeopleView, name: str) -> None:
    view.choose(next(p.id for p in view.people if p.name == name))
    qtbot.waitUntil(lambda: view.card.data is not None and view.card.data.activity.person.name == name,
                    timeout=20_000)


def test_merge_makes_one_person_of_two(qtbot, service):
    view = _view(qtbot, service)
    assert sorted(p.name for p in view.people if not p.is_self) == ["Bob", "bob 🤓"]
    assert view.card.same.isHidden()  # the owner's card asks nothing
    _choose(qtbot, view, "bob 🤓")
    box = view.card.same
    assert box.isVisible() and box.title.text() == "Same person?"
    assert box.text.text() == "“Bob” (JSONL: Bob; 2 messages, 0 facts) may be bob 🤓 too."

    with qtbot.waitSignal(view.changed, timeout=20_000) as told:  # the window's counts and browse follow
        qtbot.mouseClick(box.merge_button, Qt.MouseButton.LeftButton)
    assert told.args[0].messages

    qtbot.waitUntil(lambda: [p.name for p in view.people if not p.is_self] == ["Bob"], timeout=20_000)
    qtbot.waitUntil(lambda: view.card.data is not None and view.card.data.activity.person.name == "Bob",
                    timeout=20_000)
    assert view.card.data.activity.person.messages == 3 and view.card.who.text() == "Also called: bob 🤓"
    assert view.card.same.isHidden()
    assert len(_rows(service, "SELECT * FROM person_merge")) == 1


def test_not_the_same_is_never_asked_again(qtbot, service):
    view = _view(qtbot, service)
    _choose(qtbot, view, "Bob")
    box = view.card.same
    assert box.isVisible() and box.text.text() == "“bob 🤓” (WhatsApp: bob; 1 message, 0 facts) may be Bob too."
    qtbot.mouseClick(box.refuse_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: view.card.status.text() == "Noted: they are not suggested again.", timeout=20_000)
    qtbot.waitUntil(lambda: box.isHidden(), timeout=20_000)
    assert len(view.people) == 3  # both stay, as themselves
    again = _view(qtbot, Flashback(service.data_dir))
    _choose(qtbot, again, "bob 🤓")
    assert again.card.same.isHidden()


def test_aliases_circle_and_bio_are_edited_in_place(qtbot, service):
    view = _view(qtbot, service)
    _choose(qtbot, view, "Bob")
    card = view.card
    assert card.edit_button.isVisible()
    qtbot.mouseClick(card.edit_button, Qt.MouseButton.LeftButton)
    editor = card.editor
    assert editor.isVisible() and card.who.isHidden() and not card.edit_button.isVisible()
    editor.aliases.setText("Bobby,  Robert ,")
    editor.circle.setCurrentIndex(editor.circle.findData("work"))
    editor.bio.setPlainText("My neighbour from Porto")
    qtbot.mouseClick(editor.save_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: card.who.text() == "Work · Also called: Bobby, Robert", timeout=20_000)
    assert card.bio.text() == "My neighbour from Porto" and editor.isHidden() and card.edit_button.isVisible()
    assert card.status.text() == "Saved: your words outrank the model's."
    assert _rows(service, "SELECT aliases, circle, bio, bio_by_person FROM person WHERE display_name = 'Bob'") == [
        ('["Bobby", "Robert"]', "work", "My neighbour from Porto", 1)]


def test_saving_untouched_fields_does_not_claim_the_bio(qtbot, service):
    bob = next(p.id for p in service.people.everyone() if p.name == "Bob")
    service.facts.add("Is a carpenter in Porto", person_id=bob, kind="about_other", importance=5)
    view = _view(qtbot, service)
    _choose(qtbot, view, "Bob")
    card = view.card
    assert card.bio.text() == "Is a carpenter in Porto."  # made from the facts
    qtbot.mouseClick(card.edit_button, Qt.MouseButton.LeftButton)
    card.editor.aliases.setText("Bobby")
    qtbot.mouseClick(card.editor.save_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: card.who.text() == "Also called: Bobby", timeout=20_000)
    assert _rows(service, "SELECT bio, bio_by_person FROM person WHERE id = ?", bob) == [
        ("Is a carpenter in Porto.", 0)]


@pytest.mark.parametrize("language", ["en", "ru"])
def test_screenshot_of_the_card_with_merge_and_edit(qtbot, service, language):
    app = QApplication.instance()
    translators = i18n.install(app, language) if language == "ru" else []
    try:
        bob = next(p.id for p in service.people.everyone() if p.name == "Bob")
        service.facts.add("Is a carpenter in Porto", person_id=bob, kind="about_other", importance=5)
        view = _view(qtbot, service)
        _choose(qtbot, view, "Bob")
        qtbot.mouseClick(view.card.edit_button, Qt.MouseButton.LeftButton)
        assert view.card.same.isVisible() and view.card.editor.isVisible()
        qtbot.waitUntil(lambda: bool(view.card.rows) and all(row.isVisible() and row.height() > 30
                                                              for row in view.card.rows.values()), timeout=10_000)
        if language == "ru":
            assert view.card.same.title.text() == "Тот же человек?"
            assert view.card.same.refuse_button.text() == "Это разные люди"
        view.grab().save(f"/tmp/people_merge{'' if language == 'en' else '_ru'}.png")
    finally:
        if translators:
            i18n.uninstall(app, translators)
