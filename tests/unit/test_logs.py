"""Logs (bot/logs.py): JSON lines that parse and carry their fields, plain text by default, and no token
or Discord payload in either format, in a message or in a traceback. The bot run as a process, with a
whole secret game at DEBUG: tests/e2e/test_log_secrets.py."""

from __future__ import annotations

import io
import json
import logging
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path

import discord.utils
import pytest

from bot.config import ConfigError, load_settings
from bot.logs import REDACTED, JsonFormatter, Redact, game_context

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GaBcDe.bot-token-that-must-never-be-logged_0123456789"
ITOKEN = "aW50ZXJhY3Rpb246MTIzNDU2Nzg5MDEyMzQ1Njc4OnNlY3JldA"  # an interaction's token
API = "https://discord.com/api/v10"
HAND = "Your hand: 3C, 7D, 10H, QS"
PREDICTION = "UDSSUDUS"


def text_formatter() -> logging.Formatter:
    """discord.utils.setup_logging's plain formatter (what a log file or a pipe gets)."""
    return logging.Formatter("[{asctime}] [{levelname:<8}] {name}: {message}", "%Y-%m-%d %H:%M:%S", style="{")


FORMATTERS = {
    "json": lambda: JsonFormatter(shard="0,1"),
    "text": text_formatter,
    "colour": lambda: discord.utils._ColourFormatter(),  # (a terminal's: formats exc_info afresh)
}


@pytest.fixture(params=sorted(FORMATTERS))
def fmt(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def capture(fmt: str) -> tuple[logging.Handler, io.StringIO]:
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.addFilter(Redact([TOKEN]))
    handler.setFormatter(FORMATTERS[fmt]())
    return handler, out


@pytest.fixture
def logged(fmt: str) -> Iterator[io.StringIO]:
    """What the loggers the bot and discord.py use write, through the bot's filter and ``fmt``."""
    handler, out = capture(fmt)
    names = ("quetbot.test", "discord.http", "discord.gateway", "discord.webhook.async_")
    loggers = [logging.getLogger(name) for name in names]
    saved = [(lg.level, lg.propagate) for lg in loggers]
    for lg in loggers:
        lg.addHandler(handler)
        lg.setLevel(logging.DEBUG)
        lg.propagate = False
    try:
        yield out
    finally:
        for lg, (level, propagate) in zip(loggers, saved, strict=True):
            lg.removeHandler(handler)
            lg.setLevel(level)
            lg.propagate = propagate


def log_everything() -> None:
    """The lines discord.py writes at DEBUG with payloads and tokens in them (its own format strings),
    and the bot's own lines, one with an exception whose text holds the secrets."""
    callback = f"{API}/interactions/1234567890123456789/{ITOKEN}/callback"
    webhook = f"{API}/webhooks/987654321098765432/{ITOKEN}/messages/@original"
    body = json.dumps({"type": 4, "data": {"content": HAND, "flags": 64}})
    http = logging.getLogger("discord.http")
    http.debug("%s %s with %s has returned %s", "POST", callback, body, 204)
    http.debug("%s %s has received %s", "PATCH", webhook, {"id": "1", "content": HAND})
    event = {"t": "INTERACTION_CREATE", "op": 0, "d": {"token": ITOKEN, "data": {"values": [PREDICTION]}}}
    logging.getLogger("discord.gateway").debug("For Shard ID %s: WebSocket Event: %s", 0, event)
    logging.getLogger("discord.webhook.async_").debug(
        "Webhook ID %s with %s %s has returned status code %s", 987654321098765432, "PATCH", webhook, 200
    )
    bot = logging.getLogger("quetbot.test")
    bot.info("Started with token %s (oops)", TOKEN)
    bot.warning("Move saved", extra={"game": 7})
    with game_context(8):
        bot.info("An outbox item of the game's")
    try:
        raise RuntimeError(f"POST {webhook} failed; Authorization: Bot {TOKEN}; sent {{'token': '{ITOKEN}'}}")
    except RuntimeError:
        bot.exception("The outbox pass failed; trying again shortly")


def test_no_token_and_no_payload_in_any_format(fmt: str, logged: io.StringIO) -> None:
    log_everything()
    out = logged.getvalue()
    for secret in (TOKEN, ITOKEN, HAND, PREDICTION):
        assert secret not in out, (secret, out)
    assert not re.search(r"""["']token["']\s*:\s*["'](?!\[redacted\])""", out)
    # What stays: the method, the route up to the token, the status, the event, the bot's words.
    assert f"POST {API}/interactions/1234567890123456789/{REDACTED}/callback with [payload]" in out
    assert "has returned 204" in out
    assert f"/webhooks/987654321098765432/{REDACTED}/messages/@original" in out
    assert "WebSocket Event: [payload]" in out
    assert f"Started with token {REDACTED} (oops)" in out
    assert "The outbox pass failed" in out and "Traceback" in out and "RuntimeError: POST" in out
    assert f"Authorization: Bot {REDACTED}" in out


@pytest.mark.parametrize("fmt", ["json"])
def test_every_json_line_parses_and_has_its_fields(logged: io.StringIO) -> None:
    log_everything()
    lines = logged.getvalue().splitlines()
    assert len(lines) == 8
    records = [json.loads(line) for line in lines]
    for record in records:
        assert {"time", "level", "logger", "message", "shard"} <= record.keys(), record
        when = datetime.fromisoformat(record["time"])
        assert when.utcoffset() == timedelta(0)
        assert record["shard"] == "0,1"
    assert [r["level"] for r in records[:4]] == ["DEBUG"] * 4
    assert records[0]["logger"] == "discord.http"
    assert [r.get("game") for r in records] == [None] * 5 + [7, 8, None]
    failed = records[-1]
    assert failed["level"] == "ERROR" and failed["message"] == "The outbox pass failed; trying again shortly"
    assert failed["exc_info"].startswith("Traceback") and "RuntimeError: POST" in failed["exc_info"]


@pytest.mark.parametrize("fmt", ["json"])
def test_a_record_s_own_shard_wins(logged: io.StringIO) -> None:
    logging.getLogger("quetbot.test").info("Shard 1 is ready", extra={"shard": 1})
    assert json.loads(logged.getvalue())["shard"] == 1


def test_the_plain_format_is_discord_s() -> None:
    handler, out = capture("text")
    record = logging.LogRecord("quetbot.test", logging.INFO, __file__, 1, "Synced %d commands", (3,), None)
    assert handler.filter(record)
    handler.emit(record)
    assert out.getvalue().rstrip().endswith("[INFO    ] quetbot.test: Synced 3 commands")


def test_log_settings_from_environment() -> None:
    s = load_settings({"DISCORD_TOKEN": "t"})
    assert (s.log_format, s.log_level) == ("text", "INFO")
    s = load_settings({"DISCORD_TOKEN": "t", "QUETBOT_LOG_FORMAT": " JSON ", "QUETBOT_LOG_LEVEL": "debug"})
    assert (s.log_format, s.log_level) == ("json", "DEBUG")
    assert load_settings({"DISCORD_TOKEN": "t", "QUETBOT_LOG_FORMAT": "text"}).log_format == "text"
    with pytest.raises(ConfigError, match="QUETBOT_LOG_FORMAT must be text or json, not 'xml'"):
        load_settings({"DISCORD_TOKEN": "t", "QUETBOT_LOG_FORMAT": "xml"})
    with pytest.raises(ConfigError, match="QUETBOT_LOG_LEVEL must be DEBUG, INFO"):
        load_settings({"DISCORD_TOKEN": "t", "QUETBOT_LOG_LEVEL": "loud"})


def run(tmp_path: Path, args: list[str], **env_vars: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "QUETBOT_"))}
    env.update(PYTHONPATH=str(ROOT), **env_vars)
    return subprocess.run(
        [sys.executable, *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )


@pytest.mark.parametrize(("name", "value"), [("QUETBOT_LOG_FORMAT", "xml"), ("QUETBOT_LOG_LEVEL", "loud")])
def test_a_bad_log_setting_is_one_line_and_status_2(tmp_path: Path, name: str, value: str) -> None:
    proc = run(tmp_path, ["-m", "bot"], DISCORD_TOKEN="t", **{name: value})
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and name in lines[0] and repr(value) in lines[0], proc.stderr


SETUP = f"""
import logging, warnings
from bot import logs
logs.setup(fmt="json", level="DEBUG", secrets=[{TOKEN!r}], shard="1")
logging.getLogger("quetbot").debug("token %s", {TOKEN!r})
warnings.warn("a warning, logged")
raise SystemError("stopped; token " + {TOKEN!r})
"""


def test_setup_logs_warnings_and_a_fatal_error_as_json_too(tmp_path: Path) -> None:
    proc = run(tmp_path, ["-c", SETUP])
    assert proc.returncode == 1
    assert TOKEN not in proc.stderr
    records = [json.loads(line) for line in proc.stderr.splitlines()]
    assert [r["logger"] for r in records] == ["quetbot", "py.warnings", "quetbot"]
    assert records[0]["message"] == f"token {REDACTED}"
    assert "SystemError: stopped; token [redacted]" in records[-1]["exc_info"]
    assert records[-1]["level"] == "CRITICAL"
