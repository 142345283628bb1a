"""The games as this process knows them: read through the cache, parsed once per version, each one's
lock, and every write to a game (which puts the row it read back into the cache).

With ``shared`` (other processes write the same database: shards, PostgreSQL), the cache is not
trusted to be current: `Games.get` reads the row (one indexed read) and keeps only the parsing of a
version it already knows; the DM links are read each time. Writes need nothing more: each compares
and swaps the game's version, so a change made elsewhere since the read makes it fail
(`StaleVersion`) instead of overwriting it. We chose checking over invalidation by LISTEN/NOTIFY: a
notification arrives after the write has committed, so a cache fed by them can still answer from a
stale row in that gap; SQLite has no notifications at all (two shard processes may share one SQLite
file); and the check costs one read of one row by its key.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import replace

from bot.errors import NoGameHere
from bot.inputs import excerpt
from bot.rules.base import AnyRules
from bot.service.cache import GameCache, newer_link, where_shown
from bot.service.model import Loaded
from bot.storage import DmLink, Effect, GameRow, OutboxItem, Storage, Written

Listener = Callable[[Loaded | None], None]


class Changes:
    """Who is told after every committed change of a game (with the game when it is a start or a
    move): listeners join when they are built (the scheduler), not by a hook set from outside."""

    def __init__(self) -> None:
        self._listeners: list[Listener] = []

    def listen(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def tell(self, game: Loaded | None = None) -> None:
        for listener in self._listeners:
            listener(game)


class Games:
    def __init__(
        self,
        storage: Storage,
        rules: Mapping[str, AnyRules],
        *,
        shared: bool = False,
        changes: Changes | None = None,
    ) -> None:
        self.storage = storage
        self.rules = rules  # every game's rules, by name (`bot.registry.RULES`)
        self.shared = shared
        self.changes = changes or Changes()
        self.cache = GameCache()
        self._locks: dict[int, asyncio.Lock] = {}

    def rules_for(self, kind: str) -> AnyRules:
        """The rules of the game called ``kind``, or `NoGameHere`."""
        rules = self.rules.get(kind)
        if rules is None:
            raise NoGameHere(
                "There is no game called {kind} here. The games are: {games}.",
                kind=repr(excerpt(kind)),
                games=", ".join(sorted(self.rules)),
            )
        return rules

    def load(self, row: GameRow) -> Loaded:
        """The parsed game of ``row``, without parsing again a version already known."""
        cached = self.cache.get(row.id)
        if cached is not None and cached.row.version == row.version:
            row = where_shown(cached.row, row)
            if cached.row != row:
                cached = replace(cached, row=row)
            return self.cache.put(cached)
        rules = self.rules_for(row.kind)
        state = None if row.state is None else rules.State.from_dict(row.state)
        return self.cache.put(Loaded(row=row, rules=rules, state=state))

    async def get(self, game_id: int) -> Loaded:
        cached = None if self.shared else self.cache.get(game_id)
        if cached is not None:
            return cached
        return self.load(await self.storage.get_game(game_id=game_id))

    # ---- changing a game ------------------------------------------------------------------------

    def lock(self, game_id: int) -> asyncio.Lock:
        """Serialises all work on one game inside this process (the version check catches the rest)."""
        lock = self._locks.get(game_id)
        if lock is None:
            lock = self._locks[game_id] = asyncio.Lock()
        return lock

    def release(self, game_id: int) -> None:
        """Forget the lock of a game that has ended (unless someone holds it)."""
        lock = self._locks.get(game_id)
        if lock is not None and not lock.locked():
            del self._locks[game_id]

    async def write(self, game_id: int, write: Awaitable[Written]) -> Written:
        """Run one write of the game; a failed one evicts the game from the cache."""
        try:
            return await write
        except BaseException:
            self.cache.evict(game_id)
            raise

    def changed(self, game: Loaded | None = None) -> None:
        self.changes.tell(game)

    # ---- where a game is shown, and what it still owes --------------------------------------------

    async def set_messages(
        self,
        game_id: int,
        *,
        lobby_message_id: int | None = None,
        board_message_id: int | None = None,
        place_id: int | None = None,
    ) -> None:
        # The cache first, as the outbox does: work on the game that starts while the write is under
        # way (a click on the card just posted) already knows where the game is shown. (Its own write
        # may commit before this one on PostgreSQL, and read back a row without these ids.)
        self.cache.set_messages(
            game_id, lobby_message_id=lobby_message_id, board_message_id=board_message_id, place_id=place_id
        )
        await self.storage.set_messages(
            game_id=game_id,
            lobby_message_id=lobby_message_id,
            board_message_id=board_message_id,
            place_id=place_id,
        )

    async def owe(self, game_id: int, effects: Sequence[Effect]) -> list[OutboxItem]:
        """Record ``effects`` of the game for the outbox to carry out (work an answer could not do:
        Discord had forgotten the interaction)."""
        return await self.storage.add_effects(game_id=game_id, effects=effects)

    # ---- players' DM links ------------------------------------------------------------------------

    async def dm_link(self, game_id: int, user_id: int) -> DmLink:
        """A player's private channel for a game: DMs closed?, and their newest DM panel.

        Shared, the stored link is read each time, but what this process's outbox has just done
        and not yet recorded (it records a game's panels when it gives the game's lease up) is
        known only here: the newer of the two panels counts (a panel's id grows with time)."""
        cached = self.cache.link(game_id, user_id)
        if cached is not None and not self.shared:
            return cached
        link = await self.storage.get_dm_link(game_id=game_id, user_id=user_id)
        if cached is not None:
            link = newer_link(cached, link)
        self.cache.put_link(link)
        return link

    def links_recorded(
        self, *, dm_panel: tuple[int, int, int, int] | None, dm_blocked: tuple[int, int] | None
    ) -> None:
        """What the outbox has just written about DM links (see `Storage.complete_effect`)."""
        if dm_panel is not None:
            self.cache.put_link(DmLink(*dm_panel[:2], False, *dm_panel[2:]))
        if dm_blocked is not None:
            old = self.cache.link(*dm_blocked)
            if old is None:
                self.cache.put_link(DmLink(*dm_blocked, True, None, None))
            else:
                self.cache.put_link(replace(old, blocked=True))
