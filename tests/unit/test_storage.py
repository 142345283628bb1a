"""The storage package on its own: migrations, versioned writes with their outbox effects, the
outbox's completion protocol, settings, and the driver's one-trip transactions."""

from __future__ import annotations

import asyncio
import re
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import asyncpg
import pytest

from bot.errors import NoGameHere
from bot.storage import (
    MIGRATIONS,
    Conflict,
    Effect,
    GameRow,
    StaleVersion,
    Storage,
    StorageError,
)
from bot.storage.driver import Q, Repository, Txn
from bot.storage.sqlite import SqliteDriver

ROOT = Path(__file__).resolve().parents[2]

# The tests taking `database` (or `storage`) run on SQLite and on PostgreSQL (tests/conftest.py).
pytestmark = pytest.mark.both_dbs


async def lobby(storage: Storage, channel: int = 100) -> GameRow:
    row = (
        await storage.create_lobby(
            kind="procession",
            guild_id=1,
            channel_id=channel,
            host_id=10,
            host_name="Ann",
            options={"n": 5},
            seed=7,
        )
    ).row
    written = await storage.update_lobby(
        game_id=row.id, expected_version=row.version, seats=[(10, "Ann"), (11, "Bea")], host_id=10
    )
    return written.row


async def started(storage: Storage, channel: int = 100) -> GameRow:
    row = await lobby(storage, channel)
    written = await storage.start_game(
        game_id=row.id, expected_version=row.version, state={"turn": 0}, waiting=[0]
    )
    return written.row


async def move(storage: Storage, row: GameRow, *effects: Effect, version: int | None = None):
    return await storage.record_move(
        game_id=row.id,
        expected_version=row.version if version is None else version,
        seat=0,
        action={"type": "flip", "position": 1},
        state={"turn": row.version + 1},
        waiting=[1],
        effects=effects,
    )


# ---- migrations -------------------------------------------------------------------------------------


def build_v4_database(path: Path) -> None:
    """A database as the bot before the outbox left it: the first four migrations, and a game."""
    db = sqlite3.connect(path, isolation_level=None)
    for migration in MIGRATIONS[:4]:
        for statement in migration.split(";"):
            if statement.strip():
                db.execute(statement)
    db.execute("PRAGMA user_version = 4")
    db.execute(
        "INSERT INTO games (id, kind, guild_id, channel_id, status, host_id, options, seed, state, "
        "version, board_message_id, created_at, updated_at, timeout_s) "
        "VALUES (5, 'procession', 1, 100, 'active', 10, ?, 7, ?, 3, 900, 1.0, 2.0, 600)",
        ('{"n":5}', '{"turn":3}'),
    )
    db.executemany(
        "INSERT INTO seats (game_id, position, user_id, name) VALUES (5, ?, ?, ?)",
        [(0, 10, "Ann"), (1, 11, "Bea")],
    )
    db.executemany(
        "INSERT INTO moves (game_id, seq, seat, action, created_at) VALUES (5, ?, ?, ?, 1.5)",
        [
            (1, 0, '{"type":"flip"}'),
            # (not in this game's log: here to see migration 14 read the forfeits of an old log)
            (2, 1, '{"reason":"timeout","type":"forfeit"}'),
            (3, 0, '{"type":"forfeit"}'),
        ],
    )
    db.execute("INSERT INTO dm_links (game_id, user_id, blocked) VALUES (5, 11, 1)")
    db.execute("INSERT INTO waits (game_id, seat, since, deadline) VALUES (5, 1, 2.0, 602.0)")
    db.close()


async def test_a_version_4_database_upgrades_and_keeps_its_games(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    build_v4_database(path)
    storage = await Storage.open(str(path))
    try:
        assert await storage.schema_version() == len(MIGRATIONS) == 15
        game = await storage.get_game(game_id=5)
        assert game.place_id == game.channel_id and game.thread_id is None  # played where it was
        assert (game.status, game.version, game.state, game.board_message_id, game.timeout_s) == (
            "active",
            3,
            {"turn": 3},
            900,
            600,
        )
        assert (game.seats, game.names) == ((10, 11), ("Ann", "Bea"))
        assert [m.action for m in await storage.moves(game_id=5)][:1] == [{"type": "flip"}]
        assert (await storage.get_dm_link(game_id=5, user_id=11)).blocked
        assert [w.seat for w in await storage.waits_of_game(game_id=5)] == [1]
        # The new tables work on the old game.
        written = await move(storage, game, Effect("board"))
        assert [i.kind for i in await storage.effects_of_game(game_id=5)] == ["board"]
        assert written.row.version == 4
        await storage.set_guild_setting(guild_id=1, key="threads", value=1)
        assert await storage.get_guild_settings(guild_id=1) == {"threads": 1}
    finally:
        await storage.close()
    db = sqlite3.connect(path)
    names = {r[0] for r in db.execute("SELECT name FROM sqlite_master")}
    forfeits = db.execute("SELECT seq, forfeit FROM moves WHERE game_id = 5 ORDER BY seq").fetchall()
    db.close()
    assert forfeits[:3] == [(1, None), (2, "timeout"), (3, "left")]  # migration 14 read the old log
    assert forfeits[3:] == [(4, None)]  # (the move made after the upgrade)
    assert {"outbox", "outbox_by_game", "outbox_by_due", "guild_settings", "user_settings"} <= names


async def test_a_failing_migration_leaves_the_database_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    build_v4_database(path)
    broken = (*MIGRATIONS, "CREATE TABLE outbox (id INTEGER)")  # 7: a table that already exists
    with pytest.raises(StorageError):
        await SqliteDriver.open(str(path), migrations=broken)
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA user_version").fetchone()[0] == 4
    assert db.execute("SELECT COUNT(*) FROM sqlite_master WHERE name = 'outbox'").fetchone()[0] == 0
    db.close()


# ---- games: plain reads and writes ------------------------------------------------------------------


async def test_rows_read_back_what_was_written_also_after_reopening(database: str) -> None:
    path = database
    storage = await Storage.open(path)
    try:
        game = await started(storage)
        await storage.set_messages(game_id=game.id, board_message_id=555)
        moved = (await move(storage, game)).row
        await storage.set_messages(game_id=game.id, board_message_id=556, lobby_message_id=9)
        await storage.set_messages(game_id=game.id, board_message_id=550)  # an older board recorded late
        row = await storage.get_game(game_id=game.id)
        assert (row.version, row.board_message_id, row.lobby_message_id) == (moved.version, 556, 9)
        assert row.version == game.version + 1  # message ids are not a game change
        assert row.state == moved.state == {"turn": game.version + 1}
        # A refused write (stale version) changes nothing.
        with pytest.raises(StaleVersion):
            await move(storage, row, version=row.version - 1)
        assert await storage.get_game(game_id=game.id) == row
        with pytest.raises(NoGameHere):
            await storage.get_game(game_id=999)
    finally:
        await storage.close()
    fresh = await Storage.open(path)  # what a restarted bot reads from the file
    try:
        assert await fresh.get_game(game_id=game.id) == row
    finally:
        await fresh.close()


async def test_the_live_game_of_a_channel_follows_lobbies_and_endings(storage: Storage) -> None:
    assert await storage.live_games_at(channel_id=300) == []
    first = await lobby(storage, channel=300)
    assert await storage.live_games_at(channel_id=300) == [first]
    cancelled = (await storage.cancel_game(game_id=first.id, expected_version=first.version)).row
    assert cancelled.status == "cancelled"
    assert await storage.live_games_at(channel_id=300) == []
    assert await storage.latest_game_at(place_id=300) == cancelled
    second = await started(storage, channel=300)
    assert await storage.live_games_at(channel_id=300) == [second]
    assert await storage.live_games_of_user(user_id=11) == [second]
    finished = await storage.record_move(
        game_id=second.id,
        expected_version=second.version,
        seat=1,
        action={"type": "forfeit"},
        state={"over": True},
        result={"winners": [0]},
        waiting=[1],
    )
    assert finished.row.status == "finished" and finished.row.result == {"winners": [0]}
    assert await storage.waits_of_game(game_id=second.id) == []  # a finished game waits for nobody
    assert await storage.live_games_at(channel_id=300) == []
    assert await storage.latest_game_at(place_id=300) == finished.row
    assert await storage.count_games() == 2 and await storage.count_games(status="finished") == 1


async def test_a_game_in_its_thread_is_live_in_both_the_channel_and_the_thread(storage: Storage) -> None:
    first = await lobby(storage, channel=300)
    second = await lobby(storage, channel=300)  # several games per channel
    await storage.set_messages(game_id=first.id, lobby_message_id=900, place_id=900)
    moved = await storage.get_game(game_id=first.id)
    assert moved.place_id == 900 and moved.thread_id == 900 and moved.channel_id == 300
    assert second.thread_id is None and second.place_id == 300
    assert await storage.live_games_at(channel_id=300) == [moved, second]
    assert await storage.live_games_at(channel_id=900) == [moved]
    assert await storage.latest_game_at(place_id=900) == moved


async def test_dm_links_read_back_what_was_written(database: str) -> None:
    path = database
    storage = await Storage.open(path)
    try:
        game_id = (await lobby(storage)).id
        assert (await storage.get_dm_link(game_id=game_id, user_id=7)).panel_message_id is None
        await storage.set_dm_panel(game_id=game_id, user_id=7, dm_channel_id=70, panel_message_id=700)
        link = await storage.get_dm_link(game_id=game_id, user_id=7)
        assert (link.blocked, link.dm_channel_id, link.panel_message_id) == (False, 70, 700)
        assert await storage.mark_dm_blocked(game_id=game_id, user_id=8) is True
        assert (await storage.get_dm_link(game_id=game_id, user_id=8)).blocked
        assert await storage.mark_dm_blocked(game_id=game_id, user_id=8) is False  # only the first time
    finally:
        await storage.close()
    fresh = await Storage.open(path)
    try:
        assert (await fresh.get_dm_link(game_id=game_id, user_id=7)).panel_message_id == 700
        assert (await fresh.get_dm_link(game_id=game_id, user_id=8)).blocked
    finally:
        await fresh.close()


async def test_typed_replies_keep_the_newest_and_are_taken_once(storage: Storage) -> None:
    first = await storage.add_typed_reply(user_id=5, text="U")
    other = await storage.add_typed_reply(user_id=6, text="X")
    second = await storage.add_typed_reply(user_id=5, text="D")
    assert await storage.take_typed_reply(reply_id=first, user_id=5) is None  # superseded
    assert await storage.take_typed_reply(reply_id=second, user_id=6) is None  # not theirs
    assert await storage.take_typed_reply(reply_id=second, user_id=5) == "D"
    assert await storage.take_typed_reply(reply_id=second, user_id=5) is None
    assert await storage.take_typed_reply(reply_id=other, user_id=6) == "X"


async def test_racing_rematches_open_one_lobby(storage: Storage) -> None:
    """Of rematches opened at the same moment (on PostgreSQL, on connections of their own), the unique
    index on live rematches lets one in; the others answer None and join it. Once it ends, a new one
    may open."""
    first = await started(storage)
    done = (
        await storage.record_move(
            game_id=first.id,
            expected_version=first.version,
            seat=0,
            action={"type": "x"},
            state={},
            result={"winners": [0]},
        )
    ).row
    opened = await asyncio.gather(
        *[
            storage.create_rematch(
                of_game=done, host_id=u, seats=[(u, f"P{u}")], seed=u, effects=[Effect("post_card")]
            )
            for u in (10, 11, 12, 13)
        ]
    )
    (won,) = [w for w in opened if w is not None]
    assert won.row.status == "lobby" and won.row.channel_id == done.channel_id
    assert [i.kind for i in won.effects] == ["post_card"]
    assert await storage.live_rematch(of_game=done.id) == won.row
    assert await storage.count_games() == 2  # nothing of the refused ones was written
    await storage.cancel_game(game_id=won.row.id, expected_version=won.row.version)
    again = await storage.create_rematch(of_game=done, host_id=10, seats=[(10, "Ann")], seed=1)
    assert again is not None and again.row.id != won.row.id


# ---- a change and its effects ------------------------------------------------------------------------


async def test_a_move_and_its_effects_are_committed_together(storage: Storage) -> None:
    game = await started(storage)
    written = await move(storage, game, Effect("board", {"seat": 0}), Effect("dm_panel", {"seat": 1}, "tok"))
    assert written.row.version == game.version + 1
    assert [(i.kind, i.args, i.token, i.attempts, i.not_before) for i in written.effects] == [
        ("board", {"seat": 0}, None, 0, 0.0),
        ("dm_panel", {"seat": 1}, "tok", 0, 0.0),
    ]
    assert written.effects[0].id < written.effects[1].id
    assert await storage.effects_of_game(game_id=game.id) == list(written.effects)
    # A lost compare-and-swap writes neither the move nor its effects nor its deadlines.
    with pytest.raises(StaleVersion):
        await move(storage, written.row, Effect("board"), version=game.version)
    assert await storage.effects_of_game(game_id=game.id) == list(written.effects)
    assert len(await storage.moves(game_id=game.id)) == 1
    assert await storage.get_game(game_id=game.id) == written.row


async def test_lobby_start_cancel_and_reminders_take_effects(storage: Storage) -> None:
    row = (
        await storage.create_lobby(
            kind="updown", guild_id=None, channel_id=1, host_id=1, host_name="A", options={}, seed=1
        )
    ).row
    joined = await storage.update_lobby(
        game_id=row.id,
        expected_version=row.version,
        seats=[(1, "A"), (2, "B")],
        host_id=1,
        effects=[Effect("lobby")],
    )
    begun = await storage.start_game(
        game_id=row.id,
        expected_version=joined.row.version,
        state={},
        waiting=[0, 1],
        effects=[Effect("board")],
    )
    reminded = await storage.mark_reminded(game_id=row.id, seat=1, effects=[Effect("remind", {"seat": 1})])
    assert [w.reminded for w in await storage.waits_of_game(game_id=row.id)] == [False, True]
    # A second process looking at the same due wait claims nothing: the reminder is queued once.
    assert await storage.mark_reminded(game_id=row.id, seat=1, effects=[Effect("remind", {"seat": 1})]) == []
    ended = await storage.cancel_game(
        game_id=row.id, expected_version=begun.row.version, effects=[Effect("cancelled")]
    )
    assert ended.row.status == "cancelled" and await storage.waits_of_game(game_id=row.id) == []
    items = [*joined.effects, *begun.effects, *reminded, *ended.effects]
    assert [i.kind for i in items] == ["lobby", "board", "remind", "cancelled"]
    assert await storage.effects_of_game(game_id=row.id) == items


# ---- the outbox ---------------------------------------------------------------------------------------


async def test_complete_effect_is_one_transaction_and_completes_once(storage: Storage) -> None:
    game = await started(storage)
    other = await started(storage, channel=101)
    (item,) = (await move(storage, game, Effect("board"))).effects
    (elsewhere,) = await storage.add_effects(game_id=other.id, effects=[Effect("board")])
    done = await storage.complete_effect(
        item_id=item.id,
        board_message_id=4242,
        dm_panel=(game.id, 10, 70, 700),
        dm_blocked=(game.id, 11),
        then=[Effect("strip", {"message": 4241}), Effect("notify")],
    )
    assert done.completed and done.newly_blocked
    assert [e.kind for e in done.effects] == ["strip", "notify"]
    assert all(e.id > elsewhere.id for e in done.effects)  # after everything already queued
    assert all(e.game_id == game.id for e in done.effects)
    row = await storage.get_game(game_id=game.id)
    assert row.board_message_id == 4242 and row.version == game.version + 1  # no version bump
    link = await storage.get_dm_link(game_id=game.id, user_id=10)
    assert (link.dm_channel_id, link.panel_message_id, link.blocked) == (70, 700, False)
    assert (await storage.get_dm_link(game_id=game.id, user_id=11)).blocked
    assert await storage.effects_of_game(game_id=game.id) == list(done.effects)

    # Again (a second worker, or a retry after a lost answer): nothing completed, nothing written.
    again = await storage.complete_effect(
        item_id=item.id, board_message_id=1, dm_blocked=(game.id, 12), then=[Effect("twice")]
    )
    assert (again.completed, again.newly_blocked, again.effects) == (False, False, ())
    assert (await storage.get_game(game_id=game.id)).board_message_id == 4242
    assert not (await storage.get_dm_link(game_id=game.id, user_id=12)).blocked
    assert await storage.effects_of_game(game_id=game.id) == list(done.effects)


async def test_a_failing_completion_writes_nothing(storage: Storage) -> None:
    game = await started(storage)
    (item,) = await storage.add_effects(game_id=game.id, effects=[Effect("board")])
    with pytest.raises(Conflict):  # a DM link for a game that does not exist: the foreign key refuses
        await storage.complete_effect(item_id=item.id, board_message_id=77, dm_panel=(999, 1, 2, 3))
    assert await storage.effects_of_game(game_id=game.id) == [item]  # not deleted
    assert (await storage.get_game(game_id=game.id)).board_message_id is None


async def test_racing_completions_complete_once(storage: Storage) -> None:
    game = await started(storage)
    (item,) = await storage.add_effects(game_id=game.id, effects=[Effect("board")])
    results = await asyncio.gather(
        *[storage.complete_effect(item_id=item.id, then=[Effect(f"next{i}")]) for i in range(4)]
    )
    assert sum(r.completed for r in results) == 1
    assert len(await storage.effects_of_game(game_id=game.id)) == 1


async def test_items_keep_one_global_order(storage: Storage) -> None:
    a = await started(storage, channel=1)
    b = await started(storage, channel=2)
    (a1,) = await storage.add_effects(game_id=a.id, effects=[Effect("a1")])
    b1, b2 = await storage.add_effects(game_id=b.id, effects=[Effect("b1"), Effect("b2")])
    (a2,) = await storage.add_effects(game_id=a.id, effects=[Effect("a2")])
    pending = await storage.pending_effects(now=0)
    assert [i.kind for i in pending] == ["a1", "b1", "b2", "a2"]
    assert [i.kind for i in await storage.pending_effects(now=0, limit=2)] == ["a1", "b1"]
    assert [i.kind for i in await storage.effects_of_game(game_id=a.id)] == ["a1", "a2"]
    # Ids are never reused: an item added after the newest was completed still comes last.
    assert (await storage.complete_effect(item_id=a2.id)).completed
    (a3,) = await storage.add_effects(game_id=a.id, effects=[Effect("a3")])
    assert a3.id > a2.id > b2.id > b1.id > a1.id
    assert await storage.add_effects(game_id=a.id, effects=[]) == []


async def test_a_retried_item_waits_for_its_time(storage: Storage) -> None:
    game = await started(storage)
    first, second = await storage.add_effects(
        game_id=game.id, effects=[Effect("board", token="tok"), Effect("notify")]
    )
    assert await storage.next_effect_due() == 0.0
    await storage.retry_effect(item_id=first.id, not_before=1000.0)
    await storage.retry_effect(item_id=first.id, not_before=2000.0)
    assert [i.id for i in await storage.pending_effects(now=1500.0)] == [second.id]
    assert (await storage.complete_effect(item_id=second.id)).completed
    assert await storage.next_effect_due() == 2000.0
    (retried,) = await storage.pending_effects(now=2000.0)
    assert (retried.id, retried.attempts, retried.not_before, retried.token) == (first.id, 2, 2000.0, "tok")
    await storage.clear_token(item_id=first.id)
    assert (await storage.effects_of_game(game_id=game.id))[0].token is None
    assert (await storage.complete_effect(item_id=first.id)).completed
    assert await storage.next_effect_due() is None


# ---- settings -----------------------------------------------------------------------------------------


async def test_settings_read_back_and_clear(storage: Storage) -> None:
    assert await storage.get_guild_settings(guild_id=1) == {}
    await storage.set_guild_setting(guild_id=1, key="threads", value=1)
    await storage.set_guild_setting(guild_id=1, key="language", value="fr")
    await storage.set_guild_setting(guild_id=2, key="language", value="de")
    assert await storage.get_guild_settings(guild_id=1) == {"threads": 1, "language": "fr"}
    await storage.set_guild_setting(guild_id=1, key="language", value=None)
    assert await storage.get_guild_settings(guild_id=1) == {"threads": 1}
    assert await storage.get_guild_settings(guild_id=2) == {"language": "de"}
    await storage.set_user_setting(user_id=5, key="notify", value="dm")
    await storage.set_user_setting(user_id=5, key="locale", value="en-GB")
    assert await storage.get_user_settings(user_id=5) == {"notify": "dm", "locale": "en-GB"}
    assert await storage.get_user_settings(user_id=6) == {}
    with pytest.raises(ValueError, match="Unknown setting"):
        await storage.set_guild_setting(guild_id=1, key="threads = 0; --", value=1)
    with pytest.raises(ValueError, match="Unknown setting"):
        await storage.set_user_setting(user_id=1, key="language", value="fr")  # a server setting


async def test_meta(storage: Storage) -> None:
    assert await storage.get_meta(key="k") is None
    await storage.set_meta(key="k", value="1")
    await storage.set_meta(key="k", value="2")
    assert await storage.get_meta(key="k") == "2"


# ---- the facade -----------------------------------------------------------------------------------------


def test_storage_is_every_repository_and_no_method_hides_another() -> None:
    """`Storage` inherits the repositories' methods: a name two of them defined would silently be
    the first one's, and a repository left out of its bases would not be reachable at all."""
    repositories = Repository.__subclasses__()
    assert {repo.__name__ for repo in repositories} >= {"Games", "Outbox", "Waits"}
    assert all(issubclass(Storage, repo) for repo in repositories)
    owners: dict[str, str] = {}
    for cls in [Storage, *repositories]:
        for name in vars(cls):
            if name.startswith("__"):
                continue
            assert name not in owners, f"{name}: defined by both {owners[name]} and {cls.__name__}"
            owners[name] = cls.__name__
    assert owners["complete_effect"] == "Outbox" and owners["record_move"] == "Games"


# ---- the driver -----------------------------------------------------------------------------------------


@pytest.mark.sqlite_only  # (the SQLite driver's thread; PostgreSQL has a pool: tests/unit/test_postgres.py)
async def test_every_transaction_is_one_trip_to_the_database_thread(storage: Storage) -> None:
    driver = storage.driver
    assert isinstance(driver, SqliteDriver)
    game = await started(storage)
    trips = driver.trips
    written = await move(storage, game, Effect("board"), Effect("dm_panel"))  # ~9 statements
    assert driver.trips == trips + 1
    await storage.get_game(game_id=game.id)  # two statements: the game, its seats
    assert driver.trips == trips + 2
    await storage.complete_effect(
        item_id=written.effects[0].id, board_message_id=1, dm_panel=(game.id, 10, 2, 3), then=[Effect("x")]
    )
    assert driver.trips == trips + 3

    # The transaction's code runs in the driver's own thread, start to end, off the event loop.
    seen: list[int] = []

    def spy() -> Txn[int]:
        seen.append(threading.get_ident())
        rows = yield Q("SELECT COUNT(*) FROM outbox")
        seen.append(threading.get_ident())
        yield Q("INSERT INTO meta (key, value) VALUES ('spy', ?)", (str(rows[0][0]),))
        seen.append(threading.get_ident())
        return int(rows[0][0])

    assert await driver.write(spy()) == 2
    assert driver.trips == trips + 4
    assert set(seen) == {driver.thread.ident} and driver.thread.ident != threading.get_ident()


async def test_a_transaction_that_raises_is_rolled_back(storage: Storage) -> None:
    def failing() -> Txn[None]:
        yield Q("INSERT INTO meta (key, value) VALUES ('half', 'done')")
        raise RuntimeError("halfway")

    with pytest.raises(RuntimeError, match="halfway"):
        await storage.driver.write(failing())
    assert await storage.get_meta(key="half") is None
    await storage.set_meta(key="after", value="fine")  # the connection is usable again
    assert await storage.get_meta(key="after") == "fine"


async def test_backend_errors_are_translated(storage: Storage) -> None:
    def bad() -> Txn[None]:
        yield Q("SELECT * FROM no_such_table")

    with pytest.raises(StorageError, match="no_such_table") as caught:
        await storage.driver.read(bad())
    assert not isinstance(caught.value, sqlite3.Error | asyncpg.PostgresError)


async def test_a_closed_database_refuses_work(tmp_path: Path) -> None:
    storage = await Storage.open(str(tmp_path / "games.sqlite3"))
    driver = storage.driver
    assert isinstance(driver, SqliteDriver)
    await storage.close()
    await storage.close()  # twice is fine
    with pytest.raises(StorageError, match="closed"):
        await storage.get_meta(key="k")
    driver.thread.join(timeout=5)
    assert not driver.thread.is_alive()


def test_no_aiosqlite_and_no_private_attributes_of_a_driver_library() -> None:
    package = ROOT / "bot" / "storage"
    sources = {path.name: path.read_text() for path in package.glob("*.py")}
    assert "sqlite.py" in sources and "driver.py" in sources
    for name, text in sources.items():
        assert "aiosqlite" not in text, name
        assert not re.search(r"\._(execute|conn)\b", text), name
    for path in [*(ROOT / "bot").rglob("*.py"), *(ROOT / "cogs").rglob("*.py")]:
        assert not re.search(r"^\s*(import|from)\s+aiosqlite", path.read_text(), re.M), path
    assert "aiosqlite" not in (ROOT / "pyproject.toml").read_text()
    imported = subprocess.run(
        [sys.executable, "-c", "import sys, bot.storage; print('aiosqlite' in sys.modules)"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert imported.stdout.strip() == "False"
