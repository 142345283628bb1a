"""The computer player of The Numerical Card Game (bot/games/divisors.py): ``choose(view, level, rng)``.

What it sees is the seat's `View` and nothing else: its own fresh pile, every pile's size, the scores,
who is in play and the results of this round and the last. Everything hidden (the other fresh piles)
is estimated from that:

- The 1s never go moldy; a card goes moldy the more readily the more cards share a factor with it.
  `CardModel` fits one rate so that the cards not seen (all copies minus the own pile minus the cards
  known to be elsewhere) add up to the cards not moldy, and gives each value its chance to be one of
  another seat's unseen fresh cards.
- An exchange of this round or the last puts a known card into a known pile; the opponent of an open
  pairing has not played since, so it still holds it (`known_cards`).

Levels:

- ``easy``: a random card from its pile (never drops).
- ``normal``: weighs each card by its expected result against the opponent's estimated pile (each
  card of it as likely as the others): its own points, less half the opponent's, and the worth of
  holding a 1 (a 1 scores 2 whenever it is played, then passes on). It draws its card from a softmax
  over those values, so it mostly plays the best card and sometimes a near one.
- ``hard``: the same values, always the best card, and it counts the cost of emptying its pile (a
  seat out of play scores no more while the others go on).
- ``normal`` and ``hard`` drop when that wins the game at once: two players in play, and this seat
  leads everyone who can still win. A drop is an action like a pick: the rules keep it secret until
  they reveal it.

Why not a deeper search: the 1s decide most games. A 1 never goes moldy and scores 2 each time it is
played, so sound players keep playing theirs, and once every seat holds one the game settles into 1
against 1 until the "no progress" rule ends it, every seat scoring alike. What is won is won before
that and by not giving a 1 away for nothing; predicting the opponent's pick with a model of a
``normal`` player (tried: sampled piles, the opponent's answer, mixed with the uniform guess) lost
to plain expectation, as the prediction was wrong about who holds a 1 more often than it helped.

Budget: a choice evaluates each distinct card of the pile against each value the opponent may hold
(at most m x m `worth` calls) and fits one rate by bisection: no search, no clock.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from math import gcd
from typing import Any

from bot.games.divisors import FORFEITED, IN, View, resolve

DROP: dict[str, Any] = {"type": "drop"}


def pick(card: int) -> dict[str, Any]:
    return {"type": "pick", "card": card}


@dataclass(frozen=True)
class Style:
    """The weights of one level's evaluation."""

    opp_weight: float  # how much a point of the opponent's counts against one's own
    one_value: float  # the worth of holding a 1 (it scores 2 the next time it is played)
    extra_one: float  # the worth of a second 1 (while it is held, another seat lacks one)
    temperature: float  # 0: always the best card; above: a softmax over the cards' values
    out_cost: float  # the cost of emptying the pile (out of play, others go on scoring)


NORMAL = Style(opp_weight=0.5, one_value=1.5, extra_one=1.5, temperature=0.4, out_cost=0.0)
HARD = Style(opp_weight=0.5, one_value=1.5, extra_one=1.5, temperature=0.0, out_cost=10.0)


# ---- what the seat knows ---------------------------------------------------------------------------


@lru_cache(maxsize=32)
def _links(m: int) -> tuple[int, ...]:
    """Per value 0..m: how many values 2..m share a factor with it (0 for the 1, which never molds)."""
    return (0, 0, *(sum(1 for u in range(2, m + 1) if gcd(u, v) > 1) for v in range(2, m + 1)))


def opponent_of(view: View, seat: int) -> int | None:
    for a, b in view.pairings:
        if seat in (a, b) and not any(r.seats == (a, b) for r in view.results):
            return b if a == seat else a
    return None


def known_cards(view: View, seat: int) -> Counter[int]:
    """Cards ``seat`` surely holds: those it received in an exchange since it last played.

    A seat that has played this round is read from this round's results only; otherwise from the last
    round's (it has not played since).
    """
    out: Counter[int] = Counter()
    this_round = [r for r in view.results if seat in r.seats]
    rows = this_round or [r for r in view.last_results if seat in r.seats]
    for r in rows:
        if r.cards is None or r.kind != "exchange":
            continue
        out[r.cards[1] if seat == r.seats[0] else r.cards[0]] += 1
    return out


@dataclass(frozen=True)
class CardModel:
    """The seat's estimate of the hidden cards: each value's chance to be an unseen fresh card."""

    chance: tuple[float, ...]  # per value 0..m, summing to 1 over 1..m (all 0 when nothing is unseen)
    known: dict[int, Counter[int]]  # seat -> cards it surely holds

    def pile(self, view: View, seat: int) -> list[tuple[int, float]]:
        """The chance that a card drawn at random from ``seat``'s fresh pile is each value."""
        size = view.fresh_counts[seat]
        if size <= 0:
            return []
        known = self.known.get(seat, Counter())
        unseen = max(0, size - sum(known.values()))
        weights = [0.0] * (view.m + 1)
        for v, c in known.items():
            weights[v] += c
        for v in range(1, view.m + 1):
            weights[v] += unseen * self.chance[v]
        total = sum(weights)
        return [(v, w / total) for v, w in enumerate(weights) if w > 0]


def card_model(view: View) -> CardModel:
    me = view.seat
    assert me is not None
    n, m = view.n_players, view.m
    mine = Counter(view.hand_cards)
    known = {s: known_cards(view, s) for s in range(n) if s != me and view.status[s] == IN}
    seen = Counter(mine)
    for cards in known.values():
        seen.update(cards)
    unseen = tuple(max(0, n - seen[v]) for v in range(m + 1))
    not_moldy = n * m - sum(view.moldy_counts) - sum(seen.values())
    return CardModel(chance=_chances(m, unseen[1:], max(0, not_moldy)), known=known)


@lru_cache(maxsize=4096)
def _chances(m: int, unseen: tuple[int, ...], not_moldy: int) -> tuple[float, ...]:
    """Each value's chance to be an unseen card that is not moldy: ``unseen[v-1]`` copies of value v,
    each still fresh with chance exp(-rate * links), the rate fitted so that ``not_moldy`` are."""
    links = _links(m)
    if not_moldy <= 0 or not any(unseen):
        return (0.0,) * (m + 1)
    # The unseen copies grouped by their number of links: one exp per group and rate tried.
    groups: dict[int, int] = {}
    for v, u in enumerate(unseen, start=1):
        groups[links[v]] = groups.get(links[v], 0) + u

    def expected(rate: float) -> float:
        return sum(u * math.exp(-rate * k) for k, u in groups.items())

    lo, hi = 0.0, 1.0
    if expected(0.0) > not_moldy:
        while expected(hi) > not_moldy and hi < 64:
            hi *= 2
        for _ in range(24):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if expected(mid) > not_moldy else (lo, mid)
    weights = [u * math.exp(-lo * links[v]) for v, u in enumerate(unseen, start=1)]
    total = sum(weights)
    return (0.0, *(w / total for w in weights))


# ---- choosing -----------------------------------------------------------------------------------


def drop_wins(view: View) -> bool:
    """A drop ends the game now with this seat the only winner: it and one other are in play, and it
    leads everyone who can still win."""
    me = view.seat
    assert me is not None
    playing = [s for s in range(view.n_players) if view.status[s] == IN]
    if len(playing) != 2 or me not in playing:
        return False
    rivals = [view.scores[s] for s in range(view.n_players) if s != me and view.status[s] != FORFEITED]
    return not rivals or view.scores[me] > max(rivals)


def worth(x: int, y: int, style: Style, ones: int, size: int) -> float:
    """The result of my card ``x`` against the opponent's ``y`` when I hold ``ones`` 1s: points, the
    1s changing hands; a card going moldy from a pile of ``size`` cards brings it closer to empty,
    which puts the seat out of play while the others go on scoring."""
    mine, theirs, kind = resolve(x, y)
    value = mine - style.opp_weight * theirs
    if kind == "moldy" and size <= 2:
        value -= style.out_cost * (1.0 if size == 1 else 0.25)
    if kind == "exchange" and x != y:
        if y == 1:
            value += style.one_value if ones == 0 else style.extra_one
        elif x == 1:
            value -= style.one_value if ones == 1 else style.extra_one
    return value


def values(hand: list[int], against: list[tuple[int, float]], style: Style) -> list[tuple[int, float]]:
    """Each distinct card of ``hand`` with its expected `worth` against the opponent's pick."""
    ones, size = hand.count(1), len(hand)
    return [(x, sum(p * worth(x, y, style, ones, size) for y, p in against)) for x in sorted(set(hand))]


def best_answer(hand: list[int], against: list[tuple[int, float]], style: Style) -> int:
    """The card of highest value (the lowest of equals)."""
    best, best_value = hand[0], -math.inf
    for x, value in values(hand, against, style):
        if value > best_value + 1e-9:
            best, best_value = x, value
    return best


def soft_answer(hand: list[int], against: list[tuple[int, float]], style: Style, rng: random.Random) -> int:
    """A card drawn with chance growing with its value (a softmax at the style's temperature)."""
    scored = values(hand, against, style)
    top = max(v for _, v in scored)
    weights = [math.exp((v - top) / style.temperature) for _, v in scored]
    return rng.choices([x for x, _ in scored], weights)[0]


def choose(view: View, level: str, rng: random.Random) -> dict[str, Any]:
    """The seat's action: a pick from its fresh pile, or a drop (see the module docstring)."""
    me = view.seat
    if me is None or me not in view.to_act:
        raise ValueError("The computer is asked to act, but its seat has nothing to do now.")
    hand = list(view.hand_cards)
    if level == "easy":
        return pick(rng.choice(sorted(set(hand))))
    if drop_wins(view):
        return dict(DROP)
    opp = opponent_of(view, me)
    assert opp is not None
    style = HARD if level == "hard" else NORMAL
    model = card_model(view)
    against = model.pile(view, opp)
    if style.temperature > 0:
        return pick(soft_answer(hand, against, style, rng))
    return pick(best_answer(hand, against, style))
