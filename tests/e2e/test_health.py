"""Health and metrics (issue 26): ``/healthz`` and ``/metrics`` of `bot.health`, on the bot in this
process (the emulator's), through aiohttp's test client."""

from __future__ import annotations

from typing import Any

from aiohttp.test_utils import TestClient, TestServer

from bot.app import create_bot
from bot.config import Settings
from bot.health import application
from tests.e2e.driver import start_game
from tests.emulator import DiscordEmulator
from tests.emulator.harness import BotHarness
from tests.emulator.world import Scene

METRICS = (
    "quetbot_interactions_total",
    "quetbot_moves_total",
    "quetbot_games_live",
    "quetbot_outbox_pending",
    "quetbot_outbox_oldest_seconds",
    "quetbot_due_lag_seconds",
    "quetbot_render_seconds_bucket",
    "quetbot_discord_requests_total",
    "quetbot_gateway_latency_seconds",
)


async def get(bot: Any, path: str) -> tuple[int, str, dict[str, Any] | None]:
    async with TestClient(TestServer(application(bot))) as client:
        response = await client.get(path)
        text = await response.text()
        body = await response.json() if response.content_type == "application/json" else None
        return response.status, text, body


async def test_healthz_is_ok_while_connected_and_degraded_when_the_database_does_not_answer(
    bots: BotHarness, monkeypatch: Any
) -> None:
    status, _, body = await get(bots.bot, "/healthz")
    assert status == 200 and body is not None
    assert body["status"] == "ok" and body["database"] is True and all(body["shards"].values())

    async def no_answer() -> None:
        raise OSError("the database is gone")

    monkeypatch.setattr(bots.bot.storage, "ping", no_answer)
    status, _, body = await get(bots.bot, "/healthz")
    assert status == 503 and body is not None and body["status"] == "degraded"
    assert body["database"] is False


async def test_healthz_says_starting_before_the_bot_is_ready() -> None:
    bot = create_bot(Settings(token="t"))
    try:
        status, _, body = await get(bot, "/healthz")
        assert status == 503 and body is not None and body["status"] == "starting"
    finally:
        await bot.http.close()


async def test_healthz_is_degraded_while_stopping(bots: BotHarness) -> None:
    bots.bot.stopping = True
    try:
        status, _, body = await get(bots.bot, "/healthz")
        assert status == 503 and body is not None and body["status"] == "degraded" and body["stopping"]
    finally:
        bots.bot.stopping = False


def sample(text: str, name: str, **labels: str) -> float:
    want = ",".join(f'{k}="{v}"' for k, v in labels.items())
    prefix = f"{name}{{{want}}} " if labels else f"{name} "
    lines = [line for line in text.splitlines() if line.startswith(prefix)]
    return float(lines[0].rsplit(" ", 1)[1]) if lines else 0.0


async def test_metrics_count_interactions_moves_and_requests(
    bots: BotHarness, emu: DiscordEmulator, scene: Scene
) -> None:
    _, before, _ = await get(bots.bot, "/metrics")
    game_id = await start_game(emu, scene.channel, "numbers new", scene.alice, scene.bob, m=3)
    assert game_id
    status, text, _ = await get(bots.bot, "/metrics")
    assert status == 200
    for name in METRICS:
        assert any(line.startswith(name) for line in text.splitlines()), name
    assert sample(text, "quetbot_games_live", game="numbers") == 1
    assert sample(text, "quetbot_interactions_total", kind="command", outcome="ok") > sample(
        before, "quetbot_interactions_total", kind="command", outcome="ok"
    )
    assert sample(text, "quetbot_interactions_total", kind="component", outcome="ok") >= 2  # join, start
    assert sample(text, "quetbot_outbox_pending") == 0
    assert 'quetbot_render_seconds_count{game="numbers"}' in text
    assert 'route="POST /channels/{channel_id}/messages",status="200"' in text
    moves = sample(text, "quetbot_moves_total", game="numbers")
    threads = [emu.channels[m.id] for m in emu.channel_messages(scene.channel) if m.id in emu.channels]
    place = threads[0] if threads else scene.channel
    await (await emu.slash(scene.alice, place, "numbers pick", number=1)).response()
    await emu.wait_idle()
    _, text, _ = await get(bots.bot, "/metrics")
    assert sample(text, "quetbot_moves_total", game="numbers") == moves + 1
