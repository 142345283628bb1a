"""What this process knows Discord already shows (a shortcut, never needed for correctness)."""

from __future__ import annotations


class Shown:
    """What this process knows Discord already shows: messages whose controls it took off.

    Only a shortcut (a strip it would repeat otherwise); after a restart it is empty and the safe
    side (stripping again) is taken. Bounded.
    """

    def __init__(self, size: int = 10_000) -> None:
        self._bare: dict[int, None] = {}
        self._size = size

    def bare(self, message_id: int) -> None:
        self._bare[message_id] = None
        if len(self._bare) > self._size:
            self._bare.pop(next(iter(self._bare)))

    def has_controls(self, message_id: int) -> bool:
        return message_id not in self._bare

    def forget(self, message_id: int) -> None:
        self._bare.pop(message_id, None)
