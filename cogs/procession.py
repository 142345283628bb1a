"""/procession: flip one digit; a run-length multiset may not repeat. Rules in bot/games/procession.py."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.gamecog import TIMEOUT_HELP, GameCog, forfeit_text, mention, timeout_autocomplete
from bot.games import procession
from bot.render.procession import render_board
from bot.service import Loaded, MoveResult
from bot.ui import ComponentId, button, custom_id

if TYPE_CHECKING:
    from bot.app import QuetBot


@app_commands.guild_only()
class Procession(GameCog, group_name="procession", group_description="Procession: flip digits, never repeat"):
    rules = procession

    def render(self, view: Any, names: tuple[str, ...]) -> bytes:
        return render_board(view, names)

    def board_items(self, game: Loaded) -> list[discord.ui.Item[Any]]:
        legal = set(procession.legal_positions(game.state))
        return [
            button(
                str(p),
                custom_id(game.id, "flip", p, version=game.row.version),
                disabled=p not in legal,
                row=(p - 1) // 5,
            )
            for p in range(1, game.state.n + 1)
        ]

    def describe(self, result: MoveResult) -> str:
        who = mention(result.after.row.seats[result.seat])
        if result.action["type"] == "forfeit":
            return forfeit_text(result)
        state = result.after.state
        row = state.row
        return (
            f"{who} flipped position {result.action['position']}: `{row}` "
            f"{procession.format_multiset(procession.multiset(row))}"
        )

    async def on_component(
        self, interaction: discord.Interaction, game: Loaded, cid: ComponentId, values: list[str]
    ) -> None:
        if cid.verb != "flip" or not cid.arg.isdigit():
            await super().on_component(interaction, game, cid, values)
            return
        await self.act(
            interaction, game.id, {"type": "flip", "position": int(cid.arg)}, expected_version=cid.version
        )

    @app_commands.command(name="new", description="Open a Procession lobby in this channel")
    @app_commands.describe(n="How many digits the row has (2-12, default 6)", timeout=TIMEOUT_HELP)
    @app_commands.autocomplete(timeout=timeout_autocomplete)
    async def new(
        self,
        interaction: discord.Interaction,
        n: app_commands.Range[int, 2, 12] = 6,
        timeout: app_commands.Range[str, 1, 40] | None = None,
    ) -> None:
        await self.open_lobby(interaction, timeout, n=n)

    @app_commands.command(name="flip", description="Flip one digit of the row")
    @app_commands.describe(position="Which digit to flip, counted from the left (1 = leftmost)")
    async def flip(self, interaction: discord.Interaction, position: app_commands.Range[int, 1, 12]) -> None:
        game = await self.game_here(interaction)
        await self.act(interaction, game.id, {"type": "flip", "position": position})

    @flip.autocomplete("position")
    async def flip_position(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[int]]:
        if interaction.channel_id is None:
            return []
        row = await self.bot.storage.live_game_in_channel(channel_id=interaction.channel_id)
        if row is None or row.kind != self.name or row.state is None:
            return []
        state = procession.State.from_dict(row.state)
        return [
            app_commands.Choice(name=f"{p} → {procession.flip(state.row, p)}", value=p)
            for p in procession.legal_positions(state)
            if str(p).startswith(current.strip())
        ][:25]


async def setup(bot: QuetBot) -> None:
    cog = Procession(bot)
    await bot.add_cog(cog)
    bot.register_game(cog)
