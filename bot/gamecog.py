"""The base of every game's cog: the shared pipeline parse -> act -> render -> respond.

A game's cog (in cogs/) subclasses `GameCog`, names its rules module and renderer, declares its slash
commands, and fills in three hooks: the board's components, a one-line description of a move, and
what its own component verbs do. Lobbies, board posts, turn mentions and result announcements are
done here, identically for every game.
"""

from __future__ import annotations

import asyncio
import io
import logging
from types import ModuleType
from typing import TYPE_CHECKING, Any

import discord
from discord.ext import commands

from bot.errors import GameError
from bot.games.base import Action, Outcome
from bot.service import Loaded, MoveResult
from bot.ui import NO_PINGS, PING_USERS, ComponentId, button, components, custom_id

if TYPE_CHECKING:
    from bot.app import QuetBot

log = logging.getLogger(__name__)


def mention(user_id: int) -> str:
    return f"<@{user_id}>"


def join_words(words: list[str]) -> str:
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " and " + words[-1]


def channel_of(interaction: discord.Interaction) -> int:
    """The channel (or thread) a game command was used in; games do not live in DMs."""
    if interaction.channel_id is None or interaction.guild_id is None:
        raise GameError("Games are played in a server channel (or a thread), not in DMs.")
    return interaction.channel_id


def options_text(game: Loaded) -> str:
    opts = game.row.options
    return ", ".join(f"{k} = {v}" for k, v in opts.items()) if opts else ""


def outcome_text(game: Loaded, outcome: Outcome) -> str:
    seats = game.row.seats
    if not outcome.winners:
        return f"The game is over: {outcome.reason}. Nobody wins."
    winners = join_words([mention(seats[s]) for s in outcome.winners])
    if outcome.draw:
        return f"The game is a draw between {winners}: {outcome.reason}."
    if len(outcome.winners) > 1:
        return f"🏆 {winners} share the win: {outcome.reason}."
    return f"🏆 {winners} wins: {outcome.reason}."


class GameCog(commands.GroupCog):
    """One game's slash command group and board pipeline. Subclasses set `rules` and `render`."""

    rules: ModuleType  # the game's pure rules module (bot/games/<name>.py)

    def __init__(self, bot: QuetBot) -> None:
        self.bot = bot
        super().__init__()

    # ---- hooks a game fills in --------------------------------------------------------------------

    def render(self, view: Any, names: tuple[str, ...]) -> bytes:
        raise NotImplementedError

    def board_items(self, game: Loaded) -> list[discord.ui.Item[Any]]:
        """Components under a live board post (they carry the state version)."""
        return []

    def describe(self, result: MoveResult) -> str:
        """One line: what the move just made did."""
        return f"{mention(result.after.row.seats[result.seat])} moved."

    async def on_component(
        self, interaction: discord.Interaction, game: Loaded, cid: ComponentId, values: list[str]
    ) -> None:
        raise GameError("That control does nothing in this game. Use /game status for the current board.")

    # ---- shared pipeline ------------------------------------------------------------------------

    @property
    def name(self) -> str:
        return str(self.rules.NAME)

    async def open_lobby(self, interaction: discord.Interaction, **options: Any) -> None:
        channel_id = channel_of(interaction)
        game = await self.bot.service.open_lobby(
            kind=self.name,
            guild_id=interaction.guild_id,
            channel_id=channel_id,
            host_id=interaction.user.id,
            host_name=interaction.user.display_name,
            options=options,
        )
        content, view = lobby_message(game)
        assert view is not None  # a lobby always has its buttons
        response = await interaction.response.send_message(content, view=view, allowed_mentions=NO_PINGS)
        if response.message_id is not None:
            await self.bot.storage.set_messages(game_id=game.id, lobby_message_id=response.message_id)

    async def act(
        self,
        interaction: discord.Interaction,
        game_id: int,
        action: Action,
        *,
        expected_version: int | None = None,
    ) -> None:
        """Apply a move (committed before anything is answered), then post the new board."""
        result = await self.bot.service.act(
            game_id, interaction.user.id, action, expected_version=expected_version
        )
        await self.post_board(interaction, result.after, self.describe(result))

    def status_text(self, game: Loaded) -> str:
        """Whose move it is (with a mention), or the result."""
        outcome = game.rules.outcome(game.state) if game.state is not None else None
        if game.row.status == "cancelled":
            return "This game was cancelled."
        if outcome is not None:
            return outcome_text(game, outcome)
        waiting = sorted(game.rules.to_act(game.state))
        users = [mention(game.row.seats[s]) for s in waiting]
        if len(users) == 1:
            return f"{users[0]}, your move."
        return f"Waiting for {join_words(users)}."

    def board_text(self, game: Loaded, headline: str) -> str:
        title = f"**{self.rules.TITLE}** · game #{game.id}"
        opts = options_text(game)
        if opts:
            title += f" · {opts}"
        lines = [title]
        if headline:
            lines.append(headline)
        lines.append(self.status_text(game))
        return "\n".join(lines)

    async def render_public(self, game: Loaded) -> bytes:
        view = self.rules.view_for(game.state, None)
        return await asyncio.to_thread(self.render, view, game.row.names)

    async def board_payload(self, game: Loaded, headline: str) -> dict[str, Any]:
        png = await self.render_public(game)
        payload: dict[str, Any] = {
            "content": self.board_text(game, headline),
            "file": discord.File(io.BytesIO(png), filename=f"{self.name}-{game.id}-{game.row.version}.png"),
            "allowed_mentions": PING_USERS,
        }
        items = self.board_items(game) if game.row.live else []
        if items:
            payload["view"] = components(*items)
        return payload

    async def post_board(
        self, interaction: discord.Interaction | None, game: Loaded, headline: str
    ) -> int | None:
        """Post the new board and take the controls off the previous one.

        In the game's channel the board answers the interaction; a move made elsewhere (a DM, a typed
        reply, a deadline) posts it to the channel, and the caller answers the interaction privately.
        """
        payload = await self.board_payload(game, headline)
        message_id: int | None
        if interaction is not None and interaction.channel_id == game.row.channel_id:
            if interaction.response.is_done():
                message = await interaction.followup.send(wait=True, **payload)
                message_id = message.id
            else:
                response = await interaction.response.send_message(**payload)
                message_id = response.message_id
        else:
            channel = self.bot.get_partial_messageable(game.row.channel_id, guild_id=game.row.guild_id)
            message_id = (await channel.send(**payload)).id
        old = game.row.board_message_id
        if message_id is not None:
            await self.bot.storage.set_messages(game_id=game.id, board_message_id=message_id)
        if old is not None and old != message_id:
            await self.bot.strip_components(game.row.channel_id, old)
        return message_id

    async def show_status(self, interaction: discord.Interaction, game: Loaded) -> None:
        """The latest board again, privately."""
        payload = await self.board_payload(game, "")
        payload.pop("view", None)
        payload["allowed_mentions"] = NO_PINGS
        await interaction.response.send_message(ephemeral=True, **payload)


# ---- lobbies ----------------------------------------------------------------------------------


def lobby_message(game: Loaded) -> tuple[str, discord.ui.View | None]:
    rules, row = game.rules, game.row
    title = f"**{rules.TITLE}** · game #{row.id}"
    opts = options_text(game)
    if opts:
        title += f" · {opts}"
    if row.status == "cancelled":
        return f"{title}\nThis lobby was closed.", None
    if row.status != "lobby":
        return f"{title}\nThe game has started with {join_words([mention(u) for u in row.seats])}.", None
    players = "\n".join(
        f"{i + 1}. {mention(u)}{' (host)' if u == row.host_id else ''}" for i, u in enumerate(row.seats)
    )
    need = (
        f"{rules.MIN_PLAYERS}-{rules.MAX_PLAYERS}"
        if rules.MAX_PLAYERS > rules.MIN_PLAYERS
        else rules.MIN_PLAYERS
    )
    content = (
        f"{title}\nLobby: {len(row.seats)} of {rules.MAX_PLAYERS} seats taken ({need} players).\n"
        f"{players}\nPress **Join** to play. The host presses **Start** when everyone is in."
    )
    cid = row.id
    view = components(
        button("Join", custom_id(cid, "join"), style=discord.ButtonStyle.success),
        button("Leave", custom_id(cid, "leave")),
        button(
            "Start",
            custom_id(cid, "start"),
            style=discord.ButtonStyle.primary,
            disabled=len(row.seats) < rules.MIN_PLAYERS,
        ),
        button("Cancel", custom_id(cid, "cancel"), style=discord.ButtonStyle.danger),
    )
    return content, view
