"""The bot's log output: plain text (the default) or one JSON object a line (``QUETBOT_LOG_FORMAT=json``),
and the redaction every record goes through first, in either format.

Redaction is a safety net, not a licence to log secrets: the bot's own log calls name games, seats and
interactions by id, never a hand, a prediction or a pick. What it catches is what libraries log:

- discord.py at DEBUG logs the body of every request it makes (a DM panel's text holds a hand) and of
  every gateway event it receives (an interaction's token, the values a player chose). For records of
  the ``discord`` loggers, an argument that is a payload (a dict or list, a JSON text, a form, bytes)
  is written as ``[payload]``; the method, the route, the status and the event's name stay.
- Tokens: the bot token wherever it appears, the token in a webhook or interaction callback URL
  (``/webhooks/<app id>/<token>``, ``/interactions/<id>/<token>/callback``) and a ``"token": "..."``
  field, in the message, the exception's traceback and the stack, become ``[redacted]``.

A JSON line has ``time`` (ISO 8601, UTC), ``level``, ``logger``, ``message``, ``exc_info`` (the
traceback, with an exception), ``game`` (a record's ``extra={"game": id}``, or the game of
`game_context` around the call) and ``shard`` (a record's ``extra={"shard": ...}``, else the shards
this process runs when the bot is sharded).
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import sys
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from datetime import UTC, datetime
from types import TracebackType

import discord

REDACTED = "[redacted]"
PAYLOAD = "[payload]"
FORMATS = ("text", "json")
LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")

# The token in a webhook URL (an interaction's follow-ups and original response) and in an interaction's
# callback URL; a "token" field of a payload that reached a message some other way.
_URL_TOKEN = re.compile(r"(/(?:webhooks|interactions)/\d+/)([^/\s?#'\"]+)")
_FIELD_TOKEN = re.compile(r"""(["']token["']\s*:\s*["'])([^"']*)""")

_game: ContextVar[int | None] = ContextVar("quetbot_log_game", default=None)


@contextlib.contextmanager
def game_context(game_id: int) -> Iterator[None]:
    """Log records made inside (in this task, and the tasks it starts) carry ``game``."""
    token = _game.set(game_id)
    try:
        yield
    finally:
        _game.reset(token)


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    for secret in secrets:
        if secret:
            text = text.replace(secret, REDACTED)
    text = _URL_TOKEN.sub(rf"\g<1>{REDACTED}", text)
    return _FIELD_TOKEN.sub(rf"\g<1>{REDACTED}", text)


def _is_payload(arg: object) -> bool:
    if isinstance(arg, bool | int | float) or arg is None:
        return False
    if isinstance(arg, dict | list | tuple | set | bytes | bytearray | memoryview):
        return True
    if type(arg).__name__ == "FormData":  # aiohttp's multipart body: a message with its files
        return True
    return str(arg).lstrip().startswith(("{", "["))


class Redact(logging.Filter):
    """Formats each record's message once, without discord.py's payloads and with tokens redacted, and
    redacts its traceback and stack; formatters after it see only the result."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        self.secrets = tuple(s for s in secrets if s)

    def filter(self, record: logging.LogRecord) -> bool:
        if record.args and (record.name == "discord" or record.name.startswith("discord.")):
            if isinstance(record.args, dict):
                record.args = {k: PAYLOAD if _is_payload(v) else v for k, v in record.args.items()}
            else:
                record.args = tuple(PAYLOAD if _is_payload(a) else a for a in record.args)
        try:
            message = record.getMessage()
        except Exception:  # (a call whose arguments do not fit its message: its text alone)
            message = f"{record.msg} [arguments could not be formatted]"
        record.msg, record.args = redact(message, self.secrets), None
        if record.exc_info and not record.exc_text:
            record.exc_text = _formatter.formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = redact(record.exc_text, self.secrets)
        # (Only the redacted text goes on: discord.py's colour formatter formats exc_info afresh.)
        record.exc_info = None
        if record.stack_info:
            record.stack_info = redact(record.stack_info, self.secrets)
        return True


_formatter = logging.Formatter()


class JsonFormatter(logging.Formatter):
    """One JSON object a line (any newline inside a message or traceback is escaped)."""

    def __init__(self, shard: str | None = None) -> None:
        super().__init__()
        self.shard = shard

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        game = getattr(record, "game", None)
        if game is None:
            game = _game.get()
        if game is not None:
            line["game"] = game
        shard = getattr(record, "shard", None)
        if shard is None:
            shard = self.shard
        if shard is not None:
            line["shard"] = shard
        if record.exc_info and not record.exc_text:  # (a record that met no `Redact`)
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            line["exc_info"] = record.exc_text
        if record.stack_info:
            line["stack_info"] = record.stack_info
        return json.dumps(line, default=str)


def setup(
    *, fmt: str = "text", level: str = "INFO", secrets: Iterable[str] = (), shard: str | None = None
) -> logging.Handler:
    """Log to stderr in ``fmt`` from ``level`` up, every record redacted (see the module's text); the
    handler, on the root logger. Warnings and an exception that ends the process are logged too (so a
    JSON log stays JSON)."""
    handler = logging.StreamHandler()
    handler.addFilter(Redact(secrets))
    formatter: logging.Formatter = JsonFormatter(shard) if fmt == "json" else discord.utils.MISSING
    discord.utils.setup_logging(handler=handler, formatter=formatter, level=getattr(logging, level))
    logging.captureWarnings(True)
    sys.excepthook = _log_uncaught
    return handler


def _log_uncaught(kind: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
    if issubclass(kind, KeyboardInterrupt):
        sys.__excepthook__(kind, exc, tb)
        return
    logging.getLogger("quetbot").critical("The bot stopped on an error", exc_info=(kind, exc, tb))
