"""The limits Discord enforces on what a bot sends, checked the way the API checks them.

Each check returns a list of `Problem`s (JSON path, message); an empty list means Discord would
accept it. `form_errors` turns problems into Discord's nested `errors` object for a 50035 reply.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any, NamedTuple


class Problem(NamedTuple):
    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


CONTENT_MAX = 2000
EMBEDS_MAX = 10
EMBED_TOTAL_MAX = 6000
ROWS_MAX = 5
ROW_BUTTONS_MAX = 5
CUSTOM_ID_MAX = 100
SELECT_OPTIONS_MAX = 25
MODAL_TITLE_MAX = 45
MODAL_COMPONENTS_MAX = 5
CHOICES_MAX = 25
SELECT_TYPES = frozenset({3, 5, 6, 7, 8})
COMMAND_NAME = re.compile(r"^[-_'\w]{1,32}$")
# Discord's locales (https://discord.com/developers/docs/reference#locales): the keys of every
# localisation, and a user's or a server's language.
LOCALES = frozenset(
    "id da de en-GB en-US es-ES es-419 fr hr it lt hu nl no pl pt-BR ro fi sv-SE vi tr cs el bg ru uk "
    "hi th zh-CN ja zh-TW ko".split()
)


def check_locale(locale: str) -> None:
    if locale not in LOCALES:
        raise ValueError(f"{locale!r} is not one of Discord's locales")


def _localised(problems: list[Problem], path: str, value: Any, check: Any, what: str) -> dict[str, str]:
    """A ``*_localizations`` map: Discord's locales as keys, each value passing ``check``."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        problems.append(Problem(path, "Must be an object."))
        return {}
    for locale, text in value.items():
        if locale not in LOCALES:
            problems.append(Problem(f"{path}.{locale}", f"Invalid locale {locale!r}."))
        elif not isinstance(text, str) or not check(text):
            problems.append(Problem(f"{path}.{locale}", f"Invalid {what} {text!r}."))
    return value


def _valid_name(text: str) -> bool:
    return bool(COMMAND_NAME.match(text)) and text == text.lower()


def _length(problems: list[Problem], path: str, value: Any, high: int, low: int = 0) -> None:
    if value is None:
        return
    if not isinstance(value, str):
        problems.append(Problem(path, "Must be a string."))
        return
    if len(value) > high:
        problems.append(Problem(path, f"Must be {high} or fewer in length."))
    elif len(value) < low:
        problems.append(Problem(path, f"Must be between {low} and {high} in length."))


def check_embeds(embeds: Any, problems: list[Problem]) -> None:
    if embeds is None:
        return
    if not isinstance(embeds, list):
        problems.append(Problem("embeds", "Must be an array."))
        return
    if len(embeds) > EMBEDS_MAX:
        problems.append(Problem("embeds", f"Must be {EMBEDS_MAX} or fewer in length."))
    total = 0
    for i, embed in enumerate(embeds):
        base = f"embeds.{i}"
        if not isinstance(embed, dict):
            problems.append(Problem(base, "Must be an object."))
            continue
        _length(problems, f"{base}.title", embed.get("title"), 256)
        _length(problems, f"{base}.description", embed.get("description"), 4096)
        footer = embed.get("footer") or {}
        author = embed.get("author") or {}
        _length(problems, f"{base}.footer.text", footer.get("text"), 2048)
        _length(problems, f"{base}.author.name", author.get("name"), 256)
        fields = embed.get("fields") or []
        if len(fields) > 25:
            problems.append(Problem(f"{base}.fields", "Must be 25 or fewer in length."))
        for j, fld in enumerate(fields):
            _length(problems, f"{base}.fields.{j}.name", fld.get("name"), 256, 1)
            _length(problems, f"{base}.fields.{j}.value", fld.get("value"), 1024, 1)
            total += len(str(fld.get("name") or "")) + len(str(fld.get("value") or ""))
        for text in (embed.get("title"), embed.get("description"), footer.get("text"), author.get("name")):
            total += len(str(text or ""))
    if total > EMBED_TOTAL_MAX:
        problems.append(Problem("embeds", f"Embed size exceeds maximum size of {EMBED_TOTAL_MAX}"))


def _check_select(comp: dict[str, Any], path: str, problems: list[Problem]) -> None:
    _length(problems, f"{path}.placeholder", comp.get("placeholder"), 150)
    low = comp.get("min_values", 1)
    high = comp.get("max_values", 1)
    if not (0 <= low <= 25):
        problems.append(Problem(f"{path}.min_values", "Must be between 0 and 25."))
    if not (1 <= high <= 25):
        problems.append(Problem(f"{path}.max_values", "Must be between 1 and 25."))
    if comp.get("type") != 3:
        return
    options = comp.get("options") or []
    if not (1 <= len(options) <= SELECT_OPTIONS_MAX):
        problems.append(Problem(f"{path}.options", "Must be between 1 and 25 in length."))
    if isinstance(high, int) and high > len(options):
        problems.append(Problem(f"{path}.max_values", "Must be less than or equal to the number of options."))
    values: set[str] = set()
    for k, option in enumerate(options):
        opath = f"{path}.options.{k}"
        _length(problems, f"{opath}.label", option.get("label"), 100, 1)
        _length(problems, f"{opath}.value", option.get("value"), 100, 1)
        _length(problems, f"{opath}.description", option.get("description"), 100)
        if option.get("value") in values:
            problems.append(Problem(f"{opath}.value", "Select option values must be unique."))
        values.add(option.get("value"))


def _check_custom_id(comp: dict[str, Any], path: str, seen: set[str], problems: list[Problem]) -> None:
    """A component's custom_id: 1 to 100 characters, unique among the message's (or modal's)."""
    custom_id = comp.get("custom_id")
    if not isinstance(custom_id, str) or not (1 <= len(custom_id) <= CUSTOM_ID_MAX):
        problems.append(Problem(f"{path}.custom_id", "Must be between 1 and 100 in length."))
    elif custom_id in seen:
        problems.append(Problem(f"{path}.custom_id", "Component custom id cannot be duplicated"))
    else:
        seen.add(custom_id)


def _check_interactive(comp: dict[str, Any], path: str, seen: set[str], problems: list[Problem]) -> None:
    ctype = comp.get("type")
    if ctype == 2:
        _length(problems, f"{path}.label", comp.get("label"), 80)
        style = comp.get("style")
        if style == 5:
            if not comp.get("url"):
                problems.append(Problem(f"{path}.url", "A link button needs a url."))
            return
        if style == 6:
            return
        if not comp.get("label") and not comp.get("emoji"):
            problems.append(Problem(f"{path}", "A button needs a label or an emoji."))
    elif ctype not in SELECT_TYPES:
        return
    _check_custom_id(comp, path, seen, problems)
    if ctype in SELECT_TYPES:
        _check_select(comp, path, problems)


def _walk_v2(components: list[Any], path: str) -> Iterator[tuple[str, dict[str, Any]]]:
    for i, comp in enumerate(components):
        if not isinstance(comp, dict):
            continue
        here = f"{path}.{i}"
        yield here, comp
        if isinstance(comp.get("components"), list):
            yield from _walk_v2(comp["components"], f"{here}.components")
        if isinstance(comp.get("accessory"), dict):
            yield from _walk_v2([comp["accessory"]], f"{here}.accessory")


def check_components(components: Any, flags: int, problems: list[Problem]) -> None:
    if components is None:
        return
    if not isinstance(components, list):
        problems.append(Problem("components", "Must be an array."))
        return
    seen: set[str] = set()
    if flags & (1 << 15):  # components v2: a free tree of up to 40 components
        tree = list(_walk_v2(components, "components"))
        if len(tree) > 40:
            problems.append(Problem("components", "Must be 40 or fewer in total."))
        for path, comp in tree:
            _check_interactive(comp, path, seen, problems)
        return
    if len(components) > ROWS_MAX:
        problems.append(Problem("components", f"Must be {ROWS_MAX} or fewer in length."))
    for i, row in enumerate(components):
        path = f"components.{i}"
        if not isinstance(row, dict) or row.get("type") != 1:
            problems.append(Problem(f"{path}.type", "Top-level components must be action rows."))
            continue
        children = row.get("components") or []
        if not children:
            problems.append(Problem(f"{path}.components", "Must be between 1 and 5 in length."))
        has_select = any(c.get("type") in SELECT_TYPES for c in children)
        if has_select and len(children) > 1:
            problems.append(Problem(f"{path}.components", "A select menu must be alone in its row."))
        if len(children) > ROW_BUTTONS_MAX:
            problems.append(Problem(f"{path}.components", "Must be 5 or fewer in length."))
        for j, comp in enumerate(children):
            _check_interactive(comp, f"{path}.components.{j}", seen, problems)


def check_message(body: dict[str, Any], *, n_files: int = 0, creating: bool = True) -> list[Problem]:
    """A message create or edit body (also the `data` of callback types 4 and 7)."""
    problems: list[Problem] = []
    content = body.get("content")
    if content is not None:
        if not isinstance(content, str):
            problems.append(Problem("content", "Must be a string."))
        elif len(content) > CONTENT_MAX:
            problems.append(Problem("content", f"Must be {CONTENT_MAX} or fewer in length."))
    check_embeds(body.get("embeds"), problems)
    check_components(body.get("components"), int(body.get("flags") or 0), problems)
    if creating:
        _check_nonce(body.get("nonce"), problems)
    return problems


NONCE_MAX = 25
INT64 = 2**63


def _check_nonce(nonce: Any, problems: list[Problem]) -> None:
    """A message nonce: an int64, or a string of at most 25 characters."""
    if nonce is None:
        return
    if isinstance(nonce, str):
        if len(nonce) > NONCE_MAX:
            problems.append(Problem("nonce", f"Must be {NONCE_MAX} or fewer in length."))
    elif isinstance(nonce, bool) or not isinstance(nonce, int) or not -INT64 <= nonce < INT64:
        problems.append(Problem("nonce", "Must be an integer or a string of 25 or fewer characters."))


def is_empty_message(body: dict[str, Any], n_files: int) -> bool:
    return not (
        body.get("content")
        or body.get("embeds")
        or body.get("components")
        or n_files
        or body.get("sticker_ids")
        or body.get("poll")
    )


def check_modal(data: dict[str, Any]) -> list[Problem]:
    problems: list[Problem] = []
    _length(problems, "data.title", data.get("title"), MODAL_TITLE_MAX, 1)
    if data.get("title") is None:
        problems.append(Problem("data.title", "This field is required"))
    custom_id = data.get("custom_id")
    if not isinstance(custom_id, str) or not (1 <= len(custom_id) <= CUSTOM_ID_MAX):
        problems.append(Problem("data.custom_id", "Must be between 1 and 100 in length."))
    components = data.get("components") or []
    if not (1 <= len(components) <= MODAL_COMPONENTS_MAX):
        problems.append(Problem("data.components", "Must be between 1 and 5 in length."))
    seen: set[str] = set()
    for i, top in enumerate(components):
        path = f"data.components.{i}"
        if top.get("type") == 1:
            inner = top.get("components") or []
            if len(inner) != 1:
                problems.append(Problem(f"{path}.components", "Must be 1 in length."))
        elif top.get("type") == 18:
            _length(problems, f"{path}.label", top.get("label"), 45, 1)
            inner = [top.get("component") or {}]
        else:
            inner = []
        for j, comp in enumerate(inner):
            cpath = f"{path}.components.{j}"
            if comp.get("type") == 4:
                _length(problems, f"{cpath}.label", comp.get("label"), 45, 1 if top.get("type") == 1 else 0)
                _length(problems, f"{cpath}.placeholder", comp.get("placeholder"), 100)
                _length(problems, f"{cpath}.value", comp.get("value"), 4000)
                for key in ("min_length", "max_length"):
                    value = comp.get(key)
                    if value is not None and not (0 <= value <= 4000):
                        problems.append(Problem(f"{cpath}.{key}", "Must be between 0 and 4000."))
            _check_custom_id(comp, cpath, seen, problems)
    return problems


def check_choices(data: dict[str, Any]) -> list[Problem]:
    problems: list[Problem] = []
    choices = data.get("choices")
    if not isinstance(choices, list):
        return [Problem("data.choices", "This field is required")]
    if len(choices) > CHOICES_MAX:
        problems.append(Problem("data.choices", f"Must be {CHOICES_MAX} or fewer in length."))
    for i, choice in enumerate(choices):
        _length(problems, f"data.choices.{i}.name", choice.get("name"), 100, 1)
        value = choice.get("value")
        if isinstance(value, str):
            _length(problems, f"data.choices.{i}.value", value, 100)
    return problems


def check_commands(commands: Any) -> list[Problem]:
    """Bulk overwrite of application commands: names, descriptions, option counts and order."""
    if not isinstance(commands, list):
        return [Problem("", "Must be an array.")]
    problems: list[Problem] = []
    if len(commands) > 100:
        problems.append(Problem("", "Must be 100 or fewer in length."))
    names: set[tuple[str, int]] = set()
    for i, cmd in enumerate(commands):
        ctype = cmd.get("type", 1)
        key = (cmd.get("name"), ctype)
        if key in names:
            problems.append(Problem(f"{i}.name", "Application command names must be unique"))
        names.add(key)  # type: ignore[arg-type]
        if ctype == 1:
            _check_command_level(cmd, str(i), problems, depth=0)
    _unique_names([c for c in commands if c.get("type", 1) == 1], "", problems)
    return problems


def _check_name(item: dict[str, Any], path: str, what: str, problems: list[Problem]) -> None:
    """A command's or an option's name (1 to 32 characters, lower case) and its description, and
    their localisations (the same rules in each locale)."""
    name = item.get("name")
    if not isinstance(name, str) or not _valid_name(name):
        problems.append(Problem(f"{path}.name", f"Invalid {what} name {name!r}."))
    _length(problems, f"{path}.description", item.get("description"), 100, 1)
    _localised(
        problems, f"{path}.name_localizations", item.get("name_localizations"), _valid_name, f"{what} name"
    )
    _localised(
        problems,
        f"{path}.description_localizations",
        item.get("description_localizations"),
        lambda text: 1 <= len(text) <= 100,
        "description",
    )


def _unique_names(items: list[dict[str, Any]], path: str, problems: list[Problem]) -> None:
    """Siblings (a command's options, a group's subcommands) are named apart in every locale."""
    seen: dict[tuple[str, str], int] = {}
    for k, item in enumerate(items):
        names = {"": item.get("name")} | dict(item.get("name_localizations") or {})
        for locale, name in names.items():
            if (locale, name) in seen:
                problems.append(
                    Problem(f"{path}.{k}.name", f"Duplicate name {name!r} in locale {locale or 'default'}.")
                )
            seen[(locale, str(name))] = k


def _check_command_level(cmd: dict[str, Any], path: str, problems: list[Problem], depth: int) -> None:
    _check_name(cmd, path, "command", problems)
    options = cmd.get("options") or []
    if len(options) > 25:
        problems.append(Problem(f"{path}.options", "Must be 25 or fewer in length."))
    _unique_names(options, f"{path}.options", problems)
    optional_seen = False
    for k, opt in enumerate(options):
        opath = f"{path}.options.{k}"
        otype = opt.get("type")
        if otype in (1, 2):
            if depth >= 2 or (otype == 2 and depth >= 1):
                problems.append(Problem(opath, "Subcommands are nested too deeply."))
            _check_command_level(opt, opath, problems, depth + 1)
            continue
        if opt.get("required"):
            if optional_seen:
                problems.append(Problem(opath, "Required options must be placed before non-required options"))
        else:
            optional_seen = True
        _check_name(opt, opath, "option", problems)
        choices = opt.get("choices") or []
        if len(choices) > 25:
            problems.append(Problem(f"{opath}.choices", "Must be 25 or fewer in length."))
        for c, choice in enumerate(choices):
            _localised(
                problems,
                f"{opath}.choices.{c}.name_localizations",
                choice.get("name_localizations"),
                lambda text: 1 <= len(text) <= 100,
                "choice name",
            )
        if choices and opt.get("autocomplete"):
            problems.append(Problem(f"{opath}.autocomplete", "Autocomplete cannot be set with choices."))


def form_errors(problems: list[Problem]) -> dict[str, Any]:
    """Discord's nested error object: {"content": {"_errors": [{"code": ..., "message": ...}]}}."""
    root: dict[str, Any] = {}
    for problem in problems:
        node = root
        for part in [p for p in problem.path.split(".") if p]:
            node = node.setdefault(part, {})
        code = "BASE_TYPE_MAX_LENGTH" if "or fewer" in problem.message else "BASE_TYPE_INVALID"
        node.setdefault("_errors", []).append({"code": code, "message": problem.message})
    return root
