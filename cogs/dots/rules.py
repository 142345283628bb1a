"""Lines By The Dots (seed 004; RULES.md): a vertical line, then a horizontal line, over virgin dots.

This module owns the whole game: naming and parsing dots, the lines (normal, fallback and skipped),
scoring, the turn order, forfeits and the end. It is pure (no discord, no PIL) and has no secrets.

Dots are ``(col, row)`` pairs, 0-based, shown to people as a column letter (A at the left) and a row
number (1 at the top): ``(2, 3)`` is ``"C4"``. A move draws one line: `Line`, logged as
``{"type": "line", "to": "C4", "from": None}``. ``from`` is required when the line does not start at
the current dot (the first line of the game, from any dot, and a fallback line, from a non-virgin
dot), and refused otherwise, except that naming the current dot itself is accepted (it is the same
line).

After every line (and after a forfeit) the module skips, on its own, every line that cannot be drawn
anywhere (RULES.md's skip), so the state always owes a drawable line unless the game is over. Two
skips never follow each other: if no column and no row held both a virgin and a non-virgin dot, every
dot would be virgin (before the first line) or non-virgin (the game is over).

Events (``State.events``, what the last apply/forfeit did; seats 0-based, dots by name; each a
`GameEvent`, stored as the JSON shown):

- `LineDrawn` ``{"type": "line", "seat": s, "direction": "vertical" | "horizontal", "from": "A1",
  "to": "A4", "score": k, "fallback": bool}`` (fallback: the line did not start at the current dot)
- `Skipped` ``{"type": "skip", "seat": s, "direction": d, "at": "A4"}``: no line of direction d
  existed anywhere
- `Out` ``{"type": "out", "seat": s, "reason": "forfeited"}``
- `End` ``{"type": "end", "reason": "full" | "players"}`` (an `EndReason`)
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, ClassVar, NamedTuple, NoReturn, Self, TypeVar

import bot.rules.base as base
from bot.errors import BadInput, GameFinished, IllegalMove, NotYourTurn
from bot.i18n import N_, Msg
from bot.inputs import excerpt
from bot.rules.base import ActionJSON, GameEvent, Option, Outcome, require

NAME = "dots"
TITLE = "Lines By The Dots"
MIN_PLAYERS, MAX_PLAYERS = 2, 6
SIZE_OPTION = Option("size", "Dots per side of the square grid", default=5, min=3, max=10)
OPTIONS: tuple[Option, ...] = (SIZE_OPTION,)


class Direction(StrEnum):
    """A line's direction (stored as its value)."""

    VERTICAL = "vertical"
    HORIZONTAL = "horizontal"


class EndReason(StrEnum):
    """Why the game ended (stored as its value)."""

    FULL = "full"  # every dot is non-virgin
    PLAYERS = "players"  # fewer than two players who have not forfeited


# The members by their short names, which the presenter, renderer, player and cog use.
VERTICAL, HORIZONTAL = Direction.VERTICAL, Direction.HORIZONTAL
END_FULL, END_PLAYERS = EndReason.FULL, EndReason.PLAYERS

COLUMNS = "ABCDEFGHIJ"

Dot = tuple[int, int]  # (col, row), 0-based
T = TypeVar("T")


def directed(direction: str, vertical: T, horizontal: T) -> T:
    """What goes with a direction: a sentence about a vertical line has its own text (its words agree
    with "line" in every language), ``directed(d, N_("... vertical ..."), N_("... horizontal ..."))``."""
    return vertical if direction == VERTICAL else horizontal


# ---- naming dots ----------------------------------------------------------------------------------


def dot_name(dot: Dot) -> str:
    col, row = dot
    return f"{COLUMNS[col]}{row + 1}"


_DOT_RE = re.compile(r"([A-Za-z])\s*([0-9]{1,3})", re.ASCII)


def parse_dot(text: str, size: int) -> Dot:
    """``"c4"`` or ``"C4"`` -> ``(2, 3)`` (ASCII letters and digits only); ``BadInput`` when it is not a
    dot or is off the grid."""
    cleaned = text.strip()
    match = _DOT_RE.fullmatch(cleaned)
    if match is None:
        if not cleaned:
            raise BadInput("Name a dot: a column letter and a row number, like C4.")
        raise BadInput(
            '"{shown}" is not a dot: write a column letter and a row number, like C4.', shown=excerpt(cleaned)
        )
    letter, digits = match.group(1).upper(), match.group(2)
    col, row = ord(letter) - ord("A"), int(digits) - 1
    if not (0 <= col < size and 0 <= row < size):
        raise BadInput(
            "{dot} is off the grid: columns run A-{last}, rows 1-{size}.",
            dot=f"{letter}{int(digits)}",
            last=COLUMNS[size - 1],
            size=size,
        )
    return col, row


# ---- lines ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DrawnLine:
    """A line on the board: who drew it, where, and what it scored."""

    seat: int
    direction: Direction
    start: Dot
    end: Dot
    score: int
    fallback: bool  # drawn from a dot other than the current one (RULES.md's fallback)

    def dots(self) -> tuple[Dot, ...]:
        """Every dot the line touches, from its start to its end."""
        return _segment(self.start, self.end)

    def to_dict(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "direction": self.direction.value,
            "from": dot_name(self.start),
            "to": dot_name(self.end),
            "score": self.score,
            "fallback": self.fallback,
        }


# ---- events ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LineDrawn(GameEvent):
    """A line drawn: its `DrawnLine`, dots by name (``from_`` is ``"from"`` in the JSON)."""

    TYPE: ClassVar[str] = "line"
    seat: int
    direction: Direction
    from_: str
    to: str
    score: int
    fallback: bool  # the line did not start at the current dot

    @classmethod
    def of(cls, line: DrawnLine) -> Self:
        return cls(
            line.seat, line.direction, dot_name(line.start), dot_name(line.end), line.score, line.fallback
        )


@dataclass(frozen=True)
class Skipped(GameEvent):
    """The seat's line of ``direction`` existed nowhere, so it was skipped; play goes on from ``at``."""

    TYPE: ClassVar[str] = "skip"
    seat: int
    direction: Direction
    at: str


@dataclass(frozen=True)
class Out(GameEvent):
    """A seat left the game (the only way out of this game: ``reason`` is always ``"forfeited"``)."""

    TYPE: ClassVar[str] = "out"
    FORFEITED: ClassVar[str] = "forfeited"
    seat: int
    reason: str


@dataclass(frozen=True)
class End(GameEvent):
    """The game ended, for ``reason``."""

    TYPE: ClassVar[str] = "end"
    reason: EndReason


Event = LineDrawn | Skipped | Out | End
EVENTS = base.Events[Event](NAME, (LineDrawn, Skipped, Out, End))


def _segment(a: Dot, b: Dot) -> tuple[Dot, ...]:
    (c0, r0), (c1, r1) = a, b
    if c0 == c1:
        step = 1 if r1 >= r0 else -1
        return tuple((c0, r) for r in range(r0, r1 + step, step))
    step = 1 if c1 >= c0 else -1
    return tuple((c, r0) for c in range(c0, c1 + step, step))


def _axis(dot: Dot, direction: str, size: int) -> list[Dot]:
    """The dots of the dot's column (vertical) or row (horizontal)."""
    col, row = dot
    if direction == VERTICAL:
        return [(col, r) for r in range(size)]
    return [(c, row) for c in range(size)]


def _ends(marked: frozenset[Dot], size: int, start: Dot, direction: str) -> list[Dot]:
    """Where a line from ``start`` may end: the virgin dots reached along the axis before any
    non-virgin dot, on both sides."""
    dc, dr = (0, 1) if direction == VERTICAL else (1, 0)
    out: list[Dot] = []
    for sign in (-1, 1):
        c, r = start
        while True:
            c, r = c + sign * dc, r + sign * dr
            if not (0 <= c < size and 0 <= r < size) or (c, r) in marked:
                break
            out.append((c, r))
    return sorted(out)


def _line_exists(marked: frozenset[Dot], size: int, direction: str) -> bool:
    """Whether some column (vertical) or row (horizontal) holds both a virgin and a non-virgin dot."""
    for i in range(size):
        axis = _axis((i, i), direction, size)
        hits = sum(d in marked for d in axis)
        if 0 < hits < size:
            return True
    return False


# ---- state ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class State:
    n_players: int
    size: int
    lines: tuple[DrawnLine, ...]  # every line drawn, in order
    scores: tuple[int, ...]
    turn: int  # the seat to move (meaningless once the game is over)
    direction: Direction  # the direction of the line owed next
    current: Dot | None  # where the next line starts; None before the first line
    forfeited: frozenset[int]
    end_reason: EndReason | None = None
    events: tuple[Event, ...] = ()
    marked: frozenset[Dot] = frozenset()  # the non-virgin dots: derived from ``lines``, not stored

    @property
    def finished(self) -> bool:
        return self.end_reason is not None

    def to_dict(self) -> dict[str, Any]:
        return {
            "n_players": self.n_players,
            "size": self.size,
            "lines": [line.to_dict() for line in self.lines],
            "scores": list(self.scores),
            "turn": self.turn,
            "direction": self.direction.value,
            "current": None if self.current is None else dot_name(self.current),
            "forfeited": sorted(self.forfeited),
            "end_reason": None if self.end_reason is None else self.end_reason.value,
            "events": [event.to_dict() for event in self.events],
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> State:
        try:
            n, size = base.stored_int(d["n_players"]), base.stored_int(d["size"])
            require(MIN_PLAYERS <= n <= MAX_PLAYERS, "player count")
            require(SIZE_OPTION.allows(size), "size")
            lines = tuple(_line(x, size) for x in d["lines"])
            state = cls(
                n_players=n,
                size=size,
                lines=lines,
                scores=tuple(base.stored_int(v) for v in d["scores"]),
                turn=base.stored_int(d["turn"]),
                direction=Direction(d["direction"]),
                current=None if d["current"] is None else parse_dot(str(d["current"]), size),
                forfeited=frozenset(base.stored_int(s) for s in d["forfeited"]),
                end_reason=None if d["end_reason"] is None else EndReason(d["end_reason"]),
                events=tuple(EVENTS.parse(e) for e in d["events"]),
                marked=frozenset(dot for line in lines for dot in line.dots()),
            )
        except (KeyError, TypeError, ValueError, AttributeError, BadInput) as exc:
            raise ValueError(f"invalid dots state: {exc}") from exc
        state._validate()
        return state

    def _validate(self) -> None:
        """Replays the lines: each must have been legal when drawn and scored as RULES.md says."""
        n, size = self.n_players, self.size
        require(len(self.scores) == n, "scores per seat")
        require(0 <= self.turn < n, "turn")
        require(all(0 <= s < n for s in self.forfeited), "forfeited seats")
        marked: set[Dot] = set()
        totals = [0] * n
        for i, line in enumerate(self.lines):
            require(0 <= line.seat < n, "line seat")
            dots = line.dots()
            require(all(d not in marked for d in dots[1:]), "lines run over virgin dots")
            if i == 0:
                require(line.score == 0 and line.direction == VERTICAL, "the first line")
            else:
                require(line.start in marked, "lines start at a non-virgin dot")
                expected = sum(d in marked for d in _axis(line.start, line.direction, size))
                require(line.score == expected, "line score")
            marked.update(dots)
            totals[line.seat] += line.score
        require(tuple(totals) == self.scores, "scores are the lines' scores")
        require((self.current is None) == (not self.lines), "current dot")
        if self.current is not None:
            require(self.current in marked, "the current dot is non-virgin")
        if self.end_reason is None:
            require(len(marked) < size * size, "a full grid ends the game")
            require(n - len(self.forfeited) >= 2, "two players remain")
            require(self.turn not in self.forfeited, "the seat to move has not forfeited")
            require(
                self.current is None or _line_exists(self.marked, size, self.direction),
                "a drawable line is owed",
            )
        else:
            require((self.end_reason == END_FULL) == (len(marked) == size * size), "end reason")


def _line(x: Any, size: int) -> DrawnLine:
    start, end = parse_dot(str(x["from"]), size), parse_dot(str(x["to"]), size)
    direction = Direction(x["direction"])
    same_axis = start[0] == end[0] if direction == VERTICAL else start[1] == end[1]
    require(same_axis and start != end, "lines are axis-aligned")
    return DrawnLine(
        seat=base.stored_int(x["seat"]),
        direction=direction,
        start=start,
        end=end,
        score=base.stored_int(x["score"]),
        fallback=bool(x["fallback"]),
    )


def new_game(n_players: int, options: Mapping[str, int], seed: int) -> State:
    del seed  # no randomness in this game
    base.check_players(TITLE, n_players, MIN_PLAYERS, MAX_PLAYERS)
    size = SIZE_OPTION.value(options)
    return State(
        n_players=n_players,
        size=size,
        lines=(),
        scores=(0,) * n_players,
        turn=0,
        direction=VERTICAL,
        current=None,
        forfeited=frozenset(),
    )


# ---- what is owed, and where it may go ------------------------------------------------------------


class Owed(NamedTuple):
    """The line owed now: its direction, and whether the move must name its start (``from``)."""

    direction: str
    needs_from: bool
    first: bool  # the first line of the game: it may start at any dot
    fallback: bool  # no line from the current dot: it starts at a non-virgin dot of the player's choice


def owed(state: State) -> Owed | None:
    """The line owed now, or None once the game is over."""
    if state.finished:
        return None
    if state.current is None:
        return Owed(state.direction, needs_from=True, first=True, fallback=False)
    if _ends(state.marked, state.size, state.current, state.direction):
        return Owed(state.direction, needs_from=False, first=False, fallback=False)
    return Owed(state.direction, needs_from=True, first=False, fallback=True)


def legal_starts(state: State) -> tuple[Dot, ...]:
    """The dots the owed line may start from: the current dot normally, any dot for the first line,
    the non-virgin dots with a line of the owed direction for a fallback. Sorted by (col, row)."""
    o = owed(state)
    if o is None:
        return ()
    if o.first:
        return tuple((c, r) for c in range(state.size) for r in range(state.size))
    assert state.current is not None
    if not o.fallback:
        return (state.current,)
    return tuple(sorted(d for d in state.marked if _ends(state.marked, state.size, d, state.direction)))


def legal_ends(state: State, start: Dot) -> tuple[Dot, ...]:
    """Where the owed line may end when it starts at ``start`` (empty when it may not start there)."""
    if start not in legal_starts(state):
        return ()
    return tuple(_ends(state.marked, state.size, start, state.direction))


def line_score(state: State, start: Dot) -> int:
    """What the owed line would score if it started at ``start``: the non-virgin dots of its column
    (vertical) or row (horizontal), or 0 for the first line of the game."""
    if not state.lines:
        return 0
    return sum(d in state.marked for d in _axis(start, state.direction, state.size))


def to_act(state: State) -> frozenset[int]:
    return frozenset() if state.finished else frozenset({state.turn})


def legal_actions(state: State, seat: int) -> list[dict[str, Any]]:
    if seat not in to_act(state):
        return []
    o = owed(state)
    assert o is not None
    actions: list[dict[str, Any]] = []
    for start in legal_starts(state):
        for end in _ends(state.marked, state.size, start, state.direction):
            actions.append(Line(dot_name(end), dot_name(start) if o.needs_from else None).to_json())
    return actions


def _names(dots: tuple[Dot, ...] | list[Dot], limit: int = 12) -> str | Msg:
    names = [dot_name(d) for d in dots]
    if len(names) > limit:
        return Msg.n(
            "{dots} and {count} more",
            "{dots} and {count} more",
            len(names) - limit,
            dots=", ".join(names[:limit]),
        )
    return ", ".join(names)


# ---- moves ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Line:
    """Draw the owed line to the dot ``to``, from the dot ``from_`` when the line does not start at the
    current dot (dots by name, as typed: `apply` reads them with `parse_dot`). Logged as
    ``{"type": "line", "to": "C4", "from": None}``."""

    TYPE: ClassVar[str] = "line"
    to: str
    from_: str | None = None
    to_json = base.move_json


Move = Line
MOVES = base.Moves[Move]((Line,), wrong=N_("In Lines By The Dots the only move is drawing a line."))
parse_action = MOVES.parse  # whether the dots are on the grid is the state's business (`apply`)


def apply(state: State, seat: int, action: Move | ActionJSON) -> State:
    base.check_seat(state.n_players, seat)
    move = MOVES.read(action)
    size = state.size
    end = parse_dot(move.to, size)
    raw_start = move.from_
    start_given = None if raw_start is None or not raw_start.strip() else parse_dot(raw_start, size)
    if state.finished:
        raise GameFinished()
    if seat != state.turn:
        raise NotYourTurn(waiting=(state.turn,))
    o = owed(state)
    assert o is not None
    d = o.direction
    if o.needs_from:
        if start_given is None:
            _ask_for_start(state, o)
        start = start_given
        _check_start(state, start, d)
    else:
        assert state.current is not None
        if start_given is not None and start_given != state.current:
            # i18n: "from" is the option of /dots line: write it as the option is named in your language
            raise IllegalMove(
                "Your line starts where the last one ended, at {dot}: leave out from.",
                dot=dot_name(state.current),
            )
        start = state.current
    _check_path(state, start, end, d)
    return _draw(state, seat, start, end, fallback=o.fallback)


def _ask_for_start(state: State, o: Owed) -> NoReturn:
    """The line must say where it starts (the first line of the game, or one that cannot go on from
    the last one's end) and did not: say so, and where it may start."""
    d = o.direction
    if o.first or state.current is None:
        raise BadInput(
            directed(
                d,
                N_(
                    "Say where your vertical line starts (from): the first line of the game starts "
                    "at any dot you choose."
                ),
                N_(
                    "Say where your horizontal line starts (from): the first line of the game "
                    "starts at any dot you choose."
                ),
            )
        )
    raise BadInput(
        directed(
            d,
            N_(
                "Say where your vertical line starts (from): no vertical line can start at {dot}, "
                "so this one starts at a used dot you choose ({starts})."
            ),
            N_(
                "Say where your horizontal line starts (from): no horizontal line can start at "
                "{dot}, so this one starts at a used dot you choose ({starts})."
            ),
        ),
        dot=dot_name(state.current),
        starts=_names(legal_starts(state)),
    )


def _check_start(state: State, start: Dot, d: str) -> None:
    """A start the player chose must be one of the legal starts; else say why it is not."""
    starts = legal_starts(state)
    if start in starts:
        return
    if start not in state.marked:
        raise IllegalMove(
            "This line starts at a dot already used, and {dot} is unused. You may start at: {starts}.",
            dot=dot_name(start),
            starts=_names(starts),
        )
    raise IllegalMove(
        directed(
            d,
            N_(
                "No vertical line can start at {dot}: its column {column} has no unused dot next "
                "to it. You may start at: {starts}."
            ),
            N_(
                "No horizontal line can start at {dot}: its row {row} has no unused dot next to "
                "it. You may start at: {starts}."
            ),
        ),
        dot=dot_name(start),
        **_axis_fields(start, d),
        starts=_names(starts),
    )


def _axis_fields(dot: Dot, direction: str) -> dict[str, str | int]:
    """The dot's column letter (a vertical line's) or row number (a horizontal line's)."""
    return {"column": COLUMNS[dot[0]]} if direction == VERTICAL else {"row": dot[1] + 1}


def _check_path(state: State, start: Dot, end: Dot, d: str) -> None:
    ends = _ends(state.marked, state.size, start, d)
    hint = Msg("From {dot} you may draw to: {ends}.", dot=dot_name(start), ends=_names(ends))
    if end == start:
        raise IllegalMove("A line must leave its dot. {hint}", hint=hint)
    same_col, same_row = end[0] == start[0], end[1] == start[1]
    if not same_col and not same_row:
        raise IllegalMove(
            "{start} to {end} is diagonal: lines run along a column or a row. {hint}",
            start=dot_name(start),
            end=dot_name(end),
            hint=hint,
        )
    if (d == VERTICAL) != same_col:
        raise IllegalMove(
            directed(
                d,
                N_("This line must be vertical: stay in column {column}. {hint}"),
                N_("This line must be horizontal: stay in row {row}. {hint}"),
            ),
            **_axis_fields(start, d),
            hint=hint,
        )
    if end in state.marked:
        raise IllegalMove("{dot} is already used: a line touched it. {hint}", dot=dot_name(end), hint=hint)
    blocked = [p for p in _segment(start, end)[1:-1] if p in state.marked]
    if blocked:
        raise IllegalMove(
            "The line would pass {dot}, which a line already touched. {hint}",
            dot=dot_name(blocked[0]),
            hint=hint,
        )


def _draw(state: State, seat: int, start: Dot, end: Dot, fallback: bool) -> State:
    d = state.direction
    score = line_score(state, start)
    line = DrawnLine(seat=seat, direction=d, start=start, end=end, score=score, fallback=fallback)
    scores = list(state.scores)
    scores[seat] += score
    marked = state.marked | frozenset(line.dots())
    events: list[Event] = [LineDrawn.of(line)]
    out = replace(state, lines=(*state.lines, line), scores=tuple(scores), current=end, marked=marked)
    if len(marked) == state.size * state.size:
        return _finish(out, END_FULL, events)
    return _after_line(out, events)


def _after_line(state: State, events: list[Event]) -> State:
    """Pass to the next line owed: the turn's horizontal line, or the next player's vertical one."""
    return _skip_impossible(_advance(state), events)


def _skip_impossible(state: State, events: list[Event]) -> State:
    """Skip the owed line while it exists nowhere (RULES.md's skip); the next starts at the same dot."""
    for _ in range(3):  # never more than one skip in a row (see the module docstring)
        if state.current is None or _line_exists(state.marked, state.size, state.direction):
            break
        events.append(Skipped(state.turn, state.direction, dot_name(state.current)))
        state = _advance(state)
    return replace(state, events=tuple(events))


def _advance(state: State) -> State:
    if state.direction == VERTICAL:
        return replace(state, direction=HORIZONTAL)
    return replace(
        state, direction=VERTICAL, turn=base.next_seat(state.n_players, state.turn, state.forfeited)
    )


def _finish(state: State, reason: EndReason, events: list[Event]) -> State:
    events.append(End(reason))
    return replace(state, end_reason=reason, events=tuple(events))


def forfeit(state: State, seat: int) -> State:
    base.check_seat(state.n_players, seat)
    if state.finished or seat in state.forfeited:
        return replace(state, events=())
    out = replace(state, forfeited=state.forfeited | {seat})
    events: list[Event] = [Out(seat, Out.FORFEITED)]
    if state.n_players - len(out.forfeited) < 2:
        return _finish(out, END_PLAYERS, events)
    if seat != state.turn:
        return replace(out, events=tuple(events))
    # The next player starts a whole turn, a vertical line first, from the current dot.
    out = replace(out, turn=base.next_seat(out.n_players, seat, out.forfeited), direction=VERTICAL)
    return _skip_impossible(out, events)


def outcome(state: State) -> Outcome | None:
    if not state.finished:
        return None
    remaining = [s for s in range(state.n_players) if s not in state.forfeited]
    if not remaining:
        return Outcome(winners=(), reason=N_("every player left the game"), scores=state.scores)
    if len(remaining) == 1:
        return Outcome(
            winners=(remaining[0],), reason=N_("every other player left the game"), scores=state.scores
        )
    best = max(state.scores[s] for s in remaining)
    winners = tuple(s for s in remaining if state.scores[s] == best)
    return Outcome(winners=winners, reason=N_("every dot is taken"), scores=state.scores)


# ---- the view -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class View:
    """Lines By The Dots has no secrets: every seat sees the same view."""

    n_players: int
    size: int
    lines: tuple[DrawnLine, ...]
    marked: frozenset[Dot]  # the non-virgin dots
    current: Dot | None  # where the next line starts (None before the first line)
    turn: int | None  # None once the game is over
    owed: Owed | None  # None once the game is over
    scores: tuple[int, ...]
    forfeited: frozenset[int]
    events: tuple[Event, ...]
    outcome: Outcome | None
    # The line owed now, as the player may draw it: its legal starts, each start's legal ends and
    # what a line from it scores (empty once the game is over).
    starts: tuple[Dot, ...] = ()
    ends: Mapping[Dot, tuple[Dot, ...]] = field(default_factory=dict)
    line_scores: Mapping[Dot, int] = field(default_factory=dict)


def view_for(state: State, seat: int | None) -> View:
    del seat
    starts = () if state.finished else legal_starts(state)
    return View(
        starts=starts,
        ends={start: legal_ends(state, start) for start in starts},
        line_scores={start: line_score(state, start) for start in starts},
        n_players=state.n_players,
        size=state.size,
        lines=state.lines,
        marked=state.marked,
        current=state.current,
        turn=None if state.finished else state.turn,
        owed=owed(state),
        scores=state.scores,
        forfeited=state.forfeited,
        events=state.events,
        outcome=outcome(state),
    )
