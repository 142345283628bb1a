"""Panels: what one player privately sees of a game with secrets, by DM or privately in the channel.

Each player's panel goes by DM when they newly have to act (an outbox effect, `panel`), and is
brought up to date in place when a move made elsewhere changes it (`refresh`). Only a player's newest
DM panel keeps controls. Closed DMs (403, code 50007) are noted once per player and game, with one
notice in the game's channel; no DM is tried again in that game. Panels are built from the player's
own view only.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import discord

from bot.errors import GameError, NotAPlayer
from bot.service import Loaded
from bot.storage import Effect, OutboxItem
from bot.table.boards import Boards
from bot.table.catalog import GameKind
from bot.table.deps import Deps
from bot.table.outbox import Context, Done, nonce_of
from bot.table.replies import NO_PINGS, PING_USERS, fit, mention, reply_private

log = logging.getLogger(__name__)

CANNOT_DM = 50007


@dataclass(frozen=True)
class Panels:
    deps: Deps
    boards: Boards

    # ---- building -------------------------------------------------------------------------------

    def header(self, kind: GameKind, game: Loaded) -> str:
        guild = self.deps.client.get_guild(game.row.guild_id) if game.row.guild_id else None
        where = f"<#{game.row.channel_id}>" + (f" on {guild.name}" if guild is not None else "")
        return f"**{kind.title}** · game #{game.id} in {where}"

    def payload(self, game: Loaded, seat: int, note: str = "") -> dict[str, Any]:
        kind = self.deps.catalog.get(game.row.kind)
        assert kind.private is not None
        table = kind.table(game)
        panel = kind.private.panel(game.view(seat), seat, table)
        lines = [self.header(kind, game)]
        if note:
            lines.append(note)
        lines.append(panel.content)
        payload: dict[str, Any] = {"content": fit("\n".join(lines)), "allowed_mentions": NO_PINGS}
        payload["view"] = self.deps.router.view(panel.items) if panel.items and game.row.live else None
        return payload

    @staticmethod
    def seat_of(game: Loaded, user_id: int) -> int:
        seat = game.row.seat_of(user_id)
        if seat is None:
            raise NotAPlayer(
                f"You are not playing in game #{game.id}, so there is nothing of yours to show. "
                "Wait for the next game, or start your own in a thread."
            )
        return seat

    async def show(self, interaction: discord.Interaction, game: Loaded, note: str = "") -> None:
        """The player's panel, privately (the My hand / My move button, the games' own commands)."""
        kind = self.deps.catalog.get(game.row.kind)
        if kind.private is None:
            raise GameError(f"{kind.title} hides nothing: everything is on the board (/game status).")
        seat = self.seat_of(game, interaction.user.id)
        if game.state is None:
            raise GameError(f"Game #{game.id} has not started yet: the host starts it from the lobby.")
        payload = self.payload(game, seat, note)
        if payload.get("view") is None:
            payload.pop("view")
        await reply_private(interaction, payload.pop("content"), **payload)

    async def on_mine(
        self, interaction: discord.Interaction, game: Loaded, cid: Any, values: list[str]
    ) -> None:
        await self.show(interaction, game)

    # ---- carrying out ---------------------------------------------------------------------------

    async def carry_panel(self, item: OutboxItem, context: Context) -> Done:
        """DM a player a new panel (with an optional note above it); the previous one loses its
        controls."""
        game = await self.deps.service.get(item.game_id)
        seat = int(item.args["seat"])
        user_id = game.row.seats[seat]
        link = await self.deps.service.dm_link(game.id, user_id)
        if link.blocked or game.state is None:
            return Done()
        if link.panel_message_id is not None and link.dm_channel_id is not None:
            await self.boards.strip(link.dm_channel_id, link.panel_message_id)
        payload = self.payload(game, seat, str(item.args.get("note", "")))
        if payload.get("view") is None:
            payload.pop("view")
        try:
            dm = await self.deps.client.create_dm(discord.Object(user_id))
            message = await dm.send(nonce=nonce_of(item), **payload)
        except discord.Forbidden as exc:
            if exc.code != CANNOT_DM:
                raise
            return Done(
                dm_blocked=(game.id, user_id),
                then=[Effect("dm_closed", {"user_id": user_id})],
            )
        if "view" not in payload:
            self.deps.shown.bare(message.id)
        return Done(dm_panel=(game.id, user_id, dm.id, message.id))

    async def carry_refresh(self, item: OutboxItem, context: Context) -> Done:
        """Bring a player's newest DM panel up to date (it never offers a choice already made)."""
        game = await self.deps.service.get(item.game_id)
        seat = int(item.args["seat"])
        link = await self.deps.service.dm_link(game.id, game.row.seats[seat])
        if link.blocked or link.panel_message_id is None or link.dm_channel_id is None or game.state is None:
            return Done()
        payload = self.payload(game, seat)
        message = self.deps.client.get_partial_messageable(link.dm_channel_id).get_partial_message(
            link.panel_message_id
        )
        try:
            await message.edit(**payload)
        except discord.NotFound:
            return Done()
        if payload.get("view") is None:
            self.deps.shown.bare(link.panel_message_id)
        else:
            self.deps.shown.forget(link.panel_message_id)
        return Done()

    async def carry_dm_closed(self, item: OutboxItem, context: Context) -> Done:
        """One notice in the channel for a player whose DMs are closed."""
        game = await self.deps.service.get(item.game_id)
        kind = self.deps.catalog.get(game.row.kind)
        user_id = int(item.args["user_id"])
        label = kind.present.mine_label
        text = (
            f"{mention(user_id)}, I cannot send you direct messages (your DMs are closed), so for "
            f"game #{game.id} use the **{label}** button under the board, or the "
            f"/{kind.name} commands: I answer them privately."
        )
        channel = self.deps.client.get_partial_messageable(game.row.channel_id, guild_id=game.row.guild_id)
        await channel.send(text, allowed_mentions=PING_USERS, nonce=nonce_of(item))
        return Done()
