"""Slash command options, checked as they arrive, before discord.py reads them.

discord.py trusts Discord to have checked an interaction's options against the synced command: its
`Namespace` keeps each value as sent, and a parameter of a plain type (``int``, ``str``, a
``Range``) reaches the callback as it is. A modified or outdated client can still send anything: the
string "3" or 3.5 for an integer, a number for a string, an option the command does not have, a
required one missing, a value out of its declared range. Such a value used to fail deep inside a
command, as an unexpected error (the apology). So the command tree checks every option against the
command's own parameters first (`check_options`), and refuses a bad one with a sentence naming the
option and what to send instead: a command only ever sees values of its declared types, ranges and
choices. The game's own rules still judge the values (a position past the row's end, a card not in
the pile).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import discord
from discord import app_commands
from discord.enums import AppCommandOptionType as OptionType

from bot.errors import BadInput, Namer
from bot.i18n import N_, Lang
from bot.i18n.commands import COMMAND_NAME, OPTION_NAME, valid_name
from bot.inputs import excerpt, is_ascii_digits
from bot.jsontypes import JSON, JSONMap

DISCORD_INT_MAX = 2**53  # Discord's integer options hold -2^53 to 2^53
_SUBCOMMANDS = (OptionType.subcommand.value, OptionType.subcommand_group.value)
_SNOWFLAKES = {
    OptionType.user: "users",
    OptionType.channel: "channels",
    OptionType.role: "roles",
    OptionType.attachment: "attachments",
}


# What is wrong with a command's options as a whole, in a sentence naming the command and the option.
_COMMAND_PROBLEMS = {
    "missing": N_(
        "The command {command} needs the option {option}. Type / and choose the command from "
        "the list again, with every option."
    ),
    "unknown": N_(
        "The command {command} has no option {option} (your Discord may show an old version "
        "of it). Type / and choose the command from the list again."
    ),
}


class BadOption(BadInput):
    """An option a command cannot take as sent: of the wrong type, out of its range or choices, not
    one of the command's, sent twice, or missing. Its sentence names the option (as the reader's
    Discord shows it) and what to send."""

    def __init__(
        self,
        problem: str,
        command: str,
        option: str = "",
        param: app_commands.Parameter | None = None,
        value: JSON = None,
    ) -> None:
        self.problem, self.command, self.option, self.param, self.value = (
            problem,
            command,
            option,
            param,
            value,
        )
        super().__init__("The command {command} arrived malformed.", command=f"/{command}")  # (see `say`)

    def say(self, lang: Lang, name: Namer | None = None) -> str:
        del name
        command = "/" + " ".join(_shown(lang, COMMAND_NAME, part) for part in self.command.split())
        option = f"`{_shown(lang, OPTION_NAME, self.option)}`"
        again = lang.t("Type / and choose the command from the list again.")
        if self.problem in _COMMAND_PROBLEMS:
            return lang.t(_COMMAND_PROBLEMS[self.problem], command=command, option=option)
        if self.problem == "twice":
            return lang.t("The option {option} arrived twice.", option=option) + " " + again
        if self.problem == "malformed":
            return lang.t("The command {command} arrived malformed.", command=command) + " " + again
        assert self.param is not None
        return (
            lang.t(
                "The option {option} takes {wanted}, not {given}.",
                option=option,
                wanted=_wanted(lang, self.param),
                given=_given(lang, self.value, in_type=self.problem == "range"),
            )
            + " "
            + again
        )


def _shown(lang: Lang, context: str, name: str) -> str:
    """A command's or option's name as the reader's Discord shows it (see bot/i18n/commands.py)."""
    translated = lang.pt(context, name)
    return translated if valid_name(translated) else name


def _lengths(param: app_commands.Parameter) -> tuple[int, int | None]:
    """A text option's shortest and longest lengths (discord.py keeps them as its min and max)."""
    low, high = param.min_value, param.max_value
    return int(low or 0), None if high is None else int(high)


def _bounds(param: app_commands.Parameter) -> tuple[float | None, float | None]:
    low, high = param.min_value, param.max_value
    if param.type is OptionType.integer:  # Discord's own bounds where the command sets none
        low = -DISCORD_INT_MAX if low is None else low
        high = DISCORD_INT_MAX if high is None else high
    return low, high


def _wanted(lang: Lang, param: app_commands.Parameter) -> str:
    """What ``param`` takes, in words: "a whole number from 1 to 12", "text of at most 40 characters",
    "one of easy, normal or hard"."""
    if param.choices:
        # A choice is named as its name begins: "dm", not "dm: a short direct message".
        names = (lang.t(c.name).split(":")[0] for c in param.choices)
        return lang.t("one of {choices}", choices=lang.either(names))
    kind = param.type
    if kind in (OptionType.integer, OptionType.number):
        low, high = param.min_value, param.max_value
        if low is None or high is None:  # the command sets no range (Discord's own bounds apply)
            return lang.t("a whole number") if kind is OptionType.integer else lang.t("a number")
        if kind is OptionType.integer:
            return lang.t("a whole number from {low} to {high}", low=lang.number(low), high=lang.number(high))
        return lang.t("a number from {low} to {high}", low=lang.number(low), high=lang.number(high))
    if kind is OptionType.string:
        shortest, longest = _lengths(param)
        if longest is not None and shortest > 0:
            return lang.n(
                "text of {low} to {count} character",
                "text of {low} to {count} characters",
                longest,
                low=shortest,
            )
        if longest is not None:
            return lang.n("text of at most {count} character", "text of at most {count} characters", longest)
        if shortest > 0:
            return lang.n(
                "text of at least {count} character", "text of at least {count} characters", shortest
            )
        return lang.t("text")
    if kind is OptionType.boolean:
        return lang.t("true or false")
    if kind is OptionType.user:
        return lang.t("a member picked from the list")
    if kind is OptionType.channel:
        return lang.t("a channel picked from the list")
    if kind is OptionType.role:
        return lang.t("a role picked from the list")
    if kind is OptionType.mentionable:
        return lang.t("a member or role picked from the list")
    return lang.t("a file")


def _given(lang: Lang, value: JSON, *, in_type: bool) -> str:
    """What arrived instead, in words: "the text '3'", "the decimal number 3.5", or (a value of the
    right type, out of range or not a choice) the value itself."""
    if isinstance(value, str):
        if not value:
            return lang.t("empty text")
        if in_type and len(value) > 40:
            return lang.n("{count} character", "{count} characters", len(value))
        return repr(excerpt(value)) if in_type else lang.t("the text {value}", value=repr(excerpt(value)))
    if isinstance(value, bool):
        return lang.t("the value {value}", value=str(value).lower())
    if isinstance(value, int):
        shown = str(value) if abs(value) < 10**20 else excerpt(str(value), 20)
        return shown if in_type else lang.t("the whole number {value}", value=shown)
    if isinstance(value, float):
        shown = excerpt(repr(value), 20)
        return shown if in_type else lang.t("the decimal number {value}", value=shown)
    if value is None:
        return lang.t("an empty value")
    return lang.t("something else")


def _problem(param: app_commands.Parameter, option: JSONMap, resolved: JSONMap) -> str | None:
    """What is wrong with one option sent for ``param``: "type", "range", or None (nothing)."""
    if "value" not in option or option.get("type") != param.type.value:
        return "type"
    value, kind = option["value"], param.type
    if kind is OptionType.string:
        if not isinstance(value, str):
            return "type"
        shortest, longest = _lengths(param)
        if len(value) < shortest or (longest is not None and len(value) > longest):
            return "range"
    elif kind in (OptionType.integer, OptionType.number):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return "type"
        if kind is OptionType.integer and not isinstance(value, int):
            return "type"
        if not math.isfinite(value):
            return "type"
        low, high = _bounds(param)
        if (low is not None and value < low) or (high is not None and value > high):
            return "range"
    elif kind is OptionType.boolean:
        if not isinstance(value, bool):
            return "type"
    else:  # an id Discord resolved for us: a member, a channel, a role, a file
        if not isinstance(value, str) or not is_ascii_digits(value) or len(value) > 20:
            return "type"
        if kind is OptionType.mentionable:
            known = {*resolved.get("users", {}), *resolved.get("roles", {})}
        else:
            known = set(resolved.get(_SNOWFLAKES.get(kind, ""), {}))
        if value not in known:
            return "type"
    if param.choices and value not in {c.value for c in param.choices}:
        return "range"
    return None


def _leaf(
    tree: app_commands.CommandTree[discord.Client], data: JSONMap
) -> tuple[list[app_commands.Parameter] | None, str, JSON]:
    """The parameters of the command an interaction's data names, its path ("procession flip") and
    its raw options; (None, ...) when the tree has no such command (discord.py then says it is out
    of date)."""
    name = data.get("name")
    if not isinstance(name, str):
        return None, "", None
    guild_id = data.get("guild_id")
    here = None
    if isinstance(guild_id, str) and is_ascii_digits(guild_id) and len(guild_id) <= 20:
        here = tree.get_command(name, guild=discord.Object(int(guild_id)))
    command = here or tree.get_command(name)
    path = [name]
    options = data.get("options", [])
    while isinstance(command, app_commands.Group):
        sub = (
            next(
                (o for o in options if isinstance(o, dict) and o.get("type") in _SUBCOMMANDS),
                None,
            )
            if isinstance(options, list)
            else None
        )
        if sub is None or not isinstance(sub.get("name"), str):
            return None, " ".join(path), options  # discord.py refuses a group alone
        command = command.get_command(sub["name"])
        path.append(sub["name"])
        options = sub.get("options", [])
    if not isinstance(command, app_commands.Command):
        return None, " ".join(path), options
    return command.parameters, " ".join(path), options


def check_options(tree: app_commands.CommandTree[discord.Client], interaction: discord.Interaction) -> None:
    """Raise `BadOption` when a slash command's (or its autocomplete's) options are not what the
    command takes. The option being typed into (autocomplete's focused one) may hold any text, and
    an autocomplete may leave required options out."""
    data: JSON = interaction.data
    if not isinstance(data, dict) or data.get("type", 1) != 1:
        return
    parameters, path, options = _leaf(tree, data)
    if parameters is None:
        return
    typing = interaction.type is discord.InteractionType.autocomplete
    if not isinstance(options, list) or not all(isinstance(o, dict) for o in options):
        raise BadOption("malformed", path)
    resolved = data.get("resolved") or {}
    resolved = resolved if isinstance(resolved, dict) else {}
    params: dict[str, app_commands.Parameter] = {p.display_name: p for p in parameters}
    seen: set[str] = set()
    for option in options:
        name = option.get("name")
        if not isinstance(name, str) or name not in params or option.get("type") in _SUBCOMMANDS:
            raise BadOption("unknown", path, excerpt(str(name), 32))
        if name in seen:
            raise BadOption("twice", path, name)
        seen.add(name)
        if typing and option.get("focused"):
            continue
        param = params[name]
        problem = _problem(param, option, resolved)
        if problem is not None:
            raise BadOption(problem, path, name, param, option.get("value"))
    if not typing:
        missing: Sequence[str] = [n for n, p in params.items() if p.required and n not in seen]
        if missing:
            raise BadOption("missing", path, missing[0])
