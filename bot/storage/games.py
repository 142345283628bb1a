"""Games and their seats: reading game rows, and every change to a game.

A change to a game is one transaction that compares-and-swaps the game row on its version (bumping
it), writes what goes with the change (the move log, the seats' deadlines, the outbox effects) and
reads the committed row back, so the caller gets it without another trip. A lost race raises
`StaleVersion` and writes nothing.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Required, TypedDict, Unpack

from bot import clock
from bot.errors import NoGameHere
from bot.jsontypes import DBValue, JSONMap
from bot.storage.driver import Args, Many, Q, Repository, Txn
from bot.storage.errors import StaleVersion
from bot.storage.moves import append as append_move
from bot.storage.moves import select_moves
from bot.storage.outbox import insert_effects
from bot.storage.records import on_move as remember
from bot.storage.rows import GameRow, MoveRow, OutboxItem, Storable, Written, dumps
from bot.storage.tournament_games import game_over as tournament_game_over
from bot.storage.waits import sync as sync_waits

# The columns of a game row, named as `GameRow`'s fields (its seats come from ``seats``).
_FIELDS = (
    "id kind guild_id channel_id status host_id options seed state result version "
    "lobby_message_id board_message_id created_at updated_at timeout_s place_id start_place hints"
).split()
_COLUMNS = ", ".join("g." + c for c in _FIELDS)
_JSON = ("options", "state", "result")  # JSON text (options is never NULL)
_LIVE = "g.status IN ('lobby', 'active')"


def select_games(where: str, args: Args = ()) -> Txn[list[GameRow]]:
    """The games ``FROM games g {where}``, with their seats (one more statement for all of them, not
    one per game). The rows are decoded where the transaction runs: off the event loop for SQLite."""
    rows = yield Q(f"SELECT {_COLUMNS} FROM games g {where}", args)
    if not rows:
        return []
    ids = [r[0] for r in rows]
    seated: dict[int, list[tuple[int, str]]] = {game_id: [] for game_id in ids}
    marks = ", ".join("?" * len(ids))
    seat_rows = yield Q(
        f"SELECT game_id, user_id, name FROM seats WHERE game_id IN ({marks}) ORDER BY game_id, position",
        ids,
    )
    for game_id, user_id, name in seat_rows:
        seated[game_id].append((int(user_id), str(name)))
    games = []
    for r in rows:
        game = dict(zip(_FIELDS, r, strict=True))
        for key in _JSON:
            if game[key] is not None:
                game[key] = json.loads(game[key])
        game["place_id"] = game["place_id"] or game["channel_id"]
        game["hints"] = bool(game["hints"])
        seats = seated[game["id"]]
        games.append(
            GameRow(
                **game,
                seats=tuple(user_id for user_id, _ in seats),
                names=tuple(name for _, name in seats),
            )
        )
    return games


def select_game(game_id: int) -> Txn[GameRow]:
    games = yield from select_games("WHERE g.id = ?", (game_id,))
    if not games:
        raise NoGameHere("Game #{game_id} does not exist.", game_id=game_id)
    return games[0]


def cas(game_id: int, expected_version: int, sets: Mapping[str, DBValue]) -> Txn[None]:
    """Update the game row if it is still at ``expected_version``; bump the version."""
    assignments = ", ".join(f"{column} = ?" for column in sets)
    rows = yield Q(
        f"UPDATE games SET {assignments}, version = version + 1, updated_at = ? "
        "WHERE id = ? AND version = ? RETURNING id",
        (*sets.values(), clock.now(), game_id, expected_version),
    )
    if not rows:
        raise StaleVersion()


def write_seats(game_id: int, seats: Sequence[tuple[int, str]]) -> Txn[None]:
    yield Q("DELETE FROM seats WHERE game_id = ?", (game_id,))
    yield Many(
        "INSERT INTO seats (game_id, position, user_id, name) VALUES (?, ?, ?, ?)",
        [(game_id, position, user_id, name) for position, (user_id, name) in enumerate(seats)],
    )


def change(
    game_id: int,
    expected_version: int,
    sets: Mapping[str, DBValue],
    *writes: Txn[None],
    effects: Sequence[Storable],
) -> Txn[Written]:
    """Every change to a game: compare-and-swap the row (`cas`), then ``writes`` in order (what goes
    with the change; a generator does nothing until run, so they start after the swap), then queue
    ``effects`` and read the committed row back."""
    yield from cas(game_id, expected_version, sets)
    for write in writes:
        yield from write
    return (yield from queue_and_read(game_id, effects))


def queue_and_read(game_id: int, effects: Sequence[Storable]) -> Txn[Written]:
    """How every write to a game ends: its ``effects`` queued, and the row read back."""
    items: tuple[OutboxItem, ...] = yield from insert_effects(game_id, effects, locked=True)
    return Written(row=(yield from select_game(game_id)), effects=items)


def lobby_change(
    game_id: int,
    expected_version: int,
    *,
    seats: Sequence[tuple[int, str]],
    host_id: int,
    effects: Sequence[Storable] = (),
) -> Txn[Written]:
    """The lobby's seats (user id, name, in turn order) and host replaced."""
    sets = {"host_id": host_id}
    return change(game_id, expected_version, sets, write_seats(game_id, seats), effects=effects)


def cancel_change(game_id: int, expected_version: int, *, effects: Sequence[Storable] = ()) -> Txn[Written]:
    """The game (or lobby) cancelled: it waits for nobody any more."""
    sets = {"status": "cancelled"}
    # (a tournament's game cancelled counts as lost by every player of it)
    writes = (sync_waits(game_id, ()), tournament_game_over(game_id, None))
    return change(game_id, expected_version, sets, *writes, effects=effects)


class MoveChange(TypedDict, total=False):
    """The keywords of `Games.record_move` (and `Games.move_change`): the move, the state it makes
    and, when it ends the game, its ``result``; ``waiting``: the seats awaited next; ``effects``: what
    the move owes the world."""

    game_id: Required[int]
    expected_version: Required[int]
    seat: Required[int]
    action: Required[JSONMap]
    state: Required[JSONMap]
    result: JSONMap | None
    waiting: Sequence[int]
    effects: Sequence[Storable]


class Games(Repository):
    # ---- reading --------------------------------------------------------------------------------

    async def get_game(self, *, game_id: int) -> GameRow:
        return await self._db.read(select_game(game_id))

    async def game_with_moves(self, *, game_id: int) -> tuple[GameRow, list[MoveRow]]:
        """The game row and its move log as of one moment (one read transaction): the log holds
        exactly the moves that made the row's version."""

        def read() -> Txn[tuple[GameRow, list[MoveRow]]]:
            row = yield from select_game(game_id)
            return row, (yield from select_moves(game_id))

        return await self._db.read(read())

    async def live_games_at(self, *, channel_id: int) -> list[GameRow]:
        """The live games played in a channel (or thread), and those whose lobby card is there; and
        a game started from its card in a thread that has the card's id (a thread started from a
        message takes its id) which the game may not name as its place yet."""
        return await self._db.read(
            select_games(
                "WHERE g.id IN (SELECT id FROM games WHERE channel_id = ? AND status IN ('lobby', 'active') "
                "UNION SELECT id FROM games WHERE place_id = ? AND status IN ('lobby', 'active') "
                "UNION SELECT id FROM games WHERE lobby_message_id = ? AND status = 'active' "
                "AND start_place = 'thread') "
                "ORDER BY g.id",
                (channel_id, channel_id, channel_id),
            )
        )

    async def latest_game_at(self, *, place_id: int) -> GameRow | None:
        """The newest game played in a channel or thread: a live one first, else the one that ended
        last."""
        games = await self._db.read(
            select_games(
                f"WHERE g.place_id = ? ORDER BY {_LIVE} DESC, g.updated_at DESC, g.id DESC LIMIT 1",
                (place_id,),
            )
        )
        return games[0] if games else None

    async def thread_games_of(self, *, channel_id: int, limit: int = 5) -> list[GameRow]:
        """The games whose lobby card is in ``channel_id`` and which are played in a thread of their
        own: the live ones first, then the rest, the newest first (at most ``limit``)."""
        return await self._db.read(
            select_games(
                "WHERE g.id IN (SELECT id FROM games WHERE channel_id = ? AND status = 'active' "
                "UNION SELECT id FROM (SELECT id FROM games WHERE channel_id = ? "
                "ORDER BY updated_at DESC LIMIT ?) AS recent) "
                "AND g.place_id IS NOT NULL AND g.place_id != g.channel_id AND g.status != 'lobby' "
                f"ORDER BY {_LIVE} DESC, g.updated_at DESC, g.id DESC LIMIT ?",
                (channel_id, channel_id, 10 * limit, limit),
            )
        )

    async def live_games_of_user(self, *, user_id: int) -> list[GameRow]:
        return await self._db.read(
            select_games(
                f"JOIN seats s ON s.game_id = g.id WHERE s.user_id = ? AND {_LIVE} ORDER BY g.id", (user_id,)
            )
        )

    async def count_games(self, *, status: str | None = None) -> int:
        if status is None:
            rows = await self._read("SELECT COUNT(*) FROM games")
        else:
            rows = await self._read("SELECT COUNT(*) FROM games WHERE status = ?", (status,))
        return int(rows[0][0])

    async def expired_lobbies(self, *, created_before: float, limit: int = 50) -> list[int]:
        rows = await self._read(
            "SELECT id FROM games WHERE status = 'lobby' AND created_at <= ? ORDER BY created_at LIMIT ?",
            (created_before, limit),
        )
        return [int(r[0]) for r in rows]

    # ---- changing -------------------------------------------------------------------------------

    async def create_lobby(
        self,
        *,
        kind: str,
        guild_id: int | None,
        channel_id: int,
        host_id: int,
        host_name: str,
        options: JSONMap,
        seed: int,
        timeout_s: int = 86400,
        effects: Sequence[Storable] = (),
    ) -> Written:
        """A new lobby with its host seated, played in its channel until it moves to a thread; with
        the ``effects`` it owes (its card)."""
        now = clock.now()

        when = (now, now, timeout_s)

        def work() -> Txn[Written]:
            rows = yield Q(
                "INSERT INTO games (kind, guild_id, channel_id, place_id, status, host_id, options, seed, "
                "created_at, updated_at, timeout_s) "
                "VALUES (?, ?, ?, ?, 'lobby', ?, ?, ?, ?, ?, ?) RETURNING id",
                (kind, guild_id, channel_id, channel_id, host_id, dumps(dict(options)), seed, *when),
            )
            game_id = int(rows[0][0])
            yield from write_seats(game_id, [(host_id, host_name)])
            return (yield from queue_and_read(game_id, effects))

        return await self._db.write(work())

    async def live_rematch(self, *, of_game: int) -> GameRow | None:
        """The live lobby or game opened as the rematch of ``of_game``, if any."""
        games = await self._db.read(
            select_games(f"WHERE g.rematch_of = ? AND {_LIVE} ORDER BY g.id LIMIT 1", (of_game,))
        )
        return games[0] if games else None

    async def create_rematch(
        self,
        *,
        of_game: GameRow,
        host_id: int,
        seats: Sequence[tuple[int, str]],
        seed: int,
        effects: Sequence[Storable] = (),
    ) -> Written | None:
        """A lobby for the rematch of ``of_game`` (same kind, channel, options and time per move) with
        ``seats`` (the host first) and its ``effects``; None if a live rematch exists already (then
        join that one: `live_rematch`)."""
        now = clock.now()
        old = of_game
        args = (old.kind, old.guild_id, old.channel_id, old.channel_id, host_id, dumps(dict(old.options)))

        def work() -> Txn[Written | None]:
            # The unique index on live rematches decides who is first, also between processes (a
            # SELECT first would not: under READ COMMITTED two transactions can both find none).
            rows = yield Q(
                "INSERT INTO games (kind, guild_id, channel_id, place_id, status, host_id, options, seed, "
                "created_at, updated_at, timeout_s, rematch_of) "
                "VALUES (?, ?, ?, ?, 'lobby', ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (rematch_of) WHERE rematch_of IS NOT NULL AND status IN ('lobby', 'active') "
                "DO NOTHING RETURNING id",
                (*args, seed, now, now, old.timeout_s, old.id),
            )
            if not rows:
                return None
            game_id = int(rows[0][0])
            yield from write_seats(game_id, seats)
            return (yield from queue_and_read(game_id, effects))

        return await self._db.write(work())

    async def update_lobby(
        self,
        *,
        game_id: int,
        expected_version: int,
        seats: Sequence[tuple[int, str]],
        host_id: int,
        effects: Sequence[Storable] = (),
    ) -> Written:
        """Replace the lobby's seats, as (user id, display name) in turn order, and its host."""
        return await self._db.write(
            lobby_change(game_id, expected_version, seats=seats, host_id=host_id, effects=effects)
        )

    async def start_game(
        self,
        *,
        game_id: int,
        expected_version: int,
        state: JSONMap,
        waiting: Sequence[int] = (),
        effects: Sequence[Storable] = (),
        place: str | None = None,
    ) -> Written:
        """Start the game; ``waiting``: the seats that must act first (their deadlines start now);
        ``place``: where it is to be played (kept: its first board says why it is played in place)."""
        sets = {"status": "active", "state": dumps(state), "start_place": place}
        return await self._db.write(
            change(game_id, expected_version, sets, sync_waits(game_id, waiting), effects=effects)
        )

    async def record_move(self, **move: Unpack[MoveChange]) -> Written:
        """One transaction: append the move to the log, swap in the new state, queue its effects.

        With ``result`` (the outcome), the game is finished in the same transaction, and recorded
        with its ratings (`bot.storage.records`). ``waiting``: the
        seats the game now waits for (see `bot.storage.waits.sync`). `StaleVersion` if the game moved
        meanwhile. (Its keywords: `MoveChange`.)
        """
        return await self._db.write(self.move_change(**move))

    def move_change(
        self,
        *,
        game_id: int,
        expected_version: int,
        seat: int,
        action: JSONMap,
        state: JSONMap,
        result: JSONMap | None = None,
        waiting: Sequence[int] = (),
        effects: Sequence[Storable] = (),
    ) -> Txn[Written]:
        """What `record_move` writes, as a transaction's statements (to run with others: a person's
        forfeits and their deletion are one transaction, see `bot.storage.privacy`)."""
        sets: dict[str, DBValue] = {"state": dumps(state)}
        if result is not None:
            sets["status"] = "finished"
            sets["result"] = dumps(result)
            waiting = ()  # a finished game waits for no one
        return change(
            game_id,
            expected_version,
            sets,
            # (the memory before the waits change: see there)
            remember(game_id, seat, action, result, self.score_ranked),
            sync_waits(game_id, waiting),
            append_move(game_id, seat, action),
            effects=effects,
        )

    async def cancel_game(
        self, *, game_id: int, expected_version: int, effects: Sequence[Storable] = ()
    ) -> Written:
        return await self._db.write(cancel_change(game_id, expected_version, effects=effects))
