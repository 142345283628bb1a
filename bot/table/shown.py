"""What this process knows Discord already shows (a shortcut, never needed for correctness)."""

from __future__ import annotations


class Shown:
    """What this process knows Discord already shows: messages whose controls it took off, and the
    boards it posted with their text above the status line.

    Only shortcuts (a strip it would repeat otherwise, a text it would rebuild from the log); after
    a restart they are empty and the safe side is taken. Bounded.
    """

    def __init__(self, size: int = 10_000) -> None:
        self._bare: dict[int, None] = {}
        self._above: dict[int, str] = {}  # board message id -> its text above the status line
        self._size = size

    def posted(self, message_id: int, above: str) -> None:
        """A board this process posted, with its text above the status line (what a secret pick's
        edit keeps). Only a shortcut: the same text is rebuilt from the move log when it is not here
        (after a restart, or posted by another process)."""
        self._above[message_id] = above
        if len(self._above) > self._size:
            self._above.pop(next(iter(self._above)))

    def above(self, message_id: int) -> str | None:
        return self._above.get(message_id)

    def bare(self, message_id: int) -> None:
        self._bare[message_id] = None
        if len(self._bare) > self._size:
            self._bare.pop(next(iter(self._bare)))

    def has_controls(self, message_id: int) -> bool:
        return message_id not in self._bare

    def forget(self, message_id: int) -> None:
        self._bare.pop(message_id, None)
