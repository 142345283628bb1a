"""Making the template and keeping the catalogs up to date: ``python -m bot.i18n extract``.

Two sources of English texts go into the template (``bot/i18n/locales/quetbot.pot``):
- the code: calls of ``t``/``pt``/``n`` (any object's: ``lang.t("...")``) and of the markers ``N_``
  / ``Np_`` with literal strings, in bot/ and cogs/ (as ``pybabel extract -F babel.cfg`` with the
  keywords of `KEYWORDS` does);
- the slash command tree, read from the cogs' classes: group and command names (context
  ``"command name"``), option names (``"option name"``), descriptions and choice names.
Then each language's ``.po`` is updated from the template (as ``pybabel update`` does: new texts
are added untranslated, texts no longer used are dropped, nothing is fuzzy-matched).
"""

from __future__ import annotations

import ast
import datetime as dt
import importlib
import inspect
import pkgutil
from collections.abc import Collection, Iterator, Mapping
from pathlib import Path
from typing import IO

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import write_po

from bot.i18n.catalogs import DOMAIN, TEMPLATE, po_path, read_catalog
from bot.i18n.commands import COMMAND_NAME, OPTION_NAME
from bot.i18n.lang import TRANSLATED

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ("bot", "cogs")
KEYWORDS: dict[str, tuple[int | tuple[int, str], ...] | None] = {
    "t": None,
    "pt": ((1, "c"), 2),
    "n": (1, 2),
    "N_": None,
    "Np_": ((1, "c"), 2),
    "Msg": None,
    # The errors of bot/errors.py raised with a literal template: ``raise BadInput("...", x=1)``.
    **dict.fromkeys(
        (
            "GameError",
            "BadInput",
            "IllegalMove",
            "NotYourTurn",
            "NotAPlayer",
            "NoGameHere",
            "GameOver",
            "StaleButton",
            "NotAllowed",
            "LobbyError",
        )
    ),
}
PROJECT = "Quet Games for Discord"
COMMENT_TAGS = ("i18n:",)  # a comment "# i18n: ..." just above a text reaches its translators

Text = tuple[str | None, str, str, str]  # (context, msgid, where, the file of its cog)
# Fixed dates in the headers, and locations without line numbers, sorted by file: the catalogs
# change only where a text did, so branches that add texts in different files merge cleanly.
STAMP = dt.datetime(2025, 1, 1, tzinfo=dt.UTC)


def extract_python(
    fileobj: IO[bytes],
    keywords: Mapping[str, object],
    comment_tags: Collection[str],
    options: Mapping[str, object],
) -> Iterator[tuple[int, str, tuple[str | None, ...], list[str]]]:
    """Babel's extraction method for our Python files, read with `ast` rather than the tokenizer:
    a call of a keyword whose text arguments are literal strings (implicit concatenation included)
    gives a message; an f-string or any other expression where a text is expected gives none (its
    parts are not texts to translate). A ``# i18n: ...`` comment on the lines just above reaches the
    translators."""
    del options
    source = fileobj.read().decode("utf-8")
    lines = source.splitlines()
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = (
            func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
        )
        if name is None or name not in keywords:
            continue
        args = tuple(
            a.value if isinstance(a, ast.Constant) and isinstance(a.value, str) else None for a in node.args
        )
        if not args or all(a is None for a in args):
            continue
        comments: list[str] = []
        above = node.lineno - 2
        while above >= 0 and lines[above].strip().startswith("#"):
            text = lines[above].strip().lstrip("#").strip()
            if any(text.startswith(tag) for tag in comment_tags):
                comments.insert(0, text)
            above -= 1
        yield node.lineno, name, args, comments


def command_texts() -> Iterator[Text]:
    """Every text of the slash command tree, from the cogs' classes (no bot is built)."""
    from discord import app_commands
    from discord.ext import commands

    import cogs

    for module in pkgutil.iter_modules(cogs.__path__):
        importlib.import_module(f"cogs.{module.name}")
    for cls in sorted(commands.GroupCog.__subclasses__(), key=lambda c: str(c.__cog_group_name__)):
        group = str(cls.__cog_group_name__)
        path = Path(inspect.getfile(cls)).resolve().relative_to(ROOT).as_posix()
        yield COMMAND_NAME, group, f"/{group}", path
        yield None, str(cls.__cog_group_description__), f"/{group}", path
        for command in cls.__cog_app_commands__:
            if not isinstance(command, app_commands.Command):
                continue
            where = f"/{group} {command.name}"
            yield COMMAND_NAME, command.name, where, path
            yield None, command.description, where, path
            for param in command.parameters:
                # The name Discord shows (``from``, not ``from_``): the one the Translator gets.
                name = param.display_name
                yield OPTION_NAME, name, f"{where} {name}:", path
                if param.description and param.description != "…":
                    yield None, param.description, f"{where} {name}:", path
                for choice in param.choices:
                    yield None, choice.name, f"{where} {name}: choice", path


def template() -> Catalog:
    """The template: every English text the bot shows."""
    catalog = Catalog(project=PROJECT, domain=DOMAIN, fuzzy=False, creation_date=STAMP, revision_date=STAMP)
    for source in SOURCES:
        found = extract_from_dir(
            ROOT / source,
            method_map=[("**.py", extract_python)],  # type: ignore[list-item]
            keywords=KEYWORDS,
            comment_tags=COMMENT_TAGS,
            strip_comment_tags=True,
        )
        for filename, lineno, message, comments, context in found:
            path = f"{source}/{filename}"
            catalog.add(message, None, [(path, lineno)], auto_comments=comments, context=context)
    for context, msgid, where, path in command_texts():
        existing = catalog.get(msgid, context)
        if existing is not None:
            existing.auto_comments = sorted({*existing.auto_comments, f"command: {where}"})
            existing.locations = sorted({*existing.locations, (path, 0)})
        else:
            catalog.add(msgid, None, [(path, 0)], auto_comments=[f"command: {where}"], context=context)
    return catalog


def _write(catalog: Catalog, path: Path, **options: bool) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as f:
        write_po(f, catalog, width=100, sort_by_file=True, include_lineno=False, **options)


def update(codes: tuple[str, ...] = TRANSLATED) -> dict[str, int]:
    """Write the template, and update each language's catalog from it; the number of texts each
    language still lacks."""
    pot = template()
    _write(pot, TEMPLATE)
    missing: dict[str, int] = {}
    for code in codes:
        path = po_path(code)
        if path.exists():
            catalog = read_catalog(path, code)
        else:
            catalog = Catalog(locale=code, domain=DOMAIN, project=PROJECT, fuzzy=False)
        catalog.update(pot, no_fuzzy_matching=True)
        catalog.creation_date = catalog.revision_date = STAMP
        catalog.obsolete.clear()
        _write(catalog, path, ignore_obsolete=True)
        missing[code] = sum(1 for m in catalog if m.id and not _complete(m.string))
    return missing


def _complete(string: object) -> bool:
    if isinstance(string, (tuple, list)):
        return bool(string) and all(string)
    return bool(string)
