"""/divisors: the Numerical Card Game, secret card picks in round-robin pairings.
Rules in cogs/divisors/rules.py; presentation in present.py."""

from __future__ import annotations

from collections.abc import Iterator

import discord
from discord import app_commands
from discord.ext import commands

import cogs.divisors.rules as divisors
from bot.i18n.audience import reader
from bot.inputs import whole_number
from bot.service import Loaded
from bot.table.commands import CogParts, GameCommands, Timeout, new_command
from bot.table.ids import ComponentId
from bot.table.play import Plays
from bot.table.routing import Router

M = divisors.M_OPTION
MRange = app_commands.Range[int, M.min, M.max]  # type: ignore[valid-type]
Card = app_commands.Range[int, 1, M.max]  # type: ignore[valid-type]


@app_commands.guild_only()
class DivisorsCommands(
    commands.GroupCog,
    group_name="divisors",
    group_description="The Numerical Card Game: divisors, secret cards",
):
    def __init__(self, table: GameCommands, plays: Plays, router: Router) -> None:
        self.table, self.plays = table, plays
        super().__init__()
        router.on_click(divisors.NAME, "pick", self.on_pick_menu)

    async def on_pick_menu(
        self, interaction: discord.Interaction, game: Loaded, cid: ComponentId, values: list[str]
    ) -> None:
        card = whole_number(values[0] if len(values) == 1 else "", 1, M.max)
        await self.plays.act(interaction, game, divisors.Pick(card))

    @new_command("Open a Numerical Card Game lobby in this channel (2-8 players)", m=M.description)
    async def new(
        self, interaction: discord.Interaction, m: MRange = M.default, timeout: Timeout = None
    ) -> None:
        await self.table.open_lobby(interaction, divisors, timeout, m=m)

    @app_commands.command(name="pick", description="Secretly choose the card for your pairing")
    @app_commands.describe(card="A card from your fresh pile (only you see your choice)")
    async def pick(self, interaction: discord.Interaction, card: Card) -> None:
        await self.table.play(interaction, divisors, divisors.Pick(card))

    @pick.autocomplete("card")
    async def pick_card(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[int]]:
        lang = reader(interaction)
        typed = str(current).strip()[:5]

        def cards(view: divisors.View, seat: int) -> Iterator[app_commands.Choice[int]]:
            for v, c in view.hand:
                if str(v).startswith(typed):
                    name = lang.t("{card} (you hold {count})", card=v, count=c) if c > 1 else str(v)
                    yield app_commands.Choice(name=name, value=v)

        return await self.table.offer(interaction, divisors, cards)

    @app_commands.command(name="drop", description="Drop out of the game: your score still counts")
    async def drop(self, interaction: discord.Interaction) -> None:
        await self.table.play(interaction, divisors, divisors.Drop())

    @app_commands.command(name="pile", description="Your fresh pile and your pairing (only you see them)")
    async def pile(self, interaction: discord.Interaction) -> None:
        await self.table.show_panel(interaction, divisors)


def cog(parts: CogParts) -> DivisorsCommands:
    """The cog, given the parts of the table it uses (bot/app.py builds it through the game's spec)."""
    return DivisorsCommands(parts.table, parts.plays, parts.router)
