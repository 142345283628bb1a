"""/game: the commands every game shares (join, start, status, rules, leave, cancel) and the lobby buttons."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.errors import GameError, LobbyError, MoveSaved
from bot.gamecog import GameCog, channel_of, lobby_message, mention
from bot.games.base import FORFEIT
from bot.rules_text import RULES_TEXT
from bot.service import Loaded
from bot.ui import APOLOGY, NO_PINGS, button, components, custom_id, reply_private

if TYPE_CHECKING:
    from bot.app import QuetBot

log = logging.getLogger(__name__)

GAME_CHOICES = [app_commands.Choice(name=text.title, value=key) for key, text in RULES_TEXT.items()]


class GameAdmin(commands.GroupCog, group_name="game", group_description="Commands shared by every game"):
    def __init__(self, bot: QuetBot) -> None:
        self.bot = bot
        super().__init__()

    # ---- slash commands -------------------------------------------------------------------------

    @app_commands.command(name="join", description="Join the lobby in this channel")
    async def join(self, interaction: discord.Interaction) -> None:
        game = await self.bot.service.live_in_channel(channel_of(interaction))
        await self.lobby_action(interaction, game, "join")

    @app_commands.command(name="start", description="Start the game in this channel's lobby (host only)")
    async def start(self, interaction: discord.Interaction) -> None:
        game = await self.bot.service.live_in_channel(channel_of(interaction))
        await self.lobby_action(interaction, game, "start")

    @app_commands.command(
        name="status", description="Whose move it is, and the latest board (only you see it)"
    )
    async def status(self, interaction: discord.Interaction) -> None:
        row = await self.bot.storage.latest_game_in_channel(channel_id=channel_of(interaction))
        if row is None:
            raise GameError("No game has been played in this channel yet. Start one with /<game> new.")
        game = await self.bot.service.get(row.id)
        if row.status == "lobby":
            content, _ = lobby_message(game)
            await reply_private(interaction, content, allowed_mentions=NO_PINGS)
            return
        if row.status == "cancelled":
            raise GameError(f"The last game here (#{row.id}) was cancelled. Start one with /<game> new.")
        await self.bot.game_cog(row.kind).show_status(interaction, game)

    @app_commands.command(name="rules", description="The rules of a game, with a worked example")
    @app_commands.describe(game="Which game")
    @app_commands.choices(game=GAME_CHOICES)
    async def rules(self, interaction: discord.Interaction, game: str) -> None:
        text = RULES_TEXT.get(game)
        if text is None:
            raise GameError(f"There is no game called {game!r}. Choose one from the list.")
        await reply_private(interaction, text.body)

    @app_commands.command(name="leave", description="Leave the lobby, or forfeit the game in this channel")
    async def leave(self, interaction: discord.Interaction) -> None:
        game = await self.bot.service.live_in_channel(channel_of(interaction))
        if game.row.status == "lobby":
            await self.lobby_action(interaction, game, "leave")
            return
        await self.bot.game_cog(game.row.kind).act(interaction, game.id, FORFEIT)

    @app_commands.command(name="cancel", description="Cancel this channel's game (host or Manage Messages)")
    async def cancel(self, interaction: discord.Interaction) -> None:
        game = await self.bot.service.live_in_channel(channel_of(interaction))
        await self.lobby_action(interaction, game, "cancel")

    async def lobby_expired(self, game: Loaded) -> None:
        """A lobby that never started closes after a day."""
        await self._edit_lobby(game)
        channel = self.bot.get_partial_messageable(game.row.channel_id, guild_id=game.row.guild_id)
        try:
            await channel.send(
                f"The {game.rules.TITLE} lobby #{game.id} closed: it did not start within a day. "
                f"Open a new one with /{game.row.kind} new.",
                allowed_mentions=NO_PINGS,
            )
        except discord.HTTPException:
            log.warning("Could not announce the expiry of lobby %s", game.id)

    # ---- typed answers in DMs ------------------------------------------------------------------------

    @commands.Cog.listener()
    async def on_message(self, message: discord.Message) -> None:
        if message.guild is not None or message.author.bot or not message.content.strip():
            return
        try:
            await self._typed_answer(message)
        except GameError as exc:
            await self._dm_reply(message, exc.message)
        except MoveSaved as exc:
            log.error("Error after a typed move was committed", exc_info=exc.__cause__)
            await self._dm_reply(message, str(exc))
        except Exception:
            log.exception("Unhandled error while reading a typed DM answer")
            await self._dm_reply(message, APOLOGY)

    async def _dm_reply(self, message: discord.Message, text: str, **kwargs: Any) -> None:
        try:
            await message.channel.send(text, allowed_mentions=NO_PINGS, **kwargs)
        except discord.HTTPException:
            log.warning("Could not answer a typed DM answer")

    async def _typed_answer(self, message: discord.Message) -> None:
        """A typed DM goes to the one game waiting for it; with several, the player picks one."""
        text = message.content.strip()
        user_id = message.author.id
        waiting: list[tuple[GameCog, Loaded, int]] = []
        reasons: list[str] = []
        for row in await self.bot.storage.live_games_of_user(user_id=user_id):
            if row.status != "active" or row.kind not in self.bot.game_cogs:
                continue
            game, cog = self.bot.service.load(row), self.bot.game_cogs[row.kind]
            seat = row.seat_of(user_id)
            if seat is None or not cog.secret:
                continue
            if cog.awaits_typed(game, seat):
                waiting.append((cog, game, seat))
            elif (reason := cog.not_waiting_reason(game, seat)) is not None:
                reasons.append(f"Game #{game.id} ({cog.rules.TITLE}): {reason}")
        if not waiting:
            await self._dm_reply(
                message,
                "None of your games is waiting for a typed answer from you right now. Use the buttons "
                "of my latest message for your game, or /game status in its channel."
                + "".join(f"\n{r}" for r in reasons[:10]),
            )
            return
        if len(waiting) == 1:
            cog, game, seat = waiting[0]
            await cog.act_typed(message, game, cog.typed_action(game, seat, text))
            return
        reply_id = await self.bot.storage.add_typed_reply(user_id=user_id, text=text)
        buttons = [
            button(
                f"#{game.id} {cog.rules.TITLE}"[:80],
                custom_id(game.id, "typed", reply_id),
                style=discord.ButtonStyle.primary,
            )
            for cog, game, _ in waiting[:20]
        ]
        await self._dm_reply(
            message,
            f"{len(waiting)} of your games are waiting for a typed answer. Which game is that answer for?",
            view=components(*buttons),
        )

    # ---- lobby actions: buttons and commands alike ------------------------------------------------

    async def lobby_action(self, interaction: discord.Interaction, game: Loaded, verb: str) -> None:
        service = self.bot.service
        user = interaction.user
        is_button = interaction.type == discord.InteractionType.component
        if verb == "join":
            game = await service.join(game.id, user.id, user.display_name)
            note = f"You joined game #{game.id} as seat {game.row.seats.index(user.id) + 1}."
        elif verb == "leave":
            game = await service.leave_lobby(game.id, user.id)
            note = f"You left the lobby of game #{game.id}."
        elif verb == "start":
            await self._start(interaction, game, is_button)
            return
        elif verb == "cancel":
            await self._cancel(interaction, game, is_button)
            return
        else:
            raise LobbyError("That lobby control is not known.")
        await self._show_lobby(interaction, game, is_button, note)

    async def _show_lobby(
        self, interaction: discord.Interaction, game: Loaded, is_button: bool, note: str
    ) -> None:
        content, view = lobby_message(game)
        if is_button:
            await interaction.response.edit_message(content=content, view=view, allowed_mentions=NO_PINGS)
            return
        await reply_private(interaction, note)
        await self._edit_lobby(game)

    async def _edit_lobby(self, game: Loaded) -> None:
        if game.row.lobby_message_id is None:
            return
        content, view = lobby_message(game)
        try:
            message = self.bot.get_partial_messageable(game.row.channel_id).get_partial_message(
                game.row.lobby_message_id
            )
            await message.edit(content=content, view=view, allowed_mentions=NO_PINGS)
        except discord.HTTPException:
            pass  # the lobby post was deleted: the game goes on without it

    async def _start(self, interaction: discord.Interaction, game: Loaded, is_button: bool) -> None:
        game = await self.bot.service.start(game.id, interaction.user.id)
        cog = self.bot.game_cog(game.row.kind)
        if is_button:
            content, view = lobby_message(game)
            await interaction.response.edit_message(content=content, view=view, allowed_mentions=NO_PINGS)
        else:
            await self._edit_lobby(game)
        players = ", ".join(f"{i + 1}. {mention(u)}" for i, u in enumerate(game.row.seats))
        note = cog.start_note(game)
        headline = f"The game begins. Seats: {players}." + (f"\n{note}" if note else "")
        await cog.post_board(interaction, game, headline)
        await cog.after_start(game)

    async def _cancel(self, interaction: discord.Interaction, game: Loaded, is_button: bool) -> None:
        perms = interaction.permissions
        game = await self.bot.service.cancel(game.id, interaction.user.id, can_manage=perms.manage_messages)
        text = f"Game #{game.id} ({game.rules.TITLE}) was cancelled by {mention(interaction.user.id)}."
        if (
            is_button
            and interaction.message is not None
            and interaction.message.id == game.row.lobby_message_id
        ):
            content, _ = lobby_message(game)
            await interaction.response.edit_message(content=content, view=None, allowed_mentions=NO_PINGS)
            await interaction.followup.send(text, allowed_mentions=NO_PINGS)
        else:
            await interaction.response.send_message(text, allowed_mentions=NO_PINGS)
            await self._edit_lobby(game)
        if game.row.board_message_id is not None:
            await self.bot.strip_components(game.row.channel_id, game.row.board_message_id)


async def setup(bot: QuetBot) -> None:
    await bot.add_cog(GameAdmin(bot))
