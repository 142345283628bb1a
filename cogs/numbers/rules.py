"""Numbers To Number (seed 002; RULES.md): two players' secret numbers write a binary pattern.

This module owns the whole game: the secret simultaneous picks, their reveal, each round's list of
1/0/_ symbols, the set D it stands for, the points and the final result. It is pure (no discord, no PIL).

The game has floor((2^m - 1) / m) rounds of m moves. In each move both seats secretly pick a number
from 1 to 2^m - 1 that they have not played before in the game; a pick is final. When both are in,
they are revealed and the round's list gets 1 (seat 1's number is larger), 0 (smaller) or _ (equal).
After m moves, D is every integer whose m-digit binary form (first move = most significant digit)
matches the list, each _ standing for 0 or 1; each player scores 1 per member of D they played in
that round. The higher total after the last round wins; equal totals draw.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any, ClassVar, Self

import bot.rules.base as base
from bot.errors import (
    GameFinished,
    IllegalMove,
    Namer,
    NotANumber,
    OutOfRange,
    YouLeft,
    player_number,
)
from bot.i18n.lang import N_, Lang, Msg
from bot.inputs import binary_number, excerpt, whole_number
from bot.rules.base import ActionJSON, GameEvent, Option, Outcome, Reason, require

NAME = "numbers"
TITLE = "Numbers To Number"
MIN_PLAYERS, MAX_PLAYERS = 2, 2
M_OPTION = Option("m", "Moves per round (numbers go up to 2^m - 1)", default=6, min=3, max=8)
OPTIONS: tuple[Option, ...] = (M_OPTION,)

Pair = tuple[int, int]  # one move of the game: (seat 1's number, seat 2's number)


# ---- pure helpers ---------------------------------------------------------------------------------


def largest(m: int) -> int:
    """The largest number a player may pick: 2^m - 1."""
    return (1 << m) - 1


def n_rounds(m: int) -> int:
    """floor((2^m - 1) / m): each player plays m distinct numbers per round, never running out."""
    return largest(m) // m


def symbol(a: int, b: int) -> str:
    """The list symbol of a move: 1 if seat 1's number is larger, 0 if smaller, _ if equal."""
    return "1" if a > b else "0" if a < b else "_"


def decode_list(symbols: str) -> list[int]:
    """D: every integer whose binary form (as long as the list, first symbol most significant)
    matches ``symbols``, each ``_`` standing for 0 or 1; ascending. ``decode_list("01_001_1")`` is
    ``[69, 71, 101, 103]``."""
    if set(symbols) - {"0", "1", "_"}:
        raise ValueError(f"a list holds only 0, 1 and _, not {symbols!r}")
    values = [0]
    for ch in symbols:
        bits = (0, 1) if ch == "_" else (int(ch),)
        values = [2 * v + bit for v in values for bit in bits]
    return sorted(values)


def binary(value: int, m: int) -> str:
    """``value`` as m binary digits."""
    return format(value, f"0{m}b")


def parse_number(text: str, m: int) -> int:
    """A number typed by a player: decimal (ASCII digits), or binary with a ``0b`` prefix; spaces and
    underscores between digits are ignored. Raises ``BadInput`` with a sentence naming the allowed
    range."""
    top = largest(m)
    word = text.strip().replace("_", "").replace(" ", "")
    out_of_range = _out_of_range(m)
    # i18n: {example} is a number written in binary: another way to type the number
    not_a_number = Msg(
        "{shown} is not a whole number. Type a number from {low} to {high} (or binary, like 0b{example}).",
        example=binary(top // 3, m),
    )
    try:
        if word[:2].lower() == "0b":
            return binary_number(word, 1, top, out_of_range=out_of_range, not_a_number=not_a_number)
        return whole_number(word, 1, top, signed=True, out_of_range=out_of_range, not_a_number=not_a_number)
    except NotANumber:
        raise NotANumber(excerpt(text), 1, top, not_a_number) from None  # quoted as typed, spaces and all


def _out_of_range(m: int) -> Msg:
    return Msg("{shown} is out of range: in this game (m = {m}) pick from {low} to {high}.", m=m)


def _check_range(value: int, m: int) -> None:
    top = largest(m)
    if not 1 <= value <= top:
        raise OutOfRange(str(value), 1, top, _out_of_range(m))


# ---- rounds ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RoundRecord:
    """A finished round: what the round-end announcement and image show."""

    moves: tuple[Pair, ...]  # m moves: (seat 1's number, seat 2's number)
    symbols: str  # the round's list, e.g. "01_001_1"
    d: tuple[int, ...]  # decode_list(symbols)
    points: tuple[int, int]  # per seat: how many of their numbers this round are in D

    @classmethod
    def of(cls, moves: tuple[Pair, ...]) -> RoundRecord:
        symbols = "".join(symbol(a, b) for a, b in moves)
        d = tuple(decode_list(symbols))
        members = set(d)
        points = (
            sum(1 for a, _ in moves if a in members),
            sum(1 for _, b in moves if b in members),
        )
        return cls(moves=moves, symbols=symbols, d=d, points=points)

    def scoring(self, seat: int) -> tuple[int, ...]:
        """The numbers ``seat`` played this round that are in D (one point each)."""
        members = set(self.d)
        return tuple(move[seat] for move in self.moves if move[seat] in members)

    def to_dict(self) -> dict[str, Any]:
        return {"moves": [list(mv) for mv in self.moves]}


# ---- events ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Picked(GameEvent):
    """A seat's pick is in (never what it is)."""

    TYPE: ClassVar[str] = "picked"
    seat: int


@dataclass(frozen=True)
class Reveal(GameEvent):
    """Both picks of move ``move`` of round ``round`` (0-based), revealed: they wrote ``symbol``, and
    the round's list is now ``list_`` (``"list"`` in the JSON)."""

    TYPE: ClassVar[str] = "reveal"
    round: int
    move: int
    numbers: tuple[int, ...]  # (seat 1's, seat 2's)
    symbol: str
    list_: str


@dataclass(frozen=True)
class RoundEnd(GameEvent):
    """Round ``round`` (0-based) is over: its list, D (in decimal and in binary), the points and the
    numbers that scored them per seat, and the totals so far."""

    TYPE: ClassVar[str] = "round_end"
    round: int
    list_: str
    d: tuple[int, ...]
    d_binary: tuple[str, ...]
    points: tuple[int, ...]
    scoring: tuple[tuple[int, ...], ...]
    totals: tuple[int, ...]


@dataclass(frozen=True)
class Left(GameEvent):
    """A seat left the game."""

    TYPE: ClassVar[str] = "forfeit"
    seat: int


@dataclass(frozen=True)
class GameOver(GameEvent):
    """The game ended: its `Outcome`'s fields (the reason as logged, in English)."""

    TYPE: ClassVar[str] = "game_over"
    winners: tuple[int, ...]
    reason: str
    scores: tuple[int, ...] | None
    draw: bool

    @classmethod
    def of(cls, outcome: Outcome) -> Self:
        return cls(outcome.winners, str(outcome.reason), outcome.scores, outcome.draw)


Event = Picked | Reveal | RoundEnd | Left | GameOver
EVENTS = base.Events[Event](NAME, (Picked, Reveal, RoundEnd, Left, GameOver))


# ---- the state ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class State:
    m: int
    seed: int
    rounds: tuple[RoundRecord, ...] = ()  # finished rounds, oldest first
    moves: tuple[Pair, ...] = ()  # the current round's revealed moves
    pending: tuple[int | None, int | None] = (None, None)  # this move's secret picks
    forfeited: frozenset[int] = field(default_factory=frozenset)
    events: tuple[Event, ...] = ()  # the public events the last apply/forfeit caused

    @property
    def n_rounds(self) -> int:
        return n_rounds(self.m)

    @property
    def finished(self) -> bool:
        return bool(self.forfeited) or len(self.rounds) == self.n_rounds

    @property
    def totals(self) -> tuple[int, int]:
        return (sum(r.points[0] for r in self.rounds), sum(r.points[1] for r in self.rounds))

    def played(self, seat: int) -> tuple[int, ...]:
        """Every number ``seat`` has played (revealed), in order."""
        return tuple(mv[seat] for r in self.rounds for mv in r.moves) + tuple(mv[seat] for mv in self.moves)

    to_dict = base.fields_json

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> State:
        try:
            pending = tuple(None if p is None else _int(p) for p in d["pending"])
            require(len(pending) == 2, "pending picks")
            state = cls(
                m=_int(d["m"]),
                seed=_int(d["seed"]),
                rounds=tuple(RoundRecord.of(_moves(r["moves"])) for r in d["rounds"]),
                moves=_moves(d["moves"]),
                pending=(pending[0], pending[1]),
                forfeited=frozenset(_int(s) for s in d["forfeited"]),
                events=tuple(EVENTS.parse(e) for e in d["events"]),
            )
        except (KeyError, TypeError, AttributeError, IndexError) as exc:
            raise ValueError(f"invalid numbers state: {exc!r}") from exc
        _validate(state)
        return state


# from_dict lets these errors through as they are, so they name the game
_int = partial(base.stored_int, game=NAME)


def _moves(value: Any) -> tuple[Pair, ...]:
    out = []
    for mv in value:
        require(len(mv) == 2, "a move has two numbers")
        out.append((_int(mv[0]), _int(mv[1])))
    return tuple(out)


def _validate(s: State) -> None:
    require(3 <= s.m <= 8, "m")
    require(len(s.rounds) <= s.n_rounds, "too many rounds")
    require(all(len(r.moves) == s.m for r in s.rounds), "a finished round has m moves")
    require(len(s.moves) < s.m, "the current round is too long")
    require(not (len(s.rounds) == s.n_rounds and s.moves), "moves after the last round")
    require(s.forfeited <= {0, 1} and len(s.forfeited) <= 1, "forfeited seats")
    require(None in s.pending, "both picks pending but not revealed")
    for seat in (0, 1):
        pick = s.pending[seat]
        numbers = [*s.played(seat), *([] if pick is None else [pick])]
        require(all(1 <= k <= largest(s.m) for k in numbers), "a number out of range")
        require(len(set(numbers)) == len(numbers), "a number played twice")
    if len(s.rounds) == s.n_rounds:
        require(s.pending == (None, None), "a pick after the last round")


# ---- the contract ---------------------------------------------------------------------------------


def new_game(n_players: int, options: Mapping[str, int], seed: int) -> State:
    if n_players != 2:
        raise ValueError("Numbers To Number is for exactly 2 players")
    m = M_OPTION.value(options)
    return State(m=m, seed=seed)


def to_act(state: State) -> frozenset[int]:
    """Both seats that have not picked for the current move (the picks are simultaneous)."""
    if state.finished:
        return frozenset()
    return frozenset(s for s in (0, 1) if state.pending[s] is None)


def available(state: State, seat: int) -> tuple[int, ...]:
    """The numbers ``seat`` has not played yet (ascending); a pending pick counts as played."""
    used = {*state.played(seat), state.pending[seat]}
    return tuple(k for k in range(1, largest(state.m) + 1) if k not in used)


def legal_actions(state: State, seat: int) -> list[dict[str, Any]]:
    if seat not in to_act(state):
        return []
    return [Pick(k).to_json() for k in available(state, seat)]


# ---- actions --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pick:
    """The seat's secret number for this move: ``{"type": "pick", "number": 42}``."""

    TYPE: ClassVar[str] = "pick"
    number: int
    to_json = base.move_json


Move = Pick
MOVES = base.Moves[Move]((Pick,), wrong=N_("In Numbers To Number the only move is picking a number."))
parse_action = MOVES.parse


class PickIsFinal(IllegalMove):
    """A second pick for the same move: ``waiting_for`` has not picked yet."""

    def __init__(self, pick: int, waiting_for: int) -> None:
        self.pick, self.waiting_for = pick, waiting_for
        super().__init__(ALREADY_PICKED, pick=pick, player=player_number(waiting_for))

    def say(self, lang: Lang, name: Namer | None = None) -> str:
        player = name(self.waiting_for) if name else player_number(self.waiting_for, lang)
        return lang.t(ALREADY_PICKED, pick=self.pick, player=player)


ALREADY_PICKED = N_(
    "You already picked {pick} for this move, and a pick is final. Waiting for {player} to pick."
)


def apply(state: State, seat: int, action: Move | ActionJSON) -> State:
    base.check_seat(2, seat)
    number = MOVES.read(action).number
    if state.finished:
        raise GameFinished()
    if seat in state.forfeited:
        raise YouLeft()
    mine = state.pending[seat]
    if mine is not None:
        raise PickIsFinal(mine, waiting_for=1 - seat)
    _check_range(number, state.m)
    if number in state.played(seat):
        left = available(state, seat)
        raise IllegalMove(
            Msg.n(
                "You already played {number} ({where}). Pick a number you have not played yet: "
                "{count} remains, e.g. {examples}.",
                "You already played {number} ({where}). Pick a number you have not played yet: "
                "{count} remain, e.g. {examples}.",
                len(left),
                number=number,
                where=_round_of(state, seat, number),
                examples=", ".join(map(str, _spread(left))),
            )
        )
    pending = list(state.pending)
    pending[seat] = number
    events: list[Event] = [Picked(seat)]
    out = replace(state, pending=(pending[0], pending[1]))
    if None not in out.pending:
        out = _reveal(out, events)
    return replace(out, events=tuple(events))


def _round_of(state: State, seat: int, number: int) -> Msg:
    for i, r in enumerate(state.rounds):
        if any(mv[seat] == number for mv in r.moves):
            return Msg("in round {round}", round=i + 1)
    return Msg("earlier this round")


def _spread(values: tuple[int, ...], k: int = 5) -> list[int]:
    """A few examples spread over ``values``."""
    if len(values) <= k:
        return list(values)
    return [values[round(i * (len(values) - 1) / (k - 1))] for i in range(k)]


def _reveal(state: State, events: list[Event]) -> State:
    a, b = state.pending
    assert a is not None and b is not None
    moves = (*state.moves, (a, b))
    round_no = len(state.rounds)
    events.append(
        Reveal(round_no, len(moves) - 1, (a, b), symbol(a, b), "".join(symbol(x, y) for x, y in moves))
    )
    state = replace(state, moves=moves, pending=(None, None))
    if len(moves) < state.m:
        return state
    record = RoundRecord.of(moves)
    state = replace(state, rounds=(*state.rounds, record), moves=())
    events.append(
        RoundEnd(
            round=round_no,
            list_=record.symbols,
            d=record.d,
            d_binary=tuple(binary(v, state.m) for v in record.d),
            points=record.points,
            scoring=(record.scoring(0), record.scoring(1)),
            totals=state.totals,
        )
    )
    if state.finished:
        result = outcome(state)
        assert result is not None
        events.append(GameOver.of(result))
    return state


def forfeit(state: State, seat: int) -> State:
    """The seat leaves: the other player wins (RULES.md: one player remains). Pending picks are
    dropped unrevealed."""
    base.check_seat(2, seat)
    if state.finished:
        return replace(state, events=())
    out = replace(state, forfeited=frozenset({seat}), pending=(None, None))
    result = outcome(out)
    assert result is not None
    events: list[Event] = [Left(seat), GameOver.of(result)]
    return replace(out, events=tuple(events))


def outcome(state: State) -> Outcome | None:
    if not state.finished:
        return None
    totals = state.totals
    if state.forfeited:
        (gone,) = state.forfeited
        return Outcome(winners=(1 - gone,), reason=N_("the other player left the game"), scores=totals)
    if totals[0] == totals[1]:
        reason = Reason.of(Msg("equal totals ({each} each)", each=totals[0]))
        return Outcome(winners=(0, 1), reason=reason, scores=totals, draw=True)
    winner = 0 if totals[0] > totals[1] else 1
    return Outcome(
        winners=(winner,),
        reason=Reason.of(
            Msg("the higher total ({high} to {low})", high=totals[winner], low=totals[1 - winner])
        ),
        scores=totals,
    )


# ---- views ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class View:
    """What one seat (or, with ``seat=None``, the public channel) may see.

    The only secret is a pick not yet revealed: a view shows the viewer's own pending pick and, for
    the other seat, only whether it has picked.
    """

    seat: int | None
    m: int
    n_rounds: int
    round: int  # 0-based index of the current round (n_rounds once every round is played)
    moves: tuple[Pair, ...]  # the current round's revealed moves
    symbols: str  # the current round's list so far
    picked: tuple[bool, bool]  # who has a pick in for the current move (never what it is)
    my_pick: int | None  # the viewer's own pending pick (None in the public view)
    played: tuple[tuple[int, ...], tuple[int, ...]]  # every revealed number per seat, in order
    available: tuple[int, ...] | None  # the viewer's still playable numbers (None in public)
    totals: tuple[int, int]
    round_points: tuple[tuple[int, int], ...]  # per finished round
    last_round: RoundRecord | None  # the last finished round (with D): the round-end image
    to_act: frozenset[int]
    forfeited: frozenset[int]
    outcome: Outcome | None
    events: tuple[Event, ...]


def view_for(state: State, seat: int | None) -> View:
    mine = seat is not None and seat in (0, 1) and seat not in state.forfeited
    return View(
        seat=seat,
        m=state.m,
        n_rounds=state.n_rounds,
        round=len(state.rounds),
        moves=state.moves,
        symbols="".join(symbol(a, b) for a, b in state.moves),
        picked=(state.pending[0] is not None, state.pending[1] is not None),
        my_pick=state.pending[seat] if mine and seat is not None else None,
        played=(state.played(0), state.played(1)),
        available=available(state, seat) if mine and seat is not None else None,
        totals=state.totals,
        round_points=tuple(r.points for r in state.rounds),
        last_round=state.rounds[-1] if state.rounds else None,
        to_act=to_act(state),
        forfeited=state.forfeited,
        outcome=outcome(state),
        events=state.events,
    )
