"""Points, tie-breaks and standings (`bot.events.scoring`), each checked against a count by hand."""

from __future__ import annotations

from fractions import Fraction

from bot.events.scoring import (
    BUCHHOLZ,
    SONNEBORN_BERGER,
    Result,
    forfeit_result,
    games_left,
    points,
    standings,
    tie_breaks,
)

HALF = Fraction(1, 2)


def won(a: int, b: int) -> Result:
    """``a`` beat ``b`` (``a`` moved first)."""
    return Result((a, b), frozenset({a}))


def drew(a: int, b: int) -> Result:
    return Result((a, b), frozenset({a, b}))


def test_a_win_is_one_a_shared_win_a_half_a_loss_nothing_a_bye_one() -> None:
    assert won(1, 2).points() == {1: 1, 2: 0}
    assert drew(1, 2).points() == {1: HALF, 2: HALF}
    assert Result((1, 2, 3), frozenset({1, 3})).points() == {1: HALF, 2: 0, 3: HALF}  # shared at a table
    assert Result((1, 2), frozenset()).points() == {1: 0, 2: 0}  # lost by both (a cancelled game)
    assert points([1, 2, 3], [won(1, 2)], byes=[3]) == {1: 1, 2: 0, 3: 1}
    assert forfeit_result((1, 2), withdrawn=2).points() == {1: 1, 2: 0}


# A round robin of four: 1 beats 2 and 3 and loses to 4; 2 and 3 draw; 2 and 3 beat 4.
ROUND_ROBIN = [won(1, 2), won(1, 3), won(4, 1), drew(2, 3), won(2, 4), won(3, 4)]


def test_sonneborn_berger_sums_the_beaten_and_half_the_drawn_opponents_points() -> None:
    final = points([1, 2, 3, 4], ROUND_ROBIN, [])
    assert final == {1: 2, 2: Fraction(3, 2), 3: Fraction(3, 2), 4: 1}
    sb = tie_breaks(SONNEBORN_BERGER, [1, 2, 3, 4], ROUND_ROBIN, [])
    assert sb == {
        1: Fraction(3, 2) + Fraction(3, 2),  # beat 2 and 3
        2: HALF * Fraction(3, 2) + 1,  # drew 3, beat 4
        3: HALF * Fraction(3, 2) + 1,
        4: 2,  # beat 1
    }


def test_buchholz_sums_the_opponents_points_and_counts_an_unplayed_game_as_ones_own() -> None:
    bh = tie_breaks(BUCHHOLZ, [1, 2, 3, 4], ROUND_ROBIN, [])
    assert bh == {1: 4, 2: Fraction(9, 2), 3: Fraction(9, 2), 4: 5}
    # A Swiss of three over two rounds: 1 beats 2, 3 has a bye; then 3 beats 1, 2 has a bye.
    results = [won(1, 2), won(3, 1)]
    byes = [3, 2]
    final = points([1, 2, 3], results, byes)
    assert final == {1: 1, 2: 1, 3: 2}
    bh = tie_breaks(BUCHHOLZ, [1, 2, 3], results, byes)
    assert bh == {1: 1 + 2, 2: 1 + 1, 3: 2 + 1}  # a bye: an opponent as strong as oneself
    # A forfeit (unplayed) counts the same way, for both; Sonneborn-Berger leaves it out.
    with_forfeit = [won(1, 2), forfeit_result((3, 2), withdrawn=2)]
    bh = tie_breaks(BUCHHOLZ, [1, 2, 3], with_forfeit, [])
    assert bh == {1: 0, 2: 1 + 0, 3: 1}
    assert tie_breaks(SONNEBORN_BERGER, [1, 2, 3], with_forfeit, [])[3] == 0


def test_standings_rank_by_points_then_tie_break_and_share_a_rank_when_equal() -> None:
    table = standings([1, 2, 3, 4], ROUND_ROBIN, [], SONNEBORN_BERGER)
    assert [(s.rank, s.player) for s in table] == [(1, 1), (2, 2), (2, 3), (4, 4)]
    assert [s.points for s in table] == [2, Fraction(3, 2), Fraction(3, 2), 1]
    # Equal points, a tie-break apart: the higher tie-break first.
    table = standings([1, 2, 3], [won(1, 2), won(2, 3), won(3, 1)], [], SONNEBORN_BERGER)
    assert {s.rank for s in table} == {1}  # a cycle: all equal


def test_games_left_counts_scheduled_games_and_unpaired_rounds_but_not_the_withdrawn() -> None:
    left = games_left([1, 2, 3, 4], pending=[(1, 2), (3, 4), (1, 3)], rounds_left=1, withdrawn=[4])
    assert left == {1: 3, 2: 2, 3: 3, 4: 0}
    table = standings([1, 2], [], [], BUCHHOLZ, pending=[(1, 2)], withdrawn=[2])
    assert [(s.player, s.games_left, s.withdrawn) for s in table] == [(1, 1, False), (2, 0, True)]


def test_the_core_is_pure() -> None:
    """pairing.py and scoring.py import nothing but the standard library and each other."""
    import ast
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "bot" / "events"
    for name in ("pairing.py", "scoring.py"):
        tree = ast.parse((root / name).read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                modules = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                modules = [node.module or ""]
            else:
                continue
            for module in modules:
                top = module.split(".")[0]
                assert top in sys.stdlib_module_names or module in ("bot.events.pairing",), (name, module)
