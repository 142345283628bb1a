"""The Procession computer player: legal, no peeking, reproducible, bounded, and exact where it claims.

Whole games with the player in every seat; the exact solver is checked against a plain minimax on every
reachable position of n <= 6, and `hard` keeps every won position won there.
"""

from __future__ import annotations

import random
from functools import cache

import pytest

from bot.games import play
from bot.games import procession as rules
from bot.players import LEVELS
from bot.players import procession as player


def play_out(n: int, levels: list[str], seed: int) -> rules.State:
    rng = random.Random(seed)
    state = rules.new_game(len(levels), {"n": n}, 0)
    while not state.finished:
        seat = state.turn
        view = rules.view_for(state, seat)
        action = player.choose(view, levels[seat], random.Random(rng.getrandbits(32)))
        assert action in rules.legal_actions(state, seat)
        state = play(rules, state, seat, action)
    return state


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_plays_whole_games_in_every_seat(level: str) -> None:
    rng = random.Random(level)
    for i in range(24):
        k = 2 + i % 3
        n = rng.choice((2, 3, 5, 6, 7, 8, 9) if level == "hard" else range(2, 13))
        levels = [rng.choice(("easy", "normal")) for _ in range(k)]
        levels[i % k] = level
        state = play_out(n, levels, seed=i)
        assert rules.outcome(state) is not None


def test_forfeits_leave_legal_choices() -> None:
    state = rules.new_game(3, {"n": 7}, 0)
    state = play(rules, state, 0, {"type": "flip", "position": 2})
    state = rules.forfeit(state, 2)
    while not state.finished:
        action = player.choose(rules.view_for(state, state.turn), "hard", random.Random(1))
        state = play(rules, state, state.turn, action)


# ---- exactness on small n ---------------------------------------------------------------------------


@cache
def wins(n: int, row: str, seen: frozenset[tuple[int, ...]]) -> bool:
    """Plain minimax on strings: does the player to move win (two players)?"""
    for p in range(1, n + 1):
        nxt = rules.flip(row, p)
        ms = rules.multiset(nxt)
        if ms not in seen and not wins(n, nxt, seen | {ms}):
            return True
    return False


def reachable(n: int) -> list[rules.State]:
    """Every reachable two-player state of ``n`` (once per history)."""
    out, stack = [], [rules.new_game(2, {"n": n}, 0)]
    while stack:
        state = stack.pop()
        if state.finished:
            continue
        out.append(state)
        stack.extend(play(rules, state, state.turn, a) for a in rules.legal_actions(state, state.turn))
    return out


def random_state(n: int, rng: random.Random) -> rules.State:
    state = rules.new_game(2, {"n": n}, 0)
    for _ in range(rng.randint(0, 12)):
        moves = rules.legal_actions(state, state.turn)
        if not moves or len(moves) == 1:
            break
        state = play(rules, state, state.turn, rng.choice(moves))
    return state


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_hard_keeps_every_won_position_won(n: int) -> None:
    checked = 0
    for state in reachable(n):
        if wins(n, state.row, state.seen):
            action = player.choose(rules.view_for(state, state.turn), "hard", random.Random(0))
            after = play(rules, state, state.turn, action)
            assert after.finished or not wins(n, after.row, after.seen), (state.rows, action)
            checked += 1
    assert checked > 0


def test_solver_agrees_with_plain_minimax() -> None:
    rng = random.Random(5)
    for n in (6, 7, 8):
        g = player._graph(n)
        states = reachable(n) if n == 6 else [random_state(n, rng) for _ in range(60)]
        for state in states:
            _, row, seen = player._position(rules.view_for(state, 0))
            assert player._Solver(g, 10**7).solve(row, seen) == wins(n, state.row, state.seen)


def test_shipped_table_matches_the_solver() -> None:
    g = player._graph(player.TABLE_N)
    table = player._table()
    assert player.TABLE_FILE.stat().st_size < 1_000_000
    rng = random.Random(3)
    deep = [k for k in table if (k & ((1 << 80) - 1)).bit_count() - 1 == player.TABLE_PLIES]
    for key in rng.sample(deep, 3):
        row, seen = key >> 80, key & ((1 << 80) - 1)
        assert (player._winning_move(g, row, seen, 10**7) is not None) == (table[key] != 0)
    # A won entry names a flip into a position the table (or the solver) says is lost.
    for key in rng.sample(sorted(table), 40):
        row, seen = key >> 80, key & ((1 << 80) - 1)
        move = table[key]
        if move:
            nxt = row ^ (1 << (move - 1))
            assert not seen & g.bit[nxt]
            after = table.get(g.key(nxt, seen | g.bit[nxt]))
            if after is None:
                after = int(player._Solver(g, 10**7).solve(nxt, seen | g.bit[nxt]))
            assert after == 0


# ---- no peeking, reproducible, bounded -----------------------------------------------------------------


def test_same_view_same_choice() -> None:
    """Procession has no secrets: the state is public, so every seat's view of it is the same, and the
    choice depends on nothing else (a state rebuilt from its JSON, seen from any seat, gives the same
    choice for the same seed)."""
    for n, players in ((6, 2), (9, 3), (11, 2)):
        state = rules.new_game(players, {"n": n}, 0)
        state = play(rules, state, state.turn, {"type": "flip", "position": 2})
        again = rules.State.from_dict(state.to_dict())
        views = [rules.view_for(s, seat) for s in (state, again) for seat in (*range(players), None)]
        assert all(v == views[0] for v in views)
        for level in LEVELS:
            for seed in range(2):
                choices = {str(player.choose(v, level, random.Random(seed))) for v in views}
                assert len(choices) == 1


def test_reproducible_from_the_seed() -> None:
    rng = random.Random(8)
    for _ in range(12):
        n = rng.randint(6, 10)
        state = rules.new_game(rng.choice((2, 3)), {"n": n}, 0)
        for _ in range(rng.randint(0, 8)):
            if state.finished:
                break
            state = play(rules, state, state.turn, rng.choice(rules.legal_actions(state, state.turn)))
        if state.finished:
            continue
        view = rules.view_for(state, state.turn)
        for level in LEVELS:
            seed = rng.getrandbits(32)
            assert player.choose(view, level, random.Random(seed)) == player.choose(
                view, level, random.Random(seed)
            )


def test_search_is_bounded_in_nodes() -> None:
    g = player._graph(12)
    solver = player._Solver(g, 500)
    with pytest.raises(player._OutOfBudget):
        solver.solve(0, g.bit[0])
    assert len(solver.memo) <= 500
    ex = player._Expecti(g, 3, 500)
    with pytest.raises(player._OutOfBudget):
        ex.value(0, g.bit[0], 0)
    assert len(ex.memo) <= 500


def test_player_count_is_the_tables_less_the_forfeited() -> None:
    # Before anyone has moved twice the history alone could not tell 3 players from more.
    state = rules.new_game(4, {"n": 8}, 0)
    assert player._active_players(rules.view_for(state, state.turn)) == 4
    state = play(rules, state, state.turn, {"type": "flip", "position": 1})
    state = rules.forfeit(state, 3)
    assert player._active_players(rules.view_for(state, state.turn)) == 3
    two = rules.new_game(2, {"n": 8}, 0)
    for p in (1, 2):
        two = play(rules, two, two.turn, {"type": "flip", "position": p})
    assert player._active_players(rules.view_for(two, two.turn)) == 2
