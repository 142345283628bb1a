"""The computer player of The Numerical Card Game (cogs/divisors/rules.py): ``choose(view, level, rng)``.

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
- ``hard``: expects its opponent to play like ``normal`` and answers that (`predicted_pick`): it draws
  hands for the opponent from the card model, works out the opponent's values from the opponent's
  side (its guess of this seat's pile) and mixes normal's softmax over each hand. Against that pick
  it plays the card of best `hard_worth`: normal's points and 1s, plus what the pile sizes are worth
  (`Life`). A seat whose pile runs out scores nothing more while the others go on, and the last
  cycles, where the 1s bounce and score every time, are where most points are made; so a card going
  moldy costs its holder the more the smaller its pile, for this seat and (a gain) for the opponent.
  It always plays the best card.
- ``normal`` and ``hard`` drop when that wins the game at once: two players in play, and this seat
  leads everyone who can still win. A drop is not secret: it takes effect as soon as it is made, and
  everyone sees who left (RULES.md: ``/divisors drop`` leaves the game; the dropped player's fresh
  cards leave play).

Why not a deeper search: the 1s and the pile sizes decide most games. A 1 never goes moldy and scores
2 each time it is played, so once the cards that share a factor are used up, play settles into 1s
bouncing until the "no progress" rule ends it, and the seats still in play share those points. What
is won is won by staying in play and by not giving a 1 away for nothing; the one-card lookahead
against a modelled opponent captures that, and whole-game rollouts would not fit the time budget.

Budget: a choice evaluates each distinct card of the pile against each value the opponent may hold
(at most m x m `worth` calls), fits one rate by bisection, and for ``hard`` draws `PREDICTION_HANDS`
hands and computes the opponent's values once (m x m more): no search, no clock.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from dataclasses import dataclass, replace
from functools import lru_cache
from math import gcd
from typing import Any

from cogs.divisors.rules import FORFEITED, IN, View, resolve

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


@dataclass(frozen=True)
class Life:
    """What ``hard`` counts for pile sizes when a pairing makes both cards go moldy: each holder's
    pile shrinks by one, and a pile that runs out leaves its seat out of play while the others go on
    scoring. A card going moldy from a pile of ``size`` cards costs ``exp(-(size - 1) / scale)``
    times ``own`` for this seat, and gains ``other`` times the same for the opponent's pile."""

    own: float
    other: float
    scale: float

    def risk(self, size: int) -> float:
        return math.exp(-(size - 1) / self.scale)


NORMAL = Style(opp_weight=0.5, one_value=1.5, extra_one=1.5, temperature=0.4, out_cost=0.0)
HARD = Style(opp_weight=0.5, one_value=1.5, extra_one=1.5, temperature=0.0, out_cost=0.0)
LIFE = Life(own=2.0, other=2.0, scale=2.0)
PREDICTION_HANDS = 32  # hands drawn for the opponent to predict its pick


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
    unseen: tuple[int, ...] = ()  # per value 0..m: copies neither in the own pile nor known elsewhere

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

    def sample_hands(self, view: View, seat: int, count: int, rng: random.Random) -> list[list[int]]:
        """``count`` guesses of ``seat``'s whole fresh pile: the cards it surely holds, and the rest
        drawn without replacement from the unseen copies, each weighted by its value's chance."""
        size = view.fresh_counts[seat]
        sure = sorted(self.known.get(seat, Counter()).elements())
        pool = [
            (v, self.chance[v] / self.unseen[v])
            for v in range(1, view.m + 1)
            if self.chance[v] > 0
            for _ in range(self.unseen[v])
        ]
        need = min(max(0, size - len(sure)), len(pool))
        hands = []
        for _ in range(count):
            # Weighted sampling without replacement: the copies with the largest u ** (1 / weight).
            keyed = sorted(((rng.random() ** (1.0 / w), v) for v, w in pool), reverse=True)
            hands.append(sure + [v for _, v in keyed[:need]])
        return hands


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
    return CardModel(chance=_chances(m, unseen[1:], max(0, not_moldy)), known=known, unseen=unseen)


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


def soft_answer(hand: list[int], against: list[tuple[int, float]], style: Style, rng: random.Random) -> int:
    """A card drawn with chance growing with its value (a softmax at the style's temperature)."""
    scored = values(hand, against, style)
    top = max(v for _, v in scored)
    weights = [math.exp((v - top) / style.temperature) for _, v in scored]
    return rng.choices([x for x, _ in scored], weights)[0]


def predicted_pick(
    view: View, opp: int, model: CardModel, rng: random.Random, hands: int = PREDICTION_HANDS
) -> list[tuple[int, float]]:
    """The chance of each card to be ``opp``'s pick, if ``opp`` plays like ``normal``: over hands
    drawn from the card model, normal's softmax of its values, the values worked out from its side
    (its own guess of this seat's pile, which depends on what it holds only a little: taken from the
    first hand). ``normal`` weighs a 1 the same whether it is its first or a second and does not look
    at its pile size, so one set of values serves every hand."""
    me = view.seat
    assert me is not None
    drawn = [h for h in model.sample_hands(view, opp, hands, rng) if h]
    if not drawn:
        return model.pile(view, opp)
    first = drawn[0]
    their_view = replace(view, seat=opp, hand=tuple(sorted(Counter(first).items())), pending=None)
    their_guess = card_model(their_view).pile(their_view, me)
    ones, size = first.count(1), len(first)
    cards = sorted({c for h in drawn for c in h})
    value = {x: sum(p * worth(x, y, NORMAL, ones, size) for y, p in their_guess) for x in cards}
    chance = dict.fromkeys(cards, 0.0)
    for hand in drawn:
        held = set(hand)
        top = max(value[x] for x in held)
        weights = {x: math.exp((value[x] - top) / NORMAL.temperature) for x in held}
        total = sum(weights.values())
        for x, w in weights.items():
            chance[x] += w / total / len(drawn)
    return [(x, p) for x, p in chance.items() if p > 0]


def hard_worth(x: int, y: int, ones: int, size: int, opp_size: int) -> float:
    """`worth` at the ``hard`` style, plus the pile sizes' part (`Life`) when both cards go moldy."""
    value = worth(x, y, HARD, ones, size)
    if resolve(x, y)[2] == "moldy":
        value += LIFE.other * LIFE.risk(opp_size) - LIFE.own * LIFE.risk(size)
    return value


def hard_answer(view: View, hand: list[int], against: list[tuple[int, float]], opp: int) -> int:
    """The card of highest expected `hard_worth` against ``opp``'s pick (the lowest of equals)."""
    ones, size, opp_size = hand.count(1), len(hand), view.fresh_counts[opp]
    best, best_value = hand[0], -math.inf
    for x in sorted(set(hand)):
        value = sum(p * hard_worth(x, y, ones, size, opp_size) for y, p in against)
        if value > best_value + 1e-9:
            best, best_value = x, value
    return best


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
    model = card_model(view)
    if level == "hard":
        return pick(hard_answer(view, hand, predicted_pick(view, opp, model, rng), opp))
    return pick(soft_answer(hand, model.pile(view, opp), NORMAL, rng))
