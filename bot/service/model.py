"""What the service layer hands the table: a game as loaded (row, rules, state), a committed change,
a move's result, and a game's history replayed from its log. Plain data: nothing here does work."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar, cast

from bot.errors import NoGameHere
from bot.jsontypes import JSONObject
from bot.rules.base import GameRules, M, S, forfeit_of
from bot.storage import GameRow, OutboxItem, Storable

T = TypeVar("T")
V = TypeVar("V")  # the game's view


@dataclass(frozen=True)
class Loaded(Generic[S, V, M]):
    """A game row with its rules module and (once started) its decoded state: generic in the game's
    state, view and move (the framework, which holds every game's, says ``Loaded``: some game's).

    A version's state never changes, so what is derived from it (the views, the table's facts) is
    kept with it (`derived`): a game in the cache is parsed, and viewed, once per version.
    """

    row: GameRow
    rules: GameRules[S, V, M]
    # None while in the lobby (typed as the state, as the games' commands read it where they know the
    # game has begun; `started` checks).
    state: S
    _derived: dict[Hashable, object] = field(default_factory=dict, compare=False, repr=False)

    @property
    def id(self) -> int:
        return self.row.id

    def derived(self, key: Hashable, make: Callable[[], T]) -> T:
        """``make()``, computed once for this version of the game (each ``key`` always stands for
        the same kind of value)."""
        if key not in self._derived:
            self._derived[key] = make()
        return cast(T, self._derived[key])

    def view(self, seat: int | None) -> V:
        """``view_for(state, seat)``: the public view (None) or a seat's own (of a started game)."""
        return self.derived(("view", seat), lambda: self.rules.view_for(self.started, seat))

    @property
    def started(self) -> S:
        """The state of a started game (`ValueError` for a lobby, which has none)."""
        if self.state is None:
            raise ValueError(f"game #{self.row.id} has not started")
        return self.state


@dataclass(frozen=True)
class Changed:
    """A committed change of a game and the outbox effects written with it."""

    game: Loaded
    effects: tuple[OutboxItem, ...] = ()


@dataclass(frozen=True)
class MoveResult(Generic[S, V, M]):
    before: Loaded[S, V, M]
    after: Loaded[S, V, M]
    seat: int
    action: JSONObject  # as logged
    effects: tuple[OutboxItem, ...] = ()

    @property
    def forfeit(self) -> str | None:
        """None, or how the seat forfeited: ``"left"`` or ``"timeout"``."""
        return forfeit_of(self.action)

    @property
    def undone(self) -> bool:
        """Whether this change took the seat's last move back (see `undo_action`)."""
        return is_undo(self.action)


def undo_action(seq: int) -> JSONObject:
    """How a takeback of the logged move ``seq`` reads where a move would (a `Step`, a
    `MoveResult`): it is not logged itself; the move it took back is marked."""
    return {"type": "undo", "seq": seq}


def is_undo(action: JSONObject) -> bool:
    return action.get("type") == "undo"


@dataclass(frozen=True)
class Step(Generic[S]):
    """One logged move, replayed: the version of the game it made, who made it, and the states
    around it."""

    version: int
    seat: int
    action: JSONObject
    before: S
    after: S

    @property
    def forfeit(self) -> str | None:
        return forfeit_of(self.action)

    @property
    def undone(self) -> bool:
        return is_undo(self.action)


@dataclass(frozen=True)
class History(Generic[S]):
    """A started game as its log tells it: the version and state it started at, then one step per
    move and one per takeback (the versions after the start are one per move and one per takeback,
    in the order they were made; a cancel adds one more, after the last)."""

    game_id: int
    start_version: int
    start: S
    steps: tuple[Step[S], ...]

    def step(self, version: int) -> Step[S]:
        """The move that made ``version``."""
        index = version - self.start_version - 1
        if not 0 <= index < len(self.steps):
            raise NoGameHere(
                "Game #{game_id} has no move that made version {version}.",
                game_id=self.game_id,
                version=version,
            )
        return self.steps[index]


Owed = Callable[[MoveResult], Sequence[Storable]]  # what a move owes the world, planned from its result
