"""Up-Down-Stay's analysis (cogs/updown/analysis.py): nothing can be backed, so every move is
"unknown", and nothing secret shows: a prediction replaced before the placing began is hidden."""

from __future__ import annotations

import random

from bot.analysis import GameRecord
from bot.jsontypes import JSONObject
from cogs.updown import rules
from cogs.updown.analysis import analyse


def test_every_move_is_unknown_and_only_revealed_predictions_show() -> None:
    state, rng = rules.new_game(2, {}, 4), random.Random(4)
    log: list[tuple[int, JSONObject]] = [(0, {"type": "predict", "letters": "SSS"})]  # replaced below
    log.append((0, {"type": "predict", "letters": "ud"}))  # a prediction may be replaced before the placing
    for seat, action in log:
        state = rules.apply(state, seat, action)
    while rules.to_act(state):
        seat = min(rules.to_act(state))
        actions = rules.legal_actions(state, seat)
        action = (
            {"type": "predict", "letters": "ud"} if actions[0]["type"] == "predict" else rng.choice(actions)
        )
        log.append((seat, action))
        state = rules.apply(state, seat, action)
    review = analyse(GameRecord("updown", 2, {}, 4, tuple(log)), 8.0)
    assert [m.index for m in review.moves] == list(range(1, len(log) + 1))
    assert {m.verdict for m in review.moves} == {"unknown"} and review.notes
    assert review.moves[0].action == {"type": "predict", "hidden": True}  # "SSS" was never revealed
    assert "SSS" not in str(review.to_dict())
    revealed = {p.prediction for deal in state.history for p in deal.players}
    shown = [m.action["letters"] for m in review.moves if "letters" in m.action]
    assert shown and set(shown) <= revealed
    placed = [m.action for m in review.moves if m.action["type"] == "play"]
    assert len(placed) == sum(len(d.row) for d in state.history)
