"""Analyses of finished games (`bot.analysis`): made once, kept, read by every later request.

An analysis is derived from the move log alone and names seats, not people (the reader's answer
names them from the game's seats), so it holds nothing personal. The first one stored wins: two
processes that analysed the same game at once keep one analysis, and both answer with it.
"""

from __future__ import annotations

import json

from bot.jsontypes import JSONMap
from bot.storage.driver import Repository


class Analyses(Repository):
    async def analysis(self, *, game_id: int) -> JSONMap | None:
        """The stored analysis of the game (a `bot.analysis.Review` as JSON), if one was made."""
        rows = await self._read("SELECT review FROM analyses WHERE game_id = ?", (game_id,))
        return json.loads(str(rows[0][0])) if rows else None

    async def keep_analysis(self, *, game_id: int, review: JSONMap, now: float) -> JSONMap:
        """Store ``review`` unless the game has an analysis already; the one stored either way."""
        await self._write(
            "INSERT INTO analyses (game_id, review, made_at) VALUES (?, ?, ?) "
            "ON CONFLICT (game_id) DO NOTHING",
            (game_id, json.dumps(review, separators=(",", ":")), now),
        )
        kept = await self.analysis(game_id=game_id)
        assert kept is not None
        return kept
