"""The PostgreSQL driver (asyncpg): a pool of connections, the common dialect translated, and the
same migrations as SQLite.

The common dialect (see `bot.storage.driver`) reaches PostgreSQL with two changes, made here once:

* ``?`` placeholders become ``$1..$n`` (outside string literals, quoted names and comments), each
  cast to the type of the Python value it carries: ``int``/``bool`` ``::bigint``, ``float``
  ``::double precision``, ``str`` ``::text`` (None: no cast; PostgreSQL infers it from the column).
  asyncpg encodes a value by the type PostgreSQL infers for its placeholder, and infers from the
  context: ``? + timeout_s`` would be a ``bigint`` and a float time would be truncated to whole
  seconds. With the cast, the value decides, as in SQLite. A `Many` batch takes, per column, the
  type its values share (ints and floats: ``double precision``).
* The schema: `translate_ddl` turns the SQLite DDL of `bot.storage.schema.MIGRATIONS` into
  PostgreSQL's (``INTEGER`` is ``BIGINT``: Discord ids are 64-bit; ``REAL`` is ``DOUBLE PRECISION``;
  an ``INTEGER PRIMARY KEY`` rowid, with or without ``AUTOINCREMENT``, is an identity column). The
  migrations stay one list, in SQLite's DDL, because a released migration is never edited: its text
  is what the databases already made by it hold.

Transactions: `read` runs in a ``REPEATABLE READ READ ONLY`` transaction (one snapshot for all its
statements), `write` in a ``READ COMMITTED`` one, committed when the generator returns and rolled
back when it (or a statement) raises. A statement's error is translated into `bot.storage.errors`
(class 23, integrity violations: `Conflict`; anything else from the server or the connection:
`StorageError`) and ends the transaction without reaching the generator, as in SQLite. As in the
SQLite driver, a transaction that was handed over runs to its end even when its caller is cancelled
(only the answer is dropped), so both drivers commit the same things when a caller gives up.

The schema version is the one row of ``schema_version``; migrations run in one transaction under an
advisory lock, so processes starting together migrate once, one after the other (`migrate`).

`PostgresDriver.bulk` is the one exception to "a transaction is a generator": a transaction held open
across awaits, for a copy whose rows come from another database (`bot.storage.transfer`), with
PostgreSQL's ``COPY`` for the rows.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager
from functools import lru_cache
from typing import TypeVar
from urllib.parse import urlsplit, urlunsplit

import asyncpg

from bot.jsontypes import DBValue
from bot.storage.driver import Args, Driver, Many, Q, Rows, Statement, Txn
from bot.storage.errors import Conflict, StorageError

T = TypeVar("T")

# pg_advisory_xact_lock's key for migrating (the ASCII of "quetbot"): per database, so databases on
# one server do not wait for each other.
MIGRATION_LOCK = int.from_bytes(b"quetbot", "big")
POOL_SIZE = 10  # connections per process at most (one transaction holds one while it runs)


class PostgresDriver(Driver):
    """A PostgreSQL database, through a pool of asyncpg connections.

    Every statement is one round trip (a transaction's code runs on the event loop between them);
    transactions run side by side, each on its own connection, up to `POOL_SIZE` at once.
    """

    def __init__(self, url: str, pool: asyncpg.Pool) -> None:
        self.url = redact(url)  # for messages: never the password
        self.pool = pool
        self._running: set[asyncio.Task[object]] = set()
        self._closed = False

    @classmethod
    async def open(
        cls, url: str, *, migrations: Sequence[str] | None = (), pool_size: int = POOL_SIZE
    ) -> PostgresDriver:
        """Connect to the database at ``url`` (``postgresql://user:password@host:port/name``) and
        apply the ``migrations`` it does not have yet (None: leave the schema as it is, not even
        creating ``schema_version``; for a caller that looks before it migrates)."""
        try:
            pool = await asyncpg.create_pool(
                url, min_size=1, max_size=pool_size, init=_setup, reset=_keep_session
            )
        except (OSError, ValueError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
            raise StorageError(f"Cannot open the database {redact(url)}: {exc}") from exc
        driver = cls(url, pool)
        if migrations is None:
            return driver
        try:
            await driver._migrate(migrations)
        except BaseException:
            await driver.hard_close()
            raise
        return driver

    async def read(self, txn: Txn[T]) -> T:
        return await self._submit(txn, readonly=True)

    async def write(self, txn: Txn[T]) -> T:
        return await self._submit(txn, readonly=False)

    async def schema_version(self) -> int:
        def version() -> Txn[int]:
            rows = yield Q("SELECT version FROM schema_version")
            return int(rows[0][0]) if rows else 0

        return await self.read(version())

    async def close(self) -> None:
        """Let the transactions under way finish, then close every connection."""
        if self._closed:
            return
        self._closed = True
        if self._running:
            await asyncio.gather(*self._running, return_exceptions=True)
        try:
            await asyncio.wait_for(self.pool.close(), 10)
        except TimeoutError:
            self.pool.terminate()

    async def hard_close(self) -> None:
        """Stop as a killed process would: every connection is cut at once, so a transaction not yet
        committed rolls back on the server and nothing more is written."""
        if self._closed and not self._running:
            self.pool.terminate()
            return
        self._closed = True
        running = list(self._running)
        self.pool.terminate()
        for task in running:
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)

    # ---- transactions ---------------------------------------------------------------------------

    async def _submit(self, txn: Txn[T], *, readonly: bool) -> T:
        if self._closed:
            txn.close()
            raise StorageError(f"The database {self.url} is closed.")
        task = asyncio.ensure_future(self._transaction(txn, readonly=readonly))
        self._running.add(task)
        task.add_done_callback(_settled(self._running))
        # Shielded: a cancelled caller leaves the transaction to finish (or roll back) as a whole.
        return await asyncio.shield(task)

    async def _transaction(self, txn: Txn[T], *, readonly: bool) -> T:
        try:
            async with self.pool.acquire() as connection:
                if readonly:
                    transaction = connection.transaction(isolation="repeatable_read", readonly=True)
                else:
                    transaction = connection.transaction()
                async with transaction:
                    return await _drive(connection, txn)
        except asyncpg.IntegrityConstraintViolationError as exc:
            raise Conflict(f"{type(exc).__name__}: {exc}") from exc
        except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError) as exc:
            raise StorageError(f"{type(exc).__name__}: {exc}") from exc
        finally:
            txn.close()

    async def _migrate(self, migrations: Sequence[str]) -> None:
        await self.write(migrate(migrations))

    @asynccontextmanager
    async def bulk(self) -> AsyncIterator[Bulk]:
        """One write transaction held open across awaits: committed when the block ends, rolled back
        when it raises. For bulk work whose input arrives asynchronously (a `Txn` cannot await its
        source); it holds one connection of the pool until it ends."""
        if self._closed:
            raise StorageError(f"The database {self.url} is closed.")
        try:
            async with self.pool.acquire() as connection, connection.transaction():
                yield Bulk(connection)
        except asyncpg.IntegrityConstraintViolationError as exc:
            raise Conflict(f"{type(exc).__name__}: {exc}") from exc
        except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError) as exc:
            raise StorageError(f"{type(exc).__name__}: {exc}") from exc


class Bulk:
    """The open transaction of `PostgresDriver.bulk`: run transactions' statements in it, and copy
    rows into it. A failing statement raises out of the block (which rolls everything back)."""

    def __init__(self, connection: asyncpg.Connection) -> None:
        self._connection = connection

    async def run(self, txn: Txn[T]) -> T:
        """``txn``'s statements, inside this transaction; its result."""
        try:
            return await _drive(self._connection, txn)
        finally:
            txn.close()

    async def copy(self, table: str, columns: Sequence[str], rows: Sequence[Args]) -> None:
        """Append ``rows`` (values in the order of ``columns``) to ``table`` with ``COPY``: each value
        is encoded as its column's type, many times faster than INSERTs."""
        if not rows:
            return
        try:
            await self._connection.copy_records_to_table(table, records=rows, columns=list(columns))
        except (TypeError, ValueError, OverflowError) as exc:  # a value its column's type cannot encode
            raise StorageError(f"A row of {table} holds a value its column cannot take: {exc}") from exc


def migrate(migrations: Sequence[str]) -> Txn[None]:
    """Numbered migrations, applied in one transaction under an advisory lock (another process
    starting at the same time waits, then finds them applied); ``schema_version`` counts them. A
    database newer than this code is left alone."""
    yield Q(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK})")
    yield Q("CREATE TABLE IF NOT EXISTS schema_version (version BIGINT NOT NULL)")
    rows = yield Q("SELECT version FROM schema_version")
    if not rows:
        yield Q("INSERT INTO schema_version (version) VALUES (0)")
    current = int(rows[0][0]) if rows else 0
    for number in range(current, len(migrations)):
        for statement in translate_ddl(migrations[number]).split(";"):
            if statement.strip():
                yield Q(statement)
    if len(migrations) > current:
        yield Q("UPDATE schema_version SET version = ?", (len(migrations),))


async def _setup(connection: asyncpg.Connection) -> None:
    """Each new connection: NUMERIC (what SUM and AVG of integers answer) is read as SQLite answers
    those, an int or a float, not a Decimal."""
    await connection.set_type_codec(
        "numeric", schema="pg_catalog", encoder=str, decoder=_number, format="text"
    )


async def _keep_session(connection: asyncpg.Connection) -> None:
    """A connection going back to the pool has nothing to reset. asyncpg has already rolled back a
    transaction left open (it does that before calling this); its default reset (``SELECT
    pg_advisory_unlock_all(); CLOSE ALL; UNLISTEN *; RESET ALL``) would cost a round trip after every
    transaction, a third of a short read's, to undo what this driver never does: its one advisory
    lock is a transaction's, and it sets no setting, listens to no channel and opens no cursor."""


def _number(text: str) -> int | float:
    return float(text) if any(c in text for c in ".eEN") else int(text)  # (N: NaN)


def _settled(running: set[asyncio.Task[object]]) -> Callable[[asyncio.Task[object]], None]:
    def done(task: asyncio.Task[object]) -> None:
        running.discard(task)
        if not task.cancelled():
            task.exception()  # retrieved: a caller that gave up does not make it "never retrieved"

    return done


async def _drive(connection: asyncpg.Connection, txn: Txn[T]) -> T:
    """Run the generator to its end, answering each statement with its rows."""
    try:
        statement = next(txn)
        while True:
            rows = await _run_statement(connection, statement)
            statement = txn.send(rows)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]


async def _run_statement(connection: asyncpg.Connection, statement: Statement) -> Rows:
    if isinstance(statement, Many):
        if not statement.rows:
            return []
        rows = [tuple(_value(v) for v in row) for row in statement.rows]
        await connection.executemany(postgres_sql(statement.sql, _column_casts(rows)), rows)
        return []
    sql, args = postgres_statement(statement.sql, statement.args)
    records = await connection.fetch(sql, *args)
    return [tuple(record) for record in records]


# ---- the dialect --------------------------------------------------------------------------------------


def postgres_statement(sql: str, args: Args = ()) -> tuple[str, tuple[DBValue, ...]]:
    """A statement of the common dialect and its arguments, as asyncpg takes them."""
    values = tuple(_value(v) for v in args)
    return postgres_sql(sql, tuple(_cast(v) for v in values)), values


def _value(value: DBValue) -> DBValue:
    """A Python value as asyncpg takes it: a bool is stored as 0/1 (SQLite's booleans)."""
    return int(value) if isinstance(value, bool) else value


def _cast(value: DBValue) -> str:
    """The placeholder's cast for a value: the value's type decides, as in SQLite."""
    if isinstance(value, int):
        return "::bigint"
    if isinstance(value, float):
        return "::double precision"
    if isinstance(value, str):
        return "::text"
    if isinstance(value, bytes | bytearray | memoryview):
        return "::bytea"
    return ""  # None (or an unusual type): PostgreSQL infers it from where it stands


def _column_casts(rows: Sequence[Args]) -> tuple[str, ...]:
    """A batch's casts: per column, the type its non-NULL values share (ints and floats: float)."""
    casts = []
    for column in zip(*rows, strict=True):
        kinds = {_cast(v) for v in column if v is not None}
        if kinds == {"::bigint", "::double precision"}:
            kinds = {"::double precision"}
        casts.append(kinds.pop() if len(kinds) == 1 else "")
    return tuple(casts)


def _segments(sql: str) -> Iterator[tuple[bool, str]]:
    """The statement cut into (is code, text): string literals, quoted names and comments are not
    code (a ``?`` or a type name in them stays as it is)."""
    i, start, n = 0, 0, len(sql)
    while i < n:
        ch = sql[i]
        if ch in "'\"":
            end = i + 1
            while True:  # a doubled quote inside is part of the literal
                end = sql.find(ch, end)
                if end < 0:
                    end = n
                    break
                if end + 1 < n and sql[end + 1] == ch:
                    end += 2
                    continue
                end += 1
                break
        elif sql.startswith("--", i):
            end = sql.find("\n", i)
            end = n if end < 0 else end
        elif sql.startswith("/*", i):
            end = sql.find("*/", i + 2)
            end = n if end < 0 else end + 2
        else:
            i += 1
            continue
        if start < i:
            yield True, sql[start:i]
        yield False, sql[i:end]
        i = start = end
    if start < n:
        yield True, sql[start:]


@lru_cache(maxsize=2048)
def postgres_sql(sql: str, casts: tuple[str, ...] = ()) -> str:
    """A statement of the common dialect for PostgreSQL: its ``?`` numbered ``$1..$n``, the i-th
    followed by ``casts[i]`` (see `_cast`)."""
    out: list[str] = []
    number = 0
    for code, text in _segments(sql):
        if not code:
            out.append(text)
            continue
        parts = text.split("?")
        out.append(parts[0])
        for part in parts[1:]:
            out.append(f"${number + 1}{casts[number] if number < len(casts) else ''}{part}")
            number += 1
    return "".join(out)


_ROWID = re.compile(r"\bINTEGER\s+PRIMARY\s+KEY(\s+AUTOINCREMENT)?\b", re.IGNORECASE)
_TYPES = (
    (re.compile(r"\bINTEGER\b", re.IGNORECASE), "BIGINT"),
    (re.compile(r"\bREAL\b", re.IGNORECASE), "DOUBLE PRECISION"),
)
_SQLITE_ONLY = re.compile(
    r"\b(AUTOINCREMENT|PRAGMA|WITHOUT\s+ROWID|STRICT|INSERT\s+OR|REPLACE\s+INTO|rowid)\b", re.IGNORECASE
)


_INDEX = re.compile(
    r"\bCREATE\s+(UNIQUE\s+)?INDEX\s+(IF\s+NOT\s+EXISTS\s+)?\w+\s+ON\s+\w+\s*\(", re.IGNORECASE
)
_NAME = re.compile(r"\w+")
_ORDER = re.compile(r"^(.*?)(\s+(ASC|DESC))?$", re.IGNORECASE | re.DOTALL)


def _index_keys(code: str) -> str:
    """PostgreSQL wants an index key that is an expression in parentheses of its own (SQLite takes
    ``ON waits ((since + deadline) / 2)``; PostgreSQL ``ON waits (((since + deadline) / 2))``)."""
    out, at = [], 0
    for match in _INDEX.finditer(code):
        start = match.end()
        depth, i, keys, key_start = 1, start, [], start
        while depth:
            ch = code[i]
            if ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
            if (ch == "," and depth == 1) or depth == 0:
                keys.append(code[key_start:i])
                key_start = i + 1
            i += 1
        wrapped = []
        for key in keys:
            order = _ORDER.match(key.strip())
            assert order is not None  # (it matches anything)
            expression, direction = order.group(1), order.group(2) or ""
            if not (
                _NAME.fullmatch(expression) or (expression.startswith("(") and _closes_at_end(expression))
            ):
                expression = f"({expression})"
            wrapped.append(expression + direction)
        out.append(code[at:start] + ", ".join(wrapped) + ")")
        at = i
    out.append(code[at:])
    return "".join(out)


def _closes_at_end(text: str) -> bool:
    """Whether the parenthesis opening ``text`` is the one closing it."""
    depth = 0
    for i, ch in enumerate(text):
        depth += (ch == "(") - (ch == ")")
        if depth == 0:
            return i == len(text) - 1
    return False


def translate_ddl(sqlite_ddl: str) -> str:
    """One migration of `bot.storage.schema` (SQLite's DDL) as PostgreSQL DDL.

    ``INTEGER PRIMARY KEY [AUTOINCREMENT]`` (SQLite's rowid: a number given on insert, never reused
    with AUTOINCREMENT) becomes ``BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY`` (a sequence
    never reuses a number either); ``INTEGER`` becomes ``BIGINT`` and ``REAL`` ``DOUBLE PRECISION``;
    an index key that is an expression gets the parentheses PostgreSQL requires around it.
    Everything else used there (TEXT, CHECK, partial and expression indexes, foreign keys, ``ALTER
    TABLE ... ADD COLUMN``, upserts) means the same in both. Something SQLite-only that has no
    translation here raises ValueError, so a migration using it fails the tests, not a deployment.
    """
    out = []
    for code, text in _segments(sqlite_ddl):
        if code:
            text = _ROWID.sub("BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY", text)
            if found := _SQLITE_ONLY.search(text):
                raise ValueError(f"No PostgreSQL translation for {found.group(0)!r} in: {text.strip()[:200]}")
            for pattern, replacement in _TYPES:
                text = pattern.sub(replacement, text)
            text = _index_keys(text)
        out.append(text)
    return "".join(out)


def redact(url: str) -> str:
    """The URL without its password (for messages and logs)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "<a malformed database URL>"
    if parts.password is None:
        return url
    netloc = parts.netloc.rsplit("@", 1)
    user = netloc[0].split(":", 1)[0]
    return urlunsplit(parts._replace(netloc=f"{user}:***@{netloc[1]}"))
