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

from bot.i18n.lang import ENGLISH, Lang, Msg

Namer = Callable[[int], str]


def player_number(seat: int, lang: Lang = ENGLISH) -> str:
    """How a seat's player is named when nobody said how: "player 2" (seats are 0-based)."""
    return lang.t("player {number}", number=seat + 1)


def name_list(seats: Iterable[int], name: Namer | None = None, lang: Lang = ENGLISH) -> str:
    """The players of ``seats`` in words: "A", "A and B", "A, B and C"."""
    return lang.words([name(s) if name else player_number(s, lang) for s in seats])


class GameError(Exception):
    """A player-facing refusal: ``in_language(lang, name)`` is what the player reads.

    Raise it with an English template and its fields, ``GameError("Game #{game_id} is over.",
    game_id=12)`` (or a `Msg`): the template is the msgid, translated for whoever reads it (see
    bot/i18n). ``message`` (and ``str(err)``) is the sentence in English with players named by
    number; subclasses whose sentence names players override `say` (``name(seat)`` names a seat).
    """

    # The user ids of the game's seats, when the error comes from a game: the Discord layer names
    # the players of a sentence with them (see `say`).
    seat_users: tuple[int, ...] | None = None

    def __init__(self, message: str | Msg, /, **fields: object) -> None:
        self.msg = message if isinstance(message, Msg) else Msg(message).with_fields(**fields)
        super().__init__(str(self.msg))
        self.message = str(self.msg)

    def in_language(self, lang: Lang, name: Namer | None = None) -> str:
        """What the player reads: the sentence in ``lang``, each player named by ``name(seat)``."""
        if type(self).text is not GameError.text:  # a subclass still building English in `text`
            return lang.t(self.text(name))
        return self.say(lang, name)

    def say(self, lang: Lang, name: Namer | None = None) -> str:
        """The sentence in ``lang``, each player named by ``name(seat)`` (by number without one):
        what a subclass whose sentence names players overrides."""
        del name  # this sentence names nobody
        return lang.say(self.msg)

    def text(self, name: Namer | None = None) -> str:
        """The sentence in English (prefer `say`, which any subclass may override)."""
        return self.say(ENGLISH, name)

    def __str__(self) -> str:
        return self.message


class BadInput(GameError):
    """The input cannot be parsed or is out of range (a typo, a dot off the grid, ...)."""


class NotANumber(BadInput):
    """Text that should be a whole number is not one (``shown``: an excerpt of it). ``sentence``: a
    sentence of the caller's own instead of the usual one, with the fields ``shown``, ``low`` and
    ``high`` (filled in here) and its own (``Msg("... (or binary, like 0b{example}).", example=...)``)."""

    def __init__(self, shown: str, low: int, high: int, sentence: Msg | None = None) -> None:
        self.shown, self.low, self.high = shown, low, high
        known = {"shown": repr(shown), "low": low, "high": high}
        if sentence is None:
            super().__init__(
                "{shown} is not a whole number. Type a number from {low} to {high}, in the digits 0-9.",
                **known,
            )
        else:
            super().__init__(sentence.with_fields(**known))


class OutOfRange(BadInput):
    """A number outside its range. ``shown`` is the number as given (an excerpt when it is huge);
    ``sentence``: a sentence of the caller's own instead of the usual one, with the fields ``shown``,
    ``low`` and ``high`` (filled in here) and its own ("... in this game (m = {m}) ...")."""

    def __init__(self, shown: str, low: int, high: int, sentence: Msg | None = None) -> None:
        self.shown, self.low, self.high = shown, low, high
        known = {"shown": shown, "low": low, "high": high}
        if sentence is None:
            super().__init__("{shown} is out of range: pick from {low} to {high}.", **known)
        else:
            super().__init__(sentence.with_fields(**known))


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

    def __init__(
        self,
        message: str | Msg | None = None,
        *,
        waiting: Iterable[int] = (),
        to: str | Msg = "",
        **fields: object,
    ) -> None:
        self.waiting = tuple(waiting)
        self.to = to
        self._given = message is not None
        super().__init__(message if message is not None else "It is not your turn.", **fields)
        self.message = self.say(ENGLISH)

    def say(self, lang: Lang, name: Namer | None = None) -> str:
        if self._given or not self.waiting:
            return lang.say(self.msg)
        move = lang.say(self.to) if self.to else ""
        if len(self.waiting) == 1:
            player = name(self.waiting[0]) if name else player_number(self.waiting[0], lang)
            if move:
                return lang.t("It is {player}'s turn to {move}, not yours.", player=player, move=move)
            return lang.t("It is {player}'s turn, not yours.", player=player)
        players = name_list(self.waiting, name, lang)
        if move:
            return lang.t(
                "It is not your turn: the game waits for {players} to {move}.", players=players, move=move
            )
        return lang.t("It is not your turn: the game waits for {players}.", players=players)


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
    caller's game is played in its own thread): ``game_ids`` are the candidates; ``sentence`` says so
    and how to reach the right one, its field ``{numbers}`` the candidates ("#4 and #7", filled in
    here in the reader's language)."""

    def __init__(self, game_ids: Iterable[int], sentence: Msg) -> None:
        self.game_ids = tuple(game_ids)
        self.sentence = sentence
        super().__init__(sentence.with_fields(numbers=""))
        self.message = self.say(ENGLISH)

    def say(self, lang: Lang, name: Namer | None = None) -> str:
        return lang.say(self.sentence.with_fields(numbers=lang.words([f"#{i}" for i in self.game_ids])))


class MoveSaved(Exception):
    """Something failed after a move was committed (posting the board, a DM). Not the player's
    doing, so not a `GameError`: it is logged with its cause, and the player hears that the move
    counts, never that nothing changed."""

    def __init__(self, game_id: int) -> None:
        self.game_id = game_id
        self.msg = Msg(
            "Your move in game #{game_id} is saved, but I could not show everything that follows it. "
            "/game status shows the game as it is now.",
            game_id=game_id,
        )
        super().__init__(str(self.msg))
