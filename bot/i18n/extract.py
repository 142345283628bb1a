"""Making the template and keeping the catalogs up to date: ``python -m bot.i18n extract``.

Two sources of English texts go into the template (``bot/i18n/locales/quetbot.pot``):
- the code: calls of ``t``/``pt``/``n`` (any object's: ``lang.t("...")``) and of the markers ``N_``
  / ``Np_`` with literal strings, in bot/ and cogs/ (as ``pybabel extract -F babel.cfg`` with the
  keywords of `KEYWORDS` does), and the templates of the errors: every class deriving from
  ``GameError``, found in the code, raised with a literal template or giving one to its base;
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
from bot.i18n.commands import COMMAND_NAME, OPTION_NAME, name_context
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
}
# The errors (bot/errors.py): every class deriving from it is found in the code (`error_classes`).
# One raised with a literal template (``raise BadInput("...", x=1)``) gives that text, and so does
# the literal template an error class gives its base (``super().__init__("The game is over.")``).
ERROR_ROOT = "GameError"
PROJECT = "Quet Games for Discord"
COMMENT_TAGS = ("i18n:",)  # a comment "# i18n: ..." just above a text reaches its translators

Text = tuple[str | None, str, str, str]  # (context, msgid, where, the file of its cog)
# Fixed dates in the headers, and locations without line numbers, sorted by file: the catalogs
# change only where a text did, so branches that add texts in different files merge cleanly.
STAMP = dt.datetime(2025, 1, 1, tzinfo=dt.UTC)


Call = tuple[int, str, list[ast.expr], list[str]]  # (line, keyword, text arguments, comments)


def extract_python(
    fileobj: IO[bytes],
    keywords: Mapping[str, object],
    comment_tags: Collection[str],
    options: Mapping[str, object],
) -> Iterator[tuple[int, str, tuple[str | None, ...], list[str]]]:
    """Babel's extraction method for our Python files, read with `ast` rather than the tokenizer:
    a call of a keyword whose text arguments are literal strings (implicit concatenation included)
    gives a message; an f-string or any other expression where a text is expected gives none (its
    parts are not texts to translate; `unextractable` names such calls). A ``# i18n: ...`` comment on
    the lines just above reaches the translators. ``options["errors"]``: the error classes, whose
    ``super().__init__("...")`` gives a text too."""
    errors = options.get("errors", ())
    assert isinstance(errors, Collection)
    for lineno, name, nodes, comments in _text_calls(fileobj.read(), keywords, errors, comment_tags):
        args = tuple(
            a.value if isinstance(a, ast.Constant) and isinstance(a.value, str) else None for a in nodes
        )
        if args and any(a is not None for a in args):
            yield lineno, name, args, comments


def _text_calls(
    data: bytes, keywords: Collection[str], errors: Collection[str], comment_tags: Collection[str]
) -> Iterator[Call]:
    """The calls of a file that take texts: of a keyword, and ``super().__init__`` in an error class
    (reported as a call of `ERROR_ROOT`, whose first argument is its template)."""
    source = data.decode("utf-8")
    lines = source.splitlines()
    tree = ast.parse(source)
    in_errors = {
        id(node)
        for cls in ast.walk(tree)
        if isinstance(cls, ast.ClassDef) and cls.name in errors
        for node in ast.walk(cls)
        if isinstance(node, ast.Call) and _is_super_init(node.func)
    }
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = (
            func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
        )
        if id(node) in in_errors:
            name = ERROR_ROOT
        elif name is None or name not in keywords:
            continue
        comments: list[str] = []
        above = node.lineno - 2
        while above >= 0 and lines[above].strip().startswith("#"):
            text = lines[above].strip().lstrip("#").strip()
            if any(text.startswith(tag) for tag in comment_tags):
                comments.insert(0, text)
            above -= 1
        yield node.lineno, name, list(node.args), comments


def _is_super_init(func: ast.expr) -> bool:
    return (
        isinstance(func, ast.Attribute)
        and func.attr == "__init__"
        and isinstance(func.value, ast.Call)
        and isinstance(func.value.func, ast.Name)
        and func.value.func.id == "super"
    )


def _python_files() -> Iterator[tuple[str, Path]]:
    for source in SOURCES:
        for path in sorted((ROOT / source).rglob("*.py")):
            yield path.relative_to(ROOT).as_posix(), path


def error_classes() -> dict[str, bool]:
    """Every error class of the code by name (`ERROR_ROOT` and the classes deriving from it, read
    from the source, nothing imported), and whether its first argument is the template of its
    sentence: it keeps ``GameError(message, /, **fields)``, or its own ``__init__`` takes a
    ``message`` first. ``NotANumber(shown, low, high)`` does not: it builds its sentence itself."""
    bases: dict[str, set[str]] = {}
    template_first: dict[str, bool] = {}  # of the classes with an ``__init__`` of their own
    for _, path in _python_files():
        for cls in ast.walk(ast.parse(path.read_bytes())):
            if not isinstance(cls, ast.ClassDef):
                continue
            bases.setdefault(cls.name, set()).update(
                b.id if isinstance(b, ast.Name) else b.attr if isinstance(b, ast.Attribute) else ""
                for b in cls.bases
            )
            for item in cls.body:
                if isinstance(item, ast.FunctionDef) and item.name == "__init__":
                    params = [*item.args.posonlyargs, *item.args.args][1:]
                    first = bool(params) and params[0].arg == "message"
                    # Two classes of one name (each game's PickIsFinal): a template only if both take one.
                    template_first[cls.name] = template_first.get(cls.name, True) and first
    family = {ERROR_ROOT}
    while grown := {name for name, of in bases.items() if of & family} - family:
        family |= grown

    def takes_template(name: str) -> bool:
        if name in template_first:
            return template_first[name]
        return all(takes_template(base) for base in bases[name] & family)

    return {name: takes_template(name) for name in sorted(family)}


def _keywords(errors: Mapping[str, bool]) -> dict[str, tuple[int | tuple[int, str], ...] | None]:
    return {**KEYWORDS, **{name: None for name, template in errors.items() if template}}


def unextractable() -> list[str]:
    """Where the code builds a text the extractor cannot read, so that it would stay English: an
    f-string, a concatenation, ``%`` or ``.format`` where a keyword or an error takes its text
    ("path:line: call"). Fields belong in the template (``BadInput("{x} is odd.", x=x)``)."""
    errors = error_classes()
    keywords = _keywords(errors)
    found: list[tuple[str, int, str]] = []
    for where, path in _python_files():
        for lineno, name, nodes, _ in _text_calls(path.read_bytes(), keywords, errors, ()):
            spec = keywords.get(name) or (1,)
            texts = [i if isinstance(i, int) else i[0] for i in spec]
            if any(n <= len(nodes) and _built(nodes[n - 1]) for n in texts):
                found.append((where, lineno, f"{name}({ast.unparse(nodes[texts[0] - 1])[:60]}...)"))
    return [f"{where}:{lineno}: {call}" for where, lineno, call in sorted(found)]


def _built(node: ast.expr) -> bool:
    """Whether an expression builds a string from pieces (the pieces are not in any catalog)."""
    if isinstance(node, ast.JoinedStr):
        return True
    if isinstance(node, ast.BinOp):
        return any(
            _built(side) or (isinstance(side, ast.Constant) and isinstance(side.value, str))
            for side in (node.left, node.right)
        )
    if isinstance(node, ast.IfExp):
        return _built(node.body) or _built(node.orelse)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        owner = node.func.value
        return node.func.attr in ("format", "join") and isinstance(owner, ast.Constant)
    return False


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
        listed: list[tuple[str, object]] = []
        for item in cls.__cog_app_commands__:
            if isinstance(item, app_commands.Group):  # a subgroup (/game privacy): its name, then its own
                yield COMMAND_NAME, item.name, f"/{group} {item.name}", path
                yield None, item.description, f"/{group} {item.name}", path
                listed += [(f"/{group} {item.name}", c) for c in item.commands]
            else:
                listed.append((f"/{group}", item))
        for prefix, command in listed:
            if not isinstance(command, app_commands.Command):
                continue
            where = f"{prefix} {command.name}"
            yield name_context(where.removeprefix("/")), command.name, where, path
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
    errors = error_classes()
    for source in SOURCES:
        found = extract_from_dir(
            ROOT / source,
            method_map=[("**.py", extract_python)],  # type: ignore[list-item]
            options_map={"**.py": {"errors": frozenset(errors)}},
            keywords=_keywords(errors),
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
