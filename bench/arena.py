"""The arena the strength benchmarks share: whole games between pure players, and win shares with
confidence intervals.

A *policy* is ``policy(view, rng) -> action JSON``: it sees only ``rules.view_for(state, seat)`` of its
own seat. `play` runs one game to its end and returns each seat's share of the win (a win 1, a tie
split evenly, a loss 0). `Cell` sums the shares of one line of a table; `report` prints the table.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.registry import rules_for
from bot.rules import play as apply_action

Policy = Callable[[Any, random.Random], dict[str, Any]]

MAX_MOVES = 20_000


def timed(
    choose: Callable[[Any, str, random.Random], dict[str, Any]], level: str, times: list[float]
) -> Policy:
    """A player's ``choose`` at ``level`` as a policy, adding each decision's process time to ``times``."""

    def policy(view: Any, rng: random.Random) -> dict[str, Any]:
        started = time.process_time()
        action = choose(view, level, rng)
        times.append(time.process_time() - started)
        return action

    return policy  # a guard: every game here ends long before


def play(game: str, policies: Sequence[Policy], options: Mapping[str, int], seed: int) -> tuple[float, ...]:
    """One game of ``game`` with one policy per seat (in seat order); each seat's share of the win."""
    rules = rules_for(game)
    rng = random.Random(seed)
    state = rules.new_game(len(policies), dict(options), rng.getrandbits(63))
    for _ in range(MAX_MOVES):
        if rules.outcome(state) is not None:
            break
        seat = min(rules.to_act(state))  # simultaneous choices: each sees only its own view anyway
        action = policies[seat](rules.view_for(state, seat), rng)
        state = apply_action(rules, state, seat, action)
    else:
        raise RuntimeError(f"a {game} game did not end in {MAX_MOVES} moves")
    outcome = rules.outcome(state)
    assert outcome is not None
    winners = tuple(outcome.winners)
    return tuple(
        (1.0 / len(winners) if s in winners else 0.0) if winners else 1.0 / len(policies)
        for s in range(len(policies))
    )


def wilson(share: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson interval of a win share measured over ``n`` games (ties counted as halves)."""
    if n == 0:
        return 0.0, 1.0
    p = share / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class Cell:
    """One line of a strength table: the shares one side won over ``games`` games, and its target
    (a share, or None)."""

    label: str
    target: float | None = None
    share: float = 0.0
    games: int = 0

    def add(self, share: float) -> None:
        self.share += share
        self.games += 1

    @property
    def rate(self) -> float:
        return self.share / self.games if self.games else 0.0

    @property
    def met(self) -> bool | None:
        return None if self.target is None else self.rate >= self.target


def report(title: str, cells: Sequence[Cell]) -> None:
    """Print the table: win share, 95% interval, games, target and whether it is met."""
    print(f"\n{title}")
    print(f"  {'':52} {'share':>6} {'95% interval':>15} {'games':>6} {'target':>7}")
    for c in cells:
        low, high = wilson(c.share, c.games)
        target = "" if c.target is None else f"{c.target:.0%}"
        verdict = "" if c.met is None else ("met" if c.met else "MISS")
        print(f"  {c.label:52} {c.rate:6.1%} {low:6.1%}-{high:6.1%} {c.games:6} {target:>7} {verdict}")
