"""Where computers think: a worker process gives the choice the same seed gives in-process, and a
dead worker costs one decision a thread, not the game."""

from __future__ import annotations

import asyncio
import os
import random

from bot.registry import GAMES, choose
from bot.table.minds import Minds
from cogs.procession import rules as procession


def _view() -> object:
    state = procession.new_game(2, {"n": 9}, 0)
    return procession.view_for(state, 0)


async def _pid(minds: Minds) -> int:
    assert minds._pool is not None
    return await asyncio.get_running_loop().run_in_executor(minds._pool, os.getpid)


PLAYER = GAMES["procession"].player


async def test_a_worker_process_chooses_what_the_seed_chooses_in_process() -> None:
    minds = Minds(workers=1)
    try:
        for seed in range(3):
            expected = choose("procession", _view(), "normal", random.Random(seed))
            assert await minds.choose(PLAYER, _view(), "normal", random.Random(seed)) == expected
        assert await _pid(minds) != os.getpid()  # it really ran elsewhere
    finally:
        await minds.stop()
    assert minds._pool is None


async def test_a_dead_worker_costs_one_decision_in_a_thread_then_a_fresh_pool() -> None:
    minds = Minds(workers=1)
    try:
        await minds.choose(PLAYER, _view(), "easy", random.Random(1))
        os.kill(await _pid(minds), 9)
        expected = choose("procession", _view(), "hard", random.Random(2))
        assert await minds.choose(PLAYER, _view(), "hard", random.Random(2)) == expected
        assert await minds.choose(PLAYER, _view(), "hard", random.Random(2)) == expected
        assert minds._pool is not None
    finally:
        await minds.stop()


async def test_no_workers_means_a_thread() -> None:
    minds = Minds(workers=0)
    assert await minds.choose(PLAYER, _view(), "easy", random.Random(3)) == choose(
        "procession", _view(), "easy", random.Random(3)
    )
    assert minds._pool is None
