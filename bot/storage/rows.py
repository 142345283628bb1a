"""The rows the storage answers with: frozen dataclasses, decoded (JSON columns are dicts here).

Nothing in this module talks to a database; callers may build and compare these freely.
"""

from __future__ import annotations

import dataclasses
import json
import types
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypeVar, get_args, get_origin, get_type_hints

from bot.jsontypes import JSON, DBValue, JSONObject

R = TypeVar("R")
Read = Callable[[DBValue], object]

LIVE = ("lobby", "active")
STATUSES = ("lobby", "active", "finished", "cancelled")


def dumps(value: JSON) -> str:
    """How a JSON column is written: compact, keys sorted (equal values, equal text)."""
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


def from_row(cls: type[R], row: Sequence[DBValue]) -> R:
    """The row dataclass ``cls`` of a database row whose columns are its fields, in order: each
    column read as its field's type says (``int``, ``float``, ``str``, ``bool``; a JSON object's
    text parsed; ``X | None``: NULL stays None)."""
    readers = _READERS.get(cls)
    if readers is None:
        readers = _READERS[cls] = _readers(cls)
    return cls(*(read(value) for read, value in zip(readers, row, strict=True)))


_PLAIN: dict[object, Read] = {int: int, float: float, str: str, bool: bool}
_READERS: dict[type, tuple[Read, ...]] = {}


def _readers(cls: type) -> tuple[Read, ...]:
    hints = get_type_hints(cls)
    return tuple(_reader(hints[f.name]) for f in dataclasses.fields(cls))


def _reader(hint: object) -> Read:
    if hint in _PLAIN:
        return _PLAIN[hint]
    if get_origin(hint) is dict:
        return json.loads
    options = get_args(hint)
    if isinstance(hint, types.UnionType) and len(options) == 2 and type(None) in options:
        read = _reader(options[0] if options[1] is type(None) else options[1])
        return lambda value: None if value is None else read(value)
    raise TypeError(f"No column reads as {hint!r}")


@dataclass(frozen=True)
class GameRow:
    id: int
    kind: str
    guild_id: int | None
    channel_id: int
    status: str
    host_id: int
    options: JSONObject
    seed: int
    state: JSONObject | None
    result: JSONObject | None
    version: int
    lobby_message_id: int | None
    board_message_id: int | None
    created_at: float
    updated_at: float
    timeout_s: int  # how long each awaited player has for their move
    seats: tuple[int, ...]  # user ids in turn order; seat 0 first
    names: tuple[str, ...]  # their display names when they joined (for images; mentions use ids)
    # Where the game is played: the thread started from its lobby card, or the card's channel itself
    # (threads off or not allowed, or the game was opened inside a thread).
    place_id: int = 0
    # Where the game was to be played when it started (see `bot.table.threads.Places.intent`).
    start_place: str | None = None
    # A player asked for a hint (`/game hint`): the game is marked so, and changes no rating.
    hints: bool = False

    def __post_init__(self) -> None:
        if not self.place_id:
            object.__setattr__(self, "place_id", self.channel_id)

    @property
    def live(self) -> bool:
        return self.status in LIVE

    @property
    def thread_id(self) -> int | None:
        """The game's own thread, when it has one."""
        return self.place_id if self.place_id != self.channel_id else None

    @property
    def places(self) -> frozenset[int]:
        """The channels and threads where this live game is found: its card's channel, where it is
        played, and (started to be played in a thread) the thread started from its card, which has
        the card's id, even before the game names it as its place (a command used there at once)."""
        if not self.live:
            return frozenset()
        found = {self.channel_id, self.place_id}
        if self.status == "active" and self.start_place == "thread" and self.lobby_message_id is not None:
            found.add(self.lobby_message_id)
        return frozenset(found)

    def played_at(self, place_id: int) -> bool:
        """Whether the game is played in ``place_id`` (see `places`: its card's thread counts at once)."""
        return place_id == self.place_id or (place_id != self.channel_id and place_id in self.places)

    def seat_of(self, user_id: int) -> int | None:
        try:
            return self.seats.index(user_id)
        except ValueError:
            return None


@dataclass(frozen=True)
class MoveRow:
    game_id: int
    seq: int
    seat: int
    action: JSONObject
    created_at: float
    undone: int | None = None  # taken back: the version its takeback made (see `bot.storage.undo`)


@dataclass(frozen=True)
class UndoRequest:
    """A takeback asked for: of ``seat``'s move ``seq``, made at the game's ``version``; the seats
    that accepted so far; its status ('pending', 'accepted', 'declined', 'expired', 'lapsed': the
    game moved on) and who declined; the public message that asks."""

    id: int
    game_id: int
    seat: int
    seq: int
    version: int
    status: str
    accepted: tuple[int, ...]
    answered_by: int | None
    channel_id: int | None
    message_id: int | None
    created_at: float
    expires_at: float


@dataclass(frozen=True)
class DmLink:
    """A player's private channel for one game: DMs closed?, and their latest DM panel."""

    game_id: int
    user_id: int
    blocked: bool
    dm_channel_id: int | None
    panel_message_id: int | None


@dataclass(frozen=True)
class Wait:
    """The game waits for ``seat`` until ``deadline`` (epoch seconds); reminded halfway."""

    game_id: int
    seat: int
    since: float
    deadline: float
    reminded: bool
    paused: float = 0.0  # seconds of time away added to the deadline (bot/storage/away.py)

    @property
    def remind_at(self) -> float:
        return (self.since + self.paused + self.deadline) / 2


class Storable(Protocol):
    """What the outbox stores of an effect: its kind, its arguments (JSON) and the interaction token
    it answers, if any. The bot's effects are classes of their own (`bot.table.effects`); the storage
    needs only these three."""

    @property
    def kind(self) -> str: ...

    @property
    def args(self) -> Mapping[str, object]: ...  # JSON-serialisable

    @property
    def token(self) -> str | None: ...


@dataclass(frozen=True)
class Effect:
    """An outbox entry to write given as its stored form (a `Storable`): a kind and its arguments."""

    kind: str
    args: Mapping[str, object] = field(default_factory=dict)  # JSON-serialisable
    token: str | None = None  # an interaction token, when the effect answers an interaction


@dataclass(frozen=True)
class OutboxItem:
    """An outbox entry as stored; ``id`` is its place in the global order."""

    id: int
    game_id: int
    kind: str
    args: dict[str, object]  # as stored (JSON); read as its effect by `bot.table.effects`
    token: str | None
    created_at: float
    attempts: int  # failed tries so far
    not_before: float  # not to be tried before this time (epoch seconds; 0: at once)


@dataclass(frozen=True)
class Written:
    """What a game write answers: the committed row, and the outbox items written with it (in order)."""

    row: GameRow
    effects: tuple[OutboxItem, ...] = ()


@dataclass(frozen=True)
class CompleteResult:
    """What `complete_effect` did. ``completed``: False when the item was already gone (someone else
    completed it), and then nothing else was written. ``newly_blocked``: the DMs were marked closed by
    this call (the first time: when to post the notice). ``effects``: the follow-ups inserted."""

    completed: bool
    newly_blocked: bool = False
    effects: tuple[OutboxItem, ...] = ()


# ---- the server's memory (bot/storage/records.py) ----------------------------------------------------


@dataclass(frozen=True)
class BoardLine:
    """One line of a leaderboard: a player's place on it and their figures. For all time, ``games``
    and ``wins`` are all their games of that kind here and ``gain`` their last game's change; for a
    period, those of the period, and ``gain`` the change of ordinal over it."""

    rank: int  # 1 + how many are ahead (equal figures share a rank)
    player_id: int  # a person's id, or a computer level's identity
    name: str
    ordinal: float  # the current rating, mu - 3 sigma
    games: int
    wins: int
    gain: float


@dataclass(frozen=True)
class KindRecord:
    """A player's record in one game of one server (for /game stats)."""

    kind: str
    name: str
    mu: float
    sigma: float
    ordinal: float
    games: int
    wins: int
    moves: int  # moves timed
    move_seconds: float  # their total time to move
    trend: float  # change of ordinal over the last `trend_games` games
    trend_games: int


@dataclass(frozen=True)
class Rival:
    """Someone a player met: how many finished games together, and who placed higher."""

    opponent_id: int
    name: str
    games: int
    wins: int  # the player placed above the opponent
    losses: int  # below


@dataclass(frozen=True)
class PastSeat:
    user_id: int
    name: str
    place: int
    score: int | None
    won: bool
    forfeited: bool


@dataclass(frozen=True)
class PastGame:
    """A finished game as /game history lists it, with where it can be found."""

    game_id: int
    seq: int
    kind: str
    finished_at: float
    guild_id: int
    channel_id: int
    place_id: int
    board_message_id: int | None
    lobby_message_id: int | None
    seats: tuple[PastSeat, ...]
    hints: bool = False  # played with hints (`/game hint`): not rated


@dataclass(frozen=True)
class HistoryPage:
    games: tuple[PastGame, ...]
    total: int  # the player's finished games (of that kind) up to ``anchor``
    anchor: int  # the newest game's finishing order counted: later pages stay the same pages


@dataclass(frozen=True)
class Awaited:
    """A seat a live game waits on (public: who must act, never what they chose), until ``deadline``."""

    seat: int
    user_id: int
    name: str
    deadline: float


@dataclass(frozen=True)
class AgendaEntry:
    """One of a person's live games, as /game mine lists it: the game, their seat, and the seats it
    waits on, soonest deadline first."""

    game: GameRow
    seat: int
    waits: tuple[Awaited, ...]

    @property
    def mine(self) -> Awaited | None:
        """The person's own wait (the game waits on them), if any."""
        return next((w for w in self.waits if w.seat == self.seat), None)

    @property
    def group(self) -> int:
        """0: the game waits on the person; 1: a game under way that waits on others; 2: a lobby."""
        if self.game.status == "lobby":
            return 2
        return 0 if self.mine is not None else 1

    @property
    def deadline(self) -> float | None:
        """The deadline that matters to the person: theirs, else the soonest of the others'."""
        own = self.mine
        if own is not None:
            return own.deadline
        return self.waits[0].deadline if self.waits else None
