"""All SQL lives in this package; the rest of the bot talks to `Storage`.

`Storage` is the repositories in one object: flat, keyword-only, typed async methods ("not found"
raises `NoGameHere`), each written once, in the repository that owns the table(s), and inherited
(as redis-py's client inherits its command groups), so a caller's use of any of them is type-checked
against the one signature there is:

    games.py     games and seats: reads, and every versioned change to a game (CAS on the version)
    moves.py     the append-only move log
    messages.py  where a game is shown: lobby/board message ids, DM links (closed DMs, DM panels)
    waits.py     deadlines, reminders and their mutes, when the scheduler is next due
    away.py      time away (deadlines paused) and more time given for a move
    quiet.py     quiet hours: who has them, and sending what they held back
    agenda.py    what waits on one person across every server (/game mine)
    puzzles.py   the daily puzzle: the day's puzzle, answers and streaks, the servers' daily posts
    seasons.py   seasons: each server's choice and run, the seasons that ended and their end posts
    replies.py   typed DM answers waiting for the player to say which game they meant
    pending.py   deferred answers ("thinking...") still owed, found again after a restart
    outbox.py    what committed changes still owe the world, written with them
    records.py   the memory of finished games: results, ratings, rivals, leaderboards, history
    tournaments.py  tournaments: entrants, pairings per round, byes, their durable posts
    settings.py  per-server and per-player settings
    privacy.py   people's data: one person's export, and forgetting them (a placeholder id)
    meta.py      the bot's own key-value bookkeeping
    rows.py      the frozen row types everything above answers with
    schema.py    the numbered migrations (SQLite's DDL; the PostgreSQL driver translates it)
    driver.py    the driver boundary: a transaction is a generator of statements (see there), and
                 `Repository`, the base of the repositories above
    sqlite.py    the SQLite driver: one connection in one thread, one trip per transaction
    postgres.py  the PostgreSQL driver (asyncpg): a pool, the dialect's placeholders and types
    transfer.py  ``quetbot migrate``: a SQLite database copied into PostgreSQL, and the copy verified
    backup.py    ``quetbot backup``: a verified copy of the live database as a SQLite file

Nothing here caches: every method reads the database (a cache, where one pays, belongs to the
service layer, which knows when it may be stale). `Storage.open` picks the driver from the
database's name (a ``postgresql://`` URL, or a SQLite file); no caller knows which one it got.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import TypeVar

from bot.storage.agenda import Agendas, Digest, Digests
from bot.storage.analyses import Analyses
from bot.storage.away import Away
from bot.storage.driver import Driver, Txn
from bot.storage.errors import Conflict, StaleVersion, StorageError
from bot.storage.games import Games
from bot.storage.hints import Hints
from bot.storage.messages import Messages
from bot.storage.meta import Meta
from bot.storage.moves import Moves
from bot.storage.outbox import Completion, Outbox
from bot.storage.pending import PendingAnswer, PendingAnswers
from bot.storage.privacy import Privacy
from bot.storage.puzzles import Puzzles
from bot.storage.quiet import QuietHours
from bot.storage.records import Records
from bot.storage.replies import Replies
from bot.storage.rows import (
    LIVE,
    STATUSES,
    AgendaEntry,
    Awaited,
    CompleteResult,
    DmLink,
    Effect,
    GameRow,
    MoveRow,
    OutboxItem,
    Storable,
    UndoRequest,
    Wait,
    Written,
)
from bot.storage.schema import MIGRATIONS
from bot.storage.seasons import Seasons
from bot.storage.settings import Settings, SettingValue
from bot.storage.sqlite import SqliteDriver
from bot.storage.tournaments import Tournaments
from bot.storage.undo import Undos
from bot.storage.waits import Waits

__all__ = [
    "LIVE",
    "MIGRATIONS",
    "STATUSES",
    "AgendaEntry",
    "Awaited",
    "CompleteResult",
    "Completion",
    "Conflict",
    "Digest",
    "DmLink",
    "Driver",
    "Effect",
    "GameRow",
    "MoveRow",
    "OutboxItem",
    "PendingAnswer",
    "SettingValue",
    "StaleVersion",
    "Storable",
    "Storage",
    "StorageError",
    "UndoRequest",
    "Wait",
    "Written",
]


T = TypeVar("T")


class Storage(
    Games,
    Moves,
    Messages,
    Waits,
    Replies,
    Outbox,
    Settings,
    Meta,
    Records,
    Privacy,
    Away,
    QuietHours,
    Undos,
    Agendas,
    Digests,
    Analyses,
    Puzzles,
    Hints,
    Seasons,
    Tournaments,
    PendingAnswers,
):
    """The bot's database: one driver, and every repository's queries run on it."""

    def __init__(self, driver: Driver, *, score_ranked: Collection[str] = ()) -> None:
        super().__init__(driver)
        self.driver = driver
        self.score_ranked = frozenset(score_ranked)

    @classmethod
    async def open(cls, database: str, *, score_ranked: Collection[str] = ()) -> Storage:
        """Open ``database``, migrated to the latest schema: a ``postgresql://`` (or ``postgres://``)
        URL is a PostgreSQL database; a file path, or ``sqlite:///path``, a SQLite file (created if
        missing). ``score_ranked``: the games whose final scores rank every seat (see
        `bot.registry.SCORE_RANKED`)."""
        storage = cls(await open_driver(database, migrations=MIGRATIONS), score_ranked=score_ranked)
        try:
            await storage.backfill_records()  # once, after migration 8: the games finished before it
        except BaseException:
            await storage.close()
            raise
        return storage

    async def write(self, txn: Txn[T]) -> T:
        """Run ``txn`` (statements the repositories build: `Games.move_change`, `games.lobby_change`,
        ...) as one transaction: several changes that must commit together."""
        return await self.driver.write(txn)

    async def close(self) -> None:
        await self.driver.close()

    async def hard_close(self) -> None:
        """Stop at once, as a killed process would (tests crash the bot with it): work not yet
        begun is dropped."""
        await self.driver.hard_close()

    async def schema_version(self) -> int:
        return await self.driver.schema_version()


POSTGRES_SCHEMES = ("postgresql://", "postgres://")
SQLITE_SCHEME = "sqlite:///"


def sqlite_path(database: str) -> str | None:
    """The SQLite file ``database`` names (a path, or ``sqlite:///path``: ``sqlite:////abs/path``
    for an absolute one, as SQLAlchemy writes it); None for a PostgreSQL URL. StorageError for any
    other URL."""
    if database.startswith(POSTGRES_SCHEMES):
        return None
    if database.startswith(SQLITE_SCHEME):
        path = database[len(SQLITE_SCHEME) :]
        if not path:
            raise StorageError(f"{database!r} names no file: write sqlite:///path/to/file.sqlite3.")
        return path
    if "://" in database:
        raise StorageError(
            f"Unknown database URL {database.split('://')[0]}://...: use postgresql://... or a SQLite "
            "file path (or sqlite:///path)."
        )
    return database


async def open_driver(database: str, *, migrations: Sequence[str] = ()) -> Driver:
    """The driver for ``database`` (see `Storage.open`), with ``migrations`` applied."""
    path = sqlite_path(database)
    if path is not None:
        return await SqliteDriver.open(path, migrations=migrations)
    from bot.storage.postgres import PostgresDriver  # asyncpg is loaded only when it is used

    return await PostgresDriver.open(database, migrations=migrations)
