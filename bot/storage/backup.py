"""``quetbot backup --to PATH``: a consistent copy of the live database, as a SQLite file, verified.

Safe while the bot runs: it only reads the database, in one snapshot.

* **A SQLite database** is copied by SQLite's online backup API (`sqlite3.Connection.backup`), in
  one step, inside one read transaction of its own, from a connection opened read-only. In WAL mode
  (the bot's) a reader neither waits for the bot's writers nor holds them up, and the rows the copy
  gets are the ones committed when that transaction began. In the same transaction every table's
  rows are counted and digested, for the check below.
* **A PostgreSQL database** is read in one ``REPEATABLE READ READ ONLY`` transaction (one snapshot
  for every table), a page at a time in key order (`bot.storage.transfer.page`), into a new SQLite
  file made by the usual migrations (the same schema and version the SQLite driver makes), parents
  before children. Each identity column's sequence becomes AUTOINCREMENT's high-water mark
  (``sqlite_sequence``), so an outbox id is never handed out twice after a restore.

The copy is written to a temporary file beside ``PATH`` and **verified** as ``quetbot migrate``
verifies (`bot.storage.transfer`): every game's move log replayed with the rules gives its stored
state, result and version; every table holds the same rows (count and digest) as the snapshot; and
SQLite's ``integrity_check`` and ``foreign_key_check`` find nothing. Only then is it flushed to disk
and renamed to ``PATH`` (atomically: ``PATH`` is never half written). A copy that does not verify,
or any failure, leaves no file behind. ``PATH`` is refused if it exists, unless ``force``; it is
never the source itself. The copy uses the rollback journal (``journal_mode=DELETE``): one
self-contained file.

Restoring is pointing ``QUETBOT_DB`` at the file (the bot opens it as any SQLite database), or
``quetbot migrate --from PATH --to postgresql://...``.
"""

from __future__ import annotations

import asyncio
import os
import sqlite3
import tempfile
import time
from collections.abc import Callable, Sequence
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import asyncpg

from bot.storage import sqlite_path
from bot.storage.driver import Many, Q, Txn, fetch
from bot.storage.errors import StorageError
from bot.storage.postgres import Bulk, PostgresDriver, redact
from bot.storage.schema import MIGRATIONS
from bot.storage.sqlite import SqliteDriver, _drive
from bot.storage.transfer import (
    PAGE_ROWS,
    NotVerified,
    Problems,
    Refused,
    RowsPerTable,
    Source,
    Table,
    Verified,
    _counted,
    _q,
    _sqlite_catalogue,
    page,
    replay_games,
    rows_digest,
    table_digest,
    target_tables,
)

T = TypeVar("T")

__all__ = ["Backup", "NotVerified", "Refused", "backup"]


@dataclass(frozen=True)
class Backup(RowsPerTable):
    """`backup`'s answer: the file written, how, and what was verified."""

    path: str
    source: str  # the database backed up (a PostgreSQL URL without its password)
    method: str  # "SQLite online backup" or "PostgreSQL repeatable-read snapshot"
    schema_version: int
    tables: tuple[tuple[str, int], ...]  # rows per table, in copying order
    verified: Verified
    seconds: float


@dataclass(frozen=True)
class _Snapshot:
    """What the source held at the snapshot: its catalogue, and each table's rows (count, digest)."""

    source: Source
    sums: dict[str, tuple[int, int]]


async def backup(database: str, path: str, *, force: bool = False, page_rows: int = PAGE_ROWS) -> Backup:
    """Back ``database`` (a SQLite file or a PostgreSQL URL, as ``QUETBOT_DB`` takes it) up into the
    SQLite file ``path`` and verify the copy (see the module's docstring). `Refused` when it cannot
    be done, `StorageError` when the copy failed, `NotVerified` when it does not verify; in every
    one of these ``path`` is left as it was."""
    started = time.perf_counter()
    source_path = sqlite_path(database)
    target = _target(path, force=force, source_path=source_path)
    fd, temp = tempfile.mkstemp(
        prefix=f".{os.path.basename(target)}.", suffix=".partial", dir=os.path.dirname(target)
    )
    os.close(fd)
    try:
        if source_path is not None:
            method, shown = "SQLite online backup", source_path
            snapshot = await _in_thread(_sqlite_snapshot, source_path, temp)
        else:
            method, shown = "PostgreSQL repeatable-read snapshot", redact(database)
            snapshot = await _postgres_snapshot(database, temp, page_rows)
        verified = await _verify_copy(temp, snapshot, page_rows)
        await _in_thread(_put_in_place, temp, target, force)
    except BaseException:
        await asyncio.shield(_in_thread(_remove, temp))
        raise
    counts = tuple((t.name, snapshot.sums[t.name][0]) for t in snapshot.source.tables)
    return Backup(
        target, shown, method, snapshot.source.version, counts, verified, time.perf_counter() - started
    )


def _target(path: str, *, force: bool, source_path: str | None) -> str:
    """The absolute path to write, or `Refused` (nothing written)."""
    if source_path is not None and not os.path.isfile(source_path):
        raise Refused(f"{source_path} does not exist (or is not a file): give the bot's database.")
    named = sqlite_path(path)
    if named is None:
        raise Refused(f"--to must be a file path (the backup is a SQLite file), not {path!r}.")
    target = os.path.abspath(named)
    folder = os.path.dirname(target)
    if not os.path.isdir(folder):
        raise Refused(f"{folder} is not a folder: make it first (the backup goes into it as {target}).")
    if os.path.isdir(target):
        raise Refused(f"{target} is a folder: give the backup file's path (like {target}/quetbot.sqlite3).")
    if source_path is not None and os.path.abspath(source_path) == target:
        raise Refused(f"{target} is the database itself: give the backup another path.")
    if os.path.lexists(target):
        if not force:
            raise Refused(f"{target} exists: give a new path, or --force to replace it.")
        if source_path is not None and os.path.exists(source_path) and os.path.samefile(source_path, target):
            raise Refused(f"{target} is the database itself: give the backup another path.")
    return target


async def _in_thread(work: Callable[..., T], *args: object) -> T:
    """``work(*args)`` in a thread; if the caller is cancelled meanwhile, the thread is still waited
    for (so that the temporary file is not removed under it), then the cancellation goes on."""
    task = asyncio.ensure_future(asyncio.to_thread(work, *args))
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        await asyncio.gather(task, return_exceptions=True)
        raise


def _remove(temp: str) -> None:
    for name in (temp, f"{temp}-journal", f"{temp}-wal", f"{temp}-shm"):
        try:
            os.unlink(name)
        except FileNotFoundError:
            pass


def _put_in_place(temp: str, target: str, force: bool) -> None:
    """The verified copy flushed to disk and renamed to ``target`` (atomically), the folder flushed."""
    with open(temp, "rb") as f:
        os.fsync(f.fileno())
    if not force and os.path.lexists(target):  # (made meanwhile by someone else)
        raise Refused(f"{target} exists: give a new path, or --force to replace it.")
    os.replace(temp, target)
    folder = os.open(os.path.dirname(target), os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)


def _require_current(version: int, where: str) -> None:
    if version != len(MIGRATIONS):
        newer = version > len(MIGRATIONS)
        which = "made it" if newer else "the bot runs (the bot upgrades the database when it starts)"
        raise Refused(
            f"{where} is at schema version {version}, this quetbot's is {len(MIGRATIONS)}: back it up "
            f"with the quetbot that {which}."
        )


# ---- SQLite: the online backup API -----------------------------------------------------------------


def _sqlite_snapshot(source_path: str, temp: str) -> _Snapshot:
    """The source copied page by page into ``temp`` and its rows summed, in one read transaction."""
    uri = f"{Path(source_path).resolve().as_uri()}?mode=ro"
    try:
        src = sqlite3.connect(uri, uri=True, isolation_level=None)
    except sqlite3.Error as exc:
        raise StorageError(f"Cannot open the database {source_path}: {exc}") from exc
    try:
        src.execute("PRAGMA busy_timeout=5000")
        src.execute("BEGIN")  # deferred: the snapshot is taken by the first read, next
        try:
            source = _drive(src, _sqlite_catalogue())
        except sqlite3.DatabaseError as exc:
            raise Refused(f"{source_path} is not a SQLite database ({exc}).") from None
        if source.version == 0 or "games" not in {t.name for t in source.tables}:
            raise Refused(f"{source_path} is not a quetbot database: it has no games table.")
        _require_current(source.version, source_path)
        dst = sqlite3.connect(temp, isolation_level=None)
        try:
            src.backup(dst)  # in one step, from this transaction's snapshot
            dst.execute("PRAGMA journal_mode=DELETE")
        finally:
            dst.close()
        sums = {table.name: _sum_rows(src, table) for table in source.tables}
        src.execute("COMMIT")
        return _Snapshot(source, sums)
    except sqlite3.Error as exc:
        raise StorageError(f"The backup of {source_path} failed: {type(exc).__name__}: {exc}") from exc
    finally:
        src.close()


def _sum_rows(db: sqlite3.Connection, table: Table) -> tuple[int, int]:
    """A table's row count and digest (`rows_digest`), read in the connection's transaction."""
    columns = ", ".join(map(_q, table.columns))
    cursor = db.execute(f"SELECT {columns} FROM {_q(table.name)}")
    count = digest = 0
    while rows := cursor.fetchmany(PAGE_ROWS):
        count += len(rows)
        digest = rows_digest(rows, digest)
    return count, digest


# ---- PostgreSQL: one repeatable-read snapshot -----------------------------------------------------


async def _postgres_snapshot(url: str, temp: str, page_rows: int) -> _Snapshot:
    """Every table of the PostgreSQL database at ``url``, read in one snapshot, written into a new
    SQLite database at ``temp`` (made by the migrations); with the snapshot's rows summed."""
    source_db = await PostgresDriver.open(url, migrations=None, pool_size=1)
    try:
        copy = await SqliteDriver.open(temp, migrations=MIGRATIONS)
        try:
            tables = (await copy.read(_sqlite_catalogue())).tables
            await copy.write(_clear(tables))  # (a migration's own rows: the database's replace them)
            try:
                async with (
                    source_db.pool.acquire() as connection,
                    connection.transaction(isolation="repeatable_read", readonly=True),
                ):
                    snapshot = Bulk(connection)
                    await snapshot.run(_require_schema(tables, source_db.url))
                    sums: dict[str, tuple[int, int]] = {}
                    for table in tables:
                        sums[table.name] = await _copy_table(snapshot, table, copy, page_rows)
                    high_water = await snapshot.run(_high_water())
            except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError) as exc:
                raise StorageError(f"Reading {source_db.url} failed: {type(exc).__name__}: {exc}") from exc
            await copy.write(_set_high_water(high_water))
        finally:
            await copy.close()
    finally:
        await source_db.close()
    await asyncio.to_thread(_journal_delete, temp)
    return _Snapshot(Source(len(MIGRATIONS), tables, high_water), sums)


def _require_schema(tables: Sequence[Table], shown: str) -> Txn[None]:
    """`Refused` unless the PostgreSQL database is a quetbot one at this code's schema, with the
    tables and columns the migrations make in SQLite."""
    found = yield from target_tables(everything=True)
    if "games" not in found or "schema_version" not in found:
        raise Refused(f"{shown} is not a quetbot database: it has no games table.")
    rows = yield Q("SELECT version FROM schema_version")
    _require_current(int(rows[0][0]) if rows else 0, shown)
    found.pop("schema_version")
    wanted = {t.name: t.columns for t in tables}
    if found.keys() != wanted.keys() or any(set(found[n]) != set(c) for n, c in wanted.items()):
        raise Refused(f"{shown} does not hold the tables and columns of schema version {len(MIGRATIONS)}.")


async def _copy_table(snapshot: Bulk, table: Table, copy: SqliteDriver, size: int) -> tuple[int, int]:
    """One table's rows, read from the snapshot a page at a time in key order and inserted into the
    copy; answers the rows' count and digest. `Refused` if paging cannot reach every row."""
    total = int((await snapshot.run(fetch(f"SELECT COUNT(*) FROM {_q(table.name)}")))[0][0])
    at = table.key_at
    count = digest = 0
    after = None
    while True:
        rows = await snapshot.run(page(table, after, size))
        if rows:
            await copy.write(_insert(table, rows))
            count += len(rows)
            digest = rows_digest(rows, digest)
        if len(rows) < size or not table.key:
            break
        after = tuple(rows[-1][i] for i in at)
    if count != total:
        raise Refused(f"{count:,} of the {total:,} rows of {table.name} could be read in key order.")
    return count, digest


def _clear(tables: Sequence[Table]) -> Txn[None]:
    for table in reversed(tables):
        yield Q(f"DELETE FROM {_q(table.name)}")


def _insert(table: Table, rows: Sequence[Sequence[object]]) -> Txn[None]:
    columns = ", ".join(map(_q, table.columns))
    marks = ", ".join("?" * len(table.columns))
    yield Many(f"INSERT INTO {_q(table.name)} ({columns}) VALUES ({marks})", rows)


def _high_water() -> Txn[dict[str, int]]:
    """Each identity column's sequence: the last value it gave, by table (none yet: left out)."""
    rows = yield Q(
        "SELECT table_name::text, pg_sequence_last_value(pg_get_serial_sequence(table_name, column_name)) "
        "FROM information_schema.columns WHERE table_schema = current_schema() AND is_identity = 'YES'"
    )
    return {str(table): int(last) for table, last in rows if last is not None}


def _set_high_water(high_water: dict[str, int]) -> Txn[None]:
    """AUTOINCREMENT's high-water marks at least the sequences' (a table without AUTOINCREMENT has no
    mark: SQLite then gives the id after the largest, as PostgreSQL's identity would not go back)."""
    rows = yield Q("SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE '%AUTOINCREMENT%'")
    for (table,) in rows:
        last = high_water.get(str(table))
        if last is None:
            continue
        yield Q("DELETE FROM sqlite_sequence WHERE name = ? AND seq < ?", (table, last))
        yield Q(
            "INSERT INTO sqlite_sequence (name, seq) SELECT ?, ? "
            "WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = ?)",
            (table, last, table),
        )


def _journal_delete(path: str) -> None:
    with closing(sqlite3.connect(path, isolation_level=None)) as db:
        db.execute("PRAGMA journal_mode=DELETE")


# ---- verifying the copy -------------------------------------------------------------------------------


async def _verify_copy(temp: str, snapshot: _Snapshot, page_rows: int) -> Verified:
    """The copy checked (see the module's docstring); `NotVerified` names what is wrong."""
    started = time.perf_counter()
    copy = await SqliteDriver.open(temp, readonly=True)
    try:
        problems = Problems()
        if (version := await copy.schema_version()) != snapshot.source.version:
            problems.add(
                f"the copy is at schema version {version}, the database at {snapshot.source.version}"
            )
        games, moves = await replay_games(copy, problems)
        replayed = problems.count
        rows = 0
        for table in snapshot.source.tables:
            count, digest = snapshot.sums[table.name]
            copied, paged, copied_digest = await table_digest(copy, table, page_rows)
            rows += copied
            if copied != count:
                problems.add(
                    f"table {table.name}: {_counted(copied, 'row')} in the copy, {count:,} in the database"
                )
            elif paged != copied:
                problems.add(
                    f"table {table.name}: {paged:,} of its {copied:,} rows in the copy could be read "
                    "in key order"
                )
            elif copied_digest != digest:
                problems.add(
                    f"table {table.name}: its rows differ from the database's (the same count, {count:,})"
                )
        for (line,) in await copy.read(fetch("PRAGMA integrity_check")):
            if line != "ok":
                problems.add(f"SQLite's integrity check: {line}")
        for table, rowid, parent, _ in await copy.read(fetch("PRAGMA foreign_key_check")):
            problems.add(f"table {table}: row {rowid} refers to a missing row of {parent}")
    finally:
        await copy.close()
    if problems.count:
        raise NotVerified(problems.shown, problems.count, faithful=problems.count == replayed)
    return Verified(games, moves, len(snapshot.source.tables), rows, time.perf_counter() - started)
