"""Where boards are drawn: a worker process draws the very image drawn in-process (in the table's
language), a board never waits for a worker to start, and a dead worker costs one board a thread,
not the game.

Images are compared by their pixels: a PNG's palette lists colours in the order the process first
used them (`bot.render.common.colour_index`), so the bytes of one image differ between processes
that drew different boards before it."""

from __future__ import annotations

import asyncio
import os
import pickle
from dataclasses import replace

from bot.i18n import language
from bot.render import leaderboard
from bot.table.drawing import Drawing
from bot.table.present import TableInfo
from cogs.procession import present
from cogs.procession import rules as procession
from tests.render.helpers import png_rgb, table_for


def _board() -> tuple[procession.View, TableInfo]:
    state = procession.new_game(2, {"n": 9}, 0)
    for _ in range(3):
        (seat,) = procession.to_act(state)
        state = procession.apply(state, seat, procession.legal_actions(state, seat)[0])
    table = replace(table_for(procession, state, 2), lang=language("de"))
    return procession.view_for(state, None), table


def pixels(png: bytes) -> tuple[tuple[int, int], bytes]:
    image = png_rgb(png)
    return image.size, image.tobytes()


async def _started(drawing: Drawing) -> None:
    """Wait until the pool's first worker has started (until then, boards are drawn in a thread)."""
    if drawing._warming is not None:
        await asyncio.wrap_future(drawing._warming)


async def _pid(drawing: Drawing) -> int:
    assert drawing._pool is not None
    return await asyncio.get_running_loop().run_in_executor(drawing._pool, os.getpid)


def test_a_language_travels_as_its_code() -> None:
    german = language("de")
    assert len(pickle.dumps(german)) < 100  # not its catalog
    assert pickle.loads(pickle.dumps(german)) is german


async def test_a_worker_process_draws_the_png_drawn_in_process() -> None:
    view, table = _board()
    expected = pixels(present.render(view, table))
    drawing = Drawing(workers=1)
    try:
        assert pixels(await drawing.draw(present.render, view, table)) == expected  # in a thread: starting
        await _started(drawing)
        assert pixels(await drawing.draw(present.render, view, table)) == expected  # in the worker
        assert drawing._warming is None and drawing._pool is not None
        assert await _pid(drawing) != os.getpid()  # it really ran elsewhere
        board = leaderboard.Leaderboard(title="Procession", period="all time", lines=(), own=None, note="")
        drawn = await drawing.draw(leaderboard.render, board, lang=table.lang)
        assert pixels(drawn) == pixels(leaderboard.render(board, lang=table.lang))
    finally:
        await drawing.stop()
    assert drawing._pool is None


async def test_a_dead_worker_costs_one_board_in_a_thread_then_a_fresh_pool() -> None:
    view, table = _board()
    expected = pixels(present.render(view, table))
    drawing = Drawing(workers=1)
    try:
        await drawing.draw(present.render, view, table)
        await _started(drawing)
        old = drawing._pool
        os.kill(await _pid(drawing), 9)
        assert pixels(await drawing.draw(present.render, view, table)) == expected  # drawn in a thread
        assert drawing._pool is None  # the broken pool is gone
        assert pixels(await drawing.draw(present.render, view, table)) == expected
        assert drawing._pool is not None and drawing._pool is not old
        await _started(drawing)
        assert pixels(await drawing.draw(present.render, view, table)) == expected
        assert await _pid(drawing) != os.getpid()
    finally:
        await drawing.stop()


async def test_no_workers_means_a_thread() -> None:
    view, table = _board()
    drawing = Drawing(workers=0)
    assert pixels(await drawing.draw(present.render, view, table)) == pixels(present.render(view, table))
    assert drawing._pool is None
