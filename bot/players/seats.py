"""Computer seats: how a computer sits at a table among people.

A seat holds a user id. A computer's is negative (Discord's ids are positive), and says the computer's
level and its number at the table: ``-(100 * level + k)`` for the k-th computer (1-based) at level
``LEVELS[level - 1]``. Its name is "Computer (hard)", or "Computer 2 (hard)" from the second on.

A person who asked to be forgotten (`/game privacy delete`) keeps their seats under a placeholder id
in [`DELETED_FIRST`, `DELETED_LAST`]: positive, so not a computer, and below 2**22, which no Discord id
can be (a snowflake is its creation time in milliseconds since 2015 shifted left 22 bits). Whoever
shows a seat asks `is_deleted` (`bot.present.shown_name`); the storage hands the placeholders out
(`bot.storage.privacy`).
"""

from __future__ import annotations

from collections.abc import Iterable

from bot.players import LEVELS

MAX_PER_TABLE = 99


def computer_id(level: str, k: int) -> int:
    """The seat id of the k-th computer (1-based) at ``level``."""
    if level not in LEVELS or not 1 <= k <= MAX_PER_TABLE:
        raise ValueError(f"no computer {k} at level {level!r}")
    return -(100 * (LEVELS.index(level) + 1) + k)


DELETED_FIRST = 1 << 21
DELETED_LAST = (1 << 22) - 1


def is_computer(user_id: int) -> bool:
    return user_id < 0


def is_deleted(user_id: int) -> bool:
    """Whether ``user_id`` is the placeholder of a person who asked to be forgotten."""
    return DELETED_FIRST <= user_id <= DELETED_LAST


def level_of(user_id: int) -> str:
    return LEVELS[(-user_id) // 100 - 1]


def number_of(user_id: int) -> int:
    return (-user_id) % 100


def computer_name(user_id: int) -> str:
    k = number_of(user_id)
    return f"Computer ({level_of(user_id)})" if k == 1 else f"Computer {k} ({level_of(user_id)})"


def next_computer(seated: Iterable[int], level: str) -> int:
    """The id of one more computer at ``level`` at a table where ``seated`` sit."""
    taken = {number_of(u) for u in seated if is_computer(u)}
    k = next(k for k in range(1, MAX_PER_TABLE + 1) if k not in taken)
    return computer_id(level, k)


def people(seated: Iterable[int]) -> list[int]:
    """The people among ``seated`` (computers left out)."""
    return [u for u in seated if not is_computer(u)]
