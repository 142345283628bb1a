"""What a game's presentation provides, and the texts every game shares.

Each game has a presenter (``cogs/<game>/present.py``): a small object of functions from a *view*
(``view_for(state, seat)``: the public view, or the acting player's own) to text, components and an
image. It never receives a state, so nothing it builds can carry a secret the view does not show.
The table machinery (boards, panels, the outbox) calls presenters; presenters call nothing back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

import discord

from bot.deadlines import format_duration
from bot.games.base import Outcome
from bot.table.replies import join_words, mention

V = TypeVar("V")
V_co = TypeVar("V_co", covariant=True)


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
    options: dict[str, Any]
    timeout_s: int
    waiting: tuple[int, ...]  # the seats that must act now
    outcome: Outcome | None

    @property
    def live(self) -> bool:
        return self.status in ("lobby", "active")

    def who(self, seat: int) -> str:
        """How a text names the player in ``seat``: a mention."""
        return mention(self.seats[seat]) if 0 <= seat < len(self.seats) else f"player {seat + 1}"

    @property
    def heading(self) -> str:
        parts = [f"{k} = {v}" for k, v in self.options.items()]
        parts.append(f"{format_duration(self.timeout_s)} per move")
        return f"**{self.title}** · game #{self.game_id} · " + ", ".join(parts)


@dataclass(frozen=True)
class News(Generic[V]):
    """One move, as a viewer sees it: the views before and after it, who moved, and whether the
    move was a forfeit (``"left"`` or ``"timeout"``)."""

    seat: int
    before: V
    after: V
    forfeit: str | None = None


@dataclass
class Panel:
    """What one player privately sees of a game, with the controls for their secret action.

    Sent by DM, or privately in the channel (the My hand / My move button, the game's commands).
    Its controls carry no version and no secret: the rules check every action they lead to.
    """

    content: str
    items: list[discord.ui.Item[Any]] = field(default_factory=list)


class Presenter(Protocol[V]):
    """A game's public presentation (every game)."""

    secret: bool  # hidden information: moves answered privately, panels by DM
    mine_label: str  # the board button that shows a player's panel privately (secret games)

    def render(self, view: V, table: TableInfo) -> bytes: ...

    def headline(self, news: News[V], table: TableInfo) -> str:
        """What the move did (public views), a line or a few."""
        ...

    def status(self, view: V, table: TableInfo) -> str:
        """Whose move it is (with a mention), or the result; `whose_move` is the usual answer."""
        ...

    def board_items(self, view: V, table: TableInfo) -> list[discord.ui.Item[Any]]:
        """The controls under a live board (they carry the version)."""
        ...

    def quiet(self, news: News[V]) -> bool:
        """True when the move is told by a line of text instead of a new board."""
        ...

    def start_note(self, view: V, table: TableInfo) -> str: ...

    def board_image(self, view: V) -> bool:
        """Whether the board post carries the image (Dots leaves it out between a turn's two lines)."""
        ...


class PrivatePresenter(Protocol[V]):
    """What a game with secrets also shows one player (built from that player's own view)."""

    def panel(self, view: V, seat: int, table: TableInfo) -> Panel: ...

    def confirm(self, news: News[V], table: TableInfo) -> str:
        """The private answer to the player who moved (their own views)."""
        ...

    def awaits_typed(self, view: V, seat: int) -> bool:
        """Whether ``seat`` may answer now by typing in a DM."""
        ...

    def typed_action(self, view: V, seat: int, text: str) -> Any:
        """The action a typed DM answer stands for (a `GameError` if unreadable)."""
        ...

    def not_waiting_reason(self, view: V, seat: int, table: TableInfo) -> str | None:
        """Why a typed DM answer from ``seat`` is not taken now ("you already picked ..."), or None."""
        ...

    def asked(self, news: News[V], table: TableInfo) -> list[int]:
        """The seats (other than the mover) that get a fresh DM panel after this move (public views):
        usually those newly asked to act (`newly_waiting`)."""
        ...


# ---- texts every game shares --------------------------------------------------------------------


def outcome_text(table: TableInfo, outcome: Outcome) -> str:
    if not outcome.winners:
        return f"The game is over: {outcome.reason}. Nobody wins."
    winners = join_words([table.who(s) for s in outcome.winners])
    if outcome.draw:
        return f"The game is a draw between {winners}: {outcome.reason}."
    if len(outcome.winners) > 1:
        return f"🏆 {winners} share the win: {outcome.reason}."
    return f"🏆 {winners} wins: {outcome.reason}."


def whose_move(table: TableInfo) -> str:
    """Whose move it is (with a mention), or the result."""
    if table.status == "cancelled":
        return "This game was cancelled."
    if table.outcome is not None:
        return outcome_text(table, table.outcome)
    users = [table.who(s) for s in table.waiting]
    if len(users) == 1:
        return f"{users[0]}, your move."
    return f"Waiting for {join_words(users)}."


def forfeit_line(news: News[Any], table: TableInfo) -> str:
    who = table.who(news.seat)
    if news.forfeit == "timeout":
        return f"{who} ran out of time and forfeits."
    return f"{who} left the game (forfeit)."


def newly_waiting(
    before: frozenset[int] | set[int], after: frozenset[int] | set[int], mover: int
) -> list[int]:
    return sorted(set(after) - set(before) - {mover})


def points(n: int) -> str:
    return f"{n} point" if n == 1 else f"{n} points"
