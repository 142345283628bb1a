"""Up-Down-Stay rules: the seed's example, scoring properties, whole games, playoffs, forfeits,
JSON round trips, bad input, and that no view leaks a hand card or a prediction before the reveal."""

from __future__ import annotations

import dataclasses
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.errors import BadInput, IllegalMove, NotYourTurn
from cogs.updown import rules as u
from tests.rules.helpers import jsonable, round_trip, unchanged_after

SEED_ROW = [2, 6, 5, 4, 7, 9, 7, 1, 2, 2, 5, 8]


# ---- helpers --------------------------------------------------------------------------------------


def hand_built(
    hands: dict[int, list[str]],
    n_players: int = 2,
    predictions: dict[int, str] | None = None,
    players: tuple[int, ...] | None = None,
    deal: int = 0,
) -> u.State:
    """A state in the predict phase with the given (small) hands, validated by from_dict."""
    preds = predictions or {}
    state = u.State(
        n_players=n_players,
        seed=0,
        deal=deal,
        players=players if players is not None else tuple(range(n_players)),
        hands=tuple(u.sort_cards(hands.get(s, [])) for s in range(n_players)),
        leftover=(),
        predictions=tuple(preds.get(s) for s in range(n_players)),
        phase="predict",
        turn=0,
    )
    return u.State.from_dict(state.to_dict())


def seed_example_state() -> u.State:
    """Two players whose alternating plays give the seed's row 2,6,5,4,7,9,7,1,2,2,5,8."""
    return hand_built({0: ["2C", "5C", "7C", "7D", "2D", "5D"], 1: ["6C", "4C", "9C", "AC", "2H", "8C"]})


def play_ranks(state: u.State, ranks: list[int]) -> u.State:
    for rank in ranks:
        state = u.apply(state, state.turn, {"type": "play", "rank": rank})
    return state


def place_one(state: u.State, seat: int) -> u.State:
    """``seat`` places its lowest card (``legal_actions`` also lists predictions while the row is
    empty)."""
    plays = [a for a in u.legal_actions(state, seat) if a["type"] == "play"]
    assert plays
    return u.apply(state, seat, plays[0])


def scrambled(state: u.State, viewer: int | None) -> u.State:
    """The same game with every secret the viewer must not see replaced: the other seats' hands
    and the set-aside cards dealt differently (same sizes), the other predictions rewritten."""
    two_player_deal = len(state.players) == 2 and viewer in state.active
    hidden = [s for s in range(state.n_players) if s != viewer]
    predictions = list(state.predictions)
    for s in hidden:
        p = predictions[s]
        if p is not None:
            predictions[s] = "S" if p != "S" else "DD"
    hands = list(state.hands)
    leftover = state.leftover
    if not two_player_deal:  # a two-player deal hides no cards from its players
        pool = [c for s in hidden for c in hands[s]] + list(leftover)
        random.Random(len(pool)).shuffle(pool)
        for s in hidden:
            k = len(hands[s])
            hands[s], pool = u.sort_cards(pool[:k]), pool[k:]
        leftover = u.sort_cards(pool)
    return dataclasses.replace(state, hands=tuple(hands), predictions=tuple(predictions), leftover=leftover)


def assert_no_leak(state: u.State) -> None:
    """No view shows another seat's cards or prediction (or the set-aside cards) before the reveal."""
    for viewer in (None, *range(state.n_players)):
        view = u.view_for(state, viewer)
        # Structural: changing what the viewer must not know changes nothing in the view.
        assert u.view_for(scrambled(state, viewer), viewer) == view
        # Textual: the current secrets appear nowhere (past deals are public and may share cards).
        data = jsonable(view)
        del data["history"], data["last_deal"]
        # Events up to a "playoff" are about the deal just revealed, dealt from another shuffle.
        types = [e["type"] for e in data["events"]]
        if "playoff" in types:
            data["events"] = data["events"][types.index("playoff") + 1 :]
        text = json.dumps(data)
        in_play = state.phase != "over"
        secret_cards = list(state.leftover) if in_play else []
        own = viewer is not None and viewer in state.active
        for s in range(state.n_players):
            if s == viewer or (own and len(state.players) == 2):
                continue
            secret_cards += state.hands[s]
        for card in secret_cards:
            assert f'"{card}"' not in text, (viewer, card)
        if viewer is None:
            assert view.hand is None and view.prediction is None and view.opponent_hand is None
        for e in view.events:
            if isinstance(e, u.Predicted):
                assert set(e.to_dict()) == {"type", "seat", "replaced"}
            if isinstance(e, u.Reveal):
                assert e.to_dict() == {"type": "reveal", **view.last_deal.to_dict()}  # type: ignore[union-attr]


def random_letters(rng: random.Random, state: u.State) -> str:
    k = rng.randint(1, min(state.max_letters, rng.choice((2, 3, 5, 12))))
    return "".join(rng.choice("UDS") for _ in range(k))


def playout(n_players: int, seed: int, forfeits: bool = False, same_prediction: str | None = None) -> u.State:
    """A random game to its end, checking the round trip and the views at every step."""
    rng = random.Random(seed)
    state = u.new_game(n_players, {}, seed)
    for _ in range(5000):
        assert_no_leak(state)
        state = round_trip(state)
        if u.outcome(state) is not None:
            return state
        assert u.to_act(state)
        if forfeits and rng.random() < 0.01:
            state = u.forfeit(state, rng.randrange(n_players))
            continue
        if state.phase == "predict":
            # Sometimes a player who predicted replaces theirs (allowed before the first card).
            pool = sorted(u.to_act(state)) + sorted(s for s in state.active if rng.random() < 0.1)
            seat = rng.choice(pool)
            letters = same_prediction or random_letters(rng, state)
            state = u.apply(state, seat, {"type": "predict", "letters": letters})
            assert state.predictions[seat] == letters
        else:
            (seat,) = u.to_act(state)
            actions = u.legal_actions(state, seat)
            plays = [a for a in actions if a["type"] == "play"]
            assert plays
            state = u.apply(state, seat, rng.choice(plays))
    raise AssertionError("the game did not end")


# ---- the seed's example ---------------------------------------------------------------------------


def test_seed_example_changes_and_score() -> None:
    changes = u.changes_of(SEED_ROW)
    assert changes == "UDDUUDDUSUU"
    window = u.match_window("UUDDUSU", changes)
    assert window == 3
    assert SEED_ROW[window : window + 8] == [4, 7, 9, 7, 1, 2, 2, 5]  # from the card 4 to the card 5
    assert u.score_prediction("UUDDUSU", changes) == 7
    assert u.score_prediction("SS", changes) == 0
    assert u.score_prediction("UUU", changes) == 0
    assert u.match_window("DDD", changes) is None


def test_seed_example_played_through_the_rules() -> None:
    state = seed_example_state()
    state = u.apply(state, 0, {"type": "predict", "letters": "uud dusu"})
    state = u.apply(state, 1, {"type": "predict", "letters": "SS"})
    assert state.phase == "place" and u.to_act(state) == {0}
    state = play_ranks(state, SEED_ROW)
    assert [u.card_rank(c) for c in state.history[0].row] == SEED_ROW
    record = state.history[0]
    assert record.changes == "UDDUUDDUSUU"
    assert [(p.seat, p.prediction, p.score, p.window) for p in record.players] == [
        (0, "UUDDUSU", 7, 3),
        (1, "SS", 0, None),
    ]
    assert record.result == "winner" and record.top == (0,)
    outcome = u.outcome(state)
    assert outcome is not None and outcome.winners == (0,) and outcome.scores == (7, 0)
    reveal = [e.to_dict() for e in state.events if isinstance(e, u.Reveal)]
    assert reveal and reveal[0]["players"][0]["window"] == 3
    assert state.events[-1].to_dict()["type"] == "game_over"
    public = u.view_for(state, None)
    assert public.last_deal == record and public.phase == "over"


# ---- properties -----------------------------------------------------------------------------------


@given(st.lists(st.integers(1, 13), min_size=2, max_size=52), st.text("UDS", min_size=1, max_size=60))
def test_score_is_length_iff_substring(ranks: list[int], prediction: str) -> None:
    changes = u.changes_of(ranks)
    assert len(changes) == len(ranks) - 1
    for i, ch in enumerate(changes):
        a, b = ranks[i], ranks[i + 1]
        assert ch == ("U" if b > a else "D" if b < a else "S")
    score = u.score_prediction(prediction, changes)
    assert score == (len(prediction) if prediction in changes else 0)
    window = u.match_window(prediction, changes)
    if window is not None:
        assert changes[window : window + len(prediction)] == prediction


@given(st.lists(st.integers(1, 13), min_size=2, max_size=52), st.data())
def test_every_window_of_the_row_scores_its_length(ranks: list[int], data: st.DataObject) -> None:
    changes = u.changes_of(ranks)
    start = data.draw(st.integers(0, len(changes) - 1))
    end = data.draw(st.integers(start + 1, len(changes)))
    assert u.score_prediction(changes[start:end], changes) == end - start


@settings(max_examples=60)
@given(st.integers(2, 10), st.integers(0, 2**63))
def test_any_deal_partitions_the_deck(n_players: int, seed: int) -> None:
    state = u.new_game(n_players, {}, seed)
    per = 52 // n_players
    assert all(len(h) == per for h in state.hands)
    assert len(state.leftover) == 52 % n_players
    cards = [c for h in state.hands for c in h] + list(state.leftover)
    assert sorted(cards) == sorted(u.DECK)
    assert all(h == u.sort_cards(h) for h in state.hands)
    assert state.row_size == per * n_players and state.max_letters == per * n_players - 1
    assert u.to_act(state) == frozenset(range(n_players))


def test_deals_are_reproducible_and_differ_between_deals() -> None:
    assert u.new_game(4, {}, 7) == u.new_game(4, {}, 7)
    assert u.new_game(4, {}, 7).hands != u.new_game(4, {}, 8).hands
    a, _ = u._deal_cards(7, 0, (0, 1))
    b, _ = u._deal_cards(7, 1, (0, 1))
    assert a != b


# ---- whole games ----------------------------------------------------------------------------------


@pytest.mark.parametrize("n_players", range(2, 11))
@pytest.mark.parametrize("seed", range(3))
def test_random_games_to_the_end(n_players: int, seed: int) -> None:
    state = playout(n_players, seed * 100 + n_players)
    outcome = u.outcome(state)
    assert outcome is not None and outcome.winners
    final = state.history[-1]
    assert final.result in ("winner", "shared")
    assert set(outcome.winners) == set(final.top)
    # Every deal's row is every dealt card of its players; deals after the first are playoffs
    # among exactly the previous deal's top seats.
    for i, record in enumerate(state.history):
        k = len(record.players)
        assert len(record.row) == (52 // k) * k and len(record.leftover) == 52 % k
        assert record.deal == i
        if i:
            assert tuple(p.seat for p in record.players) == state.history[i - 1].top
    assert not u.to_act(state)
    assert all(not u.legal_actions(state, s) for s in range(n_players))


def test_random_games_reach_playoffs() -> None:
    deals = [playout(3, seed).deal for seed in range(12)]
    assert max(deals) >= 1


@pytest.mark.parametrize("n_players", [2, 3, 5, 8, 10])
def test_random_games_with_forfeits(n_players: int) -> None:
    for seed in range(3):
        state = playout(n_players, 1000 + seed, forfeits=True)
        outcome = u.outcome(state)
        assert outcome is not None
        assert not set(outcome.winners) & state.forfeited


def test_five_tied_playoffs_share_the_win() -> None:
    # "U" occurs in every row of 10+ cards dealt here, so every deal ends in a tie at 1.
    state = playout(3, 5, same_prediction="U")
    assert state.deal == u.MAX_PLAYOFFS and len(state.history) == u.MAX_PLAYOFFS + 1
    assert [r.result for r in state.history] == ["playoff"] * 5 + ["shared"]
    outcome = u.outcome(state)
    assert outcome is not None and outcome.winners == (0, 1, 2)
    assert "share" in str(outcome.reason)


def test_playoff_deals_only_the_tied_players_and_lowest_seat_places_first() -> None:
    state = u.new_game(4, {}, 3)
    # Seats 2 and 3 (0-based 1 and 2) predict the same one-letter string; 1 and 4 predict a
    # string that cannot occur: six stays in a row.
    for seat, letters in ((0, "SSSSSS"), (1, "U"), (2, "U"), (3, "SSSSSS")):
        state = u.apply(state, seat, {"type": "predict", "letters": letters})
    while state.deal == 0:
        (seat,) = u.to_act(state)
        state = place_one(state, seat)
    assert state.history[0].result == "playoff" and state.history[0].top == (1, 2)
    assert [e.TYPE for e in state.events][-3:] == ["placed", "reveal", "playoff"]
    assert state.players == (1, 2) and state.phase == "predict"
    assert [len(h) for h in state.hands] == [0, 26, 26, 0]
    assert not state.leftover
    assert u.to_act(state) == {1, 2}
    with pytest.raises(NotYourTurn, match="out of this playoff"):
        u.apply(state, 0, {"type": "predict", "letters": "U"})
    state = u.apply(state, 2, {"type": "predict", "letters": "UD"})
    state = u.apply(state, 1, {"type": "predict", "letters": "DU"})
    assert u.to_act(state) == {1}  # the lowest remaining seat places first
    # In a two-player playoff each player sees the other's hand.
    view = u.view_for(state, 1)
    assert view.opponent_hand == state.hands[2]
    assert set(view.hand or ()) | set(view.opponent_hand or ()) == set(u.DECK)


def test_two_player_private_view_shows_the_opponents_hand() -> None:
    state = u.new_game(2, {}, 11)
    mine = u.view_for(state, 0)
    assert mine.hand == state.hands[0] and mine.opponent_hand == state.hands[1]
    assert set(mine.hand) | set(mine.opponent_hand) == set(u.DECK)
    assert u.view_for(state, None).opponent_hand is None
    assert u.view_for(u.new_game(3, {}, 11), 0).opponent_hand is None


def test_predictions_can_be_replaced_until_the_first_card() -> None:
    state = u.new_game(3, {}, 2)
    state = u.apply(state, 0, {"type": "predict", "letters": "U"})
    assert u.to_act(state) == {1, 2}
    state = u.apply(state, 0, {"type": "predict", "letters": "D"})
    assert [e.to_dict() for e in state.events] == [{"type": "predicted", "seat": 0, "replaced": True}]
    state = u.apply(state, 1, {"type": "predict", "letters": "S"})
    state = u.apply(state, 2, {"type": "predict", "letters": "UU"})
    assert state.phase == "place" and state.events[-1].TYPE == "placing_starts"
    # Placing has started but no card is down: a replacement is still allowed.
    state = u.apply(state, 2, {"type": "predict", "letters": "DD"})
    assert state.predictions[2] == "DD" and u.view_for(state, 2).can_predict
    state = place_one(state, 0)
    assert not u.view_for(state, 2).can_predict
    unchanged_after(u, state, 2, {"type": "predict", "letters": "U"}, IllegalMove)


# ---- forfeits -------------------------------------------------------------------------------------


def test_forfeit_while_predicting_removes_the_cards_from_the_row() -> None:
    state = u.new_game(3, {}, 4)
    assert state.row_size == 51
    state = u.apply(state, 0, {"type": "predict", "letters": "U"})
    state = u.forfeit(state, 1)
    assert state.hands[1] == () and state.row_size == 34 and state.max_letters == 33
    assert state.events[0].to_dict() == {"type": "forfeit", "seat": 1, "cards_removed": 17, "row_size": 34}
    unchanged_after(u, state, 2, {"type": "predict", "letters": "U" * 34}, BadInput)
    state = u.apply(state, 2, {"type": "predict", "letters": "D"})
    assert state.phase == "place"
    with pytest.raises(NotYourTurn, match="left this game"):
        u.apply(state, 1, {"type": "predict", "letters": "U"})
    while state.phase == "place":
        (seat,) = u.to_act(state)
        assert seat != 1
        state = place_one(state, seat)
    record = state.history[0]
    assert len(record.row) == 34 and 1 not in record.placers
    assert record.players[1] == u.DealPlayer(1, None, 0, None, True)


def test_forfeit_of_the_player_to_place_passes_the_turn_and_their_prediction_scores_nothing() -> None:
    state = u.new_game(3, {}, 9)
    for seat in range(3):
        state = u.apply(state, seat, {"type": "predict", "letters": "U"})
    state = place_one(state, 0)
    assert u.to_act(state) == {1}
    state = u.forfeit(state, 1)
    assert u.to_act(state) == {2}
    while state.phase == "place":
        (seat,) = u.to_act(state)
        state = place_one(state, seat)
    record = state.history[0]
    assert record.players[1].prediction == "U" and record.players[1].score == 0
    assert 1 not in record.top


def test_forfeit_leaving_one_player_ends_the_game() -> None:
    state = u.new_game(2, {}, 1)
    state = u.forfeit(state, 0)
    outcome = u.outcome(state)
    assert outcome is not None and outcome.winners == (1,) and outcome.scores is None
    assert [e.TYPE for e in state.events] == ["forfeit", "game_over"]
    assert u.forfeit(state, 1).events == ()  # nothing happens after the end
    unchanged_after(u, state, 1, {"type": "predict", "letters": "U"}, IllegalMove)


def test_forfeit_in_a_playoff_ends_it_and_an_eliminated_player_can_leave() -> None:
    state = u.new_game(3, {}, 3)
    for seat, letters in ((0, "U"), (1, "U"), (2, "SSSSSSSS")):
        state = u.apply(state, seat, {"type": "predict", "letters": letters})
    while state.deal == 0:
        (seat,) = u.to_act(state)
        state = place_one(state, seat)
    assert state.players == (0, 1)
    state = u.forfeit(state, 2)  # already eliminated: the playoff goes on
    assert state.phase == "predict" and state.players == (0, 1)
    state = u.forfeit(state, 0)
    outcome = u.outcome(state)
    assert outcome is not None and outcome.winners == (1,) and "playoff" in str(outcome.reason)
    assert outcome.scores == (1, 1, 0)


# ---- bad input ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("letters", "fragment"),
    [("UXD", "X is not allowed"), ("up", "P is not allowed"), ("", "empty"), ("  ", "empty")],
)
def test_bad_letters(letters: str, fragment: str) -> None:
    state = u.new_game(2, {}, 0)
    assert fragment in unchanged_after(u, state, 0, {"type": "predict", "letters": letters}, BadInput)


def test_too_long_a_prediction() -> None:
    state = u.new_game(4, {}, 0)
    assert state.max_letters == 51
    message = unchanged_after(u, state, 0, {"type": "predict", "letters": "U" * 52}, BadInput)
    assert "1 to 51 letters" in message
    assert u.apply(state, 0, {"type": "predict", "letters": "U" * 51}).predictions[0] == "U" * 51


def test_bad_moves_change_nothing() -> None:
    state = seed_example_state()
    assert (
        "make your prediction first with /updown predict (player 2 has not predicted yet either)"
        in unchanged_after(u, state, 0, {"type": "play", "rank": 2}, IllegalMove)
    )
    state = u.apply(state, 0, {"type": "predict", "letters": "U"})
    state = u.apply(state, 1, {"type": "predict", "letters": "D"})
    assert "player 1's turn" in unchanged_after(u, state, 1, {"type": "play", "rank": 6}, NotYourTurn)
    message = unchanged_after(u, state, 0, {"type": "play", "rank": 12}, IllegalMove)
    assert message == "You hold no Q. Your ranks: 2, 5, 7."
    unchanged_after(u, state, 0, {"type": "play", "rank": 14}, BadInput)
    unchanged_after(u, state, 0, {"type": "play", "rank": 0}, BadInput)
    unchanged_after(u, state, 0, {"type": "play", "rank": "Q"}, BadInput)
    unchanged_after(u, state, 0, {"type": "play", "rank": True}, BadInput)
    unchanged_after(u, state, 0, {"type": "draw"}, BadInput)
    unchanged_after(u, state, 0, {"type": "predict"}, BadInput)
    state = u.apply(state, 0, {"type": "play", "rank": 2})
    assert state.events == (u.Placed(seat=0, card="2C", index=0, change=None),)
    assert "locked: yours stays U" in unchanged_after(
        u, state, 0, {"type": "predict", "letters": "D"}, IllegalMove
    )
    state = u.apply(state, 1, {"type": "play", "rank": 6})
    assert state.events[0].to_dict()["change"] == "U"


def test_parse_rank() -> None:
    assert [u.parse_rank(t) for t in ("A", "a", " 2 ", "10", "j", "Q", "k", "1", "13", "T")] == [
        1, 1, 2, 10, 11, 12, 13, 1, 13, 10,
    ]  # fmt: skip
    assert u.parse_rank("queen") == 12
    for text in ("0", "14", "X", "", "1.5", "QQ"):
        with pytest.raises(BadInput, match="not a card value"):
            u.parse_rank(text)


def test_parse_letters() -> None:
    assert u.parse_letters(" uu d S ") == "UUDS"
    with pytest.raises(BadInput):
        u.parse_letters("U-D")


def test_from_dict_rejects_malformed_states() -> None:
    good = u.new_game(3, {}, 0).to_dict()
    u.State.from_dict(good)
    bad_cases = []
    dup = json.loads(json.dumps(good))
    dup["hands"][0][0] = dup["hands"][1][0]
    bad_cases.append(dup)
    for key, value in (
        ("phase", "dance"),
        ("n_players", 11),
        ("turn", "0"),
        ("predictions", ["UX", None, None]),
        ("row", ["ZZ"]),
    ):
        case = json.loads(json.dumps(good))
        case[key] = value
        bad_cases.append(case)
    missing = json.loads(json.dumps(good))
    del missing["hands"]
    bad_cases.append(missing)
    for case in bad_cases:
        with pytest.raises(ValueError):
            u.State.from_dict(case)


def test_public_view_holds_no_hand_prediction_or_set_aside_card() -> None:
    state = u.new_game(3, {}, 11)
    for seat, letters in enumerate(["SSSSU", "SSSSD", "SSSSS"]):
        state = u.apply(state, seat, {"type": "predict", "letters": letters})
    state = u.apply(state, 0, {"type": "play", "rank": u.card_rank(state.hands[0][0])})
    public = repr(u.view_for(state, None))
    for letters in ["SSSSU", "SSSSD", "SSSSS"]:
        assert letters not in public
    for card in [c for hand in state.hands for c in hand] + list(state.leftover):
        assert f"'{card}'" not in public
    mine = u.view_for(state, 1)
    assert mine.hand == state.hands[1] and mine.prediction == "SSSSD"
    assert "SSSSU" not in repr(mine) and "SSSSS" not in repr(mine)
