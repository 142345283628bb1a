"""The game framework below Discord: lobbies, seats, turns, per-game locks, moves and replay.

Cogs call this; it calls the pure rules and the storage. Every check that decides *who* may do *what*
lives here, so a button, a slash command and a DM reply are held to the same rules. Nothing here
imports discord.
"""

from __future__ import annotations

import asyncio
import secrets
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from bot.deadlines import DEFAULT_TIMEOUT
from bot.errors import (
    GameOver,
    IllegalMove,
    LobbyError,
    NoGameHere,
    NotAllowed,
    NotAPlayer,
    StaleButton,
)
from bot.games import RULES, play
from bot.games.base import Action, resolve_options
from bot.storage import GameRow, Storage


@dataclass(frozen=True)
class Loaded:
    """A game row with its rules module and (once started) its decoded state."""

    row: GameRow
    rules: ModuleType
    state: Any  # None while in the lobby

    @property
    def id(self) -> int:
        return self.row.id


@dataclass(frozen=True)
class MoveResult:
    before: Loaded
    after: Loaded
    seat: int
    action: dict[str, Any]


def rules_for(kind: str) -> ModuleType:
    try:
        return RULES[kind]
    except KeyError:
        raise NoGameHere(f"There is no game called {kind!r}.") from None


def load(row: GameRow) -> Loaded:
    rules = rules_for(row.kind)
    state = None if row.state is None else rules.State.from_dict(row.state)
    return Loaded(row=row, rules=rules, state=state)


STATE_CACHE_SIZE = 4096


class GameService:
    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self._locks: dict[int, asyncio.Lock] = {}
        self.on_change: Callable[[], None] | None = None  # told after every committed change
        # Parsed states of the games being played, by (game id, version). A version's state never
        # changes, so an entry can fall out of use but never go stale; states are immutable.
        self._states: OrderedDict[tuple[int, int], Any] = OrderedDict()

    def load(self, row: GameRow) -> Loaded:
        """`load`, without parsing again a state this process has already seen."""
        if row.state is None:
            return load(row)
        key = (row.id, row.version)
        state = self._states.get(key)
        if state is None:
            return self._keep(load(row))
        self._states.move_to_end(key)
        return Loaded(row=row, rules=rules_for(row.kind), state=state)

    def _keep(self, game: Loaded) -> Loaded:
        if game.state is not None:
            self._states[(game.row.id, game.row.version)] = game.state
            while len(self._states) > STATE_CACHE_SIZE:
                self._states.popitem(last=False)
        return game

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()

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

    # ---- finding games --------------------------------------------------------------------------

    async def get(self, game_id: int) -> Loaded:
        return self.load(await self.storage.get_game(game_id=game_id))

    async def live_in_channel(self, channel_id: int, kind: str | None = None) -> Loaded:
        row = await self.storage.live_game_in_channel(channel_id=channel_id)
        if row is None:
            what = f"{rules_for(kind).TITLE} game" if kind else "game"
            start = f"/{kind} new" if kind else "/<game> new"
            raise NoGameHere(f"There is no {what} in this channel. Start one with {start}.")
        if kind is not None and row.kind != kind:
            raise NoGameHere(
                f"The game in this channel is {rules_for(row.kind).TITLE} (#{row.id}), "
                f"not {rules_for(kind).TITLE}. Use the /{row.kind} commands or /game."
            )
        return self.load(row)

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
    ) -> Loaded:
        rules = rules_for(kind)
        resolved = resolve_options(rules.OPTIONS, options)
        row = await self.storage.create_lobby(
            kind=kind,
            guild_id=guild_id,
            channel_id=channel_id,
            host_id=host_id,
            host_name=host_name,
            options=resolved,
            seed=secrets.randbits(63),
            timeout_s=timeout_s,
        )
        self._changed()
        return self.load(row)

    async def join(self, game_id: int, user_id: int, name: str) -> Loaded:
        async with self.lock(game_id):
            row = await self.storage.get_game(game_id=game_id)
            self._require_lobby(row)
            rules = rules_for(row.kind)
            if user_id in row.seats:
                raise LobbyError(f"You are already in this lobby (seat {row.seats.index(user_id) + 1}).")
            if len(row.seats) >= rules.MAX_PLAYERS:
                raise LobbyError(
                    f"The lobby is full: {rules.TITLE} takes at most {rules.MAX_PLAYERS} players."
                )
            row = await self.storage.update_lobby(
                game_id=game_id,
                expected_version=row.version,
                seats=(*zip(row.seats, row.names, strict=True), (user_id, name)),
                host_id=row.host_id,
            )
            return self.load(row)

    async def leave_lobby(self, game_id: int, user_id: int) -> Loaded:
        """Leave a lobby; the host role passes to the next seat; the last one out cancels it."""
        async with self.lock(game_id):
            row = await self.storage.get_game(game_id=game_id)
            self._require_lobby(row)
            if user_id not in row.seats:
                raise NotAPlayer("You are not in this lobby.")
            seats = tuple((u, n) for u, n in zip(row.seats, row.names, strict=True) if u != user_id)
            if not seats:
                row = await self.storage.cancel_game(game_id=game_id, expected_version=row.version)
                return self.load(row)
            host = row.host_id if row.host_id != user_id else seats[0][0]
            row = await self.storage.update_lobby(
                game_id=game_id, expected_version=row.version, seats=seats, host_id=host
            )
            return self.load(row)

    async def start(self, game_id: int, user_id: int) -> Loaded:
        async with self.lock(game_id):
            row = await self.storage.get_game(game_id=game_id)
            self._require_lobby(row)
            rules = rules_for(row.kind)
            if user_id != row.host_id:
                raise NotAllowed(f"Only the host, <@{row.host_id}>, can start the game.")
            if len(row.seats) < rules.MIN_PLAYERS:
                raise LobbyError(
                    f"{rules.TITLE} needs at least {rules.MIN_PLAYERS} players; the lobby has "
                    f"{len(row.seats)}. Wait for someone to press Join."
                )
            state = rules.new_game(len(row.seats), row.options, row.seed)
            row = await self.storage.start_game(
                game_id=game_id,
                expected_version=row.version,
                state=state.to_dict(),
                waiting=sorted(rules.to_act(state)),
            )
            self._changed()
            return self._keep(Loaded(row=row, rules=rules, state=state))

    async def cancel(self, game_id: int, user_id: int, *, can_manage: bool) -> Loaded:
        async with self.lock(game_id):
            row = await self.storage.get_game(game_id=game_id)
            if not row.live:
                raise GameOver(f"Game #{row.id} has already ended.")
            if user_id != row.host_id and not can_manage:
                raise NotAllowed(
                    f"Only the host, <@{row.host_id}>, or a member with Manage Messages can cancel this game."
                )
            row = await self.storage.cancel_game(game_id=game_id, expected_version=row.version)
        self._release(game_id)
        return self.load(row)

    @staticmethod
    def _require_lobby(row: GameRow) -> None:
        if row.status == "active":
            raise LobbyError(f"Game #{row.id} has already started.")
        if not row.live:
            raise GameOver(f"Game #{row.id} has ended.")

    # ---- play -----------------------------------------------------------------------------------

    async def act(
        self,
        game_id: int,
        user_id: int,
        action: Action,
        *,
        expected_version: int | None = None,
    ) -> MoveResult:
        """Apply one player's action and commit it before returning.

        ``expected_version`` comes from a button's custom_id: a click on an old board is refused
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
            return await self._commit(before, seat, action)

    async def _commit(self, before: Loaded, seat: int, action: Action) -> MoveResult:
        """Apply and commit one action (the caller holds the game's lock)."""
        new_state = play(before.rules, before.state, seat, action)
        outcome = before.rules.outcome(new_state)
        row = await self.storage.record_move(
            game_id=before.id,
            expected_version=before.row.version,
            seat=seat,
            action=dict(action),
            state=new_state.to_dict(),
            result=None if outcome is None else outcome.to_dict(),
            waiting=sorted(before.rules.to_act(new_state)),
        )
        after = self._keep(Loaded(row=row, rules=before.rules, state=new_state))
        self._changed()
        if not row.live:
            self._release(before.id)
        return MoveResult(before=before, after=after, seat=seat, action=dict(action))

    async def time_out(self, game_id: int, seat: int, *, now: float) -> MoveResult | None:
        """The seat missed its deadline: it forfeits, unless it moved (or the game ended) meanwhile."""
        async with self.lock(game_id):
            before = await self.get(game_id)
            if not before.row.live or before.state is None:
                return None
            waits = {w.seat: w for w in await self.storage.waits_of_game(game_id=game_id)}
            wait = waits.get(seat)
            if wait is None or wait.deadline > now or seat not in before.rules.to_act(before.state):
                return None
            return await self._commit(before, seat, {"type": "forfeit", "reason": "timeout"})

    async def expire_lobby(self, game_id: int) -> Loaded | None:
        async with self.lock(game_id):
            row = await self.storage.get_game(game_id=game_id)
            if row.status != "lobby":
                return None
            row = await self.storage.cancel_game(game_id=game_id, expected_version=row.version)
        self._release(game_id)
        return self.load(row)

    async def forfeit(self, game_id: int, user_id: int) -> MoveResult:
        return await self.act(game_id, user_id, {"type": "forfeit"})

    @staticmethod
    def _require_player(game: Loaded, user_id: int) -> int:
        row = game.row
        if row.status == "lobby":
            raise IllegalMove(f"Game #{row.id} has not started yet: the host starts it from the lobby.")
        if not row.live:
            raise GameOver(f"Game #{row.id} is over. Start a new one with /{row.kind} new.")
        seat = row.seat_of(user_id)
        if seat is None:
            raise NotAPlayer(
                f"You are not playing in game #{row.id}. Wait for the next one, or start your own "
                "in a thread."
            )
        return seat

    async def replay(self, game_id: int) -> Any:
        """Rebuild a game's state from its initial state and its move log."""
        row = await self.storage.get_game(game_id=game_id)
        rules = rules_for(row.kind)
        state = rules.new_game(len(row.seats), row.options, row.seed)
        for move in await self.storage.moves(game_id=game_id):
            state = play(rules, state, move.seat, move.action)
        return state
