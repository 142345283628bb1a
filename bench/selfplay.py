"""Seeded games of computer players, for the benchmarks that need long real games (replays, analysis)."""

from __future__ import annotations

import random

from bot.jsontypes import JSONObject
from bot.registry import RULES, choose
from bot.rules import play

Moves = tuple[tuple[int, JSONObject], ...]


def longest(
    kind: str, players: int, options: dict[str, int], seeds: int, level: str = "normal"
) -> tuple[int, Moves]:
    """The longest of ``seeds`` games of computer players of ``level``: its seed and its moves
    ((seat, action as logged), in order)."""
    rules = RULES[kind]
    best: list[tuple[int, JSONObject]] = []
    best_seed = 0
    for seed in range(seeds):
        state = rules.new_game(players, options, seed)
        rng = random.Random(seed)
        moves = []
        while rules.outcome(state) is None:
            seat = min(rules.to_act(state))
            action = choose(kind, rules.view_for(state, seat), level, rng)
            state = play(rules, state, seat, action)
            moves.append((seat, action))
        if len(moves) > len(best):
            best, best_seed = moves, seed
    return best_seed, tuple(best)
