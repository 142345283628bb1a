"""The daily puzzle's storage (bot/storage/puzzles.py) and desk (bot/table/puzzles.py), on both
databases: one puzzle a day for everyone (the first store wins), one try a day, streaks (a right answer
extends, a wrong one ends, a missed day breaks), the servers' streak board, and the daily post's claim."""

from __future__ import annotations

import itertools
import json
from typing import cast

import discord
import pytest

from bot.i18n import ENGLISH
from bot.i18n.audience import Audiences
from bot.storage import Storage
from bot.storage.driver import fetch
from bot.storage.puzzles import current_streak, next_streak
from bot.table.pending import PendingAnswers
from bot.table.puzzles import PuzzleDesk, board, day_of
from bot.table.routing import Router
from cogs.procession import puzzle as puzzles
from cogs.procession.rules import apply, new_game

pytestmark = pytest.mark.both_dbs

DAY = 20400
ME, ANN, BEA = 11, 12, 13


class FakeRouter:
    """Only what the desk asks of a router when it is built."""

    def __init__(self) -> None:
        self.pages: dict[str, object] = {}

    def on_page(self, verb: str, handler: object) -> None:
        self.pages[verb] = handler


def desk(storage: Storage, now: float) -> PuzzleDesk:
    return PuzzleDesk(
        client=cast(discord.Client, None),
        storage=storage,
        router=cast(Router, FakeRouter()),
        audiences=cast(Audiences, None),
        clock=lambda: now,
        maker=puzzles,
        pending=PendingAnswers(storage, cast(discord.Client, None), holder=None),
    )


async def answer(storage: Storage, user: int, day: int, right: bool, guild: int | None = 1) -> int:
    done = await storage.answer_puzzle(
        user_id=user, day=day, position=1, correct=right, guild_id=guild, now=day * 86400.0
    )
    assert done.fresh
    return done.streak


def test_streak_arithmetic() -> None:
    assert next_streak(0, None, DAY, True) == 1
    assert next_streak(3, DAY - 1, DAY, True) == 4  # the day after: extended
    assert next_streak(3, DAY - 2, DAY, True) == 1  # a missed day: a new streak
    assert next_streak(3, DAY - 1, DAY, False) == 0  # wrong: ended
    assert current_streak(3, DAY - 1, DAY) == 3 and current_streak(3, DAY, DAY) == 3
    assert current_streak(3, DAY - 2, DAY) == 0  # yesterday missed


async def test_streaks_right_wrong_and_missed_days(storage: Storage) -> None:
    assert [await answer(storage, ME, DAY + d, True) for d in range(3)] == [1, 2, 3]
    assert await storage.puzzle_streak(user_id=ME, today=DAY + 2) == 3
    assert await storage.puzzle_streak(user_id=ME, today=DAY + 3) == 3  # today's not answered yet
    assert await storage.puzzle_streak(user_id=ME, today=DAY + 4) == 0  # a day missed: broken
    assert await answer(storage, ME, DAY + 4, True) == 1  # starts again
    assert await answer(storage, ME, DAY + 5, False) == 0  # wrong: ended
    assert await answer(storage, ME, DAY + 6, True) == 1
    ((best,),) = await storage.driver.read(fetch("SELECT best FROM puzzle_streaks WHERE user_id = ?", (ME,)))
    assert best == 3


async def test_one_try_a_day(storage: Storage) -> None:
    assert await answer(storage, ME, DAY, True) == 1
    again = await storage.answer_puzzle(user_id=ME, day=DAY, position=2, correct=False, guild_id=1, now=1.0)
    assert not again.fresh  # refused: the first answer stands, the streak too
    assert again.answer.position == 1 and again.answer.correct and again.streak == 1
    stored = await storage.puzzle_answer_of(user_id=ME, day=DAY)
    assert stored is not None and stored.correct and stored.position == 1 and stored.guild_id == 1
    assert await storage.puzzle_answer_of(user_id=ANN, day=DAY) is None


async def test_the_first_stored_puzzle_of_a_day_is_everyones(storage: Storage) -> None:
    first = await storage.keep_puzzle(
        day=DAY, n=5, rows=("00000", "10000"), answer=3, source_game_id=None, now=1.0
    )
    second = await storage.keep_puzzle(day=DAY, n=6, rows=("000000",), answer=1, source_game_id=7, now=2.0)
    assert first == second and second.rows == ("00000", "10000") and second.answer == 3
    assert await storage.puzzle_of(day=DAY) == first
    assert await storage.puzzle_of(day=DAY + 1) is None


async def finished_game(storage: Storage, guild: int, n: int, flips: list[int]) -> int:
    """A finished Procession game of two players who flipped ``flips``, then stopped."""
    row = (
        await storage.create_lobby(
            kind="procession", guild_id=guild, channel_id=guild * 100, host_id=ANN, host_name="Ann",
            options={"n": n}, seed=1, timeout_s=3600,
        )
    ).row  # fmt: skip
    state = new_game(2, {"n": n}, 1)
    for position in flips:
        state = apply(state, state.turn, {"type": "flip", "position": position})
    await storage.driver.write(
        fetch(
            "UPDATE games SET status = 'finished', state = ? WHERE id = ?",
            (json.dumps(state.to_dict()), row.id),
        )
    )
    return row.id


async def test_the_day_is_chosen_once_from_real_games_of_any_server(storage: Storage) -> None:
    # A real game with a puzzle position in it (from the fallback's own game, replayed as a real one).
    fallback = puzzles.fallback(1)
    rows = fallback.rows
    flips = [next(i + 1 for i in range(len(a)) if a[i] != b[i]) for a, b in itertools.pairwise(rows)]
    game_id = await finished_game(storage, guild=5, n=fallback.n, flips=flips)
    now = DAY * 86400.0 + 3600
    one, other = desk(storage, now), desk(storage, now)
    chosen = await one.puzzle(DAY)
    assert chosen.source_game_id == game_id and chosen.rows[: len(rows)] == rows[: len(chosen.rows)]
    assert await other.puzzle(DAY) == chosen  # the same for another process
    # That game gave its puzzle: the next day's comes from the computer's own game.
    nxt = await one.puzzle(DAY + 1)
    assert nxt.source_game_id is None
    assert (nxt.n, nxt.rows, nxt.answer) == (
        puzzles.fallback(DAY + 1).n,
        puzzles.fallback(DAY + 1).rows,
        puzzles.fallback(DAY + 1).answer,
    )
    assert day_of(now) == DAY
    assert "```" in board(puzzles, nxt, ENGLISH)


async def test_the_servers_streak_board(storage: Storage) -> None:
    for d in range(3):
        await answer(storage, ME, DAY + d, True, guild=1)
    await answer(storage, ANN, DAY + 2, True, guild=1)
    await answer(storage, BEA, DAY + 1, True, guild=2)  # another server's player
    await answer(storage, BEA, DAY + 2, True, guild=2)
    assert await storage.puzzle_leaders(guild_id=1, today=DAY + 2) == [(ME, 3), (ANN, 1)]
    assert await storage.puzzle_leaders(guild_id=2, today=DAY + 2) == [(BEA, 2)]
    assert await storage.puzzle_leaders(guild_id=1, today=DAY + 4) == []  # broken by a missed day


async def test_a_servers_post_is_claimed_once_a_day(storage: Storage) -> None:
    await storage.set_puzzle_channel(guild_id=1, channel_id=100, hour=12)
    await storage.set_puzzle_channel(guild_id=2, channel_id=200, hour=18)
    now = DAY * 86400.0 + 12.5 * 3600
    due = await storage.due_puzzle_posts(day=DAY, hour=12, now=now, holder="a")
    assert [(c.guild_id, c.channel_id) for c in due] == [(1, 100)]  # server 2's hour has not come
    claim = {"guild_id": 1, "day": DAY, "channel_id": 100, "now": now, "until": now + 120}
    assert await storage.claim_puzzle_post(holder="a", **claim)
    assert not await storage.claim_puzzle_post(holder="b", **claim)  # another process: not while held
    assert await storage.due_puzzle_posts(day=DAY, hour=12, now=now, holder="b") == []
    later = {**claim, "now": now + 200, "until": now + 320}
    assert await storage.claim_puzzle_post(holder="b", **later)  # a dead process's claim expires
    await storage.finish_puzzle_post(guild_id=1, day=DAY, message_id=555)
    assert not await storage.claim_puzzle_post(holder="a", **{**later, "now": now + 999})  # sent: never again
    assert await storage.due_puzzle_posts(day=DAY, hour=23, now=now + 999, holder="a") == [
        await storage.puzzle_channel(guild_id=2)
    ]
    assert len(await storage.due_puzzle_posts(day=DAY + 1, hour=12, now=now + 86400, holder="a")) == 1
    await storage.drop_puzzle_channel(guild_id=2)
    assert await storage.puzzle_channel(guild_id=2) is None
