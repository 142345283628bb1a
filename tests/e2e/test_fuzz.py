"""A property-based fuzzer over every input surface of the running bot (hypothesis).

One bot and one emulator run for the whole module, on an event loop in a thread of their own; each
hypothesis example sends one input: a slash command with random option values (of the types and
ranges Discord lets a client send, or, as a modified client sends them, of any type, out of range,
missing or unknown), a component with a forged custom_id (another game's, an old version, garbage),
a blind modal submission, or a typed DM, from players and non-players, in channels, threads and DMs.
For every input: an answer arrives, no unhandled exception is logged, and either nothing changed and
the answer was private, or the input was a legal move and exactly one move was recorded.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import threading
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from bot.table.replies import APOLOGY
from tests.e2e.driver import game_place
from tests.emulator import DiscordEmulator
from tests.emulator.harness import BotHarness, project_bot_factory
from tests.emulator.models import InteractionRecord
from tests.emulator.world import Channel, Scene, User

EXAMPLES = 300
TRIED = {"inputs": 0}

STRING, INTEGER, BOOLEAN, USER, NUMBER = 3, 4, 5, 6, 10


class Errors(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@dataclass
class World:
    run: Callable[[Coroutine[Any, Any, Any]], Any]
    emu: DiscordEmulator
    scene: Scene
    harness: BotHarness
    db: Path
    errors: Errors
    commands: list[tuple[str, list[dict[str, Any]]]]  # ("procession flip", option definitions)
    custom_ids: list[str]


def _leaves(command: dict[str, Any], prefix: str = "") -> Iterator[tuple[str, list[dict[str, Any]]]]:
    path = f"{prefix} {command['name']}".strip()
    options = command.get("options") or []
    subs = [o for o in options if o["type"] in (1, 2)]
    if not subs:
        yield path, options
    for sub in subs:
        yield from _leaves(sub, path)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True, name="fuzz-loop")
    thread.start()

    def run(coro: Coroutine[Any, Any, Any]) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, loop).result(30)

    errors = Errors()
    logging.getLogger().addHandler(errors)
    db = tmp_path_factory.mktemp("fuzz") / "quetbot.sqlite3"
    emu = DiscordEmulator()
    run(emu.start())
    emu.install()
    scene = emu.add_scene()
    harness = BotHarness(emu, project_bot_factory(str(db)))
    run(harness.start())
    run(_set_up_games(emu, scene))
    commands = [leaf for cmd in emu.synced_commands() for leaf in _leaves(cmd)]
    ids = sorted({cid for m in emu.messages.values() for cid in m.custom_ids})
    try:
        yield World(run, emu, scene, harness, db, errors, commands, ids)
    finally:
        run(harness.stop())
        emu.uninstall()
        run(emu.stop())
        run(_cancel_the_rest())
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5)
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()
        logging.getLogger().removeHandler(errors)


async def _cancel_the_rest() -> None:
    tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def _start(emu: DiscordEmulator, channel: Channel, command: str, host: User, *others: User) -> None:
    await (await emu.slash(host, channel, command)).response()
    lobby = [m for m in emu.channel_messages(channel) if "Join" in str(m.components)][-1]
    for user in others:
        await (await emu.click(user, lobby, lobby.button("Join")["custom_id"])).response()
    lobby = emu.message(lobby.id)
    await (await emu.click(host, lobby, lobby.button("Start")["custom_id"])).response()

    def board() -> bool:
        return any(m.attachments for m in emu.channel_messages(game_place(emu, channel, lobby)))

    await emu.wait_until(board, what="board")
    await emu.wait_idle()


async def _set_up_games(emu: DiscordEmulator, scene: Scene) -> None:
    await _start(emu, scene.channel, "procession new", scene.alice, scene.bob)
    await _start(emu, scene.thread, "updown new", scene.alice, scene.bob)
    await _start(emu, scene.other_channel, "dots new", scene.carol, scene.dave)
    # A lobby too, in a second thread.
    lobby_thread = emu.add_thread(scene.channel, "lobby")
    await (await emu.slash(scene.carol, lobby_thread, "procession new")).response()
    await emu.wait_idle()


def _db_state(db: Path) -> tuple[Any, ...]:
    with sqlite3.connect(db, timeout=10) as conn:
        games = conn.execute("SELECT id, status, version FROM games ORDER BY id").fetchall()
        moves = conn.execute("SELECT COUNT(*) FROM moves").fetchone()[0]
        seats = conn.execute("SELECT game_id, user_id FROM seats ORDER BY game_id, position").fetchall()
    return tuple(games), int(moves), tuple(seats)


# ---- strategies -------------------------------------------------------------------------------------

TEXT = st.one_of(
    st.text(max_size=30),
    st.sampled_from(
        ["", " ", "0", "-1", "99999999999", "A", "K", "z", "UDS", "uuddss", "10", "A1", "J10", "∞"]
    ),
    st.text(alphabet="UDSudsAJQK0123456789 ,:-", max_size=12),
)


def option_value(definition: dict[str, Any], people: list[User]) -> st.SearchStrategy[Any]:
    if definition.get("choices"):
        return st.sampled_from([c["value"] for c in definition["choices"]])
    otype = definition["type"]
    if otype == STRING:
        low, high = definition.get("min_length", 0), definition.get("max_length", 100)
        return TEXT.filter(lambda s: low <= len(s) <= high)
    if otype in (INTEGER, NUMBER):
        low = definition.get("min_value", -(2**31))
        high = definition.get("max_value", 2**31)
        return st.integers(min_value=int(low), max_value=int(high))
    if otype == BOOLEAN:
        return st.booleans()
    if otype == USER:
        return st.sampled_from(people)
    return st.nothing()


# Values of every type a modified client can put in an option, whatever type the option is.
ANY_VALUE = st.one_of(
    TEXT,
    st.integers(min_value=-(2**60), max_value=2**60),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.booleans(),
    st.none(),
    st.lists(st.integers(), max_size=2),
)


@st.composite
def slash_input(draw: st.DrawFn, world: World) -> tuple[str, dict[str, Any], bool]:
    """A command and its options; forged (the third item) when it may hold an option of the wrong
    type or out of range, lack a required one, or hold one the command does not have (sent raw, as
    a modified client would)."""
    path, definitions = draw(st.sampled_from(world.commands))
    s = world.scene
    people = [s.alice, s.bob, s.carol, s.dave, s.mod]
    forged = draw(st.integers(min_value=0, max_value=3)) == 0
    options: dict[str, Any] = {}
    for definition in definitions:
        if definition["type"] not in (STRING, INTEGER, NUMBER, BOOLEAN, USER):
            continue
        if forged and draw(st.booleans()):
            if definition.get("required") and draw(st.booleans()):
                continue  # a required option missing
            options[definition["name"]] = draw(ANY_VALUE)
        elif definition.get("required") or draw(st.booleans()):
            options[definition["name"]] = draw(option_value(definition, people))
    if forged and draw(st.booleans()):
        options[draw(st.sampled_from(["bogus", "from_", "value", "n"]))] = draw(ANY_VALUE)
    return path, options, forged


@st.composite
def forged_id(draw: st.DrawFn, world: World) -> str:
    real = draw(st.sampled_from(world.custom_ids))
    parts = real.split(":")
    how = draw(st.sampled_from(["game", "version", "verb", "arg", "garbage", "as_is"]))
    if how == "game" and len(parts) > 1:
        parts[1] = str(draw(st.integers(min_value=0, max_value=10**12)))
    elif how == "version" and len(parts) > 2:
        parts[2] = draw(st.sampled_from(["0", "1", "999999", "-", "x"]))
    elif how == "verb" and len(parts) > 3:
        parts[3] = draw(
            st.sampled_from(["flip", "join", "start", "cancel", "mine", "play", "predict", "typed", "x"])
        )
    elif how == "arg":
        parts = [*parts[:4], draw(st.text(alphabet="0123456789abcXYZ-._", max_size=12))]
    elif how == "garbage":
        return draw(st.text(min_size=1, max_size=100))
    return ":".join(parts)[:100]


def user_and_place(world: World) -> st.SearchStrategy[tuple[User, Channel]]:
    s = world.scene
    users = st.sampled_from([s.alice, s.bob, s.carol, s.dave, s.mod])
    places = st.sampled_from([s.channel, s.thread, s.other_channel])
    return st.tuples(users, places)


# ---- sending and judging ---------------------------------------------------------------------------


async def _send_interaction(
    world: World, kind: str, user: User, place: Channel, data: Any
) -> InteractionRecord:
    emu = world.emu
    if kind == "slash":
        path, options, forged = data
        if forged:
            return await emu.forged_slash(user, place, path, options)
        return await emu.slash(user, place, path, options)
    if kind == "component":
        # A forged or outdated custom_id still arrives on a message: one an older version of the bot
        # posted, carrying it (Discord only sends clicks on components a message has).
        where = place if data[1] else emu.open_dm(user)
        button = {"type": 2, "style": 2, "label": "old", "custom_id": data[0]}
        old = emu.create_message(
            where, emu.bot_user, {"content": "", "components": [{"type": 1, "components": [button]}]}
        )
        return await emu.click(user, old, data[0])
    return await emu.submit_modal(
        user, place, custom_id=data[0], values={"letters": data[1], "number": data[1]}
    )


def judge(world: World, before: tuple[Any, ...], rec: InteractionRecord | None, what: str) -> None:
    after = _db_state(world.db)
    if world.errors.records:
        record = world.errors.records[0]
        trace = logging.Formatter().formatException(record.exc_info) if record.exc_info else ""
        raise AssertionError(f"{what}: {record.getMessage()}\n{trace}")
    assert world.emu.internal_errors == [], world.emu.internal_errors
    if after == before:
        if rec is not None and rec.modal is not None:
            return  # a form opened: only its submission can change anything
        if rec is not None:
            shown = rec.ephemeral_texts() if not rec.channel.is_dm else rec.texts() or rec.ephemeral_texts()
            assert rec.callback is not None and (rec.callback.ephemeral or rec.channel.is_dm), what
            assert shown and all(APOLOGY not in t for t in shown), f"{what}: {shown}"
        return
    # Something changed: it must have been a legal move, recorded exactly once.
    assert after[1] == before[1] + 1, f"{what} changed the database without (or with several) moves"


async def _one(world: World, kind: str, user: User, place: Channel, data: Any) -> tuple[Any, ...] | None:
    emu = world.emu
    await emu.wait_idle()
    before = _db_state(world.db)
    if kind == "dm":
        count = len(emu.dm_messages(user))
        await emu.send_dm(user, data)
        await emu.wait_idle()
        # Answered by a DM, or (a legal typed move) by the move itself: the panel is edited.
        await emu.wait_until(
            lambda: len(emu.dm_messages(user)) > count or _db_state(world.db) != before,
            what=f"an answer to the DM {data!r}",
        )
        await emu.wait_idle()
        judge(world, before, None, f"DM {data!r} from {user.name}")
        if _db_state(world.db) == before:  # refused: a DM says why (a typed move edits the panel)
            assert len(emu.dm_messages(user)) > count, f"the DM {data!r} got no answer"
        return None
    rec = await _send_interaction(world, kind, user, place, data)
    await rec.response()
    await emu.wait_idle()
    judge(world, before, rec, f"{kind} {data!r} by {user.name} in {place.name}")
    return before


@settings(
    max_examples=EXAMPLES,
    deadline=None,
    # The same inputs on every run (a failure in CI is the one you get at home), and no shrinking on
    # replay: the world is shared by the examples, so a replay meets another world.
    derandomize=True,
    database=None,
    phases=(Phase.explicit, Phase.generate),
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
    ],
)
@given(data=st.data())
def test_no_input_breaks_the_bot(world: World, data: st.DataObject) -> None:
    kind = data.draw(st.sampled_from(["slash", "slash", "component", "modal", "dm"]))
    user, place = data.draw(user_and_place(world))
    payload: Any
    if kind == "slash":
        payload = data.draw(slash_input(world))
        if (
            payload[0] == "game cancel"
            or payload[0].endswith(" new")
            or (payload[0] in ("game leave", "divisors drop") and user is not world.scene.mod)
        ):
            # Leaving, cancelling and opening another lobby (a channel holds several) are legal:
            # not fuzz targets.
            payload = ("game status", {}, False)
    elif kind == "component":
        payload = (data.draw(forged_id(world)), data.draw(st.booleans()))
        if payload[0].split(":")[3:4] == ["cancel"]:
            payload = ("q:0:-:x", payload[1])  # cancelling is legal (the host's Cancel): not a target
    elif kind == "modal":
        payload = (data.draw(forged_id(world)), data.draw(TEXT.filter(lambda s: 1 <= len(s) <= 100)))
    else:
        payload = data.draw(TEXT.filter(lambda s: s.strip() != ""))
    TRIED["inputs"] += 1
    world.run(_one(world, kind, user, place, payload))


def test_report_inputs_tried(world: World) -> None:
    """Prints how many inputs the fuzzer sent (run with -s to see it)."""
    print(f"\nfuzzer: {TRIED['inputs']} inputs tried")
    assert TRIED["inputs"] >= EXAMPLES or TRIED["inputs"] == 0
