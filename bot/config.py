"""Configuration from the environment (or a ``.env`` file beside the working directory)."""

from __future__ import annotations

import os
from dataclasses import dataclass

from dotenv import load_dotenv

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


def load_settings(env: dict[str, str] | None = None) -> Settings:
    if env is None:
        load_dotenv()
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
    pause_raw = env.get("QUETBOT_COMPUTER_PAUSE", "").strip() or "2"
    try:
        pause = float(pause_raw)
    except ValueError:
        pause = -1.0
    if not 0 <= pause <= 60:
        raise ConfigError(f"QUETBOT_COMPUTER_PAUSE must be seconds from 0 to 60, not {pause_raw!r}.")
    workers_raw = env.get("QUETBOT_COMPUTER_WORKERS", "").strip() or "1"
    if not workers_raw.isdigit() or int(workers_raw) > 64:
        raise ConfigError(
            f"QUETBOT_COMPUTER_WORKERS must be a number of processes from 0 to 64, not {workers_raw!r}."
        )
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
        computer_workers=int(workers_raw),
    )
