"""Backups (bot/storage/backup.py, ``quetbot backup --to PATH``): a SQLite or PostgreSQL database with
games of every kind, finished and being played, copied into a SQLite file that holds the same rows;
a backup taken while moves are committed is consistent and verifies; a database whose state no longer
replays makes the backup fail and leaves no file; the backup restores (``QUETBOT_DB`` pointed at it,
or migrated into PostgreSQL) to a bot that goes on with a game; the command line."""

from __future__ import annotations

import asyncio
import os
import random
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from bot.registry import RULES, SCORE_RANKED
from bot.service import Services
from bot.storage import MIGRATIONS, Storage
from bot.storage.backup import NotVerified, Refused, backup
from bot.storage.rows import Effect
from bot.storage.transfer import migrate
from tests.db import query
from tests.unit.test_transfer import TABLES, build_source, new_game, ordered_rows, play_random, run_main

pytestmark = pytest.mark.both_dbs


def files_in(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def assert_same_rows(copy: str, database: str) -> None:
    for table in TABLES:
        in_copy, in_database = ordered_rows(copy, database, table)
        assert in_copy == in_database, table


def corrupt_a_finished_game(database: str) -> int:
    """A move of a finished game changed (another legal-looking action of the same game): the game no
    longer replays to its stored state. Answers the game's id."""
    game_id, seq, action = query(
        database,
        "SELECT m.game_id, m.seq, m.action FROM moves m JOIN games g ON g.id = m.game_id "
        "WHERE g.kind = 'updown' AND g.status = 'finished' ORDER BY m.game_id, m.seq LIMIT 1",
    )[0]
    other = query(
        database,
        "SELECT action FROM moves WHERE game_id = ? AND action <> ? ORDER BY seq LIMIT 1",
        (game_id, action),
    )[0][0]
    query(database, "UPDATE moves SET action = ? WHERE game_id = ? AND seq = ?", (other, game_id, seq))
    return int(game_id)


# ---- the copy -----------------------------------------------------------------------------------------


async def test_a_backup_holds_every_row_and_verifies(database: str, tmp_path: Path) -> None:
    facts = await build_source(database)
    folder = tmp_path / "backups"
    folder.mkdir()
    target = folder / "quetbot.sqlite3"
    done = await backup(database, str(target))

    assert done.path == str(target) and files_in(folder) == ["quetbot.sqlite3"]  # nothing else left
    assert done.schema_version == len(MIGRATIONS) == query(str(target), "PRAGMA user_version")[0][0]
    assert {name for name, _ in done.tables} == set(TABLES)
    assert done.verified.games == facts["games"]
    assert done.verified.moves == query(database, "SELECT COUNT(*) FROM moves")[0][0] > 0
    assert done.verified.tables == len(TABLES) and done.verified.rows == done.rows
    assert_same_rows(str(target), database)
    # One self-contained file: no WAL beside it; and an outbox id is never handed out twice.
    assert query(str(target), "PRAGMA journal_mode") == [("delete",)]
    (mark,) = query(str(target), "SELECT seq FROM sqlite_sequence WHERE name = 'outbox'")[0]
    assert mark >= facts["high_water"]
    with closing(sqlite3.connect(target)) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]


async def test_a_backup_taken_while_moves_are_committed_is_consistent(database: str, tmp_path: Path) -> None:
    """The bot keeps playing (SQLite: in this event loop, its own thread writing while the backup
    reads; PostgreSQL: its own connections committing): the copy is one moment of the database."""
    storage = await Storage.open(database, score_ranked=SCORE_RANKED)
    service = Services.build(storage, RULES)
    rng = random.Random(3)
    try:
        games = [await new_game(service, kind, 20 + i, 2) for i, kind in enumerate(sorted(RULES))]
        for started in games:
            await play_random(service, started.game.id, rng, 2)
        stop = asyncio.Event()
        played = 0

        async def keep_playing() -> None:
            nonlocal played
            channel = 100
            while not stop.is_set():
                for started in list(games):
                    if not (await service.games.get(started.game.id)).row.live:
                        channel += 1
                        games.remove(started)
                        games.append(await new_game(service, started.game.row.kind, channel, 2))
                        continue
                    played += await play_random(service, started.game.id, rng, 1)
                await asyncio.sleep(0)

        before = query(database, "SELECT COUNT(*) FROM moves")[0][0]
        player = asyncio.create_task(keep_playing())
        try:
            while played < 5:  # noqa: ASYNC110 (the player counts; nothing to wait on)
                await asyncio.sleep(0.01)
            at_start = played
            taken = []
            for n in range(3):
                target = tmp_path / f"during-{n}.sqlite3"
                taken.append((await backup(database, str(target)), target))
            at_end = played
        finally:
            stop.set()
            await player
        assert at_end > at_start  # moves were committed while the backups were taken
        after = query(database, "SELECT COUNT(*) FROM moves")[0][0]
        for done, target in taken:
            moves = query(str(target), "SELECT COUNT(*) FROM moves")[0][0]
            assert before <= moves <= after and done.verified.moves == moves
            # Consistent: each game's stored state is its logged moves replayed (as verified), and
            # no move is logged for a game the copy lacks.
            orphans = "SELECT COUNT(*) FROM moves WHERE game_id NOT IN (SELECT id FROM games)"
            assert query(str(target), orphans) == [(0,)]
    finally:
        await storage.close()


# ---- failures leave nothing -----------------------------------------------------------------------------


async def test_a_state_that_does_not_replay_fails_the_backup_and_leaves_no_file(
    database: str, tmp_path: Path
) -> None:
    await build_source(database)
    game_id = corrupt_a_finished_game(database)
    folder = tmp_path / "backups"
    folder.mkdir()
    with pytest.raises(NotVerified) as caught:
        await backup(database, str(folder / "b.sqlite3"))
    assert caught.value.problems[0].startswith(f"game #{game_id} (updown, finished): ")
    assert caught.value.count == 1 and caught.value.faithful  # the copy is the database's: it is wrong
    assert files_in(folder) == []


async def test_an_existing_file_is_kept_unless_forced(database: str, tmp_path: Path) -> None:
    await build_source(database)
    target = tmp_path / "b.sqlite3"
    target.write_bytes(b"an older backup")
    with pytest.raises(Refused, match=r"exists: give a new path, or --force to replace it\.$"):
        await backup(database, str(target))
    assert target.read_bytes() == b"an older backup"
    corrupt_a_finished_game(database)
    with pytest.raises(NotVerified):
        await backup(database, str(target), force=True)
    assert target.read_bytes() == b"an older backup"
    assert [n for n in files_in(tmp_path) if n.startswith(".b.sqlite3")] == []  # no temporary file left


@pytest.mark.sqlite_only
async def test_refusals_write_nothing(tmp_path: Path) -> None:
    missing = tmp_path / "nope.sqlite3"
    with pytest.raises(Refused, match="does not exist"):
        await backup(str(missing), str(tmp_path / "b.sqlite3"))
    assert files_in(tmp_path) == []  # the database is not created either
    source = tmp_path / "db.sqlite3"
    await (await Storage.open(str(source), score_ranked=SCORE_RANKED)).close()
    for to, named in (
        (source, "is the database itself"),
        (tmp_path / "no folder" / "b.sqlite3", "is not a folder"),
        (tmp_path, "is a folder"),
        ("postgresql://h/db", "must be a file path"),
    ):
        with pytest.raises(Refused, match=named):
            await backup(str(source), str(to), force=True)
    not_ours = tmp_path / "other.sqlite3"
    with closing(sqlite3.connect(not_ours)) as conn:
        conn.execute("CREATE TABLE t (x)")
    with pytest.raises(Refused, match="not a quetbot database"):
        await backup(str(not_ours), str(tmp_path / "b.sqlite3"))
    assert "b.sqlite3" not in files_in(tmp_path)


# ---- restoring ----------------------------------------------------------------------------------------


async def test_a_backup_taken_mid_game_restores_to_a_bot_that_goes_on(database: str, tmp_path: Path) -> None:
    facts = await build_source(database)
    storage = await Storage.open(database, score_ranked=SCORE_RANKED)
    try:
        live = await new_game(Services.build(storage, RULES), "procession", 500, 2)
        await play_random(Services.build(storage, RULES), live.game.id, random.Random(5), 3)
        at_backup = (await Services.build(storage, RULES).games.get(live.game.id)).row
        target = tmp_path / "b.sqlite3"
        await backup(database, str(target))
        await play_random(Services.build(storage, RULES), live.game.id, random.Random(6), 2)  # after it
    finally:
        await storage.close()

    restored = await Storage.open(str(target), score_ranked=SCORE_RANKED)  # QUETBOT_DB=the file
    try:
        service = Services.build(restored, RULES)
        game = await service.games.get(live.game.id)
        assert game.row.live and game.row == at_backup  # as backed up, not as it went on after
        assert (await service.history.replay(live.game.id)).to_dict() == game.row.state
        assert await play_random(service, live.game.id, random.Random(7), 1) == 1
        assert (await service.games.get(live.game.id)).row.version == at_backup.version + 1
        await play_random(service, live.game.id, random.Random(8), None)
        assert (await service.games.get(live.game.id)).row.status == "finished"
        assert query(
            str(target), "SELECT COUNT(*) FROM finished_games WHERE game_id = ?", (live.game.id,)
        ) == [(1,)]
        # New rows get fresh ids: no outbox id is given twice.
        items = await restored.add_effects(game_id=live.game.id, effects=[Effect("after", {})])
        assert items[0].id > facts["high_water"]
    finally:
        await restored.close()


async def test_a_backup_migrates_into_postgresql(database: str, tmp_path: Path, pg_url: str) -> None:
    await build_source(database)
    target = tmp_path / "b.sqlite3"
    await backup(database, str(target))
    done = await migrate(str(target), pg_url)
    assert done.verified.games == query(database, "SELECT COUNT(*) FROM games")[0][0]
    assert_same_rows(str(target), pg_url)


# ---- the command line ---------------------------------------------------------------------------------


@pytest.mark.sqlite_only
def test_quetbot_backup_writes_verifies_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "bot.sqlite3"
    facts = asyncio.run(build_source(str(source)))
    moves = query(str(source), "SELECT COUNT(*) FROM moves")[0][0]
    monkeypatch.chdir(tmp_path)  # (no .env here)
    monkeypatch.setenv("QUETBOT_DB", str(source))  # the bot's own setting is the default source
    target = tmp_path / "b.sqlite3"
    code, out, err = run_main(["backup", "--to", str(target)], capsys)
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith(f"Backed up {source} to {target} (SQLite online backup): schema version ")
    assert f"verified: {facts['games']} games replay to their stored states ({moves:,} moves)" in lines[1]
    assert_same_rows(str(target), str(source))

    code, out, err = run_main(["backup", "--to", str(target)], capsys)
    assert (code, out) == (
        2,
        "",
    ) and err == f"quetbot: {target} exists: give a new path, or --force to replace it.\n"
    code, out, err = run_main(["backup", "--from", str(source), "--to", str(target), "--force"], capsys)
    assert code == 0 and "games replay to their stored states" in out

    corrupt_a_finished_game(str(source))
    elsewhere = tmp_path / "c.sqlite3"
    code, out, err = run_main(["backup", "--to", str(elsewhere)], capsys)
    assert code == 1 and out == ""
    assert err.startswith("quetbot: the backup does not verify (1 problem):\n  game #")
    assert err.endswith(f"Nothing was written to {elsewhere}.\n") and not elsewhere.exists()


def test_quetbot_backup_refusals_are_one_line_and_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for args, named in (
        (["backup"], "the following arguments are required: --to"),
        (["backup", "--to", "b.db", "--from", "mysql://h/db"], "Unknown database URL mysql://"),
        (["backup", "--to", str(tmp_path / "b.db"), "--from", str(tmp_path / "nope.db")], "does not exist"),
        (
            ["backup", "--to", str(tmp_path / "b.db"), "--from", "postgresql://nobody@127.0.0.1:1/none"],
            "Cannot open the database postgresql://nobody@127.0.0.1:1/none",
        ),
    ):
        code, out, err = run_main(args, capsys)
        assert code == 2 and out == "", args
        assert err.count("\n") == 1 and err.startswith("quetbot") and named in err, err
    assert files_in(tmp_path) == []


def test_help_names_the_backup_command(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_main(["--help"], capsys)
    assert code == 0 and "quetbot backup --to PATH" in " ".join(out.split())
    code, out, _ = run_main(["backup", "--help"], capsys)
    assert code == 0 and "--to PATH" in out and "--force" in out and "QUETBOT_DB" in out


def test_the_sqlite_source_is_never_written(tmp_path: Path) -> None:
    source = tmp_path / "bot.sqlite3"
    asyncio.run(build_source(str(source)))
    stamp = os.stat(source).st_mtime_ns
    before = {t: query(str(source), f"SELECT * FROM {t}") for t in TABLES}
    asyncio.run(backup(str(source), str(tmp_path / "b.sqlite3")))
    assert os.stat(source).st_mtime_ns == stamp
    assert {t: query(str(source), f"SELECT * FROM {t}") for t in TABLES} == before
