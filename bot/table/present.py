"""What a game's presentation provides, and the texts every game shares.

Each game has a presenter (``cogs/<game>/present.py``): a record of functions from a *view*
(``view_for(state, seat)``: the public view, or the acting player's own) to text, components and an
image. It never receives a state, so nothing it builds can carry a secret the view does not show.
The table machinery (boards, panels, the outbox) calls presenters; presenters call nothing back.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar

from bot.errors import player_number
from bot.i18n import N_
from bot.present import (  # the discord-free part, here too for the table and the games
    News,
    TableInfo,
    counted,
    forfeit_line,
    newly_waiting,
    outcome_text,
    points,
    whose_move,
)
from bot.rules.base import GameEvent, TypedAction
from bot.table.components import Control

__all__ = [
    "News",
    "Panel",
    "Presenter",
    "PrivatePresenter",
    "TableInfo",
    "counted",
    "forfeit_line",
    "newly_waiting",
    "outcome_text",
    "points",
    "quiet_when",
    "whose_move",
]

V = TypeVar("V")
V_co = TypeVar("V_co", covariant=True)


class Eventful(Protocol):
    """A view that tells what the last move did (its events)."""

    @property
    def events(self) -> Sequence[GameEvent]: ...


@dataclass
class Panel:
    """What one player privately sees of a game, with the controls for their secret action.

    Sent by DM, or privately in the channel (the My hand / My move button, the game's commands).
    Its controls carry no version and no secret: the rules check every action they lead to.
    """

    content: str
    items: list[Control] = field(default_factory=list)


def _no_controls(view: object, table: TableInfo) -> list[Control]:
    return []


def _no_note(view: object, table: TableInfo) -> str:
    return ""


def _always(view: object) -> bool:
    return True


def _never(news: News[object]) -> bool:
    return False


def _your_move(view: object, seat: int) -> str:
    return N_("your move")


def _usual_status(view: object, table: TableInfo) -> str:
    return whose_move(table)


def _plain_alt(view: object, table: TableInfo) -> str:
    """The board's alt text when a game offers no better: the game and whose move, in plain names."""

    lang = table.lang

    def name(seat: int) -> str:
        if 0 <= seat < len(table.names) and table.names[seat]:
            return table.names[seat]
        return player_number(seat, lang)

    text = lang.t("{title} board, game #{game_id}.", title=table.title, game_id=table.game_id)
    if table.outcome is not None:
        text += " " + lang.t("Game over: {reason}.", reason=table.outcome.reason_in(lang))
        winners = [name(s) for s in table.outcome.winners]
        if winners:
            text += " " + lang.t("Won by {players}.", players=lang.words(winners))
        return text
    if table.waiting:
        text += " " + lang.t("Waiting for {players}.", players=lang.words([name(s) for s in table.waiting]))
    return text


@dataclass(frozen=True, kw_only=True)
class Presenter(Generic[V]):
    """A game's public presentation (its present.py builds one, ``PRESENTER``, by keyword: a name
    that is not a field fails at import), with defaults where most games agree. Each is a function
    of the public view; none sees a state."""

    render: Callable[[V, TableInfo], bytes]  # the board image
    headline: Callable[[News[V], TableInfo], str]  # what the move did, a line or a few
    # Whose move it is (with a mention), or the result.
    status: Callable[[V, TableInfo], str] = _usual_status
    # The controls under a live board (they carry the version).
    board_items: Callable[[V, TableInfo], list[Control]] = _no_controls
    # True when the move is told by a line of text instead of a new board.
    quiet: Callable[[News[V]], bool] = _never
    start_note: Callable[[V, TableInfo], str] = _no_note  # under the first board
    # Whether the board post carries the image (Dots leaves it out between a turn's two lines).
    board_image: Callable[[V], bool] = _always
    # The image's alt text: the position in words, from the public view (Discord takes 1,024
    # characters; stay under 1,000).
    alt_text: Callable[[V, TableInfo], str] = _plain_alt
    mine_label: str = ""  # the board button that shows a player's panel privately (secret games)
    # What the game waits for from an awaited seat, as /game mine tells that player: an English
    # msgid (marked with ``N_``: "your move", "your prediction"), from the public view only.
    awaited: Callable[[V, int], str] = _your_move


def _no_reason(view: object, seat: int, table: TableInfo) -> str | None:
    return None


@dataclass(frozen=True, kw_only=True)
class PrivatePresenter(Generic[V]):
    """What a game with secrets also shows one player, from that player's own view (its present.py
    builds one, ``PRIVATE``, by keyword; a game without secrets has none)."""

    panel: Callable[[V, int, TableInfo], Panel]
    confirm: Callable[[News[V], TableInfo], str]  # the private answer to the mover (their views)
    awaits_typed: Callable[[V, int], bool]  # whether the seat may answer now by typing in a DM
    typed_action: Callable[[V, int, str], TypedAction]  # the action a typed answer stands for
    # Why a typed DM answer from the seat is not taken now ("you already picked ..."), or None.
    not_waiting_reason: Callable[[V, int, TableInfo], str | None] = _no_reason
    # The seats (other than the mover) that get a fresh DM panel after a move (public views).
    # (None: the seats newly waiting, by the public views' ``to_act``.)
    asked: Callable[[News[V], TableInfo], list[int]] | None = None
    # Whether the panel changes with whose turn it is (else it is not edited when the turn passes).
    turn_shown: bool = True


def quiet_when(*kinds: type[GameEvent]) -> Callable[[News[Eventful]], bool]:
    """A move is quiet when every event it made is one of ``kinds`` (a secret choice that changes
    nothing anyone can see yet): ``quiet_when(numbers.Picked)``."""

    def quiet(news: News[Eventful]) -> bool:
        events = news.after.events
        return bool(events) and all(isinstance(e, kinds) for e in events)

    return quiet
