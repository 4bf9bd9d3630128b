"""The People view (issue 33): a card per person and one for the owner."""

from ui.people.view import PeopleView

__all__ = ["PeopleView"]
