"""Every sentence the bot can say reads wholly in every language (the catalogs' completeness test).

It finds the sentences itself, so a new one is checked without anyone listing it:
- the extractor reads every text of the code: no sentence is built where it cannot see it (an
  f-string or a concatenation given to ``lang.t``, ``Msg`` or an error: `unextractable`);
- every error class (every `GameError` subclass of bot/ and cogs/) is known: one raised with a
  template says the template's msgid, checked below; one that builds its own sentence is raised
  here with sample fields (`SAMPLES`: a new class fails until it has some), and read in full in
  every language;
- every msgid the extractor finds: translated in every catalog (not empty, and not the English
  itself unless every word of it is one the language spells the same: `SAME_WORDS`, `KEPT`, the
  game titles, command groups and language names), and filled with sample fields in every form
  without an error;
- what a person reads (a msgid filled in, an error in full) holds no three words in a row of the
  English sentence: a heuristic for "partly English", which a half-translated sentence fails.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
import string
from collections.abc import Callable, Iterator
from functools import cache
from types import ModuleType
from typing import Any

import pytest
from babel.messages.catalog import Catalog as PoCatalog
from babel.messages.catalog import Message

import bot
import cogs
from bot.errors import GameError, GameFinished, NotANumber, OutOfRange, WhichGame, YouLeft
from bot.i18n import ENGLISH, LANGUAGES, TRANSLATED, Lang, Msg, language
from bot.i18n.commands import COMMAND_NAME
from bot.i18n.extract import command_texts, error_classes, template, unextractable
from bot.registry import RULES
from bot.storage.errors import StaleVersion
from bot.table.options import BadOption
from cogs.divisors import rules as divisors
from cogs.numbers import rules as numbers
from cogs.updown import rules as updown

# Words spelled the same in a language as in English, reviewed: a translation may keep them, and a
# translation identical to its English is accepted when every word of it is one of these.
SAME_WORDS: dict[str, set[str]] = {
    "de": set("name normal min hand threads".split()),
    "fr": set("apostrophes score total normal point points min pile mode stats position".split()),
    "es": set("total normal min".split()),
    "pt_BR": set("total normal min rating replay".split()),  # "rating", "replay": used as they are
    "ru": set(),
}
# Words kept in every language: values typed as they are (`/game notify mode: mention`).
KEPT = {"mention", "dm", "both", "off"}
# Names kept in every language: the game titles, the command groups, the languages' own names.
NAMES = sorted(
    {
        *(rules.TITLE for rules in RULES.values()),
        *(
            msgid
            for context, msgid, where, _ in command_texts()
            if context == COMMAND_NAME and " " not in where
        ),
        *LANGUAGES.values(),
    },
    key=len,
    reverse=True,
)


def mention(seat: int) -> str:
    return f"<@{1000 + seat}>"


def raised(call: Callable[..., object], *args: Any) -> GameError:
    with pytest.raises(GameError) as info:
        call(*args)
    return info.value


@cache
def code_texts() -> PoCatalog:
    """The template made from the code, as the extractor makes it."""
    return template()


def _which_game() -> Iterator[GameError]:
    """WhichGame with each of its sentences (the service's msgids with a ``{numbers}`` field)."""
    for message in code_texts():
        if "bot/service.py" in {path for path, _ in message.locations} and "{numbers}" in str(message.id):
            sentence = Msg(str(message.id), title="Procession", thread="<#1>", threads="<#1>, <#2>")
            yield WhichGame([4, 7], sentence)


# Errors that build their own sentence, raised with sample fields; each class by its module and name.
SAMPLES: dict[str, Callable[[], list[GameError]]] = {
    "bot.errors.NotANumber": lambda: [
        NotANumber("siete", 1, 7),
        raised(numbers.parse_number, "siete", 3),  # the game's own sentence (or binary)
    ],
    "bot.errors.OutOfRange": lambda: [OutOfRange("9", 1, 7), raised(numbers.parse_number, "9", 3)],
    "bot.errors.GameFinished": lambda: [GameFinished()],
    "bot.errors.YouLeft": lambda: [YouLeft()],
    "bot.errors.WhichGame": lambda: list(_which_game()),
    "bot.storage.errors.StaleVersion": lambda: [StaleVersion()],
    "cogs.divisors.rules.NoPairingLeft": lambda: [divisors.NoPairingLeft([(0, 1), (2, 3)])],
    "cogs.divisors.rules.PickIsFinal": lambda: [divisors.PickIsFinal(1)],
    "cogs.numbers.rules.PickIsFinal": lambda: [numbers.PickIsFinal(5, 1)],
    "cogs.updown.rules.BadLetters": lambda: [
        raised(updown.parse_letters, "up, down"),
        raised(updown.parse_letters, "UDX;é"),
    ],
    "cogs.updown.rules.OutOfPlayoff": lambda: [updown.OutOfPlayoff([0, 2])],
    "cogs.updown.rules.StillPredicting": lambda: [
        updown.StillPredicting([1, 2]),
        updown.StillPredicting([1, 2], seat=1),
        updown.StillPredicting([1], seat=1),
    ],
    "bot.table.options.BadOption": lambda: [
        BadOption(problem, "procession flip", "position")
        for problem in ("missing", "unknown", "twice", "malformed")
    ],
}


def _modules(package: ModuleType) -> Iterator[ModuleType]:
    for info in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
        if not info.name.endswith("__main__"):
            yield importlib.import_module(info.name)


def _subclasses(cls: type) -> Iterator[type]:
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


@pytest.fixture(scope="module")
def error_types() -> dict[str, type]:
    for package in (bot, cogs):
        for _ in _modules(package):
            pass
    found = [GameError, *_subclasses(GameError)]
    return {
        f"{c.__module__}.{c.__qualname__}": c for c in found if c.__module__.startswith(("bot.", "cogs."))
    }


@pytest.fixture(scope="module")
def code_template() -> PoCatalog:
    return code_texts()


# ---- words ------------------------------------------------------------------------------------------


def words(text: str) -> list[str]:
    """The words and numbers of a text as a reader sees them, lowercase: names kept in every
    language, mentions, code, commands and single letters left out (each splits the text, so that
    no run of words spans it)."""
    for name in NAMES:
        text = text.replace(name, " | ")
    text = re.sub(r"`[^`]*`|<[^>]*>|https?://\S+", " | ", text)
    text = re.sub(r"/[a-z][\w-]*(?: [a-z][\w-]*)*", " | ", text)  # a command: /game settings
    return [token.lower() for token in re.findall(r"\||\d+|[^\W\d_]{2,}(?:'[^\W\d_]+)?", text)]


def english_runs(english: str) -> set[tuple[str, str, str]]:
    """Every three words (or two and a number) in a row of an English text, not across a name or a
    ``{field}``."""
    runs = set()
    for literal, _, _, _ in string.Formatter().parse(english):
        said = words(literal)
        for run in zip(said, said[1:], said[2:], strict=False):
            # Two words at least: "from 1 to" is English, "1 to 7" may be a range.
            if "|" not in run and sum(not w.isdigit() and w not in KEPT for w in run) >= 2:
                runs.add(run)
    return runs


def english_left(english: str, text: str) -> list[str]:
    """The runs of three English words of ``english`` that ``text`` still holds."""
    said = words(text)
    have = set(zip(said, said[1:], said[2:], strict=False))
    return sorted(" ".join(run) for run in english_runs(english) & have)


def same_words_only(msgid: str, code: str) -> bool:
    """Whether every word of an English text is one the language writes the same."""
    literal = "".join(lit for lit, _, _, _ in string.Formatter().parse(msgid))
    return all(w == "|" or w in SAME_WORDS[code] | KEPT for w in words(literal))


# ---- the extractor sees every text --------------------------------------------------------------------


def test_no_text_is_built_where_the_extractor_cannot_read_it() -> None:
    found = unextractable()
    assert not found, "put the fields in the template (BadInput('{x} is odd.', x=x)):\n" + "\n".join(found)


def test_every_error_class_is_known(error_types: dict[str, type]) -> None:
    """The extractor finds the same error classes as Python does, and every class that builds its own
    sentence has samples here (add them to `SAMPLES` for a new one)."""
    found = error_classes()
    assert {c.__name__ for c in error_types.values()} == set(found)
    own_sentence = {path for path, cls in error_types.items() if not found[cls.__name__]}
    assert own_sentence == set(SAMPLES), f"samples missing: {own_sentence - set(SAMPLES)}"


# ---- every msgid, in every language ---------------------------------------------------------------------


def sample_fields(text: str) -> dict[str, Any]:
    """A sample value for each ``{field}`` of a text; none for a text with braces that are not fields
    (a rules text's "{3,1,1}" is a multiset: the code shows such a text as it is)."""
    names = {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}
    return dict.fromkeys(names, 7) if all(name.isidentifier() for name in names) else {}


def renderings(message: Message, lang: Lang) -> Iterator[tuple[str, str]]:
    """(English, the language's) for each form of a msgid, its fields filled with samples."""
    if isinstance(message.id, (tuple, list)):
        singular, plural = str(message.id[0]), str(message.id[1])
        fields = {k: v for k, v in sample_fields(plural).items() if k != "count"}
        for count in (1, 2, 5, 21):
            msg = Msg(singular, _plural=plural, _count=count, _context=message.context, **fields)
            yield (singular if count == 1 else plural), lang.say(msg)
        return
    msgid = str(message.id)
    fields = sample_fields(msgid)
    if message.context:
        yield msgid, lang.pt(message.context, msgid, **fields)
    else:
        yield msgid, lang.t(msgid, **fields)


@pytest.mark.parametrize("code", TRANSLATED)
def test_every_text_is_translated(
    code: str, code_template: PoCatalog, catalogs: dict[str, PoCatalog]
) -> None:
    """Every msgid has a translation in the language, and it is not the English (unless every word
    of the English is one the language writes the same)."""
    catalog = catalogs[code]
    missing, english = [], []
    for message in code_template:
        if not message.id:
            continue
        found = catalog.get(message.id, message.context)
        forms = found.string if found is not None else None
        forms = tuple(forms) if isinstance(forms, (tuple, list)) else (forms,)
        if found is None or found.fuzzy or not all(forms):
            missing.append(message.id)
            continue
        ids = tuple(message.id) if isinstance(message.id, (tuple, list)) else (message.id,)
        if any(form in ids for form in forms) and not all(same_words_only(i, code) for i in ids):
            english.append(message.id)
    assert not missing, f"{code}: {len(missing)} texts not translated: {missing[:8]}"
    assert not english, f"{code}: {len(english)} translations are the English: {english[:8]}"


@pytest.mark.parametrize("code", TRANSLATED)
def test_every_text_reads_in_the_language(code: str, code_template: PoCatalog) -> None:
    """Every msgid, filled with sample fields in each plural form, formats without an error and holds
    no three words in a row of its English."""
    lang = language(code)
    partly = []
    for message in code_template:
        if not message.id:
            continue
        for english, said in renderings(message, lang):
            if left := english_left(english, said):
                partly.append((said, left))
    assert not partly, f"{code}: {len(partly)} texts read partly in English: {partly[:8]}"


# ---- every error, in full --------------------------------------------------------------------------------


def sampled_errors() -> Iterator[GameError]:
    for make in SAMPLES.values():
        yield from make()


@pytest.mark.parametrize("code", TRANSLATED)
def test_every_error_reads_wholly_in_the_language(code: str) -> None:
    """Each error that builds its own sentence, read in full (its fields, and the sentences given to
    it, translated too), is not its English, nor partly its English."""
    lang = language(code)
    partly = []
    count = 0
    for error in sampled_errors():
        english = error.in_language(ENGLISH, mention)
        said = error.in_language(lang, mention)
        count += 1
        if said == english or english_left(english, said):
            partly.append((said, english_left(english, said)))
    assert count >= len(SAMPLES)
    assert not partly, f"{code}: {len(partly)} errors read partly in English: {partly[:6]}"


def test_the_heuristic_catches_a_half_english_sentence() -> None:
    english = "9 is out of range: in this game (m = 3) pick from 1 to 7."
    half = english_left(english, "9 is out of range: dans cette partie (m = 3) pick from 1 to 7.")
    assert {"is out of", "out of range", "pick from 1"} <= set(half)
    assert english_left(english, "9 est hors limites : dans cette partie (m = 3), choisis de 1 à 7.") == []
    assert english_left("Open a Procession lobby here", "Ouvre un salon Procession ici") == []
