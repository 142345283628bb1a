"""The Lines By The Dots computer: legal lines at every level in whole games (every seat, 2-4 players,
fallbacks, skips and forfeits included), choices that depend only on the view (the game has no
secrets: the view is the position, so states built differently that give the same view give the same
choice), reproducible from the seed, searches bounded in nodes, and exact play where the search sees
the end."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest

from bot.players import LEVELS
from bot.registry import choose as choose_for
from bot.rules import play
from cogs.dots import player as P
from cogs.dots import rules as T

GAMES = {"easy": 30, "normal": 16, "hard": 5}


def choose(state: T.State, level: str, seed: int) -> dict[str, Any]:
    return P.choose(T.view_for(state, state.turn), level, random.Random(seed))


def is_fallback(state: T.State) -> bool:
    owed = T.owed(state)
    return owed is not None and owed.fallback


def random_game(rng: random.Random, size: int, players: int, lines: int) -> T.State:
    """A position after up to ``lines`` random lines (or the end)."""
    state = T.new_game(players, {"size": size}, 0)
    for _ in range(lines):
        if state.finished:
            break
        state = play(T, state, state.turn, rng.choice(T.legal_actions(state, state.turn)))
    return state


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_plays_whole_games_legally(level: str) -> None:
    rng = random.Random(f"dots-{level}")
    for g in range(GAMES[level]):
        size = rng.choice((3, 4, 5, 6)) if level != "hard" else rng.choice((3, 4, 5))
        players = rng.choice((2, 2, 3, 4))
        computers = {g % players} if g % 3 else set(range(players))  # one seat, or every seat
        state = T.new_game(players, {"size": size}, 0)
        while not state.finished:
            seat = state.turn
            if seat in computers:
                action = choose_for("dots", T.view_for(state, seat), level, rng)
                assert action in T.legal_actions(state, seat)
            elif players > 2 and rng.random() < 0.01:
                state = T.forfeit(state, seat)  # the computer plays on with a seat out
                continue
            else:
                action = rng.choice(T.legal_actions(state, seat))
            state = play(T, state, seat, action)
        assert T.outcome(state) is not None


def test_fallback_first_line_and_lone_line() -> None:
    # The first line: any dot, with "from".
    first = T.new_game(2, {"size": 4}, 0)
    for level in LEVELS:
        action = choose(first, level, 1)
        assert action["from"] is not None and action in T.legal_actions(first, 0)
    # Fallbacks (no line from the current dot: the line names its start), from random games.
    rng = random.Random(9)
    fallbacks = 0
    while fallbacks < 6:
        s = first
        while not s.finished and not is_fallback(s):
            s = play(T, s, s.turn, rng.choice(T.legal_actions(s, s.turn)))
        if s.finished:
            continue
        fallbacks += 1
        for level in LEVELS:
            action = choose(s, level, fallbacks)
            assert action in T.legal_actions(s, s.turn)
            assert action["from"] is not None


def test_same_view_same_choice() -> None:
    """No peeking: the choice is a function of the view. Dots has no secrets, so states that give the
    same view are the same position built differently: from the move log, from stored JSON, with the
    non-virgin dots' set built in another order; and every seat's view of them is the same."""
    rng = random.Random(7)
    for i in range(12):
        state = random_game(rng, rng.choice((4, 5, 6)), rng.choice((2, 3)), rng.randrange(0, 20))
        if state.finished:
            continue
        twins = [
            T.State.from_dict(state.to_dict()),
            replace(state, marked=frozenset(sorted(state.marked, reverse=True))),
        ]
        for level in LEVELS:
            want = choose(state, level, i)
            for twin in twins:
                assert T.view_for(twin, twin.turn) == T.view_for(state, state.turn)
                assert choose(twin, level, i) == want
            for seat in range(state.n_players):  # the public view and any seat's are the same
                view = T.view_for(state, seat)
                assert P.choose(view, level, random.Random(i)) == want


def test_reproducible_from_the_seed() -> None:
    rng = random.Random(11)
    varied: set[str] = set()
    for i in range(8):
        state = random_game(rng, 5, 2, rng.randrange(0, 12))
        if state.finished:
            continue
        for level in LEVELS:
            a = choose(state, level, 1000 + i)
            assert choose(state, level, 1000 + i) == a
        varied.update(str(choose(state, "easy", seed)) for seed in range(6))
    assert len(varied) > 1  # the seed does choose among lines


def test_search_is_bounded_in_nodes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Searches stop at their node budget (never a clock): the biggest positions count no more."""
    seen: list[tuple[str, int]] = []
    original = P._search

    class Counting(P._Search):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            seen.append(("", 0))

        def value(self, *args: Any, **kwargs: Any) -> int:
            seen[-1] = (str(self.budget), self.nodes + 1)
            return super().value(*args, **kwargs)

    monkeypatch.setattr(P, "_Search", Counting)
    rng = random.Random(3)
    for size in (8, 10):
        state = random_game(rng, size, 2, 6)
        for level in ("normal", "hard"):
            original(T.view_for(state, state.turn), level, random.Random(0))
    first = T.new_game(2, {"size": 10}, 0)
    original(T.view_for(first, 0), "hard", random.Random(0))
    assert seen
    for budget, nodes in seen:
        assert budget and nodes <= int(budget) + 1


def exact(state: T.State, me: int) -> int:
    """The score difference (me minus the other) of perfect play from here, two players."""
    if state.finished:
        return state.scores[me] - state.scores[1 - me]
    values = [exact(play(T, state, state.turn, a), me) for a in T.legal_actions(state, state.turn)]
    return max(values) if state.turn == me else min(values)


def test_hard_plays_endgames_exactly() -> None:
    """Where the search reaches the end (a few virgin dots left), hard's line keeps the best score
    difference that perfect play achieves (brute force over the rules themselves)."""
    rng = random.Random(5)
    checked = 0
    while checked < 8:
        pos = T.new_game(2, {"size": 4}, 0)
        while not pos.finished and 16 - len(pos.marked) > 7:
            pos = play(T, pos, pos.turn, rng.choice(T.legal_actions(pos, pos.turn)))
        if pos.finished or 16 - len(pos.marked) < 3:
            continue
        me = pos.turn
        action = choose(pos, "hard", checked)
        assert exact(play(T, pos, me, action), me) == exact(pos, me)
        checked += 1
