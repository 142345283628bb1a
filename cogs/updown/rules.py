"""Up-Down-Stay (seeds 000 and 003; RULES.md): predict the ups, downs and stays of a row of cards.

This module owns the whole game: the deal, the secret predictions, the placing of the cards, the
scoring of each deal and the automatic playoffs between tied players. It is pure (no discord, no PIL).

A game is a sequence of *deals*. Deal 0 is the main game; deal k > 0 is the k-th playoff among the
players who tied for first place in deal k-1. Each deal has two phases (`Phase`):

- ``PREDICT``: every remaining player secretly submits a string of U/D/S letters (all at once, so
  ``to_act`` holds every player still missing a prediction). A player may replace theirs until the
  first card of the deal is placed.
- ``PLACE``: one card per turn in seat order (the lowest remaining seat first) until every hand is
  empty; then the deal is scored and revealed, and either the game ends or a playoff is dealt.

Cards are strings: the rank label (``A``, ``2``..``10``, ``J``, ``Q``, ``K``) followed by the suit
letter (``C``, ``D``, ``H``, ``S``), e.g. ``"10H"``, ``"QS"``. Only ranks count; suits are decoration.
Card indices in a row, and the ``window`` of a match, are 0-based (the index of the match's first card).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from enum import StrEnum
from functools import partial
from itertools import pairwise
from typing import Any, ClassVar

import bot.rules.base as base
from bot.errors import (
    BadInput,
    GameFinished,
    IllegalMove,
    Namer,
    NotYourTurn,
    OutOfRange,
    YouLeft,
    name_list,
)
from bot.i18n import ENGLISH, N_, Lang, Msg
from bot.inputs import excerpt, is_ascii_digits, not_allowed, whole_number
from bot.rules.base import ActionJSON, Forfeit, GameEvent, Option, Outcome, RecordEvent, require

NAME = "updown"
TITLE = "Up-Down-Stay"
MIN_PLAYERS, MAX_PLAYERS = 2, 10
OPTIONS: tuple[Option, ...] = ()

MAX_PLAYOFFS = 5  # after five playoffs in a row end tied, the players still tied share the win

RANK_LABELS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
RANK_NAMES = (
    "ace",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "jack",
    "queen",
    "king",
)
SUITS = ("C", "D", "H", "S")
DECK: tuple[str, ...] = tuple(label + suit for label in RANK_LABELS for suit in SUITS)
_DECK_ORDER = {card: i for i, card in enumerate(DECK)}  # sorts by rank, then suit


class Phase(StrEnum):
    """Where a game is (stored as its value): ``PREDICT`` and ``PLACE`` are a deal's two phases."""

    PREDICT = "predict"
    PLACE = "place"
    OVER = "over"


class DealResult(StrEnum):
    """How a finished deal ended (stored as its value)."""

    WINNER = "winner"  # one seat scored highest
    PLAYOFF = "playoff"  # the top seats play again
    SHARED = "shared"  # still tied after the last playoff: the top seats share the win


# ---- cards, letters and scoring: pure helpers ------------------------------------------------------


def card_rank(card: str) -> int:
    """The value of a card: A=1, 2..10, J=11, Q=12, K=13."""
    return RANK_LABELS.index(card[:-1]) + 1


def card_suit(card: str) -> str:
    return card[-1]


def rank_label(rank: int) -> str:
    return RANK_LABELS[rank - 1]


def sort_cards(cards: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(cards, key=_DECK_ORDER.__getitem__))


def parse_rank(text: str) -> int:
    """A card value typed by a player: ``A``, ``2``..``10``, ``J``, ``Q``, ``K`` or ``1``..``13``
    (ASCII only, case-insensitive; ``T`` and the English names work too). Raises ``BadInput``."""
    raw = text.strip()
    word = raw.upper() if raw.isascii() else ""
    if word in RANK_LABELS:
        return RANK_LABELS.index(word) + 1
    if is_ascii_digits(word):
        try:
            return whole_number(word, 1, 13)
        except OutOfRange:
            pass  # refused below, with what to type instead
    if word == "T":
        return 10
    if word.lower() in RANK_NAMES:
        return RANK_NAMES.index(word.lower()) + 1
    if not raw:
        raise BadInput(
            "An empty answer is not a card value. Type A, 2-10, J, Q or K (or a number from 1 to 13)."
        )
    raise BadInput(
        "{shown} is not a card value. Type A, 2-10, J, Q or K (or a number from 1 to 13).",
        shown=repr(excerpt(raw)),
    )


_WORDS = {"up": "U", "u": "U", "down": "D", "d": "D", "same": "S", "stay": "S", "s": "S"}


def parse_letters(text: str) -> str:
    """A prediction typed by a player: the letters U, D and S only; case and spaces are ignored.
    Raises ``BadInput`` saying what to type instead. (Whether the length fits the deal is checked
    by ``apply``.)"""
    letters = "".join(text.split())
    if not letters:
        raise BadInput("Your prediction is empty. Type at least one letter: U (up), D (down), S (same).")
    # Only ASCII letters are upper-cased: "ß".upper() is "SS", and "ſ".upper() is "S".
    bad = [ch.upper() if ch.isascii() else ch for ch in letters if ch not in "UDSuds"]
    if bad:
        raise BadLetters(bad, _instead(text))
    return letters.upper()


class BadLetters(BadInput):
    """A prediction with characters other than U, D and S (``bad``, as typed), and what to type
    instead."""

    def __init__(self, bad: Iterable[str], instead: Msg) -> None:
        self.bad, self.instead = tuple(bad), instead
        super().__init__(
            "A prediction uses only U (up), D (down) and S (same); {refused}. {instead}",
            refused=not_allowed(self.bad),
            instead=instead,
        )

    def say(self, lang: Lang, name: Namer | None = None) -> str:
        # The refused characters are named in the reader's language ("commas", "Kommas").
        return lang.say(self.msg.with_fields(refused=not_allowed(self.bad, lang=lang)))


def _instead(text: str) -> Msg:
    """What to type instead of a refused prediction: its letters when it spelled the words out."""
    words = "".join(ch.lower() if ch.isascii() and ch.isalpha() else " " for ch in text[:200]).split()
    letters = [_WORDS.get(w) for w in words]
    if words and len(text) <= 200 and all(letters):
        return Msg(
            "To predict {words}, type {letters}.",
            words=excerpt(", ".join(words)),
            letters="".join(map(str, letters)),
        )
    return Msg("Type one letter per change, for example UDS.")


def changes_of(ranks: Iterable[int]) -> str:
    """The U/D/S letter between each pair of neighbours of a row of card values."""
    return "".join("U" if b > a else "D" if b < a else "S" for a, b in pairwise(ranks))


def row_changes(row: Iterable[str]) -> str:
    return changes_of(card_rank(c) for c in row)


def match_window(prediction: str, changes: str) -> int | None:
    """The 0-based index of the first card of the leftmost match of ``prediction`` in ``changes``."""
    if not prediction:
        return None
    index = changes.find(prediction)
    return None if index < 0 else index


def score_prediction(prediction: str, changes: str) -> int:
    """The prediction's length if it occurs as consecutive changes, else 0."""
    return len(prediction) if match_window(prediction, changes) is not None else 0


def _deal_cards(
    seed: int, deal: int, seats: tuple[int, ...]
) -> tuple[dict[int, tuple[str, ...]], tuple[str, ...]]:
    """Shuffle a fresh deck for deal ``deal`` and give floor(52/k) cards to each of ``seats``."""
    deck = list(DECK)
    # A string seed is hashed with SHA-512 by ``random``: stable across runs and Python versions.
    random.Random(f"{seed}:{deal}").shuffle(deck)
    per = len(deck) // len(seats)
    hands = {seat: sort_cards(deck[i * per : (i + 1) * per]) for i, seat in enumerate(seats)}
    return hands, sort_cards(deck[len(seats) * per :])


# ---- finished deals -------------------------------------------------------------------------------


@dataclass(frozen=True)
class DealPlayer:
    """One player's result in a finished deal."""

    seat: int
    prediction: str | None  # None if they left before predicting
    score: int
    window: int | None  # 0-based index of the match's first card; None without a match
    forfeited: bool  # left the game during (or before the end of) this deal: scores nothing

    to_dict = base.fields_json

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> DealPlayer:
        prediction = d["prediction"]
        window = d["window"]
        return cls(
            seat=_int(d["seat"]),
            prediction=None if prediction is None else str(prediction),
            score=_int(d["score"]),
            window=None if window is None else _int(window),
            forfeited=_bool(d["forfeited"]),
        )


@dataclass(frozen=True)
class DealRecord:
    """A finished, revealed deal: everything the reveal announcement and image show."""

    deal: int  # 0 = main deal, k = k-th playoff
    row: tuple[str, ...]
    placers: tuple[int, ...]  # the seat that placed each card
    changes: str
    players: tuple[DealPlayer, ...]  # the deal's players in seat order
    leftover: tuple[str, ...]  # the cards set aside face down, shown now
    result: DealResult
    top: tuple[int, ...]  # the seats with the highest score among those still in

    @property
    def best(self) -> int:
        return max((p.score for p in self.players if not p.forfeited), default=0)

    to_dict = base.fields_json

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> DealRecord:
        rec = cls(
            deal=_int(d["deal"]),
            row=tuple(str(c) for c in d["row"]),
            placers=tuple(_int(s) for s in d["placers"]),
            changes=str(d["changes"]),
            players=tuple(DealPlayer.from_dict(p) for p in d["players"]),
            leftover=tuple(str(c) for c in d["leftover"]),
            result=DealResult(d["result"]),
            top=tuple(_int(s) for s in d["top"]),
        )
        require(all(c in _DECK_ORDER for c in (*rec.row, *rec.leftover)), "deal record cards")
        require(
            len(set(rec.row) | set(rec.leftover)) == len(rec.row) + len(rec.leftover),
            "deal record repeats a card",
        )
        require(len(rec.placers) == len(rec.row), "deal record placers")
        require(rec.changes == row_changes(rec.row), "deal record changes")
        for p in rec.players:
            expected = (
                0 if p.forfeited or p.prediction is None else score_prediction(p.prediction, rec.changes)
            )
            require(p.score == expected, "deal record score")
        return rec


# ---- events ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Predicted(GameEvent):
    """A seat's prediction is in (``replaced``: it replaced theirs); never the letters."""

    TYPE: ClassVar[str] = "predicted"
    seat: int
    replaced: bool


@dataclass(frozen=True)
class Placed(GameEvent):
    """A seat placed ``card``, at ``index`` of the row; ``change`` is its U/D/S against the card
    before (None for the first card)."""

    TYPE: ClassVar[str] = "placed"
    seat: int
    card: str
    index: int
    change: str | None


@dataclass(frozen=True)
class Left(GameEvent):
    """A seat left the game: their ``cards_removed`` left play and the row will have ``row_size``."""

    TYPE: ClassVar[str] = "forfeit"
    seat: int
    cards_removed: int
    row_size: int


@dataclass(frozen=True)
class PlacingStarts(GameEvent):
    """Every prediction of deal ``deal`` is in: ``first`` places first, the row will have ``row_size``."""

    TYPE: ClassVar[str] = "placing_starts"
    deal: int
    first: int
    row_size: int


@dataclass(frozen=True)
class Reveal(RecordEvent):
    """A deal finished and is revealed. Its JSON is the record's fields beside the ``"type"``."""

    TYPE: ClassVar[str] = "reveal"
    record: DealRecord


@dataclass(frozen=True)
class Playoff(GameEvent):
    """``players`` tied at ``tied_score`` and play deal ``deal`` (a playoff)."""

    TYPE: ClassVar[str] = "playoff"
    deal: int
    players: tuple[int, ...]
    tied_score: int


@dataclass(frozen=True)
class GameOver(GameEvent):
    """The game ended: ``winners`` win, for ``reason`` (as logged, in English)."""

    TYPE: ClassVar[str] = "game_over"
    winners: tuple[int, ...]
    reason: str


Event = Predicted | Placed | Left | PlacingStarts | Reveal | Playoff | GameOver
EVENTS = base.Events[Event](NAME, (Predicted, Placed, Left, PlacingStarts, Reveal, Playoff, GameOver))


# ---- the state ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class State:
    n_players: int
    seed: int
    deal: int  # 0 = main deal, k = k-th playoff
    players: tuple[int, ...]  # the seats dealt into the current deal, ascending
    hands: tuple[tuple[str, ...], ...]  # per seat, sorted; empty outside the deal or after leaving
    leftover: tuple[str, ...]  # the current deal's cards set aside (secret until the deal ends)
    predictions: tuple[str | None, ...]  # per seat, for the current deal (secret until the reveal)
    phase: Phase
    row: tuple[str, ...] = ()
    placers: tuple[int, ...] = ()
    turn: int = 0  # the seat to place (meaningful in the PLACE phase)
    forfeited: frozenset[int] = field(default_factory=frozenset)
    history: tuple[DealRecord, ...] = ()  # finished deals, oldest first
    winners: tuple[int, ...] = ()  # once over
    reason: str = ""  # once over: why the game ended
    events: tuple[Event, ...] = ()  # the public events the last apply/forfeit caused

    @property
    def active(self) -> tuple[int, ...]:
        """The current deal's players who have not left."""
        return tuple(s for s in self.players if s not in self.forfeited)

    @property
    def row_size(self) -> int:
        """R: how many cards the finished row will have (placed plus still in the active hands)."""
        return len(self.row) + sum(len(self.hands[s]) for s in self.active)

    @property
    def max_letters(self) -> int:
        return max(1, self.row_size - 1)

    to_dict = base.fields_json

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> State:
        try:
            state = cls(
                n_players=_int(d["n_players"]),
                seed=_int(d["seed"]),
                deal=_int(d["deal"]),
                players=tuple(_int(s) for s in d["players"]),
                hands=tuple(tuple(str(c) for c in h) for h in d["hands"]),
                leftover=tuple(str(c) for c in d["leftover"]),
                predictions=tuple(None if p is None else str(p) for p in d["predictions"]),
                phase=Phase(d["phase"]),
                row=tuple(str(c) for c in d["row"]),
                placers=tuple(_int(s) for s in d["placers"]),
                turn=_int(d["turn"]),
                forfeited=frozenset(_int(s) for s in d["forfeited"]),
                history=tuple(DealRecord.from_dict(r) for r in d["history"]),
                winners=tuple(_int(s) for s in d["winners"]),
                reason=str(d["reason"]),
                events=tuple(EVENTS.parse(e) for e in d["events"]),
            )
        except (KeyError, TypeError, AttributeError, IndexError) as exc:
            raise ValueError(f"invalid updown state: {exc!r}") from exc
        _validate(state)
        return state


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"invalid updown state: {value!r} is not a boolean")
    return value


# from_dict lets these errors through as they are, so they name the game
_int = partial(base.stored_int, game=NAME)


def _validate(s: State) -> None:
    n = s.n_players
    require(MIN_PLAYERS <= n <= MAX_PLAYERS, "player count")
    require(0 <= s.deal <= MAX_PLAYOFFS, "deal number")
    require(len(s.hands) == n and len(s.predictions) == n, "per-seat lengths")
    require(list(s.players) == sorted(set(s.players)) and len(s.players) >= 2, "deal players")
    require(all(0 <= p < n for p in (*s.players, *s.forfeited, *s.placers, *s.winners)), "seats")
    require(set(s.placers) <= set(s.players), "placers outside the deal")
    require(len(s.placers) == len(s.row), "placers")
    require(
        len(s.history) == s.deal or (s.phase == Phase.OVER and len(s.history) == s.deal + 1), "history length"
    )
    cards = [*s.row, *s.leftover, *(c for h in s.hands for c in h)]
    require(all(c in _DECK_ORDER for c in cards), "unknown card")
    require(len(set(cards)) == len(cards), "a card appears twice")
    require(all(h == sort_cards(h) for h in s.hands), "unsorted hand")
    for seat in range(n):
        if seat not in s.active:
            require(not s.hands[seat], "a hand outside the deal")
        if seat not in s.players:
            require(s.predictions[seat] is None, "a prediction outside the deal")
        p = s.predictions[seat]
        require(p is None or (bool(p) and set(p) <= {"U", "D", "S"}), "prediction letters")
    sizes = [len(s.hands[p]) for p in s.active]
    require(not sizes or max(sizes) - min(sizes) <= 1, "hand sizes")
    if s.phase == Phase.PREDICT:
        require(not s.row, "cards placed before placing began")
        require(any(s.predictions[p] is None for p in s.active), "all predicted but not placing")
    if s.phase == Phase.PLACE:
        require(all(s.predictions[p] is not None for p in s.active), "placing without predictions")
        require(s.turn in s.active and bool(s.hands[s.turn]), "turn")
    if s.phase == Phase.OVER:
        require(bool(s.winners) and bool(s.reason), "winners of a finished game")
    else:
        require(not s.winners and len(s.active) >= 2, "a game in play")


# ---- the contract ---------------------------------------------------------------------------------


def new_game(n_players: int, options: Mapping[str, int], seed: int) -> State:
    del options  # Up-Down-Stay has no options
    base.check_players(TITLE, n_players, MIN_PLAYERS, MAX_PLAYERS)
    return _start_deal(
        State(
            n_players=n_players,
            seed=seed,
            deal=0,
            players=tuple(range(n_players)),
            hands=((),) * n_players,
            leftover=(),
            predictions=(None,) * n_players,
            phase=Phase.PREDICT,
        ),
        deal=0,
        players=tuple(range(n_players)),
    )


def _start_deal(state: State, deal: int, players: tuple[int, ...]) -> State:
    dealt, leftover = _deal_cards(state.seed, deal, players)
    return replace(
        state,
        deal=deal,
        players=players,
        hands=tuple(dealt.get(seat, ()) for seat in range(state.n_players)),
        leftover=leftover,
        predictions=(None,) * state.n_players,
        phase=Phase.PREDICT,
        row=(),
        placers=(),
        turn=players[0],
    )


def to_act(state: State) -> frozenset[int]:
    """Who must act now: in PREDICT everyone still missing a prediction (simultaneously), in
    PLACE the seat whose turn it is. A player who has predicted may still replace their
    prediction until the first card is placed, without being waited for."""
    if state.phase == Phase.PREDICT:
        return frozenset(s for s in state.active if state.predictions[s] is None)
    if state.phase == Phase.PLACE:
        return frozenset({state.turn})
    return frozenset()


def can_predict(state: State, seat: int) -> bool:
    """Whether ``seat`` may submit or replace a prediction now."""
    return state.phase != Phase.OVER and not state.row and seat in state.active


def legal_actions(state: State, seat: int) -> list[dict[str, Any]]:
    """The moves ``seat`` is asked for now: ``[]`` unless the seat is in ``to_act``.

    Predictions are any string of U/D/S of 1..R-1 letters (3^(R-1) of them), so for a prediction the
    list holds a *sample*: every string of one or two letters. Card plays are listed exactly, one
    per distinct rank held. Replacing a prediction already made is also allowed until the first card
    is placed (``apply`` accepts it, ``View.can_predict`` says so) but is never asked for, so it is
    not listed here.
    """
    if seat not in to_act(state):
        return []
    if state.phase == Phase.PLACE:
        ranks = sorted({card_rank(c) for c in state.hands[seat]})
        return [Play(r).to_json() for r in ranks]
    samples = ["U", "D", "S"]
    if state.max_letters >= 2:
        samples += [a + b for a in "UDS" for b in "UDS"]
    return [Predict(s).to_json() for s in samples]


# ---- actions --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Predict:
    """Submit or replace the seat's secret prediction: ``{"type": "predict", "letters": "UDS"}``.
    ``letters`` are kept as logged; `apply` reads them with `parse_letters`."""

    TYPE: ClassVar[str] = "predict"
    letters: str
    to_json = base.move_json


@dataclass(frozen=True)
class Play:
    """Place a card of value ``rank`` (1 = A to 13 = K) from the hand: ``{"type": "play", "rank": 12}``."""

    TYPE: ClassVar[str] = "play"
    rank: int
    to_json = base.move_json


Move = Predict | Play
MOVES = base.Moves[Move](
    (Predict, Play), wrong=N_("In Up-Down-Stay you either predict (U/D/S letters) or play a card.")
)


def parse_action(data: ActionJSON) -> Move | Forfeit:
    """A logged action as its typed value; ``BadInput`` when the JSON is malformed, the letters are not
    U/D/S or the card value is not 1 to 13."""
    move = MOVES.parse(data)
    if isinstance(move, Predict):
        parse_letters(move.letters)
    elif isinstance(move, Play):
        _check_rank(move.rank)
    return move


def _check_rank(rank: int) -> None:
    if not 1 <= rank <= 13:
        raise BadInput("There is no card value {rank}: values go from 1 (A) to 13 (K).", rank=rank)


class OutOfPlayoff(NotYourTurn):
    """A seat that is not in the current playoff tried to act: only ``players`` play it."""

    def __init__(self, players: Iterable[int]) -> None:
        self.players = tuple(players)
        super().__init__(
            "You are out of this playoff: only {players} play it.", players=name_list(self.players)
        )

    def say(self, lang: Lang, name: Namer | None = None) -> str:
        return lang.say(self.msg.with_fields(players=name_list(self.players, name, lang)))


class StillPredicting(IllegalMove):
    """A card placed (by ``seat``) before every player has predicted: ``waiting`` have not. The
    sentence speaks to the one who tried: "you" when they have not predicted either, never their own
    name in a list of others."""

    def __init__(self, waiting: Iterable[int], seat: int | None = None) -> None:
        self.waiting = tuple(waiting)
        self.seat = seat
        super().__init__(
            "Placing starts once every player has predicted; still waiting for {players}.",
            players=name_list(self.waiting),
        )
        self.message = self.say(ENGLISH)

    def say(self, lang: Lang, name: Namer | None = None) -> str:
        others = [s for s in self.waiting if s != self.seat]
        if self.seat not in self.waiting:
            return lang.t(
                "Placing starts once every player has predicted; still waiting for {players}.",
                players=name_list(others, name, lang),
            )
        if not others:
            return lang.t(
                "Placing starts once every player has predicted: make your prediction first with "
                "/updown predict (everyone else has)."
            )
        return lang.n(
            "Placing starts once every player has predicted: make your prediction first with "
            "/updown predict ({players} has not predicted yet either).",
            "Placing starts once every player has predicted: make your prediction first with "
            "/updown predict ({players} have not predicted yet either).",
            len(others),
            players=name_list(others, name, lang),
        )


def _check_in_deal(state: State, seat: int) -> None:
    if state.phase == Phase.OVER:
        raise GameFinished()
    if seat in state.forfeited:
        raise YouLeft()
    if seat not in state.players:
        raise OutOfPlayoff(state.active)


def apply(state: State, seat: int, action: Move | ActionJSON) -> State:
    base.check_seat(state.n_players, seat)
    move = MOVES.read(action)
    if isinstance(move, Predict):
        return _predict(state, seat, parse_letters(move.letters))
    _check_rank(move.rank)
    return _play(state, seat, move.rank)


def _predict(state: State, seat: int, letters: str) -> State:
    _check_in_deal(state, seat)
    if state.row:
        mine = state.predictions[seat]
        if mine:
            raise IllegalMove(
                "Cards are being placed, so predictions are locked: yours stays {prediction}.",
                prediction=mine,
            )
        raise IllegalMove("Cards are being placed, so predictions are locked.")
    if len(letters) > state.max_letters:
        raise BadInput(
            Msg.n(
                "Your prediction has {letters}, but the row will have {cards}, so {changes}: "
                "use 1 to {count} letter.",
                "Your prediction has {letters}, but the row will have {cards}, so {changes}: "
                "use 1 to {count} letters.",
                state.max_letters,
                letters=Msg.n("{count} letter", "{count} letters", len(letters)),
                cards=Msg.n("{count} card", "{count} cards", state.row_size),
                changes=Msg.n("{count} change", "{count} changes", state.max_letters),
            )
        )
    replaced = state.predictions[seat] is not None
    predictions = list(state.predictions)
    predictions[seat] = letters
    events: list[Event] = [Predicted(seat, replaced)]
    out = replace(state, predictions=tuple(predictions))
    return _settle(out, events)


def _play(state: State, seat: int, rank: int) -> State:
    _check_in_deal(state, seat)
    if state.phase == Phase.PREDICT:
        raise StillPredicting(sorted(to_act(state)), seat)
    if seat != state.turn:
        raise NotYourTurn(waiting=(state.turn,), to=N_("place a card"))
    hand = state.hands[seat]
    card = next((c for c in hand if card_rank(c) == rank), None)
    if card is None:
        ranks = ", ".join(rank_label(r) for r in sorted({card_rank(c) for c in hand}))
        raise IllegalMove("You hold no {rank}. Your ranks: {ranks}.", rank=rank_label(rank), ranks=ranks)
    hands = list(state.hands)
    hands[seat] = tuple(c for c in hand if c != card)
    row = (*state.row, card)
    event = Placed(seat, card, len(row) - 1, row_changes(row[-2:]) if len(row) >= 2 else None)
    out = replace(state, hands=tuple(hands), row=row, placers=(*state.placers, seat))
    out = replace(out, turn=_next_placer(out, seat))
    return _settle(out, [event])


def _next_placer(state: State, after: int) -> int:
    """The next active seat after ``after`` (in seat order, cyclically) that still holds cards."""
    n = state.n_players
    for step in range(1, n + 1):
        seat = (after + step) % n
        if seat in state.active and state.hands[seat]:
            return seat
    return after


def _settle(state: State, events: list[Event]) -> State:
    """Move the game on as far as it goes by itself: start placing, finish the deal, end the game."""
    if state.phase != Phase.OVER and len(state.active) < 2:
        remaining = state.active
        reason = (
            N_("every other player left the game")
            if state.deal == 0
            else N_("every other player in the playoff left the game")
        )
        events.append(GameOver(remaining, reason))
        state = replace(state, phase=Phase.OVER, winners=remaining, reason=reason)
    if state.phase == Phase.PREDICT and all(state.predictions[s] is not None for s in state.active):
        first = state.active[0]
        events.append(PlacingStarts(state.deal, first, state.row_size))
        state = replace(state, phase=Phase.PLACE, turn=first)
    if state.phase == Phase.PLACE:
        if not any(state.hands[s] for s in state.active):
            return _finish_deal(state, events)
        if not state.hands[state.turn] or state.turn not in state.active:
            state = replace(state, turn=_next_placer(state, state.turn))
    return replace(state, events=tuple(events))


def _finish_deal(state: State, events: list[Event]) -> State:
    changes = row_changes(state.row)
    players = []
    for seat in state.players:
        prediction = state.predictions[seat]
        out = seat in state.forfeited
        window = None if out or prediction is None else match_window(prediction, changes)
        score = len(prediction) if prediction is not None and window is not None else 0
        players.append(DealPlayer(seat, prediction, score, window, out))
    best = max(p.score for p in players if not p.forfeited)
    top = tuple(p.seat for p in players if not p.forfeited and p.score == best)
    if len(top) == 1:
        result = DealResult.WINNER
    elif state.deal < MAX_PLAYOFFS:
        result = DealResult.PLAYOFF
    else:
        result = DealResult.SHARED
    record = DealRecord(
        deal=state.deal,
        row=state.row,
        placers=state.placers,
        changes=changes,
        players=tuple(players),
        leftover=state.leftover,
        result=result,
        top=top,
    )
    events.append(Reveal(record))
    state = replace(state, history=(*state.history, record))
    if result == DealResult.PLAYOFF:
        events.append(Playoff(state.deal + 1, top, best))
        return replace(_start_deal(state, state.deal + 1, top), events=tuple(events))
    reason = str(deal_reason(record))  # kept in English, as logged; `outcome` says it in any language
    events.append(GameOver(top, reason))
    return replace(state, phase=Phase.OVER, winners=top, reason=reason, events=tuple(events))


def forfeit(state: State, seat: int) -> State:
    """The seat leaves: their cards leave play (the row shrinks) and their prediction scores nothing.
    The game goes on while two players remain in the current deal; otherwise the last one wins."""
    base.check_seat(state.n_players, seat)
    if state.phase == Phase.OVER or seat in state.forfeited:
        return replace(state, events=())
    hands = list(state.hands)
    removed = len(hands[seat]) if seat in state.active else 0
    if seat in state.active:
        hands[seat] = ()
    out = replace(state, forfeited=state.forfeited | {seat}, hands=tuple(hands))
    return _settle(out, [Left(seat, removed, out.row_size)])


def deal_reason(record: DealRecord) -> Msg:
    """Why a game ended with a finished deal: its unique best prediction, or the last playoff's tie."""
    if record.result == DealResult.WINNER and record.deal:
        return Msg.n(
            "the longest matching prediction ({count} letter) in playoff {deal}",
            "the longest matching prediction ({count} letters) in playoff {deal}",
            record.best,
            deal=record.deal,
        )
    if record.result == DealResult.WINNER:
        return Msg.n(
            "the longest matching prediction ({count} letter)",
            "the longest matching prediction ({count} letters)",
            record.best,
        )
    return Msg.n(
        "still tied at {best} after {count} playoff, so they share the win",
        "still tied at {best} after {count} playoffs, so they share the win",
        MAX_PLAYOFFS,
        best=record.best,
    )


def outcome(state: State) -> Outcome | None:
    if state.phase != Phase.OVER:
        return None
    last = state.history[-1] if state.history else None
    # A game ended by its last deal says why from that deal's record (in any language); one ended
    # by players leaving keeps its reason, a msgid.
    reason: str | Msg = state.reason
    if last is not None and last.result != DealResult.PLAYOFF and state.reason == str(deal_reason(last)):
        reason = deal_reason(last)
    return Outcome(winners=state.winners, reason=reason, scores=_last_scores(state))


def _last_scores(state: State) -> tuple[int, ...] | None:
    """Each seat's score in the last deal they played (None before any deal was revealed)."""
    if not state.history:
        return None
    scores = [0] * state.n_players
    for record in state.history:
        for p in record.players:
            scores[p.seat] = p.score
    return tuple(scores)


# ---- views ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class View:
    """What one seat (or, with ``seat=None``, the public channel) may see.

    The current deal's hands, predictions and set-aside cards are secret: a seat's view holds only
    its own hand and prediction (plus, in a two-player deal, the opponent's hand: exactly the cards
    it lacks). Finished deals in ``history`` are public: they were revealed.
    """

    seat: int | None
    n_players: int
    deal: int  # 0 = main deal, k = k-th playoff
    phase: Phase
    players: tuple[int, ...]  # the current deal's seats
    forfeited: frozenset[int]
    hand_sizes: tuple[int, ...]  # per seat
    row: tuple[str, ...]  # the current deal's cards placed so far
    placers: tuple[int, ...]
    changes: str  # U/D/S between the row's neighbours
    row_size: int  # R: the cards the finished row will have
    max_letters: int  # R - 1
    turn: int | None  # the seat to place, in the PLACE phase
    predicted: frozenset[int]  # who has a prediction in (never what it is)
    to_act: frozenset[int]
    hand: tuple[str, ...] | None  # the viewer's own hand (None in the public view)
    prediction: str | None  # the viewer's own prediction (None in the public view)
    can_predict: bool  # the viewer may submit or replace a prediction now
    opponent_hand: tuple[str, ...] | None  # two-player deals only, private views only
    history: tuple[DealRecord, ...]  # finished, revealed deals, oldest first
    last_deal: DealRecord | None  # history[-1]: what the reveal announcement shows
    outcome: Outcome | None
    events: tuple[Event, ...]


def view_for(state: State, seat: int | None) -> View:
    own = seat is not None and seat in state.active and state.phase != Phase.OVER
    opponent = None
    if own and len(state.players) == 2:
        other = next(s for s in state.players if s != seat)
        opponent = state.hands[other]
    return View(
        seat=seat,
        n_players=state.n_players,
        deal=state.deal,
        phase=state.phase,
        players=state.players,
        forfeited=state.forfeited,
        hand_sizes=tuple(len(h) for h in state.hands),
        row=state.row,
        placers=state.placers,
        changes=row_changes(state.row),
        row_size=state.row_size,
        max_letters=state.max_letters,
        turn=state.turn if state.phase == Phase.PLACE else None,
        predicted=frozenset(s for s in state.active if state.predictions[s] is not None),
        to_act=to_act(state),
        hand=state.hands[seat] if own and seat is not None else None,
        prediction=state.predictions[seat] if own and seat is not None else None,
        can_predict=own and seat is not None and can_predict(state, seat),
        opponent_hand=opponent,
        history=state.history,
        last_deal=state.history[-1] if state.history else None,
        outcome=outcome(state),
        events=state.events,
    )
