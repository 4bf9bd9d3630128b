"""A claim's content words, stemmed, each with the form it was written in (for the note that
names what the cited messages lack). Function words carry no fact: sharing "the", "did" or
"что" supports nothing."""

from __future__ import annotations

import re

from engine.text.stemming import fold, stem_word, terms

_WORD = re.compile(r"[^\W_]+")
STOPWORDS = frozenset(terms(
    "a an the and or but of to in on at for with from by about as is are was were be been being it its this that "
    "these those he she they them his her hers their theirs you your we our us i me my mine not no yes will would "
    "can could did do does done has have had there here what when where who whom whose which why how so than then "
    "also just said says say told tell very really too much many some any all both each other such own same "
    "into onto over under up down out off again further once only more most less least one's while during "
    "because if whether might must shall should may get got go went going gone like likely "
    "kind kinds type sort thing things something someone anything way ways lot lots "
    "и в во не что он она они оно на я с со как а то все всё так его её их но да ты к у же вы за бы по только "
    "ее мне было вот от меня еще ещё нет о из ему теперь когда даже ну ли если уже или ни быть был была "
    "были до вас нибудь опять уж вам ведь там потом себя ничего ей может тут где есть надо ней для мы тебя чем "
    "сказал сказала это этот эта эти какой какая какие какое кто куда откуда почему зачем сколько чей чья "
    "чтобы свой своя своё свое своего своей своих своим своими ради тоже также очень ещё"))
# Words a date answer wraps its date in ("the Sunday before 25 May 2023", "the week of …"):
# once the date itself is found they need not be.
SOFT_WORDS = frozenset(terms(
    "before after around about week weekend weeks day days month months year years ago last next early late mid "
    "middle end beginning start previous following same sunday monday tuesday wednesday thursday friday saturday "
    "morning evening night afternoon since until between "
    "до после около неделя неделе недели выходные день дня месяц месяца год года году назад прошлой прошлом "
    "следующей начале конце середине утром вечером ночью"))


def content_words(text: str) -> list[tuple[str, str]]:
    """(stem, surface) for each word of `text` that carries content, in order."""
    found = []
    for match in _WORD.finditer(text):
        surface = match.group(0)
        stem = stem_word(fold(surface))
        if stem in STOPWORDS or (len(stem) < 2 and not stem.isdigit()):
            continue
        found.append((stem, surface))
    return found
