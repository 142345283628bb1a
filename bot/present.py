"""What a move and a table are to everything that tells them, and the texts every game shares.

Discord-free (the memory's replays and the table's boards both read it): `TableInfo` (the public
facts about a game at one version), `News` (one move, as a viewer sees it), and the sentences every
game's presentation uses (the result, whose move, a forfeit). The presenters themselves, whose
controls are Discord components, are in `bot.table.present`.

How a seat's player is named, the one rule: a person who asked to be forgotten (their id a placeholder:
`bot.players.seats.is_deleted`) is "Deleted player" in the reader's language, whatever name the rows
kept (`shown_name`, `who`). A `TableInfo` applies it to its names itself, from the seat ids, in its
own language, so every board, alt text, replay and analysis built from one reads it right.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Generic, TypeVar

from bot.errors import player_number
from bot.i18n import ENGLISH, N_, Lang
from bot.players.seats import computer_name, is_computer, is_deleted
from bot.rules.base import Outcome

V = TypeVar("V")
V_co = TypeVar("V_co", covariant=True)

# A game where a player asked for a hint (`/game hint`): said on its boards, in its replay's
# transcript and in history.
WITH_HINTS = N_("💡 with hints")
PLAYED_WITH_HINTS = N_("Played with hints (/game hint): not rated.")


# The name of a person who asked to be forgotten, as every reader sees it (the rows keep an English
# marker, `bot.storage.privacy.DELETED_NAME`, which no reader is shown).
DELETED_PLAYER = N_("Deleted player")


def mention(user_id: int) -> str:
    """How a text names a player: a Discord mention, or a computer's name. For an id read from a
    game's or a record's rows, which may be a forgotten person's placeholder, use `who`."""
    if is_computer(user_id):
        return f"🤖 {computer_name(user_id)}"
    return f"<@{user_id}>"


def who(user_id: int, lang: Lang) -> str:
    """How a text in ``lang`` names a seated player: a mention (a computer's name), or "Deleted
    player" for a forgotten person (their placeholder names nobody)."""
    return lang.t(DELETED_PLAYER) if is_deleted(user_id) else mention(user_id)


def shown_name(user_id: int, name: str, lang: Lang) -> str:
    """A seat's stored name as a reader of ``lang`` sees it: a forgotten person's is "Deleted player",
    translated."""
    return lang.t(DELETED_PLAYER) if is_deleted(user_id) else name


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
    names: tuple[str, ...]  # display names, for images (a forgotten person's: "Deleted player", in ``lang``)
    options: dict[str, int]
    timeout_s: int
    waiting: tuple[int, ...]  # the seats that must act now
    outcome: Outcome | None
    # The players away (`/game away`): (seat, until), shown on boards (public, as the deadlines are).
    away: tuple[tuple[int, float], ...] = ()
    # The language of whoever reads what is built from this table: the server's for a public post
    # (a board, its image and alt text), the player's own for a panel or a private answer.
    lang: Lang = ENGLISH
    # A player asked for a hint (`/game hint`): the game is played "with hints", and not rated.
    hints: bool = False

    def __post_init__(self) -> None:
        # The names as ``lang``'s readers see them, from the seat ids (so a table re-spoken in another
        # language, `speaking`, is right too): a forgotten person's stored marker never shows.
        if any(is_deleted(u) for u in self.seats):
            seats, lang = self.seats, self.lang
            shown = tuple(
                shown_name(seats[i], name, lang) if i < len(seats) else name
                for i, name in enumerate(self.names)
            )
            object.__setattr__(self, "names", shown)

    @property
    def live(self) -> bool:
        return self.status in ("lobby", "active")

    def speaking(self, lang: Lang) -> TableInfo:
        """The same table, for readers of ``lang``."""
        return self if lang is self.lang else replace(self, lang=lang)

    def who(self, seat: int) -> str:
        """How a text names the player in ``seat``: a mention (or "Deleted player": `who`)."""
        return (
            who(self.seats[seat], self.lang)
            if 0 <= seat < len(self.seats)
            else player_number(seat, self.lang)
        )

    @property
    def heading(self) -> str:
        lang = self.lang
        parts = [f"{k} = {v}" for k, v in self.options.items()]
        parts.append(lang.t("{duration} per move", duration=lang.duration(self.timeout_s)))
        if self.hints:
            parts.append(lang.t(WITH_HINTS))
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
    undone: bool = False  # the seat's last move taken back: ``after`` is the position before it


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


def away_lines(table: TableInfo) -> list[str]:
    """Who of the table is away (`/game away`), and until when."""
    return [
        table.lang.t(
            "💤 {player} is away until {moment}.", player=table.who(seat), moment=f"<t:{int(until)}:f>"
        )
        for seat, until in table.away
    ]


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
