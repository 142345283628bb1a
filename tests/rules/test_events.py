"""Every game's events: typed dataclasses whose stored JSON is what the dict events of before were.

- each event kind round-trips through ``to_dict`` and the game's ``EVENTS.parse`` (and JSON);
- states stored before events were typed (``tests/games/<game>/stored_before_typed_events.json``:
  games played by that code, its moves and its stored states) load, equal the states the moves give
  now, and are written back byte for byte;
- a malformed event (a missing, extra or mistyped field, an unknown type) is refused with
  ``ValueError``, by ``EVENTS.parse`` and by ``State.from_dict``.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from bot.registry import RULES
from bot.rules import play
from bot.rules.base import GameEvent

GAMES_DIR = Path(__file__).resolve().parents[1] / "games"
TYPED = sorted(name for name, rules in RULES.items() if hasattr(rules, "EVENTS"))
RECORDINGS = sorted(GAMES_DIR.glob("*/stored_before_typed_events.json"))


def test_every_game_with_events_has_typed_events() -> None:
    assert TYPED == sorted(set(RULES) - {"procession"})  # Procession's state keeps no events


def recorded(path: Path) -> list[dict[str, Any]]:
    games: list[dict[str, Any]] = json.loads(path.read_text())
    return games


def stored_events(name: str) -> list[dict[str, Any]]:
    """Every event of the game's recorded states, as stored (one of each JSON shape at least)."""
    path = GAMES_DIR / name / "stored_before_typed_events.json"
    return [e for game in recorded(path) for state in game["states"].values() for e in state["events"]]


@pytest.mark.parametrize("path", RECORDINGS, ids=lambda p: p.parent.name)
def test_states_stored_before_typed_events_load_and_replay_identically(path: Path) -> None:
    for game in recorded(path):
        rules: ModuleType = RULES[game["game"]]
        state = rules.new_game(game["players"], game["options"], game["seed"])
        for i, (seat, action) in enumerate(game["moves"], start=1):
            state = play(rules, state, seat, action)
            stored = game["states"].get(str(i))
            if stored is None:
                continue
            assert json.dumps(state.to_dict()) == json.dumps(stored)  # the same JSON, key order and all
            loaded = rules.State.from_dict(copy.deepcopy(stored))
            assert loaded == state
            assert all(isinstance(e, GameEvent) for e in loaded.events)
            assert json.dumps(loaded.to_dict()) == json.dumps(stored)
        assert rules.outcome(state) is not None


@pytest.mark.parametrize("name", TYPED)
def test_the_recordings_hold_every_event_kind(name: str) -> None:
    kinds = {kind.TYPE for kind in RULES[name].EVENTS.kinds}
    assert {e["type"] for e in stored_events(name)} == kinds


@pytest.mark.parametrize("name", TYPED)
def test_every_event_kind_round_trips(name: str) -> None:
    events = RULES[name].EVENTS
    for data in stored_events(name):
        event = events.parse(copy.deepcopy(data))
        assert type(event).TYPE == data["type"] and isinstance(event, events.kinds)
        assert json.dumps(event.to_dict()) == json.dumps(data)
        assert events.parse(json.loads(json.dumps(event.to_dict()))) == event


def malformed(data: dict[str, Any]) -> list[Any]:
    """Ways to spoil a stored event: each field missing or of a wrong type, a key too many, an unknown
    or missing type, not an object at all."""
    out: list[Any] = [None, [], "picked", {}, {**data, "type": "no such event"}, {**data, "extra": 1}]
    out.append({k: v for k, v in data.items() if k != "type"})
    for key, value in data.items():
        if key == "type":
            continue
        out.append({k: v for k, v in data.items() if k != key})
        wrong: Any = {"a": 1} if not isinstance(value, dict) else "x"
        out.append({**data, key: wrong})
    return out


@pytest.mark.parametrize("name", TYPED)
def test_a_malformed_event_is_refused(name: str) -> None:
    rules = RULES[name]
    state = recorded(GAMES_DIR / name / "stored_before_typed_events.json")[0]["states"]
    for data in {e["type"]: e for e in stored_events(name)}.values():
        for bad in malformed(data):
            with pytest.raises(ValueError):
                rules.EVENTS.parse(bad)
            some = copy.deepcopy(next(iter(state.values())))
            some["events"] = [*some["events"], bad]
            with pytest.raises(ValueError, match=name):
                rules.State.from_dict(some)


def test_a_bool_is_not_a_number_nor_a_number_a_string() -> None:
    numbers = RULES["numbers"]
    with pytest.raises(ValueError):
        numbers.EVENTS.parse({"type": "picked", "seat": True})
    updown = RULES["updown"]
    good = {"type": "placed", "seat": 0, "card": "2C", "index": 0, "change": None}
    assert updown.EVENTS.parse(good).to_dict() == good
    with pytest.raises(ValueError):
        updown.EVENTS.parse({**good, "card": 2})
