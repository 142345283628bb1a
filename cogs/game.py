"""/game: the commands every game shares (join, start, status, rules, leave, cancel)."""

from __future__ import annotations

import discord
from discord import app_commands
from discord.ext import commands

from bot.errors import GameError
from bot.games.base import FORFEIT
from bot.rules_text import RULES_TEXT, rules_of
from bot.table.lobby import channel_of
from bot.table.replies import fit, mention, reply_private
from bot.table.rules import route_rules
from bot.table.tools import Tools

GAME_CHOICES = [app_commands.Choice(name=text.title, value=key) for key, text in RULES_TEXT.items()]


class GameAdmin(commands.GroupCog, group_name="game", group_description="Commands shared by every game"):
    def __init__(self, tools: Tools) -> None:
        self.tools = tools
        super().__init__()
        route_rules(tools.deps.router)

    @app_commands.command(name="join", description="Join the lobby in this channel")
    async def join(self, interaction: discord.Interaction) -> None:
        game = await self.tools.deps.service.live_in_channel(channel_of(interaction))
        await self.tools.lobbies.act(interaction, game, "join")

    @app_commands.command(name="start", description="Start the game in this channel's lobby (host only)")
    async def start(self, interaction: discord.Interaction) -> None:
        game = await self.tools.deps.service.live_in_channel(channel_of(interaction))
        await self.tools.lobbies.act(interaction, game, "start")

    @app_commands.command(
        name="status", description="Whose move it is, and the latest board (only you see it)"
    )
    async def status(self, interaction: discord.Interaction) -> None:
        tools = self.tools
        row = await tools.deps.storage.latest_game_in_channel(channel_id=channel_of(interaction))
        if row is None:
            raise GameError("No game has been played in this channel yet. Start one with /<game> new.")
        game = tools.deps.service.load(row)
        if row.status == "lobby":
            content, _ = tools.lobbies.message(game)
            await reply_private(interaction, content)
            return
        if row.status == "cancelled":
            raise GameError(f"The last game here (#{row.id}) was cancelled. Start one with /<game> new.")
        payload = await tools.boards.status_payload(game)
        if game.row.live:
            waits = await tools.deps.storage.waits_of_game(game_id=game.id)
            lines = [
                f"⏳ {mention(game.row.seats[w.seat])}: move due <t:{int(w.deadline)}:R> "
                f"(<t:{int(w.deadline)}:f>)"
                for w in waits
                if w.seat < len(game.row.seats)
            ]
            if lines:
                payload["content"] = fit(payload["content"] + "\n" + "\n".join(lines))
        await interaction.response.send_message(ephemeral=True, **payload)

    @app_commands.command(name="rules", description="The rules of a game, with a worked example")
    @app_commands.describe(game="Which game")
    @app_commands.choices(game=GAME_CHOICES)
    async def rules(self, interaction: discord.Interaction, game: str) -> None:
        await reply_private(interaction, rules_of(game))

    @app_commands.command(name="leave", description="Leave the lobby, or forfeit the game in this channel")
    async def leave(self, interaction: discord.Interaction) -> None:
        game = await self.tools.deps.service.live_in_channel(channel_of(interaction))
        if game.row.status == "lobby":
            await self.tools.lobbies.act(interaction, game, "leave")
            return
        await self.tools.plays.act(interaction, game, FORFEIT)

    @app_commands.command(name="cancel", description="Cancel this channel's game (host or Manage Messages)")
    async def cancel(self, interaction: discord.Interaction) -> None:
        game = await self.tools.deps.service.live_in_channel(channel_of(interaction))
        await self.tools.lobbies.act(interaction, game, "cancel")


def build(tools: Tools) -> tuple[None, commands.Cog]:
    return None, GameAdmin(tools)
