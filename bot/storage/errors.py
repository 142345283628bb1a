"""The storage package's own errors: what a driver turns its backend's errors into, and the refused
compare-and-swap. Nothing above the storage package sees a ``sqlite3`` (or ``asyncpg``) exception."""

from __future__ import annotations

from bot.errors import GameError


class StorageError(Exception):
    """The database refused or failed a statement (a bug or a broken database, not a player's error)."""


class Conflict(StorageError):
    """A write broke a uniqueness or reference constraint; the whole transaction was rolled back."""


class StaleVersion(GameError):
    """The game row changed between reading and writing (another move won the race)."""

    def __init__(self) -> None:
        super().__init__("The game changed while you were acting: look at the latest board and try again.")
