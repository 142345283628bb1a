"""The Rules button of a game's first board: the game's rules, privately (the text /game rules gives)."""

from __future__ import annotations

import discord

from bot.i18n.audience import reader
from bot.service import Loaded
from bot.table.catalog import Catalog
from bot.table.ids import ComponentId
from bot.table.replies import reply_private
from bot.table.routing import ANY_GAME, Router


def route_rules(router: Router, catalog: Catalog) -> None:
    """Send every game's Rules button (``q:<game>:-:rules``) to its game's rules text."""

    async def on_rules(
        interaction: discord.Interaction, game: Loaded, cid: ComponentId, values: list[str]
    ) -> None:
        await reply_private(interaction, catalog.get(game.row.kind).rules_text(reader(interaction)))

    router.on_click(ANY_GAME, "rules", on_rules)
