"""The game framework below Discord: lobbies, seats, turns, per-game locks, moves and replay.

The table machinery calls this; it calls the pure rules and the storage. Every check that decides
*who* may do *what* lives here, so a button, a slash command and a DM reply are held to the same
rules. Every change is committed together with what it owes the world (outbox effects, given by the
caller as a function of the change). Nothing here imports discord.

This module also holds the bot's one cache: the games being played, parsed (`GameCache`).
"""

from __future__ import annotations

import asyncio
import secrets
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from bot.deadlines import DEFAULT_TIMEOUT
from bot.errors import (
    GameError,
    GameOver,
    IllegalMove,
    LobbyError,
    NoGameHere,
    NotAllowed,
    NotAPlayer,
    StaleButton,
    WhichGame,
)
from bot.i18n import Msg
from bot.inputs import excerpt
from bot.players.seats import computer_name, is_computer, next_computer, people
from bot.rules import play
from bot.rules.base import FORFEIT, AnyRules, forfeit_of, resolve_options
from bot.storage import DmLink, Effect, GameRow, OutboxItem, Storage, Written
from bot.storage.errors import Conflict

CACHE_SIZE = 4096
T = TypeVar("T")


@dataclass(frozen=True)
class Loaded:
    """A game row with its rules module and (once started) its decoded state.

    A version's state never changes, so what is derived from it (the views, the table's facts) is
    kept with it (`derived`): a game in the cache is parsed, and viewed, once per version.
    """

    row: GameRow
    rules: Any
    state: Any  # None while in the lobby
    _derived: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def id(self) -> int:
        return self.row.id

    def derived(self, key: Any, make: Callable[[], T]) -> T:
        """``make()``, computed once for this version of the game."""
        if key not in self._derived:
            self._derived[key] = make()
        value: T = self._derived[key]
        return value

    def view(self, seat: int | None) -> Any:
        """``view_for(state, seat)``: the public view (None) or a seat's own."""
        return self.derived(("view", seat), lambda: self.rules.view_for(self.state, seat))


@dataclass(frozen=True)
class Changed:
    """A committed change of a game and the outbox effects written with it."""

    game: Loaded
    effects: tuple[OutboxItem, ...] = ()


@dataclass(frozen=True)
class MoveResult:
    before: Loaded
    after: Loaded
    seat: int
    action: dict[str, Any]  # as logged
    effects: tuple[OutboxItem, ...] = ()

    @property
    def forfeit(self) -> str | None:
        """None, or how the seat forfeited: ``"left"`` or ``"timeout"``."""
        return forfeit_of(self.action)


@dataclass(frozen=True)
class Step:
    """One logged move, replayed: the version of the game it made, who made it, and the states
    around it."""

    version: int
    seat: int
    action: dict[str, Any]
    before: Any
    after: Any

    @property
    def forfeit(self) -> str | None:
        return forfeit_of(self.action)


@dataclass(frozen=True)
class History:
    """A started game as its log tells it: the version and state it started at, then one step per
    move (the versions after the start are one per move; a cancel adds one more, after the last)."""

    game_id: int
    start_version: int
    start: Any
    steps: tuple[Step, ...]

    def step(self, version: int) -> Step:
        """The move that made ``version``."""
        index = version - self.start_version - 1
        if not 0 <= index < len(self.steps):
            raise NoGameHere(
                "Game #{game_id} has no move that made version {version}.",
                game_id=self.game_id,
                version=version,
            )
        return self.steps[index]


Owed = Callable[[MoveResult], Sequence[Effect]]


def _logged(action: Any) -> dict[str, Any]:
    """The JSON form of an action, as the move log stores it."""
    to_json = getattr(action, "to_json", None)
    return dict(to_json() if to_json is not None else action)


def _where_shown(known: GameRow, read: GameRow) -> GameRow:
    """``read`` (a row read back by a write, or from storage) with what ``known`` already knows of
    where the game is shown. The outbox stores a new board's id a moment after telling the cache, so
    a row read meanwhile may name an older board; a board's id grows with time (a snowflake), and a
    game never leaves its thread."""
    board = max(known.board_message_id or 0, read.board_message_id or 0) or None
    place = known.place_id if known.thread_id is not None else read.place_id
    lobby = read.lobby_message_id or known.lobby_message_id
    if (board, place, lobby) == (read.board_message_id, read.place_id, read.lobby_message_id):
        return read
    return replace(read, board_message_id=board, place_id=place, lobby_message_id=lobby)


def _newer_link(known: DmLink, read: DmLink) -> DmLink:
    """A DM link as this process knows it and as storage has it: the one with the newer panel (a
    larger snowflake), which is the later news; with the same panel, DMs found closed by either."""
    mine, stored = known.panel_message_id or 0, read.panel_message_id or 0
    if mine != stored:
        return known if mine > stored else read
    return replace(read, blocked=known.blocked or read.blocked)


class GameCache:
    """The games being played, parsed (row and state), by id; and the live games of each channel.

    Invalidation: every write to a game goes through `GameService`, which puts the row the write
    returned (read back inside the write's own transaction); a row never replaces a newer version
    of itself. Message ids and the place (not a game change, no version bump) are updated in place by
    `GameService.set_messages` and when the outbox records what it did. A failed write evicts its
    game. Bounded: the least recently used games fall out first.

    The live games of a channel (those played there and those whose lobby card is there) are known
    only once read from storage (`know_at`); from then on every change keeps that list complete. A
    list that names a game fallen out of the cache is forgotten and read again.
    """

    def __init__(self, size: int = CACHE_SIZE) -> None:
        self._games: OrderedDict[int, Loaded] = OrderedDict()
        self._at: dict[int, set[int]] = {}  # channel or thread id -> its live games' ids
        self.epoch = 0  # counts changes to the lists above (a read from storage older than one is dropped)
        # Each player's DM link per game, as last read or recorded (DM links are written only when
        # the outbox records a panel sent or DMs found closed, and it tells the cache: `put_link`).
        self._links: OrderedDict[tuple[int, int], DmLink] = OrderedDict()
        self._size = size

    def link(self, game_id: int, user_id: int) -> DmLink | None:
        return self._links.get((game_id, user_id))

    def put_link(self, link: DmLink) -> None:
        self._links[(link.game_id, link.user_id)] = link
        self._links.move_to_end((link.game_id, link.user_id))
        while len(self._links) > self._size:
            self._links.popitem(last=False)

    def get(self, game_id: int) -> Loaded | None:
        game = self._games.get(game_id)
        if game is not None:
            self._games.move_to_end(game_id)
        return game

    def live_at(self, channel_id: int) -> list[Loaded] | None:
        """The live games of a channel, or None when not known here."""
        ids = self._at.get(channel_id)
        if ids is None:
            return None
        games = [self._games.get(game_id) for game_id in sorted(ids)]
        known = [g for g in games if g is not None]
        if len(known) != len(games):
            del self._at[channel_id]
            return None
        return [g for g in known if g.row.live]

    def know_at(self, channel_id: int, games: Sequence[Loaded], epoch: int) -> list[Loaded]:
        """The live games of a channel: ``games`` as storage has them (read when the epoch was
        ``epoch``), with those the cache knows are there and storage does not yet (a game's thread
        is known here a moment before it is stored)."""
        ids = {g.id for g in games}
        here = list(games) + [
            g for g in self._games.values() if g.id not in ids and channel_id in g.row.places
        ]
        here = [g for g in here if channel_id in g.row.places]
        if epoch == self.epoch:
            self._at[channel_id] = {g.id for g in here}
        return sorted(here, key=lambda g: g.id)

    @staticmethod
    def _keys(row: GameRow | None) -> frozenset[int]:
        return row.places if row is not None else frozenset()

    def _index(self, old: GameRow | None, new: GameRow) -> None:
        before, after = self._keys(old), self._keys(new)
        if before == after:
            return
        self.epoch += 1
        for key in before - after:
            self._at.get(key, set()).discard(new.id)
        for key in after:
            ids = self._at.get(key)
            if ids is not None:
                ids.add(new.id)

    def put(self, game: Loaded) -> Loaded:
        cached = self._games.get(game.id)
        if cached is not None and cached.row.version > game.row.version:
            return cached
        if cached is not None:
            game = replace(game, row=_where_shown(cached.row, game.row))
        self._index(None if cached is None else cached.row, game.row)
        self._games[game.id] = game
        self._games.move_to_end(game.id)
        while len(self._games) > self._size:
            self._games.popitem(last=False)
        return game

    def evict(self, game_id: int) -> None:
        if self._games.pop(game_id, None) is not None:
            self.epoch += 1

    def set_messages(
        self,
        game_id: int,
        *,
        lobby_message_id: int | None,
        board_message_id: int | None,
        place_id: int | None = None,
    ) -> None:
        game = self._games.get(game_id)
        if game is None or (lobby_message_id is None and board_message_id is None and place_id is None):
            return
        row = game.row
        new = replace(
            row,
            lobby_message_id=lobby_message_id or row.lobby_message_id,
            board_message_id=board_message_id or row.board_message_id,
            place_id=place_id or row.place_id,
        )
        self._index(row, new)
        self._games[game_id] = replace(game, row=new)


class GameService:
    """Games: finding them, and every change to them (each one transaction, checked on its version).

    With ``shared`` (other processes write the same database: shards, PostgreSQL), the cache is not
    trusted to be current: `get` reads the row (one indexed read) and keeps only the parsing of a
    version it already knows, a channel's live games and the DM links are read each time. Writes need
    nothing more: each compares and swaps the game's version, so a change made elsewhere since the
    read makes it fail (`StaleVersion`) instead of overwriting it. We chose checking over
    invalidation by LISTEN/NOTIFY: a notification arrives after the write has committed, so a cache
    fed by them can still answer from a stale row in that gap; SQLite has no notifications at all
    (two shard processes may share one SQLite file); and the check costs one read of one row by its
    key.
    """

    def __init__(self, storage: Storage, rules: Mapping[str, AnyRules], *, shared: bool = False) -> None:
        self.storage = storage
        self.rules = rules  # every game's rules, by name (`bot.registry.RULES`)
        self.shared = shared
        self.cache = GameCache()
        self._locks: dict[int, asyncio.Lock] = {}
        # Told after every committed change (with the game, when it is a start or a move).
        self.on_change: Callable[[Loaded | None], None] | None = None

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
            row = _where_shown(cached.row, row)
            if cached.row != row:
                cached = replace(cached, row=row)
            return self.cache.put(cached)
        rules = self.rules_for(row.kind)
        state = None if row.state is None else rules.State.from_dict(row.state)
        return self.cache.put(Loaded(row=row, rules=rules, state=state))

    def _changed(self, game: Loaded | None = None) -> None:
        if self.on_change is not None:
            self.on_change(game)

    def lock(self, game_id: int) -> asyncio.Lock:
        """Serialises all work on one game inside this process (the version check catches the rest)."""
        lock = self._locks.get(game_id)
        if lock is None:
            lock = self._locks[game_id] = asyncio.Lock()
        return lock

    def _release(self, game_id: int) -> None:
        lock = self._locks.get(game_id)
        if lock is not None and not lock.locked():
            del self._locks[game_id]

    async def _write(self, game_id: int, write: Any) -> Written:
        try:
            written: Written = await write
        except BaseException:
            self.cache.evict(game_id)
            raise
        return written

    # ---- finding games --------------------------------------------------------------------------

    async def get(self, game_id: int) -> Loaded:
        cached = None if self.shared else self.cache.get(game_id)
        if cached is not None:
            return cached
        return self.load(await self.storage.get_game(game_id=game_id))

    async def live_at(self, channel_id: int) -> list[Loaded]:
        """The live games of a channel or thread: those played there, and those whose lobby card
        is there (played in their own thread)."""
        games = None if self.shared else self.cache.live_at(channel_id)
        if games is None:
            epoch = self.cache.epoch
            stored = [self.load(row) for row in await self.storage.live_games_at(channel_id=channel_id)]
            games = self.cache.know_at(channel_id, stored, epoch)
            if self.shared and len(games) > len(stored):
                # The cache adds games whose thread it knows before storage does; shared, such a game
                # may also be one another process has finished since: each is read again.
                read = {g.id for g in stored}
                games = [g if g.id in read else await self.get(g.id) for g in games]
                games = [g for g in games if channel_id in g.row.places]
        return games

    async def game_here(
        self,
        place_id: int,
        user_id: int,
        *,
        kind: str | None = None,
        prefer: Sequence[Callable[[GameRow], bool]] = (),
    ) -> Loaded:
        """The live game a command used in ``place_id`` (a channel or a thread) by ``user_id`` is
        about: the one played there (of ``kind``). Among several, the ``prefer`` tests narrow the
        choice in turn, then the caller's own game; still several, `WhichGame` names them. With none
        there, a game of the caller's played in its own thread off this channel is pointed to."""
        games = await self.live_at(place_id)
        here = [g for g in games if g.row.played_at(place_id)]
        candidates = [g for g in here if kind is None or g.row.kind == kind]
        for test in (*prefer, lambda row: row.seat_of(user_id) is not None):
            if len(candidates) <= 1:
                break
            candidates = [g for g in candidates if test(g.row)] or candidates
        if len(candidates) == 1:
            return candidates[0]
        if candidates:
            raise WhichGame(
                [g.id for g in candidates],
                Msg(
                    "Several {title} games are live here ({numbers}). Use the buttons on the board "
                    "(or lobby) of the one you mean, or play in its thread.",
                    title=self.rules_for(kind).TITLE,
                )
                if kind
                else Msg(
                    "Several live games are here ({numbers}). Use the buttons on the board (or lobby) "
                    "of the one you mean, or play in its thread."
                ),
            )
        away = [
            g
            for g in games
            if not g.row.played_at(place_id)
            and g.row.seat_of(user_id) is not None
            and (kind is None or g.row.kind == kind)
        ]
        if len(away) == 1:
            game = away[0]
            raise WhichGame(
                [game.id],
                Msg(
                    "Your {title} game is played in its thread {thread} ({numbers}). Use the command "
                    "there, or the buttons on its board.",
                    title=self.rules_for(game.row.kind).TITLE,
                    thread=f"<#{game.row.place_id}>",
                ),
            )
        if away:
            threads = ", ".join(f"<#{g.row.place_id}>" for g in away)
            raise WhichGame(
                [g.id for g in away],
                Msg(
                    "Your games here are played in their threads ({numbers}). Use the command in the "
                    "thread of the one you mean: {threads}.",
                    threads=threads,
                ),
            )
        if kind is not None and here:
            other = here[0]
            raise NoGameHere(
                "The game here is {title} (#{game_id}), not {wanted}. Use the /{command} commands or /game.",
                title=self.rules_for(other.row.kind).TITLE,
                game_id=other.id,
                wanted=self.rules_for(kind).TITLE,
                command=other.row.kind,
            )
        if kind:
            raise NoGameHere(
                "There is no {title} game in this channel. Start one with /{command} new.",
                title=self.rules_for(kind).TITLE,
                command=kind,
            )
        raise NoGameHere("There is no live game in this channel. Start one with /<game> new.")

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
            link = _newer_link(cached, link)
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

    # ---- lobby ----------------------------------------------------------------------------------

    async def open_lobby(
        self,
        *,
        kind: str,
        guild_id: int | None,
        channel_id: int,
        host_id: int,
        host_name: str,
        options: Mapping[str, Any],
        timeout_s: int = DEFAULT_TIMEOUT,
        effects: Sequence[Effect] = (),
    ) -> Changed:
        """A new lobby, committed with the ``effects`` it owes (its card)."""
        rules = self.rules_for(kind)
        resolved = resolve_options(rules.OPTIONS, options)
        written = await self.storage.create_lobby(
            kind=kind,
            guild_id=guild_id,
            channel_id=channel_id,
            host_id=host_id,
            host_name=host_name,
            options=resolved,
            seed=secrets.randbits(63),
            timeout_s=timeout_s,
            effects=effects,
        )
        self._changed()
        return Changed(self.load(written.row), written.effects)

    async def join(self, game_id: int, user_id: int, name: str, *, effects: Sequence[Effect] = ()) -> Changed:
        async with self.lock(game_id):
            game = await self.get(game_id)
            row = game.row
            self._require_lobby(row)
            rules = game.rules
            if user_id in row.seats:
                raise LobbyError("You are already in this lobby.")
            if len(row.seats) >= rules.MAX_PLAYERS:
                raise LobbyError(
                    Msg.n(
                        "The lobby is full: {title} takes at most {count} player.",
                        "The lobby is full: {title} takes at most {count} players.",
                        rules.MAX_PLAYERS,
                        title=rules.TITLE,
                    )
                )
            written = await self._write(
                game_id,
                self.storage.update_lobby(
                    game_id=game_id,
                    expected_version=row.version,
                    seats=(*zip(row.seats, row.names, strict=True), (user_id, name)),
                    host_id=row.host_id,
                    effects=effects,
                ),
            )
            return Changed(self.load(written.row), written.effects)

    async def rematch(
        self,
        game_id: int,
        user_id: int,
        name: str,
        *,
        opened: Sequence[Effect] = (),
        joined: Sequence[Effect] = (),
    ) -> tuple[Changed, bool]:
        """A player of the finished game ``game_id`` asks for a rematch: the live rematch lobby if there
        is one, joined; else a new lobby (same game, channel, options, time per move) with them as host
        and the game's computers seated again at their levels. The lobby, and whether it is new."""
        old = (await self.get(game_id)).row
        kind = self.rules_for(old.kind)
        if old.status != "finished":
            raise LobbyError(
                "Game #{game_id} is not over: a rematch follows a finished game.", game_id=game_id
            )
        if user_id not in old.seats:
            raise NotAPlayer(
                "Only the players of game #{game_id} can ask for its rematch. "
                "Join the rematch's lobby with its Join button, or open a game with /{command} new.",
                game_id=game_id,
                command=old.kind,
            )
        for _ in range(3):  # a concurrent click may open it first: then join that one
            existing = await self.storage.live_rematch(of_game=game_id)
            if existing is not None:
                if existing.status != "lobby":
                    raise LobbyError(
                        "The rematch of game #{game_id}, game #{rematch_id}, has already started.",
                        game_id=game_id,
                        rematch_id=existing.id,
                    )
                if user_id in existing.seats:
                    raise LobbyError(
                        "You are already in the rematch of game #{game_id}: game #{rematch_id}.",
                        game_id=game_id,
                        rematch_id=existing.id,
                    )
                return await self.join(existing.id, user_id, name, effects=joined), False
            computers = [(u, n) for u, n in zip(old.seats, old.names, strict=True) if is_computer(u)]
            seats = [(user_id, name), *computers][: kind.MAX_PLAYERS]
            try:
                written = await self.storage.create_rematch(
                    of_game=old, host_id=user_id, seats=seats, seed=secrets.randbits(63), effects=opened
                )
            except Conflict:  # another process opened it between the check and the insert
                continue
            if written is not None:
                self._changed()
                return Changed(self.load(written.row), written.effects), True
        raise LobbyError(
            "The rematch of game #{game_id} is being opened: try again in a moment.", game_id=game_id
        )

    async def leave_lobby(self, game_id: int, user_id: int, *, effects: Sequence[Effect] = ()) -> Changed:
        """Leave a lobby; the host role passes to the next player; the last one out cancels it."""
        async with self.lock(game_id):
            row = (await self.get(game_id)).row
            self._require_lobby(row)
            if user_id not in row.seats:
                raise NotAPlayer("You are not in this lobby.")
            seats = tuple((u, n) for u, n in zip(row.seats, row.names, strict=True) if u != user_id)
            if not people(u for u, _ in seats):  # only computers left: nobody to play with
                write = self.storage.cancel_game(
                    game_id=game_id, expected_version=row.version, effects=effects
                )
            else:
                host = row.host_id if row.host_id != user_id else people(u for u, _ in seats)[0]
                write = self.storage.update_lobby(
                    game_id=game_id, expected_version=row.version, seats=seats, host_id=host, effects=effects
                )
            written = await self._write(game_id, write)
            return Changed(self.load(written.row), written.effects)

    async def add_computer(
        self, game_id: int, user_id: int, level: str, *, effects: Sequence[Effect] = ()
    ) -> Changed:
        """The host seats a computer player at ``level`` in the lobby."""
        async with self.lock(game_id):
            row = (await self.get(game_id)).row
            self._require_lobby(row)
            if user_id != row.host_id:
                raise NotAllowed("Only the host, {host}, can add computer players.", host=f"<@{row.host_id}>")
            rules = self.rules_for(row.kind)
            if len(row.seats) >= rules.MAX_PLAYERS:
                raise LobbyError(
                    Msg.n(
                        "The lobby is full: {title} takes at most {count} player.",
                        "The lobby is full: {title} takes at most {count} players.",
                        rules.MAX_PLAYERS,
                        title=rules.TITLE,
                    )
                )
            computer = next_computer(row.seats, level)
            seats = (*zip(row.seats, row.names, strict=True), (computer, computer_name(computer)))
            return await self._reseat(row, seats, effects)

    async def remove_computer(self, game_id: int, user_id: int, *, effects: Sequence[Effect] = ()) -> Changed:
        """The host takes the computer player seated last out of the lobby."""
        async with self.lock(game_id):
            row = (await self.get(game_id)).row
            self._require_lobby(row)
            if user_id != row.host_id:
                raise NotAllowed(
                    "Only the host, {host}, can remove computer players.", host=f"<@{row.host_id}>"
                )
            computers = [u for u in row.seats if is_computer(u)]
            if not computers:
                raise LobbyError("There is no computer player in this lobby.")
            seats = tuple((u, n) for u, n in zip(row.seats, row.names, strict=True) if u != computers[-1])
            return await self._reseat(row, seats, effects)

    async def _reseat(
        self, row: GameRow, seats: Sequence[tuple[int, str]], effects: Sequence[Effect]
    ) -> Changed:
        """The lobby's seats replaced (its host kept)."""
        write = self.storage.update_lobby(
            game_id=row.id, expected_version=row.version, seats=seats, host_id=row.host_id, effects=effects
        )
        written = await self._write(row.id, write)
        return Changed(self.load(written.row), written.effects)

    async def start(
        self,
        game_id: int,
        user_id: int,
        *,
        effects: Callable[[Loaded], Sequence[Effect]] = lambda g: (),
        place: str | None = None,
    ) -> Changed:
        async with self.lock(game_id):
            game = await self.get(game_id)
            row, rules = game.row, game.rules
            self._require_lobby(row)
            if user_id != row.host_id:
                raise NotAllowed("Only the host, {host}, can start the game.", host=f"<@{row.host_id}>")
            if len(row.seats) < rules.MIN_PLAYERS:
                raise LobbyError(
                    Msg.n(
                        "{title} needs at least {count} player; the lobby has {joined}. "
                        "Wait for someone to press Join.",
                        "{title} needs at least {count} players; the lobby has {joined}. "
                        "Wait for someone to press Join.",
                        rules.MIN_PLAYERS,
                        title=rules.TITLE,
                        joined=len(row.seats),
                    )
                )
            state = rules.new_game(len(row.seats), row.options, row.seed)
            started = Loaded(
                row=replace(row, status="active", version=row.version + 1, start_place=place),
                rules=rules,
                state=state,
            )
            written = await self._write(
                game_id,
                self.storage.start_game(
                    game_id=game_id,
                    expected_version=row.version,
                    state=state.to_dict(),
                    waiting=sorted(rules.to_act(state)),
                    effects=effects(started),
                    place=place,
                ),
            )
            started = self.cache.put(Loaded(row=written.row, rules=rules, state=state))
            self._changed(started)
            return Changed(started, written.effects)

    async def cancel(
        self, game_id: int, user_id: int, *, can_manage: bool, effects: Sequence[Effect] = ()
    ) -> Changed:
        async with self.lock(game_id):
            row = (await self.get(game_id)).row
            if not row.live:
                raise GameOver("Game #{game_id} has already ended.", game_id=row.id)
            if user_id != row.host_id and not can_manage:
                raise NotAllowed(
                    "Only the host, {host}, or a member with Manage Messages can cancel this game.",
                    host=f"<@{row.host_id}>",
                )
            written = await self._write(
                game_id,
                self.storage.cancel_game(game_id=game_id, expected_version=row.version, effects=effects),
            )
        self._release(game_id)
        return Changed(self.load(written.row), written.effects)

    async def expire_lobby(self, game_id: int, *, effects: Sequence[Effect] = ()) -> Changed | None:
        async with self.lock(game_id):
            row = await self.storage.get_game(game_id=game_id)
            if row.status != "lobby":
                return None
            written = await self._write(
                game_id,
                self.storage.cancel_game(game_id=game_id, expected_version=row.version, effects=effects),
            )
        self._release(game_id)
        return Changed(self.load(written.row), written.effects)

    @staticmethod
    def _require_lobby(row: GameRow) -> None:
        if row.status == "active":
            raise LobbyError("Game #{game_id} has already started.", game_id=row.id)
        if not row.live:
            raise GameOver("Game #{game_id} has ended.", game_id=row.id)

    # ---- play -----------------------------------------------------------------------------------

    async def act(
        self,
        game_id: int,
        user_id: int,
        action: Any,
        *,
        expected_version: int | None = None,
        effects: Owed = lambda r: (),
    ) -> MoveResult:
        """Apply one player's action and commit it, with the effects it owes, before returning.

        ``expected_version`` comes from a control's custom_id: a click on an old board is refused
        rather than applied to a position the player did not see.
        """
        async with self.lock(game_id):
            before = await self.get(game_id)
            seat = self._require_player(before, user_id)
            if expected_version is not None and expected_version != before.row.version:
                raise StaleButton(
                    "That board is out of date: the game has moved on. Use the latest board "
                    "(or /game status to see it)."
                )
            return await self._commit(before, seat, action, effects)

    def check_turn(self, game: Loaded, user_id: int, expected_version: int | None) -> int:
        """The checks `act` makes, for a control that only leads to a move (it changes nothing)."""
        seat = self._require_player(game, user_id)
        if expected_version != game.row.version:
            raise StaleButton(
                "That board is out of date: the game has moved on. Use the latest board "
                "(or /game status to see it)."
            )
        return seat

    async def _commit(self, before: Loaded, seat: int, action: Any, owed: Owed) -> MoveResult:
        """Apply and commit one action (the caller holds the game's lock)."""
        rules = before.rules
        try:
            new_state = play(rules, before.state, seat, action)
        except GameError as exc:
            exc.seat_users = before.row.seats  # so that the refusal names people, not seats
            raise
        logged = _logged(action)
        outcome = rules.outcome(new_state)
        status = "active" if outcome is None else "finished"
        after_row = replace(before.row, version=before.row.version + 1, status=status)
        draft = MoveResult(before=before, after=Loaded(after_row, rules, new_state), seat=seat, action=logged)
        written = await self._write(
            before.id,
            self.storage.record_move(
                game_id=before.id,
                expected_version=before.row.version,
                seat=seat,
                action=logged,
                state=new_state.to_dict(),
                result=None if outcome is None else outcome.to_dict(),
                waiting=sorted(rules.to_act(new_state)),
                effects=owed(draft),
            ),
        )
        after = self.cache.put(Loaded(written.row, rules, new_state, draft.after._derived))
        self._changed(after)
        if not written.row.live:
            self._release(before.id)
        return replace(draft, after=after, effects=written.effects)

    async def time_out(
        self, game_id: int, seat: int, *, now: float, effects: Owed = lambda r: ()
    ) -> MoveResult | None:
        """The seat missed its deadline: it forfeits, unless it moved (or the game ended) meanwhile."""
        async with self.lock(game_id):
            before = await self.get(game_id)
            if not before.row.live or before.state is None:
                return None
            waits = {w.seat: w for w in await self.storage.waits_of_game(game_id=game_id)}
            wait = waits.get(seat)
            if wait is None or wait.deadline > now or seat not in before.rules.to_act(before.state):
                return None
            return await self._commit(before, seat, {"type": "forfeit", "reason": "timeout"}, effects)

    async def forfeit(self, game_id: int, user_id: int) -> MoveResult:
        return await self.act(game_id, user_id, FORFEIT)

    @staticmethod
    def _require_player(game: Loaded, user_id: int) -> int:
        row = game.row
        if row.status == "lobby":
            raise IllegalMove(
                "Game #{game_id} has not started yet: the host starts it from the lobby.", game_id=row.id
            )
        if not row.live:
            raise GameOver(
                "Game #{game_id} is over. Start a new one with /{command} new.",
                game_id=row.id,
                command=row.kind,
            )
        seat = row.seat_of(user_id)
        if seat is None:
            raise NotAPlayer(
                "You are not playing in game #{game_id}. "
                "Wait for the next one, or open your own in a channel with /{command} new.",
                game_id=row.id,
                command=row.kind,
            )
        return seat

    # ---- the move log ---------------------------------------------------------------------------

    async def replay(self, game_id: int) -> Any:
        """Rebuild a game's state from its initial state and its move log."""
        row, moves = await self.storage.game_with_moves(game_id=game_id)
        rules = self.rules_for(row.kind)
        state = rules.new_game(len(row.seats), row.options, row.seed)
        for move in moves:
            state = play(rules, state, move.seat, move.action)
        return state

    async def history(self, game_id: int, *, until: int | None = None) -> History:
        """A started game's moves up to version ``until`` (default: all), replayed from its log.

        The row and the log are read in one transaction, so a version is mapped onto the move that
        made it however many moves were committed since (never from a cached row, which may be
        older than the log)."""
        row, moves = await self.storage.game_with_moves(game_id=game_id)
        rules = self.rules_for(row.kind)
        start_version = row.version - len(moves) - (1 if row.status == "cancelled" else 0)
        first = state = rules.new_game(len(row.seats), row.options, row.seed)
        steps: list[Step] = []
        for version, move in enumerate(moves, start=start_version + 1):
            if until is not None and version > until:
                break
            after = play(rules, state, move.seat, move.action)
            steps.append(Step(version, move.seat, move.action, state, after))
            state = after
        return History(game_id, start_version, first, tuple(steps))
