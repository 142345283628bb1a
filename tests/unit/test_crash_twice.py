"""bench/crash_twice.py: what the crash benchmark counts as due work done twice, from messages as the
emulator records them. Each kind of trace: once is fine, twice is found (and said where)."""

from __future__ import annotations

import itertools
from typing import Any

from bench.crash_twice import find_doubles
from tests.emulator.models import Attachment, Channel, ChannelType, Guild, MessageRecord, User

BOT = User(id=1, name="bot", bot=True)
ALICE = User(id=2, name="alice")
GUILD = Guild(id=10, name="Server", owner_id=2)
PLACE = Channel(id=20, name="games", type=ChannelType.TEXT, guild=GUILD)
DM = Channel(id=30, name="dm-alice", type=ChannelType.DM, recipient=ALICE)
_ids = itertools.count(100)


def message(channel: Channel, content: str = "", *, author: User = BOT, **fields: Any) -> MessageRecord:
    n = next(_ids)
    return MessageRecord(id=n, channel=channel, author=author, content=content, seq=n, **fields)


def board(game: int, version: int, **fields: Any) -> MessageRecord:
    png = Attachment(id=next(_ids), filename=f"numbers-{game}-{version}.png", data=b"")
    return message(PLACE, f"**Numbers To Number** · game #{game} · m = 3", attachments=[png], **fields)


def panel(game: int) -> MessageRecord:
    return message(DM, f"**Numbers To Number** · game #{game} in <#{PLACE.id}> on Server\nRound 1 of 3")


def test_nothing_twice_in_a_game_told_once() -> None:
    messages = [
        board(1, 1, nonce="q1.a"),
        panel(1),
        board(1, 2, nonce="q2.a"),
        message(PLACE, f"⏰ <@{ALICE.id}>, Numbers To Number game #1 is waiting for your move. <t:5000:R>"),
        message(DM, "⏰ **Numbers To Number** · game #1 in <#20> is waiting for your move. <t:5000:R>"),
        message(PLACE, "**Numbers To Number** · game #1 · m = 3\n<@2> ran out of time and forfeits."),
        message(DM, "5", author=ALICE),
        message(DM, "6", author=ALICE),
        message(DM, "7", author=ALICE),
        panel(1),  # three messages after the first panel: it was buried, a new one is right
    ]
    found = find_doubles(messages, BOT.id)
    assert found.total == 0, found.found
    assert found.seen["board"] == 2 and found.seen["DM panel"] == 2
    assert found.seen["reminder"] == 2 and found.seen["forfeit notice"] == 1 and found.seen["nonce"] == 2


def test_a_version_posted_twice_is_found_whatever_posted_it() -> None:
    # The interaction's answer and a post to the channel, both the board of version 2.
    found = find_doubles([board(1, 1), board(1, 2), board(1, 2, nonce="q9.b")], BOT.id)
    assert found.found["board"] == ["(game, version) (1, 2): 2 times"]
    # A board drawn without an image names its version in its controls.
    menu = [{"type": 1, "components": [{"type": 3, "custom_id": "q:4:7:line", "options": []}]}]
    found = find_doubles([message(PLACE, "dots", components=menu) for _ in range(2)], BOT.id)
    assert found.found["board"] == ["(game, version) (4, 7): 2 times"]


def test_the_same_nonce_twice_in_a_channel_is_found() -> None:
    found = find_doubles([message(PLACE, "a", nonce="q1.a"), message(PLACE, "b", nonce="q1.a")], BOT.id)
    assert len(found.found["nonce"]) == 1
    # The same nonce in two channels is two posts (a nonce is per channel).
    assert find_doubles([message(PLACE, nonce="q1.a"), message(DM, nonce="q1.a")], BOT.id).total == 0


def test_a_wait_reminded_twice_and_a_forfeit_told_twice_are_found() -> None:
    text = f"⏰ <@{ALICE.id}>, Numbers To Number game #1 is waiting for your move. <t:5000:R>"
    forfeit = "**Numbers To Number** · game #1 · m = 3\n<@2> ran out of time and forfeits."
    found = find_doubles([message(PLACE, text), message(PLACE, text)], BOT.id)
    assert len(found.found["reminder"]) == 1
    # Another deadline is another wait.
    assert (
        find_doubles([message(PLACE, text), message(PLACE, text.replace("5000", "5900"))], BOT.id).total == 0
    )
    found = find_doubles([message(PLACE, forfeit), message(PLACE, forfeit)], BOT.id)
    assert len(found.found["forfeit notice"]) == 1


def test_a_panel_sent_again_while_the_first_was_in_sight_is_found() -> None:
    first, reply, second = panel(1), message(DM, "5", author=ALICE), panel(1)
    found = find_doubles([first, reply, second], BOT.id)
    assert len(found.found["DM panel"]) == 1 and str(second.id) in found.found["DM panel"][0]
    # Another game's panel in the same DMs is not this game's second one.
    assert find_doubles([panel(1), panel(2)], BOT.id).total == 0


def test_a_lobby_card_posted_twice_is_found() -> None:
    join = [{"type": 1, "components": [{"type": 2, "custom_id": "q:3:-:join", "label": "Join"}]}]
    found = find_doubles([message(PLACE, "Lobby", components=join) for _ in range(2)], BOT.id)
    assert found.found["lobby card"] == ["game 3: 2 times"]


def test_an_older_board_still_offering_moves_is_noted() -> None:
    controls = [{"type": 1, "components": [{"type": 2, "custom_id": "q:1:1:flip:2", "label": "2"}]}]
    newer = [{"type": 1, "components": [{"type": 2, "custom_id": "q:1:2:flip:3", "label": "3"}]}]
    found = find_doubles([board(1, 1, components=controls), board(1, 2, components=newer)], BOT.id)
    assert found.total == 0 and len(found.stale_controls) == 1
