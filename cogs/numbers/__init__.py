"""Numbers To Number, one package: its rules, presentation, board image, computer player, rules text and
commands, one module each (the layout of every game: `bot.spec`). Tests: tests/games/numbers/. Its
``SPEC`` (built in ``spec.py``) is loaded on first use: see `bot.cogkit.lazy`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.cogkit.lazy import lazy_spec

if TYPE_CHECKING:
    from cogs.numbers.spec import SPEC as SPEC

__getattr__ = lazy_spec(__name__)
