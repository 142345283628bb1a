"""The outbox's effects, one class each: what a change owes the world (see `bot.table.outbox`).

Each effect is a frozen dataclass with its kind on the class (``kind``, the text stored in the
outbox, given with the class: ``class Card(OutboxEffect, kind="card")``) and its arguments as typed
fields (stored as the item's JSON ``args``, under the fields' names). The storage knows only that
text and that JSON (`bot.storage.Storable`); this module turns an effect into them
(`OutboxEffect.args`) and back (`OutboxEffect.parse`), and the outbox hands each carrier its own
class of effect (`bot.table.outbox.Outbox.carry`).

The stored form is a contract with the items already in a database: a kind's text and its fields'
names never change (items written by an older bot are carried out after an upgrade), a field added
later has a default (older items lack it), and a field equal to its default is left out of the JSON,
as it always was. An argument the class does not know is ignored; one missing (without a default)
or of the wrong type refuses the item, naming the kind and the field (`BadEffect`).
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar, Self

Arg = int | float | str | bool  # what an effect's field holds (stored as JSON)


class BadEffect(ValueError):
    """A stored effect this bot cannot read: an unknown kind, or an argument missing or malformed."""

    def __init__(self, kind: str, problem: str) -> None:
        super().__init__(f"outbox effect {kind!r}: {problem}")
        self.kind = kind


@dataclass(frozen=True)
class OutboxEffect:
    """The base of every effect: its kind (on the class), its fields, and the interaction token
    when it answers an interaction (stored in a column of its own, not among the arguments)."""

    kind: ClassVar[str]
    token: str | None = field(default=None, kw_only=True)

    def __init_subclass__(cls, kind: str = "", **kwargs: object) -> None:
        """An effect's kind is given with its class: ``class Card(OutboxEffect, kind="card")``."""
        super().__init_subclass__(**kwargs)
        if kind:
            cls.kind = kind

    @property
    def args(self) -> dict[str, Arg]:
        """The stored arguments: the fields, those equal to their defaults left out."""
        out: dict[str, Arg] = {}
        for f in _fields(type(self)):
            value = getattr(self, f.name)
            if f.default is dataclasses.MISSING or value != f.default:
                out[f.name] = value
        return out

    @classmethod
    def parse(cls, args: Mapping[str, object], *, token: str | None = None) -> Self:
        """The effect stored with ``args`` (and ``token``); `BadEffect` when they do not fit."""
        hints = _hints(cls)
        values: dict[str, Arg] = {}
        for f in _fields(cls):
            if f.name in args:
                values[f.name] = _coerce(cls.kind, f.name, hints[f.name], args[f.name])
            elif f.default is dataclasses.MISSING:
                raise BadEffect(cls.kind, f"no {f.name!r} among its arguments {sorted(args)}")
        return cls(token=token, **values)


_SHAPES: dict[type[OutboxEffect], tuple[tuple[dataclasses.Field[Arg], ...], dict[str, type]]] = {}


def _shape(cls: type[OutboxEffect]) -> tuple[tuple[dataclasses.Field[Arg], ...], dict[str, type]]:
    """The class's stored fields (not the token), and their types (read once)."""
    shape = _SHAPES.get(cls)
    if shape is None:
        hints = typing.get_type_hints(cls)
        stored = tuple(f for f in dataclasses.fields(cls) if f.name != "token")
        shape = _SHAPES[cls] = (stored, {f.name: hints[f.name] for f in stored})
    return shape


def _fields(cls: type[OutboxEffect]) -> tuple[dataclasses.Field[Arg], ...]:
    return _shape(cls)[0]


def _hints(cls: type[OutboxEffect]) -> dict[str, type]:
    return _shape(cls)[1]


def _coerce(kind: str, name: str, hint: type, value: object) -> Arg:
    """``value`` as a field of type ``hint`` holds it, read as leniently as the bot always read it
    (a flag by its truth, a number from a float or a numeric text); else `BadEffect`."""
    try:
        if hint is bool:
            return bool(value)
        if hint in (int, float) and isinstance(value, int | float | str) and not isinstance(value, bool):
            return int(value) if hint is int else float(value)
        if hint is str and isinstance(value, str):
            return value
    except (ValueError, OverflowError):
        pass
    raise BadEffect(kind, f"{name}={value!r} is not {hint.__name__}")


# ---- the effects ------------------------------------------------------------------------------------


class Thread(OutboxEffect, kind="thread"):
    """Start the game's thread from its card (`bot.table.threads`)."""


@dataclass(frozen=True)
class Rename(OutboxEffect, kind="rename"):
    """Name the game's thread after its players as they are shown now (a person forgotten: "Deleted
    player"), leaving it archived if it was (`bot.table.threads`)."""

    archive: bool = False  # it was archived when the rename began: archive it again once renamed


@dataclass(frozen=True)
class Announce(OutboxEffect, kind="announce"):
    """A move's news in the game's place: its board, or a line for a quiet move (`bot.table.boards`)."""

    version: int  # the game's version the move made


@dataclass(frozen=True)
class Start(OutboxEffect, kind="start"):
    """The first board of a game just started."""

    version: int
    place: str = ""  # where the game was to be played ("thread", or why in place); "": older items


class Card(OutboxEffect, kind="card"):
    """Bring the game's card up to date (the start, the end, with the final board)."""


class Lobby(OutboxEffect, kind="lobby"):
    """Bring the lobby's card up to date (someone joined or left): carried out as a `Card`."""


class PostCard(OutboxEffect, kind="post_card"):
    """Record the new lobby's card (the answer to the command that opened it), else post it."""


@dataclass(frozen=True)
class Strip(OutboxEffect, kind="strip"):
    """Take the controls off a message. (No longer written: items of older bots are still read.)"""

    channel_id: int
    message_id: int


@dataclass(frozen=True)
class ForSeat(OutboxEffect):
    """The base of the effects for one player (by seat): their panel, reminder or nudge."""

    seat: int


@dataclass(frozen=True)
class Panel(ForSeat, kind="panel"):
    """A player's DM panel: edited in place, or sent anew when gone or buried (`bot.table.panels`)."""

    note: str = ""  # a word at the panel's top (on the mover's typed answer)
    nudge: bool = False  # with a "your move" DM after an edit, for a player who chose DMs


class Refresh(ForSeat, kind="refresh"):
    """A player's DM panel brought up to date in place only."""


@dataclass(frozen=True)
class DmClosed(OutboxEffect, kind="dm_closed"):
    """One notice in the game's place for a player whose DMs are closed."""

    user_id: int


@dataclass(frozen=True)
class Closed(OutboxEffect, kind="closed"):
    """A cancelled game: its card says so (unless the cancel's answer did), its board loses its controls."""

    keep_lobby: bool = False  # the card was edited by the cancel's own answer


class Expired(OutboxEffect, kind="expired"):
    """A lobby that did not start within a day closes."""


@dataclass(frozen=True)
class Remind(ForSeat, kind="remind"):
    """The reminder in the game's place, halfway to a player's deadline (`bot.table.notices`)."""

    deadline: float  # epoch seconds


class RemindDm(Remind, kind="remind_dm"):
    """The same reminder by DM."""


class Nudge(ForSeat, kind="nudge"):
    """The short "your move" DM of a game without secrets."""


EFFECTS: tuple[type[OutboxEffect], ...] = (
    Thread,
    Rename,
    Announce,
    Start,
    Card,
    Lobby,
    PostCard,
    Strip,
    Panel,
    Refresh,
    DmClosed,
    Closed,
    Expired,
    Remind,
    RemindDm,
    Nudge,
)
BY_KIND: dict[str, type[OutboxEffect]] = {cls.kind: cls for cls in EFFECTS}
assert len(BY_KIND) == len(EFFECTS), "two effects of one kind"


def parse(kind: str, args: Mapping[str, object], *, token: str | None = None) -> OutboxEffect:
    """The effect stored as ``kind`` with ``args``; `BadEffect` for a kind no class has."""
    cls = BY_KIND.get(kind)
    if cls is None:
        raise BadEffect(kind, "no such kind")
    return cls.parse(args, token=token)
