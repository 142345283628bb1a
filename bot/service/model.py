"""What the service layer hands the table: a game as loaded (row, rules, state), a committed change,
a move's result, and a game's history replayed from its log. Plain data: nothing here does work."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from bot.errors import NoGameHere
from bot.rules.base import forfeit_of
from bot.storage import Effect, GameRow, OutboxItem

T = TypeVar("T")


@dataclass(frozen=True)
class Loaded:
    """A game row with its rules module and (once started) its decoded state.

    A version's state never changes, so what is derived from it (the views, the table's facts) is
    kept with it (`derived`): a game in the cache is parsed, and viewed, once per version.
    """

    row: GameRow
    rules: Any
    state: Any  # None while in the lobby
    _derived: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def id(self) -> int:
        return self.row.id

    def derived(self, key: Any, make: Callable[[], T]) -> T:
        """``make()``, computed once for this version of the game."""
        if key not in self._derived:
            self._derived[key] = make()
        value: T = self._derived[key]
        return value

    def view(self, seat: int | None) -> Any:
        """``view_for(state, seat)``: the public view (None) or a seat's own."""
        return self.derived(("view", seat), lambda: self.rules.view_for(self.state, seat))


@dataclass(frozen=True)
class Changed:
    """A committed change of a game and the outbox effects written with it."""

    game: Loaded
    effects: tuple[OutboxItem, ...] = ()


@dataclass(frozen=True)
class MoveResult:
    before: Loaded
    after: Loaded
    seat: int
    action: dict[str, Any]  # as logged
    effects: tuple[OutboxItem, ...] = ()

    @property
    def forfeit(self) -> str | None:
        """None, or how the seat forfeited: ``"left"`` or ``"timeout"``."""
        return forfeit_of(self.action)


@dataclass(frozen=True)
class Step:
    """One logged move, replayed: the version of the game it made, who made it, and the states
    around it."""

    version: int
    seat: int
    action: dict[str, Any]
    before: Any
    after: Any

    @property
    def forfeit(self) -> str | None:
        return forfeit_of(self.action)


@dataclass(frozen=True)
class History:
    """A started game as its log tells it: the version and state it started at, then one step per
    move (the versions after the start are one per move; a cancel adds one more, after the last)."""

    game_id: int
    start_version: int
    start: Any
    steps: tuple[Step, ...]

    def step(self, version: int) -> Step:
        """The move that made ``version``."""
        index = version - self.start_version - 1
        if not 0 <= index < len(self.steps):
            raise NoGameHere(
                "Game #{game_id} has no move that made version {version}.",
                game_id=self.game_id,
                version=version,
            )
        return self.steps[index]


Owed = Callable[[MoveResult], Sequence[Effect]]  # what a move owes the world, planned from its result


def logged(action: Any) -> dict[str, Any]:
    """The JSON form of an action, as the move log stores it."""
    to_json = getattr(action, "to_json", None)
    return dict(to_json() if to_json is not None else action)
