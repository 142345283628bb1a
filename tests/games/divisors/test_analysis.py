"""The Numerical Card Game's analysis (cogs/divisors/analysis.py): each shown card judged with
hindsight against the card the other player showed, checked here against RULES.md's table written
out again; a pick never shown (its pairing called off by a drop) kept hidden."""

from __future__ import annotations

import random
from math import gcd

from bot.analysis import GameRecord, Review
from bot.jsontypes import JSONObject
from cogs.divisors import rules
from cogs.divisors.analysis import analyse

Log = list[tuple[int, JSONObject]]


def points(a: int, b: int) -> tuple[int, int]:
    """RULES.md's table, again."""
    if a == b:
        return 2, 2
    if a == 1 or b == 1:
        return (2, 0) if a == 1 else (0, 2)
    if b % a == 0:
        return 2, 0
    if a % b == 0:
        return 0, 2
    return (1, 1) if gcd(a, b) > 1 else (0, 0)


def review_of(n: int, m: int, log: Log) -> Review:
    return analyse(GameRecord("divisors", n, {"m": m}, 0, tuple(log)), 8.0)


def test_every_shown_card_is_judged_against_the_other_card_with_hindsight() -> None:
    for n, m, seed in ((2, 5, 1), (3, 6, 2), (4, 8, 3)):
        state, rng, log = rules.new_game(n, {"m": m}, 0), random.Random(seed), []
        piles: dict[int, tuple[int, ...]] = {}
        while rules.to_act(state):
            seat = min(rules.to_act(state))
            action = rng.choice([a for a in rules.legal_actions(state, seat) if a["type"] == "pick"])
            piles[len(log) + 1] = state.fresh[seat]
            log.append((seat, action))
            state = rules.apply(state, seat, action)
        review = review_of(n, m, log)
        assert [r.index for r in review.moves] == list(range(1, len(log) + 1))
        # Each pairing: the two picks of the seats it paired, in the order the log has them.
        for move in review.moves:
            assert move.basis == "hindsight" and not move.exact and move.verdict != "blunder"
        state = rules.new_game(n, {"m": m}, 0)
        open_picks: dict[int, int] = {}
        for i, (seat, action) in enumerate(log, start=1):
            open_picks[seat] = i
            state = rules.apply(state, seat, action)
            for event in state.events:
                if isinstance(event, rules.Resolved) and event.result.cards is not None:
                    (s0, s1), (c0, c1) = event.result.seats, event.result.cards
                    for mover, card, other in ((s0, c0, c1), (s1, c1, c0)):
                        move = review.moves[open_picks.pop(mover) - 1]
                        pile = piles[move.index]
                        outcomes = {c: points(c, other)[0] - points(c, other)[1] for c in pile}
                        best, got = max(outcomes.values()), outcomes[card]
                        assert (move.value_before, move.value_after) == (best, got)
                        assert move.verdict == {0: "best", 2: "inaccuracy", 4: "mistake"}[best - got]
                        assert all(outcomes[b["card"]] == best for b in move.better)


def test_a_pick_whose_pairing_was_called_off_stays_hidden() -> None:
    # Three players, m = 4: round one pairs seats 2-3 (seat 1 sits out); seat 2 picks 3, seat 3 drops.
    log: Log = [(1, {"type": "pick", "card": 3}), (2, {"type": "drop"})]
    review = review_of(3, 4, log)
    assert review.moves[0].action == {"type": "pick", "hidden": True}
    assert review.moves[0].verdict == "unknown" and review.moves[1].action == {"type": "drop"}
    assert "3" not in str(review.to_dict()["moves"][0]["action"])
