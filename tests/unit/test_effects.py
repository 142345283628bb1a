"""The outbox's effects (bot/table/effects.py): each turned into its stored form (kind text, args
JSON) and read back; items as older bots stored them still read; malformed ones refused by name."""

from __future__ import annotations

import json
import typing

import pytest

from bot.storage.rows import dumps
from bot.table import effects
from bot.table.effects import (
    BY_KIND,
    EFFECTS,
    Announce,
    BadEffect,
    Card,
    Closed,
    DmClosed,
    Expired,
    Lobby,
    Nudge,
    OutboxEffect,
    Panel,
    PostCard,
    Refresh,
    Remind,
    RemindDm,
    Rename,
    Start,
    Strip,
    Thread,
    parse,
)

# One of each, every field away from its default; and each with its defaults.
SAMPLES: list[OutboxEffect] = [
    Thread(),
    Rename(archive=True),
    Rename(),
    Announce(7, token="tok"),
    Start(2, "thread"),
    Start(2),
    Card(),
    Lobby(),
    PostCard(token="tok"),
    Strip(100, 200),
    Panel(1, "Your pick: 3", nudge=True),
    Panel(0),
    Refresh(2),
    DmClosed(555),
    Closed(keep_lobby=True),
    Closed(),
    Expired(),
    Remind(1, 1_700_000_000.5),
    RemindDm(0, 1_700_000_000.0),
    Nudge(3),
]


def test_the_samples_cover_every_class_and_kinds_are_unique() -> None:
    assert {type(e) for e in SAMPLES} == set(EFFECTS)
    assert len(BY_KIND) == len(EFFECTS)
    for cls in EFFECTS:  # fields of the types the stored JSON can hold and `parse` reads
        hints = typing.get_type_hints(cls)
        assert all(hints[f.name] in (int, float, str, bool) for f in effects._fields(cls)), cls


@pytest.mark.parametrize("effect", SAMPLES, ids=lambda e: f"{e.kind}{e.args}")
def test_every_effect_goes_to_its_stored_form_and_back(effect: OutboxEffect) -> None:
    stored = json.loads(dumps(dict(effect.args)))  # as the outbox writes and reads the args column
    assert stored == effect.args
    assert parse(effect.kind, stored, token=effect.token) == effect
    assert type(effect).parse(stored, token=effect.token) == effect


def test_the_stored_kinds_and_arguments_are_those_bots_always_wrote() -> None:
    # The contract with the items already in a database: kinds' texts and arguments' names.
    assert {cls.kind for cls in EFFECTS} == {
        "thread", "announce", "start", "card", "lobby", "post_card", "strip", "panel", "refresh",
        "dm_closed", "closed", "expired", "remind", "remind_dm", "nudge", "rename",
    }  # fmt: skip
    assert (Announce(7, token="t").kind, Announce(7, token="t").args) == ("announce", {"version": 7})
    assert Start(3, "thread").args == {"version": 3, "place": "thread"}
    assert Panel(1).args == {"seat": 1}  # defaults left out, as they always were
    assert Panel(1, "n").args == {"seat": 1, "note": "n"}
    assert Panel(1, nudge=True).args == {"seat": 1, "nudge": True}
    assert Closed(keep_lobby=True).args == {"keep_lobby": True}
    assert Closed().args == {}
    assert Remind(0, 12.5).args == {"seat": 0, "deadline": 12.5}
    assert DmClosed(9).args == {"user_id": 9}
    assert Strip(1, 2).args == {"channel_id": 1, "message_id": 2}
    assert Nudge(2).args == {"seat": 2} and Refresh(2).args == {"seat": 2}
    assert Rename().args == {} and Rename(archive=True).args == {"archive": True}


@pytest.mark.parametrize(
    ("kind", "args", "expected"),
    [
        # As older bots wrote them: every key given, floats for deadlines, a note left empty.
        ("announce", {"version": 12}, Announce(12)),
        ("start", {"version": 1}, Start(1)),  # before the place was kept
        ("start", {"version": 1, "place": "no-permission"}, Start(1, "no-permission")),
        ("panel", {"seat": 0, "note": ""}, Panel(0)),
        ("panel", {"seat": 2, "nudge": True}, Panel(2, nudge=True)),
        ("refresh", {"seat": 1}, Refresh(1)),
        ("remind", {"seat": 1, "deadline": 1700000000.25}, Remind(1, 1700000000.25)),
        ("remind_dm", {"seat": 1, "deadline": 1700000000}, RemindDm(1, 1700000000.0)),
        ("strip", {"channel_id": 5, "message_id": 6}, Strip(5, 6)),
        ("dm_closed", {"user_id": 42}, DmClosed(42)),
        ("closed", {"keep_lobby": True}, Closed(keep_lobby=True)),
        ("closed", {}, Closed()),
        ("card", {}, Card()),
        ("lobby", {}, Lobby()),
        ("thread", {}, Thread()),
        ("expired", {}, Expired()),
        ("post_card", {}, PostCard()),
        ("nudge", {"seat": 0}, Nudge(0)),
        # Read as leniently as they always were: numbers as text, an argument this bot does not know.
        ("panel", {"seat": "3", "later": [1, 2]}, Panel(3)),
    ],
)
def test_an_item_stored_by_an_older_bot_is_read(
    kind: str, args: dict[str, object], expected: OutboxEffect
) -> None:
    assert parse(kind, json.loads(dumps(args))) == expected


@pytest.mark.parametrize(
    ("kind", "args", "named"),
    [
        ("panel", {"note": "x"}, "no 'seat'"),
        ("panel", {"seat": None}, "seat=None is not int"),
        ("panel", {"seat": "two"}, "seat='two' is not int"),
        ("panel", {"seat": 1, "note": 5}, "note=5 is not str"),
        ("announce", {}, "no 'version'"),
        ("remind", {"seat": 0, "deadline": "soon"}, "deadline='soon' is not float"),
        ("strip", {"channel_id": 1}, "no 'message_id'"),
        ("dm_closed", {"user_id": [1]}, "user_id=[1] is not int"),
        ("gone", {}, "no such kind"),
    ],
)
def test_a_malformed_item_is_refused_by_name(kind: str, args: dict[str, object], named: str) -> None:
    with pytest.raises(BadEffect, match=rf"^outbox effect '{kind}': .*") as refused:
        parse(kind, args)
    assert named in str(refused.value)
    assert refused.value.kind == kind
