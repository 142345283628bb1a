"""Hints in storage (bot/storage/hints.py, bot/storage/records.py): a game marked "with hints" only
at the version its hint was for, and, finished, kept in history (marked) but rated nowhere."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from bot.memory.ratings import recompute
from bot.players.seats import computer_id
from bot.registry import SCORE_RANKED
from bot.storage import GameRow, Storage

ANN = 11
HARD = computer_id("hard", 1)

pytestmark = pytest.mark.both_dbs


@pytest.fixture
async def storage(database: str) -> AsyncIterator[Storage]:
    storage = await Storage.open(database, score_ranked=SCORE_RANKED)
    yield storage
    await storage.close()


async def started(storage: Storage, seats: list[int]) -> GameRow:
    row = (
        await storage.create_lobby(
            kind="dots", guild_id=1, channel_id=500, host_id=seats[0], host_name="Ann", options={}, seed=1
        )
    ).row
    row = (
        await storage.update_lobby(
            game_id=row.id,
            expected_version=row.version,
            seats=[(u, "Ann" if u == ANN else "Computer (hard)") for u in seats],
            host_id=seats[0],
        )
    ).row
    return (await storage.start_game(game_id=row.id, expected_version=row.version, state={}, waiting=[0])).row


async def finish(storage: Storage, row: GameRow, winner: int) -> GameRow:
    return (
        await storage.record_move(
            game_id=row.id,
            expected_version=row.version,
            seat=0,
            action={"type": "x"},
            state={},
            result={"winners": [winner], "scores": [5, 3] if winner == 0 else [3, 5]},
        )
    ).row


async def test_a_hint_marks_the_game_at_its_version_only(storage: Storage) -> None:
    row = await started(storage, [ANN, HARD])
    assert not row.hints
    assert await storage.mark_hints(game_id=row.id, version=row.version + 1) is None  # moved on: nothing
    assert not (await storage.get_game(game_id=row.id)).hints
    assert await storage.mark_hints(game_id=row.id, version=row.version) is True  # the first hint
    assert await storage.mark_hints(game_id=row.id, version=row.version) is False  # marked already
    marked = await storage.get_game(game_id=row.id)
    assert marked.hints and marked.version == row.version  # (the board's controls stay current)
    done = await finish(storage, marked, 0)
    assert done.hints and done.status == "finished"
    assert await storage.mark_hints(game_id=row.id, version=done.version) is None  # over: nothing


async def test_a_hinted_game_finishes_unrated_and_unrated_games_stay_unrated(storage: Storage) -> None:
    # A rated game first: Ann's rating moves.
    rated = await finish(storage, await started(storage, [ANN, HARD]), 0)
    before = await storage.rating_table()
    board = await storage.leaderboard(guild_id=1, kind="dots")
    standings = await storage.leaderboard(guild_id=1, kind="dots", period="week")
    stats = await storage.player_records(guild_id=1, player_id=ANN)
    # Then one with hints, won: no rating, standing, tally or board changes.
    row = await started(storage, [ANN, HARD])
    assert await storage.mark_hints(game_id=row.id, version=row.version)
    hinted = await finish(storage, (await storage.get_game(game_id=row.id)), 0)
    assert await storage.rating_table() == before
    assert await storage.leaderboard(guild_id=1, kind="dots") == board
    assert await storage.leaderboard(guild_id=1, kind="dots", period="week") == standings
    assert await storage.player_records(guild_id=1, player_id=ANN) == stats
    # The recompute from the rated games gives the same table (the hinted one is not among them).
    rebuilt = recompute(await storage.recorded_games())
    assert before == {k: (s.rating.mu, s.rating.sigma, s.games, s.wins) for k, s in rebuilt.items()}
    assert len(await storage.recorded_games()) == 1
    # Still in history, marked; the rated one is not.
    page = await storage.history(guild_id=1, player_id=ANN)
    assert [(g.game_id, g.hints) for g in page.games] == [(hinted.id, True), (rated.id, False)]
    ann = next(s for s in page.games[0].seats if s.name == "Ann")
    assert ann.won
    # A hint asked for in an unrated game changes nothing more: a later rated game rates from the same.
    again = await finish(storage, await started(storage, [ANN, HARD]), 1)
    assert not again.hints
    after = await storage.rating_table()
    assert after[(1, "dots", ANN)][2] == before[(1, "dots", ANN)][2] + 1  # one more rated game, not two
