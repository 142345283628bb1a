"""The computer player of Numbers To Number (cogs/numbers/rules.py): ``choose(view, level, rng)``.

What it sees is the seat's `View` and nothing else: the revealed pairs of every move (``played``), the
round's list so far, its own unused numbers. The other seat's pending pick is never shown, and never
needed: the other seat's unused numbers are public (every number it played was revealed).

The game, as this player sees it. A round scores only through its last move: the first m - 1 symbols
leave two candidates c0 and c1 for D (more with _), and a player scores by holding (having played this
round) the candidate the last symbol chooses. The last move is a small simultaneous game: hold a
candidate and push the last symbol with an extreme number, or play a candidate itself (its value is then
its push). Extreme numbers are the resource: each is played once per game, and nearly every number is
played by the end (floor((2^m - 1) / m) rounds of m moves), so a player who spends extremes on every
move has none left where they count.

Levels:

- ``easy``: a random unused number; on the last move of a round, half the time a random unused number
  that can still be in D.
- ``normal``: a random unused number, except on the last move: the best answer to an opponent who picks
  any of its unused numbers, each as likely (`LastMove.best`).
- ``hard``: spends no extremes before the last two moves of a round. Until then it plays the unused
  number nearest the middle (the least useful push), except that it takes the candidate that answers a
  number the opponent holds this round: when the opponent holds a number still matching the list (it
  will push the list towards it), the hard player holds the same number with the last digit flipped,
  so that winning the last symbol scores for it and denies the opponent. On the move before the last
  it values each number that can still be in D (and the answer, and the middle) by the symbol it likely
  writes against the opponent's predicted pick and the best last move after it (player 2 needs this
  most: on a last move the candidates' order favours player 1, so player 2 must hold one in advance).
  On the last move it plays the best answer to a predicted opponent: a mixture of simple behaviours
  (uniform, highest, lowest, pushing towards its own candidate, the best answer to a uniform opponent),
  weighted by how well each one explained the opponent's last moves of the earlier rounds
  (`OpponentModel`); the same model predicts the last move after the move before it.

Budget: a choice costs a bounded number of operations: O(2^m) per valued last move, one such valuation
per earlier round to weigh the opponent model (cached, so each past round is weighed once per process)
and at most a few dozen more on the move before the last. No search, no clock.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from cogs.numbers.rules import View, decode_list, largest, symbol


def pick(number: int) -> dict[str, Any]:
    return {"type": "pick", "number": number}


# ---- the situation of one move --------------------------------------------------------------------


@dataclass(frozen=True)
class Situation:
    """One move seen from one seat: what both have left, the round's list and who holds what."""

    m: int
    seat: int  # the seat deciding
    mine: tuple[int, ...]  # its unused numbers, ascending
    theirs: tuple[int, ...]  # the other seat's unused numbers, ascending
    symbols: str  # the round's list so far
    my_tickets: tuple[int, ...]  # the numbers it played this round
    their_tickets: tuple[int, ...]

    @property
    def last(self) -> bool:
        return len(self.symbols) == self.m - 1

    @property
    def win(self) -> str:
        """The symbol the deciding seat writes by playing the larger number."""
        return "1" if self.seat == 0 else "0"

    @property
    def lose(self) -> str:
        return "0" if self.seat == 0 else "1"

    def flipped(self) -> Situation:
        """The same move seen from the other seat."""
        return Situation(
            self.m, 1 - self.seat, self.theirs, self.mine, self.symbols, self.their_tickets, self.my_tickets
        )


def situation(view: View) -> Situation:
    assert view.seat is not None and view.available is not None
    me, other = view.seat, 1 - view.seat
    used = set(view.played[other])
    theirs = tuple(k for k in range(1, largest(view.m) + 1) if k not in used)
    return Situation(
        m=view.m,
        seat=me,
        mine=tuple(view.available),
        theirs=theirs,
        symbols=view.symbols,
        my_tickets=tuple(mv[me] for mv in view.moves),
        their_tickets=tuple(mv[other] for mv in view.moves),
    )


def past_last_moves(view: View) -> list[tuple[Situation, int]]:
    """The last move of every finished round as the other seat saw it, with what it played."""
    assert view.seat is not None
    m, me, other = view.m, view.seat, 1 - view.seat
    mine_all, theirs_all = view.played[me], view.played[other]
    everything = range(1, largest(m) + 1)
    out = []
    for r in range(len(view.played[0]) // m):
        start, last = r * m, r * m + m - 1
        pairs = list(zip(mine_all[start:last], theirs_all[start:last], strict=True))
        used_mine, used_theirs = set(mine_all[:last]), set(theirs_all[:last])
        symbols = "".join(symbol(a, b) if me == 0 else symbol(b, a) for a, b in pairs)
        seen = Situation(
            m=m,
            seat=other,
            mine=tuple(k for k in everything if k not in used_theirs),
            theirs=tuple(k for k in everything if k not in used_mine),
            symbols=symbols,
            my_tickets=tuple(b for _, b in pairs),
            their_tickets=tuple(a for a, _ in pairs),
        )
        out.append((seen, theirs_all[last]))
    return out


# ---- the last move ---------------------------------------------------------------------------------

Distribution = dict[int, float]  # an opponent's number -> its probability


class LastMove:
    """The last move of a round as a game: the deciding seat's payoff (its points less the other's)
    for each of its numbers against a distribution of the other's numbers."""

    def __init__(self, s: Situation) -> None:
        self.s = s
        self.d = {ch: frozenset(decode_list(s.symbols + ch)) for ch in "01_"}
        self.base = {
            ch: sum(1 for t in s.my_tickets if t in d) - sum(1 for t in s.their_tickets if t in d)
            for ch, d in self.d.items()
        }

    def values(self, dist: Distribution) -> dict[int, float]:
        """Expected payoff of each unused number against ``dist``."""
        s, d, base = self.s, self.d, self.base
        win, lose = s.win, s.lose
        top = largest(s.m)
        # below[v]: weight of the other's numbers under v; below_win[v]: of those in D_win
        below = [0.0] * (top + 2)
        below_win = [0.0] * (top + 2)
        total_lose_members = sum(p for b, p in dist.items() if b in d[lose])
        acc = acc_win = 0.0
        for v in range(top + 2):
            below[v], below_win[v] = acc, acc_win
            p = dist.get(v, 0.0)
            acc += p
            if v in d[win]:
                acc_win += p
        total = acc
        out: dict[int, float] = {}
        below_lose = 0.0
        lose_members = sorted(b for b in dist if b in d[lose])
        j = 0
        for a in s.mine:
            while j < len(lose_members) and lose_members[j] <= a:
                below_lose += dist[lose_members[j]]
                j += 1
            p_eq = dist.get(a, 0.0)
            p_lo, p_hi = below[a], total - below[a] - p_eq
            # I am larger (b < a): the list ends with `win`; smaller: with `lose`
            value = p_lo * (base[win] + (a in d[win])) - below_win[a]
            hi_lose_members = total_lose_members - below_lose
            value += p_hi * (base[lose] + (a in d[lose])) - hi_lose_members
            if p_eq:
                value += p_eq * base["_"]  # both played a: it counts for both or neither
            out[a] = value
        return out

    def best(self, dist: Distribution, thrift: float = 0.0) -> list[int]:
        """The numbers with the best expected payoff; ``thrift`` charges each number for how extreme
        it is among the deciding seat's own (a spent extreme is missed later)."""
        values = self.values(dist)
        mine = self.s.mine
        n = len(mine)
        if thrift and n > 1:
            for i, a in enumerate(mine):
                values[a] -= thrift * abs(2 * i / (n - 1) - 1)
        top = max(values.values())
        return [a for a in mine if values[a] >= top - 1e-9]


def uniform(numbers: Sequence[int]) -> Distribution:
    p = 1.0 / len(numbers)
    return dict.fromkeys(numbers, p)


def candidates(s: Situation) -> list[int]:
    """The deciding seat's unused numbers that can still be in D (they match the list so far)."""
    shift = s.m - len(s.symbols)
    prefixes = set(decode_list(s.symbols)) if s.symbols else {0}
    return [a for a in s.mine if a >> shift in prefixes]


# ---- the opponent model ----------------------------------------------------------------------------


def behaviours(s: Situation) -> dict[str, Distribution]:
    """What the deciding seat of ``s`` might play on a last move, one distribution per behaviour."""
    mine = s.mine
    spread = uniform(mine)
    game = LastMove(s)
    held_win = game.base["1" if s.seat == 0 else "0"]
    held_lose = game.base["0" if s.seat == 0 else "1"]
    push = spread
    if held_win > held_lose:
        push = {mine[-1]: 1.0}
    elif held_lose > held_win:
        push = {mine[0]: 1.0}
    answer = uniform(game.best(uniform(s.theirs)))
    return {"uniform": spread, "high": {mine[-1]: 1.0}, "low": {mine[0]: 1.0}, "push": push, "answer": answer}


@lru_cache(maxsize=4096)
def _likes(seen: Situation, played: int) -> dict[str, float]:
    """How likely each behaviour was to play ``played`` in ``seen`` (cached: every later choice of the
    game weighs the same past rounds again)."""
    return {name: dist.get(played, 0.0) for name, dist in behaviours(seen).items()}


PRIOR = {"uniform": 2.0, "high": 0.5, "low": 0.5, "push": 0.5, "answer": 0.5}
FLOOR = 0.15  # the least weight the uniform guess keeps


class OpponentModel:
    """How much each behaviour explains the other seat's last moves so far (a mixture, weighed by
    each behaviour's share of each observed pick)."""

    def __init__(self, history: Sequence[tuple[Situation, int]]) -> None:
        weights = dict(PRIOR)
        for seen, played in history:
            likes = _likes(seen, played)
            shares = {n: weights[n] * likes[n] for n in likes}
            total = sum(shares.values())
            if total <= 0:  # cannot happen (uniform gives every pick a chance); kept as a guard
                continue
            for n in likes:
                weights[n] += shares[n] / total  # the pick's posterior share of each behaviour
        total = sum(weights.values())
        self.weights = {n: w / total for n, w in weights.items()}

    def predict(self, s: Situation) -> Distribution:
        """The other seat's pick on the last move of ``s`` (seen from the deciding seat)."""
        theirs = s.flipped()
        out: Distribution = {}
        for name, dist in behaviours(theirs).items():
            w = self.weights[name] * (1 - FLOOR) + (FLOOR if name == "uniform" else 0.0)
            for b, p in dist.items():
                out[b] = out.get(b, 0.0) + w * p
        return out


# ---- the levels ------------------------------------------------------------------------------------


def _middle(s: Situation) -> int:
    """The unused number nearest the middle of the range: the least useful push."""
    centre = (largest(s.m) + 1) / 2
    return min(s.mine, key=lambda a: (abs(a - centre), a))


def _answer_ticket(s: Situation) -> int | None:
    """Against an opponent holding a number that still matches the list, the same number with the last
    digit flipped (if unused and not already held)."""
    shift = s.m - len(s.symbols)
    prefixes = set(decode_list(s.symbols)) if s.symbols else {0}
    mine = set(s.mine)
    for t in s.their_tickets:
        if t >> shift in prefixes:
            answer = t ^ 1
            if answer in mine and answer not in s.my_tickets:
                return answer
    return None


def _bid_model(view: View) -> tuple[float, float]:
    """How often the other seat played its largest, resp. its smallest, unused number on the moves
    before a round's last (with a prior of one uniform move in each)."""
    assert view.seat is not None
    m, theirs = view.m, view.played[1 - view.seat]
    unused = list(range(1, largest(m) + 1))
    high = low = 0.0
    n = 0
    for i, b in enumerate(theirs):
        if i % m != m - 1:
            n += 1
            high += b == unused[-1]
            low += b == unused[0]
        unused.remove(b)
    return (high + 0.1) / (n + 2), (low + 0.1) / (n + 2)


def _next_to_last(view: View, s: Situation, model: OpponentModel) -> int:
    """The move before the last: each option (a number that can still be in D, the answer to the
    opponent's number, the middle) valued by the symbol it likely writes and the best last move after
    it, against the predicted opponent."""
    high, low = _bid_model(view)
    theirs = s.theirs
    rest = max(0.0, 1.0 - high - low)
    dist: Distribution = {b: rest / len(theirs) for b in theirs}
    dist[theirs[-1]] = dist.get(theirs[-1], 0.0) + high
    dist[theirs[0]] = dist.get(theirs[0], 0.0) + low
    order = sorted(dist)
    options = {_middle(s), *candidates(s)}
    answer = _answer_ticket(s)
    if answer is not None:
        options.add(answer)
    cache: dict[tuple[str, bool, int], float] = {}

    def after(ch: str, a: int) -> float:
        mine = tuple(x for x in s.mine if x != a)
        final = set(decode_list(s.symbols + ch + "_"))
        held = a in final
        key = (ch, held, a if held else 0)
        if key not in cache:
            nxt = Situation(s.m, s.seat, mine, theirs, s.symbols + ch, (*s.my_tickets, a), s.their_tickets)
            game = LastMove(nxt)
            values = game.values(model.predict(nxt))
            cache[key] = max(values.values())
        return cache[key]

    best, best_value = _middle(s), float("-inf")
    for a in sorted(options):
        p_lo = sum(dist[b] for b in order if b < a)
        p_eq = dist.get(a, 0.0)
        p_hi = 1.0 - p_lo - p_eq
        value = p_lo * after(s.win, a) + p_hi * after(s.lose, a)
        if p_eq:
            value += p_eq * after("_", a)
        if value > best_value + 1e-9:
            best, best_value = a, value
    return best


def choose(view: View, level: str, rng: random.Random) -> dict[str, Any]:
    s = situation(view)
    if level == "easy":
        if s.last and rng.random() < 0.5:
            options = candidates(s)
            if options:
                return pick(rng.choice(options))
        return pick(rng.choice(s.mine))
    if level == "normal":
        if s.last:
            return pick(rng.choice(LastMove(s).best(uniform(s.theirs))))
        return pick(rng.choice(s.mine))
    if level == "hard":
        if s.last:
            model = OpponentModel(past_last_moves(view))
            return pick(rng.choice(LastMove(s).best(model.predict(s), thrift=0.05)))
        if len(s.symbols) == s.m - 2:
            return pick(_next_to_last(view, s, OpponentModel(past_last_moves(view))))
        answer = _answer_ticket(s)
        return pick(answer if answer is not None else _middle(s))
    raise ValueError(f"Unknown level {level!r}.")
