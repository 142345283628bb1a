"""The names of what is JSON: the one place where a value's type is truly open.

A game's stored state, a move's stored action, an outbox effect's arguments, a database row's
columns and Discord's payloads are JSON (or rows of database values): their shape is checked where
they are parsed into typed objects (a game's `State.from_dict`, `OutboxEffect.parse`, discord.py's
models), not by the type checker. Everything else in `bot/` is typed; these aliases say, where a
value is left open, that it is for this reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeAlias

JSON: TypeAlias = Any  # a value parsed from JSON or to be written as JSON
JSONObject: TypeAlias = dict[str, JSON]  # a JSON object (a stored state, a request's body)
JSONMap: TypeAlias = Mapping[str, JSON]  # a JSON object only read
DBValue: TypeAlias = Any  # a value read from or written to a database column (driver-typed)
