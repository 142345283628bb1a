"""Run a bot as a process of its own against a loopback Discord emulator (used by bench/load.py).

    QUETBOT_EMULATOR_API=http://127.0.0.1:PORT/api/v10 QUETBOT_EMULATOR_GATEWAY=ws://127.0.0.1:PORT/gateway \
    DISCORD_TOKEN=... QUETBOT_DB=... [QUETBOT_DEV_GUILD=...] python bench/launch_bot.py [MODE [OPTIONS]]

MODE is quetbot (the default), floor or floor-image; OPTIONS go to quetbot (``--shard-count 2
--shards 1``).

It points discord.py at the emulator the way `DiscordEmulator.install()` and `prepare_client()` do in
the tests (the REST base, the gateway URL, and a 50 ms wait for guilds instead of 2 s), then runs
``quetbot``'s normal entry point (``bot.__main__.main``), or with ``floor`` the fixed-text bot of
bench/floor_bot.py, or with ``floor-image`` that bot answering with the PNG file named by
``QUETBOT_FLOOR_IMAGE``. When the client is ready it prints ``BENCH-READY`` on stdout.

With ``QUETBOT_FIXED_SEED=<n>`` (tests only) every game the bot opens is seeded ``n`` instead of at
random, so two runs of one scripted game deal the same cards (bench/kill_sweep.py compares a run the
bot was killed in with one it was not).

The benchmarks start it with `start_bot`.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import discord
import discord.gateway
import discord.http
import yarl

if TYPE_CHECKING:
    from tests.emulator import DiscordEmulator

READY_LINE = "BENCH-READY"
GUILD_READY_TIMEOUT = 0.05


REPO = Path(__file__).resolve().parents[1]
LAUNCHER = REPO / "bench" / "launch_bot.py"


def launch_env(
    *, token: str, db: Path | str, guild_id: int | None, api_base: str, gateway_url: str
) -> dict[str, str]:
    """The environment a bot process started with this launcher needs. ``db`` is what QUETBOT_DB
    takes (a SQLite file, or a PostgreSQL URL); ``guild_id`` the server its commands are synced to
    (None: synced globally, for a bot in several servers)."""
    env = {
        **os.environ,
        "DISCORD_TOKEN": token,
        "QUETBOT_DB": str(db),
        "QUETBOT_EMULATOR_API": api_base,
        "QUETBOT_EMULATOR_GATEWAY": gateway_url,
        "PYTHONPATH": os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])]),
    }
    env.pop("QUETBOT_DEV_GUILD", None)
    if guild_id is not None:
        env["QUETBOT_DEV_GUILD"] = str(guild_id)
    return env


async def start_bot(
    mode: str,
    *,
    emu: DiscordEmulator,
    token: str,
    db: Path | str,
    guild_id: int | None,
    log: Path,
    within: float = 60.0,
    extra_env: dict[str, str] | None = None,
    options: Sequence[str] = (),
) -> tuple[asyncio.subprocess.Process, float]:
    """Start this launcher as a process of its own (for bench/load.py and bench/crash_safety.py): the
    ``mode`` bot on ``emu`` and the database ``db`` (see `launch_env`), its stderr appended to ``log``
    (``extra_env`` added to its environment, ``options`` to quetbot's command line, e.g.
    ``["--shard-count", "3", "--shards", "1"]``). Returns the process (its stdout a pipe, past the ready
    line) and the seconds until it printed `READY_LINE`; a process that is not ready within ``within``
    seconds is killed (SIGKILL) and RuntimeError raised."""
    env = launch_env(
        token=token, db=db, guild_id=guild_id, api_base=emu.api_base, gateway_url=emu.gateway_url
    ) | (extra_env or {})
    loop = asyncio.get_running_loop()
    t0 = loop.time()
    with log.open("ab") as stderr:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            str(LAUNCHER),
            mode,
            *options,
            stdout=asyncio.subprocess.PIPE,
            stderr=stderr,
            env=env,
            cwd=str(REPO),
        )
    assert proc.stdout is not None
    while True:
        left = within - (loop.time() - t0)
        try:
            line = await asyncio.wait_for(proc.stdout.readline(), max(left, 0.01))
        except TimeoutError:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            await proc.wait()
            raise RuntimeError(f"the {mode} bot was not ready within {within:.0f} s; see {log}") from None
        if not line:
            raise RuntimeError(f"the {mode} bot exited before it was ready; see {log}")
        if line.decode().strip() == READY_LINE:
            return proc, loop.time() - t0


def point_at_emulator() -> None:
    discord.http.Route.BASE = os.environ["QUETBOT_EMULATOR_API"]
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(os.environ["QUETBOT_EMULATOR_GATEWAY"])


def announce_ready(client: Any) -> None:
    async def on_ready() -> None:
        print(READY_LINE, flush=True)

    client.add_listener(on_ready, "on_ready")


class FixedSeed:
    """Stands in for the `secrets` module where the bot draws a new game's seed."""

    def __init__(self, seed: int) -> None:
        self.seed = seed

    def randbits(self, k: int) -> int:
        return self.seed % (1 << k)


def run_quetbot(options: list[str]) -> None:
    import bot.__main__ as entry

    fixed = os.environ.get("QUETBOT_FIXED_SEED", "").strip()
    if fixed:
        import bot.service.lobby

        bot.service.lobby.secrets = FixedSeed(int(fixed))  # type: ignore[assignment]

    create = entry.create_bot

    def create_bot(settings: Any, **options: Any) -> Any:
        client = create(settings, guild_ready_timeout=GUILD_READY_TIMEOUT, **options)
        announce_ready(client)
        return client

    entry.create_bot = create_bot  # type: ignore[assignment]
    entry.main(options)


def run_floor(*, image: bool = False) -> None:
    from bench.floor_bot import FloorBot

    png = Path(os.environ["QUETBOT_FLOOR_IMAGE"]).read_bytes() if image else None
    client = FloorBot(ready_line=READY_LINE, image=png, guild_ready_timeout=GUILD_READY_TIMEOUT)
    client.run(os.environ["DISCORD_TOKEN"], log_handler=None)


def main() -> None:
    point_at_emulator()
    mode = sys.argv[1] if len(sys.argv) > 1 else "quetbot"
    if mode == "quetbot":
        run_quetbot(sys.argv[2:])
    elif mode in ("floor", "floor-image"):
        run_floor(image=mode == "floor-image")
    else:
        sys.exit(f"launch_bot: unknown mode {mode!r} (quetbot, floor or floor-image)")


if __name__ == "__main__":
    main()
