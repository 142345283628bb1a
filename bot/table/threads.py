"""Where a game is played: a public thread of its own, started from its lobby card, or in place.

When a game starts, the `thread` effect starts a thread from the lobby card (so the thread's id is the
card's), named after the game and its players, and adds the players; the game is played there and the
card stays in the channel. The game is played in place (in the card's channel) when the server turned
threads off (``/game settings threads:off``), when the game was opened inside a thread, or when the bot
may not create threads there (Missing Permissions); the first board then says why, once.

An archived thread refuses the bot's posts and edits (400, code 50083): `Places.call` opens it again
and retries once.

A thread's name lists its players as the server's public posts name them: a forgotten person is
"Deleted player" in the server's language (`bot.present.shown_name`; the title and number have no
language). Forgetting someone owes each of their games' threads a `Rename` (written with the
forgetting, `bot.storage.privacy.forget`), carried out by `Places.carry_rename`. Discord lets the bot
rename a thread it started (or any, with Manage Threads), an archived one only in the request that
unarchives it, and a locked one only with Manage Threads; so an archived thread is renamed and
unarchived at once, then archived again (locked stays as it was: the bot never sends it). That second
step is a follow-up `Rename(archive=True)` recorded before the thread is touched, so a crash between
the two requests still archives it again. A thread gone or out of reach (403, 404, locked without the
permission) is left as it is, logged.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TypeVar

import discord
from discord.http import Route

from bot.i18n import N_
from bot.i18n.audience import Audiences
from bot.players.seats import people
from bot.present import shown_name
from bot.service import Games, Loaded
from bot.storage import GameRow, OutboxItem, Storage
from bot.table.catalog import Catalog
from bot.table.effects import Rename, Thread
from bot.table.outbox import Context, Done, Outbox

log = logging.getLogger(__name__)

T = TypeVar("T")

ARCHIVE_AFTER = 10080  # minutes without a message before Discord archives a game's thread (7 days)
THREAD_NAME_MAX = 100
MISSING_ACCESS = 50001
MISSING_PERMISSIONS = 50013
THREAD_ARCHIVED = 50083
ALREADY_HAS_THREAD = 160004
THREAD_LOCKED = 160005
THREAD_TYPES = (
    discord.ChannelType.public_thread,
    discord.ChannelType.private_thread,
    discord.ChannelType.news_thread,
)

# Why a game is played in place, said once under its first board (see `Places.intent`).
IN_PLACE_NOTES = {
    "no-permission": N_("I may not start threads in this channel, so this game is played here."),
    "in-thread": N_("This game was opened in a thread, so it is played right here."),
}


def thread_name(title: str, game_id: int, names: tuple[str, ...]) -> str:
    """ "Procession #12 · alice, bob, carol", cut to Discord's 100 characters."""
    name = f"{title} #{game_id} · {', '.join(n for n in names if n)}".strip(" ·")
    return name if len(name) <= THREAD_NAME_MAX else name[: THREAD_NAME_MAX - 1] + "…"


def is_thread(channel: object) -> bool:
    return getattr(channel, "type", None) in THREAD_TYPES


@dataclass(frozen=True)
class Places:
    client: discord.Client
    games: Games
    storage: Storage
    catalog: Catalog
    audiences: Audiences
    _threads_on: dict[int, bool] = field(default_factory=dict)  # guild id -> the server's setting

    # ---- the server's setting -------------------------------------------------------------------

    async def threads_on(self, guild_id: int) -> bool:
        on = self._threads_on.get(guild_id)
        if on is None:
            settings = await self.storage.get_guild_settings(guild_id=guild_id)
            on = self._threads_on[guild_id] = bool(settings.get("threads", 1))
        return on

    async def set_threads(self, guild_id: int, on: bool) -> None:
        await self.storage.set_guild_setting(guild_id=guild_id, key="threads", value=int(on))
        self._threads_on[guild_id] = on

    async def intent(self, interaction: discord.Interaction) -> str:
        """Where a game starting from ``interaction``'s channel is to be played: "thread" (its own),
        "off" (the server turned threads off), "in-thread" (it was opened in a thread), or
        "no-permission" (the bot may not start threads or post in them there)."""
        if is_thread(interaction.channel):
            return "in-thread"
        if interaction.guild_id is None or not await self.threads_on(interaction.guild_id):
            return "off"
        allowed = interaction.app_permissions
        if not (allowed.create_public_threads and allowed.send_messages_in_threads):
            return "no-permission"
        return "thread"

    # ---- carrying out -------------------------------------------------------------------------------

    def carries(self, outbox: Outbox) -> None:
        outbox.carry(Thread, self.carry_thread)
        outbox.carry(Rename, self.carry_rename)

    async def name_of(self, row: GameRow) -> str:
        """The name of the game's thread: "Procession #12 · alice, bob", its players as the server's
        public posts name them (a forgotten person: "Deleted player" in the server's language)."""
        lang = await self.audiences.server(row.guild_id)
        seats = row.seats
        names = tuple(shown_name(seats[i], n, lang) if i < len(seats) else n for i, n in enumerate(row.names))
        return thread_name(self.catalog.get(row.kind).title, row.id, names)

    async def carry_thread(self, item: OutboxItem, effect: Thread, context: Context) -> Done:
        """Start the game's thread from its lobby card and add the players; in place when not
        allowed (the first board says so)."""
        game = await self.games.get(item.game_id)
        row = game.row
        if row.thread_id is None:
            if row.lobby_message_id is None:
                return Done()  # no card to start it from: in place
            thread_id = await self._start_thread(game)
            if thread_id is None:
                return Done()
        else:
            thread_id = row.thread_id
        for user_id in people(row.seats):
            await self._add_member(thread_id, user_id)
        return Done(place_id=thread_id)

    async def _start_thread(self, game: Loaded) -> int | None:
        row = game.row
        route = Route(
            "POST",
            "/channels/{channel_id}/messages/{message_id}/threads",
            channel_id=row.channel_id,
            message_id=row.lobby_message_id,
        )
        body = {"name": await self.name_of(row), "auto_archive_duration": ARCHIVE_AFTER}
        try:
            data = await self.client.http.request(route, json=body)
        except discord.Forbidden as exc:
            if exc.code not in (MISSING_PERMISSIONS, MISSING_ACCESS):
                raise
            log.info("No thread for game %s in channel %s: %s", game.id, row.channel_id, exc.text)
            return None
        except discord.NotFound:
            return None  # the card was deleted: in place
        except discord.HTTPException as exc:
            if exc.code != ALREADY_HAS_THREAD:
                raise
            # Started before a restart (or by someone): a thread started from a message has its id.
            return int(row.lobby_message_id or 0) or None
        return int(data["id"])

    async def _add_member(self, thread_id: int, user_id: int) -> None:
        route = Route(
            "PUT", "/channels/{channel_id}/thread-members/{user_id}", channel_id=thread_id, user_id=user_id
        )
        try:
            await self.client.http.request(route)
        except (discord.Forbidden, discord.NotFound) as exc:
            # They left the server, or may not see the channel: they can still follow the card.
            log.info("Could not add user %s to thread %s: %s", user_id, thread_id, exc.text)

    async def carry_rename(self, item: OutboxItem, effect: Rename, context: Context) -> Done:
        """Name the game's thread after its players as they are shown now (see the module's doc):
        an archived thread is renamed as it is unarchived, then archived again by a follow-up."""
        row = await self.storage.get_game(game_id=item.game_id)  # (the stored row: no cached one, older)
        thread_id = row.thread_id
        if thread_id is None:
            return Done()  # played in place (or its thread was never made): no name to change
        route = Route("PATCH", "/channels/{channel_id}", channel_id=thread_id)
        try:
            data = await self.client.http.request(
                Route("GET", "/channels/{channel_id}", channel_id=thread_id)
            )
            archived = bool((data.get("thread_metadata") or {}).get("archived"))
            want = await self.name_of(row)
            renamed = data.get("name") == want
            if renamed and (archived or not effect.archive):
                return Done()
            if archived and not effect.archive:
                # The archiving again is owed (recorded) before the thread is unarchived.
                return Done(then=[Rename(archive=True)])
            if not renamed:
                await self.client.http.request(
                    route, json={"name": want, **({"archived": False} if archived else {})}
                )
            if effect.archive:
                await self.client.http.request(route, json={"archived": True})
        except (discord.Forbidden, discord.NotFound) as exc:
            log.info("Could not rename thread %s of game %s: %s", thread_id, row.id, exc.text)
        except discord.HTTPException as exc:
            if exc.code == THREAD_ARCHIVED:  # archived meanwhile (Discord's timer): as above
                return Done(then=[Rename(archive=True)])
            if exc.code != THREAD_LOCKED:
                raise
            log.info("Could not rename locked thread %s of game %s: %s", thread_id, row.id, exc.text)
        return Done()

    async def reopen(self, thread_id: int) -> None:
        route = Route("PATCH", "/channels/{channel_id}", channel_id=thread_id)
        await self.client.http.request(route, json={"archived": False})

    async def call(self, place_id: int, request: Callable[[], Awaitable[T]]) -> T:
        """Make ``request`` to a game's place; an archived thread is opened again first."""
        try:
            return await request()
        except discord.HTTPException as exc:
            if exc.code != THREAD_ARCHIVED:
                raise
        await self.reopen(place_id)
        return await request()
