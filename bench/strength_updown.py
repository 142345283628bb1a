"""Strength of the Up-Down-Stay computer player (issue 14): win shares against the baselines, the
levels head to head, and the time of one decision per level.

    python bench/strength_updown.py [--quick] [--games N]

Baselines (policies ``policy(view, rng) -> action`` that see only their own view):
- ``random``: a random prediction of 1 to 6 letters, then a random card each turn.
- ``zigzag``: predicts an alternating string (UDUD... or DUDU...) of 4 or 5 letters, then steers its
  cards into zigzags: each card reverses the last change (down after an up, up after a down), with
  the most extreme card that does so (the lowest card below, the highest above), so the next reversal
  is easy too; when it cannot reverse, the card that sets up the next reversal best.

The computer's seat rotates over the games. Targets: ``hard`` among zigzag players at least 1.5x the
fair share (2, 3 and 4 players); ``hard`` beats ``normal`` and ``normal`` beats ``easy`` head to head.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.arena import Cell, Policy, play, report
from cogs.updown import player
from cogs.updown.rules import Play, Predict, View, card_rank

GAME = "updown"
FULL_GAMES = 1000
QUICK_GAMES = 60

TIMES: dict[str, list[float]] = {level: [] for level in ("easy", "normal", "hard")}


def computer(level: str) -> Policy:
    """The computer player at ``level``, timing each decision."""

    def policy(view: Any, rng: random.Random) -> dict[str, Any]:
        t0 = time.perf_counter()
        action = player.choose(view, level, rng)
        TIMES[level].append(time.perf_counter() - t0)
        return action

    return policy


def random_player(view: View, rng: random.Random) -> dict[str, Any]:
    if view.phase == "predict":
        n = rng.randint(1, min(6, view.max_letters))
        return Predict("".join(rng.choice("UDS") for _ in range(n))).to_json()
    return Play(rng.choice(sorted({card_rank(c) for c in view.hand or ()}))).to_json()


def zigzag_player(view: View, rng: random.Random) -> dict[str, Any]:
    if view.phase == "predict":
        first, length = rng.choice("UD"), rng.choice((4, 5))
        return Predict(player.zigzag(length, first)[: view.max_letters]).to_json()
    ranks = sorted({card_rank(c) for c in view.hand or ()})
    if not view.row:
        return Play(rng.choice((ranks[0], ranks[-1]))).to_json()
    last = card_rank(view.row[-1])
    made = view.changes[-1:] or ("D" if last > 7 else "U")
    if made == "S":
        made = "D" if last > 7 else "U"
    below = [r for r in ranks if r < last]
    above = [r for r in ranks if r > last]
    if made == "U":  # reverse: go down, as low as possible
        return Play(below[0] if below else ranks[-1]).to_json()
    return Play(above[-1] if above else ranks[0]).to_json()


BASELINES: dict[str, Policy] = {"random": random_player, "zigzag": zigzag_player}


def run_cell(cell: Cell, hero: Policy, others: Sequence[Policy], games: int, seed: int) -> Cell:
    """``games`` games of ``hero`` among ``others``, the hero's seat rotating."""
    players = len(others) + 1
    for g in range(games):
        seat = g % players
        policies = [*others[:seat], hero, *others[seat:]]
        cell.add(play(GAME, policies, {}, seed * 1_000_003 + g)[seat])
    return cell


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def main(argv: Sequence[str]) -> None:
    games = QUICK_GAMES if "--quick" in argv else FULL_GAMES
    if "--games" in argv:
        games = int(argv[argv.index("--games") + 1])
    cells: list[Cell] = []
    plan: list[tuple[Cell, Policy, list[Policy]]] = []
    for name, baseline in BASELINES.items():
        for n in (2, 3, 4):
            target = 1.5 / n if name == "zigzag" else None
            label = f"hard among {n - 1} {name} ({n} players; fair {1 / n:.0%})"
            plan.append((Cell(label, target), computer("hard"), [baseline] * (n - 1)))
    for n in (2, 3, 4):
        label = f"normal among {n - 1} zigzag ({n} players; fair {1 / n:.0%})"
        plan.append((Cell(label, None), computer("normal"), [zigzag_player] * (n - 1)))
    head: list[tuple[str, str]] = [("hard", "normal"), ("normal", "easy"), ("hard", "easy")]
    for strong, weak in head:
        label = f"{strong} vs {weak} (2 players)"
        plan.append((Cell(label, 0.5), computer(strong), [computer(weak)]))
    for i, (cell, hero, others) in enumerate(plan):
        cells.append(run_cell(cell, hero, others, games, seed=i + 1))
    report(f"Up-Down-Stay strength ({games} games per cell)", cells)
    print("\n  decision time per level (predictions and cards)")
    for level, times in TIMES.items():
        p50, p99 = percentile(times, 0.5) * 1000, percentile(times, 0.99) * 1000
        print(f"  {level:8} p50 {p50:7.3f} ms   p99 {p99:7.3f} ms   ({len(times)} decisions)")


if __name__ == "__main__":
    main(sys.argv[1:])
