"""The one error hierarchy.

A `GameError` is a refusal a player can act on: its sentence is shown to them privately (ephemeral),
and raising it means nothing was changed. Anything that is not a `GameError` is a bug: it is logged
with its traceback and the user only gets a short apology.

Players are named in every sentence, never by a seat number. The rules know only seats, so an error
whose sentence names players keeps their seats as fields and builds the sentence in `text(name)`,
where ``name(seat)`` says how to name that seat's player (the Discord layer passes a mention
builder). Without a namer, players are named by number ("player 2"): that is what ``message`` and
``str(err)`` hold.

This module imports nothing from discord, so the pure rules modules can raise these errors too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

Namer = Callable[[int], str]


def player_number(seat: int) -> str:
    """How a seat's player is named when nobody said how: "player 2" (seats are 0-based)."""
    return f"player {seat + 1}"


def name_list(seats: Iterable[int], name: Namer | None = None) -> str:
    """The players of ``seats`` in words: "A", "A and B", "A, B and C"."""
    names = [(name or player_number)(s) for s in seats]
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


class GameError(Exception):
    """A player-facing refusal: ``text(name)`` is what the player reads.

    ``message`` (and ``str(err)``) is that sentence with players named by number; subclasses whose
    sentence names players override `text` and pass ``self.text()`` up as the message.
    """

    # The user ids of the game's seats, when the error comes from a game: the Discord layer names
    # the players of a sentence with them (see `text`).
    seat_users: tuple[int, ...] | None = None

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def text(self, name: Namer | None = None) -> str:
        """The sentence, each player named by ``name(seat)`` (by number without a namer)."""
        del name  # this sentence names nobody
        return self.message

    def __str__(self) -> str:
        return self.message


class BadInput(GameError):
    """The input cannot be parsed or is out of range (a typo, a dot off the grid, ...)."""


class NotANumber(BadInput):
    """Text that should be a whole number is not one (``shown``: an excerpt of it)."""

    def __init__(self, shown: str, low: int, high: int, hint: str = "") -> None:
        self.shown, self.low, self.high, self.hint = shown, low, high, hint
        super().__init__(
            f"{shown!r} is not a whole number. Type a number from {low} to {high}"
            f"{hint or ', in the digits 0-9'}."
        )


class OutOfRange(BadInput):
    """A number outside its range. ``shown`` is the number as given (an excerpt when it is huge);
    ``context`` goes before the range ("in this game (m = 3) ")."""

    def __init__(self, shown: str, low: int, high: int, context: str = "") -> None:
        self.shown, self.low, self.high, self.context = shown, low, high, context
        super().__init__(f"{shown} is out of range: {context}pick from {low} to {high}.")


class IllegalMove(GameError):
    """The input parses, but the rules do not allow it now."""


class GameFinished(IllegalMove):
    """A move in a game that has ended."""

    def __init__(self) -> None:
        super().__init__("The game is over.")


class NotYourTurn(GameError):
    """A player acted while someone else must act.

    ``NotYourTurn(waiting=(0,))`` reads "It is <player 1>'s turn, not yours."; ``to`` names the move
    awaited ("place a card": "It is <player 1>'s turn to place a card, not yours."). A plain
    sentence (``NotYourTurn("...")``) is kept as given.
    """

    def __init__(self, message: str | None = None, *, waiting: Iterable[int] = (), to: str = "") -> None:
        self.waiting = tuple(waiting)
        self.to = to
        self._given = message
        super().__init__(self.text() if message is None else message)

    def text(self, name: Namer | None = None) -> str:
        if self._given is not None:
            return self._given
        if not self.waiting:
            return "It is not your turn."
        move = f" to {self.to}" if self.to else ""
        if len(self.waiting) == 1:
            return f"It is {(name or player_number)(self.waiting[0])}'s turn{move}, not yours."
        return f"It is not your turn: the game waits for {name_list(self.waiting, name)}{move}."


class YouLeft(NotYourTurn):
    """A player who left the game tried to act in it."""

    def __init__(self) -> None:
        super().__init__("You left this game, so you cannot play in it any more.")


class NotAPlayer(GameError):
    """Someone who holds no seat in the game tried to act in it."""


class NoGameHere(GameError):
    """There is no game (of the wanted kind or state) where the user asked."""


class GameOver(GameError):
    """The game has finished or was cancelled."""


class StaleButton(GameError):
    """A component from an old board was used after the position moved on."""


class NotAllowed(GameError):
    """The user lacks the role the action needs (host, Manage Messages, ...)."""


class LobbyError(GameError):
    """Joining, leaving or starting a lobby is not possible right now."""


class WhichGame(GameError):
    """A command in a channel with several live games could mean more than one of them (or the
    caller's game is played in its own thread): ``game_ids`` are the candidates, ``hint`` how to
    reach the right one."""

    def __init__(self, game_ids: Iterable[int], what: str, hint: str) -> None:
        self.game_ids = tuple(game_ids)
        self.hint = hint
        numbers = name_list([i for i in range(len(self.game_ids))], lambda i: f"#{self.game_ids[i]}")
        super().__init__(f"{what} ({numbers}). {hint}")


class MoveSaved(Exception):
    """Something failed after a move was committed (posting the board, a DM). Not the player's
    doing, so not a `GameError`: it is logged with its cause, and the player hears that the move
    counts, never that nothing changed."""

    def __init__(self, game_id: int) -> None:
        super().__init__(
            f"Your move in game #{game_id} is saved, but I could not show everything that follows it. "
            "/game status shows the game as it is now."
        )
