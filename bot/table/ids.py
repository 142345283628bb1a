"""Component and form ids: the one format, parsed once, strictly.

Every button, select and form the bot draws carries a custom_id naming the game, the state version
it was drawn for (moves only) and a verb, so clicks are routed after restarts without any in-memory
View. A custom_id never holds a secret.

    q:<game id>:<version or ->:<verb>[:<arg>]     e.g. q:12:7:flip:3, q:12:-:join
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.errors import StaleButton

MAX_ID = (1 << 63) - 1  # game ids and versions are SQLite integers: within 64 bits, signed

_ID = re.compile(
    r"q:(?P<game>[0-9]{1,19}):(?P<version>[0-9]{1,9}|-):(?P<verb>[a-z_]{1,20})(?::(?P<arg>[A-Za-z0-9_.-]{0,40}))?"
)


@dataclass(frozen=True)
class ComponentId:
    game_id: int
    version: int | None
    verb: str
    arg: str = ""

    def render(self) -> str:
        version = "-" if self.version is None else str(self.version)
        tail = f":{self.arg}" if self.arg else ""
        return f"q:{self.game_id}:{version}:{self.verb}{tail}"

    def require_version(self) -> int:
        """The version a move control was drawn for; a move control without one is outdated."""
        if self.version is None:
            raise StaleButton(
                "That control is out of date (it names no position of the game). Use the latest board, "
                "or /game status to see it."
            )
        return self.version


def custom_id(game_id: int, verb: str, arg: object = "", *, version: int | None = None) -> str:
    return ComponentId(game_id, version, verb, str(arg)).render()


def unrecognised() -> StaleButton:
    """The answer to a control whose id the bot cannot read (or whose verb nothing handles)."""
    return StaleButton(
        "That control is not one I recognise (it may be from an old version). Use /game status."
    )


def parse_custom_id(raw: str) -> ComponentId:
    m = _ID.fullmatch(raw)
    game_id = int(m["game"]) if m is not None else 0
    if m is None or not 0 < game_id <= MAX_ID:
        raise unrecognised()
    version = m["version"]
    return ComponentId(
        game_id=game_id,
        version=None if version == "-" else int(version),
        verb=m["verb"],
        arg=m["arg"] or "",
    )
