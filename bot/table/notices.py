"""Notices: reminders, and the "your move" DMs of games without secrets.

Reminders: halfway to a deadline, as the player chose to be told of their move (`/game notify`):
``mention``, a mention in the game's channel; ``dm``, a DM; ``both``; ``off``, none. Each has a
button to mute reminders for that game. Both kinds are written to the outbox with the mark that they
are due (so each is sent once even across a restart); each is carried out only when the player's
choice asks for it, so a changed choice holds at once. A player who chose DMs but whose DMs are
closed is reminded in the channel.

"Your move" DMs (``nudge``): for a player who chose DMs, after the board that asks for their move.
(In a game with secrets their DM panel carries it: bot/table/panels.py.)
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import discord

from bot.i18n.audience import Audiences, reader
from bot.service import Games, Loaded
from bot.storage import OutboxItem, Storage
from bot.table.catalog import Catalog
from bot.table.components import mute_button
from bot.table.effects import DmClosed, Nudge, Remind, RemindDm
from bot.table.ids import ComponentId
from bot.table.notify import Notify, jump_link, your_move
from bot.table.outbox import Context, Done, Outbox, nonce_of
from bot.table.panels import CANNOT_DM, Panels
from bot.table.replies import NO_PINGS, PING_USERS, mention, reply_private
from bot.table.routing import Router

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Reminders:
    client: discord.Client
    games: Games
    storage: Storage
    catalog: Catalog
    router: Router
    notify: Notify
    audiences: Audiences
    panels: Panels

    def carries(self, outbox: Outbox) -> None:
        outbox.carry(Remind, self.carry_remind)
        outbox.carry(RemindDm, self.carry_remind_dm)
        outbox.carry(Nudge, self.carry_nudge)

    async def carry_remind(self, item: OutboxItem, effect: Remind, context: Context) -> Done:
        """The reminder in the game's channel (for a player who chose mentions, or DMs they cannot
        get)."""
        game = await self.games.get(item.game_id)
        seat = effect.seat
        if not game.row.live or seat >= len(game.row.seats):
            return Done()
        user_id = game.row.seats[seat]
        notify = self.notify
        if not notify.pings(user_id):
            if not notify.reminder_dms(user_id) or not (await self.games.dm_link(game.id, user_id)).blocked:
                return Done()
        kind = self.catalog.get(game.row.kind)
        due = f"<t:{int(effect.deadline)}:R>"
        lang = await self.audiences.server(game.row.guild_id)
        text = lang.t(
            "⏰ {player}, {title} game #{game_id} is waiting for your move. "
            "If you have not moved {due}, you forfeit.",
            player=mention(game.row.seats[seat]),
            title=kind.title,
            game_id=game.id,
            due=due,
        )
        channel = self.client.get_partial_messageable(game.row.place_id, guild_id=game.row.guild_id)
        view = self.router.view([mute_button(game.id, lang)])
        await channel.send(text, view=view, allowed_mentions=PING_USERS, nonce=nonce_of(item))
        return Done()

    async def carry_remind_dm(self, item: OutboxItem, effect: RemindDm, context: Context) -> Done:
        """The reminder by DM (unless the player's DMs are closed)."""
        game = await self.games.get(item.game_id)
        seat = effect.seat
        if not game.row.live or seat >= len(game.row.seats):
            return Done()
        user_id = game.row.seats[seat]
        if not self.notify.reminder_dms(user_id):
            return Done()
        link = await self.games.dm_link(game.id, user_id)
        if link.blocked:
            return Done()
        kind = self.catalog.get(game.row.kind)
        due = f"<t:{int(effect.deadline)}:R>"
        lang = await self.audiences.user(user_id)
        try:
            dm = await self.client.create_dm(discord.Object(user_id))
            await dm.send(
                lang.t(
                    "⏰ {game} is waiting for your move. If you have not moved {due}, you forfeit.",
                    game=await self.panels.header(kind, game, lang),
                    due=due,
                ),
                view=self.router.view([mute_button(game.id, lang)]),
                allowed_mentions=NO_PINGS,
                nonce=nonce_of(item),
            )
        except discord.Forbidden:
            self.notify.unreachable(user_id)
            return Done(dm_blocked=(game.id, user_id))
        return Done()

    async def carry_nudge(self, item: OutboxItem, effect: Nudge, context: Context) -> Done:
        """The short "your move" DM, with a link to the board, for a player who chose DMs (still
        their move, and still their choice)."""
        game = await self.games.get(item.game_id)
        seat = effect.seat
        if not game.row.live or game.state is None or seat >= len(game.row.seats):
            return Done()
        user_id = game.row.seats[seat]
        kind = self.catalog.get(game.row.kind)
        if not self.notify.dms(user_id) or seat not in kind.table(game).waiting:
            return Done()
        link = await self.games.dm_link(game.id, user_id)
        if link.blocked:
            return Done()
        board = game.row.board_message_id
        to = None if board is None else jump_link(game.row.guild_id, game.row.place_id, board)
        lang = await self.audiences.user(user_id)
        try:
            dm = await self.client.create_dm(discord.Object(user_id))
            await dm.send(
                your_move(kind.title, game.id, to, lang), allowed_mentions=NO_PINGS, nonce=nonce_of(item)
            )
        except discord.Forbidden as exc:
            if exc.code != CANNOT_DM:
                raise
            self.notify.unreachable(user_id)
            return Done(dm_blocked=(game.id, user_id), then=[DmClosed(user_id)])
        self.notify.reachable(user_id)
        return Done()

    async def on_mute(
        self, interaction: discord.Interaction, game: Loaded, cid: ComponentId, values: list[str]
    ) -> None:
        self.panels.seat_of(game, interaction.user.id)
        await self.storage.mute_reminders(game_id=game.id, user_id=interaction.user.id)
        await reply_private(
            interaction,
            reader(interaction).t(
                "Reminders for game #{game_id} are off for you. "
                "The deadline still holds: /game status shows it.",
                game_id=game.id,
            ),
        )
