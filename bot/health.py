"""Health and metrics over HTTP, on ``QUETBOT_HTTP=host:port`` (off when unset).

``GET /healthz``: 200 and ``{"status": "ok", ...}`` while every shard this process runs is connected to
the gateway and the database answers; otherwise 503 with ``"status": "starting"`` (not ready yet) or
``"degraded"`` (a shard disconnected, the database not answering, or the bot stopping). The body also
says which shards are connected and whether the database answered, for a person reading it.

``GET /metrics``: the Prometheus text format (`bot.metrics`).
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Literal, NotRequired, TypedDict

from aiohttp import web

from bot import metrics

if TYPE_CHECKING:
    from bot.app import QuetBot

log = logging.getLogger(__name__)

DB_TIMEOUT = 2.0  # seconds the database has to answer a health check


class Health(TypedDict):
    """The body of ``/healthz`` (see the module's text)."""

    shards: dict[str, bool]
    database: bool
    status: NotRequired[Literal["ok", "starting", "degraded"]]
    stopping: NotRequired[bool]


def shard_states(bot: QuetBot) -> dict[str, bool]:
    """Each shard this process runs (plain client: "0"), and whether it is connected."""
    shards = getattr(bot, "shards", None)
    if isinstance(shards, dict):
        out = {}
        for shard_id in bot.settings.shard_ids or ():
            info = shards.get(shard_id)
            out[str(shard_id)] = info is not None and not info.is_closed()
        return out
    ws = bot.ws
    return {"0": ws is not None and ws.open and not bot.is_closed()}


def latencies(bot: QuetBot) -> list[tuple[int, float]]:
    found = getattr(bot, "latencies", None)
    if isinstance(found, list):
        return found
    return [(0, bot.latency)] if bot.ws is not None else []


async def health(bot: QuetBot) -> tuple[int, Health]:
    """The status code and body of ``/healthz``."""
    shards = shard_states(bot)
    storage = getattr(bot, "storage", None)
    database = False
    if storage is not None:
        try:
            await asyncio.wait_for(storage.ping(), DB_TIMEOUT)
            database = True
        except Exception as exc:  # (any failure is "not answering")
            log.warning("Health check: the database did not answer (%s)", type(exc).__name__)
    body: Health = {"shards": shards, "database": database}
    if bot.stopping:
        body["status"] = "degraded"
        body["stopping"] = True
    elif not bot.is_ready() or storage is None:
        body["status"] = "starting"
    elif all(shards.values()) and shards and database:
        body["status"] = "ok"
    else:
        body["status"] = "degraded"
    return (200 if body["status"] == "ok" else 503), body


def application(bot: QuetBot) -> web.Application:
    async def healthz(request: web.Request) -> web.Response:
        status, body = await health(bot)
        return web.json_response(body, status=status)

    async def metrics_page(request: web.Request) -> web.Response:
        try:
            await metrics.refresh(
                getattr(bot, "storage", None), latencies(bot), computer_pause=bot.settings.computer_pause
            )
        except Exception:
            log.exception("Reading the metrics' gauges failed; showing the last values")
        return web.Response(
            body=metrics.exposition(), headers={"Content-Type": "text/plain; version=0.0.4; charset=utf-8"}
        )

    app = web.Application()
    app.router.add_get("/healthz", healthz)
    app.router.add_get("/metrics", metrics_page)
    return app


class HealthServer:
    """The HTTP server of `application`, on ``host:port``."""

    def __init__(self, bot: QuetBot, host: str, port: int) -> None:
        self.bot, self.host, self.port = bot, host, port
        self._runner: web.AppRunner | None = None

    async def start(self) -> None:
        runner = web.AppRunner(
            application(self.bot), access_log=None, handle_signals=False, shutdown_timeout=0.5
        )
        await runner.setup()
        site = web.TCPSite(runner, self.host, self.port)
        try:
            await site.start()
        except BaseException:
            await runner.cleanup()
            raise
        self._runner = runner
        log.info("Health and metrics on http://%s:%s (/healthz, /metrics)", self.host, self.port)

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
