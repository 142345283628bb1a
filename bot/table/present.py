"""What a game's presentation provides, and the texts every game shares.

Each game has a presenter (``cogs/<game>/present.py``): a record of functions from a *view*
(``view_for(state, seat)``: the public view, or the acting player's own) to text, components and an
image. It never receives a state, so nothing it builds can carry a secret the view does not show.
The table machinery (boards, panels, the outbox) calls presenters; presenters call nothing back.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Generic, Protocol, TypeVar

from bot.errors import player_number
from bot.i18n import ENGLISH, Lang
from bot.players.seats import is_computer
from bot.rules.base import GameEvent, Outcome, TypedAction
from bot.table.components import Control
from bot.table.replies import mention

V = TypeVar("V")
V_co = TypeVar("V_co", covariant=True)


class Eventful(Protocol):
    """A view that tells what the last move did (its events)."""

    @property
    def events(self) -> Sequence[GameEvent]: ...


@dataclass(frozen=True)
class TableInfo:
    """The public facts about a game at one version: who sits where, whose move, the result."""

    game_id: int
    kind: str
    title: str
    version: int
    current: bool  # the game's newest version: its controls may be drawn
    status: str  # lobby, active, finished, cancelled
    seats: tuple[int, ...]  # user ids in turn order
    names: tuple[str, ...]  # display names, for images
    options: dict[str, int]
    timeout_s: int
    waiting: tuple[int, ...]  # the seats that must act now
    outcome: Outcome | None
    # The language of whoever reads what is built from this table: the server's for a public post
    # (a board, its image and alt text), the player's own for a panel or a private answer.
    lang: Lang = ENGLISH

    @property
    def live(self) -> bool:
        return self.status in ("lobby", "active")

    def speaking(self, lang: Lang) -> TableInfo:
        """The same table, for readers of ``lang``."""
        return self if lang is self.lang else replace(self, lang=lang)

    def who(self, seat: int) -> str:
        """How a text names the player in ``seat``: a mention."""
        return mention(self.seats[seat]) if 0 <= seat < len(self.seats) else player_number(seat, self.lang)

    @property
    def heading(self) -> str:
        lang = self.lang
        parts = [f"{k} = {v}" for k, v in self.options.items()]
        parts.append(lang.t("{duration} per move", duration=lang.duration(self.timeout_s)))
        return lang.t(
            "**{title}** · game #{game_id} · {options}",
            title=self.title,
            game_id=self.game_id,
            options=", ".join(parts),
        )


@dataclass(frozen=True)
class News(Generic[V_co]):
    """One move, as a viewer sees it: the views before and after it, who moved, and whether the
    move was a forfeit (``"left"`` or ``"timeout"``). (Read only: the news of a view is news of
    anything that view is.)"""

    seat: int
    before: V_co
    after: V_co
    forfeit: str | None = None


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


# ---- texts every game shares --------------------------------------------------------------------


def outcome_text(table: TableInfo, outcome: Outcome) -> str:
    """The result in a sentence, in ``table.lang`` (see `Outcome.reason_in`)."""
    lang = table.lang
    reason = outcome.reason_in(lang)
    if not outcome.winners:
        return lang.t("The game is over: {reason}. Nobody wins.", reason=reason)
    winners = lang.words([table.who(s) for s in outcome.winners])
    if outcome.draw:
        return lang.t("The game is a draw between {players}: {reason}.", players=winners, reason=reason)
    if len(outcome.winners) > 1:
        return lang.t("🏆 {players} share the win: {reason}.", players=winners, reason=reason)
    return lang.t("🏆 {player} wins: {reason}.", player=winners, reason=reason)


def whose_move(table: TableInfo) -> str:
    """Whose move it is (with a mention), or the result."""
    lang = table.lang
    if table.status == "cancelled":
        return lang.t("This game was cancelled.")
    if table.outcome is not None:
        return outcome_text(table, table.outcome)
    users = [table.who(s) for s in table.waiting]
    if len(users) == 1 and is_computer(table.seats[table.waiting[0]]):
        return lang.t("{player} is thinking…", player=users[0])
    if len(users) == 1:
        return lang.t("{player}, your move.", player=users[0])
    return lang.t("Waiting for {players}.", players=lang.words(users))


def forfeit_line(news: News[object], table: TableInfo) -> str:
    who = table.who(news.seat)
    if news.forfeit == "timeout":
        return table.lang.t("{player} ran out of time and forfeits.", player=who)
    return table.lang.t("{player} left the game (forfeit).", player=who)


def newly_waiting(
    before: frozenset[int] | set[int], after: frozenset[int] | set[int], mover: int
) -> list[int]:
    return sorted(set(after) - set(before) - {mover})


def counted(n: int, word: str) -> str:
    """``n`` of a thing in English words: "1 card", "3 cards" (``word`` takes a plain "s").
    Deprecated: English only; write ``lang.n("{count} card", "{count} cards", n)`` instead."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def points(n: int, lang: Lang = ENGLISH) -> str:
    """ "1 point", "3 points", in ``lang``."""
    return lang.n("{count} point", "{count} points", n)
