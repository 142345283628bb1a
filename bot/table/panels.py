"""Panels: what one player privately sees of a game with secrets, by DM or privately in the channel.

A player's DM for a game is one panel message: sent (a new DM) when their first secret action is
due, and from then on edited in place whenever it is to show something new (their hand, a pick
due, the end). A new DM only when the old panel is gone (404 on the edit) or buried: `BURIED_AFTER`
messages were posted in that DM channel after it (the bot sees every message of its DM channels,
its own included, as gateway events: counting them costs no request). The buried panel then loses
its controls: only the newest panel keeps them. Closed DMs (403, code 50007) are noted once per
player and game, with one notice in the game's channel; no DM is tried again in that game. Panels
are built from the player's own view only.
"""

from __future__ import annotations

import logging
from collections import OrderedDict, deque
from dataclasses import dataclass, field

import discord
from discord.http import Route

from bot.errors import GameError, NotAPlayer
from bot.i18n import ENGLISH, Lang
from bot.i18n.audience import Audiences, reader
from bot.jsontypes import JSONObject
from bot.players.seats import is_computer
from bot.service import Games, Loaded
from bot.storage import OutboxItem
from bot.table.boards import Boards
from bot.table.catalog import Catalog, SomeKind
from bot.table.effects import DmClosed, Panel, Refresh
from bot.table.ids import ComponentId
from bot.table.notify import Notify, jump_link, your_move
from bot.table.outbox import Context, Done, Outbox, nonce_of
from bot.table.replies import NO_PINGS, PING_USERS, fit, mention, reply_private
from bot.table.routing import Router
from bot.table.shown import Shown

log = logging.getLogger(__name__)

CANNOT_DM = 50007
# A panel with this many messages after it in its DM channel (typed answers, other games' panels,
# "your move" DMs, reminders) is out of sight: it is sent again rather than edited. A few short lines
# below a panel still leave it on screen; three panels of other games do not.
BURIED_AFTER = 3
DM_CHANNELS_KEPT = 10_000


class DmTraffic:
    """The newest messages this process saw posted in each DM channel: enough to tell whether a
    panel has `BURIED_AFTER` messages after it. In memory only: after a restart no panel counts as
    buried until that many messages follow it again (an edit of a buried panel is the safe side's
    cost). Bounded: the least recently active channels are forgotten first."""

    def __init__(self, depth: int = BURIED_AFTER, channels: int = DM_CHANNELS_KEPT) -> None:
        self.depth = depth
        self._channels = channels
        self._recent: OrderedDict[int, deque[int]] = OrderedDict()

    def seen(self, channel_id: int, message_id: int) -> None:
        recent = self._recent.get(channel_id)
        if recent is None:
            recent = self._recent[channel_id] = deque(maxlen=self.depth)
            if len(self._recent) > self._channels:
                self._recent.popitem(last=False)
        else:
            self._recent.move_to_end(channel_id)
        if message_id not in recent:
            recent.append(message_id)

    def buried(self, channel_id: int, message_id: int) -> bool:
        """Whether at least `depth` messages were posted in the channel after ``message_id`` (ids
        are snowflakes: a later message has a larger id, whatever order the events came in)."""
        recent = self._recent.get(channel_id)
        return recent is not None and len(recent) == self.depth and min(recent) > message_id


@dataclass(frozen=True)
class Panels:
    client: discord.Client
    games: Games
    catalog: Catalog
    router: Router
    shown: Shown
    notify: Notify
    audiences: Audiences
    boards: Boards
    traffic: DmTraffic = field(default_factory=DmTraffic)
    server_names: dict[int, str] = field(default_factory=dict)  # of servers on other shards

    # ---- building -------------------------------------------------------------------------------

    async def header(self, kind: SomeKind, game: Loaded, lang: Lang) -> str:
        channel = f"<#{game.row.place_id}>"
        name = await self.server_name(game.row.guild_id) if game.row.guild_id else None
        if name:
            return lang.t(
                "**{title}** · game #{game_id} in {channel} on {server}",
                title=kind.title,
                game_id=game.id,
                channel=channel,
                server=name,
            )
        return lang.t(
            "**{title}** · game #{game_id} in {channel}", title=kind.title, game_id=game.id, channel=channel
        )

    async def server_name(self, guild_id: int) -> str | None:
        """The server's name: from the gateway's cache when this process runs the server's shard,
        else asked of Discord once (a DM about a game on another shard's server arrives at the
        process running shard 0) and remembered; None if Discord will not say."""
        guild = self.client.get_guild(guild_id)
        if guild is not None:
            return guild.name
        if guild_id not in self.server_names:
            try:
                data = await self.client.http.get_guild(guild_id)
            except discord.HTTPException:
                return None  # (asked again next time)
            self.server_names[guild_id] = str(data.get("name") or "")
        return self.server_names[guild_id] or None

    async def payload(self, game: Loaded, seat: int, note: str = "", *, lang: Lang = ENGLISH) -> JSONObject:
        """The player's panel, in ``lang`` (theirs: by DM their last seen one, else the reader's)."""
        kind = self.catalog.get(game.row.kind)
        assert kind.private is not None
        table = kind.table(game).speaking(lang)
        panel = kind.private.panel(game.view(seat), seat, table)
        lines = [await self.header(kind, game, lang)]
        if note:
            lines.append(note)
        lines.append(panel.content)
        payload: JSONObject = {"content": fit("\n".join(lines)), "allowed_mentions": NO_PINGS}
        payload["view"] = self.router.view(panel.items) if panel.items and game.row.live else None
        return payload

    @staticmethod
    def seat_of(game: Loaded, user_id: int) -> int:
        seat = game.row.seat_of(user_id)
        if seat is None:
            raise NotAPlayer(
                "You are not playing in game #{game_id}, so there is nothing of yours to show. "
                "Wait for the next game, or open your own in a channel with /{command} new.",
                game_id=game.id,
                command=game.row.kind,
            )
        return seat

    async def show(self, interaction: discord.Interaction, game: Loaded, note: str = "") -> None:
        """The player's panel, privately (the My hand / My move button, the games' own commands)."""
        kind = self.catalog.get(game.row.kind)
        if kind.private is None:
            raise GameError(
                "{title} hides nothing: everything is on the board (/game status).", title=kind.title
            )
        seat = self.seat_of(game, interaction.user.id)
        if game.state is None:
            raise GameError(
                "Game #{game_id} has not started yet: the host starts it from the lobby.", game_id=game.id
            )
        payload = await self.payload(game, seat, note, lang=reader(interaction))
        if payload.get("view") is None:
            payload.pop("view")
        await reply_private(interaction, payload.pop("content"), **payload)

    async def on_mine(
        self, interaction: discord.Interaction, game: Loaded, cid: ComponentId, values: list[str]
    ) -> None:
        await self.show(interaction, game)

    # ---- carrying out ---------------------------------------------------------------------------

    def carries(self, outbox: Outbox) -> None:
        outbox.carry(Panel, self.carry_panel)
        outbox.carry(Refresh, self.carry_refresh)
        outbox.carry(DmClosed, self.carry_dm_closed)

    async def carry_panel(self, item: OutboxItem, effect: Panel, context: Context) -> Done:
        """Show a player their panel, with an optional note at its top: the DM panel edited in place,
        or a new DM when there is none yet, or the old one is gone or buried (it then loses its
        controls). With ``nudge`` (their move is due), a player who chose to be told by DM also gets
        the short "your move" DM after an edit: an edit notifies nobody (a new DM does)."""
        return await self._show(item, effect.seat, note=effect.note, nudge=effect.nudge, refresh=False)

    async def carry_refresh(self, item: OutboxItem, effect: Refresh, context: Context) -> Done:
        """Bring a player's DM panel up to date in place, buried or not: it never offers a choice
        already made, and what it shows new is nothing to catch their eye with. A new DM only when
        the panel is gone and a move is due from them."""
        return await self._show(item, effect.seat, refresh=True)

    async def _show(
        self, item: OutboxItem, seat: int, *, note: str = "", nudge: bool = False, refresh: bool
    ) -> Done:
        game = await self.games.get(item.game_id)
        user_id = game.row.seats[seat]
        if is_computer(user_id):
            return Done()  # a computer sees its view without a panel
        link = await self.games.dm_link(game.id, user_id)
        channel_id, panel_id = link.dm_channel_id, link.panel_message_id
        if link.blocked or game.state is None or (refresh and panel_id is None):
            return Done()
        lang = await self.audiences.user(user_id)
        payload = await self.payload(game, seat, note, lang=lang)
        if channel_id is not None and panel_id is not None:
            if refresh or not self.traffic.buried(channel_id, panel_id):
                try:
                    edited = await self._edit(channel_id, panel_id, payload)
                except discord.Forbidden as exc:
                    return self._closed(exc, game, user_id)
                if edited:
                    if nudge and self.notify.dms(user_id):
                        kind = self.catalog.get(game.row.kind)
                        text = your_move(kind.title, game.id, jump_link(None, channel_id, panel_id), lang)
                        channel = self.client.get_partial_messageable(channel_id)
                        # A nonce of its own: the same DM channel as the panel's.
                        await channel.send(text, allowed_mentions=NO_PINGS, nonce=nonce_of(item) + "n")
                    return Done()
                if refresh and seat not in self.catalog.get(game.row.kind).table(game).waiting:
                    return Done()  # gone, and nothing is due from them: no new DM
            else:
                await self.boards.strip(channel_id, panel_id)
        if payload.get("view") is None:
            payload.pop("view")
        try:
            if channel_id is not None:
                dm: discord.abc.Messageable = self.client.get_partial_messageable(channel_id)
            else:
                dm = await self.client.create_dm(discord.Object(user_id))
            message = await dm.send(nonce=nonce_of(item), **payload)
        except discord.Forbidden as exc:
            return self._closed(exc, game, user_id)
        self.notify.reachable(user_id)
        if "view" not in payload:
            self.shown.bare(message.id)
        return Done(dm_panel=(game.id, user_id, message.channel.id, message.id))

    async def _edit(self, channel_id: int, message_id: int, payload: JSONObject) -> bool:
        """Edit a DM panel in place: False when it is gone (404)."""
        view = payload.get("view")
        body = {
            "content": payload["content"],
            "components": view.to_components() if view is not None else [],
            "allowed_mentions": NO_PINGS.to_dict(),
        }
        path = "/channels/{channel_id}/messages/{message_id}"
        route = Route("PATCH", path, channel_id=channel_id, message_id=message_id)
        try:
            # The raw request: the edited message that comes back is not needed, so not parsed.
            await self.client.http.request(route, json=body)
        except discord.NotFound:
            return False
        if view is None:
            self.shown.bare(message_id)
        else:
            self.shown.forget(message_id)
        return True

    def _closed(self, exc: discord.Forbidden, game: Loaded, user_id: int) -> Done:
        """The player's DMs are closed (403, code 50007): noted once, with one notice in the channel."""
        if exc.code != CANNOT_DM:
            raise exc
        self.notify.unreachable(user_id)
        return Done(dm_blocked=(game.id, user_id), then=[DmClosed(user_id)])

    async def on_message(self, message: discord.Message) -> None:
        """The client's listener for messages (DMs only reach it): what may bury a panel."""
        if message.guild is None:
            self.traffic.seen(message.channel.id, message.id)

    async def carry_dm_closed(self, item: OutboxItem, effect: DmClosed, context: Context) -> Done:
        """One notice in the channel for a player whose DMs are closed."""
        game = await self.games.get(item.game_id)
        kind = self.catalog.get(game.row.kind)
        user_id = effect.user_id
        lang = await self.audiences.server(game.row.guild_id)
        if kind.private is None:  # a "your move" DM was refused
            text = lang.t(
                "{player}, I cannot send you direct messages (your DMs are closed), so in "
                "game #{game_id} the board mentions you when it is your move instead.",
                player=mention(user_id),
                game_id=game.id,
            )
        else:
            text = lang.t(
                "{player}, I cannot send you direct messages (your DMs are closed), so for "
                "game #{game_id} use the **{label}** button under the board, or the "
                "/{command} commands: I answer them privately.",
                player=mention(user_id),
                game_id=game.id,
                label=lang.t(kind.present.mine_label),
                command=kind.name,
            )
        channel = self.client.get_partial_messageable(game.row.place_id, guild_id=game.row.guild_id)
        await channel.send(text, allowed_mentions=PING_USERS, nonce=nonce_of(item))
        return Done()
