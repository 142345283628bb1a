"""Analysis of a finished Numbers To Number game, move by move (pure; `bot.analysis` has the shapes).

Both players choose each number in secret, at once, so no engine can prove a choice right or wrong
before the other's was known. What can be backed is a judgement **with hindsight**: given every other
number of the round as it was played (the other player's too), which number would have scored the
mover the most in that round. The scale is ``"points"``: ``value_after`` is the round's points margin
the mover got (their points less the other's), ``value_before`` the best margin any other number
they still had (not played before, and not played later in the game) would have got; ``better`` lists
up to `SHOWN` of those numbers, smallest first.

Only the symbol a number writes (larger, smaller or equal to the other's) and whether it is in the
round's D matter, so each move weighs three lists, not every number. Verdicts by the margin lost:
0 ``"best"``, 1 ``"good"``, 2 ``"inaccuracy"``, more ``"mistake"``; never ``"blunder"`` (hindsight
proves no decision wrong). ``exact`` is false and ``basis`` ``"hindsight"``. A pick whose move was
never revealed (the game ended before the other pick) shows as hidden and is ``"unknown"``, as are
forfeits.
"""

from __future__ import annotations

from collections.abc import Sequence

import cogs.numbers.rules as rules
from bot.analysis import GameRecord, MoveReview, Review
from bot.i18n import N_
from bot.jsontypes import JSONMap, JSONObject
from bot.rules import play
from bot.rules.base import forfeit_of

SHOWN = 5  # better numbers listed, at most
NOTE = N_(
    "Numbers To Number: each number is judged with hindsight, against the numbers the round then "
    "held (the other player's included): what another number would have scored in that round."
)


def verdict(lost: int) -> str:
    return "best" if lost <= 0 else "good" if lost == 1 else "inaccuracy" if lost == 2 else "mistake"


def round_margin(moves: Sequence[tuple[int, int]], seat: int) -> int:
    points = rules.RoundRecord.of(tuple(moves)).points
    return points[seat] - points[1 - seat]


def hindsight(
    moves: Sequence[tuple[int, int]], j: int, seat: int, free: set[int]
) -> tuple[int, int, list[int]]:
    """Move ``j`` of a finished round, judged for ``seat``: (the margin it got, the best margin a
    number of ``free`` would have got, those numbers)."""
    actual = round_margin(moves, seat)
    other = moves[j][1 - seat]
    best, numbers = actual, [moves[j][seat]]
    for side in ("larger", "smaller", "equal"):
        if side == "equal":
            candidates = [other] if other in free else []
        else:
            candidates = sorted(x for x in free if (x > other) == (side == "larger") and x != other)
        if not candidates:
            continue
        # Within one side the list is the same; a number in D scores, any other does not.
        probe = list(moves)
        probe[j] = (candidates[0], other) if seat == 0 else (other, candidates[0])
        members = set(rules.RoundRecord.of(tuple(probe)).d)
        scoring = [x for x in candidates if x in members]
        pick = scoring[0] if scoring else candidates[0]
        probe[j] = (pick, other) if seat == 0 else (other, pick)
        margin = round_margin(probe, seat)
        group = scoring if scoring else candidates
        if margin > best:
            best, numbers = margin, list(group)
        elif margin == best:
            numbers += group
    return actual, best, sorted(set(numbers) - {moves[j][seat]})[:SHOWN]


def analyse(record: GameRecord, seconds: float) -> Review:
    del seconds  # a few lists a move: always quick
    state = rules.new_game(record.n_players, record.options, record.seed)
    picks: dict[tuple[int, int, int], int] = {}  # (round, move, seat) -> log index
    revealed: set[int] = set()
    for i, (seat, action) in enumerate(record.moves, start=1):
        if forfeit_of(action) is None:
            picks[(len(state.rounds), len(state.moves), seat)] = i
        state = play(rules, state, seat, action)
        for event in state.events:
            if isinstance(event, rules.Reveal):
                revealed.update(picks.get((event.round, event.move, s), 0) for s in (0, 1))
    played = [set(state.played(0)), set(state.played(1))]
    everything = set(range(1, rules.largest(state.m) + 1))
    judged: dict[int, MoveReview] = {}
    for r, rnd in enumerate(state.rounds):
        for j, pair in enumerate(rnd.moves):
            for seat in (0, 1):
                index = picks[(r, j, seat)]
                free = (everything - played[seat]) | {pair[seat]}
                actual, best, better = hindsight(rnd.moves, j, seat, free)
                judged[index] = MoveReview(
                    index=index, seat=seat, action=_pick(pair[seat]), verdict=verdict(best - actual),
                    value_before=float(best), value_after=float(actual),
                    better=tuple(_pick(x) for x in better) if best > actual else (), basis="hindsight",
                )  # fmt: skip
    moves = tuple(
        judged.get(i) or _unjudged(i, seat, action, i in revealed)
        for i, (seat, action) in enumerate(record.moves, start=1)
    )
    return Review(kind=rules.NAME, scale="points", moves=moves, notes=(NOTE,))


def _pick(number: int) -> JSONObject:
    return rules.Pick(number).to_json()


def _unjudged(index: int, seat: int, action: JSONMap, revealed: bool) -> MoveReview:
    """A forfeit, or a pick of a round the game did not finish: unknown (hidden unless revealed)."""
    shown: JSONObject = dict(action) if revealed or forfeit_of(action) else {"type": "pick", "hidden": True}
    return MoveReview(index=index, seat=seat, action=shown, verdict="unknown")
