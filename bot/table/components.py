"""Builders for the controls presenters draw (plain discord.py items; the router wraps them)."""

from __future__ import annotations

from typing import TypeAlias

import discord

from bot.i18n import ENGLISH, Lang
from bot.table.ids import custom_id

# A control under a message (a button, a menu), as presenters build them: plain discord.py items,
# in no view yet (the router puts them in one).
Control: TypeAlias = discord.ui.Item[discord.ui.View]


def button(
    label: str,
    cid: str,
    *,
    style: discord.ButtonStyle = discord.ButtonStyle.secondary,
    disabled: bool = False,
    row: int | None = None,
    emoji: str | None = None,
) -> discord.ui.Button[discord.ui.View]:
    return discord.ui.Button(
        label=label[:80], custom_id=cid, style=style, disabled=disabled, emoji=emoji, row=row
    )


def select(
    cid: str, options: list[discord.SelectOption], *, placeholder: str, row: int | None = None
) -> discord.ui.Select[discord.ui.View]:
    return discord.ui.Select(custom_id=cid, options=options[:25], placeholder=placeholder[:150], row=row)


def mine_button(label: str, game_id: int) -> discord.ui.Button[discord.ui.View]:
    """The board button that shows a player their own panel privately (games with secrets)."""
    return button(label, custom_id(game_id, "mine"), style=discord.ButtonStyle.primary)


def rules_button(
    game_id: int, *, below: list[Control] | None = None, lang: Lang = ENGLISH
) -> discord.ui.Button[discord.ui.View]:
    """The button that shows a game's rules privately (on the first board). With ``below``, it takes
    the row under the last row those items name, so it never reads as one of them (a position)."""
    rows = [item.row for item in below or [] if item.row is not None]
    row = max(rows) + 1 if rows and max(rows) < 4 else None
    return button(lang.pt("label", "Rules"), custom_id(game_id, "rules"), emoji="📖", row=row)


def rematch_button(game_id: int, lang: Lang = ENGLISH) -> discord.ui.Button[discord.ui.View]:
    """On a finished game's final board and card: a new lobby of the same game, or joining it."""
    return button(
        lang.pt("label", "Rematch"),
        custom_id(game_id, "rematch"),
        emoji="🔁",
        style=discord.ButtonStyle.primary,
    )


def mute_button(game_id: int, lang: Lang = ENGLISH) -> discord.ui.Button[discord.ui.View]:
    return button(lang.pt("label", "Mute reminders"), custom_id(game_id, "mute"))


async def send_modal(
    interaction: discord.Interaction, title: str, cid: str, *inputs: discord.ui.TextInput[discord.ui.Modal]
) -> None:
    """Open a form. Its submission is routed by custom_id (`Router.form`), like every component, so
    a form opened before a restart still works after it."""
    modal: discord.ui.Modal = discord.ui.Modal(title=title[:45], custom_id=cid, timeout=None)
    for item in inputs:
        modal.add_item(item)
    await interaction.response.send_modal(modal)
    modal.stop()  # discord.py forgets it: the submission takes our route, not an in-memory one
