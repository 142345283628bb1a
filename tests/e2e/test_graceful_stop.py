"""A graceful stop under load (issue 26): the real bot as a process (bench/launch_bot.py), sharded
(``--shard-count 1``: it leases games' outboxes and claims due work as processes sharing a database do),
with health and metrics on, plays Numbers To Number games by command in several channels at once, each
game a chain of picks, and is sent SIGTERM in the middle of it while the picks keep coming. Then:

- it exits 0 within QUETBOT_STOP_GRACE;
- every interaction that reached it was answered (those after the stop began: "restarting", privately);
- every pick it accepted is in the move log, and the outbox is empty;
- it closed the gateway with 1000, and holds no outbox lease and no claim on a wait;
- restarted on the same database, it finishes every game, and its move counter (``/metrics``)
  counts the moves it committed.

A second signal during the stop exits at once with a non-zero status.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import socket
import time
import urllib.request
from pathlib import Path

from bench.launch_bot import start_bot
from tests.db import query
from tests.e2e.driver import bot_messages, private_reply, start_game
from tests.emulator import DiscordEmulator, EmulatorError, interaction_filter
from tests.emulator.world import Channel, Scene, User

GRACE = 8.0
M = 3  # Numbers' moves per round: picks 1 to 7, two rounds of three moves (six picks a player)
PICKS = 6
RESTARTING = "restarting"
TOKEN = "graceful.stop.bot.token"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def http_get(port: int, path: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


class Bot:
    def __init__(self, emu: DiscordEmulator, scene: Scene, db: str, log: Path, port: int) -> None:
        self.emu, self.scene, self.db, self.log, self.port = emu, scene, db, log, port
        self.proc: asyncio.subprocess.Process | None = None

    async def start(self) -> asyncio.subprocess.Process:
        self.proc, _ = await start_bot(
            "quetbot",
            emu=self.emu,
            token=TOKEN,
            db=self.db,
            guild_id=self.scene.guild.id,
            log=self.log,
            extra_env={
                "QUETBOT_STOP_GRACE": str(GRACE),
                "QUETBOT_HTTP": f"127.0.0.1:{self.port}",
                "QUETBOT_COMPUTER_WORKERS": "1",
                "QUETBOT_DRAW_WORKERS": "1",
            },
            options=["--shard-count", "1"],
        )
        await self.emu.wait_idle(quiet=0.2)
        return self.proc

    async def kill(self) -> None:
        if self.proc is not None and self.proc.returncode is None:
            self.proc.kill()
            await self.proc.wait()


def place_of(emu: DiscordEmulator, channel: Channel) -> Channel:
    return next((emu.channels[m.id] for m in bot_messages(emu, channel) if m.id in emu.channels), channel)


def picks_made(db: str, game_id: int) -> dict[int, int]:
    return dict(query(db, "SELECT seat, COUNT(*) FROM moves WHERE game_id = ? GROUP BY seat", (game_id,)))


async def play(
    emu: DiscordEmulator, db: str, game_id: int, place: Channel, users: tuple[User, User], accepted: list[int]
) -> str:
    """Each player picks the lowest number they have not played, in turn, until the game ends or the
    bot stops: "done", "restarting" (told so) or "gone" (no gateway to send to)."""
    while True:
        made = picks_made(db, game_id)
        seat = 0 if made.get(0, 0) <= made.get(1, 0) else 1
        if made.get(seat, 0) >= PICKS:
            return "done"
        try:
            rec = await emu.slash(users[seat], place, "numbers pick", number=made.get(seat, 0) + 1)
        except EmulatorError:
            return "gone"
        text = await private_reply(rec)
        if RESTARTING in text:
            return RESTARTING
        accepted.append(game_id)
        before = made.get(seat, 0)
        await emu.wait_until(
            lambda seat=seat, before=before: picks_made(db, game_id).get(seat, 0) > before, what="the pick"
        )


async def open_games(emu: DiscordEmulator, scene: Scene) -> list[tuple[int, Channel, tuple[User, User]]]:
    tables = [(scene.channel, (scene.alice, scene.bob)), (scene.other_channel, (scene.carol, scene.dave))]
    games = []
    for channel, users in tables:
        game_id = await start_game(emu, channel, "numbers new", *users, m=M)
        games.append((game_id, place_of(emu, channel), users))
    return games


async def test_sigterm_under_load_loses_nothing_and_a_restart_finishes(
    emu: DiscordEmulator, scene: Scene, tmp_path: Path
) -> None:
    db, log, port = str(tmp_path / "bot.sqlite3"), tmp_path / "bot.log", free_port()
    bot = Bot(emu, scene, db, log, port)
    proc = await bot.start()
    try:
        status, body = http_get(port, "/healthz")
        assert status == 200 and json.loads(body)["status"] == "ok", body
        games = await open_games(emu, scene)
        accepted: list[int] = []
        chains = [asyncio.create_task(play(emu, db, g, p, u, accepted)) for g, p, u in games]
        await emu.wait_until(lambda: len(accepted) >= 3, what="a few picks")
        stopped: list[float] = []

        async def stop_now() -> None:
            # While the bot's answer to a pick is held here (its handler still running, its board
            # still to post), the stop begins; the other games' picks keep coming meanwhile.
            stopped.append(time.monotonic())
            proc.send_signal(signal.SIGTERM)
            await asyncio.sleep(0.3)

        emu.after_answer(interaction_filter(command="numbers pick"), stop_now)
        rc = await asyncio.wait_for(proc.wait(), GRACE + 5)
        took = time.monotonic() - stopped[0]
        ends = await asyncio.gather(*chains)
    finally:
        await bot.kill()
    log_text = log.read_text(encoding="utf-8")
    print(f"stopped in {took:.2f} s; chains: {ends}; picks accepted: {len(accepted)}")
    assert rc == 0, log_text[-3000:]
    assert took < GRACE, took
    assert all(end in (RESTARTING, "gone") for end in ends), ends
    assert "Traceback" not in log_text, log_text[-3000:]
    # Every interaction that reached the bot was answered.
    for rec in emu.interactions.values():
        assert rec.callback is not None, f"{rec.describe()} was not answered"
    # Nothing lost: each accepted pick is in the log; every effect was carried out.
    total = sum(sum(picks_made(db, g).values()) for g, _, _ in games)
    assert total == len(accepted)
    assert query(db, "SELECT COUNT(*) FROM outbox") == [(0,)]
    # Closed properly, holding nothing.
    closes = [e.detail for e in emu.gateway.log if e.kind == "close"]
    assert closes and closes[-1] == "1000", closes
    assert query(db, "SELECT COUNT(*) FROM outbox_leases") == [(0,)]
    assert query(db, "SELECT COUNT(*) FROM waits WHERE claimed_by IS NOT NULL") == [(0,)]

    # A restart resumes: every game is finished, and the counter counts the moves of this run.
    before = total
    proc = await bot.start()
    try:
        ends = await asyncio.gather(*(play(emu, db, g, p, u, accepted) for g, p, u in games))
        assert ends == ["done"] * len(games)
        for game_id, _, _ in games:
            await emu.wait_until(
                lambda game_id=game_id: (
                    query(db, "SELECT status FROM games WHERE id = ?", (game_id,)) == [("finished",)]
                ),
                what="the game finished",
            )
        await emu.wait_idle(quiet=0.3)
        status, text = http_get(port, "/metrics")
        assert status == 200
        counted = sum(
            float(line.rsplit(" ", 1)[1])
            for line in text.splitlines()
            if line.startswith("quetbot_moves_total{")
        )
        assert counted == 2 * PICKS * len(games) - before
        assert 'quetbot_moves_total{game="numbers"}' in text
        proc.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(proc.wait(), GRACE + 2) == 0
    finally:
        await bot.kill()
    # A clean stop leaves nothing behind, not even a worker pool's semaphores for Python's resource
    # tracker to clean up and warn about.
    log_text = log.read_text(encoding="utf-8")
    assert "leaked" not in log_text and "Traceback" not in log_text, log_text[-3000:]


async def test_a_second_signal_exits_at_once(emu: DiscordEmulator, scene: Scene, tmp_path: Path) -> None:
    db, log = str(tmp_path / "bot.sqlite3"), tmp_path / "bot.log"
    bot = Bot(emu, scene, db, log, free_port())
    proc = await bot.start()
    signalled: list[float] = []

    async def two_signals() -> None:
        # The bot's answer to the command is held here: its handler is still running when the first
        # signal comes, so the graceful stop waits for it; the second signal comes meanwhile.
        proc.send_signal(signal.SIGTERM)
        await asyncio.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        signalled.append(time.monotonic())
        with contextlib.suppress(asyncio.CancelledError):  # (the bot hangs up as it exits)
            await asyncio.sleep(2.0)

    try:
        emu.after_answer(None, two_signals)
        with contextlib.suppress(Exception):
            await emu.slash(scene.alice, scene.channel, "numbers new", m=M)
        rc = await asyncio.wait_for(proc.wait(), GRACE)
        assert signalled and time.monotonic() - signalled[0] < 1.5
        assert rc == 128 + signal.SIGINT
    finally:
        await bot.kill()
