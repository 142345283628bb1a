"""The console entry point: a missing token is one clear line and exit status 2, never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.config import ConfigError, load_settings

ROOT = Path(__file__).resolve().parents[2]


def test_missing_token_is_one_line_and_status_2(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "QUETBOT_"))}
    env["PYTHONPATH"] = str(ROOT)
    proc = subprocess.run(
        [sys.executable, "-m", "bot"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "DISCORD_TOKEN" in lines[0] and "Traceback" not in proc.stderr


def test_settings_from_environment() -> None:
    s = load_settings({"DISCORD_TOKEN": " abc ", "QUETBOT_DB": "x.db", "QUETBOT_DEV_GUILD": "123"})
    assert (s.token, s.db_path, s.dev_guild) == ("abc", "x.db", 123)
    assert load_settings({"DISCORD_TOKEN": "t"}).db_path == "quetbot.sqlite3"
    with pytest.raises(ConfigError, match="QUETBOT_DEV_GUILD"):
        load_settings({"DISCORD_TOKEN": "t", "QUETBOT_DEV_GUILD": "my server"})


def test_the_database_setting_is_kept_as_given_and_an_unknown_url_refused() -> None:
    for value in ("postgresql://bot:pw@db:5432/quetbot", "postgres://db/q", "sqlite:///games.db", "g.db"):
        assert load_settings({"DISCORD_TOKEN": "t", "QUETBOT_DB": value}).db_path == value
    with pytest.raises(ConfigError, match="QUETBOT_DB: Unknown database URL mysql://"):
        load_settings({"DISCORD_TOKEN": "t", "QUETBOT_DB": "mysql://db/q"})


def test_computer_settings_from_environment() -> None:
    s = load_settings({"DISCORD_TOKEN": "t"})
    assert (s.computer_pause, s.computer_workers) == (2.0, 1)
    env = {"DISCORD_TOKEN": "t", "QUETBOT_COMPUTER_PAUSE": "0.5", "QUETBOT_COMPUTER_WORKERS": "0"}
    s = load_settings(env)
    assert (s.computer_pause, s.computer_workers) == (0.5, 0)
    with pytest.raises(ConfigError, match="QUETBOT_COMPUTER_WORKERS"):
        load_settings({"DISCORD_TOKEN": "t", "QUETBOT_COMPUTER_WORKERS": "-1"})
    with pytest.raises(ConfigError, match="QUETBOT_COMPUTER_PAUSE"):
        load_settings({"DISCORD_TOKEN": "t", "QUETBOT_COMPUTER_PAUSE": "soon"})
