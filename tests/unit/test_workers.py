"""The bot's worker processes (drawing, computer players) die with it: a bot killed outright must not
leave a worker behind holding its output open (the crash benchmark waited forever for one)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

BOT = """
import asyncio, os, sys
from bot.table.drawing import Drawing
from bot.table.minds import Minds

async def main():
    drawing = Drawing(1)
    minds = Minds(1)
    pids = []
    for pool in (drawing._executor("json") or drawing._pool, minds._executor()):
        pids.append(await asyncio.wrap_future(pool.submit(os.getpid)))
    print(*pids, flush=True)
    await asyncio.sleep(60)

asyncio.run(main())
"""


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_workers_die_when_the_bot_is_killed() -> None:
    bot = subprocess.Popen([sys.executable, "-c", BOT], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert bot.stdout is not None
        workers = [int(pid) for pid in bot.stdout.readline().split()]
        assert len(workers) == 2 and all(alive(pid) for pid in workers)
        os.kill(bot.pid, signal.SIGKILL)
        bot.wait(timeout=10)
        deadline = time.monotonic() + 10
        while any(alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(alive(pid) for pid in workers)
        assert bot.stdout.read() == ""  # (the output ends: no worker holds it open)
    finally:
        bot.kill()
        bot.wait()
        if bot.stdout is not None:
            bot.stdout.close()
