"""Analysis of a finished game, move by move: the shapes every game's analyser fills in (pure).

A game's analyser (``cogs/<game>/analysis.py``, its spec's ``analyse``) is a pure, module-level
function ``analyse(record: GameRecord, seconds: float) -> Review``: it replays the record with the
rules and judges each logged move from the *mover's* side, within ``seconds`` of CPU time (it runs in
a computer players' worker process). It says only what its engine can back:

- ``exact``: the value is proved (a complete search); ``basis`` says how it was judged:
  ``"exact"``, ``"search"`` (a search that could not see the end: an estimate), ``"hindsight"``
  (a secret choice judged against what the others then chose: labelled so to players), ``"estimate"``
  (the ``hard`` player's estimate) or ``""`` with the verdict ``"unknown"`` (nothing honest to say).
- ``value_before`` / ``value_after``: the mover's value before and after the move on the review's
  ``scale``: ``"win"`` (+1 the mover wins, -1 loses; between them an estimated chance 2p-1) or
  ``"points"`` (the mover's final score margin); None when unknown.
- ``better``: moves (as logged JSON) the engine proves or estimates better than the one made.

A game without an analyser gets `unknown_review`: every move ``"unknown"``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from bot.jsontypes import JSONMap, JSONObject
from bot.rules import play
from bot.rules.base import GameRules, M, S

VERDICTS = ("best", "good", "inaccuracy", "mistake", "blunder", "unknown")
BASES = ("exact", "search", "hindsight", "estimate", "")
SCALES = ("win", "points")


@dataclass(frozen=True)
class GameRecord:
    """A finished game as an analyser gets it: what it was created with, and its move log (undone
    moves left out), each entry ``(seat, action as logged)``."""

    kind: str
    n_players: int
    options: Mapping[str, int]
    seed: int
    moves: tuple[tuple[int, JSONMap], ...]


@dataclass(frozen=True)
class MoveReview:
    """One logged move, judged. ``index`` is 1-based in move-log order."""

    index: int
    seat: int
    action: JSONObject
    verdict: str
    exact: bool = False
    value_before: float | None = None
    value_after: float | None = None
    better: tuple[JSONObject, ...] = ()
    basis: str = ""

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"Unknown verdict {self.verdict!r}.")
        if self.basis not in BASES:
            raise ValueError(f"Unknown basis {self.basis!r}.")
        if self.exact and self.basis != "exact":
            raise ValueError("Only an exact judgement is exact.")

    def to_dict(self) -> JSONObject:
        return {
            "index": self.index,
            "seat": self.seat,
            "action": dict(self.action),
            "verdict": self.verdict,
            "exact": self.exact,
            "value_before": self.value_before,
            "value_after": self.value_after,
            "better": [dict(b) for b in self.better],
            "basis": self.basis,
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, object]) -> MoveReview:
        def number(x: object) -> float | None:
            return None if x is None else float(x)  # type: ignore[arg-type]

        better = d.get("better") or []
        assert isinstance(better, list)
        action = d["action"]
        assert isinstance(action, dict)
        return cls(
            index=int(d["index"]),  # type: ignore[call-overload]
            seat=int(d["seat"]),  # type: ignore[call-overload]
            action=action,
            verdict=str(d["verdict"]),
            exact=bool(d["exact"]),
            value_before=number(d.get("value_before")),
            value_after=number(d.get("value_after")),
            better=tuple(dict(b) for b in better),
            basis=str(d.get("basis", "")),
        )


@dataclass(frozen=True)
class Review:
    """A game's analysis: one `MoveReview` per logged move, in order. ``complete`` is False when the
    time budget ran out before every move was judged as well as the engine can."""

    kind: str
    scale: str
    moves: tuple[MoveReview, ...]
    complete: bool = True
    notes: tuple[str, ...] = field(default=())  # English sentences (msgids) the text shows, if any

    def __post_init__(self) -> None:
        if self.scale not in SCALES:
            raise ValueError(f"Unknown scale {self.scale!r}.")

    def to_dict(self) -> JSONObject:
        return {
            "kind": self.kind,
            "scale": self.scale,
            "complete": self.complete,
            "notes": list(self.notes),
            "moves": [m.to_dict() for m in self.moves],
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, object]) -> Review:
        moves = d["moves"]
        notes = d.get("notes") or []
        assert isinstance(moves, list) and isinstance(notes, list)
        return cls(
            kind=str(d["kind"]),
            scale=str(d["scale"]),
            moves=tuple(MoveReview.from_dict(m) for m in moves),
            complete=bool(d.get("complete", True)),
            notes=tuple(str(n) for n in notes),
        )


Analyser = Callable[[GameRecord, float], Review]


class Deadline:
    """A time budget in CPU-bound code: ``Deadline(seconds)``, then ``left()`` / ``expired()``."""

    def __init__(self, seconds: float) -> None:
        self.end = time.monotonic() + seconds

    def left(self) -> float:
        return max(0.0, self.end - time.monotonic())

    def expired(self) -> bool:
        return time.monotonic() >= self.end


def unknown_review(record: GameRecord, seconds: float) -> Review:
    """For a game without an analyser: every move ``"unknown"`` (nothing is claimed)."""
    del seconds
    moves = tuple(
        MoveReview(index=i, seat=seat, action=dict(action), verdict="unknown")
        for i, (seat, action) in enumerate(record.moves, start=1)
    )
    return Review(kind=record.kind, scale="win", moves=moves)


# ---- reading a review ---------------------------------------------------------------------------------

SEVERITY = {"blunder": 4, "mistake": 3, "inaccuracy": 2, "good": 1, "best": 0, "unknown": -1}
FLAWS = ("inaccuracy", "mistake", "blunder")  # the verdicts an analysis names as a player's worst moves


def drop(move: MoveReview) -> float:
    """How much the move lost the mover on the review's scale (0 when unknown)."""
    if move.value_before is None or move.value_after is None:
        return 0.0
    return max(0.0, move.value_before - move.value_after)


def worst_moves(review: Review, seat: int, limit: int = 2) -> list[MoveReview]:
    """The seat's worst moves, worst first (by verdict, then by what they lost, then the earlier):
    only inaccuracies, mistakes and blunders, at most ``limit``."""
    flawed = [m for m in review.moves if m.seat == seat and m.verdict in FLAWS]
    flawed.sort(key=lambda m: (-SEVERITY[m.verdict], -drop(m), m.index))
    return flawed[:limit]


def judged(review: Review, seat: int) -> int:
    """How many of the seat's moves have a verdict (not "unknown")."""
    return sum(1 for m in review.moves if m.seat == seat and m.verdict != "unknown")


# ---- judging a game by search --------------------------------------------------------------------------

Judge = Callable[[int, int, JSONObject, S, float], MoveReview]
"""(index, seat, action, the state before the move, seconds it may take) -> the move judged."""


def states_before(rules: GameRules[S, object, M], record: GameRecord) -> list[S]:
    """The state before each logged move, replayed with the rules."""
    state = rules.new_game(record.n_players, record.options, record.seed)
    before = []
    for seat, action in record.moves:
        before.append(state)
        state = play(rules, state, seat, action)
    return before


def last_first(
    rules: GameRules[S, object, M], record: GameRecord, deadline: Deadline, judge: Judge[S]
) -> tuple[MoveReview, ...]:
    """Every logged move judged by ``judge``, the last ones first (the cheapest to search to the end,
    and what their searches find makes the earlier ones cheaper), each given an even share of the time
    left; in log order."""
    before: Sequence[S] = states_before(rules, record)
    reviews: dict[int, MoveReview] = {}
    count = len(record.moves)
    for done, i in enumerate(reversed(range(count))):
        seat, action = record.moves[i]
        reviews[i] = judge(i + 1, seat, dict(action), before[i], deadline.left() / (count - done))
    return tuple(reviews[i] for i in range(count))
