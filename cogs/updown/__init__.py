"""Up-Down-Stay, one package: ``rules.py`` the pure rules, ``present.py`` what players read
(built from views), ``render.py`` the board's image, ``player.py`` the computer player,
``rules_text.py`` the rules as /game rules tells them, ``commands.py`` the slash commands. Tests:
tests/games/updown/.

``SPEC`` (built in ``spec.py``) is loaded on first use, so that importing the pure parts (the rules,
the player) loads no discord, database or drawing code."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from cogs.updown.spec import SPEC as SPEC


def __getattr__(name: str) -> Any:
    if name == "SPEC":
        from cogs.updown.spec import SPEC

        return SPEC
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
