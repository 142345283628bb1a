"""The bot's clock for due work: the time, plus an offset tests can move across processes.

In production it is `time.time`. When ``QUETBOT_CLOCK_OFFSET_FILE`` names a file, the seconds the file
holds are added to it, re-read at each pass over due work (deadlines, lobbies, computers' moves, the
outbox and its leases), so a test running several bot processes can make a deadline fall due in all
of them by writing one number. A missing or empty file means no offset; anything else unreadable is
logged once and leaves the last offset.
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

    def __call__(self) -> float:
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
