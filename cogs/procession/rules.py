"""Procession (seeds 000 and 001; RULES.md): flip one digit; a row's run-length multiset may not repeat.

The row starts as n zeros, whose multiset {n} counts as having occurred. Players flip in seat order;
when the player to move has no legal flip, nobody has (legality depends only on the position), and the
player who made the last move wins.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

import bot.rules.base as base
from bot.errors import BadInput, GameFinished, IllegalMove, NotYourTurn
from bot.i18n import N_, Msg
from bot.rules.base import ActionJSON, Option, Outcome, require

NAME = "procession"
TITLE = "Procession"
MIN_PLAYERS, MAX_PLAYERS = 2, 8
N_OPTION = Option("n", "How many digits the row has", default=6, min=2, max=12)
OPTIONS: tuple[Option, ...] = (N_OPTION,)

Multiset = tuple[int, ...]  # run lengths sorted in descending order: the multiset's canonical form


def run_lengths(row: str) -> list[int]:
    """Lengths of the maximal blocks of equal digits, left to right."""
    runs: list[int] = []
    prev = ""
    for ch in row:
        if ch == prev:
            runs[-1] += 1
        else:
            runs.append(1)
            prev = ch
    return runs


def multiset(row: str) -> Multiset:
    return tuple(sorted(run_lengths(row), reverse=True))


def flip(row: str, position: int) -> str:
    """``row`` with the digit at 1-based ``position`` flipped."""
    i = position - 1
    return row[:i] + ("1" if row[i] == "0" else "0") + row[i + 1 :]


@dataclass(frozen=True)
class State:
    n_players: int
    n: int
    rows: tuple[str, ...]  # every row written so far, the start row first
    movers: tuple[int, ...]  # the seat that wrote each row after the first
    forfeited: frozenset[int] = field(default_factory=frozenset)
    turn: int = 0  # the seat to move (meaningless once the game is over)
    finished: bool = False

    @property
    def row(self) -> str:
        return self.rows[-1]

    @property
    def seen(self) -> frozenset[Multiset]:
        return frozenset(multiset(r) for r in self.rows)

    to_dict = base.fields_json

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> State:
        try:
            state = cls(
                n_players=int(d["n_players"]),
                n=int(d["n"]),
                rows=tuple(str(r) for r in d["rows"]),
                movers=tuple(int(s) for s in d["movers"]),
                forfeited=frozenset(int(s) for s in d["forfeited"]),
                turn=int(d["turn"]),
                finished=bool(d["finished"]),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"invalid procession state: {exc}") from exc
        require(MIN_PLAYERS <= state.n_players <= MAX_PLAYERS, "player count")
        require(N_OPTION.allows(state.n), "n")
        require(bool(state.rows) and state.rows[0] == "0" * state.n, "start row")
        require(all(len(r) == state.n and set(r) <= {"0", "1"} for r in state.rows), "rows")
        require(len(state.movers) == len(state.rows) - 1, "movers")
        require(all(0 <= s < state.n_players for s in state.movers), "mover seats")
        require(all(0 <= s < state.n_players for s in state.forfeited), "forfeited seats")
        require(0 <= state.turn < state.n_players, "turn")
        require(len({multiset(r) for r in state.rows}) == len(state.rows), "repeated multiset")
        return state


def new_game(n_players: int, options: Mapping[str, int], seed: int) -> State:
    del seed  # no randomness in Procession
    base.check_players(TITLE, n_players, MIN_PLAYERS, MAX_PLAYERS)
    n = options.get("n", N_OPTION.default)
    return State(n_players=n_players, n=n, rows=("0" * n,), movers=())


def legal_positions(state: State) -> list[int]:
    """1-based positions whose flip gives a multiset that has not occurred."""
    seen = state.seen
    return [p for p in range(1, state.n + 1) if multiset(flip(state.row, p)) not in seen]


def to_act(state: State) -> frozenset[int]:
    return frozenset() if state.finished else frozenset({state.turn})


def legal_actions(state: State, seat: int) -> list[dict[str, Any]]:
    if seat not in to_act(state):
        return []
    return [Flip(p).to_json() for p in legal_positions(state)]


# ---- actions --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Flip:
    """Flip the digit at 1-based ``position``: ``{"type": "flip", "position": 3}``."""

    TYPE: ClassVar[str] = "flip"
    position: int
    to_json = base.move_json


Move = Flip
MOVES = base.Moves[Move]((Flip,), wrong=N_("In Procession the only move is flipping a digit."))
parse_action = MOVES.parse


def _settle(state: State) -> State:
    """End the game when fewer than two players remain or nobody can move."""
    if state.n_players - len(state.forfeited) < 2 or not legal_positions(state):
        return replace(state, finished=True)
    return state


def apply(state: State, seat: int, action: Move | ActionJSON) -> State:
    base.check_seat(state.n_players, seat)
    position = MOVES.read(action).position
    if state.finished:
        raise GameFinished()
    if seat != state.turn:
        raise NotYourTurn(waiting=(state.turn,))
    if not 1 <= position <= state.n:
        raise BadInput(
            Msg.n(
                "Position {position} does not exist: the row has {count} digit. Choose 1-{count}.",
                "Position {position} does not exist: the row has {count} digits. Choose 1-{count}.",
                state.n,
                position=position,
            )
        )
    new_row = flip(state.row, position)
    ms = multiset(new_row)
    if ms in state.seen:
        allowed = legal_positions(state)
        raise IllegalMove(
            "Flipping position {position} gives {row}, whose run lengths {runs} already occurred. "
            "Legal positions: {positions}.",
            position=position,
            row=new_row,
            runs=format_multiset(ms),
            positions=", ".join(map(str, allowed)),
        )
    moved = replace(
        state,
        rows=(*state.rows, new_row),
        movers=(*state.movers, seat),
        turn=base.next_seat(state.n_players, seat, state.forfeited),
    )
    return _settle(moved)


def forfeit(state: State, seat: int) -> State:
    base.check_seat(state.n_players, seat)
    if state.finished or seat in state.forfeited:
        return state
    out = replace(state, forfeited=state.forfeited | {seat})
    if out.turn == seat:
        out = replace(out, turn=base.next_seat(out.n_players, seat, out.forfeited))
    return _settle(out)


def outcome(state: State) -> Outcome | None:
    if not state.finished:
        return None
    remaining = [s for s in range(state.n_players) if s not in state.forfeited]
    if len(remaining) == 1:
        return Outcome(winners=(remaining[0],), reason=N_("every other player left the game"))
    if not remaining:
        return Outcome(winners=(), reason=N_("every player left the game"))
    last = state.movers[-1] if state.movers else None
    if last is None or last in state.forfeited:
        # Nobody (still in the game) made the last move: the remaining players share the game.
        return Outcome(winners=tuple(remaining), reason=N_("no legal move is left"))
    return Outcome(winners=(last,), reason=N_("no legal move is left: the last player to move wins"))


def format_multiset(ms: Multiset) -> str:
    return "{" + ",".join(map(str, ms)) + "}"


@dataclass(frozen=True)
class View:
    """Procession has no secrets: every seat sees the same view."""

    n_players: int
    n: int
    rows: tuple[str, ...]
    multisets: tuple[Multiset, ...]
    movers: tuple[int | None, ...]  # None for the start row
    legal: tuple[int, ...]  # 1-based positions the player to move may flip
    turn: int | None  # None once the game is over
    forfeited: frozenset[int]
    outcome: Outcome | None


def view_for(state: State, seat: int | None) -> View:
    del seat
    return View(
        n_players=state.n_players,
        n=state.n,
        rows=state.rows,
        multisets=tuple(multiset(r) for r in state.rows),
        movers=(None, *state.movers),
        legal=() if state.finished else tuple(legal_positions(state)),
        turn=None if state.finished else state.turn,
        forfeited=state.forfeited,
        outcome=outcome(state),
    )
