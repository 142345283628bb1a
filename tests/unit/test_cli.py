"""The console entry point: a missing token or a bad option is one clear line and exit status 2, never a
traceback; the shard options."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from discord.ext import commands

from bot.app import QuetBot, ShardedQuetBot, create_bot
from bot.config import ConfigError, Settings, load_settings, parse_shards

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


def test_draw_workers_from_environment() -> None:
    assert load_settings({"DISCORD_TOKEN": "t"}).draw_workers == 1
    assert load_settings({"DISCORD_TOKEN": "t", "QUETBOT_DRAW_WORKERS": "0"}).draw_workers == 0
    with pytest.raises(ConfigError, match="QUETBOT_DRAW_WORKERS"):
        load_settings({"DISCORD_TOKEN": "t", "QUETBOT_DRAW_WORKERS": "two"})


def run_quetbot(tmp_path: Path, *args: str, **env_vars: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "QUETBOT_"))}
    env.update(PYTHONPATH=str(ROOT), **env_vars)
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize(
    ("args", "env", "named"),
    [
        (["--shard-count", "2", "--shards", "2"], {}, "shard 2 does not exist"),
        (["--shard-count", "two"], {}, "--shard-count"),
        (["--shards", "0"], {}, "need the shard count"),
        ([], {"QUETBOT_SHARD_COUNT": "0"}, "QUETBOT_SHARD_COUNT"),
        (["--shard-count", "4"], {"QUETBOT_SHARDS": "1;2"}, "QUETBOT_SHARDS"),
        (["--shard", "1"], {}, "unrecognized arguments"),
        (["--shard-count"], {}, "expected one argument"),
    ],
)
def test_bad_shard_options_are_one_line_and_status_2(
    tmp_path: Path, args: list[str], env: dict[str, str], named: str
) -> None:
    proc = run_quetbot(tmp_path, *args, DISCORD_TOKEN="a.token", **env)
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("quetbot: ") and named in lines[0], proc.stderr


def test_help_names_the_shard_options(tmp_path: Path) -> None:
    proc = run_quetbot(tmp_path, "--help")
    assert proc.returncode == 0 and "--shard-count N" in proc.stdout and "--shards IDS" in proc.stdout


@pytest.mark.parametrize(
    ("count", "ids", "expected"),
    [
        ("", "", (None, None)),
        ("1", "", (1, (0,))),
        ("3", "", (3, (0, 1, 2))),
        ("4", "0,1", (4, (0, 1))),
        (" 8 ", "6-7, 0,2-3", (8, (0, 2, 3, 6, 7))),
        ("2", "1", (2, (1,))),
    ],
)
def test_shards_from_text(count: str, ids: str, expected: tuple[object, object]) -> None:
    assert tuple(parse_shards(count, ids)) == expected


@pytest.mark.parametrize(
    ("count", "ids", "named"),
    [
        ("0", "", "from 1"),
        ("-1", "", "from 1"),
        ("٣", "", "from 1"),
        ("2.0", "", "from 1"),
        ("", "0", "need the shard count"),
        ("2", "2", "shard 2 does not exist; with 2 shards they are 0 to 1"),
        ("4", "0,0", "name shard 0 more than once"),
        ("4", "0-2,2", "name shard 2 more than once"),
        ("4", "3-1", "runs backwards"),
        ("4", "0,,1", "like 0,1 or 0-3"),
        ("4", "a", "like 0,1 or 0-3"),
        ("4", "1-", "like 0,1 or 0-3"),
    ],
)
def test_bad_shards_say_what_to_write(count: str, ids: str, named: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(named)):
        parse_shards(count, ids)


def test_shard_settings_from_environment_and_command_line() -> None:
    s = load_settings({"DISCORD_TOKEN": "t"})
    assert (s.shard_count, s.shard_ids, s.syncs_commands) == (None, None, True)
    env = {"DISCORD_TOKEN": "t", "QUETBOT_SHARD_COUNT": "4", "QUETBOT_SHARDS": "2,3"}
    s = load_settings(env)
    assert (s.shard_count, s.shard_ids, s.syncs_commands) == (4, (2, 3), False)
    s = load_settings(env, shards="0-1")  # the command line wins over the environment
    assert (s.shard_count, s.shard_ids, s.syncs_commands) == (4, (0, 1), True)
    s = load_settings(env, shard_count="2", shards="")  # --shards "" : every shard of the count
    assert (s.shard_count, s.shard_ids) == (2, (0, 1))


def test_the_bot_is_sharded_only_when_asked() -> None:
    plain = create_bot(Settings(token="t"))
    assert type(plain) is QuetBot and not isinstance(plain, commands.AutoShardedBot)
    assert plain.shard_count is None
    sharded = create_bot(Settings(token="t", shard_count=4, shard_ids=(1, 3)))
    assert isinstance(sharded, ShardedQuetBot) and isinstance(sharded, commands.AutoShardedBot)
    assert (sharded.shard_count, sharded.shard_ids) == (4, [1, 3])


def test_stop_grace_and_http_settings() -> None:
    s = load_settings({"DISCORD_TOKEN": "t"})
    assert s.stop_grace == 10.0 and s.http is None
    s = load_settings({"DISCORD_TOKEN": "t", "QUETBOT_STOP_GRACE": "25", "QUETBOT_HTTP": "0.0.0.0:9100"})
    assert s.stop_grace == 25.0 and s.http == ("0.0.0.0", 9100)
    assert load_settings({"DISCORD_TOKEN": "t", "QUETBOT_HTTP": "[::1]:80"}).http == ("::1", 80)
    for bad in ("0", "-1", "ten", "601"):
        with pytest.raises(ConfigError, match="QUETBOT_STOP_GRACE"):
            load_settings({"DISCORD_TOKEN": "t", "QUETBOT_STOP_GRACE": bad})
    for bad in ("9100", "localhost", "host:port", ":9100", "host:70000"):
        with pytest.raises(ConfigError, match="QUETBOT_HTTP"):
            load_settings({"DISCORD_TOKEN": "t", "QUETBOT_HTTP": bad})
