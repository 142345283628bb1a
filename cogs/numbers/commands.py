"""/numbers: two players' simultaneous secret numbers write a binary list. Rules in cogs/numbers/rules.py."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

import cogs.numbers.rules as numbers
from bot.i18n.audience import reader
from bot.service import Loaded
from bot.table.components import send_modal
from bot.table.ids import ComponentId, custom_id
from bot.table.tools import TIMEOUT_HELP, Timeout, Tools, timeout_autocomplete
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
    def __init__(self, tools: Tools) -> None:
        self.tools = tools
        super().__init__()
        tools.deps.router.on_click(numbers.NAME, "pick", self.on_pick_button)
        tools.deps.router.on_form(numbers.NAME, "pick", self.on_pick_form)

    def _check(self, interaction: discord.Interaction, game: Loaded) -> int:
        seat = self.tools.panels.seat_of(game, interaction.user.id)
        kind = self.tools.deps.catalog.get(numbers.NAME)
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
        await self.tools.plays.act(interaction, game, numbers.Pick(number))

    @app_commands.command(
        name="new", description="Open a Numbers To Number lobby in this channel (2 players)"
    )
    @app_commands.describe(m=M.description, timeout=TIMEOUT_HELP)
    @app_commands.autocomplete(timeout=timeout_autocomplete)
    async def new(
        self,
        interaction: discord.Interaction,
        m: MRange = M.default,
        timeout: Timeout = None,
    ) -> None:
        await self.tools.open_lobby(interaction, numbers, timeout, m=m)

    @app_commands.command(name="pick", description="Pick your secret number for this move (final)")
    @app_commands.describe(number="A number from 1 to 2^m - 1 you have not played yet; only you see it")
    async def pick(self, interaction: discord.Interaction, number: Number) -> None:
        await self.tools.play(interaction, numbers, numbers.Pick(number))

    @pick.autocomplete("number")
    async def pick_number(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[int]]:
        """The caller's own unused numbers (nothing when they have picked for this move)."""
        found = await self.tools.caller_view(interaction, numbers.NAME)
        if found is None:
            return []
        view, seat = found
        if seat not in view.to_act or view.available is None:
            return []
        typed = str(current).strip()
        return [
            app_commands.Choice(name=f"{k} ({numbers.binary(k, view.m)})", value=k)
            for k in view.available
            if str(k).startswith(typed)
        ][:25]

    @app_commands.command(name="mine", description="Your numbers and your pick (only you see them)")
    async def mine(self, interaction: discord.Interaction) -> None:
        await self.tools.panels.show(interaction, await self.tools.game_here(interaction, numbers.NAME))
