"""A game's past, replayed from its move log: its state rebuilt, or every step of it."""

from __future__ import annotations

from bot.rules import play, replay
from bot.rules.base import GameState
from bot.service.games import Games
from bot.service.model import History, Step, undo_action


class Histories:
    def __init__(self, games: Games) -> None:
        self.games = games

    async def replay(self, game_id: int) -> GameState:
        """Rebuild a game's state from its initial state and its move log (without the moves taken
        back)."""
        row, moves = await self.games.storage.game_with_moves(game_id=game_id)
        rules = self.games.rules_for(row.kind)
        return replay(rules, rules.new_game(len(row.seats), row.options, row.seed), moves)

    async def history(self, game_id: int, *, until: int | None = None) -> History[GameState]:
        """A started game's moves up to version ``until`` (default: all), replayed from its log.

        The row and the log are read in one transaction, so a version is mapped onto the move that
        made it however many moves were committed since (never from a cached row, which may be
        older than the log). A move taken back made its version, and its takeback the version
        its mark names: that step returns the state from before the move."""
        row, moves = await self.games.storage.game_with_moves(game_id=game_id)
        rules = self.games.rules_for(row.kind)
        takebacks = {m.undone: m for m in moves if m.undone is not None}
        changes = len(moves) + len(takebacks)
        start_version = row.version - changes - (1 if row.status == "cancelled" else 0)
        first = state = rules.new_game(len(row.seats), row.options, row.seed)
        steps: list[Step[GameState]] = []
        before_move: dict[int, GameState] = {}
        logged = iter(moves)
        for version in range(start_version + 1, start_version + changes + 1):
            if until is not None and version > until:
                break
            taken = takebacks.get(version)
            if taken is not None:
                after = before_move[taken.seq]
                steps.append(Step(version, taken.seat, undo_action(taken.seq), state, after))
            else:
                move = next(logged)
                before_move[move.seq] = state
                after = play(rules, state, move.seat, move.action)
                steps.append(Step(version, move.seat, move.action, state, after))
            state = after
        return History(game_id, start_version, first, tuple(steps))
