"""The Numerical Card Game (seed 004; RULES.md): secret card picks in round-robin pairings.

This module owns the whole game: the fresh and moldy piles, the circle-method schedule, the secret
simultaneous picks of each pairing, the resolution table, dropping out, forfeits and the two
termination rules ("dead" and "no progress"). It is pure (no discord, no PIL).

How a game runs:

- Every player starts with a fresh pile holding 1..m. The schedule is the circle-method round robin of
  the *starting* seats (`round_pairings`), repeated cycle after cycle. A round's pairings are those of
  the schedule whose two players are both still in play when the round begins; rounds left with none
  are skipped. All pairings of a round are open at once; the next round begins when all are settled.
- In a pairing both players pick a card from their fresh pile (``{"type": "pick", "card": 7}``). The
  pick is final and stays secret (stored in ``State.picks``, shown only to its owner) until the other
  player has picked too; then both cards are revealed and `resolve` settles them.
- ``{"type": "drop"}`` leaves play voluntarily, at any time, from any seat still in play (it is listed
  in `legal_actions` only for seats that must act now, so that a seat waiting on others has no moves to
  offer). A dropped player's fresh cards leave play; the player keeps the score and can still win.
  A forfeit does the same, but the player cannot win.
- A pairing whose player drops or forfeits before it is resolved is *void*: nothing is revealed and the
  opponent's pending card simply stays in their fresh pile (a pick only removes the card once the
  pairing resolves). The opponent sits out the rest of that round.
- A player whose fresh pile empties is out (keeps the score, can still win).
- End checks happen when a round is complete, so every pairing of a round is always played out: fewer
  than two players in play ends the game; so does "dead" (no two cards above 1 in all the remaining
  fresh piles together share a factor) and "no progress" (no card went moldy during the last m
  complete cycles of the schedule).

Seats are 0-based. Events (``State.events``, the public effects of the last apply/forfeit; each a
`GameEvent`, stored as the JSON shown):

- `RoundBegins` ``{"type": "round", "cycle": c, "round": r, "pairings": [[a, b], ...]}``: a round
  begins (c and r 1-based: round r of ``rounds_per_cycle`` in cycle c)
- `Picked` ``{"type": "picked", "seat": s}``: a secret pick is in (the card is not told)
- `Resolved` ``{"type": "resolved", "seats": [a, b], "cards": [x, y], "points": [p, q], "kind": k,
  "label": l}``: the pairing's `Result`
- `Voided` ``{"type": "void", "seats": [a, b], "by": s}``: a pairing voided by s dropping or forfeiting
- `Out` ``{"type": "out", "seat": s, "reason": "empty" | "dropped" | "forfeited"}`` (a `Status`)
- `End` ``{"type": "end", "reason": "players" | "dead" | "no_progress"}`` (an `EndReason`)
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from math import gcd
from typing import Any, ClassVar

import bot.rules.base as base
from bot.errors import BadInput, GameFinished, IllegalMove, Namer, NotYourTurn, OutOfRange, player_number
from bot.i18n.lang import N_, Lang, Msg
from bot.inputs import excerpt, whole_number
from bot.rules.base import ActionJSON, GameEvent, Option, Outcome, Reason, RecordEvent, require

NAME = "divisors"
TITLE = "The Numerical Card Game"
MIN_PLAYERS, MAX_PLAYERS = 2, 8
M_OPTION = Option("m", "Each player's cards run from 1 to m", default=12, min=2, max=25)
OPTIONS: tuple[Option, ...] = (M_OPTION,)


class Status(StrEnum):
    """A seat's standing (stored as its value). Only IN players are paired; all but FORFEITED can win."""

    IN = "in"
    EMPTY = "empty"  # the fresh pile ran out
    DROPPED = "dropped"  # left voluntarily with /divisors drop
    FORFEITED = "forfeited"  # /game leave or a missed deadline


class Kind(StrEnum):
    """Where the two cards of a settled pairing go (stored as its value)."""

    EXCHANGE = "exchange"  # each player puts the other's card into their own fresh pile
    MOLDY = "moldy"  # each card goes to its owner's moldy pile
    VOID = "void"  # the pairing was called off: nothing was revealed, no card moved


class EndReason(StrEnum):
    """Why the game ended (stored as its value)."""

    PLAYERS = "players"
    DEAD = "dead"
    NO_PROGRESS = "no_progress"


# The members by their short names, which the presenter, renderer and player use.
IN, EMPTY, DROPPED, FORFEITED = Status.IN, Status.EMPTY, Status.DROPPED, Status.FORFEITED
EXCHANGE, MOLDY, VOID = Kind.EXCHANGE, Kind.MOLDY, Kind.VOID
END_PLAYERS, END_DEAD, END_NO_PROGRESS = EndReason.PLAYERS, EndReason.DEAD, EndReason.NO_PROGRESS

Pairing = tuple[int, int]  # the lower seat first


# ---- the schedule ---------------------------------------------------------------------------------


def rounds_per_cycle(n: int) -> int:
    """Rounds of one cycle of the circle method: n-1, or n when n is odd (every seat has one bye)."""
    return n - 1 if n % 2 == 0 else n


def round_pairings(seats: Sequence[int], round_index: int) -> list[Pairing]:
    """The pairings of round ``round_index`` (0-based, taken cycle after cycle) of the circle method.

    Exactly as RULES.md: write the seats in a row (plus a bye after the last when their number is odd);
    the i-th entry from the left meets the i-th from the right; for the next round keep the first entry
    in place and move the last entry to second place. Pairings with the bye are left out; each pairing
    lists the lower seat first, in the order of i.
    """
    if len(seats) < 2:
        raise ValueError("a schedule needs at least two seats")
    row: list[int | None] = list(seats)
    if len(row) % 2:
        row.append(None)
    k = len(row)
    r = round_index % (k - 1)
    # Moving the last entry to second place r times is a right rotation of all but the first by r.
    rest = row[1:]
    row = [row[0], *rest[len(rest) - r :], *rest[: len(rest) - r]]
    pairs: list[Pairing] = []
    for i in range(k // 2):
        a, b = row[i], row[k - 1 - i]
        if a is not None and b is not None:
            pairs.append((min(a, b), max(a, b)))
    return pairs


# ---- the resolution table -------------------------------------------------------------------------


def resolve(a: int, b: int) -> tuple[int, int, Kind]:
    """RULES.md's table for cards ``a`` and ``b``: (points to a's holder, points to b's, where they go)."""
    if a < 1 or b < 1:
        raise ValueError("cards are positive")
    if a == b:
        return 2, 2, (EXCHANGE if a == 1 else MOLDY)
    if a == 1:
        return 2, 0, EXCHANGE
    if b == 1:
        return 0, 2, EXCHANGE
    if b % a == 0:
        return 2, 0, MOLDY
    if a % b == 0:
        return 0, 2, MOLDY
    if gcd(a, b) > 1:
        return 1, 1, MOLDY
    return 0, 0, EXCHANGE


def describe(a: int, b: int) -> str:
    """The table row of cards ``a`` and ``b``: "equal", "one", "divides", "shared factor" or "coprime"."""
    if a == b:
        return "equal"
    if a == 1 or b == 1:
        return "one"
    if a % b == 0 or b % a == 0:
        return "divides"
    if gcd(a, b) > 1:
        return "shared factor"
    return "coprime"


def _prime_factors(v: int) -> tuple[int, ...]:
    out: list[int] = []
    p = 2
    while p * p <= v:
        if v % p == 0:
            out.append(p)
            while v % p == 0:
                v //= p
        p += 1
    if v > 1:
        out.append(v)
    return tuple(out)


_FACTORS = {v: _prime_factors(v) for v in range(2, M_OPTION.max + 1)}


def is_dead(cards: Iterable[int]) -> bool:
    """True when no two of ``cards`` above 1 share a factor (equal cards above 1 do share one).

    Why all the cards together, not only cards of different players: exchanges move cards between
    piles, so two cards of one pile may meet later; once the whole multiset is pairwise coprime, every
    pairing is an exchange (or a 1 bouncing), which keeps the multiset as it is, forever.
    """
    seen: set[int] = set()
    for card in cards:
        for p in _FACTORS.get(card, ()):
            if p in seen:
                return False
            seen.add(p)
    return True


# ---- state ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Result:
    """A settled pairing: resolved (cards revealed) or void (called off, nothing revealed)."""

    seats: Pairing
    cards: tuple[int, int] | None  # None when void
    points: tuple[int, int]
    kind: Kind
    label: str  # describe(...) of the cards, or "void"

    to_dict = base.fields_json

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Result:
        seats = _pair(d["seats"])
        cards = None if d["cards"] is None else _pair(d["cards"])
        result = cls(
            seats=seats, cards=cards, points=_pair(d["points"]), kind=Kind(d["kind"]), label=str(d["label"])
        )
        require(seats[0] < seats[1], "result seats")
        if cards is None:
            require(result.kind == VOID and result.label == VOID and result.points == (0, 0), "void")
        else:
            pa, pb, kind = resolve(*cards)
            require((pa, pb) == result.points and kind == result.kind, "result points")
            require(describe(*cards) == result.label, "result label")
        return result


def _pair(x: Any) -> tuple[int, int]:
    a, b = x
    return base.stored_int(a), base.stored_int(b)


def _cards(x: Any) -> tuple[int, ...]:
    return tuple(sorted(base.stored_int(v) for v in x))


# ---- events ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RoundBegins(GameEvent):
    """Round ``round`` of cycle ``cycle`` (both 1-based) begins with these pairings."""

    TYPE: ClassVar[str] = "round"
    cycle: int
    round: int
    pairings: tuple[tuple[int, ...], ...]


@dataclass(frozen=True)
class Picked(GameEvent):
    """A seat's secret pick is in (the card is not told)."""

    TYPE: ClassVar[str] = "picked"
    seat: int


@dataclass(frozen=True)
class Resolved(RecordEvent):
    """A pairing's two cards, revealed and settled. Its JSON is the result's fields beside the type."""

    TYPE: ClassVar[str] = "resolved"
    result: Result


@dataclass(frozen=True)
class Voided(GameEvent):
    """The pairing of ``seats`` is called off: ``by`` dropped out or left."""

    TYPE: ClassVar[str] = "void"
    seats: tuple[int, ...]
    by: int


@dataclass(frozen=True)
class Out(GameEvent):
    """A seat is out of play, for ``reason``: its pile ran out, it dropped out, or it left."""

    TYPE: ClassVar[str] = "out"
    seat: int
    reason: Status


@dataclass(frozen=True)
class End(GameEvent):
    """The game ended, by the rule ``reason``."""

    TYPE: ClassVar[str] = "end"
    reason: EndReason


Event = RoundBegins | Picked | Resolved | Voided | Out | End
EVENTS = base.Events[Event](NAME, (RoundBegins, Picked, Resolved, Voided, Out, End))


@dataclass(frozen=True)
class State:
    n_players: int
    m: int
    fresh: tuple[tuple[int, ...], ...]  # per seat, sorted; a picked card stays here until resolved
    moldy: tuple[tuple[int, ...], ...]  # per seat, sorted
    left: tuple[tuple[int, ...], ...]  # per seat: fresh cards that left play on a drop or forfeit
    scores: tuple[int, ...]
    status: tuple[Status, ...]  # per seat
    round_no: int  # schedule rounds since the start, skipped ones included
    pairings: tuple[Pairing, ...]  # the current round's pairings; () once the game is over
    picks: tuple[int | None, ...]  # per seat: the secret pending pick of an open pairing
    results: tuple[Result, ...]  # the current round's settled pairings, in the order they settled
    last_results: tuple[Result, ...]  # the previous complete round's
    moldy_this_cycle: bool  # whether a card went moldy since the current cycle began
    quiet_cycles: int  # complete cycles in a row without a card going moldy
    end_reason: EndReason | None = None  # set once the game is over
    events: tuple[Event, ...] = ()  # the public events the last apply/forfeit caused

    @property
    def finished(self) -> bool:
        return self.end_reason is not None

    @property
    def cycle(self) -> int:
        """The current cycle, 0-based."""
        return self.round_no // rounds_per_cycle(self.n_players)

    def in_play(self) -> list[int]:
        return [s for s in range(self.n_players) if self.status[s] == IN]

    def open_pairings(self) -> list[Pairing]:
        settled = {r.seats for r in self.results}
        return [p for p in self.pairings if p not in settled]

    to_dict = base.fields_json

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> State:
        try:
            state = cls(
                n_players=base.stored_int(d["n_players"]),
                m=base.stored_int(d["m"]),
                fresh=tuple(_cards(p) for p in d["fresh"]),
                moldy=tuple(_cards(p) for p in d["moldy"]),
                left=tuple(_cards(p) for p in d["left"]),
                scores=tuple(base.stored_int(v) for v in d["scores"]),
                status=tuple(Status(s) for s in d["status"]),
                round_no=base.stored_int(d["round_no"]),
                pairings=tuple(_pair(p) for p in d["pairings"]),
                picks=tuple(None if v is None else base.stored_int(v) for v in d["picks"]),
                results=tuple(Result.from_dict(r) for r in d["results"]),
                last_results=tuple(Result.from_dict(r) for r in d["last_results"]),
                moldy_this_cycle=bool(d["moldy_this_cycle"]),
                quiet_cycles=base.stored_int(d["quiet_cycles"]),
                end_reason=None if d["end_reason"] is None else EndReason(d["end_reason"]),
                events=tuple(EVENTS.parse(e) for e in d["events"]),
            )
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ValueError(f"invalid divisors state: {exc}") from exc
        state._validate()
        return state

    def _validate(self) -> None:
        n, m = self.n_players, self.m
        require(MIN_PLAYERS <= n <= MAX_PLAYERS, "player count")
        require(M_OPTION.allows(m), "m")
        for name in ("fresh", "moldy", "left", "scores", "status", "picks"):
            require(len(getattr(self, name)) == n, f"{name} per seat")
        every = Counter(c for piles in (self.fresh, self.moldy, self.left) for p in piles for c in p)
        require(every == Counter({v: n for v in range(1, m + 1)}), "each card 1..m once per player")
        require(all(v >= 0 for v in self.scores), "scores")
        for s in range(n):
            require(bool(self.fresh[s]) == (self.status[s] == IN), "fresh pile and status")
        require(self.round_no >= 0, "round")
        require(0 <= self.quiet_cycles, "quiet cycles")
        scheduled = set(round_pairings(range(n), self.round_no))
        require(
            set(self.pairings) <= scheduled and len(set(self.pairings)) == len(self.pairings),
            "pairings follow the schedule",
        )
        require(all(r.seats in self.pairings for r in self.results), "results of this round")
        require(len({r.seats for r in self.results}) == len(self.results), "pairings settle once")
        open_seats = {s for p in self.open_pairings() for s in p}
        for s, pick in enumerate(self.picks):
            if pick is not None:
                require(s in open_seats and pick in self.fresh[s], "pending pick")
        for p in self.open_pairings():
            require(all(self.status[s] == IN for s in p), "open pairings are of players in play")
            require(None in (self.picks[p[0]], self.picks[p[1]]), "a pairing with both picks resolves")
        if self.end_reason is None:
            require(bool(self.open_pairings()), "a game in progress has an open pairing")
            require(self.quiet_cycles < m, "no progress")
        else:
            require(not self.pairings and not self.results, "a finished game has no round")


def new_game(n_players: int, options: Mapping[str, int], seed: int) -> State:
    del seed  # no randomness in this game
    base.check_players(TITLE, n_players, MIN_PLAYERS, MAX_PLAYERS)
    m = M_OPTION.value(options)
    pairs = tuple(round_pairings(range(n_players), 0))
    return State(
        n_players=n_players,
        m=m,
        fresh=tuple(tuple(range(1, m + 1)) for _ in range(n_players)),
        moldy=((),) * n_players,
        left=((),) * n_players,
        scores=(0,) * n_players,
        status=(IN,) * n_players,
        round_no=0,
        pairings=pairs,
        picks=(None,) * n_players,
        results=(),
        last_results=(),
        moldy_this_cycle=False,
        quiet_cycles=0,
        events=(_round_event(n_players, 0, pairs),),
    )


def _round_event(n: int, round_no: int, pairs: Sequence[Pairing]) -> RoundBegins:
    cycle, r = divmod(round_no, rounds_per_cycle(n))
    return RoundBegins(cycle + 1, r + 1, tuple(pairs))


# ---- who acts, and what they may do ---------------------------------------------------------------


def pairing_of(state: State, seat: int) -> Pairing | None:
    """The seat's open (unresolved) pairing of the current round, if any."""
    for p in state.open_pairings():
        if seat in p:
            return p
    return None


def to_act(state: State) -> frozenset[int]:
    if state.finished:
        return frozenset()
    return frozenset(s for p in state.open_pairings() for s in p if state.picks[s] is None)


def legal_actions(state: State, seat: int) -> list[dict[str, Any]]:
    """The picks a seat that must act may make (one per distinct card), then dropping out.

    Dropping is also accepted from a seat in play that is not asked to act (waiting on a bye or on its
    opponent); it is only *listed* for seats in `to_act`, so that a waiting seat has nothing offered.
    """
    if seat not in to_act(state):
        return []
    picks = [Pick(v).to_json() for v in sorted(set(state.fresh[seat]))]
    return [*picks, Drop().to_json()]


# ---- actions --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Pick:
    """The seat's secret card for its pairing, from its fresh pile: ``{"type": "pick", "card": 7}``."""

    TYPE: ClassVar[str] = "pick"
    card: int
    to_json = base.move_json


@dataclass(frozen=True)
class Drop:
    """Drop out: play no more cards, keep the score (``{"type": "drop"}``)."""

    TYPE: ClassVar[str] = "drop"
    to_json = base.move_json


Move = Pick | Drop
MOVES = base.Moves[Move](
    (Pick, Drop),
    wrong=N_("In The Numerical Card Game you either pick a card from your fresh pile or drop out."),
)
parse_action = MOVES.parse


_TYPED_CARD = re.compile(r"(?:card\s*)?#?\s*([0-9]+)", re.IGNORECASE | re.ASCII)


def parse_card(text: str, m: int) -> int:
    """A card value typed by a player: "7", "card 7" or "#7" (ASCII digits), from 1 to ``m``. Raises
    ``BadInput`` saying what to type."""
    word = text.strip()
    found = _TYPED_CARD.fullmatch(word)
    if found is None:
        if word:
            raise BadInput(
                "I could not read {shown} as a card. Type the number of a card from your fresh pile, "
                "for example 5.",
                shown=repr(excerpt(word)),
            )
        raise BadInput("Type the number of a card from your fresh pile, for example 5.")
    try:
        return whole_number(found[1], 1, m)
    except OutOfRange as err:
        raise _no_such_card(err.shown, m) from None


def _no_such_card(card: object, m: int) -> BadInput:
    return BadInput(
        "Cards run from 1 to {m}; there is no card {card}. Pick one from your fresh pile.", m=m, card=card
    )


def format_cards(cards: Iterable[int]) -> str:
    """Cards as players read them, duplicates shown as counts: "1, 2, 5×2, 9"."""
    counts = Counter(cards)
    return ", ".join(f"{v}×{c}" if c > 1 else str(v) for v, c in sorted(counts.items()))


def _not_in_play(state: State, seat: int) -> IllegalMove:
    status = state.status[seat]
    if status == DROPPED:
        return IllegalMove(
            "You dropped out of this game; your score still counts, but you play no more cards."
        )
    if status == EMPTY:
        return IllegalMove("Your fresh pile is empty, so you are out of play; your score still counts.")
    return IllegalMove("You left this game.")


class NoPairingLeft(NotYourTurn):
    """A pick from a seat whose pairing of this round is settled: ``pairings`` are still open."""

    def __init__(self, pairings: Iterable[Pairing]) -> None:
        self.pairings = tuple(pairings)
        super().__init__(NO_PAIRING_LEFT, playing="")  # (NotYourTurn then sets the message by `say`)

    def say(self, lang: Lang, name: Namer | None = None) -> str:
        def who(seat: int) -> str:
            return name(seat) if name else player_number(seat, lang)

        playing = lang.words(
            [lang.t("{first} against {second}", first=who(a), second=who(b)) for a, b in self.pairings]
        )
        return lang.t(NO_PAIRING_LEFT, playing=playing)


NO_PAIRING_LEFT = N_(
    "You have no pairing left in this round: wait for the next round (still playing: {playing})."
)


class PickIsFinal(NotYourTurn):
    """A second pick for the same pairing: ``waiting_for`` (the opponent) has not picked yet."""

    def __init__(self, waiting_for: int) -> None:
        self.waiting_for = waiting_for
        super().__init__(PICKS_ARE_FINAL, player="")

    def say(self, lang: Lang, name: Namer | None = None) -> str:
        player = name(self.waiting_for) if name else player_number(self.waiting_for, lang)
        return lang.t(PICKS_ARE_FINAL, player=player)


PICKS_ARE_FINAL = N_(
    "You already picked your card for this pairing, and picks are final: wait for {player} to pick."
)


def apply(state: State, seat: int, action: Move | ActionJSON) -> State:
    base.check_seat(state.n_players, seat)
    move = MOVES.read(action)
    if isinstance(move, Pick):
        return _pick(state, seat, move.card)
    if state.finished:
        raise GameFinished()
    if state.status[seat] != IN:
        raise _not_in_play(state, seat)
    return _leave(state, seat, DROPPED)  # the move is a Drop


def _pick(state: State, seat: int, card: int) -> State:
    if state.finished:
        raise GameFinished()
    if state.status[seat] != IN:
        raise _not_in_play(state, seat)
    pairing = pairing_of(state, seat)
    if pairing is None:
        raise NoPairingLeft(state.open_pairings())
    other = pairing[1] if pairing[0] == seat else pairing[0]
    if state.picks[seat] is not None:
        raise PickIsFinal(waiting_for=other)
    if not 1 <= card <= state.m:
        raise _no_such_card(card, state.m)
    if card not in state.fresh[seat]:
        raise IllegalMove(
            "You have no {card} in your fresh pile. Your cards: {cards}.",
            card=card,
            cards=format_cards(state.fresh[seat]),
        )
    picks = list(state.picks)
    picks[seat] = card
    out = replace(state, picks=tuple(picks))
    events: list[Event] = [Picked(seat)]
    if out.picks[other] is not None:
        out = _resolve_pairing(out, pairing, events)
    return _settle(out, events)


def _resolve_pairing(state: State, pairing: Pairing, events: list[Event]) -> State:
    a, b = pairing
    ca, cb = state.picks[a], state.picks[b]
    assert ca is not None and cb is not None
    pa, pb, kind = resolve(ca, cb)
    fresh = [list(p) for p in state.fresh]
    moldy = [list(p) for p in state.moldy]
    fresh[a].remove(ca)
    fresh[b].remove(cb)
    if kind == EXCHANGE:
        fresh[a].append(cb)
        fresh[b].append(ca)
    else:
        moldy[a].append(ca)
        moldy[b].append(cb)
    scores = list(state.scores)
    scores[a] += pa
    scores[b] += pb
    picks = list(state.picks)
    picks[a] = picks[b] = None
    result = Result(seats=pairing, cards=(ca, cb), points=(pa, pb), kind=kind, label=describe(ca, cb))
    events.append(Resolved(result))
    status = list(state.status)
    for s in pairing:
        if not fresh[s]:
            status[s] = EMPTY
            events.append(Out(s, EMPTY))
    return replace(
        state,
        fresh=tuple(tuple(sorted(p)) for p in fresh),
        moldy=tuple(tuple(sorted(p)) for p in moldy),
        scores=tuple(scores),
        status=tuple(status),
        picks=tuple(picks),
        results=(*state.results, result),
        moldy_this_cycle=state.moldy_this_cycle or kind == MOLDY,
    )


def _leave(state: State, seat: int, status_after: Status) -> State:
    """The seat leaves play (drop or forfeit): its fresh cards leave play and its open pairing is void."""
    events: list[Event] = [Out(seat, status_after)]
    fresh = list(state.fresh)
    left = list(state.left)
    left[seat] = tuple(sorted(left[seat] + fresh[seat]))
    fresh[seat] = ()
    status = list(state.status)
    status[seat] = status_after
    out = replace(state, fresh=tuple(fresh), left=tuple(left), status=tuple(status))
    pairing = pairing_of(state, seat)
    if pairing is not None:
        # The opponent's pending card (if any) was never taken out of their fresh pile: forgetting
        # the pick is all it takes to give it back, and it is never revealed.
        picks = list(out.picks)
        picks[pairing[0]] = picks[pairing[1]] = None
        void = Result(seats=pairing, cards=None, points=(0, 0), kind=VOID, label=VOID)
        out = replace(out, picks=tuple(picks), results=(*out.results, void))
        events.append(Voided(pairing, seat))
    return _settle(out, events)


def forfeit(state: State, seat: int) -> State:
    base.check_seat(state.n_players, seat)
    if state.finished or state.status[seat] == FORFEITED:
        return replace(state, events=())
    if state.status[seat] == IN:
        return _leave(state, seat, FORFEITED)
    # Already out of play (empty pile or dropped): nothing moves, but the seat can no longer win.
    status = list(state.status)
    status[seat] = FORFEITED
    return replace(state, status=tuple(status), events=(Out(seat, FORFEITED),))


# ---- rounds, cycles and the end -------------------------------------------------------------------


def _settle(state: State, events: list[Event]) -> State:
    """Once every pairing of the round is settled: end the game, or begin the next non-empty round."""
    if state.open_pairings():
        return replace(state, events=tuple(events))
    state = replace(state, last_results=state.results, results=())
    players = state.in_play()
    if len(players) < 2:
        return _finish(state, END_PLAYERS, events)
    if is_dead(c for s in players for c in state.fresh[s]):
        return _finish(state, END_DEAD, events)
    n = state.n_players
    per_cycle = rounds_per_cycle(n)
    r = state.round_no
    moldy, quiet = state.moldy_this_cycle, state.quiet_cycles
    playing = set(players)
    while True:
        r += 1
        if r % per_cycle == 0:  # a cycle is complete
            quiet = 0 if moldy else quiet + 1
            moldy = False
            if quiet >= state.m:
                state = replace(state, round_no=r, moldy_this_cycle=False, quiet_cycles=quiet)
                return _finish(state, END_NO_PROGRESS, events)
        pairs = tuple(p for p in round_pairings(range(n), r) if p[0] in playing and p[1] in playing)
        # Two players in play always meet within one cycle, so this loop ends within a cycle.
        if pairs:
            break
    events.append(_round_event(n, r, pairs))
    return replace(
        state,
        round_no=r,
        pairings=pairs,
        moldy_this_cycle=moldy,
        quiet_cycles=quiet,
        events=tuple(events),
    )


def _finish(state: State, reason: EndReason, events: list[Event]) -> State:
    events.append(End(reason))
    return replace(state, pairings=(), results=(), end_reason=reason, events=tuple(events))


def outcome(state: State) -> Outcome | None:
    if not state.finished:
        return None
    eligible = [s for s in range(state.n_players) if state.status[s] != FORFEITED]
    if not eligible:
        return Outcome(winners=(), reason=N_("every player left the game"), scores=state.scores)
    best = max(state.scores[s] for s in eligible)
    winners = tuple(s for s in eligible if state.scores[s] == best)
    reason: str
    if len(eligible) == 1:
        reason = N_("every other player left the game")
    elif state.end_reason == END_DEAD:
        reason = N_("no two fresh cards above 1 share a factor any more, so no card can go moldy again")
    elif state.end_reason == END_NO_PROGRESS:
        reason = Reason.of(
            Msg.n(
                "no card went moldy during the last {count} full cycle of the schedule",
                "no card went moldy during the last {count} full cycles of the schedule",
                state.m,
            )
        )
    else:
        reason = N_("fewer than two players still hold fresh cards; the highest score wins")
    return Outcome(winners=winners, reason=reason, scores=state.scores)


# ---- what each seat may see -----------------------------------------------------------------------


@dataclass(frozen=True)
class View:
    """What a seat (or, with ``seat=None``, the public channel) may see.

    Secrets: the content of the fresh piles and the pending picks. A seat's view holds its own fresh
    pile (``hand``) and its own pending pick; everyone else sees only pile sizes and who has picked.
    """

    n_players: int
    m: int
    seat: int | None
    scores: tuple[int, ...]
    status: tuple[Status, ...]
    fresh_counts: tuple[int, ...]
    moldy_counts: tuple[int, ...]
    cycle: int  # 1-based
    round: int  # 1-based, within the cycle; 0 once the game is over
    rounds_per_cycle: int
    pairings: tuple[Pairing, ...]  # the current round's
    picked: frozenset[int]  # seats whose secret pick of an open pairing is in
    results: tuple[Result, ...]  # the current round's settled pairings
    last_results: tuple[Result, ...]  # the previous round's
    to_act: frozenset[int]
    quiet_cycles: int
    hand: tuple[tuple[int, int], ...]  # (value, count) of the seat's fresh pile, pending card included
    pending: int | None  # the seat's own secret pick, not yet resolved
    events: tuple[Event, ...]
    outcome: Outcome | None

    @property
    def hand_cards(self) -> tuple[int, ...]:
        return tuple(v for v, c in self.hand for _ in range(c))


def view_for(state: State, seat: int | None) -> View:
    picked = frozenset(s for p in state.open_pairings() for s in p if state.picks[s] is not None)
    hand: tuple[tuple[int, int], ...] = ()
    pending = None
    if seat is not None:
        base.check_seat(state.n_players, seat)
        hand = tuple(sorted(Counter(state.fresh[seat]).items()))
        pending = state.picks[seat]
    per_cycle = rounds_per_cycle(state.n_players)
    cycle, r = divmod(state.round_no, per_cycle)
    return View(
        n_players=state.n_players,
        m=state.m,
        seat=seat,
        scores=state.scores,
        status=state.status,
        fresh_counts=tuple(len(p) for p in state.fresh),
        moldy_counts=tuple(len(p) for p in state.moldy),
        cycle=cycle + 1,
        round=0 if state.finished else r + 1,
        rounds_per_cycle=per_cycle,
        pairings=state.pairings,
        picked=picked,
        results=state.results,
        last_results=state.last_results,
        to_act=to_act(state),
        quiet_cycles=state.quiet_cycles,
        hand=hand,
        pending=pending,
        events=state.events,
        outcome=outcome(state),
    )
