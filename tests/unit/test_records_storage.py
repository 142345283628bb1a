"""The memory's storage (bot/storage/records.py): what a finishing move records, in its own
transaction; the kept ratings against the recompute; the backfill of older games; the reads behind
/game leaderboard, stats and history."""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
import random
import sqlite3
import time
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from bot.memory.ratings import Rating, recompute, shown
from bot.players.seats import computer_id, computer_name
from bot.registry import SCORE_RANKED
from bot.storage import MIGRATIONS, GameRow, StaleVersion, Storage, records
from bot.storage.driver import fetch
from bot.storage.sqlite import SqliteDriver

ANN, BEA, CY, DI = 11, 12, 13, 14
NAMES = {ANN: "Ann", BEA: "Bea", CY: "Cy", DI: "Di"}

# The tests taking `database` run on SQLite and on PostgreSQL (tests/conftest.py).
pytestmark = pytest.mark.both_dbs


class Clock:
    """time.time for the storage: moves one second per reading unless told otherwise."""

    def __init__(self, start: float = 1_750_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        self.now += 1.0
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    fake = Clock()
    monkeypatch.setattr(time, "time", fake)
    return fake


@pytest.fixture
async def storage(database: str, clock: Clock) -> AsyncIterator[Storage]:
    storage = await Storage.open(database, score_ranked=SCORE_RANKED)
    yield storage
    await storage.close()


def name_of(user_id: int) -> str:
    return computer_name(user_id) if user_id < 0 else NAMES.get(user_id, f"P{user_id}")


async def finish_game(
    storage: Storage,
    seats: Sequence[int],
    result: dict[str, Any],
    *,
    kind: str = "dots",
    guild_id: int | None = 1,
    forfeits: Sequence[int] = (),
    last_forfeits: bool = False,
    pause: Callable[[], None] | None = None,
) -> GameRow:
    """A game of ``seats`` played to ``result`` through the storage as the service does: seat 0 moves,
    ``forfeits`` leave on the way, and the last move (a forfeit when ``last_forfeits``) finishes it."""
    row = (
        await storage.create_lobby(
            kind=kind, guild_id=guild_id, channel_id=500, host_id=seats[0], host_name="x", options={}, seed=1
        )
    ).row
    row = (
        await storage.update_lobby(
            game_id=row.id,
            expected_version=row.version,
            seats=[(u, name_of(u)) for u in seats],
            host_id=seats[0],
        )
    ).row
    row = (await storage.start_game(game_id=row.id, expected_version=row.version, state={}, waiting=[0])).row
    everyone = list(range(len(seats)))
    for seat in forfeits[: len(forfeits) - 1] if last_forfeits else forfeits:
        row = (
            await storage.record_move(
                game_id=row.id,
                expected_version=row.version,
                seat=seat,
                action={"type": "forfeit"},
                state={},
                waiting=everyone,
            )
        ).row
    if pause is not None:
        pause()
    mover, action = (
        (forfeits[-1], {"type": "forfeit", "reason": "timeout"}) if last_forfeits else (0, {"type": "x"})
    )
    written = await storage.record_move(
        game_id=row.id, expected_version=row.version, seat=mover, action=action, state={}, result=result
    )
    return written.row


# ---- what a finished game records ----------------------------------------------------------------------


async def test_a_finishing_move_records_results_and_ratings_in_its_own_transaction(storage: Storage) -> None:
    driver = storage.driver
    row = await finish_game(storage, [ANN, BEA, CY], {"winners": [1], "scores": [3, 9, 5]})
    trips = driver.trips if isinstance(driver, SqliteDriver) else None
    # (the finishing move above was one trip too: here, another game's, counted alone)
    await finish_game(storage, [ANN, BEA], {"winners": [0], "scores": [4, 2]})
    if isinstance(driver, SqliteDriver):  # (PostgreSQL has no thread to count trips to)
        assert driver.trips == trips + 4  # lobby, seats, start, the finishing move with its records
    board = await storage.leaderboard(guild_id=1, kind="dots")
    assert {line.name for line in board} == {"Ann", "Bea", "Cy"}
    by_name = {line.name: line for line in board}
    assert (by_name["Ann"].games, by_name["Ann"].wins) == (2, 1)
    assert (by_name["Bea"].games, by_name["Bea"].wins) == (2, 1)
    assert (by_name["Cy"].games, by_name["Cy"].wins) == (1, 0)
    assert [line.rank for line in board] == sorted(line.rank for line in board)
    assert board == sorted(board, key=lambda line: -line.ordinal)
    page = await storage.history(guild_id=1, player_id=ANN)
    assert page.total == 2 and page.games[-1].game_id == row.id
    first = page.games[-1]
    assert [(s.name, s.place, s.score, s.won) for s in first.seats] == [
        ("Ann", 3, 3, False),
        ("Bea", 1, 9, True),
        ("Cy", 2, 5, False),
    ]
    rivals = await storage.rivals(guild_id=1, player_id=ANN)
    assert [(r.name, r.games, r.wins, r.losses) for r in rivals] == [("Bea", 2, 1, 1), ("Cy", 1, 0, 1)]


async def test_a_game_that_does_not_finish_records_nothing_and_a_stale_move_nothing_either(
    storage: Storage,
) -> None:
    row = (
        await storage.create_lobby(
            kind="dots", guild_id=1, channel_id=5, host_id=ANN, host_name="Ann", options={}, seed=1
        )
    ).row
    row = (
        await storage.update_lobby(
            game_id=row.id, expected_version=row.version, seats=[(ANN, "Ann"), (BEA, "Bea")], host_id=ANN
        )
    ).row
    row = (await storage.start_game(game_id=row.id, expected_version=row.version, state={}, waiting=[0])).row
    row = (
        await storage.record_move(
            game_id=row.id, expected_version=row.version, seat=0, action={"type": "x"}, state={}, waiting=[1]
        )
    ).row
    assert await storage.leaderboard(guild_id=1, kind="dots") == []
    with pytest.raises(StaleVersion):
        await storage.record_move(
            game_id=row.id,
            expected_version=row.version - 1,
            seat=1,
            action={"type": "x"},
            state={},
            result={"winners": [1]},
        )
    assert await storage.leaderboard(guild_id=1, kind="dots") == []
    assert (await storage.get_game(game_id=row.id)).status == "active"


async def test_a_forfeit_places_last_and_a_game_outside_a_server_is_not_recorded(storage: Storage) -> None:
    await finish_game(
        storage, [ANN, BEA, CY], {"winners": [0], "scores": [1, 1, 0]}, forfeits=[1, 2], last_forfeits=True
    )
    page = await storage.history(guild_id=1, player_id=BEA)
    assert [(s.name, s.place, s.forfeited) for s in page.games[0].seats] == [
        ("Ann", 1, False),
        ("Bea", 2, True),
        ("Cy", 2, True),
    ]
    await finish_game(storage, [ANN, BEA], {"winners": [0]}, guild_id=None)
    assert (await storage.history(guild_id=1, player_id=ANN)).total == 1


async def test_time_to_move_is_the_wait_of_each_move(storage: Storage, clock: Clock) -> None:
    def think() -> None:
        clock.now += 30  # Ann thinks 30 s over the finishing move

    await finish_game(storage, [ANN, BEA], {"winners": [0], "scores": [2, 1]}, pause=think)
    (record,) = await storage.player_records(guild_id=1, player_id=ANN)
    assert record.moves == 1 and 30 <= record.move_seconds <= 35
    assert (await storage.player_records(guild_id=1, player_id=BEA))[0].moves == 0
    # The live game's clock is gone with its end.
    assert await storage.driver.read(fetch("SELECT COUNT(*) FROM move_clock")) == [(0,)]


# ---- the kept table is the recompute -------------------------------------------------------------------


async def play_random_games(storage: Storage, rng: random.Random, count: int) -> None:
    people = [ANN, BEA, CY, DI]
    computers = [computer_id(level, k) for level in ("easy", "hard") for k in (1, 2)]
    for _ in range(count):
        seated = rng.sample(people, rng.randint(1, 3)) + rng.sample(computers, rng.randint(0, 2))
        if len(seated) < 2:
            seated.append(computers[rng.randrange(4)])
        rng.shuffle(seated)
        if seated[0] < 0:  # a person hosts
            first = next(i for i, u in enumerate(seated) if u > 0)
            seated[0], seated[first] = seated[first], seated[0]
        n = len(seated)
        kind = rng.choice(("dots", "procession"))
        scores = [rng.randint(0, 3) for _ in range(n)] if kind == "dots" else None
        forfeits = sorted(rng.sample(range(1, n), rng.randint(0, n - 2))) if rng.random() < 0.3 else []
        remaining = [s for s in range(n) if s not in forfeits]
        draw = rng.random() < 0.1
        winners = (
            remaining if draw else rng.sample(remaining, rng.choice((1, 1, 2)) if len(remaining) > 1 else 1)
        )
        result = {"winners": sorted(winners), "scores": scores, "draw": draw, "reason": "r"}
        await finish_game(
            storage,
            seated,
            result,
            kind=kind,
            guild_id=rng.choice((1, 2)),
            forfeits=forfeits,
            last_forfeits=bool(forfeits) and rng.random() < 0.5,
        )


async def test_the_recomputed_table_equals_the_one_kept_game_by_game(storage: Storage) -> None:
    await play_random_games(storage, random.Random(8), 120)
    kept = await storage.rating_table()
    rebuilt = recompute(await storage.recorded_games())
    assert kept == {k: (s.rating.mu, s.rating.sigma, s.games, s.wins) for k, s in rebuilt.items()}
    assert len(kept) > 15
    assert any(player == computer_id("hard", 1) for _, _, player in kept)
    assert not any(player in (computer_id("hard", 2), computer_id("easy", 2)) for _, _, player in kept)
    finished = await storage.recorded_games()
    assert len(finished) == 120
    assert {g.guild_id for g in finished} == {1, 2}


async def test_games_finishing_together_rate_one_after_the_other(storage: Storage) -> None:
    """Games with players in common that finish at the same moment (on PostgreSQL, on connections of
    their own, as in two processes) are rated one after the other: none starts from a rating another
    is replacing, so the kept table is still the recompute, game for game."""
    lineups = [[ANN, BEA], [BEA, CY], [ANN, CY], [CY, ANN, BEA], [DI, ANN], [BEA, DI]]
    for _ in range(3):  # new players (no rating row yet), then known ones
        await asyncio.gather(
            *[
                finish_game(storage, seats, {"winners": [i % len(seats)], "scores": None})
                for i, seats in enumerate(lineups)
            ]
        )
    kept = await storage.rating_table()
    rebuilt = recompute(await storage.recorded_games())
    assert kept == {k: (s.rating.mu, s.rating.sigma, s.games, s.wins) for k, s in rebuilt.items()}
    assert kept[(1, "dots", ANN)][2] == 3 * 4


# ---- the games finished before the memory ----------------------------------------------------------------


def build_v7_database(
    path: Path, games: Sequence[tuple[str, Sequence[int], dict[str, Any], Sequence[int]]]
) -> None:
    """A database as the bot before the memory left it (migrations 1-7), with finished games."""
    db = sqlite3.connect(path, isolation_level=None)
    for migration in MIGRATIONS[:7]:
        for statement in migration.split(";"):
            if statement.strip():
                db.execute(statement)
    db.execute("PRAGMA user_version = 7")
    for game_id, (kind, seats, result, forfeits) in enumerate(games, start=1):
        db.execute(
            "INSERT INTO games (id, kind, guild_id, channel_id, place_id, status, host_id, options, seed, "
            "state, result, version, created_at, updated_at) "
            "VALUES (?, ?, 1, 100, 100, 'finished', ?, '{}', 1, '{}', ?, 5, ?, ?)",
            (game_id, kind, seats[0], json.dumps(result), 10.0 * game_id, 10.0 * game_id + 5),
        )
        db.executemany(
            "INSERT INTO seats (game_id, position, user_id, name) VALUES (?, ?, ?, ?)",
            [(game_id, i, u, name_of(u)) for i, u in enumerate(seats)],
        )
        moves = [(0, '{"type":"x"}')] + [(s, '{"type":"forfeit"}') for s in forfeits] + [(0, '{"type":"x"}')]
        db.executemany(
            "INSERT INTO moves (game_id, seq, seat, action, created_at) VALUES (?, ?, ?, ?, ?)",
            [(game_id, i + 1, s, a, 10.0 * game_id + i) for i, (s, a) in enumerate(moves)],
        )
    db.close()


OLD_GAMES = [
    ("dots", [ANN, BEA, CY], {"winners": [2], "scores": [4, 1, 6]}, []),
    ("dots", [ANN, BEA], {"winners": [0, 1], "scores": [3, 3]}, []),
    ("procession", [BEA, computer_id("hard", 1), computer_id("hard", 2)], {"winners": [1]}, []),
    ("dots", [CY, ANN, BEA], {"winners": [1], "scores": [9, 2, 0]}, [0]),
    ("numbers", [ANN, BEA], {"winners": [0, 1], "scores": [1, 1], "draw": True}, []),
]


async def test_games_finished_before_the_memory_are_recorded_once_at_start(
    tmp_path: Path, clock: Clock
) -> None:
    path = tmp_path / "old.sqlite3"
    build_v7_database(path, OLD_GAMES)
    storage = await Storage.open(str(path), score_ranked=SCORE_RANKED)
    try:
        assert await storage.schema_version() == len(MIGRATIONS)
        assert await storage.get_meta(key="records_backfill") is None
        kept = await storage.rating_table()
        rebuilt = recompute(await storage.recorded_games())
        assert kept == {k: (s.rating.mu, s.rating.sigma, s.games, s.wins) for k, s in rebuilt.items()}
        assert kept[(1, "dots", ANN)][2:] == (3, 2)  # three Dots games: the 3-3 tie is a shared win
        assert kept[(1, "numbers", ANN)][2:] == (1, 0)  # a draw is no win
        assert kept[(1, "procession", computer_id("hard", 1))][2:] == (1, 1)  # two seats, one game
        page = await storage.history(guild_id=1, player_id=CY, kind="dots")
        assert [g.game_id for g in page.games] == [4, 1]
        cy = page.games[0].seats[0]
        assert (cy.name, cy.place, cy.forfeited) == ("Cy", 3, True)
        # Their time to move, from the log: Ann's moves after the first.
        (dots,) = [r for r in await storage.player_records(guild_id=1, player_id=ANN) if r.kind == "dots"]
        assert dots.moves >= 1
    finally:
        await storage.close()
    again = await Storage.open(str(path), score_ranked=SCORE_RANKED)  # nothing is recorded twice
    try:
        assert await again.rating_table() == kept
        assert len(await again.recorded_games()) == len(OLD_GAMES)
    finally:
        await again.close()


async def test_the_backfill_rates_as_the_live_path_would(tmp_path: Path, clock: Clock) -> None:
    path = tmp_path / "old.sqlite3"
    build_v7_database(path, OLD_GAMES)
    old = await Storage.open(str(path), score_ranked=SCORE_RANKED)
    live = await Storage.open(str(tmp_path / "live.sqlite3"), score_ranked=SCORE_RANKED)
    try:
        for kind, seats, result, forfeits in OLD_GAMES:
            await finish_game(live, seats, result, kind=kind, forfeits=forfeits)
        assert await old.rating_table() == await live.rating_table()
    finally:
        await old.close()
        await live.close()


async def test_the_backfill_says_how_far_it_is(
    tmp_path: Path, clock: Clock, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(records, "PROGRESS_EVERY", 2)
    path = tmp_path / "old.sqlite3"
    build_v7_database(path, OLD_GAMES)
    with caplog.at_level(logging.INFO, logger="bot.storage.records"):
        old = await Storage.open(str(path), score_ranked=SCORE_RANKED)
    await old.close()
    said = [r.getMessage() for r in caplog.records if r.name == "bot.storage.records"]
    total = len(OLD_GAMES)
    assert said[0].startswith(f"Recording {total} games finished before the memory existed")
    progress = [m for m in said if m.startswith("Recorded 2 of")]
    assert progress == [f"Recorded 2 of {total} finished games (0 s)"]
    assert said[-1].startswith(f"Recorded the {total} finished games in ")


# ---- the reads behind the commands ---------------------------------------------------------------------


async def test_leaderboards_rank_share_ties_and_keep_servers_apart(storage: Storage, clock: Clock) -> None:
    players = [100 + i for i in range(14)]
    rng = random.Random(3)
    for _ in range(40):
        seated = rng.sample(players, 3)
        await finish_game(storage, seated, {"winners": [0], "scores": [5, rng.randint(0, 4), 0]})
    await finish_game(storage, [ANN, BEA], {"winners": [0], "scores": [1, 0]}, guild_id=2)
    board = await storage.leaderboard(guild_id=1, kind="dots")
    assert len(board) == 10 and [line.rank for line in board][:1] == [1]
    assert all(a.ordinal >= b.ordinal for a, b in itertools.pairwise(board))
    assert not {ANN, BEA} & {line.player_id for line in board}
    everyone = await storage.leaderboard(guild_id=1, kind="dots", limit=100)
    assert len(everyone) == 14
    last = everyone[-1]
    mine = await storage.board_line_of(guild_id=1, kind="dots", player_id=last.player_id)
    assert mine == last
    assert await storage.board_line_of(guild_id=1, kind="dots", player_id=ANN) is None
    assert await storage.board_line_of(guild_id=1, kind="procession", player_id=players[0]) is None
    assert [line.name for line in await storage.leaderboard(guild_id=2, kind="dots")] == ["Ann", "Bea"]
    # Two newcomers of equal figures share a rank.
    await finish_game(storage, [CY, DI], {"winners": [0, 1], "scores": [1, 1]}, kind="numbers")
    tied = await storage.leaderboard(guild_id=1, kind="numbers")
    assert [line.rank for line in tied] == [1, 1]


async def test_period_boards_rank_by_rating_gained_in_the_period(storage: Storage, clock: Clock) -> None:
    clock.now = 1_750_000_000.0  # 2025-06-15 (a Sunday)
    await finish_game(storage, [ANN, BEA], {"winners": [0], "scores": [1, 0]})
    await finish_game(storage, [ANN, BEA], {"winners": [0], "scores": [1, 0]})
    clock.now += 3 * 86400  # the next week (Wednesday), same month
    await finish_game(storage, [BEA, ANN], {"winners": [0], "scores": [1, 0]})
    now = clock.now
    week = await storage.leaderboard(guild_id=1, kind="dots", period="week", now=now)
    assert [(line.name, line.games, line.wins) for line in week] == [("Bea", 1, 1), ("Ann", 1, 0)]
    assert week[0].gain > 0 > week[1].gain
    month = await storage.leaderboard(guild_id=1, kind="dots", period="month", now=now)
    assert [(line.name, line.games, line.wins) for line in month] == [("Ann", 3, 2), ("Bea", 3, 1)]
    alltime = {line.name: line for line in await storage.leaderboard(guild_id=1, kind="dots")}
    assert month[0].ordinal == alltime["Ann"].ordinal
    assert month[0].gain == pytest.approx(alltime["Ann"].ordinal - Rating().ordinal)
    mine = await storage.board_line_of(guild_id=1, kind="dots", player_id=ANN, period="week", now=now)
    assert mine is not None and mine.rank == 2
    later = now + 40 * 86400
    assert await storage.leaderboard(guild_id=1, kind="dots", period="month", now=later) == []


async def test_stats_hold_each_game_and_the_trend_of_the_last_ten(storage: Storage) -> None:
    for i in range(12):
        await finish_game(storage, [ANN, BEA], {"winners": [0 if i < 9 else 1], "scores": [1, 1]})
    await finish_game(storage, [ANN, CY], {"winners": [1]}, kind="procession")
    records = {r.kind: r for r in await storage.player_records(guild_id=1, player_id=ANN)}
    assert set(records) == {"dots", "procession"}
    dots = records["dots"]
    assert (dots.games, dots.wins, dots.trend_games) == (12, 9, 10)
    assert shown(dots.ordinal) > 1000
    assert records["procession"].trend_games == 1
    assert records["procession"].trend == pytest.approx(records["procession"].ordinal - Rating().ordinal)
    assert await storage.player_records(guild_id=2, player_id=ANN) == []


async def test_history_pages_stay_put_as_new_games_end(storage: Storage) -> None:
    ids = []
    for i in range(12):
        kind = "dots" if i % 3 else "procession"
        ids.append((await finish_game(storage, [ANN, BEA], {"winners": [i % 2]}, kind=kind)).id)
    first = await storage.history(guild_id=1, player_id=ANN, per_page=5)
    assert first.total == 12 and [g.game_id for g in first.games] == ids[::-1][:5]
    await finish_game(storage, [ANN, BEA], {"winners": [0]})
    second = await storage.history(guild_id=1, player_id=ANN, per_page=5, page=1, anchor=first.anchor)
    assert second.total == 12 and [g.game_id for g in second.games] == ids[::-1][5:10]
    last = await storage.history(guild_id=1, player_id=ANN, per_page=5, page=2, anchor=first.anchor)
    assert [g.game_id for g in last.games] == ids[::-1][10:]
    procession = await storage.history(guild_id=1, player_id=ANN, kind="procession")
    assert procession.total == 4 and {g.kind for g in procession.games} == {"procession"}
    assert (await storage.history(guild_id=2, player_id=ANN)).total == 0
    game = first.games[0]
    assert (game.guild_id, game.channel_id, game.place_id) == (1, 500, 500)
