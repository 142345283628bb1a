"""The bot's Prometheus metrics (``GET /metrics`` on ``QUETBOT_HTTP``, see `bot.http`).

Counters and the render histogram are updated where things happen (a label lookup and an increment:
a microsecond or two, nothing per move worth measuring); the gauges that describe the database (live
games, the outbox's backlog, how late due work is) and the gateway's latency are read once per scrape,
by `refresh`, never on the way of a move.

They live in a registry of their own (`REGISTRY`), not prometheus-client's global one, so the page
shows the bot's metrics only (no process or platform collectors of the library's choosing).
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable
from contextvars import ContextVar
from types import SimpleNamespace
from typing import TYPE_CHECKING

import aiohttp
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

if TYPE_CHECKING:
    from bot.storage import Storage

REGISTRY = CollectorRegistry(auto_describe=True)

INTERACTIONS = Counter(
    "quetbot_interactions",
    "Interactions received, by kind (command, component, modal, autocomplete) and outcome (ok: "
    "answered; refused: a refusal the person can act on; error: a bug, apologised for; expired: "
    "Discord forgot it before it was answered; restarting: came while the bot was stopping).",
    ["kind", "outcome"],
    registry=REGISTRY,
)
MOVES = Counter(
    "quetbot_moves", "Moves committed (players', computers', forfeits), by game.", ["game"], registry=REGISTRY
)
GAMES_LIVE = Gauge(
    "quetbot_games_live", "Games in a lobby or under way, by game.", ["game"], registry=REGISTRY
)
OUTBOX_PENDING = Gauge("quetbot_outbox_pending", "Outbox items not yet carried out.", registry=REGISTRY)
OUTBOX_OLDEST = Gauge(
    "quetbot_outbox_oldest_seconds",
    "Age of the oldest outbox item not yet carried out (0: none).",
    registry=REGISTRY,
)
DUE_LAG = Gauge(
    "quetbot_due_lag_seconds",
    "How long the earliest due work (a deadline, a reminder, a computer's move, a lobby's expiry) "
    "has been due and not done (0: nothing overdue).",
    registry=REGISTRY,
)
RENDER = Histogram(
    "quetbot_render_seconds",
    "Seconds drawing a board took, by game.",
    ["game"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
    registry=REGISTRY,
)
DISCORD_REQUESTS = Counter(
    "quetbot_discord_requests",
    "HTTP requests made to Discord's API, by route (method and path template) and status.",
    ["route", "status"],
    registry=REGISTRY,
)
GATEWAY_LATENCY = Gauge(
    "quetbot_gateway_latency_seconds",
    "The gateway's heartbeat latency, by shard.",
    ["shard"],
    registry=REGISTRY,
)

INTERACTION_KINDS = {2: "command", 3: "component", 4: "autocomplete", 5: "modal"}

# The route of the Discord request under way in this task (set by `bot.app`'s HTTP wrapper, read by
# the trace hook that sees each response's status).
ROUTE: ContextVar[str] = ContextVar("quetbot_route", default="other")


def declare_games(games: Iterable[str]) -> None:
    """Every game's series exist from the start (at 0), not from its first move."""
    for game in games:
        MOVES.labels(game)
        RENDER.labels(game)
        GAMES_LIVE.labels(game)


def counted_move(game: str) -> None:
    MOVES.labels(game).inc()


class render_timer:
    """Times the drawing of one board of ``game``."""

    __slots__ = ("game", "t0")

    def __init__(self, game: str) -> None:
        self.game = game
        self.t0 = 0.0

    def __enter__(self) -> None:
        self.t0 = time.perf_counter()

    def __exit__(self, *exc: object) -> None:
        RENDER.labels(self.game).observe(time.perf_counter() - self.t0)


def http_trace() -> aiohttp.TraceConfig:
    """An aiohttp trace counting every response from Discord (retries too) by route and status."""

    async def on_end(
        session: aiohttp.ClientSession, context: SimpleNamespace, params: aiohttp.TraceRequestEndParams
    ) -> None:
        DISCORD_REQUESTS.labels(ROUTE.get(), str(params.response.status)).inc()

    async def on_error(
        session: aiohttp.ClientSession, context: SimpleNamespace, params: aiohttp.TraceRequestExceptionParams
    ) -> None:
        DISCORD_REQUESTS.labels(ROUTE.get(), "error").inc()

    trace = aiohttp.TraceConfig()
    trace.on_request_end.append(on_end)
    trace.on_request_exception.append(on_error)
    return trace


async def refresh(
    storage: Storage | None, latencies: Iterable[tuple[int, float]], *, computer_pause: float
) -> None:
    """Read the gauges that describe the database and the gateway (once per scrape)."""
    for shard, latency in latencies:
        if math.isfinite(latency):
            GATEWAY_LATENCY.labels(str(shard)).set(latency)
    if storage is None:
        return
    from bot import clock
    from bot.deadlines import LOBBY_LIFETIME

    now = clock.now()
    live = await storage.live_games()
    for labels in list(GAMES_LIVE._metrics):  # (a game with none left shows 0, not its last count)
        if labels[0] not in live:
            GAMES_LIVE.labels(*labels).set(0)
    for game, count in live.items():
        GAMES_LIVE.labels(game).set(count)
    pending, oldest = await storage.outbox_backlog()
    OUTBOX_PENDING.set(pending)
    OUTBOX_OLDEST.set(0.0 if oldest is None else max(0.0, now - oldest))
    due = await storage.next_due(lobby_lifetime=LOBBY_LIFETIME, computer_pause=computer_pause)
    DUE_LAG.set(0.0 if due is None else max(0.0, now - due))


def exposition() -> bytes:
    return generate_latest(REGISTRY)
