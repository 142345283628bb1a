"""A game's past, replayed from its move log: its state rebuilt, or every step of it."""

from __future__ import annotations

from bot.rules import play
from bot.rules.base import GameState
from bot.service.games import Games
from bot.service.model import History, Step


class Histories:
    def __init__(self, games: Games) -> None:
        self.games = games

    async def replay(self, game_id: int) -> GameState:
        """Rebuild a game's state from its initial state and its move log."""
        row, moves = await self.games.storage.game_with_moves(game_id=game_id)
        rules = self.games.rules_for(row.kind)
        state = rules.new_game(len(row.seats), row.options, row.seed)
        for move in moves:
            state = play(rules, state, move.seat, move.action)
        return state

    async def history(self, game_id: int, *, until: int | None = None) -> History[GameState]:
        """A started game's moves up to version ``until`` (default: all), replayed from its log.

        The row and the log are read in one transaction, so a version is mapped onto the move that
        made it however many moves were committed since (never from a cached row, which may be
        older than the log)."""
        row, moves = await self.games.storage.game_with_moves(game_id=game_id)
        rules = self.games.rules_for(row.kind)
        start_version = row.version - len(moves) - (1 if row.status == "cancelled" else 0)
        first = state = rules.new_game(len(row.seats), row.options, row.seed)
        steps: list[Step[GameState]] = []
        for version, move in enumerate(moves, start=start_version + 1):
            if until is not None and version > until:
                break
            after = play(rules, state, move.seat, move.action)
            steps.append(Step(version, move.seat, move.action, state, after))
            state = after
        return History(game_id, start_version, first, tuple(steps))
