"""Running the bot as a service: started, then stopped gracefully on SIGTERM or SIGINT.

A first signal begins a graceful stop (`QuetBot.shutdown`): no new due work, every interaction already
received answered (new ones are told the bot is restarting), the outbox items under way carried out,
leases and claims given up, the gateway closed with 1000 and the database closed; the process then exits
0, within ``QUETBOT_STOP_GRACE`` seconds (past them it exits 1 whatever is left). A second signal exits
at once, with 128 + the signal's number.

With ``QUETBOT_HTTP`` set, the health and metrics server (`bot.health`) runs from the start (it answers
"starting" until the bot is ready) to the end.

discord.py's own `Client.run` is not used: it turns SIGINT into KeyboardInterrupt and SIGTERM into an
abrupt close, with no grace.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import sys

from bot.app import QuetBot
from bot.health import HealthServer

log = logging.getLogger(__name__)

FORCED = 1  # the exit status when the grace ran out before the stop was done


def run(bot: QuetBot, token: str) -> int:
    """Run ``bot`` until it is stopped: the process's exit status."""
    return asyncio.run(serve(bot, token))


def _exit_now(status: int) -> None:
    with contextlib.suppress(Exception):
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(status)


async def serve(bot: QuetBot, token: str) -> int:
    loop = asyncio.get_running_loop()
    grace = bot.settings.stop_grace
    stop = asyncio.Event()
    received: list[int] = []

    def on_signal(signum: int) -> None:
        received.append(signum)
        name = signal.Signals(signum).name
        if len(received) == 1:
            log.info("Received %s: stopping within %g s (a second signal exits at once)", name, grace)
            stop.set()
        else:
            log.warning("Received %s again: exiting at once", name)
            _exit_now(128 + signum)

    for signum in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError):  # (not on Windows' event loop)
            loop.add_signal_handler(signum, on_signal, signum)

    health = HealthServer(bot, *bot.settings.http) if bot.settings.http is not None else None
    async with bot:
        if health is not None:
            await health.start()
        try:
            running = asyncio.create_task(bot.start(token), name="quetbot-client")
            stopping = asyncio.create_task(stop.wait(), name="quetbot-stop")
            await asyncio.wait({running, stopping}, return_when=asyncio.FIRST_COMPLETED)
            if not stop.is_set():  # the client ended by itself (refused token, fatal gateway close)
                stopping.cancel()
                running.result()  # (its error, if any)
                return 0

            def overrun() -> None:
                log.error("The stop took longer than QUETBOT_STOP_GRACE (%g s): exiting anyway", grace)
                _exit_now(FORCED)

            watchdog = loop.call_later(grace, overrun)
            await bot.shutdown(grace)
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(running, timeout=1.0)
            watchdog.cancel()
        finally:
            if health is not None:
                await health.stop()
    return 0
