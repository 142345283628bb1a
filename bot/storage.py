"""All SQL lives here: games, their seats, and the append-only move log, in SQLite via aiosqlite.

The rest of the bot talks to `Storage`, a small repository with keyword-only, typed async methods
("not found" raises `NoGameHere`), so a PostgreSQL backend could implement the same methods later
without touching cogs or rules.

Durability: WAL journal with ``synchronous=FULL``, so a committed move survives a crash of the process
or the machine. A move is one transaction: append to the log and compare-and-swap the game row on its
version. Migrations are numbered and applied at startup in one transaction, ``PRAGMA user_version``
counting them.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

import aiosqlite

from bot.errors import ChannelBusy, GameError, NoGameHere

T = TypeVar("T")

LIVE = ("lobby", "active")
# Game rows kept in memory (the games being played now): a click reads its game from here, not from
# the database. 4,096 rows are a few MB; older entries are dropped first.
GAME_CACHE_SIZE = 4096
STATUSES = ("lobby", "active", "finished", "cancelled")

MIGRATIONS: tuple[str, ...] = (
    # 1: games, seats, the move log, and a key-value table for the bot's own bookkeeping.
    """
    CREATE TABLE games (
        id INTEGER PRIMARY KEY,
        kind TEXT NOT NULL,
        guild_id INTEGER,
        channel_id INTEGER NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('lobby', 'active', 'finished', 'cancelled')),
        host_id INTEGER NOT NULL,
        options TEXT NOT NULL,
        seed INTEGER NOT NULL,
        state TEXT,
        result TEXT,
        version INTEGER NOT NULL DEFAULT 0,
        lobby_message_id INTEGER,
        board_message_id INTEGER,
        created_at REAL NOT NULL,
        updated_at REAL NOT NULL
    );
    -- At most one game in its lobby or in play per channel (a thread is a channel of its own).
    CREATE UNIQUE INDEX games_one_live_per_channel ON games (channel_id)
        WHERE status IN ('lobby', 'active');
    CREATE INDEX games_live ON games (status) WHERE status IN ('lobby', 'active');
    CREATE TABLE seats (
        game_id INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        user_id INTEGER NOT NULL,
        name TEXT NOT NULL,
        PRIMARY KEY (game_id, position),
        UNIQUE (game_id, user_id)
    );
    CREATE INDEX seats_by_user ON seats (user_id);
    CREATE TABLE moves (
        game_id INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        action TEXT NOT NULL,
        created_at REAL NOT NULL,
        PRIMARY KEY (game_id, seq)
    );
    CREATE TABLE meta (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    """,
    # 2: private channels. Per player and game: whether their DMs are closed (noticed once), and the
    # last DM panel sent (its controls are taken off when a newer one arrives). Typed DM answers that
    # could belong to several games wait here until the player says which game they meant.
    """
    CREATE TABLE dm_links (
        game_id INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        user_id INTEGER NOT NULL,
        blocked INTEGER NOT NULL DEFAULT 0,
        dm_channel_id INTEGER,
        panel_message_id INTEGER,
        PRIMARY KEY (game_id, user_id)
    );
    CREATE TABLE typed_replies (
        id INTEGER PRIMARY KEY,
        user_id INTEGER NOT NULL,
        text TEXT NOT NULL,
        created_at REAL NOT NULL
    );
    CREATE INDEX typed_replies_by_user ON typed_replies (user_id);
    """,
    # 3: deadlines. Each game's move timeout; one row per awaited seat with its deadline (written in
    # the same transaction as the move that made the seat awaited); who muted reminders.
    """
    ALTER TABLE games ADD COLUMN timeout_s INTEGER NOT NULL DEFAULT 86400;
    CREATE TABLE waits (
        game_id INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        seat INTEGER NOT NULL,
        since REAL NOT NULL,
        deadline REAL NOT NULL,
        reminded INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (game_id, seat)
    );
    CREATE INDEX waits_by_deadline ON waits (deadline);
    CREATE INDEX waits_to_remind ON waits ((since + deadline) / 2) WHERE reminded = 0;
    CREATE TABLE reminder_mutes (
        game_id INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
        user_id INTEGER NOT NULL,
        PRIMARY KEY (game_id, user_id)
    );
    CREATE INDEX games_lobbies_by_age ON games (created_at) WHERE status = 'lobby';
    """,
    # 4: a channel's games, newest first (/game status looks for the last game of a channel; without
    # this it read every game ever played).
    """
    CREATE INDEX games_by_channel ON games (channel_id, updated_at);
    """,
)


class StaleVersion(GameError):
    """The game row changed between reading and writing (another move won the race)."""

    def __init__(self) -> None:
        super().__init__("The game changed while you were acting: look at the latest board and try again.")


@dataclass(frozen=True)
class GameRow:
    id: int
    kind: str
    guild_id: int | None
    channel_id: int
    status: str
    host_id: int
    options: dict[str, Any]
    seed: int
    state: dict[str, Any] | None
    result: dict[str, Any] | None
    version: int
    lobby_message_id: int | None
    board_message_id: int | None
    created_at: float
    updated_at: float
    timeout_s: int  # how long each awaited player has for their move
    seats: tuple[int, ...]  # user ids in turn order; seat 0 first
    names: tuple[str, ...]  # their display names when they joined (for images; mentions use ids)

    @property
    def live(self) -> bool:
        return self.status in LIVE

    def seat_of(self, user_id: int) -> int | None:
        try:
            return self.seats.index(user_id)
        except ValueError:
            return None


@dataclass(frozen=True)
class DmLink:
    """A player's private channel for one game: DMs closed?, and their latest DM panel."""

    game_id: int
    user_id: int
    blocked: bool
    dm_channel_id: int | None
    panel_message_id: int | None


@dataclass(frozen=True)
class Wait:
    """The game waits for ``seat`` until ``deadline`` (epoch seconds); reminded halfway."""

    game_id: int
    seat: int
    since: float
    deadline: float
    reminded: bool

    @property
    def remind_at(self) -> float:
        return (self.since + self.deadline) / 2


def _wait(row: sqlite3.Row) -> Wait:
    return Wait(
        game_id=int(row[0]),
        seat=int(row[1]),
        since=float(row[2]),
        deadline=float(row[3]),
        reminded=bool(row[4]),
    )


@dataclass(frozen=True)
class MoveRow:
    game_id: int
    seq: int
    seat: int
    action: dict[str, Any]
    created_at: float


_GAME_COLUMNS = ", ".join(
    "g." + c
    for c in (
        "id kind guild_id channel_id status host_id options seed state result version "
        "lobby_message_id board_message_id created_at updated_at timeout_s"
    ).split()
)
# The seats of each game, fetched with it by the same query (not one more query per game).
_SEATS_COLUMN = (
    "(SELECT json_group_array(json_array(st.position, st.user_id, st.name)) "
    "FROM seats st WHERE st.game_id = g.id) AS seat_list"
)


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


class Storage:
    """The bot's one database connection and every query it runs."""

    def __init__(self, conn: aiosqlite.Connection) -> None:
        # One connection serves every coroutine. aiosqlite runs whatever it is given one at a time in
        # its thread, and every use below is a single trip there (a query, or a whole transaction in
        # `_write`), so no statement can land inside another coroutine's transaction. Trips are what
        # cost: each waits for the event loop, so a transaction sent statement by statement kept the
        # database busy for several loop turns per move.
        self._conn = conn
        self._rows: OrderedDict[int, GameRow] = OrderedDict()  # see `_remember`
        self._live_in: dict[int, int] = {}  # channel id -> its live game, for the rows in `_rows`
        # Each player's DM link per game, as last read or written here (every write is below).
        self._links: OrderedDict[tuple[int, int], DmLink] = OrderedDict()

    @classmethod
    async def open(cls, path: str) -> Storage:
        conn = await aiosqlite.connect(path, isolation_level=None)
        conn.row_factory = sqlite3.Row
        await conn.execute("PRAGMA journal_mode=WAL")
        await conn.execute("PRAGMA synchronous=FULL")
        await conn.execute("PRAGMA foreign_keys=ON")
        await conn.execute("PRAGMA busy_timeout=5000")
        storage = cls(conn)
        await storage._migrate()
        return storage

    async def close(self) -> None:
        await self._conn.close()

    async def _migrate(self) -> None:
        async with self._conn.execute("PRAGMA user_version") as cur:
            row = await cur.fetchone()
        current = int(row[0]) if row else 0
        if current >= len(MIGRATIONS):
            return
        await self._conn.execute("BEGIN IMMEDIATE")
        try:
            for number in range(current, len(MIGRATIONS)):
                for statement in MIGRATIONS[number].split(";"):
                    if statement.strip():
                        await self._conn.execute(statement)
            await self._conn.execute(f"PRAGMA user_version = {len(MIGRATIONS)}")
            await self._conn.execute("COMMIT")
        except BaseException:
            await self._conn.execute("ROLLBACK")
            raise

    async def schema_version(self) -> int:
        row = await self._fetchone("PRAGMA user_version")
        return int(row[0]) if row else 0

    # ---- reading --------------------------------------------------------------------------------

    async def _fetchall(self, query: str, args: Sequence[Any] = ()) -> list[sqlite3.Row]:
        # One trip (execute, fetch and close would be three).
        return list(await self._conn.execute_fetchall(query, args))

    async def _fetchone(self, query: str, args: Sequence[Any] = ()) -> sqlite3.Row | None:
        rows = await self._fetchall(query, args)
        return rows[0] if rows else None

    async def _games(self, where: str, args: Sequence[Any] = ()) -> list[GameRow]:
        # The rows are parsed in the database thread too: one trip, and the JSON off the event loop.
        games: list[GameRow] = await self._conn._execute(_select_games, self._conn._conn, where, args)
        for game in games:
            self._remember(game)
        return games

    def _remember(self, game: GameRow) -> None:
        """Keep the newest copy of a game row. Every write to ``games`` goes through this class and
        refreshes its entry, so an entry is never stale; an older copy never replaces a newer one."""
        cached = self._rows.get(game.id)
        if cached is None or cached.version <= game.version:
            self._rows[game.id] = game
            if game.live:
                self._live_in[game.channel_id] = game.id
            elif self._live_in.get(game.channel_id) == game.id:
                del self._live_in[game.channel_id]
        self._rows.move_to_end(game.id)
        while len(self._rows) > GAME_CACHE_SIZE:
            _, dropped = self._rows.popitem(last=False)
            if self._live_in.get(dropped.channel_id) == dropped.id:
                del self._live_in[dropped.channel_id]

    async def get_game(self, *, game_id: int) -> GameRow:
        cached = self._rows.get(game_id)
        if cached is not None:
            self._rows.move_to_end(game_id)
            return cached
        games = await self._games("WHERE id = ?", (game_id,))
        if not games:
            raise NoGameHere(f"Game #{game_id} does not exist.")
        return games[0]

    async def live_game_in_channel(self, *, channel_id: int) -> GameRow | None:
        # A channel has at most one live game, and every write passes `_remember`: a known live game
        # of the channel is the answer. Not knowing one proves nothing (a restart, an evicted row).
        game_id = self._live_in.get(channel_id)
        if game_id is not None:
            cached = self._rows.get(game_id)
            if cached is not None and cached.live:
                self._rows.move_to_end(game_id)
                return cached
        games = await self._games("WHERE channel_id = ? AND status IN ('lobby', 'active')", (channel_id,))
        return games[0] if games else None

    async def latest_game_in_channel(self, *, channel_id: int) -> GameRow | None:
        """The live game of the channel, else the one that ended last."""
        games = await self._games(
            "WHERE channel_id = ? "
            "ORDER BY status IN ('lobby', 'active') DESC, updated_at DESC, id DESC LIMIT 1",
            (channel_id,),
        )
        return games[0] if games else None

    async def live_games_of_user(self, *, user_id: int) -> list[GameRow]:
        return await self._games(
            "JOIN seats s ON s.game_id = g.id "
            "WHERE s.user_id = ? AND g.status IN ('lobby', 'active') ORDER BY g.id",
            (user_id,),
        )

    async def moves(self, *, game_id: int) -> list[MoveRow]:
        rows = await self._fetchall(
            "SELECT game_id, seq, seat, action, created_at FROM moves WHERE game_id = ? ORDER BY seq",
            (game_id,),
        )
        return [
            MoveRow(
                game_id=r["game_id"],
                seq=r["seq"],
                seat=r["seat"],
                action=json.loads(r["action"]),
                created_at=r["created_at"],
            )
            for r in rows
        ]

    async def count_games(self, *, status: str | None = None) -> int:
        if status is None:
            row = await self._fetchone("SELECT COUNT(*) FROM games")
        else:
            row = await self._fetchone("SELECT COUNT(*) FROM games WHERE status = ?", (status,))
        return int(row[0]) if row else 0

    # ---- writing --------------------------------------------------------------------------------

    async def _write(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``work(db)`` as one transaction, committed (or rolled back if it raises) in the same
        trip to aiosqlite's thread; its result or its exception comes back here."""

        def transaction(db: sqlite3.Connection) -> T:
            db.execute("BEGIN IMMEDIATE")
            try:
                result = work(db)
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
            return result

        # aiosqlite's public methods take one statement per trip; `_execute` is how they all reach
        # its thread, and `_conn` is the sqlite3 connection that lives there.
        return await self._conn._execute(transaction, self._conn._conn)

    async def _write_game(self, game_id: int, work: Callable[[sqlite3.Connection], object]) -> GameRow:
        """`_write` for a change to one game: the transaction ends by reading the game back, so the
        caller gets the committed row without another trip."""

        def change(db: sqlite3.Connection) -> GameRow:
            work(db)
            return _select_games(db, "WHERE id = ?", (game_id,))[0]

        try:
            game = await self._write(change)
        except BaseException:
            self._rows.pop(game_id, None)  # whatever happened, the next read goes to the database
            raise
        self._remember(game)
        return game

    async def create_lobby(
        self,
        *,
        kind: str,
        guild_id: int | None,
        channel_id: int,
        host_id: int,
        host_name: str,
        options: Mapping[str, Any],
        seed: int,
        timeout_s: int = 86400,
    ) -> GameRow:
        now = time.time()

        def work(db: sqlite3.Connection) -> GameRow:
            cur = db.execute(
                "INSERT INTO games (kind, guild_id, channel_id, status, host_id, options, seed, "
                "created_at, updated_at, timeout_s) VALUES (?, ?, ?, 'lobby', ?, ?, ?, ?, ?, ?)",
                (kind, guild_id, channel_id, host_id, _dumps(dict(options)), seed, now, now, timeout_s),
            )
            assert cur.lastrowid is not None
            _write_seats(db, cur.lastrowid, [(host_id, host_name)])
            return _select_games(db, "WHERE id = ?", (cur.lastrowid,))[0]

        try:
            game = await self._write(work)
        except sqlite3.IntegrityError:
            existing = await self.live_game_in_channel(channel_id=channel_id)
            raise ChannelBusy(_busy_message(existing)) from None
        self._remember(game)
        return game

    async def update_lobby(
        self, *, game_id: int, expected_version: int, seats: Sequence[tuple[int, str]], host_id: int
    ) -> GameRow:
        """Replace the lobby's seats, as (user id, display name) in turn order, and its host."""

        def work(db: sqlite3.Connection) -> None:
            _cas(db, game_id, expected_version, {"host_id": host_id})
            _write_seats(db, game_id, seats)

        return await self._write_game(game_id, work)

    async def start_game(
        self,
        *,
        game_id: int,
        expected_version: int,
        state: Mapping[str, Any],
        waiting: Sequence[int] = (),
    ) -> GameRow:
        """Start the game; ``waiting``: the seats that must act first (their deadlines start now)."""
        sets = {"status": "active", "state": _dumps(state)}

        def work(db: sqlite3.Connection) -> None:
            _cas(db, game_id, expected_version, sets)
            _sync_waits(db, game_id, waiting)

        return await self._write_game(game_id, work)

    async def record_move(
        self,
        *,
        game_id: int,
        expected_version: int,
        seat: int,
        action: Mapping[str, Any],
        state: Mapping[str, Any],
        result: Mapping[str, Any] | None = None,
        waiting: Sequence[int] = (),
    ) -> GameRow:
        """One transaction: append the move to the log and swap in the new state.

        With ``result`` (the outcome), the game is finished in the same transaction. ``waiting``: the
        seats the game now waits for (see `_sync_waits`).
        """
        sets: dict[str, Any] = {"state": _dumps(state)}
        if result is not None:
            sets["status"] = "finished"
            sets["result"] = _dumps(result)
        logged = (game_id, game_id, seat, _dumps(dict(action)), time.time())

        def work(db: sqlite3.Connection) -> None:
            _sync_waits(db, game_id, () if result is not None else waiting)
            _cas(db, game_id, expected_version, sets)
            db.execute(
                "INSERT INTO moves (game_id, seq, seat, action, created_at) VALUES "
                "(?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM moves WHERE game_id = ?), ?, ?, ?)",
                logged,
            )

        return await self._write_game(game_id, work)

    async def cancel_game(self, *, game_id: int, expected_version: int) -> GameRow:
        def work(db: sqlite3.Connection) -> None:
            _cas(db, game_id, expected_version, {"status": "cancelled"})
            _sync_waits(db, game_id, ())

        return await self._write_game(game_id, work)

    async def set_messages(
        self,
        *,
        game_id: int,
        lobby_message_id: int | None = None,
        board_message_id: int | None = None,
    ) -> None:
        """Remember where the lobby and the latest board are (not a game change: no version bump)."""
        sets = {
            k: v
            for k, v in (
                ("lobby_message_id", lobby_message_id),
                ("board_message_id", board_message_id),
            )
            if v is not None
        }
        if not sets:
            return
        assignments = ", ".join(f"{col} = ?" for col in sets)
        query = f"UPDATE games SET {assignments} WHERE id = ?"
        try:
            await self._write(lambda db: db.execute(query, (*sets.values(), game_id)))
        except BaseException:
            self._rows.pop(game_id, None)
            raise
        cached = self._rows.get(game_id)
        if cached is not None:
            self._rows[game_id] = replace(
                cached,
                lobby_message_id=sets.get("lobby_message_id", cached.lobby_message_id),
                board_message_id=sets.get("board_message_id", cached.board_message_id),
            )

    # ---- private channels (DMs) ------------------------------------------------------------------

    async def get_dm_link(self, *, game_id: int, user_id: int) -> DmLink:
        key = (game_id, user_id)
        link = self._links.get(key)
        if link is None:
            link = self._links[key] = await self._read_dm_link(game_id, user_id)
            while len(self._links) > GAME_CACHE_SIZE:
                self._links.popitem(last=False)
        return link

    async def _read_dm_link(self, game_id: int, user_id: int) -> DmLink:
        row = await self._fetchone(
            "SELECT blocked, dm_channel_id, panel_message_id FROM dm_links WHERE game_id = ? AND user_id = ?",
            (game_id, user_id),
        )
        if row is None:
            return DmLink(
                game_id=game_id, user_id=user_id, blocked=False, dm_channel_id=None, panel_message_id=None
            )
        return DmLink(
            game_id=game_id,
            user_id=user_id,
            blocked=bool(row[0]),
            dm_channel_id=row[1],
            panel_message_id=row[2],
        )

    async def mark_dm_blocked(self, *, game_id: int, user_id: int) -> bool:
        """Record that the player's DMs are closed; True the first time (when to post the notice)."""
        self._links.pop((game_id, user_id), None)  # read again next time (whatever the write does)
        cur = await self._write(
            lambda db: db.execute(
                "INSERT INTO dm_links (game_id, user_id, blocked) VALUES (?, ?, 1) "
                "ON CONFLICT (game_id, user_id) DO UPDATE SET blocked = 1 WHERE blocked = 0",
                (game_id, user_id),
            )
        )
        # Again after the write: a read that was queued before it must not leave its older copy.
        self._links.pop((game_id, user_id), None)
        return cur.rowcount == 1

    async def set_dm_panel(
        self, *, game_id: int, user_id: int, dm_channel_id: int, panel_message_id: int
    ) -> None:
        self._links.pop((game_id, user_id), None)
        await self._write(
            lambda db: db.execute(
                "INSERT INTO dm_links (game_id, user_id, blocked, dm_channel_id, panel_message_id) "
                "VALUES (?, ?, 0, ?, ?) ON CONFLICT (game_id, user_id) DO UPDATE SET "
                "blocked = 0, dm_channel_id = excluded.dm_channel_id, "
                "panel_message_id = excluded.panel_message_id",
                (game_id, user_id, dm_channel_id, panel_message_id),
            )
        )
        self._links[(game_id, user_id)] = DmLink(
            game_id=game_id,
            user_id=user_id,
            blocked=False,
            dm_channel_id=dm_channel_id,
            panel_message_id=panel_message_id,
        )

    async def add_typed_reply(self, *, user_id: int, text: str) -> int:
        def work(db: sqlite3.Connection) -> int:
            # Only the newest unsettled answer per player is kept: an older one was superseded.
            db.execute("DELETE FROM typed_replies WHERE user_id = ?", (user_id,))
            cur = db.execute(
                "INSERT INTO typed_replies (user_id, text, created_at) VALUES (?, ?, ?)",
                (user_id, text, time.time()),
            )
            return int(cur.lastrowid or 0)

        return await self._write(work)

    async def take_typed_reply(self, *, reply_id: int, user_id: int) -> str | None:
        """The waiting typed answer (removed), or None when it is gone or is not this user's."""

        def work(db: sqlite3.Connection) -> str | None:
            row = db.execute(
                "SELECT text FROM typed_replies WHERE id = ? AND user_id = ?", (reply_id, user_id)
            ).fetchone()
            if row is None:
                return None
            db.execute("DELETE FROM typed_replies WHERE id = ?", (reply_id,))
            return str(row[0])

        return await self._write(work)

    # ---- deadlines ------------------------------------------------------------------------------

    async def waits_of_game(self, *, game_id: int) -> list[Wait]:
        rows = await self._fetchall(
            "SELECT game_id, seat, since, deadline, reminded FROM waits WHERE game_id = ? ORDER BY seat",
            (game_id,),
        )
        return [_wait(r) for r in rows]

    async def due_waits(self, *, now: float, limit: int = 50) -> list[Wait]:
        """Waits past their deadline, oldest first."""
        rows = await self._fetchall(
            "SELECT game_id, seat, since, deadline, reminded FROM waits WHERE deadline <= ? "
            "ORDER BY deadline LIMIT ?",
            (now, limit),
        )
        return [_wait(r) for r in rows]

    async def due_reminders(self, *, now: float, limit: int = 50) -> list[Wait]:
        """Waits past their halfway point that have not been reminded yet."""
        rows = await self._fetchall(
            "SELECT game_id, seat, since, deadline, reminded FROM waits "
            "WHERE reminded = 0 AND (since + deadline) / 2 <= ? ORDER BY (since + deadline) / 2 LIMIT ?",
            (now, limit),
        )
        return [_wait(r) for r in rows]

    async def mark_reminded(self, *, game_id: int, seat: int) -> None:
        await self._write(
            lambda db: db.execute(
                "UPDATE waits SET reminded = 1 WHERE game_id = ? AND seat = ?", (game_id, seat)
            )
        )

    async def drop_wait(self, *, game_id: int, seat: int) -> None:
        await self._write(
            lambda db: db.execute("DELETE FROM waits WHERE game_id = ? AND seat = ?", (game_id, seat))
        )

    async def expired_lobbies(self, *, created_before: float, limit: int = 50) -> list[int]:
        rows = await self._fetchall(
            "SELECT id FROM games WHERE status = 'lobby' AND created_at <= ? ORDER BY created_at LIMIT ?",
            (created_before, limit),
        )
        return [int(r[0]) for r in rows]

    async def next_due(self, *, lobby_lifetime: float) -> float | None:
        """When the scheduler next has something to do (a reminder, a deadline, a lobby expiry)."""
        row = await self._fetchone(
            "SELECT (SELECT MIN(deadline) FROM waits), "
            "(SELECT MIN((since + deadline) / 2) FROM waits WHERE reminded = 0), "
            "(SELECT MIN(created_at) FROM games WHERE status = 'lobby')"
        )
        if row is None:
            return None
        times = [float(row[0]) if row[0] is not None else None, float(row[1]) if row[1] is not None else None]
        if row[2] is not None:
            times.append(float(row[2]) + lobby_lifetime)
        known = [t for t in times if t is not None]
        return min(known) if known else None

    async def mute_reminders(self, *, game_id: int, user_id: int) -> None:
        await self._write(
            lambda db: db.execute(
                "INSERT OR IGNORE INTO reminder_mutes (game_id, user_id) VALUES (?, ?)", (game_id, user_id)
            )
        )

    async def reminders_muted(self, *, game_id: int, user_id: int) -> bool:
        row = await self._fetchone(
            "SELECT 1 FROM reminder_mutes WHERE game_id = ? AND user_id = ?", (game_id, user_id)
        )
        return row is not None

    # ---- bookkeeping ----------------------------------------------------------------------------

    async def get_meta(self, *, key: str) -> str | None:
        row = await self._fetchone("SELECT value FROM meta WHERE key = ?", (key,))
        return None if row is None else str(row[0])

    async def set_meta(self, *, key: str, value: str) -> None:
        await self._write(
            lambda db: db.execute(
                "INSERT INTO meta (key, value) VALUES (?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (key, value),
            )
        )


# ---- inside a transaction (in the database thread) ------------------------------------------------


def _select_games(db: sqlite3.Connection, where: str, args: Sequence[Any]) -> list[GameRow]:
    rows = db.execute(f"SELECT {_GAME_COLUMNS}, {_SEATS_COLUMN} FROM games g {where}", args).fetchall()
    games = []
    for row in rows:
        seats = sorted(json.loads(row["seat_list"]))  # [position, user id, name]
        games.append(
            GameRow(
                id=row["id"],
                kind=row["kind"],
                guild_id=row["guild_id"],
                channel_id=row["channel_id"],
                status=row["status"],
                host_id=row["host_id"],
                options=json.loads(row["options"]),
                seed=row["seed"],
                state=None if row["state"] is None else json.loads(row["state"]),
                result=None if row["result"] is None else json.loads(row["result"]),
                version=row["version"],
                lobby_message_id=row["lobby_message_id"],
                board_message_id=row["board_message_id"],
                created_at=row["created_at"],
                updated_at=row["updated_at"],
                timeout_s=row["timeout_s"],
                seats=tuple(int(r[1]) for r in seats),
                names=tuple(str(r[2]) for r in seats),
            )
        )
    return games


def _cas(db: sqlite3.Connection, game_id: int, expected_version: int, sets: Mapping[str, Any]) -> None:
    """Update the game row if it is still at ``expected_version``; bump the version."""
    assignments = ", ".join(f"{col} = ?" for col in sets)
    cur = db.execute(
        f"UPDATE games SET {assignments}, version = version + 1, updated_at = ? WHERE id = ? AND version = ?",
        (*sets.values(), time.time(), game_id, expected_version),
    )
    if cur.rowcount != 1:
        raise StaleVersion()


def _write_seats(db: sqlite3.Connection, game_id: int, seats: Sequence[tuple[int, str]]) -> None:
    db.execute("DELETE FROM seats WHERE game_id = ?", (game_id,))
    db.executemany(
        "INSERT INTO seats (game_id, position, user_id, name) VALUES (?, ?, ?, ?)",
        [(game_id, pos, uid, name) for pos, (uid, name) in enumerate(seats)],
    )


def _sync_waits(db: sqlite3.Connection, game_id: int, waiting: Sequence[int]) -> None:
    """The game now waits for exactly ``waiting``. A seat already waited for keeps its deadline; a
    newly awaited seat gets one from now."""
    seats = sorted(set(waiting))
    marks = ", ".join("?" * len(seats))
    db.execute(f"DELETE FROM waits WHERE game_id = ? AND seat NOT IN ({marks})", (game_id, *seats))
    now = time.time()
    db.executemany(
        "INSERT INTO waits (game_id, seat, since, deadline) SELECT ?, ?, ?, ? + timeout_s FROM games "
        "WHERE id = ? ON CONFLICT (game_id, seat) DO NOTHING",
        [(game_id, seat, now, now, game_id) for seat in seats],
    )


def _busy_message(existing: GameRow | None) -> str:
    if existing is None:
        return "This channel already has a game. Try again in a moment."
    what = "a lobby" if existing.status == "lobby" else "a game in play"
    return (
        f"This channel already has {what}: {existing.kind} game #{existing.id}. "
        "Finish or cancel it first (/game cancel), or start your game in a thread."
    )
