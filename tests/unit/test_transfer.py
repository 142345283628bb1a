"""Moving a deployment (bot/storage/transfer.py, ``quetbot migrate``): a SQLite database of real games
of all five kinds, finished and still being played, with every other table filled the way the bot
fills it, copied into PostgreSQL; everything equal afterwards, the copy verified by replaying the move
logs, new ids fresh; a tampered copy caught; the refusals (nothing written); the command line."""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from bot.__main__ import main
from bot.events.tournaments import Tournaments
from bot.players.seats import computer_id, computer_name
from bot.registry import RULES
from bot.service import Services
from bot.service.undo import Takebacks
from bot.storage import MIGRATIONS, Storage, StorageError
from bot.storage.postgres import PostgresDriver
from bot.storage.rows import Effect
from bot.storage.sqlite import SqliteDriver
from bot.storage.transfer import NotVerified, Refused, migrate, open_source, verify
from tests.db import query
from tests.pg import PostgresServer

GUILD = 900
KINDS = sorted(RULES)
# Every table the migrations make; a new migration's table must be added here (and filled below).
TABLES = [
    *(
        "digests dm_links finished_games games guild_settings meta move_clock moves outbox outbox_leases "
        "period_standings ratings reminder_mutes results rivals seats typed_replies undo_grants "
        "undo_requests user_settings waits"
    ).split(),
    *("away", "extensions", "quiet_hours"),  # (issue 27: time away, more time, quiet hours)
    "analyses",  # (issue 28)
    *("puzzles", "puzzle_answers", "puzzle_streaks", "puzzle_channels", "puzzle_posts"),  # (issue 28)
    *("season_settings", "seasons_ended"),  # (issue 29: seasons)
    *(
        "tournaments",
        "tournament_entrants",
        "tournament_games",
        "tournament_byes",
        "tournament_posts",
    ),  # (29)
    "pending_answers",  # (deferred answers owed)
]


# ---- databases ----------------------------------------------------------------------------------------


def _skip_without_postgres(config: pytest.Config) -> None:
    if config.getoption("--db") == "sqlite":
        pytest.skip("--db sqlite: no PostgreSQL")


@pytest.fixture
def sync_pg_url(postgres_server: PostgresServer, request: pytest.FixtureRequest) -> Iterator[str]:
    """`pg_url` for a test without an event loop of its own (the CLI runs its own)."""
    _skip_without_postgres(request.config)
    url = asyncio.run(postgres_server.new_database())
    try:
        yield url
    finally:
        asyncio.run(postgres_server.drop_database(url))


def rows_of(db: str, table: str) -> list[tuple[Any, ...]]:
    """Every row of a table (its columns in the SQLite file's order), sorted."""
    path = str(db).removeprefix("sqlite:///")
    if "://" in db:
        columns = [
            r[0]
            for r in query(
                db,
                "SELECT column_name FROM information_schema.columns WHERE table_name = ? "
                "ORDER BY ordinal_position",
                (table,),
            )
        ]
    else:
        with closing(sqlite3.connect(path)) as conn:
            columns = [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]
    listed = ", ".join(columns)
    return sorted(query(db, f"SELECT {listed} FROM {table}"), key=repr)


def ordered_rows(sqlite_db: str, pg_db: str, table: str) -> tuple[list[Any], list[Any]]:
    """A table's rows in both databases, columns in the same order."""
    with closing(sqlite3.connect(sqlite_db)) as conn:
        columns = ", ".join(r[1] for r in conn.execute(f"PRAGMA table_info({table})"))
    return (
        sorted(query(sqlite_db, f"SELECT {columns} FROM {table}"), key=repr),
        sorted(query(pg_db, f"SELECT {columns} FROM {table}"), key=repr),
    )


# ---- a source with real games -------------------------------------------------------------------------


async def play_random(service: Services, game_id: int, rng: random.Random, moves: int | None) -> int:
    """Play random legal moves (all of them to the end, or ``moves``); answers how many were made."""
    made = 0
    while moves is None or made < moves:
        game = await service.games.get(game_id)
        if not game.row.live:
            break
        rules, state = game.rules, game.state
        seat = min(rules.to_act(state))
        action = rng.choice(list(rules.legal_actions(state, seat)))
        await service.moves.act(
            game_id, game.row.seats[seat], action, effects=lambda r: [Effect("board", {})]
        )
        made += 1
    return made


async def new_game(service: Services, kind: str, channel: int, players: int, *, computer: bool = False):
    host = 1000 + channel
    game = (
        await service.lobby.open_lobby(
            kind=kind,
            guild_id=GUILD,
            channel_id=channel,
            host_id=host,
            host_name=f"Host {channel}",
            options={},
        )
    ).game
    for k in range(1, players):
        user = computer_id("easy", k) if computer else host + k
        name = computer_name(user) if computer else f"Player {user}"
        await service.lobby.join(game.id, user, name)
    return await service.lobby.start(game.id, host)


async def build_source(path: str, *, seed: int = 7) -> dict[str, int]:
    """A database as a bot leaves it after a while: for each game, finished games (one with a
    computer, one forfeited) and one being played; a lobby, a cancelled game; settings, DM links,
    mutes, typed replies, the outbox (items done and pending), records. Answers a few facts."""
    rng = random.Random(seed)
    storage = await Storage.open(path)
    service = Services.build(storage, RULES)
    channel = 10
    playing: dict[str, int] = {}
    try:
        for kind in KINDS:
            for finish, computer in ((True, False), (True, True), (False, False)):
                channel += 1
                started = await new_game(service, kind, channel, 2, computer=computer)
                await play_random(service, started.game.id, rng, None if finish else 3)
                playing[kind] = started.game.id
            channel += 1
            forfeited = await new_game(service, kind, channel, 2)
            await play_random(service, forfeited.game.id, rng, 1)
            await service.moves.forfeit(forfeited.game.id, forfeited.game.row.seats[1])
        lobby = (
            await service.lobby.open_lobby(
                kind="dots", guild_id=GUILD, channel_id=99, host_id=5, host_name="Eve", options={"size": 4}
            )
        ).game
        cancelled = await new_game(service, "updown", 98, 3)
        await play_random(service, cancelled.game.id, rng, 2)
        await service.lobby.cancel(cancelled.game.id, cancelled.game.row.host_id, can_manage=False)
        await storage.set_guild_setting(guild_id=GUILD, key="threads", value=0)
        await storage.set_guild_setting(guild_id=GUILD + 1, key="language", value="fr")
        await storage.set_guild_setting(guild_id=GUILD + 1, key="guild_locale", value="pt-BR")
        await storage.set_user_setting(user_id=1011, key="notify", value="dm")
        await storage.set_digest(user_id=1012, hour=7, timezone="Europe/Paris", due=1.5e9)
        await storage.claim_digest(user_id=1012, due=1.5e9, holder="host:0", now=1.6e9, until=1.6e9 + 120)
        await storage.mark_dm_blocked(game_id=lobby.id, user_id=5)
        await storage.set_dm_panel(
            game_id=cancelled.game.id, user_id=1098, dm_channel_id=7, panel_message_id=8
        )
        await storage.mute_reminders(game_id=cancelled.game.id, user_id=1099)
        await storage.add_typed_reply(user_id=1011, text="flip 3 — ünïcode")
        await storage.set_messages(game_id=lobby.id, lobby_message_id=12345, place_id=67890)
        await storage.set_meta(key="synced:global", value="0f" * 32)  # the command tree's digest
        # The daily puzzle (issue 28).
        await storage.keep_puzzle(
            day=20400, n=5, rows=("00000", "00100"), answer=2, source_game_id=None, now=1.7e9
        )
        await storage.answer_puzzle(
            user_id=1011, day=20400, position=2, correct=True, guild_id=GUILD, now=1.7e9
        )
        await storage.set_puzzle_channel(guild_id=GUILD, channel_id=99, hour=12)
        await storage.claim_puzzle_post(
            guild_id=GUILD, day=20400, channel_id=99, holder="h", now=1.7e9, until=1.8e9
        )
        # Seasons (issue 29): a server's choice, and a season that ended, its post claimed.
        await storage.set_seasons(guild_id=GUILD, mode="month", channel_id=99, now=1.6e9)
        await storage.open_ended_seasons(now=1.7e9)
        await storage.claim_season_post(guild_id=GUILD, season=1, holder="h", now=1.7e9, until=1.8e9)
        # Time away and more time (issue 27).
        live_wait = next(w for w in await storage.due_waits(now=10**10) if w.game_id != cancelled.game.id)
        await storage.extend_wait(
            game_id=live_wait.game_id, seat=live_wait.seat, giver_id=1011, seconds=3600, now=5.0
        )
        await storage.go_away(user_id=1012, days=2, now=1.0)
        await storage.set_quiet(user_id=1012, starts=22 * 60, ends=7 * 60, tz="Europe/Berlin", next_end=3.0)
        # A takeback: asked, accepted (a computer's one grant remembered), the move marked in the log.
        taken = await service.games.get(playing["procession"])
        takebacks = Takebacks(service.games)
        last = (await storage.moves(game_id=taken.id))[-1]
        seat, move, log = await takebacks.last_move(taken, taken.row.seats[last.seat])
        request, _ = await storage.open_undo_request(
            game_id=taken.id, seat=seat, seq=move.seq, version=taken.row.version, now=1.0, expires_at=2.0
        )
        assert request is not None
        draft = takebacks.draft(taken, seat, move, log)
        await takebacks.commit(draft, move.seq, [], request_id=request.id, granted=(1 - seat,))
        # A finished game's analysis (issue 28).
        done_id, done_kind = query(path, "SELECT id, kind FROM games WHERE status = 'finished' LIMIT 1")[0]
        await storage.keep_analysis(game_id=int(done_id), review={"kind": done_kind, "moves": []}, now=1.0)
        # A tournament (issue 29): a round robin of three under way (its game, a bye, its posts owed).
        tours = Tournaments(storage, service.games)
        tour = await tours.open(
            kind="procession",
            format="round-robin",
            guild_id=GUILD,
            channel_id=97,
            host_id=1011,
            host_name="A",
        )
        await tours.join(tour.id, 1012, "B")
        await tours.join(tour.id, 1013, "C")
        await tours.start(tour.id, 1011)
        # A deferred answer owed by a process killed before it answered.
        await storage.note_pending_answer(
            application_id=1, token="t", user_id=1011, locale="de", asked="/game mine", holder="h", now=1.0
        )
        # Due work claimed by a process (a game's outbox lease, a computer's wait), as when it stopped.
        live = [w for w in await storage.due_waits(now=10**10) if w.game_id != cancelled.game.id]
        assert await storage.claim_wait(
            game_id=live[0].game_id, seat=live[0].seat, holder="shard 0", now=1.0, until=2.0
        )
        leased = await storage.claim_outbox(game_id=live[0].game_id, holder="shard 0", now=1.0, expires=2.0)
        assert leased is not None
        # The outbox: most items done (deleted), so AUTOINCREMENT's high-water mark is above the last id.
        pending = await storage.pending_effects(now=10**10)
        for item in pending[:-2]:
            await storage.complete_effect(item_id=item.id)
        done = await storage.add_effects(game_id=lobby.id, effects=[Effect("late", {"n": 1})])
        await storage.complete_effect(item_id=done[0].id)
        facts = {
            "high_water": done[0].id,
            "max_game": int(query(path, "SELECT MAX(id) FROM games")[0][0]),
            "games": int(query(path, "SELECT COUNT(*) FROM games")[0][0]),
        }
    finally:
        await storage.close()
    for table in TABLES:
        assert query(path, f"SELECT COUNT(*) FROM {table}")[0][0] > 0, f"the source fills {table}"
    return facts


@pytest.fixture
async def source(tmp_path: Path) -> tuple[str, dict[str, int]]:
    path = str(tmp_path / "source.sqlite3")
    return path, await build_source(path)


async def test_the_test_source_fills_every_table_the_migrations_make(tmp_path: Path) -> None:
    path = str(tmp_path / "empty.sqlite3")
    await (await Storage.open(path)).close()
    with closing(sqlite3.connect(path)) as conn:
        made = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert made - {"sqlite_sequence"} == set(TABLES)


# ---- the copy -----------------------------------------------------------------------------------------


async def test_everything_is_copied_verified_and_new_ids_are_fresh(
    source: tuple[str, dict[str, int]], pg_url: str
) -> None:
    path, facts = source
    said: list[str] = []
    done = await migrate(path, pg_url, progress=said.append)

    assert not done.upgraded and done.schema_version == len(MIGRATIONS)
    assert {name for name, _ in done.copied.tables} == set(TABLES)
    order = [name for name, _ in done.copied.tables]
    assert order.index("games") < min(order.index(t) for t in ("seats", "moves", "outbox", "results"))
    for table, count in done.copied.tables:
        in_source, in_target = ordered_rows(path, pg_url, table)
        assert len(in_source) == count
        assert in_target == in_source, table  # every row, every column, the same values and types
    assert done.verified.games == facts["games"] == len(query(path, "SELECT id FROM games"))
    assert done.verified.moves == query(path, "SELECT COUNT(*) FROM moves")[0][0] > 0
    assert done.verified.tables == len(TABLES)
    assert any(line.strip().startswith("moves") for line in said)

    storage = await Storage.open(pg_url)  # the bot's own start on the copy: nothing to migrate, nothing to do
    try:
        assert await storage.schema_version() == len(MIGRATIONS)
        assert query(pg_url, "SELECT version FROM schema_version") == [(len(MIGRATIONS),)]
        # The games read back as the bot reads them, and replay to their state with the service.
        sqlite_storage = await Storage.open(path)
        try:
            for (game_id,) in query(path, "SELECT id FROM games"):
                row = await storage.get_game(game_id=game_id)
                assert row == await sqlite_storage.get_game(game_id=game_id)
                if row.state is not None:
                    replayed = await Services.build(storage, RULES).history.replay(game_id)
                    assert replayed.to_dict() == row.state
            assert await storage.pending_effects(now=10**10) == await sqlite_storage.pending_effects(
                now=10**10
            )
        finally:
            await sqlite_storage.close()
        # New rows get fresh ids: past the largest game id, past every outbox id ever given.
        service = Services.build(storage, RULES)
        fresh = await new_game(service, "procession", 5000, 2)
        assert fresh.game.id == facts["max_game"] + 1
        items = await storage.add_effects(game_id=fresh.game.id, effects=[Effect("after", {})])
        assert items[0].id == facts["high_water"] + 1
        await play_random(service, fresh.game.id, random.Random(1), 1)
        assert query(pg_url, "SELECT COUNT(*) FROM moves WHERE game_id = ?", (fresh.game.id,)) == [(1,)]
        assert await storage.add_typed_reply(user_id=42, text="x") > max(
            r[0] for r in query(path, "SELECT id FROM typed_replies")
        )
        await play_random(service, fresh.game.id, random.Random(2), None)  # and it finishes, rated
        assert query(pg_url, "SELECT COUNT(*) FROM finished_games WHERE game_id = ?", (fresh.game.id,)) == [
            (1,)
        ]
    finally:
        await storage.close()


def schema_of(url: str) -> list[list[tuple[Any, ...]]]:
    """A PostgreSQL database's schema as its catalogue describes it: columns, constraints, indexes."""
    return [
        query(
            url,
            "SELECT table_name, column_name, data_type, is_nullable, column_default, is_identity "
            "FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY 1, 2",
        ),
        query(
            url,
            "SELECT c.conrelid::regclass::text, c.conname::text, pg_get_constraintdef(c.oid) "
            "FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace "
            "WHERE n.nspname = current_schema() ORDER BY 1, 2",
        ),
        query(
            url,
            "SELECT tablename::text, indexname::text, indexdef FROM pg_indexes "
            "WHERE schemaname = current_schema() ORDER BY 1, 2",
        ),
    ]


async def test_the_copy_s_schema_is_the_migrations_own(
    source: tuple[str, dict[str, int]], pg_url: str, postgres_server: PostgresServer
) -> None:
    """Foreign keys are taken off during the copy: they are back, the same, and so is everything else."""
    path, _ = source
    await migrate(path, pg_url)
    fresh = await postgres_server.new_database()
    try:
        await (await PostgresDriver.open(fresh, migrations=MIGRATIONS)).close()
        assert schema_of(pg_url) == schema_of(fresh)
        assert len([c for c in schema_of(fresh)[1] if "FOREIGN KEY" in c[2]]) >= 8
    finally:
        await postgres_server.drop_database(fresh)


async def test_the_source_is_never_written(source: tuple[str, dict[str, int]], pg_url: str) -> None:
    path, _ = source
    before = {t: rows_of(path, t) for t in TABLES}
    stamp = os.stat(path).st_mtime_ns
    await migrate(path, pg_url)
    assert {t: rows_of(path, t) for t in TABLES} == before
    assert os.stat(path).st_mtime_ns == stamp


# ---- verification -------------------------------------------------------------------------------------


async def _verify(path: str, url: str) -> None:
    source_db, found, _ = await open_source(path)
    target = await PostgresDriver.open(url)
    try:
        await verify(source_db, target, found.tables)
    finally:
        await target.close()
        await source_db.close()


async def test_a_tampered_copy_does_not_verify(source: tuple[str, dict[str, int]], pg_url: str) -> None:
    path, _ = source
    await migrate(path, pg_url)
    await _verify(path, pg_url)  # as copied: verifies

    # A move changed in the target: its game no longer replays to its stored state.
    game_id, seq, action = query(
        pg_url,
        "SELECT m.game_id, m.seq, m.action FROM moves m JOIN games g ON g.id = m.game_id "
        "WHERE g.kind = 'updown' AND g.status = 'finished' ORDER BY m.game_id, m.seq LIMIT 1",
    )[0]
    other = query(
        pg_url,
        "SELECT action FROM moves WHERE game_id = ? AND action <> ? ORDER BY seq LIMIT 1",
        (game_id, action),
    )[0][0]
    query(pg_url, "UPDATE moves SET action = ? WHERE game_id = ? AND seq = ?", (other, game_id, seq))
    with pytest.raises(NotVerified) as caught:
        await _verify(path, pg_url)
    assert caught.value.problems[0].startswith(f"game #{game_id} (updown, finished): ")
    moves = query(path, "SELECT COUNT(*) FROM moves")[0][0]
    assert caught.value.problems[1:] == (
        f"table moves: its rows differ from the source's (the same count, {moves:,})",
    )
    assert caught.value.count == 2 and not caught.value.faithful
    query(pg_url, "UPDATE moves SET action = ? WHERE game_id = ? AND seq = ?", (action, game_id, seq))

    # The last move of a game being played deleted: its version no longer counts its moves right, or its
    # state no longer replays; and the table is a row short.
    live, last = query(
        pg_url, "SELECT game_id, MAX(seq) FROM moves GROUP BY game_id ORDER BY game_id DESC LIMIT 1"
    )[0]
    query(pg_url, "DELETE FROM moves WHERE game_id = ? AND seq = ?", (live, last))
    with pytest.raises(NotVerified) as caught:
        await _verify(path, pg_url)
    assert caught.value.problems[0].startswith(f"game #{live} ")
    assert "another state than the stored one" in caught.value.problems[0]
    assert any(p.startswith("table moves: ") and " in the source" in p for p in caught.value.problems)

    # A table the replay does not read: a rating's value changed is caught by the rows' digest.
    query(pg_url, "INSERT INTO moves VALUES (?, ?, ?, ?, ?)", (live, last, *query(
        path, "SELECT seat, action, created_at FROM moves WHERE game_id = ? AND seq = ?", (live, last)
    )[0]))  # fmt: skip
    await _verify(path, pg_url)
    query(
        pg_url, "UPDATE ratings SET mu = mu + 0.000001 WHERE player_id = (SELECT MIN(player_id) FROM ratings)"
    )
    with pytest.raises(NotVerified) as caught:
        await _verify(path, pg_url)
    assert "table ratings: its rows differ from the source's (the same count, " in " ".join(
        caught.value.problems
    )


async def test_rows_that_paging_cannot_reach_are_named(tmp_path: Path) -> None:
    """SQLite lets a TEXT primary key hold NULL, which reading in key order cannot page past: the
    counts the databases give are compared with the rows read, so no row is missed silently. (Any two
    drivers can be compared: here a SQLite file and its copy.)"""
    path = tmp_path / "nulls.sqlite3"
    await (await Storage.open(str(path))).close()
    query(str(path), "INSERT INTO meta (key, value) VALUES (NULL, 'y'), ('a', 'x')")
    twin = tmp_path / "twin.sqlite3"
    await asyncio.to_thread(shutil.copyfile, path, twin)
    source_db, found, _ = await open_source(str(path))
    target_db = await SqliteDriver.open(str(twin), readonly=True)
    try:
        await verify(source_db, target_db, found.tables, page_rows=2)  # one page holds both: fine
        with pytest.raises(NotVerified) as caught:
            await verify(source_db, target_db, found.tables, page_rows=1)
        assert caught.value.problems == (
            "table meta: 1 of its 2 rows in the source could be read in key order",
        )
    finally:
        await target_db.close()
        await source_db.close()


# ---- refusals: nothing written ------------------------------------------------------------------------


def pg_tables(url: str) -> list[str]:
    return [
        r[0]
        for r in query(
            url,
            "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() "
            "ORDER BY table_name",
        )
    ]


async def test_a_target_holding_data_is_refused_and_left_as_it_was(
    source: tuple[str, dict[str, int]], pg_url: str
) -> None:
    path, _ = source
    await migrate(path, pg_url)
    before = {t: rows_of(pg_url, t) for t in TABLES}
    games = query(path, "SELECT COUNT(*) FROM games")[0][0]
    with pytest.raises(
        Refused,
        match=rf"^The target database is not empty: it holds {games} games \(and rows in {len(TABLES) - 2} ",
    ):
        await migrate(path, pg_url)
    assert {t: rows_of(pg_url, t) for t in TABLES} == before


async def test_a_refused_target_leaves_an_old_source_as_it_was(tmp_path: Path, pg_url: str) -> None:
    path = str(tmp_path / "old.sqlite3")
    await (await SqliteDriver.open(path, migrations=MIGRATIONS[:7])).close()
    storage = await Storage.open(pg_url)
    await storage.set_user_setting(user_id=1, key="notify", value="dm")
    await storage.close()
    with pytest.raises(Refused, match=r"it holds rows in user_settings\."):
        await migrate(path, pg_url)
    assert query(path, "PRAGMA user_version") == [(7,)]  # looked at the target first: not upgraded


async def test_a_target_with_settings_but_no_games_is_refused_too(
    source: tuple[str, dict[str, int]], pg_url: str
) -> None:
    path, _ = source
    storage = await Storage.open(pg_url)
    await storage.set_guild_setting(guild_id=1, key="threads", value=1)
    await storage.close()
    with pytest.raises(
        Refused, match=r"it holds rows in guild_settings\. Migrate into a new, empty database"
    ):
        await migrate(path, pg_url)
    assert query(pg_url, "SELECT guild_id, threads FROM guild_settings") == [(1, 1)]


async def test_a_target_a_bot_started_on_is_accepted_and_its_bookkeeping_replaced(
    source: tuple[str, dict[str, int]], pg_url: str
) -> None:
    path, _ = source
    storage = await Storage.open(pg_url)  # a bot started on the empty database, then stopped
    await storage.set_meta(key="synced:global", value="the target's own")
    await storage.close()
    await migrate(path, pg_url)
    assert rows_of(pg_url, "meta") == rows_of(path, "meta")


async def test_a_target_at_a_newer_schema_is_refused(source: tuple[str, dict[str, int]], pg_url: str) -> None:
    path, _ = source
    newer = [*MIGRATIONS, "CREATE TABLE later (id INTEGER PRIMARY KEY)"]
    await (await PostgresDriver.open(pg_url, migrations=newer)).close()
    with pytest.raises(Refused, match=rf"schema version {len(MIGRATIONS) + 1}, made by a newer quetbot"):
        await migrate(path, pg_url)
    assert query(pg_url, "SELECT COUNT(*) FROM games") == [(0,)]


async def test_a_copy_that_fails_midway_is_rolled_back_schema_and_all(tmp_path: Path, pg_url: str) -> None:
    path = str(tmp_path / "odd.sqlite3")
    await build_source(path)
    # SQLite keeps whatever it is given; PostgreSQL will not take text in a BIGINT column.
    query(path, "UPDATE waits SET reminded = 'not a number'")
    with pytest.raises(StorageError, match="The copy failed while copying waits and was rolled back"):
        await migrate(path, pg_url)
    assert pg_tables(pg_url) == []  # not even the schema: the migrations were in the same transaction


async def test_rows_pointing_nowhere_fail_the_copy_which_is_rolled_back(tmp_path: Path, pg_url: str) -> None:
    path = str(tmp_path / "orphans.sqlite3")
    await build_source(path)
    query(path, "INSERT INTO seats VALUES (424242, 0, 1, 'Nobody')")  # (sqlite3 alone: no key checks)
    with pytest.raises(StorageError, match="failed while checking the foreign keys and was rolled back"):
        await migrate(path, pg_url)
    assert pg_tables(pg_url) == []


async def test_sources_that_are_not_quetbot_databases_are_refused(tmp_path: Path, pg_url: str) -> None:
    missing = tmp_path / "missing.sqlite3"
    with pytest.raises(Refused, match=r"missing\.sqlite3 does not exist"):
        await migrate(str(missing), pg_url)
    assert not missing.exists()  # not created either
    text = tmp_path / "notes.txt"
    text.write_text("hello, this is not a database " * 100)
    with pytest.raises(Refused, match=r"notes.txt is not a SQLite database \("):
        await migrate(str(text), pg_url)
    other = tmp_path / "other.sqlite3"
    with closing(sqlite3.connect(other)) as conn, conn:
        conn.execute("CREATE TABLE things (id INTEGER PRIMARY KEY)")
    with pytest.raises(Refused, match=r"other\.sqlite3 is not a quetbot database: it has no games table"):
        await migrate(str(other), pg_url)
    assert pg_tables(pg_url) == []


async def test_a_newer_source_is_refused_and_left_alone(tmp_path: Path, pg_url: str) -> None:
    path = str(tmp_path / "newer.sqlite3")
    await build_source(path)
    query(path, f"PRAGMA user_version = {len(MIGRATIONS) + 1}")
    with pytest.raises(
        Refused, match=rf"newer.sqlite3 is at schema version {len(MIGRATIONS) + 1}, made by a newer"
    ):
        await migrate(path, pg_url)
    assert query(path, "PRAGMA user_version") == [(len(MIGRATIONS) + 1,)]
    assert pg_tables(pg_url) == []


async def test_an_older_source_is_upgraded_first_as_the_bot_would_then_copied(
    tmp_path: Path, pg_url: str
) -> None:
    """A database of a bot from before the memory (migration 8): upgraded in place, copied with the
    migration's mark, and the target's first start records the games it finished."""
    path = str(tmp_path / "old.sqlite3")
    old = await SqliteDriver.open(path, migrations=MIGRATIONS[:7])
    await old.close()
    # Its one finished game, written as that bot wrote it: played out with the rules.
    rules = RULES["procession"]
    state = rules.new_game(2, {"n": 4}, 11)
    log = []
    rng = random.Random(3)
    while rules.outcome(state) is None:
        seat = min(rules.to_act(state))
        action = rng.choice(list(rules.legal_actions(state, seat)))
        state = rules.apply(state, seat, action)
        log.append((seat, action))
    outcome = rules.outcome(state)
    assert outcome is not None
    query(
        path,
        "INSERT INTO games (id, kind, guild_id, channel_id, place_id, status, host_id, options, seed, "
        "state, result, version, created_at, updated_at) "
        "VALUES (1, 'procession', 5, 6, 6, 'finished', 1, ?, 11, ?, ?, ?, 100.0, 200.0)",
        ('{"n":4}', json.dumps(state.to_dict()), json.dumps(outcome.to_dict()), len(log) + 3),
    )
    for position, user in enumerate((1, 2)):
        query(path, "INSERT INTO seats VALUES (1, ?, ?, ?)", (position, user, f"P{user}"))
    for seq, (seat, action) in enumerate(log, start=1):
        query(path, "INSERT INTO moves VALUES (1, ?, ?, ?, ?)", (seq, seat, json.dumps(action), 100.0 + seq))

    said: list[str] = []
    done = await migrate(path, pg_url, progress=said.append)
    assert done.upgraded and done.source_version == 7 and done.schema_version == len(MIGRATIONS)
    assert said[0] == (
        f"Upgraded {path} from schema version 7 to {len(MIGRATIONS)} first, as the bot does when it "
        "starts on it."
    )
    assert query(path, "PRAGMA user_version") == [(len(MIGRATIONS),)]
    assert query(pg_url, "SELECT value FROM meta WHERE key = 'records_backfill'") == [("due",)]
    assert done.verified.games == 1 and done.verified.moves == len(log)
    storage = await Storage.open(pg_url)  # the first start on the copy records the finished game
    try:
        assert [r.game_id for r in (await storage.history(guild_id=5, player_id=1)).games] == [1]
    finally:
        await storage.close()


# ---- the command line ---------------------------------------------------------------------------------


def run_main(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as done:
        main(args)
    out, err = capsys.readouterr()
    code = done.value.code
    return (code if isinstance(code, int) else 1), out, err


def test_quetbot_migrate_copies_verifies_and_says_so(
    tmp_path: Path, sync_pg_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = str(tmp_path / "bot.sqlite3")
    asyncio.run(build_source(path))
    code, out, err = run_main(["migrate", "--from", path, "--to", sync_pg_url], capsys)
    assert code == 0 and err == ""
    assert f"Copying {path} into {sync_pg_url}, in one transaction:" in out
    for table in TABLES:
        count = query(path, f"SELECT COUNT(*) FROM {table}")[0][0]
        assert f"  {table:<20} {count:>12,} row{'' if count == 1 else 's'}\n" in out
    games = query(path, "SELECT COUNT(*) FROM games")[0][0]
    assert re.search(rf"^Verified in [0-9.]+ s: {games} games replayed from their move logs", out, re.M)
    assert out.rstrip().endswith("Point QUETBOT_DB at the PostgreSQL database to use it.")

    # Again: the target holds the copy now. One line, status 2, nothing written.
    code, out, err = run_main(["migrate", "--from", f"sqlite:///{path}", "--to", sync_pg_url], capsys)
    assert code == 2 and out == ""
    assert err == (
        f"quetbot: The target database is not empty: it holds {games} games (and rows in "
        f"{len(TABLES) - 2} other tables). "
        "Migrate into a new, empty database (createdb); nothing was written.\n"
    )


def test_quetbot_migrate_fails_with_status_1_when_the_copy_does_not_verify(
    tmp_path: Path, sync_pg_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A source whose game was changed behind the bot's back: copied faithfully, but it does not
    replay, and the command says which game and fails."""
    path = str(tmp_path / "bot.sqlite3")
    asyncio.run(build_source(path))
    game_id = query(path, "SELECT MIN(id) FROM games WHERE kind = 'dots' AND status = 'finished'")[0][0]
    query(path, "DELETE FROM moves WHERE game_id = ? AND seq = 1", (game_id,))
    code, _, err = run_main(["migrate", "--from", path, "--to", sync_pg_url], capsys)
    assert code == 1
    lines = err.splitlines()
    assert lines[0] == "quetbot: the copy does not verify (1 problem):"
    assert lines[1].startswith(f"  game #{game_id} (dots, finished): its move log is not numbered 1 to ")
    assert lines[2:] == [
        "Every table holds the same rows as the source's: the copy is faithful, and these games do not "
        "replay in the source either (changed outside the bot?).",
        "The target keeps the copy: drop the target database (dropdb, createdb) before migrating again.",
    ]


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["migrate"], "the following arguments are required: --from, --to"),
        (["migrate", "--from", "a.db"], "the following arguments are required: --to"),
        (["migrate", "--from", "a.db", "--to", "b.db"], "--to must be a PostgreSQL URL (postgresql://...)"),
        (["migrate", "--from", "postgresql://h/db", "--to", "postgresql://h/db2"], "--from must be a SQLite"),
        (["migrate", "--from", "mysql://h/db", "--to", "postgresql://h/db"], "Unknown database URL mysql://"),
        (
            ["migrate", "--from", "a.db", "--to", "postgresql://h/db", "--shards", "1"],
            "unrecognized arguments",
        ),
    ],
)
def test_bad_migrate_arguments_are_one_line_and_status_2(
    args: list[str], named: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_main(args, capsys)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("quetbot") and named in err, err


def test_migrate_from_a_missing_file_is_one_line_and_status_2(
    tmp_path: Path, sync_pg_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "nope.db"
    code, out, err = run_main(["migrate", "--from", str(missing), "--to", sync_pg_url], capsys)
    assert (code, out) == (2, "")
    assert (
        err == f"quetbot: {missing} does not exist (or is not a file): give the bot's SQLite database file.\n"
    )
    assert not missing.exists()


def test_help_names_the_migrate_command(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(["--help"], capsys)
    assert code == 0 and "quetbot migrate --from FILE --to URL" in out and "--shard-count N" in out
    code, out, _ = run_main(["migrate", "--help"], capsys)
    assert code == 0 and "--from FILE" in out and "--to URL" in out
