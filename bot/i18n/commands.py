"""Slash commands in each user's language: the `app_commands.Translator` the command tree syncs with.

The English names and texts in the cogs' decorators stay the canonical ones (the msgids). Names of
commands and groups are translated with the context ``"command name"``, option names with
``"option name"``; descriptions and choice names without a context. A translated name Discord would
refuse (see `valid_name`) is left out, so that command keeps its English name in that language
(tests/unit/test_i18n.py fails on it first).
"""

from __future__ import annotations

import re

import discord
from discord import app_commands

from bot.i18n.lang import ENGLISH, from_discord

COMMAND_NAME = "command name"
OPTION_NAME = "option name"
# Commands whose name means something else than another group's command of the same English name
# (/numbers mine is "my numbers", /game mine "what waits on me"): their name has a context of its own.
OWN_NAME_CONTEXT = {"game mine": "command name: /game mine"}


def name_context(qualified_name: str | None) -> str:
    """The context a command's name is translated with (``qualified_name``: "game mine")."""
    return OWN_NAME_CONTEXT.get(qualified_name or "", COMMAND_NAME)


# Discord's rule for CHAT_INPUT command and option names (lowercase where the script has case).
NAME_RE = re.compile(r"^[-_'\w\u0900-\u097F\u0E00-\u0E7F]{1,32}$")
DESCRIPTION_MAX = 100
CHOICE_NAME_MAX = 100

_NAMES = (
    app_commands.TranslationContextLocation.command_name,
    app_commands.TranslationContextLocation.group_name,
)
_DESCRIPTIONS = (
    app_commands.TranslationContextLocation.command_description,
    app_commands.TranslationContextLocation.group_description,
    app_commands.TranslationContextLocation.parameter_description,
)


def valid_name(name: str) -> bool:
    """Whether Discord takes ``name`` as a command or option name."""
    return bool(NAME_RE.match(name)) and name == name.lower()


class CommandTranslator(app_commands.Translator):
    """Command names, descriptions, options and choices in every language the bot speaks."""

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: discord.Locale,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        qualified = getattr(context.data, "qualified_name", None)
        return translate_command_text(
            string.message, locale, context.location, qualified if isinstance(qualified, str) else None
        )


def translate_command_text(
    message: str,
    locale: object,
    location: app_commands.TranslationContextLocation,
    qualified_name: str | None = None,
) -> str | None:
    """The translation of one text of the command tree, None where English stays."""
    lang = from_discord(locale)
    if lang is ENGLISH:
        return None
    if location in _NAMES:
        text = lang.pt(name_context(qualified_name), message)
        ok = valid_name(text)
    elif location == app_commands.TranslationContextLocation.parameter_name:
        text = lang.pt(OPTION_NAME, message)
        ok = valid_name(text)
    elif location in _DESCRIPTIONS:
        text = lang.t(message)
        ok = 1 <= len(text) <= DESCRIPTION_MAX
    else:  # choice names
        text = lang.t(message)
        ok = 1 <= len(text) <= CHOICE_NAME_MAX
    if not ok or text == message:
        return None
    return text
