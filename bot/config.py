"""Configuration from the environment (or a ``.env`` file beside the working directory)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import NamedTuple

from dotenv import find_dotenv, load_dotenv

from bot.logs import FORMATS, LEVELS
from bot.storage import StorageError, sqlite_path


class ConfigError(Exception):
    """A setting is missing or malformed; the message says what to set."""


@dataclass(frozen=True)
class Settings:
    token: str
    db_path: str = "quetbot.sqlite3"  # QUETBOT_DB as given: a SQLite file, sqlite:///path or postgresql://...
    dev_guild: int | None = None
    computer_pause: float = 2.0  # seconds a computer player waits before its move
    computer_workers: int = 1  # processes computer players think in (0: a thread of the bot's process)
    draw_workers: int = 1  # processes boards are drawn in (0: a thread of the bot's process)
    # Sharding: how many gateway shards the bot runs across all its processes (None: not sharded,
    # one process receives everything), and which of them this process runs.
    shard_count: int | None = None
    shard_ids: tuple[int, ...] | None = None
    # Tests only: a file holding seconds added to the clock of due work, re-read on each pass.
    clock_offset_file: str | None = None
    # This process's name in the claims of due work (default: host and shards); two processes running
    # at once must not share one.
    instance: str | None = None
    # Logs: "text" (discord.py's plain lines) or "json" (one object a line), from this level up.
    log_format: str = "text"
    log_level: str = "INFO"
    # A graceful stop (SIGTERM, SIGINT) ends within this many seconds.
    stop_grace: float = 10.0
    # Health and metrics over HTTP (/healthz, /metrics) on this host and port; None: off.
    http: tuple[str, int] | None = None

    @property
    def shard_label(self) -> str:
        if self.shard_ids is None:
            return "all"
        return ",".join(str(i) for i in self.shard_ids)

    @property
    def syncs_commands(self) -> bool:
        """Whether this process syncs the application commands: the one running shard 0 (or the
        only process, not sharded), so that several processes never sync at once."""
        return self.shard_ids is None or 0 in self.shard_ids

    @property
    def shares_database(self) -> bool:
        """Whether other processes may write the same database: a PostgreSQL database, or a sharded
        bot (the other shards run elsewhere). Then no cached game row is trusted without a check."""
        return self.shard_count is not None or self.db_path.startswith(("postgresql://", "postgres://"))


class Shards(NamedTuple):
    total: int | None
    ids: tuple[int, ...] | None


COUNT_SOURCE = "The shard count (--shard-count or QUETBOT_SHARD_COUNT)"
IDS_SOURCE = "The shards to run (--shards or QUETBOT_SHARDS)"


def parse_shards(count_raw: str, ids_raw: str) -> Shards:
    """The shard count and this process's shards, from their text ("4" and "0,1" or "0-3"): both
    unset, no sharding; a count alone, every shard of it; shards need a count."""
    count_raw, ids_raw = count_raw.strip(), ids_raw.strip()
    if not count_raw:
        if ids_raw:
            raise ConfigError(
                f"{IDS_SOURCE} need the shard count too (--shard-count or QUETBOT_SHARD_COUNT): "
                "how many shards the bot runs across all its processes."
            )
        return Shards(None, None)
    if not count_raw.isdecimal() or not count_raw.isascii() or int(count_raw) < 1:
        raise ConfigError(f"{COUNT_SOURCE} must be a whole number from 1, not {count_raw!r}.")
    count = int(count_raw)
    if not ids_raw:
        return Shards(count, tuple(range(count)))
    ids: list[int] = []
    for part in ids_raw.split(","):
        first, dash, last = part.strip().partition("-")
        bounds = (first, last) if dash else (first,)
        if not all(b.strip().isdecimal() and b.strip().isascii() for b in bounds):
            raise ConfigError(
                f"{IDS_SOURCE} must be shard numbers or ranges separated by commas, like 0,1 or 0-3, "
                f"not {ids_raw!r}."
            )
        low, high = int(bounds[0]), int(bounds[-1])
        if low > high:
            raise ConfigError(f"{IDS_SOURCE}: the range {part.strip()!r} runs backwards; write {high}-{low}.")
        ids.extend(range(low, high + 1))
    outside = sorted({i for i in ids if i >= count})
    if outside:
        raise ConfigError(
            f"{IDS_SOURCE}: shard {outside[0]} does not exist; with {count} shards they are 0 to {count - 1}."
        )
    twice = sorted({i for i in ids if ids.count(i) > 1})
    if twice:
        raise ConfigError(f"{IDS_SOURCE} name shard {twice[0]} more than once.")
    return Shards(count, tuple(sorted(ids)))


def load_settings(
    env: dict[str, str] | None = None, *, shard_count: str | None = None, shards: str | None = None
) -> Settings:
    """Settings from `env` (default: the environment and .env); `shard_count` and `shards` (the
    command line's) take the place of QUETBOT_SHARD_COUNT and QUETBOT_SHARDS when given."""
    if env is None:
        load_dotenv(find_dotenv(usecwd=True))  # (.env in the working directory, as documented)
        env = dict(os.environ)
    token = env.get("DISCORD_TOKEN", "").strip()
    if not token:
        raise ConfigError(
            "DISCORD_TOKEN is not set: put your bot token in the environment or in a .env file "
            "(see .env.example)."
        )
    dev_guild_raw = env.get("QUETBOT_DEV_GUILD", "").strip()
    dev_guild: int | None = None
    if dev_guild_raw:
        if not dev_guild_raw.isdigit():
            raise ConfigError(f"QUETBOT_DEV_GUILD must be a server id (digits), not {dev_guild_raw!r}.")
        dev_guild = int(dev_guild_raw)
    pause = _seconds(env, "QUETBOT_COMPUTER_PAUSE", "2", 0, 60)
    workers = _processes(env, "QUETBOT_COMPUTER_WORKERS")
    draw_workers = _processes(env, "QUETBOT_DRAW_WORKERS")
    sharding = parse_shards(
        env.get("QUETBOT_SHARD_COUNT", "") if shard_count is None else shard_count,
        env.get("QUETBOT_SHARDS", "") if shards is None else shards,
    )
    log_format_raw = env.get("QUETBOT_LOG_FORMAT", "").strip()
    if log_format_raw.lower() not in ("", *FORMATS):
        raise ConfigError(f"QUETBOT_LOG_FORMAT must be text or json, not {log_format_raw!r}.")
    log_level_raw = env.get("QUETBOT_LOG_LEVEL", "").strip()
    if log_level_raw.upper() not in ("", *LEVELS):
        raise ConfigError(
            f"QUETBOT_LOG_LEVEL must be DEBUG, INFO, WARNING, ERROR or CRITICAL, not {log_level_raw!r}."
        )
    grace = _seconds(env, "QUETBOT_STOP_GRACE", "10", 1, 600)
    http = parse_http(env.get("QUETBOT_HTTP", ""))
    db = env.get("QUETBOT_DB", "").strip() or "quetbot.sqlite3"
    try:
        sqlite_path(db)  # (only to refuse what is neither a file nor a known URL)
    except StorageError as exc:
        raise ConfigError(f"QUETBOT_DB: {exc}") from exc
    return Settings(
        token=token,
        db_path=db,
        dev_guild=dev_guild,
        computer_pause=pause,
        computer_workers=workers,
        draw_workers=draw_workers,
        shard_count=sharding.total,
        shard_ids=sharding.ids,
        clock_offset_file=env.get("QUETBOT_CLOCK_OFFSET_FILE", "").strip() or None,
        instance=env.get("QUETBOT_INSTANCE", "").strip() or None,
        log_format=log_format_raw.lower() or "text",
        log_level=log_level_raw.upper() or "INFO",
        stop_grace=grace,
        http=http,
    )


def _seconds(env: dict[str, str], name: str, default: str, low: int, high: int) -> float:
    """The variable ``name`` (``default`` when unset): seconds from ``low`` to ``high``."""
    raw = env.get(name, "").strip() or default
    try:
        value = float(raw)
    except ValueError:
        value = low - 1.0
    if not low <= value <= high:
        raise ConfigError(f"{name} must be seconds from {low} to {high}, not {raw!r}.")
    return value


def _processes(env: dict[str, str], name: str) -> int:
    """The variable ``name`` (1 when unset): a number of worker processes from 0 to 64."""
    raw = env.get(name, "").strip() or "1"
    if not raw.isdigit() or int(raw) > 64:
        raise ConfigError(f"{name} must be a number of processes from 0 to 64, not {raw!r}.")
    return int(raw)


def parse_http(raw: str) -> tuple[str, int] | None:
    """QUETBOT_HTTP's host and port (``127.0.0.1:9100``, ``0.0.0.0:9100``, ``[::1]:9100``); unset: None."""
    raw = raw.strip()
    if not raw:
        return None
    host, colon, port = raw.rpartition(":")
    host = host.strip()
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not colon or not host or not port.isdecimal() or not port.isascii() or not 0 < int(port) < 65536:
        raise ConfigError(
            f"QUETBOT_HTTP must be a host and a port, like 127.0.0.1:9100 or 0.0.0.0:9100, not {raw!r}."
        )
    return host, int(port)
