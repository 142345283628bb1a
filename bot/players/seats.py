"""Computer seats: how a computer sits at a table among people.

A seat holds a user id. A computer's is negative (Discord's ids are positive), and says the computer's
level and its number at the table: ``-(100 * level + k)`` for the k-th computer (1-based) at level
``LEVELS[level - 1]``. Its name is "Computer (hard)", or "Computer 2 (hard)" from the second on.
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


def is_computer(user_id: int) -> bool:
    return user_id < 0


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
