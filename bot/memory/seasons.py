"""A server's seasons, pure: which calendar month or quarter (UTC) each season number is.

A *run* of seasons begins when a server turns seasons on (or changes their length): its first season
is the first whole month or quarter after that moment, numbered one more than the last season the
server had (1 for the first run), and each following month or quarter is the next number. Games
finished before a run's first season count in none of its seasons; a season's standings are the
period standings of its month or quarter (`bot.storage.records`), so a season ranks by the rating
gained in it like the leaderboard of a month.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.memory.periods import index_key, index_start, period_index


@dataclass(frozen=True)
class Run:
    """Seasons of ``mode`` ("month" or "quarter"): season ``first_season`` is the period ``first_index``
    (`bot.memory.periods.period_index`), and so on."""

    mode: str
    first_season: int
    first_index: int

    @classmethod
    def starting_after(cls, mode: str, now: float, first_season: int) -> Run:
        """A run turned on at ``now``: its first season is the next whole month or quarter."""
        return cls(mode, first_season, period_index(mode, now) + 1)

    def season_at(self, at: float) -> int:
        """The season number of the moment ``at`` (below ``first_season`` before the run begins)."""
        return self.first_season + period_index(self.mode, at) - self.first_index

    def index(self, season: int) -> int:
        return self.first_index + season - self.first_season

    def key(self, season: int) -> str:
        """The stored period key of ``season`` ("m2026-12", "q2027-Q1")."""
        return index_key(self.mode, self.index(season))

    def starts(self, season: int) -> float:
        return index_start(self.mode, self.index(season))

    def ends(self, season: int) -> float:
        return index_start(self.mode, self.index(season) + 1)

    def ended(self, now: float) -> int:
        """The last season of the run that has ended by ``now`` (``first_season - 1``: none yet)."""
        return self.season_at(now) - 1
