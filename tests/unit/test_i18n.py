"""The translation layer's safety net (bot/i18n).

Fails when a catalog lacks a text of the code, a translation drops or adds a ``{field}``, a plural
lacks a form of its catalog's Plural-Forms (or those disagree with CLDR's plural categories for the
counts the bot says), or a translated text breaks one of Discord's limits; and checks that what has
no translation reads in English.
"""

from __future__ import annotations

import gettext
import io
import re
import string
from collections import defaultdict
from collections.abc import Callable, Iterator

import pytest
from babel import Locale
from babel.messages.catalog import Catalog as PoCatalog
from babel.messages.catalog import Message
from babel.messages.pofile import read_po
from discord import app_commands

from bot.i18n import ENGLISH, LANGUAGES, TRANSLATED, Lang, Msg, code_of_discord, from_discord, language
from bot.i18n.catalogs import TEMPLATE, messages_of, po_path, read_catalog
from bot.i18n.commands import COMMAND_NAME, OPTION_NAME, translate_command_text, valid_name
from bot.i18n.extract import command_texts, template
from bot.i18n.lang import discord_locales

MESSAGE_LIMIT = 2000
# Texts with these contexts are shown where Discord allows fewer characters.
CONTEXT_LIMITS = {
    "label": 80,
    "placeholder": 150,
    "form title": 45,
    "form field": 45,  # a form's text input label
    "option": 100,
    "choice": 100,
}
# Integers that exercise every plural rule of our languages (teens, 21, 101, 111, 1000, ...).
COUNTS = [*range(0, 300), 1000, 1001, 1011, 1021, 10_000, 100_000, 1_000_000, 1_000_001]


@pytest.fixture(scope="module")
def code_template() -> PoCatalog:
    return template()


def keys(catalog: PoCatalog) -> set[tuple[str | None, str]]:
    return {(m.context, m.id if isinstance(m.id, str) else m.id[0]) for m in catalog if m.id}


def fields_of(text: str) -> set[str]:
    """The ``{fields}`` of a text, with their conversion and format ("{shown!r}", "{n:>3}")."""
    out = set()
    for _, name, spec, conversion in string.Formatter().parse(text):
        if name is not None:
            out.add(name + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else ""))
    return out


def formatted(message: Message) -> bool:
    """Whether the text is formatted when shown: it has fields, or it is a plural (``{count}``)."""
    if isinstance(message.id, (tuple, list)):
        return True
    return "python-brace-format" in message.flags


def translated(catalog: PoCatalog) -> Iterator[Message]:
    """The messages with a translation (a plural: with at least one form)."""
    for message in catalog:
        string = message.string
        if isinstance(string, (tuple, list)):
            string = "".join(string)
        if message.id and string and not message.fuzzy:
            yield message


# ---- completeness -------------------------------------------------------------------------------


def test_the_template_is_the_code(code_template: PoCatalog) -> None:
    """The template in the repository holds exactly the texts of the code (run
    ``python -m bot.i18n extract`` after changing texts)."""
    stored = read_catalog(TEMPLATE)
    missing = keys(code_template) - keys(stored)
    unused = keys(stored) - keys(code_template)
    assert not missing and not unused, f"run python -m bot.i18n extract: missing {missing}, unused {unused}"


@pytest.mark.parametrize("code", TRANSLATED)
def test_every_catalog_has_every_text(
    code: str, code_template: PoCatalog, catalogs: dict[str, PoCatalog]
) -> None:
    catalog = catalogs[code]
    complete = {
        (m.context, m.id if isinstance(m.id, str) else m.id[0])
        for m in translated(catalog)
        if not isinstance(m.string, (tuple, list)) or all(m.string)
    }
    lacking = sorted(keys(code_template) - complete, key=lambda k: (k[0] or "", k[1]))
    assert not lacking, f"{code} lacks {len(lacking)} translations, e.g. {lacking[:5]}"


# ---- placeholders ---------------------------------------------------------------------------------


@pytest.mark.parametrize("code", TRANSLATED)
def test_translations_keep_every_field(code: str, catalogs: dict[str, PoCatalog]) -> None:
    catalog = catalogs[code]
    index = gettext.c2py(catalog.plural_expr)
    problems = []
    for message in translated(catalog):
        if isinstance(message.id, (tuple, list)):
            wanted = fields_of(message.id[1])
            for i, form in enumerate(message.string):
                if not form:
                    continue  # missing: test_every_catalog_has_every_text says so
                have = fields_of(form)
                # A form used for the count 1 alone may say "one" in words instead of {count}.
                only_one = all(n == 1 for n in COUNTS if index(n) == i)
                if have != wanted and not (only_one and have == wanted - {"count"}):
                    problems.append((message.id[0], i, sorted(have ^ wanted)))
        elif formatted(message):
            have, wanted = fields_of(message.string), fields_of(message.id)
            if have != wanted:
                problems.append((message.id, sorted(have ^ wanted)))
        else:  # shown as it is: a brace is a brace, but a {field} here would show raw
            assert not fields_of(message.string), (code, message.id)
    assert not problems, f"{code}: fields dropped or added: {problems[:5]}"


@pytest.mark.parametrize("code", TRANSLATED)
def test_translations_fit_discord(code: str, catalogs: dict[str, PoCatalog]) -> None:
    for message in translated(catalog := catalogs[code]):
        limit = CONTEXT_LIMITS.get(message.context or "", MESSAGE_LIMIT)
        forms = message.string if isinstance(message.string, (tuple, list)) else (message.string,)
        for form in forms:
            assert len(form) <= limit, (catalog.locale, message.id, len(form), limit)


# ---- plurals --------------------------------------------------------------------------------------


# The Plural-Forms each catalog was written for: every plural entry of a catalog has one form per
# index of its header, so the header is part of the translation and changes only with it. The bot
# picks forms by the catalog's own header (bot/i18n/catalogs.py), never by the plural table of the
# Babel that happens to be installed: Babel 2.19 (CLDR 46 data) gives French, Spanish and Portuguese
# a third category, "many", for exact multiples of a million ("1 000 000 de cartes"), which older
# Babels did not. The bot never counts that high (cards, points, players, characters, games), so the
# catalogs keep the two forms they were written with; a new Babel changes neither them nor the bot.
WRITTEN_FOR = {
    "de": "nplurals=2; plural=(n != 1);",
    "fr": "nplurals=2; plural=(n > 1);",
    "es": "nplurals=2; plural=(n != 1);",
    "pt_BR": "nplurals=2; plural=(n > 1);",
    "ru": "nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || "
    "n%100>=20) ? 1 : 2);",
}
# The counts the bot says: far below the millions where CLDR's "many" of fr, es and pt begins.
SAID_COUNTS = [n for n in COUNTS if n < 1_000_000]


def declared_plural_forms(code: str) -> str:
    """The Plural-Forms header of a catalog, read from the file as text (not through Babel)."""
    header = po_path(code).read_text(encoding="utf-8").split("\n\n", 1)[0]
    joined = "".join(re.findall(r'^"(.*)"$', header, re.MULTILINE))
    found = re.search(r"Plural-Forms: *([^\\]*)", joined)
    assert found, f"{code}: the catalog declares no Plural-Forms"
    return found[1].strip()


def _expression(plural_forms: str) -> tuple[int, Callable[[int], int]]:
    found = re.fullmatch(r"nplurals=(\d+); *plural=(.+?);?", plural_forms)
    assert found, plural_forms
    return int(found[1]), gettext.c2py(found[2])


@pytest.mark.parametrize("code", TRANSLATED)
def test_plural_forms_are_the_catalogs_own(code: str, catalogs: dict[str, PoCatalog]) -> None:
    """Each catalog declares the Plural-Forms it was written for, every plural entry has exactly
    that many forms, each form is used, and the bot picks forms by that header (whatever Babel
    would choose for the language today)."""
    declared = declared_plural_forms(code)
    assert declared == WRITTEN_FOR[code], f"{code}: Plural-Forms changed: {declared!r}"
    count, index = _expression(declared)
    assert {index(n) for n in COUNTS} == set(range(count)), (code, declared)
    chosen = language(code).messages.plural_index
    assert [chosen(n) for n in COUNTS] == [index(n) for n in COUNTS], code
    for message in translated(catalogs[code]):
        if isinstance(message.id, (tuple, list)):
            assert len(message.string) == count and all(message.string), (code, message.id)


@pytest.mark.parametrize("code", TRANSLATED)
def test_plural_forms_follow_cldr(code: str) -> None:
    """For every count the bot says, the catalog's forms are CLDR's categories of the language: one
    form per category, one category per form (Russian: one, few, many)."""
    _, index = _expression(declared_plural_forms(code))
    locale = Locale.parse(code)
    forms_of: dict[str, set[int]] = defaultdict(set)
    categories_of: dict[int, set[str]] = defaultdict(set)
    for n in SAID_COUNTS:
        forms_of[locale.plural_form(n)].add(index(n))
        categories_of[index(n)].add(locale.plural_form(n))
    assert all(len(forms) == 1 for forms in forms_of.values()), (code, dict(forms_of))
    assert all(len(cats) == 1 for cats in categories_of.values()), (code, dict(categories_of))


def test_the_plural_choice_is_the_catalog_header_not_babels() -> None:
    """A catalog read from a .po picks its forms by its own header, even where Babel's table for the
    language differs (here: three forms for French, while the catalog has two)."""
    po = (
        'msgid ""\nmsgstr ""\n"Language: fr\\n"\n"Plural-Forms: nplurals=2; plural=(n > 1);\\n"\n\n'
        'msgid "{count} card"\nmsgid_plural "{count} cards"\n'
        'msgstr[0] "{count} carte"\nmsgstr[1] "{count} cartes"\n'
    )
    catalog = read_po(io.BytesIO(po.encode()), locale="fr")
    fr = Lang("fr", messages_of(catalog))
    said = [fr.n("{count} card", "{count} cards", n) for n in (0, 1, 2, 1_000_000)]
    assert said == ["0 carte", "1 carte", "2 cartes", f"{fr.number(1_000_000)} cartes"]


def test_plurals_pick_the_language_form() -> None:
    catalog = PoCatalog(locale="ru")
    catalog.add(("{count} card", "{count} cards"), ("{count} карта", "{count} карты", "{count} карт"))
    ru = Lang("ru", messages_of(catalog))
    said = {n: ru.n("{count} card", "{count} cards", n) for n in (1, 2, 5, 11, 21, 22, 25, 111, 1000)}
    assert said == {
        1: "1 карта",
        2: "2 карты",
        5: "5 карт",
        11: "11 карт",
        21: "21 карта",
        22: "22 карты",
        25: "25 карт",
        111: "111 карт",
        1000: "1\xa0000 карт",
    }
    assert Msg.n("{count} card", "{count} cards", 3).count == 3
    assert ru.say(Msg.n("{count} card", "{count} cards", 3)) == "3 карты"
    assert str(Msg.n("{count} card", "{count} cards", 3)) == "3 cards"


# ---- fallbacks and formats ------------------------------------------------------------------------


def test_what_has_no_translation_reads_in_english() -> None:
    de = language("de")
    assert de.t("No such text {x} exists.", x=7) == "No such text 7 exists."
    assert de.n("{count} unheard-of thing", "{count} unheard-of things", 2) == "2 unheard-of things"
    assert de.say(Msg("Nor {that}.", that=Msg("this"))) == "Nor this."
    assert de.t("Braces {stay} without fields") == "Braces {stay} without fields"
    assert language("xx") is ENGLISH


def test_discord_locales_map_to_our_languages() -> None:
    assert [code_of_discord(x) for x in ("en-US", "en-GB", "de", "fr", "es-ES", "es-419", "pt-BR", "ru")] == [
        "en", "en", "de", "fr", "es", "es", "pt_BR", "ru",
    ]  # fmt: skip
    assert code_of_discord("ja") == code_of_discord("zh-CN") == code_of_discord(None) == "en"
    assert from_discord("es-419") is language("es")
    assert set(discord_locales("es")) == {"es-ES", "es-419"}
    assert {code_of_discord(loc) for loc in discord_locales("pt_BR")} == {"pt_BR"}
    assert set(LANGUAGES) == {"en", *TRANSLATED}


def test_numbers_durations_and_lists_follow_the_language() -> None:
    de, fr, ru, en = language("de"), language("fr"), language("ru"), ENGLISH
    assert en.number(1234.5) == "1,234.5" and de.number(1234.5) == "1.234,5"
    assert de.number(2, 1) == "2,0" and en.number(2.25, 1) == "2.2"
    assert en.duration(36 * 3600) == "1 day and 12 hours"
    assert de.duration(90 * 60) == "1 Stunde und 30 Minuten"
    assert ru.duration(5 * 86400) == "5 дней"
    # Babel has no long Portuguese "day": the short form stands in (never "1 duration-day").
    pt = language("pt_BR")
    assert pt.duration(86400) == "1 dia" and pt.duration(2 * 86400 + 3600) == "2 dias e 1 hora"
    for code in LANGUAGES:
        assert "duration" not in language(code).duration(6 * 86400 + 23 * 3600 + 59 * 60)
    assert en.duration(59) == "less than a minute"
    assert fr.words(["A", "B", "C"]) == "A, B et C"
    assert en.words(["A", "B", "C"]) == "A, B and C" and en.either(["A", "B"]) == "A or B"
    assert en.datetime(0) == "1 Jan 1970, 00:00:00 UTC"
    assert de.date(0) == "01.01.1970"


# ---- slash commands -------------------------------------------------------------------------------

Location = app_commands.TranslationContextLocation


def _location(context: str | None, where: str) -> Location:
    if context is not None and context.startswith(COMMAND_NAME):  # (or a command's own name context)
        return Location.command_name
    if context == OPTION_NAME:
        return Location.parameter_name
    if where.endswith("choice"):
        return Location.choice_name
    return Location.command_description


@pytest.mark.parametrize("code", TRANSLATED)
def test_command_localisations_fit_discord(code: str, catalogs: dict[str, PoCatalog]) -> None:
    """Every translated name is one Discord takes (and unique among its siblings), every description
    and choice fits, and none is dropped at sync time for breaking a rule."""
    lang = language(code)
    siblings: dict[str, dict[str, str]] = defaultdict(dict)  # parent -> translated name -> English
    for context, msgid, where, _ in command_texts():
        location = _location(context, where)
        wanted = lang.pt(context, msgid) if context else lang.t(msgid)
        for locale in discord_locales(code):
            got = translate_command_text(msgid, locale, location, where.removeprefix("/"))
            assert got == (None if wanted == msgid else wanted), (code, where, msgid, wanted)
        if context is not None and (context == OPTION_NAME or context.startswith(COMMAND_NAME)):
            assert valid_name(wanted) and all(c.isalnum() or c in "-_" for c in wanted), (code, where, wanted)
            parent = where.rsplit(" ", 1)[0] if " " in where else ""
            kind = "option" if context == OPTION_NAME else "command"
            other = siblings[f"{kind}:{parent}"].setdefault(wanted, msgid)
            assert other == msgid, f"{code}: {where} and {other} are both named {wanted!r}"
        else:
            assert 1 <= len(wanted) <= 100, (code, where, wanted)
    assert catalogs[code].locale is not None


def test_english_command_names_stay_canonical() -> None:
    for locale in ("en-US", "en-GB", "ja"):
        assert translate_command_text("join", locale, Location.command_name) is None
