"""The bot's clock for due work: the time, plus an offset tests can move across processes.

In production it is `time.time`. When ``QUETBOT_CLOCK_OFFSET_FILE`` names a file, the seconds the file
holds are added to it, re-read whenever the time is asked (so at least on each pass over due work:
deadlines, lobbies, computers' moves, the outbox and its leases), so a test running several bot
processes can make a deadline fall due in all of them by writing one number. A missing or empty file
means no offset; anything else unreadable is logged once and leaves the last offset.

The process has one clock (`install`, by the bot at start): the times the storage writes (a move's,
a new deadline's, a lobby's) come from `now()`, so a deadline set after the clock moved is an hour
after the moved time, not already past.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

log = logging.getLogger(__name__)


class Clock:
    def __init__(self, offset_file: str | None = None) -> None:
        self.offset_file = Path(offset_file) if offset_file else None
        self.offset = 0.0
        self._complained = False
        self.refresh()

    @property
    def movable(self) -> bool:
        """Whether a test may move this clock (then due work is looked at every second, since a
        deadline can fall due at any moment)."""
        return self.offset_file is not None

    def __call__(self) -> float:
        if self.offset_file is not None:
            self.refresh()  # (tests only: a small file, read each time, so every time agrees)
        return time.time() + self.offset

    def refresh(self) -> None:
        """Read the offset file again (nothing to do without one)."""
        if self.offset_file is None:
            return
        try:
            text = self.offset_file.read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            text = ""
        except OSError as exc:
            self._complain(f"cannot be read ({exc})")
            return
        try:
            self.offset = float(text) if text else 0.0
        except ValueError:
            self._complain(f"holds {text[:40]!r}, not a number of seconds")

    def _complain(self, why: str) -> None:
        if not self._complained:
            self._complained = True
            log.warning(
                "The clock offset file %s %s; keeping an offset of %s s", self.offset_file, why, self.offset
            )


_clock = Clock()


def install(clock: Clock) -> None:
    """Make ``clock`` the process's clock (what `now` reads)."""
    global _clock
    _clock = clock


def now() -> float:
    """The process's time: `time.time` plus the installed clock's offset."""
    return _clock()
