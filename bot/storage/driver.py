"""The driver boundary: how a repository's transaction reaches a database.

A repository writes a transaction once, as a plain generator that yields statements and receives
their rows::

    def take(reply_id: int) -> Txn[str | None]:
        rows = yield Q("SELECT text FROM typed_replies WHERE id = ?", (reply_id,))
        if not rows:
            return None
        yield Q("DELETE FROM typed_replies WHERE id = ?", (reply_id,))
        return str(rows[0][0])

and hands it to a `Driver` (``await driver.write(take(7))``); a `Repository` holds the ones of its
tables, as async methods that do exactly that. The driver owns the connection and
the transaction around the generator: the SQLite driver runs it to the end synchronously in its
database thread, so a whole transaction is one trip there whatever its number of statements; a
PostgreSQL driver can run the same generator with an ``await`` per statement. Repositories therefore
never know which database they talk to, and the code between two statements (JSON parsing, the
compare-and-swap check) runs where the database work runs.

The statement language is the common part of SQLite's and PostgreSQL's: ``?`` placeholders (a
driver translates them; never put a ``?`` inside a string literal), ``RETURNING`` instead of a last
row id or a row count, ``ON CONFLICT`` upserts. Every statement answers a list of tuples (empty for
statements that return nothing). A statement that fails ends the transaction: it is rolled back and
the error, translated into `bot.storage.errors`, reaches the caller of `read` / `write`; it is not
thrown into the generator (PostgreSQL could not go on with the transaction anyway).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Generator, Sequence
from dataclasses import dataclass
from typing import TypeAlias, TypeVar

from bot.jsontypes import DBValue

T = TypeVar("T")

Row: TypeAlias = tuple[DBValue, ...]  # one row: its columns' values, as the driver decodes them
Rows: TypeAlias = list[Row]
Args: TypeAlias = Sequence[DBValue]  # a statement's arguments, one per ``?``


@dataclass(frozen=True, slots=True)
class Q:
    """One statement and its arguments; answers the rows it returns."""

    sql: str
    args: Args = ()


@dataclass(frozen=True, slots=True)
class Many:
    """One statement run once per argument tuple (a batch insert); answers no rows."""

    sql: str
    rows: Sequence[Args]


Statement: TypeAlias = Q | Many
# A transaction: yields statements, is sent each one's rows, returns its result.
Txn: TypeAlias = Generator[Statement, Rows, T]


def fetch(sql: str, args: Args = ()) -> Txn[Rows]:
    """A transaction of one statement, answering its rows."""
    return (yield Q(sql, args))


class Driver(ABC):
    """A database the repositories can use. Implementations: `bot.storage.sqlite.SqliteDriver`,
    `bot.storage.postgres.PostgresDriver`."""

    @abstractmethod
    async def read(self, txn: Txn[T]) -> T:
        """Run ``txn`` as a read-only transaction (one consistent snapshot) and answer its result."""

    @abstractmethod
    async def write(self, txn: Txn[T]) -> T:
        """Run ``txn`` as one transaction: committed if it returns, rolled back if it raises."""

    @abstractmethod
    async def schema_version(self) -> int:
        """How many of the numbered migrations the database has."""

    @abstractmethod
    async def close(self) -> None: ...

    async def hard_close(self) -> None:
        """Stop at once, as a killed process would: work not yet begun is dropped. (A driver
        without a better way closes.)"""
        await self.close()

    async def purge(self) -> None:
        """Make what was deleted or overwritten unrecoverable from the database's files, as far as
        the driver can (after someone asked to be forgotten). PostgreSQL: nothing here (its
        autovacuum reclaims dead rows)."""
        return None


class Repository:
    """The queries of some tables, run on one driver. `bot.storage.Storage` inherits every
    repository's methods, so a repository's method names are the storage's public API: keep them
    distinct across repositories (a test checks)."""

    # The games whose final scores rank every seat (the others: the losers tie below the winners),
    # by name: told by whoever opens the storage (`bot.registry.SCORE_RANKED`), since the storage
    # knows no game.
    score_ranked: frozenset[str] = frozenset()

    def __init__(self, db: Driver) -> None:
        self._db = db

    async def _read(self, sql: str, args: Args = ()) -> Rows:
        """One statement as a read-only transaction: its rows."""
        return await self._db.read(fetch(sql, args))

    async def _write(self, sql: str, args: Args = ()) -> Rows:
        """One statement as a transaction of its own: the rows it returns."""
        return await self._db.write(fetch(sql, args))
