"""Takebacks below Discord: which move a player may take back, the game rebuilt without it, and the
takeback committed (the move marked in the log, the state swapped in on the version, its effects
queued) in one transaction. Who must agree, and how they are asked, is the table's
(`bot.table.undo`).

A player may take back their own last move while no later move exists: the last move of the log
that is not taken back already is theirs (and is no forfeit). In Lines By The Dots, where a turn is
two lines, that is the caller's last *line*: the horizontal line of a finished turn (their vertical
line after it, by another takeback), or the vertical line while their turn is half drawn.
"""

from __future__ import annotations

from dataclasses import replace

from bot.errors import GameOver, IllegalMove, NotAPlayer
from bot.rules import replay
from bot.rules.base import forfeit_of
from bot.service.games import Games
from bot.service.model import Loaded, MoveResult, undo_action
from bot.storage import MoveRow, Storable
from bot.storage.undo import Takeback

HOUR = 3600.0
ASK_FOR = HOUR  # a request unanswered this long lapses: nothing changes


class Takebacks:
    def __init__(self, games: Games) -> None:
        self.games = games

    async def last_move(self, game: Loaded, user_id: int) -> tuple[int, MoveRow, list[MoveRow]]:
        """The caller's seat, the move they may take back, and the game's log; refused (a
        `GameError`) when the game is over, they do not play, have no move, or someone moved since."""
        row = game.row
        if row.status == "lobby":
            raise IllegalMove(
                "Game #{game_id} has not started yet: there is no move to take back.", game_id=row.id
            )
        if not row.live:
            raise GameOver("Game #{game_id} is over: its moves can no longer be taken back.", game_id=row.id)
        seat = row.seat_of(user_id)
        if seat is None:
            raise NotAPlayer(
                "You are not playing in game #{game_id}: you have no move to take back.", game_id=row.id
            )
        log = await self.games.storage.moves(game_id=row.id)
        standing = [m for m in log if m.undone is None]
        mine = [m for m in standing if m.seat == seat and forfeit_of(m.action) is None]
        if not mine:
            raise IllegalMove("You have no move to take back in game #{game_id}.", game_id=row.id)
        if standing[-1].seq != mine[-1].seq:
            raise IllegalMove(
                "A move was made after your last one in game #{game_id}: a move can be taken back only "
                "while no later move exists.",
                game_id=row.id,
            )
        return seat, mine[-1], log

    @staticmethod
    def draft(before: Loaded, seat: int, move: MoveRow, log: list[MoveRow]) -> MoveResult:
        """The game with ``move`` taken back (nothing is written): the log replayed without it."""
        rules, row = before.rules, before.row
        marked = [replace(m, undone=row.version + 1) if m.seq == move.seq else m for m in log]
        state = replay(rules, rules.new_game(len(row.seats), row.options, row.seed), marked)
        after_row = replace(row, version=row.version + 1)
        return MoveResult(
            before=before, after=Loaded(after_row, rules, state), seat=seat, action=undo_action(move.seq)
        )

    async def commit(
        self,
        draft: MoveResult,
        seq: int,
        effects: list[Storable],
        *,
        request_id: int | None,
        granted: tuple[int, ...] = (),
    ) -> MoveResult:
        """Write the takeback (the caller holds the game's turn, `bot.service.Moves.turn`);
        `StaleVersion` if the game moved, or the request was answered, meanwhile."""
        before = draft.before
        rules = before.rules
        storage = self.games.storage
        written = await self.games.write(
            before.id,
            storage.write_undo(
                Takeback(
                    game_id=before.id,
                    expected_version=before.row.version,
                    seq=seq,
                    state=draft.after.state.to_dict(),
                    waiting=sorted(rules.to_act(draft.after.state)),
                    effects=effects,
                    request_id=request_id,
                    granted=granted,
                )
            ),
        )
        after = self.games.cache.put(Loaded(written.row, rules, draft.after.state))
        self.games.changed(after)
        return replace(draft, after=after, effects=written.effects)
