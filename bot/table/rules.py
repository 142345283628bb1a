"""The Rules button of a game's first board: the game's rules, privately (the text /game rules gives)."""

from __future__ import annotations

import discord

from bot.i18n.audience import reader
from bot.rules_text import rules_of
from bot.service import Loaded
from bot.table.ids import ComponentId
from bot.table.replies import reply_private
from bot.table.routing import ANY_GAME, Router


async def on_rules(
    interaction: discord.Interaction, game: Loaded, cid: ComponentId, values: list[str]
) -> None:
    await reply_private(interaction, rules_of(game.row.kind, reader(interaction)))


def route_rules(router: Router) -> None:
    """Send every game's Rules button (``q:<game>:-:rules``) to `on_rules`."""
    router.on_click(ANY_GAME, "rules", on_rules)
