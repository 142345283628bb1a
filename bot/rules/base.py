"""The contract every game's rules module fulfils, and the helpers shared by all of them.

A rules module (``cogs/<name>/rules.py``) is pure: no discord, database driver, PIL or table imports
(tests/unit/test_purity.py checks), no module-level randomness. `GameRules` spells out what it
exposes; the registry (`bot.registry`, with `bot.rules.check_rules`) checks every module against it
once, at import, and mypy checks each one statically (its spec's ``GameSpec[State, View, Move]``):

- ``NAME`` (the slash command group, e.g. ``"procession"``), ``TITLE``, ``MIN_PLAYERS``, ``MAX_PLAYERS``
- ``OPTIONS``: a tuple of `Option` (the ``/<name> new`` options with their ranges and defaults), each
  also a constant of its own (``procession.N_OPTION``): the one source of those ranges
- ``State``: a frozen dataclass with ``to_dict()`` and ``State.from_dict(d)`` (validates, raises
  ``ValueError`` on malformed data); JSON round-trippable
- ``new_game(n_players, options, seed) -> State``
- ``to_act(state) -> frozenset[int]``: the seats (0-based) that must act now; empty once the game is over
- ``legal_actions(state, seat)``: the moves the seat is asked for now, each as its logged JSON
- ``parse_action(data)``: logged JSON -> the typed action (the game's own ``Move`` or `Forfeit`);
  ``BadInput`` when the JSON is malformed. Parsing is apart from legality, as in python-chess's
  ``Move.from_uci`` and ``Board.push``: a parsed action may still be illegal now.
- ``apply(state, seat, action) -> State``: a *new* state; raises a ``GameError`` subclass and changes
  nothing when the action is malformed (``BadInput``), not allowed now (``IllegalMove``) or comes from a
  seat that must not act (``NotYourTurn``). Takes the typed move, or its JSON (parsed first).
- ``forfeit(state, seat) -> State``: the seat leaves play as RULES.md says
- ``outcome(state) -> Outcome | None``: ``None`` while the game goes on
- ``view_for(state, seat | None)``: everything a seat (or, with ``None``, the public channel) may see.
  Renderers and message builders only ever receive a view.

Seats are 0-based in code; people are named, never numbered by seat (see `bot.errors`). Actions are
small frozen dataclasses; each one's ``to_json()`` is the JSON object with a ``"type"`` key that the
move log stores (``{"type": "flip", "position": 3}``), and replaying the log from ``new_game`` with
`bot.rules.play` reproduces the stored state. A game's own moves write that JSON with `move_json` and
are read back by its `Moves`, from their dataclass fields.

A record whose JSON is just its fields (a ``State``, a result) writes it with `fields_json`; its
``from_dict`` reads the values back with `stored_int` and checks them with `require`.

A state's ``events`` (what the last apply/forfeit did, for the presenters) are `GameEvent`s: one small
frozen dataclass per kind, its ``"type"`` in the stored JSON on the class (``TYPE``), as a move's is;
``to_dict()`` writes ``{"type": TYPE, ...fields}`` and the game's `Events` reads that back, validating.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import Field, dataclass, fields
from enum import Enum
from functools import cache, partial
from types import NoneType, UnionType
from typing import (
    ClassVar,
    Generic,
    Protocol,
    Self,
    TypeVar,
    Union,
    get_args,
    get_origin,
    get_type_hints,
    runtime_checkable,
)

from bot.errors import BadInput
from bot.i18n.lang import Lang, Msg
from bot.jsontypes import JSON, JSONMap, JSONObject

ActionJSON = JSONMap
"""An action as the move log stores it: a JSON object with a ``"type"`` key."""

Action = ActionJSON  # the name the Discord layer imports for the JSON form

FORFEIT: dict[str, str] = {"type": "forfeit"}


def forfeit_of(action: ActionJSON) -> str | None:
    """None, or how a logged action forfeited: ``"left"`` or ``"timeout"``."""
    if action.get("type") != "forfeit":
        return None
    return "timeout" if action.get("reason") == "timeout" else "left"


# ---- records as JSON --------------------------------------------------------------------------------


class Record(Protocol):
    """A dataclass instance: what `dataclasses.fields` reads."""

    __dataclass_fields__: ClassVar[dict[str, Field[object]]]


def fields_json(record: Record) -> JSONObject:
    """A frozen dataclass as JSON data: each field in order, under its name less a trailing ``_``
    (``Line.from_`` is logged as ``"from"``), its value made plain: a tuple or list becomes a list (of
    plain values), a frozenset a sorted list, a dict a deep copy, an enum its value, a value with a
    ``to_dict`` that dict;
    numbers, strings, booleans and None stay as they are. A class whose JSON is just that takes it as
    its method: ``to_dict = fields_json``."""
    return {_json_key(f.name): _plain(getattr(record, f.name)) for f in fields(record)}


def _json_key(field_name: str) -> str:
    return field_name.removesuffix("_")


def _plain(value: object) -> JSON:
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if isinstance(value, frozenset):
        return sorted(value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}  # a copy (JSON data: plain values all through)
    if isinstance(value, Msg):
        return str(value)  # a sentence to translate is logged in English
    if isinstance(value, Enum):
        return value.value  # a StrEnum is stored as its string
    to_dict = getattr(value, "to_dict", None)
    return value if to_dict is None else to_dict()


# ---- actions ----------------------------------------------------------------------------------------


@runtime_checkable
class TypedAction(Protocol):
    """What every typed action provides: its ``"type"`` in the log, and its logged JSON."""

    TYPE: ClassVar[str]

    def to_json(self) -> JSONObject: ...


@dataclass(frozen=True)
class Forfeit:
    """Leaving the game (``/game leave``, or ``reason="timeout"`` at a missed deadline). Every game
    takes it, through its ``forfeit`` function (`bot.rules.play` routes it there)."""

    TYPE: ClassVar[str] = "forfeit"
    reason: str | None = None

    def to_json(self) -> JSONObject:
        return {"type": self.TYPE} if self.reason is None else {"type": self.TYPE, "reason": self.reason}

    @classmethod
    def from_json(cls, data: ActionJSON) -> Forfeit:
        reason = data.get("reason")
        if reason is not None and not isinstance(reason, str):
            raise BadInput("That move could not be read.")
        return cls(reason)


A = TypeVar("A")
P = TypeVar("P")


def read_action(action: A | ActionJSON, parse: Callable[[ActionJSON], P]) -> A | P:
    """An action given to ``apply`` as its typed value: JSON is parsed with the module's ``parse``; a
    typed action is taken as it is; anything else is ``BadInput``."""
    if isinstance(action, Mapping):
        return parse(action)
    if not callable(getattr(action, "to_json", None)):  # (a runtime Protocol check costs far more)
        raise BadInput("That move could not be read.")
    return action  # type: ignore[return-value]


def action_json(action: TypedAction | ActionJSON) -> JSONObject:
    """The logged JSON of an action given either way."""
    return dict(action) if isinstance(action, Mapping) else action.to_json()


class MoveRecord(Record, Protocol):
    """A game's own move: a frozen dataclass with its ``"type"`` on the class."""

    TYPE: ClassVar[str]


def move_json(move: MoveRecord) -> JSONObject:
    """The logged JSON of a game's own move, a frozen dataclass with a ``TYPE``: ``{"type": TYPE}``, then
    its fields (`fields_json`). A move class takes it as its method: ``to_json = move_json``."""
    return {"type": move.TYPE, **fields_json(move)}


T = TypeVar("T", bound=TypedAction)


@dataclass(frozen=True)
class Moves(Generic[T]):
    """A game's own moves (its ``Move`` classes) as the move log has them, and ``wrong``: the sentence
    that refuses any other action ("In Procession the only move is flipping a digit.").

    Each class writes its JSON with `move_json` and is read back from it here, field by field; a field
    is an ``int``, a ``str`` or a ``str | None`` (which may be missing), each refused with ``BadInput``
    when it is not one (`int_field`, `str_field`, `optional_str_field`).
    """

    kinds: tuple[type[T], ...]
    wrong: str

    def __post_init__(self) -> None:
        for kind in self.kinds:
            _field_readers(kind)  # a field of a type it cannot read fails here, at import

    def parse(self, data: ActionJSON) -> T | Forfeit:
        """A logged action as its typed value (one of these moves, or a `Forfeit`); ``BadInput`` when
        the JSON is malformed. Whether the move is legal now is ``apply``'s business."""
        kind = action_type(data)
        if kind == Forfeit.TYPE:
            return Forfeit.from_json(data)
        for move in self.kinds:
            if move.TYPE == kind:
                build: Callable[..., T] = move
                return build(*(read(data, key) for key, read in _field_readers(move)))
        raise BadInput(self.wrong)

    def read(self, action: T | ActionJSON) -> T:
        """An action given to ``apply`` as one of these moves: JSON is parsed first; a forfeit, another
        game's move or anything else is refused with ``BadInput``."""
        move = read_action(action, self.parse)
        if not isinstance(move, self.kinds):
            raise BadInput(self.wrong)
        return move


# ---- options and outcomes ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Option:
    """A numeric option of ``/<game> new``: the one place its range and default are written.

    A cog builds its slash option from it: ``n: app_commands.Range[int, N_OPTION.min, N_OPTION.max] =
    N_OPTION.default`` with ``@app_commands.describe(n=N_OPTION.help)``.
    """

    name: str
    description: str
    default: int
    min: int
    max: int

    @property
    def help(self) -> str:
        """The description with the range and default: "How many digits the row has (2-12, default 6)"."""
        return f"{self.description} ({self.min}-{self.max}, default {self.default})"

    def allows(self, value: int) -> bool:
        return self.min <= value <= self.max

    def value(self, options: Mapping[str, int]) -> int:
        """Its value in ``new_game``'s ``options`` (the default when absent); ``ValueError`` when out of
        range."""
        value = options.get(self.name, self.default)
        if not self.allows(value):
            raise ValueError(f"{self.name} must be from {self.min} to {self.max}")
        return value


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended.

    ``winners`` are the seats sharing the win (several on a tie; all remaining seats on a draw),
    ``scores`` the final score per seat when the game keeps scores, ``reason`` a short sentence for the
    announcement ("no legal move is left", "every dot is taken", ...): an English msgid (marked with
    ``N_``), or a `Reason` when the sentence has fields; `reason_in` says it in a language.
    """

    winners: tuple[int, ...]
    reason: str | Msg
    scores: tuple[int, ...] | None = None
    draw: bool = False

    to_dict = fields_json

    def reason_in(self, lang: Lang) -> str:
        """The reason in ``lang``."""
        return lang.say(self.reason.msg if isinstance(self.reason, Reason) else self.reason)


class Reason(str):
    """An outcome's reason with fields ("the higher total (4 to 3)"): the English sentence, which is
    what every reader of ``Outcome.reason`` as a string gets (and what its JSON stores), carrying the
    `Msg` it was made from, which `Outcome.reason_in` translates. ``Reason.of(Msg("...", x=1))``."""

    msg: Msg

    @classmethod
    def of(cls, msg: Msg) -> Reason:
        reason = cls(str(msg))
        reason.msg = msg
        return reason


# ---- the contract -----------------------------------------------------------------------------------


class GameState(Protocol):
    """A game's state: immutable, JSON round-trippable."""

    def to_dict(self) -> JSONObject: ...

    @classmethod
    def from_dict(cls, d: JSONMap) -> Self: ...


S = TypeVar("S", bound=GameState)
V = TypeVar("V", covariant=True)
M = TypeVar("M", bound=TypedAction)


@runtime_checkable
class GameRules(Protocol[S, V, M]):
    """What a rules module provides, generic in its State, its View and its own moves (``M``; a
    forfeit is a `Forfeit`, common to all games). A module is checked against it as a whole:
    ``rules: GameRules[procession.State, procession.View, procession.Move] = procession``."""

    NAME: str
    TITLE: str
    MIN_PLAYERS: int
    MAX_PLAYERS: int
    OPTIONS: tuple[Option, ...]
    State: type[S]

    def new_game(self, n_players: int, options: Mapping[str, int], seed: int) -> S: ...

    def to_act(self, state: S) -> frozenset[int]: ...

    def legal_actions(self, state: S, seat: int) -> Sequence[JSONObject]: ...

    def parse_action(self, data: ActionJSON) -> M | Forfeit: ...

    def apply(self, state: S, seat: int, action: M | ActionJSON) -> S: ...

    def forfeit(self, state: S, seat: int) -> S: ...

    def outcome(self, state: S) -> Outcome | None: ...

    def view_for(self, state: S, seat: int | None) -> V: ...


AnyRules = GameRules
"""Some game's rules, its state, view and move types its own: the framework holds every game's at
once, and Python has no type for "a `GameRules` of some S, V, M", so the parameters are unchecked
where the games meet (the registry, the service); each game's spec checks them for that game."""


# ---- helpers for the rules modules ------------------------------------------------------------------


def resolve_options(options_spec: tuple[Option, ...], given: Mapping[str, object]) -> dict[str, int]:
    """Fill defaults and check ranges; raise ``BadInput`` naming the allowed range."""
    known = {o.name for o in options_spec}
    unknown = set(given) - known
    if unknown:
        raise BadInput("Unknown option {option}.", option=repr(sorted(unknown)[0]))
    out: dict[str, int] = {}
    for opt in options_spec:
        value = given.get(opt.name, opt.default)
        if value is None:
            value = opt.default
        if isinstance(value, bool) or not isinstance(value, int):
            raise BadInput(
                "Option {option} must be a whole number from {low} to {high}.",
                option=opt.name,
                low=opt.min,
                high=opt.max,
            )
        if not opt.allows(value):
            raise BadInput(
                "Option {option} must be from {low} to {high} (you gave {value}).",
                option=opt.name,
                low=opt.min,
                high=opt.max,
                value=value,
            )
        out[opt.name] = value
    return out


def action_type(action: object) -> str:
    """The action's ``type``, or ``BadInput`` when the action is not a JSON object with one."""
    if not isinstance(action, Mapping) or not isinstance(action.get("type"), str):
        raise BadInput("That move could not be read.")
    return str(action["type"])


def int_field(action: ActionJSON, key: str) -> int:
    """An integer field of an action, or ``BadInput``."""
    value = action.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise BadInput("The move needs a whole number for {key}.", key=key)
    return value


def str_field(action: ActionJSON, key: str) -> str:
    """A string field of an action, or ``BadInput``."""
    value = action.get(key)
    if not isinstance(value, str):
        raise BadInput("The move needs text for {key}.", key=key)
    return value


def optional_str_field(action: ActionJSON, key: str) -> str | None:
    """A string field of an action that may be missing or null, or ``BadInput``."""
    value = action.get(key)
    if value is not None and not isinstance(value, str):
        raise BadInput("The move needs text for {key}.", key=key)
    return value


FieldReader = Callable[[ActionJSON, str], int | str | None]

_READERS: dict[object, FieldReader] = {
    int: int_field,
    str: str_field,
    str | None: optional_str_field,
}


@cache
def _field_readers(kind: type) -> tuple[tuple[str, FieldReader], ...]:
    """The JSON key and the reader of each field of a move class, in order."""
    hints = get_type_hints(kind)
    try:
        return tuple((_json_key(f.name), _READERS[hints[f.name]]) for f in fields(kind))
    except KeyError as exc:
        raise TypeError(f"{kind.__name__}: a move's field must be an int, a str or a str | None") from exc


def check_players(title: str, n_players: int, least: int, most: int) -> None:
    """``new_game``'s check of the player count: ``ValueError`` naming the game and its range."""
    if not least <= n_players <= most:
        raise ValueError(f"{title} needs {least}-{most} players")


def next_seat(n_players: int, after: int, forfeited: Collection[int]) -> int:
    """The seat after ``after`` in seat order (round the table) that has not forfeited; ``after`` itself
    when every other seat has."""
    for step in range(1, n_players + 1):
        seat = (after + step) % n_players
        if seat not in forfeited:
            return seat
    return after


def check_seat(n_players: int, seat: int) -> None:
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < n_players:
        raise ValueError(f"seat {seat!r} is not in a game of {n_players} players")


def stored_int(value: JSON, game: str | None = None) -> int:
    """An integer of a stored state (a bool is not one), or ``ValueError``; with ``game``, the message
    names it (for a ``from_dict`` that lets these errors through as they are)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{_invalid(game)}{value!r} is not an integer")
    return value


def _invalid(game: str | None) -> str:
    return "" if game is None else f"invalid {game} state: "


def require(cond: bool, what: str) -> None:
    """``from_dict`` validation: raise ``ValueError`` unless ``cond``."""
    if not cond:
        raise ValueError(f"invalid state: {what}")


# ---- events -------------------------------------------------------------------------------------


class GameEvent:
    """What an apply/forfeit did, as the presenters read it and a state stores it: a game's event
    kinds are small frozen dataclasses deriving from this, each with its ``"type"`` on the class::

        @dataclass(frozen=True)
        class Picked(GameEvent):
            TYPE: ClassVar[str] = "picked"
            seat: int

    Its JSON is ``{"type": TYPE}`` then its fields (`fields_json`: ``{"type": "picked", "seat": 0}``);
    the game's `Events` reads it back from its fields' types (`stored_value`). A kind that is one
    record stored flat derives from `RecordEvent`; any other whose JSON is not just its fields
    overrides ``to_dict`` and ``from_fields``."""

    TYPE: ClassVar[str]
    __dataclass_fields__: ClassVar[dict[str, Field[object]]]  # (each kind is a dataclass)

    def to_dict(self) -> JSONObject:
        return {"type": self.TYPE, **fields_json(self)}

    @classmethod
    def from_fields(cls, d: JSONMap) -> Self:
        """The event from its stored JSON (``"type"`` already matched); ``ValueError`` (or a
        ``KeyError``/``TypeError`` that `Events.parse` turns into one) when a field is missing, is not
        of its type, or the JSON has a key the event does not."""
        readers = _stored_readers(cls)
        require(set(d) == {"type", *(key for key, _ in readers)}, f"the fields of a {cls.TYPE} event")
        build: Callable[..., Self] = cls
        return build(*(read(d[key]) for key, read in readers))


class StoredRecord(Record, Protocol):
    """A record that round-trips through JSON (a dataclass with ``to_dict`` and ``from_dict``)."""

    def to_dict(self) -> JSONObject: ...


class RecordEvent(GameEvent):
    """An event that is one record, its only field, stored flat: the record's fields beside
    ``"type"`` (``{"type": "reveal", "deal": 0, ...}``), read back by the record's ``from_dict``::

        @dataclass(frozen=True)
        class Reveal(RecordEvent):
            TYPE: ClassVar[str] = "reveal"
            record: DealRecord
    """

    def to_dict(self) -> JSONObject:
        (field,) = fields(self)
        record: StoredRecord = getattr(self, field.name)
        return {"type": self.TYPE, **record.to_dict()}

    @classmethod
    def from_fields(cls, d: JSONMap) -> Self:
        (field,) = fields(cls)
        kind = get_type_hints(cls)[field.name]
        record = {key: value for key, value in d.items() if key != "type"}
        require(set(record) == {_json_key(f.name) for f in fields(kind)}, f"the fields of a {cls.TYPE} event")
        build: Callable[..., Self] = cls
        return build(kind.from_dict(record))


E = TypeVar("E", bound=GameEvent)


@dataclass(frozen=True)
class Events(Generic[E]):
    """A game's event kinds, which reads its stored events back: ``EVENTS = Events[Event](NAME,
    (Picked, Resolved, ...))`` and ``EVENTS.parse(d)`` in ``State.from_dict``."""

    game: str
    kinds: tuple[type[E], ...]

    def __post_init__(self) -> None:
        types = [kind.TYPE for kind in self.kinds]
        if len(set(types)) != len(types):
            raise TypeError(f"{self.game}: two event kinds share a type")
        for kind in self.kinds:
            _stored_readers(kind)  # a field of a type it cannot read fails here, at import

    def parse(self, value: JSON) -> E:
        """A stored event as its dataclass; ``ValueError`` (naming the game) when it is not a JSON
        object with a known ``"type"`` and that kind's fields."""
        if not isinstance(value, Mapping) or not isinstance(value.get("type"), str):
            raise ValueError(f"{_invalid(self.game)}malformed event")
        for kind in self.kinds:
            if kind.TYPE == value["type"]:
                try:
                    return kind.from_fields(value)
                except (ValueError, KeyError, TypeError, AttributeError, IndexError) as exc:
                    raise ValueError(f"{_invalid(self.game)}malformed {kind.TYPE} event: {exc}") from exc
        raise ValueError(f"{_invalid(self.game)}unknown event {value['type']!r}")


StoredReader = Callable[[JSON], object]


def stored_value(hint: object) -> StoredReader:
    """The reader of a stored value of type ``hint``, which returns it typed or raises ``ValueError``:
    ``int``, ``bool``, ``str``, a `str`-valued `Enum` (a ``StrEnum``), ``X | None``, ``tuple[X, ...]``,
    and a class with a ``from_dict``."""
    if hint is int:
        return stored_int
    if hint is bool or hint is str:
        return partial(_stored_exactly, hint)
    if isinstance(hint, type) and issubclass(hint, Enum):
        return hint  # StrEnum("over") is the member; an unknown value is a ValueError
    args = get_args(hint)
    if get_origin(hint) in (Union, UnionType) and len(args) == 2 and NoneType in args:
        inner = stored_value(next(a for a in args if a is not NoneType))
        return lambda value: None if value is None else inner(value)
    if get_origin(hint) is tuple and len(args) == 2 and args[1] is Ellipsis:
        item = stored_value(args[0])
        return lambda value: tuple(item(v) for v in _stored_list(value))
    from_dict = getattr(hint, "from_dict", None)
    if from_dict is not None:
        return from_dict  # type: ignore[no-any-return]
    raise TypeError(f"no reader for a stored {hint!r}")


def _stored_exactly(kind: type, value: JSON) -> object:
    if not isinstance(value, kind):
        raise ValueError(f"{value!r} is not a {kind.__name__}")
    return value


def _stored_list(value: JSON) -> list[JSON]:
    if not isinstance(value, list | tuple):
        raise ValueError(f"{value!r} is not a list")
    return list(value)


_EVENT_READERS: dict[type, tuple[tuple[str, StoredReader], ...]] = {}


def _stored_readers(kind: type) -> tuple[tuple[str, StoredReader], ...]:
    """The JSON key and the reader of each field of an event class, in order."""
    readers = _EVENT_READERS.get(kind)
    if readers is None:
        hints = get_type_hints(kind)
        readers = tuple((_json_key(f.name), stored_value(hints[f.name])) for f in fields(kind))
        _EVENT_READERS[kind] = readers
    return readers
