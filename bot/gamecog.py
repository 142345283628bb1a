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
from collections import OrderedDict
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.deadlines import format_duration, parse_timeout, timeout_choices
from bot.errors import BadInput, GameError, GameOver, MoveSaved, NoGameHere, NotAPlayer, StaleButton
from bot.games.base import Action, Outcome
from bot.service import Loaded, MoveResult
from bot.storage import DmLink, Wait
from bot.ui import NO_PINGS, PING_USERS, ComponentId, button, components, custom_id, reply_private

if TYPE_CHECKING:
    from bot.app import QuetBot

log = logging.getLogger(__name__)

BARE_PANELS_KEPT = 10_000  # see GameCog._bare_panels


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


def forfeit_text(result: MoveResult) -> str:
    who = mention(result.after.row.seats[result.seat])
    if result.action.get("reason") == "timeout":
        return f"{who} ran out of time and forfeits."
    return f"{who} left the game (forfeit)."


TIMEOUT_HELP = "How long each player has for a move: 10m to 7d (default 24h)"


async def timeout_autocomplete(
    interaction: discord.Interaction, current: str
) -> list[app_commands.Choice[str]]:
    return [app_commands.Choice(name=label, value=value) for label, value in timeout_choices(current)]


def options_text(game: Loaded) -> str:
    parts = [f"{k} = {v}" for k, v in game.row.options.items()]
    parts.append(f"{format_duration(game.row.timeout_s)} per move")
    return ", ".join(parts)


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


@dataclass
class Panel:
    """What one player privately sees of a game, with the controls for their secret action.

    Sent by DM, or as an ephemeral message (the "My hand" button, the game's slash commands).
    Its controls carry no version and no secret: the rules check every action they lead to.
    """

    content: str
    items: list[discord.ui.Item[Any]] = field(default_factory=list)


class GameCog(commands.GroupCog):
    """One game's slash command group and board pipeline. Subclasses set `rules` and `render`.

    A game with secrets (``secret = True``) also gets the private channel: each player's `panel` by DM
    at the start and whenever they newly have to act, a "My hand" button on every board that shows
    the panel privately, private answers to every move, and typed DM answers (`typed_action`).
    """

    rules: ModuleType  # the game's pure rules module (bot/games/<name>.py)
    secret = False  # True: hidden information, moves answered privately, panels by DM
    mine_label = "My hand"  # the board button that shows a player's panel privately

    def __init__(self, bot: QuetBot) -> None:
        self.bot = bot
        # DM panels this process has itself left without controls (edited to a waiting or final
        # panel): replacing one of them needs no stripping. Bounded; after a restart it is empty,
        # and an unknown panel is stripped (the safe side).
        self._bare_panels: OrderedDict[int, None] = OrderedDict()
        super().__init__()

    def _note_panel(self, message_id: int | None, payload: dict[str, Any]) -> None:
        """Remember whether the DM panel ``message_id`` now has controls (``payload`` was sent)."""
        if message_id is None:
            return
        if payload.get("view") is None:
            self._bare_panels[message_id] = None
            while len(self._bare_panels) > BARE_PANELS_KEPT:
                self._bare_panels.popitem(last=False)
        else:
            self._bare_panels.pop(message_id, None)

    # ---- hooks a game fills in --------------------------------------------------------------------

    def render(self, view: Any, names: tuple[str, ...]) -> bytes:
        raise NotImplementedError

    def board_items(self, game: Loaded) -> list[discord.ui.Item[Any]]:
        """Components under a live board post (they carry the state version)."""
        return []

    def describe(self, result: MoveResult) -> str:
        """What the move just made did (a line or a few)."""
        if result.action.get("type") == "forfeit":
            return forfeit_text(result)
        return f"{mention(result.after.row.seats[result.seat])} moved."

    async def on_component(
        self, interaction: discord.Interaction, game: Loaded, cid: ComponentId, values: list[str]
    ) -> None:
        raise GameError("That control does nothing in this game. Use /game status for the current board.")

    async def on_modal(
        self, interaction: discord.Interaction, game: Loaded, cid: ComponentId, fields: dict[str, str]
    ) -> None:
        raise GameError("That form does nothing in this game. Use /game status for the current board.")

    def panel(self, game: Loaded, seat: int) -> Panel:
        """Secret games: what ``seat`` privately sees, with the controls for their action."""
        raise NotImplementedError

    def awaits_typed(self, game: Loaded, seat: int) -> bool:
        """Secret games: whether ``seat`` may answer this game now by typing in a DM."""
        return False

    def not_waiting_reason(self, game: Loaded, seat: int) -> str | None:
        """Secret games: why a typed DM answer from ``seat`` is not taken now ("you already
        picked ..."), for the reply; None when there is nothing particular to say."""
        return None

    def typed_action(self, game: Loaded, seat: int, text: str) -> Action:
        """Secret games: the action a typed DM answer stands for (a `GameError` if unreadable)."""
        raise GameError("This game does not take typed answers.")

    def confirm(self, result: MoveResult) -> str:
        """The private answer to the player who just moved."""
        if result.action.get("type") == "forfeit":
            return f"You left game #{result.after.id}."
        return "Done."

    def start_note(self, game: Loaded) -> str:
        """What players need to know as the game begins (under the first board)."""
        return ""

    def quiet(self, result: MoveResult) -> bool:
        """True when the move is announced by a line of text instead of a new board (a secret
        choice that changes nothing anyone can see yet)."""
        return False

    async def handle_component(
        self, interaction: discord.Interaction, game: Loaded, cid: ComponentId, values: list[str]
    ) -> None:
        """The verbs every game shares, then the game's own."""
        if cid.verb == "mine":
            await self.show_panel(interaction, game)
        elif cid.verb == "mute":
            await self.mute(interaction, game)
        elif cid.verb == "typed":
            await self.settle_typed(interaction, game, cid.arg)
        else:
            await self.on_component(interaction, game, cid, values)

    # ---- shared pipeline ------------------------------------------------------------------------

    @property
    def name(self) -> str:
        return str(self.rules.NAME)

    async def open_lobby(
        self, interaction: discord.Interaction, timeout_text: str | None = None, **options: Any
    ) -> None:
        channel_id = channel_of(interaction)
        timeout_s = parse_timeout(timeout_text)
        game = await self.bot.service.open_lobby(
            timeout_s=timeout_s,
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
        try:
            if self.secret or interaction.channel_id != result.after.row.channel_id:
                await self.answer_actor(interaction, result)
                await self.publish(None, result)
                if self.secret:
                    # A move made elsewhere (a command, the My hand panel) also brings the DM panel up
                    # to date, so that it never offers a control for a choice already made; after
                    # the channel has its news.
                    used = interaction.message.id if interaction.message is not None else None
                    await self.refresh_dm_panel(result.after, result.seat, skip=used)
            else:
                await self.publish(interaction, result)
            await self.notify(result)
        except Exception as exc:
            # The move is committed: never let the error reply say that nothing changed.
            raise MoveSaved(result.after.id) from exc

    async def publish(self, interaction: discord.Interaction | None, result: MoveResult) -> None:
        """Tell the channel about a move: a new board, or (for a quiet move) one line of text."""
        game = result.after
        if not self.quiet(result):
            await self.post_board(interaction, game, self.describe(result))
            return
        title = f"**{self.rules.TITLE}** · game #{game.id}"
        text = f"{title}: {self.describe(result)}\n{self.status_text(game)}"
        channel = self.bot.get_partial_messageable(game.row.channel_id, guild_id=game.row.guild_id)
        await channel.send(text, allowed_mentions=NO_PINGS)

    async def notify(self, result: MoveResult) -> None:
        """Secret games: DM a fresh panel to every player who now has to act and did not before
        (the player who moved has just had theirs in the private answer)."""
        if not self.secret:
            return
        if not result.after.row.live:
            # The end: every other player's last DM panel takes its final form, without controls.
            for seat in range(len(result.after.row.seats)):
                if seat != result.seat:
                    await self.refresh_dm_panel(result.after, seat)
            return
        rules = result.after.rules
        before = rules.to_act(result.before.state) if result.before.state is not None else frozenset()
        newly = set(rules.to_act(result.after.state)) - set(before) - {result.seat}
        await self.send_panels(result.after, sorted(newly))

    async def after_start(self, game: Loaded) -> None:
        """A secret game has started: every player gets their panel by DM."""
        if self.secret:
            await self.send_panels(game, range(len(game.row.seats)))

    # ---- the private channel: panels by DM, or privately in the channel ---------------------------

    def panel_header(self, game: Loaded) -> str:
        guild = self.bot.get_guild(game.row.guild_id) if game.row.guild_id else None
        where = f"<#{game.row.channel_id}>" + (f" on {guild.name}" if guild is not None else "")
        return f"**{self.rules.TITLE}** · game #{game.id} in {where}"

    def panel_payload(self, game: Loaded, seat: int, note: str = "") -> dict[str, Any]:
        panel = self.panel(game, seat)
        lines = [self.panel_header(game)]
        if note:
            lines.append(note)
        lines.append(panel.content)
        payload: dict[str, Any] = {"content": "\n".join(lines)[:2000], "allowed_mentions": NO_PINGS}
        if panel.items and game.row.live:
            payload["view"] = components(*panel.items)
        return payload

    def seat_of(self, game: Loaded, user_id: int) -> int:
        seat = game.row.seat_of(user_id)
        if seat is None:
            raise NotAPlayer(
                f"You are not playing in game #{game.id}, so there is nothing of yours to show. "
                "Wait for the next game, or start your own in a thread."
            )
        return seat

    async def show_panel(self, interaction: discord.Interaction, game: Loaded, note: str = "") -> None:
        """The player's panel, privately (the "My hand" button and the game's own commands)."""
        if not self.secret:
            raise GameError(f"{self.rules.TITLE} hides nothing: everything is on the board (/game status).")
        seat = self.seat_of(game, interaction.user.id)
        if game.state is None:
            raise GameError(f"Game #{game.id} has not started yet: the host starts it from the lobby.")
        payload = self.panel_payload(game, seat, note)
        await reply_private(interaction, payload.pop("content"), **payload)

    async def answer_actor(self, interaction: discord.Interaction, result: MoveResult) -> None:
        """Answer the player who moved privately: their updated panel, in place when they used one."""
        note = self.confirm(result)
        if not self.secret:
            await reply_private(interaction, note)
            return
        payload = self.panel_payload(result.after, result.seat, note)
        message = interaction.message
        # A panel's own control, or a form opened from one: the panel is updated in place.
        on_panel = (
            interaction.type in (discord.InteractionType.component, discord.InteractionType.modal_submit)
            and message is not None
            and (interaction.guild_id is None or message.flags.ephemeral)
        )
        if on_panel and not interaction.response.is_done():
            payload.setdefault("view", None)
            await interaction.response.edit_message(**payload)
            if interaction.guild_id is None and message is not None:
                self._note_panel(message.id, payload)
        else:
            await reply_private(interaction, payload.pop("content"), **payload)

    async def refresh_dm_panel(self, game: Loaded, seat: int, *, skip: int | None = None) -> None:
        """Edit the player's latest DM panel in place to show their panel now (best effort)."""
        link = await self.bot.storage.get_dm_link(game_id=game.id, user_id=game.row.seats[seat])
        message_id = link.panel_message_id
        if link.blocked or link.dm_channel_id is None or message_id is None or message_id == skip:
            return
        payload = self.panel_payload(game, seat)
        payload.setdefault("view", None)
        message = self.bot.get_partial_messageable(link.dm_channel_id).get_partial_message(message_id)
        try:
            await message.edit(**payload)
        except discord.HTTPException as exc:
            log.info("Could not refresh the DM panel of game %s: HTTP %s", game.id, exc.status)
            return
        self._note_panel(message_id, payload)

    async def send_panels(self, game: Loaded, seats: Any) -> None:
        for seat in seats:
            await self.send_panel(game, seat)

    async def send_panel(self, game: Loaded, seat: int, note: str = "") -> None:
        """DM a player their panel; closed DMs get one channel notice per game, and no retries."""
        user_id = game.row.seats[seat]
        storage = self.bot.storage
        link = await storage.get_dm_link(game_id=game.id, user_id=user_id)
        if link.blocked:
            return
        payload = self.panel_payload(game, seat, note)
        try:
            dm = await self.bot.create_dm(discord.Object(user_id))
            message = await dm.send(**payload)
        except discord.Forbidden:
            if await storage.mark_dm_blocked(game_id=game.id, user_id=user_id):
                await self.dm_notice(game, user_id)
            return
        except discord.HTTPException as exc:
            log.warning("Could not DM the panel of game %s to a player: HTTP %s", game.id, exc.status)
            return
        self._note_panel(message.id, payload)
        await self.remember_panel(game, link, dm.id, message.id)

    async def remember_panel(self, game: Loaded, old: DmLink, dm_channel_id: int, message_id: int) -> None:
        """Record a player's newest DM panel and take the controls off the one before (``old``),
        unless it has none left."""
        await self.bot.storage.set_dm_panel(
            game_id=game.id, user_id=old.user_id, dm_channel_id=dm_channel_id, panel_message_id=message_id
        )
        previous = old.panel_message_id
        if previous is None or old.dm_channel_id is None:
            return
        if previous in self._bare_panels:
            del self._bare_panels[previous]  # replaced: never edited again
            return
        await self.bot.strip_components(old.dm_channel_id, previous)

    async def dm_notice(self, game: Loaded, user_id: int) -> None:
        text = (
            f"{mention(user_id)}, I cannot send you direct messages (your DMs are closed), so for "
            f"game #{game.id} use the **{self.mine_label}** button under the board, or the "
            f"/{self.name} commands: I answer them privately."
        )
        channel = self.bot.get_partial_messageable(game.row.channel_id, guild_id=game.row.guild_id)
        try:
            await channel.send(text, allowed_mentions=PING_USERS)
        except discord.HTTPException as exc:
            log.warning("Could not post the closed-DMs notice of game %s: HTTP %s", game.id, exc.status)

    # ---- typed answers in DMs ---------------------------------------------------------------------

    async def act_typed(self, message: discord.Message, game: Loaded, action: Action) -> None:
        """Apply a typed DM answer and answer it in the DM with the updated panel."""
        result = await self.bot.service.act(game.id, message.author.id, action)
        try:
            payload = self.panel_payload(result.after, result.seat, self.confirm(result))
            link = await self.bot.storage.get_dm_link(game_id=game.id, user_id=message.author.id)
            sent = await message.channel.send(**payload)
            self._note_panel(sent.id, payload)
            await self.remember_panel(result.after, link, message.channel.id, sent.id)
            await self.publish(None, result)
            await self.notify(result)
        except Exception as exc:
            raise MoveSaved(result.after.id) from exc

    async def settle_typed(self, interaction: discord.Interaction, game: Loaded, arg: str) -> None:
        """The player said which game a typed answer was for."""
        storage = self.bot.storage
        user_id = interaction.user.id
        text = await storage.take_typed_reply(reply_id=int(arg), user_id=user_id) if arg.isdigit() else None
        if text is None:
            raise StaleButton("That answer was already used or replaced. Type your answer again.")
        seat = self.seat_of(game, user_id)
        if not (game.row.live and game.state is not None and self.awaits_typed(game, seat)):
            raise GameError(f"Game #{game.id} is not waiting for a typed answer from you any more.")
        await self.act(interaction, game.id, self.typed_action(game, seat, text))

    async def game_here(self, interaction: discord.Interaction) -> Loaded:
        """The started game of this kind in the command's channel, or an error that says what to do
        (including "that game is over" right after it ended)."""
        channel_id = channel_of(interaction)
        try:
            game = await self.bot.service.live_in_channel(channel_id, self.name)
        except NoGameHere:
            last = await self.bot.storage.latest_game_in_channel(channel_id=channel_id)
            if last is not None and last.kind == self.name and last.status == "finished":
                raise GameOver(
                    f"Game #{last.id} is over (the result is in the channel). "
                    f"Start a new one with /{self.name} new."
                ) from None
            raise
        if game.state is None:
            raise BadInput("The game has not started yet: the host starts it from the lobby.")
        return game

    async def caller_seat(self, interaction: discord.Interaction) -> tuple[Any, int] | None:
        """For autocomplete: the state of this kind's started game in the channel and the caller's
        seat, or None (autocomplete then offers nothing)."""
        if interaction.channel_id is None:
            return None
        row = await self.bot.storage.live_game_in_channel(channel_id=interaction.channel_id)
        seat = row.seat_of(interaction.user.id) if row is not None else None
        if row is None or row.kind != self.name or row.state is None or seat is None:
            return None
        return self.rules.State.from_dict(row.state), seat

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
        if self.secret and game.row.live:
            items.append(
                button(self.mine_label, custom_id(game.id, "mine"), style=discord.ButtonStyle.primary)
            )
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
        old = game.row.board_message_id
        if (
            old is not None
            and interaction is not None
            and interaction.message is not None
            and interaction.message.id == old
            and interaction.type == discord.InteractionType.component
            and not interaction.response.is_done()
        ):
            # A control on the board itself: the answer takes that board's controls off at once,
            # before the new board is drawn, and the new board is posted to the channel. As many
            # requests as answering with the board and then stripping, and a faster first answer.
            await interaction.response.edit_message(view=None)
            interaction, old = None, None
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
        if message_id is not None:
            await self.bot.storage.set_messages(game_id=game.id, board_message_id=message_id)
        if old is not None and old != message_id:
            await self.bot.strip_components(game.row.channel_id, old)
        return message_id

    async def show_status(self, interaction: discord.Interaction, game: Loaded) -> None:
        """The latest board again, privately, with each awaited player's deadline."""
        payload = await self.board_payload(game, "")
        payload.pop("view", None)
        payload["allowed_mentions"] = NO_PINGS
        if game.row.live:
            waits = await self.bot.storage.waits_of_game(game_id=game.id)
            lines = [
                f"⏳ {mention(game.row.seats[w.seat])}: move due <t:{int(w.deadline)}:R> "
                f"(<t:{int(w.deadline)}:f>)"
                for w in waits
                if w.seat < len(game.row.seats)
            ]
            if lines:
                payload["content"] += "\n" + "\n".join(lines)
        await interaction.response.send_message(ephemeral=True, **payload)

    # ---- reminders ---------------------------------------------------------------------------------

    async def remind(self, game: Loaded, wait: Wait) -> None:
        """Halfway to a deadline: a DM (unless DMs are closed) and a mention in the channel, both with
        a button to mute reminders for this game."""
        user_id = game.row.seats[wait.seat]
        due = f"<t:{int(wait.deadline)}:R>"
        mute = components(button("Mute reminders", custom_id(game.id, "mute")))
        text = (
            f"⏰ {mention(user_id)}, {self.rules.TITLE} game #{game.id} is waiting for your move. "
            f"If you have not moved {due}, you forfeit."
        )
        channel = self.bot.get_partial_messageable(game.row.channel_id, guild_id=game.row.guild_id)
        try:
            await channel.send(text, view=mute, allowed_mentions=PING_USERS)
        except discord.HTTPException as exc:
            log.warning("Could not post a reminder for game %s: HTTP %s", game.id, exc.status)
        link = await self.bot.storage.get_dm_link(game_id=game.id, user_id=user_id)
        if link.blocked:
            return
        try:
            dm = await self.bot.create_dm(discord.Object(user_id))
            await dm.send(
                f"⏰ {self.panel_header(game)} is waiting for your move. If you have not moved {due}, "
                "you forfeit.",
                view=components(button("Mute reminders", custom_id(game.id, "mute"))),
                allowed_mentions=NO_PINGS,
            )
        except discord.Forbidden:
            await self.bot.storage.mark_dm_blocked(game_id=game.id, user_id=user_id)
        except discord.HTTPException as exc:
            log.warning("Could not DM a reminder for game %s: HTTP %s", game.id, exc.status)

    async def mute(self, interaction: discord.Interaction, game: Loaded) -> None:
        self.seat_of(game, interaction.user.id)
        await self.bot.storage.mute_reminders(game_id=game.id, user_id=interaction.user.id)
        await reply_private(
            interaction,
            f"Reminders for game #{game.id} are off for you. The deadline still holds: "
            "/game status shows it.",
        )


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
