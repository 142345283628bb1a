"""The SQLite driver: one connection, in one thread of its own, and the migrations it applies.

Durability: WAL journal with ``synchronous=FULL``, so a committed transaction survives a crash of the
process or the machine. Foreign keys are enforced; a writer waits up to 5 s for another process's
lock (a backup, the crash-safety bench) rather than failing at once.

Only public stdlib and asyncio APIs: the driver starts its own thread, which opens the
``sqlite3`` connection and is the only thread that ever touches it. Coroutines hand it jobs through
a queue and await a future the thread resolves through the event loop's ``call_soon_threadsafe``.
"""

from __future__ import annotations

import asyncio
import queue
import sqlite3
import threading
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Generic, Protocol, TypeVar

from bot.storage.driver import Driver, Many, Q, Rows, Statement, Txn
from bot.storage.errors import Conflict, StorageError

T = TypeVar("T")


class _Queued(Protocol):
    """A job as the database thread sees it, whatever its result's type."""

    def run(self) -> None: ...

    def drop(self) -> None: ...


class _Job(Generic[T]):
    """``work`` to run in the database thread; its result (or error) handed back to ``future``
    through ``loop``."""

    __slots__ = ("future", "loop", "work")

    def __init__(
        self, work: Callable[[], T], loop: asyncio.AbstractEventLoop, future: asyncio.Future[T]
    ) -> None:
        self.work, self.loop, self.future = work, loop, future

    def run(self) -> None:
        try:
            result = self.work()
        except BaseException as exc:
            self._hand_back(partial(self.future.set_exception, exc))
        else:
            self._hand_back(partial(self.future.set_result, result))

    def drop(self) -> None:
        """The job will not run: its caller hears it was cancelled."""
        self.loop.call_soon_threadsafe(self.future.cancel)

    def _hand_back(self, settle: Callable[[], object]) -> None:
        future = self.future

        def settled() -> None:
            if not future.done():  # (done: the caller was cancelled; nobody wants the answer)
                settle()

        try:
            self.loop.call_soon_threadsafe(settled)
        except RuntimeError:  # the loop is closed: nobody is waiting any more
            pass


class SqliteDriver(Driver):
    """One SQLite database file, served by one thread.

    Every `read` or `write` is exactly one trip to that thread: the whole transaction, from BEGIN to
    COMMIT, runs there without returning to the event loop in between. Trips are what cost: each one
    waits for the event loop to hand the result back, so a transaction sent statement by statement
    kept the database busy for several loop turns per move. Jobs run one at a time, in the order they
    were submitted, so no statement can land inside another coroutine's transaction.

    A coroutine cancelled while its job is queued or running does not stop the job: a transaction
    that was handed over commits (or rolls back) as a whole; only its answer is dropped.
    """

    def __init__(self, path: str, *, readonly: bool = False) -> None:
        self.path = path
        self.readonly = readonly
        self.trips = 0  # jobs handed to the thread so far (tests count them)
        self._jobs: queue.SimpleQueue[_Queued | None] = queue.SimpleQueue()
        self._connection: sqlite3.Connection | None = None  # touched only by the thread
        self._closed = False
        # A daemon thread: a driver nobody closed does not keep the process alive at exit (every
        # committed transaction is already on disk).
        self.thread = threading.Thread(target=self._serve, name=f"sqlite {path}", daemon=True)

    @classmethod
    async def open(cls, path: str, *, migrations: Sequence[str] = (), readonly: bool = False) -> SqliteDriver:
        """Open (or create) the database and apply the ``migrations`` it does not have yet.

        ``readonly``: open an existing file without ever writing to it (no migrations, its journal
        mode kept; a write fails), for a tool that reads a database it must not change."""
        if readonly and migrations:
            raise ValueError("A read-only database cannot be migrated.")
        driver = cls(path, readonly=readonly)
        driver.thread.start()
        try:
            await driver._call(driver._open_connection)
            if not readonly:
                await driver._call(lambda: driver._migrate(migrations))
        except BaseException:
            await driver.close()
            raise
        return driver

    async def read(self, txn: Txn[T]) -> T:
        # A deferred BEGIN: the snapshot is taken at the first SELECT and no write lock is asked for.
        return await self._call(lambda: self._transaction(txn, "BEGIN"))

    async def write(self, txn: Txn[T]) -> T:
        # IMMEDIATE: the write lock is taken up front, so the transaction cannot fail halfway for want
        # of it (a deferred one that read first could not upgrade while another process writes).
        return await self._call(lambda: self._transaction(txn, "BEGIN IMMEDIATE"))

    async def schema_version(self) -> int:
        return await self._call(self._user_version)

    async def purge(self) -> None:
        """Deleted content is zeroed as it is freed (``secure_delete``); the file is rewritten
        (VACUUM: no page keeps an old copy) and the WAL checkpointed into it and truncated."""
        await self._call(self._purge)

    async def close(self) -> None:
        if self._closed:
            return
        try:
            if self.thread.is_alive():
                await self._call(self._disconnect)
        finally:
            self._closed = True
            self._jobs.put(None)  # the thread ends after the jobs before it

    async def hard_close(self) -> None:
        """Stop as a killed process would: the jobs still queued are dropped (their callers never
        hear back), the one running finishes, then the connection closes. Nothing queued before
        this call is written."""
        if self._closed:
            return
        self._closed = True
        while True:
            try:
                job = self._jobs.get_nowait()
            except queue.Empty:
                break
            if job is not None:
                job.drop()
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        self._jobs.put(_Job(self._disconnect, loop, done))
        self._jobs.put(None)
        await done

    # ---- the event loop side --------------------------------------------------------------------

    async def _call(self, work: Callable[[], T]) -> T:
        if self._closed:
            raise StorageError(f"The database {self.path} is closed.")
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self.trips += 1
        self._jobs.put(_Job(work, loop, future))
        return await future

    # ---- the database thread --------------------------------------------------------------------

    def _serve(self) -> None:
        while (job := self._jobs.get()) is not None:
            job.run()

    def _open_connection(self) -> None:
        # isolation_level=None: no implicit transactions; each one is opened by `_transaction`.
        try:
            if self.readonly:  # mode=ro: never created, never written
                db = sqlite3.connect(
                    f"{Path(self.path).resolve().as_uri()}?mode=ro", uri=True, isolation_level=None
                )
            else:
                db = sqlite3.connect(self.path, isolation_level=None)
        except sqlite3.Error as exc:
            raise StorageError(f"Cannot open the database {self.path}: {exc}") from exc
        try:
            if not self.readonly:
                db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=FULL")
            db.execute("PRAGMA foreign_keys=ON")
            db.execute("PRAGMA busy_timeout=5000")
            db.execute("PRAGMA secure_delete=ON")  # freed bytes are zeroed (see `purge`)
        except BaseException as exc:
            db.close()
            if isinstance(exc, sqlite3.Error):
                raise StorageError(f"Cannot open the database {self.path}: {exc}") from exc
            raise
        self._connection = db

    def _disconnect(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None

    def _db(self) -> sqlite3.Connection:
        if self._connection is None:
            raise StorageError(f"The database {self.path} is not open.")
        return self._connection

    def _purge(self) -> None:
        db = self._db()
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        db.execute("VACUUM")
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def _user_version(self) -> int:
        row = self._db().execute("PRAGMA user_version").fetchone()
        return int(row[0]) if row else 0

    def _migrate(self, migrations: Sequence[str]) -> None:
        """Numbered migrations, applied at startup in one transaction; ``PRAGMA user_version`` counts
        them. A database newer than this code is left alone."""
        if self._user_version() >= len(migrations):
            return

        def apply() -> Txn[None]:
            # Read again under the write lock: another process may have migrated meanwhile.
            rows = yield Q("PRAGMA user_version")
            for number in range(int(rows[0][0]), len(migrations)):
                for statement in migrations[number].split(";"):
                    if statement.strip():
                        yield Q(statement)
            yield Q(f"PRAGMA user_version = {max(len(migrations), int(rows[0][0]))}")

        self._transaction(apply(), "BEGIN IMMEDIATE")

    def _transaction(self, txn: Txn[T], begin: str) -> T:
        db = self._db()
        try:
            db.execute(begin)
            try:
                result = _drive(db, txn)
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
        except sqlite3.IntegrityError as exc:
            raise Conflict(str(exc)) from exc
        except sqlite3.Error as exc:
            raise StorageError(f"{type(exc).__name__}: {exc}") from exc
        finally:
            txn.close()
        return result


def _drive(db: sqlite3.Connection, txn: Txn[T]) -> T:
    """Run the generator to its end, answering each statement with its rows."""
    try:
        statement = next(txn)
        while True:
            statement = txn.send(_execute(db, statement))
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]


def _execute(db: sqlite3.Connection, statement: Statement) -> Rows:
    if isinstance(statement, Many):
        db.executemany(statement.sql, statement.rows)
        return []
    return db.execute(statement.sql, statement.args).fetchall()
