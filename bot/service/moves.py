"""Moves: a player's (or a computer's) action checked (seat, turn, version), applied by the rules and
committed with the outbox effects it owes, in one transaction; a missed deadline's forfeit.

A move reads top to bottom, in its caller (`bot.table.play.Plays`):

    async with moves.turn(game_id) as before:               # the game's lock, the game as stored
        draft = moves.prepare(before, user_id, action, ...)   # pure: checks, and the rules applied
        effects = plan(draft)                                 # pure: what the move owes the world
        result = await moves.commit(draft, effects)           # one transaction
    outbox.kick(result.effects)                               # carried out, after the answer

`act` does the first four for the callers that owe nothing (tests, tools).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import TypeVar

from bot import metrics
from bot.errors import GameError, GameOver, IllegalMove, NotAPlayer, StaleButton
from bot.rules import play
from bot.rules.base import FORFEIT, ActionJSON, Forfeit, M, S, TypedAction, action_json
from bot.service.games import Games
from bot.service.model import Loaded, MoveResult, Owed
from bot.storage import Storable, Written
from bot.storage.driver import Txn

TIMEOUT_FORFEIT = {"type": "forfeit", "reason": "timeout"}
V = TypeVar("V")  # the game's view
STALE = "That board is out of date: the game has moved on. Use the latest board (or /game status to see it)."


class Moves:
    def __init__(self, games: Games) -> None:
        self.games = games

    @asynccontextmanager
    async def turn(self, game_id: int) -> AsyncIterator[Loaded]:
        """The game's lock held, and the game as stored: prepare and commit one move inside."""
        async with self.games.lock(game_id):
            yield await self.games.get(game_id)

    # ---- prepare (pure) ---------------------------------------------------------------------------

    def prepare(
        self,
        before: Loaded[S, V, M],
        user_id: int,
        action: M | Forfeit | ActionJSON,
        *,
        expected_version: int | None = None,
    ) -> MoveResult[S, V, M]:
        """The move ``user_id`` asks for, checked and applied (nothing is written): its result
        without effects. ``expected_version`` comes from a control's custom_id: a click on an old
        board is refused rather than applied to a position the player did not see."""
        seat = self._require_player(before, user_id)
        if expected_version is not None and expected_version != before.row.version:
            raise StaleButton(STALE)
        return self.apply(before, seat, action)

    def check_turn(self, game: Loaded, user_id: int, expected_version: int | None) -> int:
        """The checks `prepare` makes, for a control that only leads to a move (it changes nothing)."""
        seat = self._require_player(game, user_id)
        if expected_version != game.row.version:
            raise StaleButton(STALE)
        return seat

    @staticmethod
    def apply(before: Loaded[S, V, M], seat: int, action: M | Forfeit | ActionJSON) -> MoveResult[S, V, M]:
        """``action`` of ``seat`` applied by the rules: the game after it (not yet written)."""
        rules = before.rules
        try:
            new_state = play(rules, before.state, seat, action)
        except GameError as exc:
            exc.seat_users = before.row.seats  # so that the refusal names people, not seats
            raise
        status = "active" if rules.outcome(new_state) is None else "finished"
        after_row = replace(before.row, version=before.row.version + 1, status=status)
        return MoveResult(
            before=before, after=Loaded(after_row, rules, new_state), seat=seat, action=action_json(action)
        )

    async def timed_out(self, before: Loaded, seat: int, *, now: float) -> MoveResult | None:
        """The forfeit of a seat that missed its deadline; None if it moved (or the game ended)
        meanwhile, or its deadline has not come."""
        if not before.row.live or before.state is None:
            return None
        waits = {w.seat: w for w in await self.games.storage.waits_of_game(game_id=before.id)}
        wait = waits.get(seat)
        if wait is None or wait.deadline > now or seat not in before.rules.to_act(before.state):
            return None
        return self.apply(before, seat, TIMEOUT_FORFEIT)

    # ---- commit (one transaction) -----------------------------------------------------------------

    async def commit(self, draft: MoveResult, effects: Sequence[Storable] = ()) -> MoveResult:
        """Write the prepared move with the ``effects`` it owes (the caller holds the game's lock,
        see `turn`); the version is checked, so a change made elsewhere since fails instead."""
        written = await self.games.write(
            draft.before.id, self.games.storage.write(self.writing(draft, effects))
        )
        return self.committed(draft, written)

    def writing(self, draft: MoveResult, effects: Sequence[Storable] = ()) -> Txn[Written]:
        """The statements `commit` runs (to run with others in one transaction: see
        `bot.table.privacy.forget`; then `committed`)."""
        before, new_state = draft.before, draft.after.state
        rules = before.rules
        outcome = rules.outcome(new_state)
        return self.games.storage.move_change(
            game_id=before.id,
            expected_version=before.row.version,
            seat=draft.seat,
            action=draft.action,
            state=new_state.to_dict(),
            result=None if outcome is None else outcome.to_dict(),
            waiting=sorted(rules.to_act(new_state)),
            effects=effects,
        )

    def committed(self, draft: MoveResult, written: Written) -> MoveResult:
        """The move, once what `writing` wrote has committed: the cache and the listeners told."""
        before = draft.before
        after = self.games.cache.put(
            Loaded(written.row, before.rules, draft.after.state, draft.after._derived)
        )
        metrics.counted_move(written.row.kind)
        self.games.changed(after)
        if not written.row.live:
            self.games.release(before.id)
        return replace(draft, after=after, effects=written.effects)

    # ---- the three steps at once ------------------------------------------------------------------

    async def act(
        self,
        game_id: int,
        user_id: int,
        action: TypedAction | ActionJSON,
        *,
        expected_version: int | None = None,
        effects: Owed = lambda r: (),
    ) -> MoveResult:
        """Prepare, plan (``effects``) and commit one player's action, before returning."""
        async with self.turn(game_id) as before:
            draft = self.prepare(before, user_id, action, expected_version=expected_version)
            return await self.commit(draft, effects(draft))

    async def time_out(
        self, game_id: int, seat: int, *, now: float, effects: Owed = lambda r: ()
    ) -> MoveResult | None:
        """The seat missed its deadline: it forfeits, unless it moved (or the game ended) meanwhile."""
        async with self.turn(game_id) as before:
            draft = await self.timed_out(before, seat, now=now)
            return None if draft is None else await self.commit(draft, effects(draft))

    async def forfeit(self, game_id: int, user_id: int) -> MoveResult:
        return await self.act(game_id, user_id, FORFEIT)

    @staticmethod
    def _require_player(game: Loaded, user_id: int) -> int:
        row = game.row
        if row.status == "lobby":
            raise IllegalMove(
                "Game #{game_id} has not started yet: the host starts it from the lobby.", game_id=row.id
            )
        if not row.live:
            raise GameOver(
                "Game #{game_id} is over. Start a new one with /{command} new.",
                game_id=row.id,
                command=row.kind,
            )
        seat = row.seat_of(user_id)
        if seat is None:
            raise NotAPlayer(
                "You are not playing in game #{game_id}. "
                "Wait for the next one, or open your own in a channel with /{command} new.",
                game_id=row.id,
                command=row.kind,
            )
        return seat
