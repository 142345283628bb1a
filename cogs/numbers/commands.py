"""/numbers: two players' simultaneous secret numbers write a binary list. Rules in cogs/numbers/rules.py."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

import cogs.numbers.rules as numbers
from bot.i18n.audience import reader
from bot.service import Loaded
from bot.table.catalog import Catalog
from bot.table.commands import CogParts, GameCommands, Timeout, new_command
from bot.table.components import send_modal
from bot.table.ids import ComponentId, custom_id
from bot.table.panels import Panels
from bot.table.play import Plays
from bot.table.routing import Router
from cogs.numbers.present import refusal

M = numbers.M_OPTION
MRange = app_commands.Range[int, M.min, M.max]  # type: ignore[valid-type]
Number = app_commands.Range[int, 1, numbers.largest(M.max)]  # type: ignore[valid-type]


@app_commands.guild_only()
class NumbersCommands(
    commands.GroupCog,
    group_name="numbers",
    group_description="Numbers To Number: secret numbers write a binary list",
):
    def __init__(self, table: GameCommands, plays: Plays, router: Router, catalog: Catalog) -> None:
        self.table, self.plays, self.catalog = table, plays, catalog
        super().__init__()
        router.on_click(numbers.NAME, "pick", self.on_pick_button)
        router.on_form(numbers.NAME, "pick", self.on_pick_form)

    def _check(self, interaction: discord.Interaction, game: Loaded) -> int:
        seat = Panels.seat_of(game, interaction.user.id)
        kind = self.catalog.get(numbers.NAME)
        error = refusal(game.view(seat), seat, kind.table(game)) if game.state else None
        if error is not None:
            raise error
        return seat

    async def on_pick_button(
        self, interaction: discord.Interaction, game: Loaded, cid: ComponentId, values: list[str]
    ) -> None:
        self._check(interaction, game)
        lang = reader(interaction)
        m = game.state.m
        top, example = numbers.largest(m), numbers.largest(m) // 2 + 1
        field: discord.ui.TextInput[Any] = discord.ui.TextInput(
            label=lang.pt("form field", "A number from 1 to {top} you have not played", top=top),
            custom_id="number",
            placeholder=lang.pt(
                "placeholder",
                "for example {example} (or in binary: 0b{binary})",
                example=example,
                binary=numbers.binary(example, m),
            ),
            max_length=20,
        )
        title = lang.pt("form title", "Your number · game #{game_id}", game_id=game.id)
        await send_modal(interaction, title, custom_id(game.id, "pick"), field)

    async def on_pick_form(
        self, interaction: discord.Interaction, game: Loaded, cid: ComponentId, fields: dict[str, str]
    ) -> None:
        self._check(interaction, game)
        number = numbers.parse_number(fields.get("number", ""), game.state.m)
        await self.plays.act(interaction, game, numbers.Pick(number))

    @new_command("Open a Numbers To Number lobby in this channel (2 players)", m=M.description)
    async def new(
        self, interaction: discord.Interaction, m: MRange = M.default, timeout: Timeout = None
    ) -> None:
        await self.table.open_lobby(interaction, numbers, timeout, m=m)

    @app_commands.command(name="pick", description="Pick your secret number for this move (final)")
    @app_commands.describe(number="A number from 1 to 2^m - 1 you have not played yet; only you see it")
    async def pick(self, interaction: discord.Interaction, number: Number) -> None:
        await self.table.play(interaction, numbers, numbers.Pick(number))

    @pick.autocomplete("number")
    async def pick_number(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[int]]:
        """The caller's own unused numbers (nothing when they have picked for this move)."""
        typed = str(current).strip()

        def unused(view: numbers.View, seat: int) -> Iterator[app_commands.Choice[int]]:
            if seat in view.to_act and view.available is not None:
                for k in view.available:
                    if str(k).startswith(typed):
                        yield app_commands.Choice(name=f"{k} ({numbers.binary(k, view.m)})", value=k)

        return await self.table.offer(interaction, numbers, unused)

    @app_commands.command(name="mine", description="Your numbers and your pick (only you see them)")
    async def mine(self, interaction: discord.Interaction) -> None:
        await self.table.show_panel(interaction, numbers)


def cog(parts: CogParts) -> NumbersCommands:
    """The cog, given the parts of the table it uses (bot/app.py builds it through the game's spec)."""
    return NumbersCommands(parts.table, parts.plays, parts.router, parts.catalog)
