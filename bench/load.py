"""Load benchmark: many concurrent games through the loopback Discord emulator, against the bot run as
a process of its own, compared with a bare discord.py bot, and again with 10,000 stored live games.

    python bench/load.py [--games N] [--quick] [--rate MOVES_PER_S] [--duration S] [--profile DIR]
    python bench/load.py --cost K [--repeat R]     (a fixed amount of work, to compare two builds)

The emulator (tests/emulator) runs in this process; the bot runs as ``python bench/launch_bot.py``,
which points discord.py at the emulator and starts ``quetbot``'s own entry point. Simulated players
play N games at once (every game whose cog exists: Procession and Dots by buttons, menus and commands,
Up-Down-Stay, Numbers and Divisors half from the DM panel and half by slash command with autocomplete),
each table paced so that together they offer ``--rate`` moves per second, new games following finished
ones until the phase ends. The phases:

1. the bot on a database holding 10 stored live games;
2. the floor: bench/floor_bot.py, a bare discord.py client answering every interaction with a fixed
   text, receiving the very interactions of phase 1 (same tables, same pacing);
3. the bot on a database holding 10,000 live and 100,000 finished games (start-to-ready is timed);
4. the bot unpaced (each table moves as soon as it has seen the last board): the throughput ceiling;
5. the render benchmarks (bench/render_*.py): the median time of each game's largest board.

Latencies are taken in the emulator: from the moment INTERACTION_CREATE is written to the bot's
gateway to the bot's first answer (the interaction callback), and to the board image (the first
public message with an attachment that the move caused). The bot's CPU time and peak RSS come from
/proc. ``--quick`` (about a minute) uses short phases and 20,000 finished games. ``--profile`` samples
the bot with py-spy while it holds the GIL, which shows where its CPU time goes.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import random
import re
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
BENCH = REPO / "bench"
sys.path.insert(0, str(REPO))

import warnings  # noqa: E402

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", "'audioop' is deprecated", DeprecationWarning)
    import discord  # noqa: F401

from bench.launch_bot import start_bot  # noqa: E402
from bot.games import RULES, play  # noqa: E402
from tests.emulator import DiscordEmulator, InteractionFailed  # noqa: E402
from tests.emulator.models import Channel, InteractionRecord, MessageRecord, User  # noqa: E402

TOKEN = "bench.bot.token"
ALL_KINDS = ("procession", "dots", "updown", "numbers", "divisors")
PICK_OPTION = {"numbers": "number", "divisors": "card"}  # /<kind> pick <option>
MENTION_MOVE = re.compile(r"<@(\d+)>, your move")
MENTION = re.compile(r"<@(\d+)>")
GAME_NO = re.compile(r"game #(\d+)")
STILL_TO_PLAY = re.compile(r"Yours still to play \(\d+\): ([\d, -]+)")


class PhaseOver(Exception):
    """The phase's time is up: the table stops where it is."""


class Stuck(Exception):
    """A game went somewhere the simulated players cannot follow; it is cancelled."""


# ---- the emulator, with a mailbox per channel -----------------------------------------------------


class Mailbox:
    """The bot's messages in one channel (ephemeral ones too), in order, with the time each arrived."""

    def __init__(self) -> None:
        self.messages: list[MessageRecord] = []
        self.changed = asyncio.Event()

    def put(self, message: MessageRecord) -> None:
        self.messages.append(message)
        self.changed.set()
        self.changed = asyncio.Event()

    async def wait(
        self, predicate: Callable[[MessageRecord], bool], after_seq: int, within: float
    ) -> MessageRecord | None:
        """The first message after ``after_seq`` matching ``predicate``, or None after ``within`` s."""
        loop = asyncio.get_running_loop()
        end = loop.time() + within
        i = len(self.messages)
        while i > 0 and self.messages[i - 1].seq > after_seq:
            i -= 1
        while True:
            changed = self.changed
            for message in self.messages[i:]:
                if predicate(message):
                    return message
            i = len(self.messages)
            remaining = end - loop.time()
            if remaining <= 0:
                return None
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), remaining)


class BenchEmulator(DiscordEmulator):
    """The test emulator without the OpenAPI check (it would cost more than the bot under test), which
    stamps every message the bot creates and hands it to its channel's mailbox."""

    def __init__(self) -> None:
        super().__init__(validate_schema=False, token=TOKEN)
        self.stamps: dict[int, float] = {}
        self.boxes: dict[int, Mailbox] = {}

    def box(self, channel: Channel) -> Mailbox:
        box = self.boxes.get(channel.id)
        if box is None:
            box = self.boxes[channel.id] = Mailbox()
        return box

    def _arrived(self, message: MessageRecord) -> None:
        self.stamps[message.id] = asyncio.get_running_loop().time()
        self.box(message.channel).put(message)

    def create_message(self, channel: Channel, author: User, body: dict[str, Any], *a: Any, **k: Any) -> Any:
        message = super().create_message(channel, author, body, *a, **k)
        if author is self.bot_user:
            self._arrived(message)
        return message

    def edit_message(self, message: MessageRecord, body: dict[str, Any], *a: Any, **k: Any) -> None:
        was_loading = message.loading  # a "thinking" message edited into the answer arrives now
        super().edit_message(message, body, *a, **k)
        if was_loading and message.author is self.bot_user:
            self._arrived(message)


# ---- the bot as a process -------------------------------------------------------------------------

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime + stime


def memory_mb(pid: int) -> tuple[float, float]:
    """(current RSS, peak RSS) in MB."""
    values = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(("VmRSS:", "VmHWM:")):
                key, value = line.split(":", 1)
                values[key] = int(value.split()[0]) / 1024
    return values.get("VmRSS", 0.0), values.get("VmHWM", 0.0)


class BotProcess:
    def __init__(self, emu: BenchEmulator, mode: str, db: Path, guild_id: int, log: Path) -> None:
        self.emu, self.mode, self.db, self.guild_id, self.log = emu, mode, db, guild_id, log
        self.proc: asyncio.subprocess.Process | None = None
        self.profiler: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    async def start(self) -> float:
        """Start the process; seconds until the client reported ready."""
        self.proc, ready = await start_bot(
            self.mode, emu=self.emu, token=TOKEN, db=self.db, guild_id=self.guild_id, log=self.log
        )
        return ready

    def profile(self, out: Path) -> None:
        """Sample the process with py-spy until it stops (collapsed stacks in ``out``)."""
        py_spy = shutil.which("py-spy")
        if py_spy is None:
            print("  (py-spy is not installed: pip install py-spy; no profile taken)")
            return
        self.profiler = subprocess.Popen(
            [
                py_spy,
                "record",
                "--pid",
                str(self.pid),
                "--rate",
                "250",
                "--gil",
                "--format",
                "raw",
                "-o",
                str(out),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )

    async def stop(self) -> None:
        if self.profiler is not None:
            self.profiler.send_signal(signal.SIGINT)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.profiler.wait(20)
            self.profiler = None
        proc, self.proc = self.proc, None
        if proc is None or proc.returncode is not None:
            return
        proc.send_signal(signal.SIGINT)
        try:
            await asyncio.wait_for(proc.wait(), 15)
        except TimeoutError:
            proc.kill()
            await proc.wait()


# ---- what was measured ----------------------------------------------------------------------------


def pct(values: list[float], p: float) -> float:
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


@dataclass
class Samples:
    first: list[float] = field(default_factory=list)  # seconds to the first answer
    image: list[float] = field(default_factory=list)  # seconds to the board image


@dataclass
class Act:
    """One interaction a player sends (kept so the floor bot can be sent the same ones)."""

    kind: str
    user: User
    how: str  # slash | auto | button | select | modal
    command: str = ""
    options: dict[str, Any] = field(default_factory=dict)
    focused: str = ""
    message: MessageRecord | None = None
    custom_id: str = ""
    values: list[str] = field(default_factory=list)
    source: InteractionRecord | None = None  # modal: the click the form answered
    fields: dict[str, str] = field(default_factory=dict)  # modal: what is typed into it


@dataclass
class PhaseResult:
    name: str
    duration: float = 0.0
    kinds: dict[str, Samples] = field(default_factory=dict)
    moves: int = 0
    games_finished: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    cpu: float = 0.0
    bench_cpu: float = 0.0
    rss_mb: float = 0.0
    peak_rss_mb: float = 0.0
    ready_s: float = 0.0
    requests: Counter[str] = field(default_factory=Counter)  # REST requests the bot made, by route
    move_kinds: set[str] = field(default_factory=set)  # the interaction kinds that are moves
    traces: dict[int, list[tuple[bool, Act]]] = field(default_factory=dict)

    def samples(self, kind: str) -> Samples:
        return self.kinds.setdefault(kind, Samples())

    def all_first(self) -> list[float]:
        return [v for s in self.kinds.values() for v in s.first]

    def all_image(self, *, moves_only: bool = False) -> list[float]:
        return [v for k, s in self.kinds.items() if not moves_only or k in self.move_kinds for v in s.image]


# ---- simulated players ----------------------------------------------------------------------------


def to_act(message: MessageRecord) -> list[int]:
    """Who the message says must act: "<@id>, your move", or the mentions of "Waiting for ..."."""
    found = MENTION_MOVE.findall(message.content)
    if found:
        return [int(found[-1])]
    for line in reversed(message.content.splitlines()):
        if line.startswith("Waiting for"):
            return [int(u) for u in MENTION.findall(line)]
    return []


def selects(message: MessageRecord) -> list[dict[str, Any]]:
    return [c for c in message.all_components() if c.get("type") == 3]


class Table:
    """One channel, its players, and the pace at which they act."""

    def __init__(
        self,
        phase: Phase,
        channel: Channel,
        players: list[User],
        kind: str,
        period: float,
        rng: random.Random,
    ) -> None:
        self.phase, self.emu = phase, phase.emu
        self.channel, self.players, self.kind = channel, players, kind
        self.period, self.rng = period, rng
        self.by_id = {u.id: u for u in players}
        self.next_at = 0.0
        self.trace: list[tuple[bool, Act]] = []  # (paced, interaction): what the floor bot replays
        self.paced = False
        self.refusals = 0  # moves refused in the game in play
        self.result = phase.result

    async def pace(self) -> None:
        """Wait for this table's next turn: one every ``period`` (at once when running late)."""
        loop = asyncio.get_running_loop()
        now = loop.time()
        if self.next_at > now:
            await asyncio.sleep(self.next_at - now)
            now = loop.time()
        if now >= self.phase.deadline:
            raise PhaseOver
        self.next_at = max(self.next_at, now - self.period) + self.period
        self.paced = True

    async def send(self, act: Act) -> InteractionRecord:
        emu, ch = self.emu, self.channel
        if act.how == "slash":
            return await emu.slash(act.user, ch, act.command, act.options)
        if act.how == "auto":
            return await emu.start_autocomplete(act.user, ch, act.command, act.options, focused=act.focused)
        if act.how == "modal":
            assert act.source is not None
            return await emu.submit_modal(act.user, act.source, values=act.fields)
        assert act.message is not None
        if act.how == "button":
            return await emu.click(act.user, act.message, act.custom_id)
        return await emu.select(act.user, act.message, act.custom_id, act.values)

    async def act(
        self, act: Act, *, move: bool = False, publication: bool = True, secret: bool = False
    ) -> tuple[InteractionRecord, MessageRecord | None]:
        """Send one interaction; wait for its answer and (with ``publication``) for the public message
        it causes. Returns the interaction and that message (None: the move was refused)."""
        self.trace.append((self.paced, act))
        self.paced = False
        seq = self.emu._message_seq
        rec = await self.send(act)
        try:
            response = await rec.response(timeout=10.0)
        except InteractionFailed:
            self.result.errors[f"{act.kind}: no answer in 3 s"] += 1
            raise Stuck(act.kind) from None
        samples = self.result.samples(act.kind)
        samples.first.append(response.latency)
        if response.message is not None and response.message.attachments:
            samples.image.append(response.latency)
        if not publication:
            return rec, None
        if response.ephemeral and not secret:
            return rec, None  # refused: answered privately, nothing posted
        bot = self.emu.bot_user
        pub = await self.emu.box(self.channel).wait(
            lambda m: not m.ephemeral and m.author is bot and m.seq > seq,
            seq,
            3.0 if secret else 10.0,
        )
        if pub is None:
            return rec, None
        if pub.attachments and pub is not response.message:
            samples.image.append(self.emu.stamps[pub.id] - rec.dispatched_at)
        if move:
            self.result.moves += 1
            self.result.move_kinds.add(act.kind)
        return rec, pub

    def refused(self, kind: str) -> None:
        self.result.errors[f"{kind}: refused"] += 1

    async def move(self, act: Act, *, secret: bool = False) -> MessageRecord | None:
        """Send a move; the public message it caused, or None when it was refused (counted: a game
        with more than three refusals is stuck)."""
        _, pub = await self.act(act, move=True, secret=secret)
        if pub is None:
            self.refused(act.kind)
            self.refusals += 1
            if self.refusals > 3:
                raise Stuck(self.kind)
        return pub

    # ---- a whole game -----------------------------------------------------------------------------

    async def run(self) -> None:
        """Play games back to back until the phase ends."""
        loop = asyncio.get_running_loop()
        self.next_at = loop.time() + self.rng.uniform(0, self.period)
        driver = {
            "procession": self.procession,
            "dots": self.dots,
            "updown": self.updown,
        }.get(self.kind, self.picks)
        stuck = 0
        left = self.phase.games_per_table
        try:
            while stuck < 5 and (left is None or left > 0):
                if left is not None:
                    left -= 1
                try:
                    self.refusals = 0
                    await driver()
                    self.result.games_finished += 1
                    stuck = 0
                except Stuck as exc:
                    self.result.errors[f"{self.kind}: game cancelled ({exc})"] += 1
                    stuck += 1
                    await self.cancel()
        except PhaseOver:
            pass

    async def cancel(self) -> None:
        with contextlib.suppress(Stuck):
            await self.act(
                Act("game cancel (slash)", self.players[0], "slash", "game cancel"), publication=False
            )

    async def maybe_status(self) -> None:
        if self.rng.random() < 0.05:
            user = self.rng.choice(self.players)
            await self.act(Act("game status (slash)", user, "slash", "game status"), publication=False)

    async def lobby(self, options: dict[str, Any]) -> MessageRecord:
        """Open a lobby, everyone joins by button, the host starts; the first board. Opening and
        starting take a turn each at the table's pace (joining follows at once)."""
        host, *others = self.players
        await self.pace()
        _, lobby = await self.act(Act("lobby new (slash)", host, "slash", f"{self.kind} new", options))
        if lobby is None:
            raise Stuck("lobby")
        join = next((c for c in lobby.custom_ids if c.endswith(":join")), None)
        start = next((c for c in lobby.custom_ids if c.endswith(":start")), None)
        if join is None or start is None:
            raise Stuck("lobby buttons")
        for user in others:
            await self.act(
                Act("lobby join (button)", user, "button", message=lobby, custom_id=join), publication=False
            )
        await self.pace()
        _, board = await self.act(
            Act("lobby start (button)", host, "button", message=lobby, custom_id=start),
            secret=True,
        )
        if board is None:
            raise Stuck("start")
        return board

    def actor(self, board: MessageRecord) -> User | None:
        ids = to_act(board)
        return self.by_id.get(ids[0]) if ids else None

    async def procession(self) -> None:
        board = await self.lobby({"n": self.rng.randint(4, 12)})
        while (user := self.actor(board)) is not None:
            await self.pace()
            await self.maybe_status()
            enabled = [b for b in board.buttons() if not b.get("disabled")]
            if not enabled:
                raise Stuck("procession: no button")
            button = self.rng.choice(enabled)
            if self.rng.random() < 0.5:
                act = Act(
                    "procession flip (button)", user, "button", message=board, custom_id=button["custom_id"]
                )
            else:
                position = int(button["label"])
                act = Act("procession flip (slash)", user, "slash", "procession flip", {"position": position})
            if (pub := await self.move(act)) is None:
                continue
            board = pub

    async def dots(self) -> None:
        post = await self.lobby({"size": self.rng.randint(3, 7)})
        while (user := self.actor(post)) is not None:
            await self.pace()
            await self.maybe_status()
            menus = selects(post)
            ends = [m for m in menus if m["custom_id"].endswith(":to")]
            if ends:
                end = self.rng.choice([o["value"] for o in ends[0]["options"]])
                if self.rng.random() < 0.6:
                    act = Act(
                        "dots line (select)",
                        user,
                        "select",
                        message=post,
                        custom_id=ends[0]["custom_id"],
                        values=[end],
                    )
                else:
                    act = Act("dots line (slash)", user, "slash", "dots line", {"to": end})
            else:
                starts = [o for m in menus for o in m["options"]]
                if not starts:
                    raise Stuck("dots: no menu")
                start = self.rng.choice(starts)
                targets = re.match(r"to ([A-J0-9, ]+)", start.get("description") or "")
                if targets is None:
                    raise Stuck("dots: unreadable start")
                end = self.rng.choice(targets.group(1).replace(" ", "").split(","))
                act = Act(
                    "dots line (slash)", user, "slash", "dots line", {"to": end, "from": start["value"]}
                )
            if (pub := await self.move(act)) is None:
                continue
            post = pub

    def dm_control(
        self, user: User, board: MessageRecord, verb: str
    ) -> tuple[MessageRecord, dict[str, Any]] | None:
        """Half the time, when the player's newest DM panel of this game offers ``verb``: that panel
        and its control (secret moves are mostly made from the DM panel; the rest by slash command)."""
        if self.rng.random() < 0.5:
            return None
        game = GAME_NO.search(board.content)
        panels = [m for m in self.emu.dm_messages(user) if game and f"game #{game.group(1)}" in m.content]
        if not panels:
            return None
        for component in panels[-1].all_components():
            if str(component.get("custom_id", "")).endswith(f":{verb}"):
                return panels[-1], component
        return None

    async def updown(self) -> None:
        board = await self.lobby({})
        predicting = True
        while True:
            if not predicting and "The reveal" in board.content:
                if not to_act(board):
                    return  # the game is over
                predicting = True  # a playoff: new hands, new predictions
            user = self.actor(board)
            if user is None:
                return
            await self.pace()
            await self.maybe_status()
            if predicting:
                letters = "".join(self.rng.choice("UDS") for _ in range(self.rng.randint(1, 3)))
                act = Act("updown predict (slash)", user, "slash", "updown predict", {"letters": letters})
            elif (dm := self.dm_control(user, board, "play")) is not None:
                panel, menu = dm
                card = self.rng.choice(menu["options"])["value"]
                act = Act("updown play (DM menu)", user, "select", message=panel, custom_id=menu["custom_id"])
                act.values = [card]
            else:
                auto = Act("updown play (autocomplete)", user, "auto", "updown play", {}, focused="card")
                rec, _ = await self.act(auto, publication=False)
                choices = rec.choices
                if not choices:
                    raise Stuck("updown: no card offered")
                card = self.rng.choice(choices)["value"]
                act = Act("updown play (slash)", user, "slash", "updown play", {"card": card})
            if (pub := await self.move(act, secret=True)) is None:
                continue
            board = pub
            if predicting and "places first" in board.content:
                predicting = False

    async def picks(self) -> None:
        """Numbers and Divisors: every player to act picks a value their autocomplete offers."""
        option = PICK_OPTION[self.kind]
        board = await self.lobby({})
        while (user := self.actor(board)) is not None:
            await self.pace()
            await self.maybe_status()
            auto = Act(
                f"{self.kind} pick (autocomplete)", user, "auto", f"{self.kind} pick", {}, focused=option
            )
            dm = self.dm_control(user, board, "pick")
            if dm is not None and dm[1].get("type") == 3:  # Divisors: the DM panel's menu of cards
                panel, menu = dm
                act = Act(
                    f"{self.kind} pick (DM menu)", user, "select", message=panel, custom_id=menu["custom_id"]
                )
                act.values = [self.rng.choice(menu["options"])["value"]]
            elif dm is not None:  # Numbers: the DM panel's Pick button opens a form
                panel, pick_button = dm
                click = Act(f"{self.kind} pick (DM button)", user, "button", message=panel)
                click.custom_id = pick_button["custom_id"]
                rec, _ = await self.act(click, publication=False)
                if rec.modal is None:
                    raise Stuck(f"{self.kind}: no form")
                left = STILL_TO_PLAY.search(panel.content)
                if left is None:
                    raise Stuck(f"{self.kind}: no numbers left on the panel")
                numbers = [
                    n
                    for part in left.group(1).split(", ")
                    for lo, _, hi in [part.partition("-")]
                    for n in range(int(lo), int(hi or lo) + 1)
                ]
                field_id = rec.modal["components"][0]["components"][0]["custom_id"]
                act = Act(f"{self.kind} pick (DM form)", user, "modal", source=rec)
                act.fields = {field_id: str(self.rng.choice(numbers))}
            else:
                rec, _ = await self.act(auto, publication=False)
                if not rec.choices:
                    raise Stuck(f"{self.kind}: nothing offered")
                value = self.rng.choice(rec.choices)["value"]
                act = Act(f"{self.kind} pick (slash)", user, "slash", f"{self.kind} pick", {option: value})
            if (pub := await self.move(act, secret=True)) is None:
                continue
            board = pub


class FloorTable(Table):
    """Sends the floor bot the interactions a table sent the real bot, at the same pace. Clicks and menu
    picks land on a stand-in message with one button and one menu."""

    def __init__(
        self, phase: Phase, channel: Channel, trace: list[tuple[bool, Act]], period: float, rng: random.Random
    ) -> None:
        super().__init__(phase, channel, [], "floor", period, rng)
        self.replay = trace
        self.stand_in = self.emu.create_message(
            channel,
            self.emu.bot_user,
            {
                "content": "floor",
                "components": [
                    {
                        "type": 1,
                        "components": [{"type": 2, "style": 2, "label": "B", "custom_id": "floor:b"}],
                    },
                    {
                        "type": 1,
                        "components": [
                            {"type": 3, "custom_id": "floor:s", "options": [{"label": "a", "value": "a"}]}
                        ],
                    },
                ],
            },
            dispatch=False,
        )

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        self.next_at = loop.time() + self.rng.uniform(0, self.period)
        try:
            for paced, act in self.replay:
                if paced:
                    await self.pace()
                if act.how in ("button", "modal"):
                    act = Act(act.kind, act.user, "button", message=self.stand_in, custom_id="floor:b")
                elif act.how == "select":
                    act = Act(
                        act.kind, act.user, "select", message=self.stand_in, custom_id="floor:s", values=["a"]
                    )
                try:
                    await self.act(act, publication=False)
                except Stuck:
                    pass
        except PhaseOver:
            pass


# ---- a phase --------------------------------------------------------------------------------------


@dataclass
class World:
    emu: BenchEmulator
    guild_id: int
    tables: list[tuple[Channel, list[User], str]]


class Phase:
    def __init__(self, world: World, name: str, duration: float) -> None:
        self.world, self.emu = world, world.emu
        self.result = PhaseResult(name)
        self.duration = duration
        self.deadline = math.inf
        self.games_per_table: int | None = None  # --cost: each table plays this many games, then stops

    async def run(self, tables: list[Table]) -> None:
        loop = asyncio.get_running_loop()
        start = loop.time()
        self.deadline = start + self.duration if self.games_per_table is None else math.inf
        await asyncio.gather(*(t.run() for t in tables))
        self.result.duration = loop.time() - start
        self.result.traces = {t.channel.id: t.trace for t in tables}


async def run_bot_phase(
    args: argparse.Namespace,
    world: World,
    name: str,
    mode: str,
    db: Path,
    workdir: Path,
    *,
    period: float,
    duration: float,
    replay: PhaseResult | None = None,
    games_per_table: int | None = None,
) -> PhaseResult:
    print(f"  {name} ...", flush=True)
    phase = Phase(world, name, duration + (2.0 if replay is not None else 0.0))
    phase.games_per_table = games_per_table
    bot = BotProcess(world.emu, mode, db, world.guild_id, workdir / f"{mode}.log")
    phase.result.ready_s = await bot.start()
    try:
        # The first interaction answered is part of becoming useful: wait for the command sync.
        await asyncio.sleep(0.2)
        if args.profile is not None:
            args.profile.mkdir(parents=True, exist_ok=True)
            bot.profile(args.profile / (re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-") + ".txt"))
            await asyncio.sleep(0.5)
        rng = random.Random(args.seed)
        tables: list[Table]
        if replay is None:
            tables = [
                Table(phase, ch, players, kind, period, random.Random(rng.random()))
                for ch, players, kind in world.tables
            ]
        else:
            tables = [
                FloorTable(phase, ch, replay.traces.get(ch.id, []), period, random.Random(rng.random()))
                for ch, _, _ in world.tables
            ]
        cpu0, bench0, seen = cpu_seconds(bot.pid), _own_cpu(), len(world.emu.requests)
        await phase.run(tables)
        phase.result.cpu = cpu_seconds(bot.pid) - cpu0
        phase.result.bench_cpu = _own_cpu() - bench0
        phase.result.requests.update(f"{r.method} {r.route or r.path}" for r in world.emu.requests[seen:])
        phase.result.rss_mb, phase.result.peak_rss_mb = memory_mb(bot.pid)
        with contextlib.suppress(Exception):  # let the last boards' follow-ups finish before stopping
            await world.emu.wait_idle(quiet=0.3, timeout=10)
    finally:
        await bot.stop()
    world.emu.requests.clear()  # what the bot sent (images included): not needed any more
    return phase.result


def _own_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


# ---- stored games ---------------------------------------------------------------------------------


def playouts(kinds: list[str], per_kind: int, rng: random.Random) -> dict[str, list[tuple[Any, ...]]]:
    """Random complete games of each kind: (options, players, seed, [(seat, action, state after)])."""
    pool: dict[str, list[tuple[Any, ...]]] = {}
    for kind in kinds:
        rules = RULES[kind]
        games = []
        for _ in range(per_kind):
            options = {o.name: rng.randint(o.min, min(o.max, o.default + 2)) for o in rules.OPTIONS}
            players = rng.randint(rules.MIN_PLAYERS, min(rules.MAX_PLAYERS, 4))
            seed = rng.getrandbits(63)
            state = rules.new_game(players, options, seed)
            history = [(None, None, state)]
            while rules.outcome(state) is None and len(history) < 500:
                seat = rng.choice(sorted(rules.to_act(state)))
                actions = [a for a in rules.legal_actions(state, seat) if a.get("type") != "drop"]
                action = dict(rng.choice(actions or rules.legal_actions(state, seat)))
                state = play(rules, state, seat, action)
                history.append((seat, action, state))
            games.append((options, players, seed, history))
        pool[kind] = games
    return pool


def dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


async def make_database(path: Path, kinds: list[str], active: int, finished: int, seed: int) -> float:
    """A database at the bot's current schema holding ``active`` live games (each mid-game, in a channel
    of its own) and ``finished`` finished ones, with their seats and move logs; seconds taken.

    Games are prefixes of a pool of random playouts, written in one transaction."""
    from bot.storage import Storage

    t0 = time.perf_counter()
    storage = await Storage.open(str(path))
    await storage.close()
    rng = random.Random(seed)
    pool = playouts(kinds, 24, rng)
    # Each playout's states and actions as JSON, once.
    encoded = {
        kind: [
            (
                [dumps(state.to_dict()) for _, _, state in history],
                [(seat, dumps(action)) for seat, action, _ in history[1:]],
            )
            for _, _, _, history in games
        ]
        for kind, games in pool.items()
    }
    now = time.time()
    plan = []  # (game id, live, kind, playout, moves made, created, user ids)
    for i in range(active + finished):
        live = i < active
        kind = kinds[i % len(kinds)]
        k = rng.randrange(len(pool[kind]))
        length = len(pool[kind][k][3])
        upto = rng.randrange(1, length) if live and length > 1 else length
        created = now - rng.uniform(60, 3600) if live else now - rng.uniform(3600, 90 * 86400)
        users = rng.sample(range(10**15, 10**15 + 50_000), pool[kind][k][1])
        plan.append((i + 1, live, kind, k, upto, created, users))

    def games() -> Any:
        for game_id, live, kind, k, upto, created, users in plan:
            options, _, game_seed, history = pool[kind][k]
            outcome = None if live else RULES[kind].outcome(history[upto - 1][2])
            yield (
                game_id,
                kind,
                10**14,
                10**16 + game_id,  # a channel of its own: one live game per channel
                "active" if live else "finished",
                users[0],
                dumps(options),
                game_seed,
                encoded[kind][k][0][upto - 1],
                None if outcome is None else dumps(outcome.to_dict()),
                upto,
                created,
                created + 60,
            )

    def seats() -> Any:
        for game_id, _, _, _, _, _, users in plan:
            for position, user_id in enumerate(users):
                yield (game_id, position, user_id, f"player{user_id % 1000}")

    def moves() -> Any:
        for game_id, _, kind, k, upto, created, _ in plan:
            for seq, (seat, action) in enumerate(encoded[kind][k][1][: upto - 1], start=1):
                yield (game_id, seq, seat, action, created + seq)

    def waits() -> Any:
        for game_id, live, kind, k, upto, _, _ in plan:
            if live:
                for seat in sorted(RULES[kind].to_act(pool[kind][k][3][upto - 1][2])):
                    yield (game_id, seat, now, now + 86400)

    conn = sqlite3.connect(path, isolation_level=None)
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    conn.execute("BEGIN")
    conn.executemany(
        "INSERT INTO games (id, kind, guild_id, channel_id, status, host_id, options, seed, state, result, "
        "version, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        games(),
    )
    conn.executemany("INSERT INTO seats (game_id, position, user_id, name) VALUES (?, ?, ?, ?)", seats())
    conn.executemany(
        "INSERT INTO moves (game_id, seq, seat, action, created_at) VALUES (?, ?, ?, ?, ?)", moves()
    )
    if "waits" in tables:  # the deadlines of the seats each live game waits for
        conn.executemany("INSERT INTO waits (game_id, seat, since, deadline) VALUES (?, ?, ?, ?)", waits())
    conn.execute("COMMIT")
    conn.close()
    return time.perf_counter() - t0


# ---- the report -----------------------------------------------------------------------------------


def ms(value: float) -> str:
    return "-" if math.isnan(value) else f"{value * 1000:.1f}"


def ratio(a: float, b: float) -> str:
    return "-" if math.isnan(a) or math.isnan(b) or b == 0 else f"{a / b:.2f}x"


def change(a: float, b: float) -> str:
    return "-" if math.isnan(a) or math.isnan(b) or a == 0 else f"{(b - a) / a * 100:+.0f}%"


def print_phases(results: list[PhaseResult]) -> None:
    print()
    print(
        f"{'phase':32} {'interactions':>12} {'moves':>6} {'moves/s':>8} {'games':>6} {'REST/move':>9} "
        f"{'bot CPU':>8} {'per move':>9} {'bot CPU':>8} {'bench CPU':>9} {'RSS':>6} {'peak RSS':>8} "
        f"{'ready':>6}"
    )
    for r in results:
        per_move = f"{r.cpu / r.moves * 1000:.1f} ms" if r.moves else "-"
        rest = f"{sum(r.requests.values()) / r.moves:.1f}" if r.moves else "-"
        print(
            f"{r.name:32} {len(r.all_first()):>12} {r.moves:>6} {r.moves / r.duration:>8.1f} "
            f"{r.games_finished:>6} {rest:>9} {r.cpu:>7.2f}s {per_move:>9} {r.cpu / r.duration * 100:>7.0f}% "
            f"{r.bench_cpu / r.duration * 100:>8.0f}% {r.rss_mb:>4.0f}MB {r.peak_rss_mb:>6.0f}MB "
            f"{r.ready_s:>5.2f}s"
        )
    for r in results:
        if r.errors:
            print(f"  {r.name}: " + "; ".join(f"{k} x{v}" for k, v in sorted(r.errors.items())))
    ours = results[0]
    if ours.moves:
        print(
            f"  REST requests per move ({ours.name}): "
            + ", ".join(f"{route} {n / ours.moves:.2f}" for route, n in ours.requests.most_common(8))
        )


def print_first(ours: PhaseResult, floor: PhaseResult | None) -> None:
    print()
    print("First response (ms): INTERACTION_CREATE sent -> the bot's first answer received")
    head = f"{'interaction':32} {'n':>6} {'p50':>7} {'p95':>7} {'p99':>7}"
    if floor is not None:
        head += f" | {'floor p50':>9} {'p99':>6} | {'x p50':>6} {'x p99':>6}"
    print(head)
    rows = [
        (k, ours.kinds[k].first, floor.kinds.get(k, Samples()).first if floor else [])
        for k in sorted(ours.kinds)
    ]
    rows.append(("all interactions", ours.all_first(), floor.all_first() if floor else []))
    for kind, values, base in rows:
        p50, p95, p99 = (pct(values, p) for p in (50, 95, 99))
        line = f"{kind:32} {len(values):>6} {ms(p50):>7} {ms(p95):>7} {ms(p99):>7}"
        if floor is not None:
            b50, b99 = pct(base, 50), pct(base, 99)
            line += f" | {ms(b50):>9} {ms(b99):>6} | {ratio(p50, b50):>6} {ratio(p99, b99):>6}"
        print(line)


def print_images(results: list[PhaseResult]) -> None:
    print()
    print("Board image received (ms): INTERACTION_CREATE sent -> the board's image received")
    print(f"{'interaction':32} " + " ".join(f"{r.name.split(':')[0][:22]:>22}" for r in results))
    print(f"{'':32} " + " ".join(f"{'n':>5} {'p50':>5} {'p95':>5} {'p99':>5}" for _ in results))
    kinds = sorted({k for r in results for k, s in r.kinds.items() if s.image})
    for kind in [*kinds, "all boards", "boards after moves"]:
        cells = []
        for r in results:
            if kind in ("all boards", "boards after moves"):
                values = r.all_image(moves_only=kind != "all boards")
            else:
                values = r.kinds.get(kind, Samples()).image
            cells.append(
                f"{len(values):>5} {ms(pct(values, 50)):>5} {ms(pct(values, 95)):>5} {ms(pct(values, 99)):>5}"
            )
        print(f"{kind:32} " + " ".join(cells))


def print_scale(small: PhaseResult, big: PhaseResult) -> None:
    print()
    print(f"Stored games: {small.name} vs {big.name}")
    print(
        f"{'':32} {'p50':>7} {'p50':>7} {'':>6} {'p95':>7} {'p95':>7} {'':>6} {'p99':>7} {'p99':>7} {'':>6}"
    )
    for label, a, b in (
        ("first response (all)", small.all_first(), big.all_first()),
        ("board image (after moves)", small.all_image(moves_only=True), big.all_image(moves_only=True)),
    ):
        cells = []
        for p in (50, 95, 99):
            x, y = pct(a, p), pct(b, p)
            cells.append(f"{ms(x):>7} {ms(y):>7} {change(x, y):>6}")
        print(f"{label:32} " + " ".join(cells))


def run_renders(quick: bool) -> list[str]:
    lines = []
    for script in sorted(BENCH.glob("render_*.py")):
        cmd = [sys.executable, str(script), *(["--quick"] if quick else [])]
        out = subprocess.run(cmd, capture_output=True, text=True, cwd=str(REPO), check=False)
        lines.extend(
            out.stdout.strip().splitlines() or [f"{script.name}: failed: {out.stderr.strip()[-200:]}"]
        )
    return lines


def check(name: str, ok: bool, detail: str) -> str:
    return f"  [{'met ' if ok else 'MISS'}] {name}: {detail}"


def targets(
    ours: PhaseResult, floor: PhaseResult | None, big: PhaseResult | None, renders: list[str], games: int
) -> list[str]:
    out = []
    if floor is not None:
        a50, b50 = pct(ours.all_first(), 50), pct(floor.all_first(), 50)
        a99, b99 = pct(ours.all_first(), 99), pct(floor.all_first(), 99)
        out.append(check("first response p50 within 2x of the floor", a50 <= 2 * b50, ratio(a50, b50)))
        out.append(check("first response p99 within 3x of the floor", a99 <= 3 * b99, ratio(a99, b99)))
    i99 = pct(ours.all_image(moves_only=True), 99)
    out.append(
        check(f"board image after a move p99 under 50 ms ({games} games)", i99 <= 0.050, f"{ms(i99)} ms")
    )
    rate = ours.moves / ours.duration
    out.append(
        check("200 moves per second sustained", rate >= 200, f"{rate:.0f} moves/s reached in the paced run")
    )
    if big is not None:
        for label, a, b in (
            ("first response", ours.all_first(), big.all_first()),
            ("board image", ours.all_image(moves_only=True), big.all_image(moves_only=True)),
        ):
            for p in (50, 95):
                x, y = pct(a, p), pct(b, p)
                out.append(
                    check(
                        f"{label} p{p} with 10,000 stored live games within 20%", y <= 1.2 * x, change(x, y)
                    )
                )
        out.append(
            check("start-to-ready under 3 s with 10,000 live games", big.ready_s < 3, f"{big.ready_s:.2f} s")
        )
        out.append(
            check(
                "peak RSS under 150 MB with 10,000 live games",
                big.peak_rss_mb < 150,
                f"{big.peak_rss_mb:.0f} MB",
            )
        )
    for line in renders:
        m = re.search(r"median ([\d.]+) ms", line)
        if m and "target" in line:
            out.append(
                check(f"render under 5 ms: {line.split(':')[0]}", float(m.group(1)) < 5, f"{m.group(1)} ms")
            )
    return out


# ---- main -----------------------------------------------------------------------------------------


def fresh_copy(template: Path, name: str) -> Path:
    """A copy of a database for one phase (a phase leaves games in play in the channels)."""
    path = template.with_name(f"{name}.sqlite3")
    shutil.copyfile(template, path)
    return path


def available_kinds() -> tuple[list[str], list[str]]:
    present, skipped = [], []
    for kind in ALL_KINDS:
        hosted = (REPO / "cogs" / kind / "__init__.py").exists() or (REPO / "cogs" / f"{kind}.py").exists()
        (present if hosted and kind in RULES else skipped).append(kind)
    return present, skipped


def build_world(emu: BenchEmulator, games: int, kinds: list[str]) -> World:
    guild = emu.add_guild("Bench Server")
    tables = []
    for i in range(games):
        kind = kinds[i % len(kinds)]
        channel = emu.add_text_channel(guild, f"{kind}-{i}")
        players = [emu.add_user(f"p{i}x{j}", guilds=[guild]) for j in range(2)]
        tables.append((channel, players, kind))
    return World(emu, guild.id, tables)


async def main_async(args: argparse.Namespace) -> None:
    kinds, skipped = available_kinds()
    period = args.games / args.rate
    workdir = Path(tempfile.mkdtemp(prefix="quetbot-load-", dir=args.db_dir))
    print(
        f"Load benchmark: {args.games} games ({', '.join(kinds)}"
        + (f"; skipped, no cog yet: {', '.join(skipped)}" if skipped else "")
        + f"), offered {args.rate:.0f} moves/s (each table acts every {period * 1000:.0f} ms), "
        f"{args.duration:.0f} s per phase; bot logs in {workdir}"
    )
    print("  machine: {} CPUs, load average {:.2f} {:.2f} {:.2f}".format(os.cpu_count(), *os.getloadavg()))
    small_db, big_db = workdir / "small.sqlite3", workdir / "big.sqlite3"
    took = await make_database(small_db, kinds, 10, 0, args.seed)
    print(f"  database with 10 live games: {took:.1f} s")
    if not args.no_scale and not args.cost:
        took = await make_database(big_db, kinds, args.active, args.finished, args.seed)
        size = big_db.stat().st_size / 2**20
        what = f"{args.active:,} live and {args.finished:,} finished games"
        print(f"  database with {what}: {took:.1f} s, {size:.0f} MB")

    emu = BenchEmulator()
    await emu.start()
    if args.cost:
        try:
            await cost_run(args, build_world(emu, args.games, kinds), small_db, workdir)
        finally:
            await emu.stop()
            if not args.keep:
                shutil.rmtree(workdir, ignore_errors=True)
        return
    results: list[PhaseResult] = []
    floor = big = saturated = floor_max = None

    async def phase(
        name: str, mode: str, db: Path, *, paced: bool = True, replay: PhaseResult | None = None
    ) -> PhaseResult:
        """One phase on ``world``, kept in ``results``: paced at ``period``, or unpaced for half as long."""
        result = await run_bot_phase(
            args,
            world,
            name,
            mode,
            db,
            workdir,
            period=period if paced else 0.0,
            duration=args.duration if paced else args.duration / 2,
            replay=replay,
        )
        results.append(result)
        return result

    try:
        world = build_world(emu, args.games, kinds)
        ours = await phase("quetbot: 10 stored games", "quetbot", fresh_copy(small_db, "paced"))
        if not args.no_floor:
            floor = await phase("floor: bare discord.py bot", "floor", small_db, replay=ours)
        if not args.no_scale:
            big = await phase(f"quetbot: {args.active:,} live games", "quetbot", big_db)
        if not args.quick:
            unpaced_db = fresh_copy(small_db, "unpaced")
            saturated = await phase("quetbot: unpaced (throughput)", "quetbot", unpaced_db, paced=False)
            if not args.no_floor:
                floor_max = await phase("floor: unpaced", "floor", small_db, paced=False, replay=saturated)
    finally:
        await emu.stop()
    renders = [] if args.no_render else run_renders(args.quick)

    print_phases(results)
    print_first(ours, floor)
    print_images([r for r in results if not r.name.startswith("floor")])
    if big is not None:
        print_scale(ours, big)
    if renders:
        print()
        print("Render (median of the largest board of each game)")
        for line in renders:
            print(f"  {line}")
    print()
    load = "{:.2f} {:.2f} {:.2f}".format(*os.getloadavg())
    print(f"  machine load average at the end: {load} (other work on the machine skews every figure)")
    print()
    print("Targets")
    for line in targets(ours, floor, big, renders, args.games):
        print(line)
    if saturated is not None and saturated.moves:
        ours_rate = len(saturated.all_first()) / saturated.duration
        line = (
            f"  Unpaced, the bot reached {saturated.moves / saturated.duration:.0f} moves/s "
            f"({ours_rate:.0f} interactions/s)"
        )
        if floor_max is not None and floor_max.duration:
            floor_rate = len(floor_max.all_first()) / floor_max.duration
            per_move = len(saturated.all_first()) / saturated.moves
            line += (
                f"; the floor answered the same interactions at {floor_rate:.0f}/s: discord.py and the "
                f"emulator alone cap this mix at {floor_rate / per_move:.0f} moves/s on this machine"
            )
        print(line + ".")
    if emu.internal_errors:
        print(
            f"\nThe emulator failed {len(emu.internal_errors)} time(s); the first:\n{emu.internal_errors[0]}"
        )
    if not args.keep:
        shutil.rmtree(workdir, ignore_errors=True)


async def cost_run(args: argparse.Namespace, world: World, db: Path, workdir: Path) -> None:
    """--cost K: a fixed amount of work, unpaced (every table plays K games, then stops), so that two
    builds can be compared by the bot's CPU time per move without the noise of a timed phase."""
    runs = []
    for i in range(args.repeat):
        result = await run_bot_phase(
            args,
            world,
            f"quetbot: {args.cost} games per table" + (f" (run {i + 1})" if args.repeat > 1 else ""),
            "quetbot",
            fresh_copy(db, f"cost{i}"),
            workdir,
            period=0.0,
            duration=0.0,
            games_per_table=args.cost,
        )
        runs.append(result)
    print_phases(runs)
    print()
    for r in runs:
        n = len(r.all_first())
        print(
            f"  {r.name}: {r.games_finished} games, {r.moves} moves, {n} interactions in {r.duration:.1f} s; "
            f"bot CPU {r.cpu / r.moves * 1000:.2f} ms per move, {r.cpu / n * 1000:.2f} ms per interaction; "
            f"first answer p50 {pct(r.all_first(), 50) * 1000:.1f} ms"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=50, help="concurrent games (default 50)")
    parser.add_argument(
        "--quick", action="store_true", help="short phases, fewer stored games (about a minute)"
    )
    parser.add_argument(
        "--rate", type=float, default=200.0, help="moves per second offered by all tables together"
    )
    parser.add_argument("--duration", type=float, help="seconds per phase (default 30, quick 8)")
    parser.add_argument("--active", type=int, default=10_000, help="stored live games for the scale phase")
    parser.add_argument("--finished", type=int, help="stored finished games (default 100,000, quick 20,000)")
    parser.add_argument("--no-floor", action="store_true", help="skip the bare-bot floor")
    parser.add_argument("--no-scale", action="store_true", help="skip the stored-games phase")
    parser.add_argument("--no-render", action="store_true", help="skip the render benchmarks")
    parser.add_argument("--profile", type=Path, help="record each bot phase with py-spy into this folder")
    parser.add_argument("--db-dir", help="where the databases go (default: the system's temp folder)")
    parser.add_argument("--keep", action="store_true", help="keep the databases and bot logs")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--cost",
        type=int,
        metavar="K",
        help="only a fixed amount of work: every table plays K games, unpaced",
    )
    parser.add_argument("--repeat", type=int, default=1, help="with --cost: how many runs")
    args = parser.parse_args()
    if args.duration is None:
        args.duration = 8.0 if args.quick else 30.0
    if args.finished is None:
        args.finished = 20_000 if args.quick else 100_000
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
