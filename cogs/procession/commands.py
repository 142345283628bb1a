"""/procession: flip one digit; a run-length multiset may not repeat. Rules in cogs/procession/rules.py."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

import cogs.procession.rules as procession
from bot.inputs import whole_number
from bot.service import Loaded
from bot.table.commands import CogParts, GameCommands, Timeout, new_command
from bot.table.ids import ComponentId
from bot.table.play import Plays
from bot.table.routing import Router

N = procession.N_OPTION
NRange = app_commands.Range[int, N.min, N.max]  # type: ignore[valid-type]
Position = app_commands.Range[int, 1, N.max]  # type: ignore[valid-type]


@app_commands.guild_only()
class ProcessionCommands(
    commands.GroupCog, group_name="procession", group_description="Procession: flip digits, never repeat"
):
    def __init__(self, table: GameCommands, plays: Plays, router: Router) -> None:
        self.table, self.plays = table, plays
        super().__init__()
        router.on_click(procession.NAME, "flip", self.on_flip, in_dms=False)

    async def on_flip(
        self, interaction: discord.Interaction, game: Loaded, cid: ComponentId, values: list[str]
    ) -> None:
        version = cid.require_version()
        position = whole_number(cid.arg, 1, N.max)
        await self.plays.act(interaction, game, procession.Flip(position), expected_version=version)

    @new_command("Open a Procession lobby in this channel", n=N.description)
    async def new(
        self, interaction: discord.Interaction, n: NRange = N.default, timeout: Timeout = None
    ) -> None:
        await self.table.open_lobby(interaction, procession, timeout, n=n)

    @app_commands.command(name="flip", description="Flip one digit of the row")
    @app_commands.describe(position="Which digit to flip, counted from the left (1 = leftmost)")
    async def flip(self, interaction: discord.Interaction, position: Position) -> None:
        await self.table.play(interaction, procession, procession.Flip(position))

    @flip.autocomplete("position")
    async def flip_position(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[int]]:
        view = await self.table.public_view(interaction, procession)
        if view is None:
            return []
        row = view.rows[-1]
        return [
            app_commands.Choice(name=f"{p} → {procession.flip(row, p)}", value=p)
            for p in view.legal
            if str(p).startswith(current.strip())
        ][:25]


def cog(parts: CogParts) -> ProcessionCommands:
    """The cog, given the parts of the table it uses (bot/app.py builds it through the game's spec)."""
    return ProcessionCommands(parts.table, parts.plays, parts.router)
