"""Numbers To Number's analysis (cogs/numbers/analysis.py): each pick judged with hindsight, checked
here by brute force (every number the mover still had, the round rescored with the rules' own D),
never a blunder, and a pick never revealed kept hidden."""

from __future__ import annotations

import random

from bot.analysis import GameRecord, Review
from bot.jsontypes import JSONObject
from cogs.numbers import rules
from cogs.numbers.analysis import analyse

Log = list[tuple[int, JSONObject]]


def random_game(m: int, seed: int) -> Log:
    state, rng, log = rules.new_game(2, {"m": m}, 0), random.Random(seed), []
    while rules.to_act(state):
        seat = min(rules.to_act(state))
        action = rng.choice(rules.legal_actions(state, seat))
        log.append((seat, action))
        state = rules.apply(state, seat, action)
    return log


def margin(moves: list[tuple[int, int]], seat: int) -> int:
    symbols = "".join("1" if a > b else "0" if a < b else "_" for a, b in moves)
    d = set(rules.decode_list(symbols))
    mine = sum(1 for mv in moves if mv[seat] in d)
    theirs = sum(1 for mv in moves if mv[1 - seat] in d)
    return mine - theirs


def review_of(m: int, log: Log) -> Review:
    return analyse(GameRecord("numbers", 2, {"m": m}, 0, tuple(log)), 8.0)


def test_every_pick_is_judged_with_hindsight_as_brute_force_finds() -> None:
    for m, seed in ((3, 1), (3, 2), (4, 3), (5, 4)):
        log = random_game(m, seed)
        review = review_of(m, log)
        assert review.scale == "points" and review.notes
        assert [r.index for r in review.moves] == list(range(1, len(log) + 1))
        played = [[a["number"] for s, a in log if s == seat] for seat in (0, 1)]
        pairs = [(played[0][k], played[1][k]) for k in range(len(played[0]))]
        picks = {seat: iter([i for i, (s, _) in enumerate(log, start=1) if s == seat]) for seat in (0, 1)}
        index = {(k, seat): next(picks[seat]) for k in range(len(pairs)) for seat in (0, 1)}
        for k, pair in enumerate(pairs):
            start = k - k % m
            round_moves = pairs[start : start + m]
            j = k - start
            for seat in (0, 1):
                move = review.moves[index[(k, seat)] - 1]
                free = set(range(1, 2**m)) - set(played[seat]) | {pair[seat]}
                outcomes = {}
                for x in free:
                    probe = list(round_moves)
                    probe[j] = (x, pair[1]) if seat == 0 else (pair[0], x)
                    outcomes[x] = margin(probe, seat)
                best, got = max(outcomes.values()), outcomes[pair[seat]]
                assert (move.value_before, move.value_after) == (best, got), (m, seed, k, seat)
                lost = best - got
                assert move.verdict == ("best", "good", "inaccuracy")[lost] if lost < 3 else "mistake"
                assert move.basis == "hindsight" and not move.exact
                assert all(outcomes[b["number"]] == best for b in move.better)
                assert bool(move.better) == (lost > 0)
        assert all(r.verdict != "blunder" for r in review.moves)


def test_a_pick_never_revealed_stays_hidden_and_unknown() -> None:
    state = rules.new_game(2, {"m": 3}, 0)
    log: Log = [
        (0, {"type": "pick", "number": 5}),
        (1, {"type": "pick", "number": 2}),
        (0, {"type": "pick", "number": 6}),
    ]
    log.append((1, {"type": "forfeit"}))
    for seat, action in log[:3]:
        state = rules.apply(state, seat, action)
    review = review_of(3, log)
    assert [m.verdict for m in review.moves] == ["unknown"] * 4  # the round never finished
    assert review.moves[0].action == {"type": "pick", "number": 5}  # revealed with bob's 2
    assert review.moves[2].action == {"type": "pick", "hidden": True}  # 6 was never shown
    assert "6" not in str(review.to_dict()["moves"][2])
