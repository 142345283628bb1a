"""Moving a deployment: a SQLite database copied, whole, into an empty PostgreSQL one, and verified.

`migrate` is ``quetbot migrate --from FILE --to URL`` (bot/__main__.py only prints what it says):

1. **The source** is opened read-only (nothing is ever written to it by the copy) and must be a
   quetbot database: a SQLite file with a ``games`` table and a schema version. One made by an older
   quetbot is first upgraded in place, exactly as the bot does when it starts on it (the SQLite driver
   applies the migrations it lacks, in one transaction), so the copy is always of the current schema;
   one made by a newer quetbot is refused (this code does not know its tables).
2. **The target** is examined, migrated and filled in ONE transaction (`PostgresDriver.bulk`), under
   the migrations' advisory lock (a bot starting on it meanwhile waits, then finds everything): it is
   refused, with nothing written, unless every table but ``meta`` is empty (a stricter rule than "no
   games": a server's settings or a typed reply could not be merged either); then the normal
   migrations (`bot.storage.postgres.migrate`) make the schema; ``meta`` (the migrations' and a started
   bot's own bookkeeping) is replaced by the source's; then every table's rows, parents before children,
   read from the source in pages in key order and written with ``COPY``, ids and all (the foreign keys
   are taken off meanwhile, as a check per row made COPY five times slower, and put back as they were,
   which checks every row at once); then each identity column's sequence is set past the largest id
   the source ever gave (AUTOINCREMENT's high-water mark included: an outbox id is never handed out
   twice), so new games, moves and outbox items get fresh ids. Anything failing rolls the whole of it
   back: the target is as it was, without even the schema.
3. **The copy is verified** (`verify`) once committed: every game's move log, read from the target, is
   replayed with the rules (`bot.rules.play` from ``new_game(seats, options, seed)``, as
   `GameService.replay` does) and must give the stored state, and for a finished game the stored
   result, at a version that counts the start and every move; then every table must hold the same rows
   in both databases: the same count, and the same order-independent digest of its rows.

Every table the migrations create is copied except the migrations' own bookkeeping (SQLite's
``user_version`` and ``sqlite_sequence``, PostgreSQL's ``schema_version``): the tables are read from
the databases' catalogues, so a future migration's tables are copied without a change here.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import time
from collections.abc import AsyncGenerator, Callable, Sequence
from contextlib import aclosing
from dataclasses import dataclass, field

from bot.jsontypes import JSON
from bot.registry import RULES
from bot.rules import play
from bot.storage.driver import Driver, Q, Row, Rows, Txn, fetch
from bot.storage.errors import StorageError
from bot.storage.postgres import MIGRATION_LOCK, Bulk, PostgresDriver, redact
from bot.storage.postgres import migrate as migrate_schema
from bot.storage.schema import MIGRATIONS
from bot.storage.sqlite import SqliteDriver

PAGE_ROWS = 10_000  # rows read (and copied) per trip
GAMES_PER_CHECK = 500  # games read per trip when verifying
SHOWN_PROBLEMS = 20  # problems kept for the message (all are counted)
KEPT_IN_TARGET = ("meta",)  # the only table a target may hold rows in: replaced by the source's
_DIGEST_MASK = (1 << 64) - 1


class Refused(StorageError):
    """The migration was refused before anything was written; the message (one line) says why and
    what to do."""


class NotVerified(StorageError):
    """The copy was committed but does not verify: ``problems`` names the first few (of ``count``).
    ``faithful``: every table holds the same rows as the source's, so the games named do not replay
    in the source either (it was inconsistent before the copy)."""

    def __init__(self, problems: Sequence[str], count: int, *, faithful: bool = False) -> None:
        self.problems = tuple(problems)
        self.count = count
        self.faithful = faithful
        super().__init__(f"The copy does not verify: {_counted(count, 'problem')}, the first: {problems[0]}")


def _counted(n: int, word: str) -> str:
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"


@dataclass(frozen=True)
class Table:
    """A table as the source's catalogue describes it."""

    name: str
    columns: tuple[str, ...]
    key: tuple[str, ...]  # the primary key's columns, in key order (pages are read in this order)
    parents: tuple[str, ...] = ()  # the tables its foreign keys point to

    @property
    def key_at(self) -> tuple[int, ...]:
        return tuple(self.columns.index(k) for k in self.key)


@dataclass(frozen=True)
class Source:
    """The source database as found: its schema version, its tables (in copying order) and
    AUTOINCREMENT's high-water marks (``sqlite_sequence``)."""

    version: int
    tables: tuple[Table, ...]
    high_water: dict[str, int] = field(default_factory=dict)


class RowsPerTable:
    """What copies tables (`Copied`, `bot.storage.backup.Backup`): ``tables``, the rows of each
    table in copying order, and `rows`, all of them."""

    tables: tuple[tuple[str, int], ...]

    @property
    def rows(self) -> int:
        return sum(n for _, n in self.tables)


@dataclass(frozen=True)
class Copied(RowsPerTable):
    """What was copied: rows per table (in copying order) and how long it took."""

    tables: tuple[tuple[str, int], ...]
    seconds: float


@dataclass(frozen=True)
class Verified:
    """What the verification checked and how long it took."""

    games: int  # games whose move log was replayed and compared
    moves: int
    tables: int  # tables whose rows were compared
    rows: int
    seconds: float


@dataclass(frozen=True)
class Migration:
    """`migrate`'s answer."""

    source_version: int  # the source's schema version as found (before an upgrade)
    schema_version: int  # the one copied (this code's)
    copied: Copied
    verified: Verified

    @property
    def upgraded(self) -> bool:
        return self.source_version != self.schema_version


def _quiet(_: str) -> None:
    return None


# ---- the whole move --------------------------------------------------------------------------------


async def migrate(
    source_path: str,
    target_url: str,
    *,
    progress: Callable[[str], object] = _quiet,
    page_rows: int = PAGE_ROWS,
) -> Migration:
    """Copy the quetbot SQLite database at ``source_path`` into the empty PostgreSQL database at
    ``target_url`` and verify the copy (see the module's docstring). `Refused` when it cannot be done
    (nothing written), `StorageError` when the copy failed (rolled back: nothing written),
    `NotVerified` when the committed copy does not match the source."""
    target_db = await PostgresDriver.open(target_url, migrations=None)
    try:
        # Looked at first, so that a target that will be refused leaves an old source un-upgraded (the
        # copy's own transaction looks again, under the lock, before it writes anything).
        await target_db.read(_require_empty(lock=False))
        source_db, source, found_version = await open_source(source_path, progress=progress)
        try:
            title = f"Copying {source_path} into {redact(target_url)}, in one transaction:"
            copied = await copy(
                source_db, source, target_db, progress=progress, title=title, page_rows=page_rows
            )
            progress(f"Copied {copied.rows:,} rows in {len(copied.tables)} tables in {copied.seconds:.1f} s.")
            progress("Verifying: replaying every game's move log, then comparing every table's rows...")
            verified = await verify(source_db, target_db, source.tables, page_rows=page_rows)
        finally:
            await source_db.close()
    finally:
        await target_db.close()
    return Migration(found_version, source.version, copied, verified)


# ---- the source ---------------------------------------------------------------------------------


async def open_source(
    path: str, *, progress: Callable[[str], object] = _quiet
) -> tuple[SqliteDriver, Source, int]:
    """The quetbot SQLite database at ``path``, opened read-only, at this code's schema version (an
    older one upgraded first, as the bot would); with its catalogue and the version it was found at.
    `Refused` for a missing file, a file that is not a quetbot database, or a newer one."""
    if not await asyncio.to_thread(os.path.isfile, path):
        raise Refused(f"{path} does not exist (or is not a file): give the bot's SQLite database file.")
    driver, source = await open_readonly(path)
    found = source.version
    if found > len(MIGRATIONS):
        await driver.close()
        raise Refused(
            f"{path} is at schema version {found}, made by a newer quetbot than this one (which knows "
            f"{len(MIGRATIONS)}): migrate it with that quetbot."
        )
    if found < len(MIGRATIONS):
        await driver.close()
        upgrading = await SqliteDriver.open(path, migrations=MIGRATIONS)  # as the bot does at start
        await upgrading.close()
        progress(
            f"Upgraded {path} from schema version {found} to {len(MIGRATIONS)} first, as the bot does "
            "when it starts on it."
        )
        driver, source = await open_readonly(path)
    return driver, source, found


async def open_readonly(path: str) -> tuple[SqliteDriver, Source]:
    driver = await SqliteDriver.open(path, readonly=True)
    try:
        try:
            source = await driver.read(_sqlite_catalogue())
        except Refused:
            raise
        except StorageError as exc:
            raise Refused(f"{path} is not a SQLite database ({exc}).") from None
        if source.version == 0 or "games" not in {t.name for t in source.tables}:
            raise Refused(f"{path} is not a quetbot database: it has no games table.")
    except BaseException:
        await driver.close()
        raise
    return driver, source


def _sqlite_catalogue() -> Txn[Source]:
    rows = yield Q("PRAGMA user_version")
    version = int(rows[0][0])
    names = yield Q("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    tables = []
    high_water: dict[str, int] = {}
    for (name,) in names:
        if name == "sqlite_sequence":
            for table, seq in (yield Q("SELECT name, seq FROM sqlite_sequence")):
                high_water[str(table)] = int(seq)
            continue
        if name.startswith("sqlite_"):
            continue
        info = yield Q("SELECT name, pk FROM pragma_table_info(?) ORDER BY cid", (name,))
        parents = yield Q('SELECT DISTINCT "table" FROM pragma_foreign_key_list(?)', (name,))
        key = tuple(str(c) for c, pk in sorted((r for r in info if r[1]), key=lambda r: r[1]))
        tables.append(
            Table(
                name=_checked(str(name)),
                columns=tuple(_checked(str(r[0])) for r in info),
                key=key,
                parents=tuple(sorted(str(p) for (p,) in parents if p != name)),
            )
        )
    return Source(version, _parents_first(tables), high_water)


def _parents_first(tables: Sequence[Table]) -> tuple[Table, ...]:
    """The tables in an order that inserts every row after the rows it refers to (names in
    alphabetical order among tables that are free to go)."""
    left = {t.name: t for t in tables}
    done: list[Table] = []
    while left:
        free = [t for t in left.values() if not (set(t.parents) & left.keys())]
        if not free:
            raise Refused(f"The source's foreign keys go round in a circle ({', '.join(sorted(left))}).")
        first = min(free, key=lambda t: t.name)
        done.append(first)
        del left[first.name]
    return tuple(done)


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _checked(name: str) -> str:
    """A table or column name from a catalogue, safe to quote into a statement."""
    if not _NAME.fullmatch(name):
        raise Refused(f"The source has a table or column named {name!r}, which quetbot never makes.")
    return name


def _q(name: str) -> str:
    return f'"{name}"'


def page(table: Table, after: Row | None, limit: int) -> Txn[Rows]:
    """Up to ``limit`` rows of ``table`` (its columns in order) after the key ``after`` (None: from
    the first), in key order. The common dialect: each database reads in its own key order."""
    columns = ", ".join(map(_q, table.columns))
    if not table.key:  # (no table quetbot makes lacks a primary key: read such a one whole)
        if after is not None:
            return []
        return (yield Q(f"SELECT {columns} FROM {_q(table.name)}"))
    key = ", ".join(map(_q, table.key))
    where, args = "", ()
    if after is not None:
        where, args = f"WHERE ({key}) > ({', '.join('?' * len(after))}) ", tuple(after)
    return (yield Q(f"SELECT {columns} FROM {_q(table.name)} {where}ORDER BY {key} LIMIT ?", (*args, limit)))


async def pages(db: Driver, table: Table, size: int) -> AsyncGenerator[Rows, None]:
    """Every row of ``table`` in ``db``, a page at a time (an async iterator of pages); the next page
    is read while the caller handles the last one."""
    at = table.key_at
    task: asyncio.Task[Rows] | None = asyncio.ensure_future(db.read(page(table, None, size)))
    try:
        while task is not None:
            rows = await task
            task = None
            if len(rows) == size and table.key:
                task = asyncio.ensure_future(db.read(page(table, tuple(rows[-1][i] for i in at), size)))
            if rows:
                yield rows
    finally:
        if task is not None:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)


# ---- the copy -----------------------------------------------------------------------------------


async def copy(
    source_db: Driver,
    source: Source,
    target: PostgresDriver,
    *,
    progress: Callable[[str], object] = _quiet,
    title: str = "Copying, in one transaction:",
    page_rows: int = PAGE_ROWS,
) -> Copied:
    """Every row of ``source``'s tables copied into ``target`` in one transaction, which also makes
    its schema (see the module's docstring). `Refused` if the target is not empty or not at this
    code's schema after migrating; `StorageError` if a row cannot be written (all rolled back)."""
    started = time.perf_counter()
    counts: list[tuple[str, int]] = []
    step = ""
    try:
        async with target.bulk() as txn:
            await txn.run(_require_empty())
            await txn.run(migrate_schema(MIGRATIONS))
            await txn.run(_require_tables(source.tables))
            progress(title)  # (said once the target is known to take the copy)
            for kept in KEPT_IN_TARGET:
                await txn.run(_clear(kept))
            # Foreign keys checked row by row made COPY five times slower: they are taken off while
            # the rows go in and put back as they were, which checks every row at once.
            foreign_keys = await txn.run(_drop_foreign_keys())
            for table in source.tables:
                step = f" while copying {table.name}"
                copied = await _copy_table(source_db, table, txn, page_rows)
                counts.append((table.name, copied))
                progress(f"  {table.name:<20} {copied:>12,} row{'' if copied == 1 else 's'}")
            step = " while checking the foreign keys"
            await txn.run(_add_foreign_keys(foreign_keys))
            step = ""
            await txn.run(_advance_identities(source.high_water))
    except Refused:
        raise
    except StorageError as exc:
        raise StorageError(
            f"The copy failed{step} and was rolled back (nothing was written to the target): {exc}"
        ) from exc
    return Copied(tuple(counts), time.perf_counter() - started)


async def _copy_table(source_db: Driver, table: Table, txn: Bulk, size: int) -> int:
    copied = 0
    async with aclosing(pages(source_db, table, size)) as read:
        async for rows in read:
            await txn.copy(table.name, table.columns, rows)
            copied += len(rows)
    return copied


def target_tables(*, everything: bool = False) -> Txn[dict[str, tuple[str, ...]]]:
    """The target's tables and their columns (in order), the migrations' bookkeeping aside unless
    ``everything``."""
    rows = yield Q(
        "SELECT table_name, column_name FROM information_schema.columns "
        "WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position"
    )
    tables: dict[str, list[str]] = {}
    for name, column in rows:
        if everything or name != "schema_version":
            tables.setdefault(str(name), []).append(str(column))
    return {name: tuple(columns) for name, columns in tables.items()}


def _require_empty(*, lock: bool = True) -> Txn[None]:
    """`Refused` unless the target is at most this code's schema and holds nothing but bookkeeping.
    ``lock``: first take the lock the migrations take (a bot starting meanwhile waits for the copy)."""
    if lock:
        yield Q("SELECT pg_advisory_xact_lock(?)", (MIGRATION_LOCK,))
    tables = yield from target_tables(everything=True)
    if "schema_version" in tables:
        rows = yield Q("SELECT version FROM schema_version")
        version = int(rows[0][0]) if rows else 0
        if version > len(MIGRATIONS):
            raise Refused(
                f"The target database is at schema version {version}, made by a newer quetbot than this "
                f"one (which knows {len(MIGRATIONS)}); nothing was written."
            )
    holding = []
    for name in sorted(tables):
        if name not in (*KEPT_IN_TARGET, "schema_version") and _NAME.fullmatch(name):
            if (yield Q(f"SELECT 1 FROM {_q(name)} LIMIT 1")):
                holding.append(name)
    if holding:
        if "games" in holding:
            games = int((yield Q("SELECT COUNT(*) FROM games"))[0][0])
            others = len(holding) - 1
            held = _counted(games, "game") + (
                f" (and rows in {_counted(others, 'other table')})" if others else ""
            )
        else:
            held = "rows in " + ", ".join(holding)
        raise Refused(
            f"The target database is not empty: it holds {held}. Migrate into a new, empty database "
            "(createdb); nothing was written."
        )


def _require_tables(tables: Sequence[Table]) -> Txn[None]:
    """`Refused` unless the migrated target has the source's tables, with the same columns."""
    found = yield from target_tables()
    wanted = {t.name: t.columns for t in tables}
    if found.keys() != wanted.keys():
        only_source = ", ".join(sorted(wanted.keys() - found.keys())) or "none"
        only_target = ", ".join(sorted(found.keys() - wanted.keys())) or "none"
        raise Refused(
            f"The source's tables are not the schema's: only in the source: {only_source}; only in the "
            f"target: {only_target}. Nothing was written."
        )
    for name, columns in wanted.items():
        if set(found[name]) != set(columns):
            raise Refused(
                f"The source's table {name} has the columns {', '.join(columns)}, the schema's "
                f"{', '.join(found[name])}. Nothing was written."
            )


def _drop_foreign_keys() -> Txn[list[tuple[str, str, str]]]:
    """Take the target's foreign keys off; answers them as (table, name, definition)."""
    rows = yield Q(
        "SELECT c.conrelid::regclass::text, c.conname::text, pg_get_constraintdef(c.oid) "
        "FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace "
        "WHERE c.contype = 'f' AND n.nspname = current_schema() ORDER BY 1, 2"
    )
    keys = [(_checked(str(t)), _checked(str(name)), str(definition)) for t, name, definition in rows]
    for table, name, _ in keys:
        yield Q(f"ALTER TABLE {_q(table)} DROP CONSTRAINT {_q(name)}")
    return keys


def _add_foreign_keys(keys: Sequence[tuple[str, str, str]]) -> Txn[None]:
    """The foreign keys put back as they were (each checks every row of its table as it is added)."""
    for table, name, definition in keys:
        yield Q(f"ALTER TABLE {_q(table)} ADD CONSTRAINT {_q(name)} {definition}")


def _clear(table: str) -> Txn[None]:
    yield Q(f"DELETE FROM {_q(table)}")


def _advance_identities(high_water: dict[str, int]) -> Txn[None]:
    """Each identity column's sequence set to give next the id after the largest the source gave."""
    rows = yield Q(
        "SELECT table_name, column_name FROM information_schema.columns "
        "WHERE table_schema = current_schema() AND is_identity = 'YES'"
    )
    for table, column in rows:
        largest = yield Q(f"SELECT MAX({_q(_checked(str(column)))}) FROM {_q(_checked(str(table)))}")
        after = max(int(largest[0][0] or 0), high_water.get(str(table), 0))
        yield Q("SELECT setval(pg_get_serial_sequence(?, ?), ?, false)", (table, column, after + 1))


# ---- verifying ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class LoggedGame:
    """What replaying a game needs, as stored."""

    id: int
    kind: str
    status: str
    options: str
    seed: int
    state: str | None
    result: str | None
    version: int
    seats: int
    moves: tuple[tuple[int, int, str], ...]  # (seq, seat, action JSON)
    undone: frozenset[int] = frozenset()  # the seqs of the moves taken back (skipped by a replay)


def games_page(after: int, limit: int) -> Txn[list[LoggedGame]]:
    """Up to ``limit`` games after id ``after`` with their seat counts and move logs."""
    rows = yield Q(
        "SELECT id, kind, status, options, seed, state, result, version FROM games WHERE id > ? "
        "ORDER BY id LIMIT ?",
        (after, limit),
    )
    if not rows:
        return []
    first, last = rows[0][0], rows[-1][0]
    seats: dict[int, int] = dict((yield Q(
        "SELECT game_id, COUNT(*) FROM seats WHERE game_id BETWEEN ? AND ? GROUP BY game_id", (first, last)
    )))  # fmt: skip
    logged: dict[int, list[tuple[int, int, str]]] = {}
    undone: dict[int, set[int]] = {}
    for game_id, seq, seat, action, taken in (yield Q(
        "SELECT game_id, seq, seat, action, undone FROM moves WHERE game_id BETWEEN ? AND ? "
        "ORDER BY game_id, seq",
        (first, last),
    )):  # fmt: skip
        logged.setdefault(int(game_id), []).append((int(seq), int(seat), str(action)))
        if taken is not None:
            undone.setdefault(int(game_id), set()).add(int(seq))
    return [
        LoggedGame(
            id=int(r[0]),
            kind=str(r[1]),
            status=str(r[2]),
            options=str(r[3]),
            seed=int(r[4]),
            state=r[5],
            result=r[6],
            version=int(r[7]),
            seats=int(seats.get(r[0], 0)),
            moves=tuple(logged.get(int(r[0]), ())),
            undone=frozenset(undone.get(int(r[0]), ())),
        )
        for r in rows
    ]


def _plain(value: JSON) -> JSON:
    """A JSON value as the database holds it (tuples become lists)."""
    return json.loads(json.dumps(value))


def check_game(game: LoggedGame) -> str | None:
    """What is wrong with a stored game, replayed from its move log with the rules; None if nothing.

    Its log is replayed from ``new_game(seats, options, seed)`` and must give the stored state (equal
    as a state and as JSON), and, for a finished game, the stored result; the log is numbered 1..n
    and the version counts the start and each move (and each takeback: a move taken back is
    skipped by the replay)."""
    label = f"game #{game.id} ({game.kind}, {game.status})"
    n = len(game.moves)
    if [seq for seq, _, _ in game.moves] != list(range(1, n + 1)):
        return f"{label}: its move log is not numbered 1 to {n}"
    if game.state is None:
        if n or game.status in ("active", "finished"):
            return f"{label}: it has {n} logged moves but no stored state"
        return None
    rules = RULES.get(game.kind)
    if rules is None:
        return f"{label}: there is no game called {game.kind!r}"
    if game.version < n + 1 + len(game.undone):
        return f"{label}: its version {game.version} does not count its start and its {n} moves"
    try:
        state = rules.new_game(game.seats, json.loads(game.options), game.seed)
        for seq, seat, action in game.moves:
            if seq not in game.undone:
                state = play(rules, state, seat, json.loads(action))
        stored_json = json.loads(game.state)
        stored = rules.State.from_dict(stored_json)
    except Exception as exc:  # a log that does not replay, however it fails, is a mismatch
        return f"{label}: its move log does not replay ({type(exc).__name__}: {exc})"
    if state != stored or _plain(state.to_dict()) != stored_json:
        return f"{label}: its {n} logged moves replay to another state than the stored one"
    outcome = rules.outcome(state)
    if game.status == "finished":
        if outcome is None or _plain(outcome.to_dict()) != json.loads(game.result or "null"):
            return f"{label}: its replayed result is not the stored one"
    elif game.status == "active" and outcome is not None:
        return f"{label}: its replayed game is over, the stored one still being played"
    return None


def rows_digest(rows: Rows, so_far: int = 0) -> int:
    """An order-independent digest of rows (the sum of their hashes), added to ``so_far`` (the
    digest of other rows of the same table)."""
    return (so_far + sum(hash(row) for row in rows)) & _DIGEST_MASK


async def table_digest(db: Driver, table: Table, size: int) -> tuple[int, int, int]:
    """The table's row count as the database counts it, the rows read page by page in key order
    (fewer if a key holds NULL, which SQLite allows), and the digest of those rows."""
    count = int((await db.read(fetch(f"SELECT COUNT(*) FROM {_q(table.name)}")))[0][0])
    digest, paged = 0, 0
    async with aclosing(pages(db, table, size)) as read:
        async for rows in read:
            paged += len(rows)
            digest = rows_digest(rows, digest)
    return count, paged, digest


class Problems:
    """What a verification found wrong: the first `SHOWN_PROBLEMS` kept, all counted."""

    def __init__(self) -> None:
        self.shown: list[str] = []
        self.count = 0

    def add(self, problem: str) -> None:
        self.count += 1
        if len(self.shown) < SHOWN_PROBLEMS:
            self.shown.append(problem)


async def replay_games(db: Driver, problems: Problems) -> tuple[int, int]:
    """Every game of ``db`` replayed from its move log (`check_game`), a page of games at a time;
    what is wrong added to ``problems``. Answers how many games and moves were replayed."""
    games = moves = 0
    after = 0
    while batch := await db.read(games_page(after, GAMES_PER_CHECK)):
        for game in batch:
            games += 1
            moves += len(game.moves)
            if (problem := check_game(game)) is not None:
                problems.add(problem)
        after = batch[-1].id
    return games, moves


async def verify(
    source: Driver, target: Driver, tables: Sequence[Table], *, page_rows: int = PAGE_ROWS
) -> Verified:
    """Check the copy in ``target`` (see the module's docstring): every game replayed from its move
    log, then every table's rows against ``source``'s. `NotVerified` names what differs."""
    started = time.perf_counter()
    problems = Problems()
    games, moves = await replay_games(target, problems)
    rows = 0
    replayed_problems = problems.count
    for table in tables:
        (count, paged, digest), (copied, copied_paged, copied_digest) = await asyncio.gather(
            table_digest(source, table, page_rows), table_digest(target, table, page_rows)
        )
        rows += copied
        unread = [
            (side, n, p)
            for side, n, p in (("source", count, paged), ("target", copied, copied_paged))
            if p != n
        ]
        if copied != count:
            problems.add(
                f"table {table.name}: {_counted(copied, 'row')} in the target, {count:,} in the source"
            )
        elif unread:
            side, n, p = unread[0]
            problems.add(
                f"table {table.name}: {p:,} of its {n:,} rows in the {side} could be read in key order"
            )
        elif copied_digest != digest:
            problems.add(f"table {table.name}: its rows differ from the source's (the same count, {count:,})")
    if problems.count:
        raise NotVerified(problems.shown, problems.count, faithful=problems.count == replayed_problems)
    return Verified(games, moves, len(tables), rows, time.perf_counter() - started)
