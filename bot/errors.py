"""The one error hierarchy.

A `GameError` is a refusal a player can act on: its message is the sentence shown to them privately
(ephemeral), and raising it means nothing was changed. Anything that is not a `GameError` is a bug:
it is logged with its traceback and the user only gets a short apology.

This module imports nothing from discord, so the pure rules modules can raise these errors too.
"""

from __future__ import annotations


class GameError(Exception):
    """A player-facing refusal. ``str(err)`` is what the player reads."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class BadInput(GameError):
    """The input cannot be parsed or is out of range (a typo, a dot off the grid, ...)."""


class IllegalMove(GameError):
    """The input parses, but the rules do not allow it now."""


class NotYourTurn(GameError):
    """A player acted while someone else must act."""


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


class ChannelBusy(GameError):
    """The channel already hosts a game in its lobby or in play."""


class MoveSaved(Exception):
    """Something failed after a move was committed (posting the board, a DM). Not the player's
    doing, so not a `GameError`: it is logged with its cause, and the player hears that the move
    counts, never that nothing changed."""

    def __init__(self, game_id: int) -> None:
        super().__init__(
            f"Your move in game #{game_id} is saved, but I could not show everything that follows it. "
            "/game status shows the game as it is now."
        )
