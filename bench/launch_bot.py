"""Run a bot as a process of its own against a loopback Discord emulator (used by bench/load.py).

    QUETBOT_EMULATOR_API=http://127.0.0.1:PORT/api/v10 QUETBOT_EMULATOR_GATEWAY=ws://127.0.0.1:PORT/gateway \
    DISCORD_TOKEN=... QUETBOT_DB=... QUETBOT_DEV_GUILD=... python bench/launch_bot.py [quetbot|floor]

It points discord.py at the emulator the way `DiscordEmulator.install()` and `prepare_client()` do in
the tests (the REST base, the gateway URL, and a 50 ms wait for guilds instead of 2 s), then runs
``quetbot``'s normal entry point (``bot.__main__.main``), or with ``floor`` the fixed-text bot of
bench/floor_bot.py. When the client is ready it prints ``BENCH-READY`` on stdout.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import discord
import discord.gateway
import discord.http
import yarl

READY_LINE = "BENCH-READY"
GUILD_READY_TIMEOUT = 0.05


def launch_env(*, token: str, db: Path, guild_id: int, api_base: str, gateway_url: str) -> dict[str, str]:
    """The environment a bot process started with this launcher needs (for bench/load.py and
    bench/crash_safety.py)."""
    repo = str(Path(__file__).resolve().parents[1])
    return {
        **os.environ,
        "DISCORD_TOKEN": token,
        "QUETBOT_DB": str(db),
        "QUETBOT_DEV_GUILD": str(guild_id),
        "QUETBOT_EMULATOR_API": api_base,
        "QUETBOT_EMULATOR_GATEWAY": gateway_url,
        "PYTHONPATH": os.pathsep.join([repo, *filter(None, [os.environ.get("PYTHONPATH")])]),
    }


def point_at_emulator() -> None:
    discord.http.Route.BASE = os.environ["QUETBOT_EMULATOR_API"]
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(os.environ["QUETBOT_EMULATOR_GATEWAY"])


def announce_ready(client: Any) -> None:
    async def on_ready() -> None:
        print(READY_LINE, flush=True)

    client.add_listener(on_ready, "on_ready")


def run_quetbot() -> None:
    import bot.__main__ as entry

    create = entry.create_bot

    def create_bot(settings: Any, **options: Any) -> Any:
        client = create(settings, guild_ready_timeout=GUILD_READY_TIMEOUT, **options)
        announce_ready(client)
        return client

    entry.create_bot = create_bot  # type: ignore[assignment]
    entry.main()


def run_floor() -> None:
    from bench.floor_bot import FloorBot

    client = FloorBot(ready_line=READY_LINE, guild_ready_timeout=GUILD_READY_TIMEOUT)
    client.run(os.environ["DISCORD_TOKEN"], log_handler=None)


def main() -> None:
    point_at_emulator()
    mode = sys.argv[1] if len(sys.argv) > 1 else "quetbot"
    if mode == "quetbot":
        run_quetbot()
    elif mode == "floor":
        run_floor()
    else:
        sys.exit(f"launch_bot: unknown mode {mode!r} (quetbot or floor)")


if __name__ == "__main__":
    main()
