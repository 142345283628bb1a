"""Load benchmark: many concurrent games through the loopback Discord emulator, against the bot run as
a process of its own, compared with two bare discord.py bots (the floors), and again with 10,000
stored live games.

    python bench/load.py [--games N] [--quick] [--rate MOVES_PER_S] [--duration S] [--profile DIR]
    python bench/load.py --cost K [--repeat R]     (a fixed amount of work, to compare two builds)
    python bench/load.py --scale-out [--quick] [--rounds R]   (SQLite against PostgreSQL, 1 process
                                                               against 2)

The emulator (tests/emulator) runs in this process; the bot runs as ``python bench/launch_bot.py``,
which points discord.py at the emulator and starts ``quetbot``'s own entry point. Simulated players
play N games at once (every game whose cog exists: Procession and Dots by buttons, menus and commands,
Up-Down-Stay, Numbers and Divisors half from the DM panel and half by slash command with autocomplete),
new games following finished ones until the phase ends. A table follows the boards of its own game
("game #N", the components' ``q:N:...`` ids) in its channel, or in the thread started from the lobby
message (whose id is the lobby's), and takes an edit of the current board (a secret pick told by its
status line) as the news of a move as well as a new message. A player who moves from a DM panel uses
the panel as it stands for the move now due: one changed (created or edited) after the board that
named them, not the previous round's. The phases:

1. capacity: the bot unpaced (each table moves as soon as it has seen the last board): the moves per
   second it sustains, and the moves per CPU-second of the bot;
2. the bot on a database holding 10 stored live games, each table paced so that together they offer
   half of that capacity (``--rate`` sets the offer instead): latency below saturation;
3. the text floor: bench/floor_bot.py, a bare discord.py client answering every interaction with a
   fixed text, receiving the very interactions of phase 2 (same tables, same pacing);
4. the image floor: the same client answering every interaction with a PNG of a typical board's size
   (the median board image the bot posted in phase 2) as an attachment, again phase 2's interactions;
5. the bot on a database holding 10,000 live and 100,000 finished games (start-to-ready is timed);
6. (not with ``--quick``) the text floor unpaced on phase 1's interactions: what discord.py and the
   emulator alone can carry;
7. the render benchmarks (bench/render_*.py): the median time of each game's largest board.

Latencies are taken in the emulator: from the moment INTERACTION_CREATE is written to the bot's
gateway to the bot's first answer (the interaction callback), and to the board image (the first
public message with an attachment that the move caused). The bot's CPU time (with that of its
worker processes, which draw boards and think for computers) and peak RSS come from /proc. The
targets are ratios to the image floor measured in the same run (they print [met]/[MISS], they never
fail the run). ``--quick`` (about a minute) uses short phases and 20,000 finished games.
``--profile`` samples the bot with py-spy while it holds the GIL, which shows where its CPU time goes.

``--scale-out`` runs only this: the same tables (N games, default 50, quick 20, over two servers, one
on each shard of 2, so that the DM moves of the games on shard 1 arrive at the other process) on the
same stored games, in three setups: SQLite with one bot process, PostgreSQL with one, and PostgreSQL
with two (``QUETBOT_SHARD_COUNT=2``, ``QUETBOT_SHARDS=0`` and ``1``). Commands are synced globally (no
development server) so that both servers have them. PostgreSQL is a throwaway server (tests/pg.py's,
made with initdb in the temporary folder) with a production server's durability, the WAL fsynced at
each commit as SQLite's ``synchronous=FULL`` does; the CPU time of its processes (from /proc: the
postmaster, its children, and the children that ended) is counted apart from the bot's. Each setup
runs unpaced (its capacity), then every setup paced at one offer (half the lowest capacity, or
``--rate``); each phase ``--rounds`` times (default 2, quick 1), the setups' order reversed every other
round so that whatever else the machine runs weighs on each alike; and (not with ``--quick``) one
PostgreSQL process paced at half the offer, the load each of the two processes carries. Everything
is measured from a third into each phase to its end (the first lobbies, all opened at once, and the
caches each process fills as it starts are left out). It prints CPU per move and latency (p50, p99:
first answer, board after a move) on SQLite and PostgreSQL side by side with their ratio, and for one
process against two the moves per bot-CPU-second (both processes' CPU summed), with PostgreSQL's
CPU added, and the throughput, against the target (two processes at most 10% below one). Quick:
about 45 s.
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg

REPO = Path(__file__).resolve().parents[1]
BENCH = REPO / "bench"
sys.path.insert(0, str(REPO))

import warnings  # noqa: E402

with warnings.catch_warnings():
    warnings.filterwarnings("ignore", "'audioop' is deprecated", DeprecationWarning)
    import discord  # noqa: F401

from bench.launch_bot import start_bot  # noqa: E402
from bot.registry import RULES, SCORE_RANKED  # noqa: E402
from bot.rules import play  # noqa: E402
from tests.emulator import DiscordEmulator, InteractionFailed  # noqa: E402
from tests.emulator.models import Channel, InteractionRecord, MessageRecord, Perm, User, shard_of  # noqa: E402
from tests.pg import USER, PostgresServer, Unavailable, _ensure_user, binaries, free_port  # noqa: E402

TOKEN = "bench.bot.token"
ALL_KINDS = ("procession", "dots", "updown", "numbers", "divisors")
PICK_OPTION = {"numbers": "number", "divisors": "card"}  # /<kind> pick <option>
MENTION_MOVE = re.compile(r"<@(\d+)>, your move")
MENTION = re.compile(r"<@(\d+)>")
GAME_NO = re.compile(r"game #(\d+)\b")
GAME_ID = re.compile(r"q:(\d+):")  # a component's custom_id: q:<game>:<version or ->:<verb>[:<arg>]
DOT = re.compile(r"\b[A-J](?:10|[1-9])\b")
# Numbers' panel: the unused numbers ("Still yours: 1-17, 19-63", was "Yours still to play (61): ...")
STILL_TO_PLAY = re.compile(r"still[^:\n]*:\s*(\d[\d, -]*)", re.IGNORECASE)
# The verbs of the controls a live board carries (a move's, or the secret games' My hand); a button
# such as the rules may stay on a finished board.
LIVE_VERBS = frozenset({"flip", "to", "from", "mine", "pick", "play", "predict"})
TYPICAL_BOARD = 16_000  # bytes: the image floor's PNG is the board nearest this size (15-25 kB typical)
PANEL_WITHIN = 1.5  # seconds a player waits for their DM panel to show the move now due
THREAD_PERMISSIONS = Perm.CREATE_PUBLIC_THREADS | Perm.SEND_MESSAGES_IN_THREADS | Perm.MANAGE_THREADS


class PhaseOver(Exception):
    """The phase's time is up: the table stops where it is."""


class Stuck(Exception):
    """A game went somewhere the simulated players cannot follow; it is cancelled."""


# ---- the emulator, with a mailbox per channel -----------------------------------------------------


def verb_of(custom_id: str) -> str:
    parts = custom_id.split(":")
    return parts[3] if len(parts) > 3 and parts[0] == "q" else ""


@dataclass(frozen=True)
class Event:
    """One version of a message the bot created or edited, as it was then (a message is edited in
    place, so its later versions do not say what this one said)."""

    no: int  # the emulator's running count of the bot's creates and edits
    at: float  # loop time
    message: MessageRecord
    content: str
    custom_ids: tuple[str, ...]
    image: bool
    created: bool  # a new message (or a "thinking" answer edited into the answer: it arrives now)
    said: bool  # created, or edited with a text (not only its controls taken off)

    @property
    def public(self) -> bool:
        return not self.message.ephemeral

    def games(self) -> set[int]:
        """The games this version names: "game #N" in its text, q:N:... in its components."""
        named = {int(n) for n in GAME_NO.findall(self.content)}
        return named | {int(m.group(1)) for c in self.custom_ids if (m := GAME_ID.match(c))}

    def controls(self, game: int) -> set[str]:
        """The verbs of the components of ``game`` this version carries."""
        return {verb_of(c) for c in self.custom_ids if c.startswith(f"q:{game}:")}


def to_act(content: str, live: bool) -> list[int]:
    """Who a board says must act: "<@id>, your move", the mentions of "Waiting for ...", or (the texts
    may change) on a board that still has its game's controls, the mentions on its last line that has
    any (the status line comes last)."""
    found = MENTION_MOVE.findall(content)
    if found:
        return [int(found[-1])]
    lines = content.splitlines()
    for line in reversed(lines):
        if line.startswith("Waiting for"):
            return [int(u) for u in MENTION.findall(line)]
    if live:
        for line in reversed(lines):
            if ids := MENTION.findall(line):
                return [int(u) for u in ids]
    return []


class Mailbox:
    """The versions of the bot's messages in one place (a channel with its threads, or one player's
    DMs; ephemeral messages too), in order."""

    def __init__(self) -> None:
        self.events: list[Event] = []
        self.changed = asyncio.Event()

    def put(self, event: Event) -> None:
        self.events.append(event)
        self.changed.set()
        self.changed = asyncio.Event()

    def since(self, no: int) -> list[Event]:
        """The events after event number ``no``, oldest first."""
        return self.events[bisect.bisect_right(self.events, no, key=lambda e: e.no) :]

    async def wait(self, predicate: Callable[[Event], bool], after: int, within: float) -> Event | None:
        """The first event after number ``after`` matching ``predicate``, or None after ``within`` s."""
        loop = asyncio.get_running_loop()
        end = loop.time() + within
        i = bisect.bisect_right(self.events, after, key=lambda e: e.no)
        while True:
            changed = self.changed
            for event in self.events[i:]:
                if predicate(event):
                    return event
            i = len(self.events)
            remaining = end - loop.time()
            if remaining <= 0:
                return None
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), remaining)


class BenchEmulator(DiscordEmulator):
    """The test emulator without the OpenAPI check (it would cost more than the bot under test), which
    records every version of every message the bot creates or edits (`Event`) in the mailbox of its
    place: a channel and its threads share one, each player's DMs have one."""

    def __init__(self) -> None:
        super().__init__(validate_schema=False, token=TOKEN)
        self.event_no = 0
        self.latest: dict[int, Event] = {}  # message id -> its newest version
        self.boxes: dict[int, Mailbox] = {}
        self.images: list[bytes] = []  # the images of the public messages the bot created

    def box(self, channel: Channel) -> Mailbox:
        """The mailbox of a channel (its threads' messages included) or of a DM channel."""
        if channel.is_thread and channel.parent is not None:
            channel = channel.parent
        key = -channel.recipient.id if channel.is_dm and channel.recipient is not None else channel.id
        box = self.boxes.get(key)
        if box is None:
            box = self.boxes[key] = Mailbox()
        return box

    def dm_box(self, user: User) -> Mailbox:
        box = self.boxes.get(-user.id)
        if box is None:
            box = self.boxes[-user.id] = Mailbox()
        return box

    def _record(self, message: MessageRecord, *, created: bool, said: bool) -> None:
        self.event_no += 1
        event = Event(
            no=self.event_no,
            at=asyncio.get_running_loop().time(),
            message=message,
            content=message.content,
            custom_ids=tuple(message.custom_ids),
            image=bool(message.attachments),
            created=created,
            said=said,
        )
        self.latest[message.id] = event
        if created and event.image and not message.ephemeral:
            self.images.append(message.attachments[0].data)
        self.box(message.channel).put(event)

    def create_message(self, channel: Channel, author: User, body: dict[str, Any], *a: Any, **k: Any) -> Any:
        message = super().create_message(channel, author, body, *a, **k)
        if author is self.bot_user and not message.loading:
            self._record(message, created=True, said=True)
        return message

    def edit_message(self, message: MessageRecord, body: dict[str, Any], *a: Any, **k: Any) -> None:
        was_loading = message.loading
        super().edit_message(message, body, *a, **k)
        if message.author is self.bot_user:
            self._record(message, created=was_loading, said=was_loading or "content" in body)


# ---- the bot as a process -------------------------------------------------------------------------

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


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
    def __init__(
        self,
        emu: BenchEmulator,
        mode: str,
        db: Path,
        guild_id: int,
        log: Path,
        extra_env: dict[str, str] | None = None,
    ) -> None:
        self.emu, self.mode, self.db, self.guild_id, self.log = emu, mode, db, guild_id, log
        self.extra_env = extra_env
        self.proc: asyncio.subprocess.Process | None = None
        self.profiler: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    async def start(self) -> float:
        """Start the process; seconds until the client reported ready."""
        self.proc, ready = await start_bot(
            self.mode,
            emu=self.emu,
            token=TOKEN,
            db=self.db,
            guild_id=self.guild_id,
            log=self.log,
            extra_env=self.extra_env,
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
    """One interaction a player sends (kept so the floor bots can be sent the same ones)."""

    kind: str
    user: User
    how: str  # slash | auto | button | select | modal
    command: str = ""
    options: dict[str, Any] = field(default_factory=dict)
    focused: str = ""
    message: MessageRecord | None = None
    custom_id: str = ""
    values: list[str] = field(default_factory=list)
    source: InteractionRecord | None = None  # modal: the click the form answered (on ``message``)
    fields: dict[str, str] = field(default_factory=dict)  # modal: what is typed into it


@dataclass
class Steady:
    """What a phase did between its warm-up (every table opening its first lobby at once) and its end
    (the tables' last moves after that are not waited for)."""

    seconds: float = 0.0
    moves: int = 0
    turns: int = 0
    cpu: float = 0.0  # of the bot's processes, together
    server_cpu: float = math.nan  # of the database server's processes (PostgreSQL; nan: none)
    kinds: dict[str, Samples] = field(default_factory=dict)  # the latencies of the answers meanwhile

    def first(self) -> list[float]:
        return [v for s in self.kinds.values() for v in s.first]

    def image(self, move_kinds: set[str]) -> list[float]:
        """The latencies of the board images after the moves of ``move_kinds``."""
        return [v for k, s in self.kinds.items() if k in move_kinds for v in s.image]

    @property
    def move_rate(self) -> float:
        return self.moves / self.seconds if self.seconds else math.nan

    @property
    def moves_per_cpu_second(self) -> float:
        return self.moves / self.cpu if self.cpu else math.nan


@dataclass
class PhaseResult:
    name: str
    duration: float = 0.0
    kinds: dict[str, Samples] = field(default_factory=dict)
    moves: int = 0
    turns: int = 0  # the tables' turns (a move, opening a lobby or starting a game)
    games_finished: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    cpu: float = 0.0  # of the bot's processes, together
    server_cpu: float = math.nan  # of the database server's processes (PostgreSQL; nan: none)
    processes: int = 1  # bot processes
    bench_cpu: float = 0.0
    rss_mb: float = 0.0
    peak_rss_mb: float = 0.0
    ready_s: float = 0.0
    requests: Counter[str] = field(default_factory=Counter)  # REST requests the bot made, by route
    move_kinds: set[str] = field(default_factory=set)  # the interaction kinds that are moves
    traces: dict[int, list[tuple[bool, Act]]] = field(default_factory=dict)
    started: int = 0  # games started
    in_threads: int = 0  # of them, games played in a thread of their own (the others: in the channel)
    steady: Steady = field(default_factory=Steady)
    dm_moves: Counter[int] = field(default_factory=Counter)  # moves made from a DM panel, by server id

    def samples(self, kind: str) -> Samples:
        return self.kinds.setdefault(kind, Samples())

    def all_first(self) -> list[float]:
        return [v for s in self.kinds.values() for v in s.first]

    def all_image(self, *, moves_only: bool = False) -> list[float]:
        return [v for k, s in self.kinds.items() if not moves_only or k in self.move_kinds for v in s.image]

    @property
    def interactions(self) -> int:
        return sum(len(s.first) for s in self.kinds.values())

    @property
    def cpu_per_interaction(self) -> float:
        return self.cpu / self.interactions if self.interactions else math.nan

    @property
    def move_rate(self) -> float:
        return self.moves / self.duration if self.duration else math.nan

    @property
    def rest_per_move(self) -> float:
        return sum(self.requests.values()) / self.moves if self.moves else math.nan


# ---- simulated players ----------------------------------------------------------------------------


def selects(message: MessageRecord) -> list[dict[str, Any]]:
    return [c for c in message.all_components() if c.get("type") == 3]


def numbers_in(ranges: str) -> list[int]:
    """``1-3, 7`` -> [1, 2, 3, 7]."""
    out = []
    for part in ranges.replace(" ", "").split(","):
        lo, _, hi = part.partition("-")
        if lo.isdigit() and (not hi or hi.isdigit()):
            out.extend(range(int(lo), int(hi or lo) + 1))
    return out


class Table:
    """One channel, its players, and the pace at which they act. It follows one game at a time: its
    lobby in the channel, then its boards in the thread started from the lobby message (the thread's
    id is the lobby's) or, when there is none, in the channel."""

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
        self.box = self.emu.box(channel)
        self.next_at = 0.0
        self.trace: list[tuple[bool, Act]] = []  # (paced, interaction): what the floor bots replay
        self.paced = False
        self.refusals = 0  # moves refused in the game in play
        self.result = phase.result
        self.forget_game()

    def forget_game(self) -> None:
        self.game: int | None = None  # the game's id, from its lobby's components
        self.card: MessageRecord | None = None  # the lobby message: the game's card
        self.place = self.channel  # where the game is played: its thread, or the channel
        self.board: MessageRecord | None = None  # the game's newest post
        self.said: Event | None = None  # the last version of a board of the game that said something
        self.seen = 0  # the event number up to which the table has looked for newer posts
        self.started = 0  # the event number just before the game's first board
        self.moved_at: dict[int, int] = {}  # user id -> the event number when their last move was sent
        self.moved_from: dict[int, MessageRecord | None] = {}  # user id -> the DM panel of that move
        self.news_at: dict[int, int] = {}  # user id -> the event number of their last move's news

    # ---- what the bot shows ------------------------------------------------------------------------

    def belongs(self, event: Event) -> bool:
        """Whether a version of a message is about this table's game: in the game's thread, or in the
        channel naming the game (or naming no game at all)."""
        where = event.message.channel
        if self.game is None:
            return where is self.channel
        if where is not self.channel and (self.card is None or where.id != self.card.id):
            return False
        games = event.games()
        return self.game in games or not games

    def published(self, event: Event) -> bool:
        """A move's news: a new public post of the game, or a board of the game edited with a text (the
        current board, told a secret pick; `act` notes an older one). Before the game has an id: a new
        lobby, with its Join button, in the channel."""
        if not event.public or not self.belongs(event):
            return False
        if self.game is None:
            return event.created and any(verb_of(c) == "join" for c in event.custom_ids)
        return event.created or self.is_board(event)

    def is_board(self, event: Event) -> bool:
        """A version of a board of the game that says something: in the game's place, not its card."""
        return event.said and event.message is not self.card and event.message.channel is self.place

    def live(self, event: Event) -> bool:
        return self.game is not None and bool(event.controls(self.game) & LIVE_VERBS)

    def catch_up(self) -> None:
        """Follow the game to its newest post (a move may post more than one message) and to the last
        thing said on its boards (a secret pick edits the board's text)."""
        for event in self.box.since(self.seen):
            if self.game is not None and event.public and self.belongs(event) and self.is_board(event):
                self.said = event
                if event.created:
                    self.board = event.message
            self.seen = event.no

    def actor(self) -> User | None:
        """Who the game's boards last said must act (None: the game is over)."""
        self.catch_up()
        if self.board is None or self.said is None:
            return None
        ids = to_act(self.said.content, self.live(self.emu.latest[self.board.id]))
        return self.by_id.get(ids[0]) if ids else None

    def due_since(self, user: User) -> int:
        """The event number of the first version of a board that named ``user`` to act since their
        last move: their DM panel must have changed after it to show the move now due."""
        after = self.moved_at.get(user.id, 0)
        for event in self.box.since(after):
            if event.public and self.belongs(event) and self.is_board(event):
                if user.id in to_act(event.content, self.live(event)):
                    return event.no
        return after

    def newest_panel(self, user: User) -> Event | None:
        """The newest version of the player's newest DM panel of this game."""
        assert self.game is not None
        best: Event | None = None
        for event in reversed(self.emu.dm_box(user).since(self.started)):
            latest = self.emu.latest[event.message.id]
            if self.game in latest.games() and (best is None or latest.message.seq > best.message.seq):
                best = latest
        return best

    async def panel(self, user: User) -> Event | None:
        """The player's DM panel of this game as it stands for the move now due, waiting up to
        `PANEL_WITHIN` for it (an older version is the previous round's or move's); None when it did not
        come. A panel is current when it changed after the first board that named the player since
        their last move (the bot brings a panel up to date when its player newly has to act), or when it
        is the answer to that last move, made from the panel itself, and the news of that move already
        named the player (the answer shows the position after the move; the bot sends no other).
        """
        due, moved = self.due_since(user), self.moved_at.get(user.id, 0)
        answered = self.moved_from.get(user.id) if due <= self.news_at.get(user.id, -1) else None
        assert self.game is not None
        box = self.emu.dm_box(user)
        loop = asyncio.get_running_loop()
        end = loop.time() + PANEL_WITHIN
        while True:
            changed = box.changed
            event = self.newest_panel(user)
            if event is not None and (event.no > due or (event.no > moved and event.message is answered)):
                return event
            remaining = end - loop.time()
            if remaining <= 0:
                self.result.errors[f"{self.kind}: DM panel not current within {PANEL_WITHIN} s"] += 1
                return None
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(), remaining)

    def control(self, panel: Event | None, verb: str) -> dict[str, Any] | None:
        """The panel's component of this game for ``verb``, as the panel now stands."""
        if panel is None or self.game is None:
            return None
        for component in panel.message.all_components():
            cid = str(component.get("custom_id", ""))
            if cid.startswith(f"q:{self.game}:") and verb_of(cid) == verb:
                return component
        return None

    # ---- acting ------------------------------------------------------------------------------------

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
        self.result.turns += 1

    async def send(self, act: Act) -> InteractionRecord:
        emu, where = self.emu, self.place
        if act.how == "slash":
            return await emu.slash(act.user, where, act.command, act.options)
        if act.how == "auto":
            return await emu.start_autocomplete(
                act.user, where, act.command, act.options, focused=act.focused
            )
        if act.how == "modal":
            assert act.source is not None
            return await emu.submit_modal(act.user, act.source, values=act.fields)
        assert act.message is not None
        if act.how == "button":
            return await emu.click(act.user, act.message, act.custom_id)
        return await emu.select(act.user, act.message, act.custom_id, act.values)

    async def act(
        self, act: Act, *, move: bool = False, publication: bool = True, secret: bool = False
    ) -> tuple[InteractionRecord, Event | None]:
        """Send one interaction; wait for its answer and (with ``publication``) for the public news it
        causes (`published`). Returns the interaction and that news (None: the move was refused)."""
        self.trace.append((self.paced, act))
        self.paced = False
        mark = self.emu.event_no
        rec = await self.send(act)
        try:
            response = await rec.response(timeout=10.0)
        except InteractionFailed:
            self.result.errors[f"{act.kind}: no answer in 10 s"] += 1
            raise Stuck(act.kind) from None
        samples = self.result.samples(act.kind)
        samples.first.append(response.latency)
        if response.message is not None and response.message.attachments:
            samples.image.append(response.latency)
        if not publication:
            return rec, None
        if response.ephemeral and not secret:
            return rec, None  # refused: answered privately, nothing posted
        news = await self.box.wait(self.published, mark, 3.0 if secret else 10.0)
        if news is None:
            return rec, None
        if news.image and news.created and news.message is not response.message:
            samples.image.append(news.at - rec.dispatched_at)
        if not news.created and news.message is not self.board:
            self.result.errors[f"{act.kind}: the news edited an older board, not the newest"] += 1
        if move:
            self.result.moves += 1
            self.result.move_kinds.add(act.kind)
            self.moved_at[act.user.id], self.news_at[act.user.id] = mark, news.no
            on_panel = act.message is not None and act.message.channel.is_dm
            self.moved_from[act.user.id] = act.message if on_panel else None
            if on_panel and self.channel.guild is not None:
                self.result.dm_moves[self.channel.guild.id] += 1
        return rec, news

    def refused(self, kind: str) -> None:
        self.result.errors[f"{kind}: refused"] += 1

    async def move(self, act: Act, *, secret: bool = False) -> bool:
        """Send a move; False when it was refused (counted: a game with more than three refusals is
        stuck)."""
        _, news = await self.act(act, move=True, secret=secret)
        if news is None:
            self.refused(act.kind)
            self.refusals += 1
            if self.refusals > 3:
                raise Stuck(self.kind)
            return False
        return True

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
                    self.forget_game()
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

    async def lobby(self, options: dict[str, Any]) -> None:
        """Open a lobby, everyone joins by button, the host starts; the first board (in the game's
        thread, or in the channel). Opening and starting take a turn each at the table's pace (joining
        follows at once)."""
        host, *others = self.players
        await self.pace()
        _, news = await self.act(Act("lobby new (slash)", host, "slash", f"{self.kind} new", options))
        if news is None:
            raise Stuck("lobby")
        lobby = news.message
        ids = [m.group(1) for c in lobby.custom_ids if (m := GAME_ID.match(c))]
        join = next((c for c in lobby.custom_ids if verb_of(c) == "join"), None)
        start = next((c for c in lobby.custom_ids if verb_of(c) == "start"), None)
        if not ids or join is None or start is None:
            raise Stuck("lobby buttons")
        self.game, self.card = int(ids[0]), lobby
        for user in others:
            await self.act(
                Act("lobby join (button)", user, "button", message=lobby, custom_id=join), publication=False
            )
        await self.pace()
        _, news = await self.act(
            Act("lobby start (button)", host, "button", message=lobby, custom_id=start),
            secret=True,
        )
        if news is None:
            raise Stuck("start")
        self.place, self.board, self.said, self.seen = news.message.channel, news.message, news, news.no
        self.result.started += 1
        if self.place is not self.channel:
            self.result.in_threads += 1
        self.started = news.no - 1
        self.moved_at = {u.id: self.started for u in self.players}

    async def procession(self) -> None:
        await self.lobby({"n": self.rng.randint(4, 12)})
        while (user := self.actor()) is not None:
            await self.pace()
            await self.maybe_status()
            assert self.board is not None
            board = self.board
            enabled = [
                b
                for b in board.buttons()
                if not b.get("disabled") and verb_of(b.get("custom_id", "")) == "flip"
            ]
            if not enabled:
                raise Stuck("procession: no button")
            button = self.rng.choice(enabled)
            if self.rng.random() < 0.5:
                act = Act(
                    "procession flip (button)", user, "button", message=board, custom_id=button["custom_id"]
                )
            else:
                position = int(button["custom_id"].rsplit(":", 1)[1])
                act = Act("procession flip (slash)", user, "slash", "procession flip", {"position": position})
            await self.move(act)

    async def dots(self) -> None:
        await self.lobby({"size": self.rng.randint(3, 7)})
        while (user := self.actor()) is not None:
            await self.pace()
            await self.maybe_status()
            assert self.board is not None
            post = self.board
            menus = selects(post)
            ends = [m for m in menus if verb_of(m["custom_id"]) == "to"]
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
                starts = [o for m in menus if verb_of(m["custom_id"]) == "from" for o in m["options"]]
                if not starts:
                    raise Stuck("dots: no menu")
                start = self.rng.choice(starts)
                targets = [d for d in DOT.findall(start.get("description") or "") if d != start["value"]]
                if not targets:  # the menu does not list the ends: ask the command's autocomplete
                    auto = Act(
                        "dots line (autocomplete)",
                        user,
                        "auto",
                        "dots line",
                        {"from": start["value"]},
                        focused="to",
                    )
                    rec, _ = await self.act(auto, publication=False)
                    targets = [c["value"] for c in rec.choices or []]
                    if not targets:
                        raise Stuck("dots: no end offered")
                end = self.rng.choice(targets)
                act = Act(
                    "dots line (slash)", user, "slash", "dots line", {"to": end, "from": start["value"]}
                )
            await self.move(act)

    async def updown(self) -> None:
        """Predictions by slash command; cards half from the DM panel's menu, half by slash command. The
        player's panel says which is due (its Predict button or its menu of cards)."""
        await self.lobby({})
        predicting = True  # the guess when the panel does not come
        while (user := self.actor()) is not None:
            await self.pace()
            await self.maybe_status()
            panel = await self.panel(user)
            if panel is not None and self.game is not None:
                verbs = panel.controls(self.game)
                if "play" in verbs:
                    predicting = False
                elif "predict" in verbs:
                    predicting = True
            menu = self.control(panel, "play")
            if predicting:
                letters = "".join(self.rng.choice("UDS") for _ in range(self.rng.randint(1, 3)))
                act = Act("updown predict (slash)", user, "slash", "updown predict", {"letters": letters})
            elif menu is not None and panel is not None and self.rng.random() < 0.5:
                card = self.rng.choice(menu["options"])["value"]
                act = Act(
                    "updown play (DM menu)",
                    user,
                    "select",
                    message=panel.message,
                    custom_id=menu["custom_id"],
                )
                act.values = [card]
            else:
                auto = Act("updown play (autocomplete)", user, "auto", "updown play", {}, focused="card")
                rec, _ = await self.act(auto, publication=False)
                choices = rec.choices
                if not choices:
                    raise Stuck("updown: no card offered")
                card = self.rng.choice(choices)["value"]
                act = Act("updown play (slash)", user, "slash", "updown play", {"card": card})
            if not await self.move(act, secret=True) and panel is None:
                predicting = not predicting  # the guess was wrong

    async def picks(self) -> None:
        """Numbers and Divisors: every player to act picks a value; half the time from their DM panel
        (Divisors: its menu of cards; Numbers: its Pick button and form), else by slash command with
        the value its autocomplete offers."""
        option = PICK_OPTION[self.kind]
        await self.lobby({})
        while (user := self.actor()) is not None:
            await self.pace()
            await self.maybe_status()
            panel = await self.panel(user) if self.rng.random() < 0.5 else None
            control = self.control(panel, "pick")
            act: Act | None = None
            if panel is not None and control is not None and control.get("type") == 3:  # Divisors
                act = Act(
                    f"{self.kind} pick (DM menu)",
                    user,
                    "select",
                    message=panel.message,
                    custom_id=control["custom_id"],
                )
                act.values = [self.rng.choice(control["options"])["value"]]
            elif panel is not None and control is not None:  # Numbers: the Pick button opens a form
                left = STILL_TO_PLAY.search(panel.message.content)
                numbers = numbers_in(left.group(1)) if left else []
                if not numbers:
                    self.result.errors[f"{self.kind}: the DM panel lists no numbers left (slash used)"] += 1
                else:
                    click = Act(f"{self.kind} pick (DM button)", user, "button", message=panel.message)
                    click.custom_id = control["custom_id"]
                    rec, _ = await self.act(click, publication=False)
                    if rec.modal is None:
                        raise Stuck(f"{self.kind}: no form")
                    field_id = rec.modal["components"][0]["components"][0]["custom_id"]
                    act = Act(f"{self.kind} pick (DM form)", user, "modal", source=rec, message=panel.message)
                    act.fields = {field_id: str(self.rng.choice(numbers))}
            if act is None:
                auto = Act(
                    f"{self.kind} pick (autocomplete)", user, "auto", f"{self.kind} pick", {}, focused=option
                )
                rec, _ = await self.act(auto, publication=False)
                if not rec.choices:
                    raise Stuck(f"{self.kind}: nothing offered")
                value = self.rng.choice(rec.choices)["value"]
                act = Act(f"{self.kind} pick (slash)", user, "slash", f"{self.kind} pick", {option: value})
            await self.move(act, secret=True)


class FloorTable(Table):
    """Sends a floor bot the interactions a table sent the real bot, at the same pace. Clicks and menu
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
    db: Path | str,
    workdir: Path,
    *,
    period: float,
    duration: float,
    replay: PhaseResult | None = None,
    games_per_table: int | None = None,
    processes: Sequence[dict[str, str]] = ({},),
    server_cpu: Callable[[], float] | None = None,
    warm_up: float | None = None,
) -> PhaseResult:
    """One phase of the bot (or a floor) on the database ``db`` (a SQLite file, or a PostgreSQL URL):
    as one process per item of ``processes`` (what each adds to its environment: its shards, say),
    started together. ``server_cpu`` measures the database server's CPU time, counted apart. The
    phase's steady part (`Steady`) starts ``warm_up`` seconds in (default `WARM_UP`)."""
    print(f"  {name} ...", flush=True)
    phase = Phase(world, name, duration + (2.0 if replay is not None else 0.0))
    phase.games_per_table = games_per_table
    # launch_bot takes a file; a URL goes in the environment, which wins.
    file = db if isinstance(db, Path) else workdir / "unused.sqlite3"
    bots = [
        BotProcess(
            world.emu,
            mode,
            file,
            world.guild_id,
            workdir / (f"{mode}.log" if len(processes) == 1 else f"{mode}-{k}.log"),
            {"QUETBOT_DB": str(db), **env},
        )
        for k, env in enumerate(processes)
    ]
    phase.result.processes = len(bots)
    world.emu.images.clear()
    try:
        # Together (each is timed from its own start); a failure is raised once all have settled,
        # so that every process started is stopped below.
        started = await asyncio.gather(*(bot.start() for bot in bots), return_exceptions=True)
        ready = []
        for outcome in started:
            if isinstance(outcome, BaseException):
                raise outcome
            ready.append(outcome)
        phase.result.ready_s = max(ready)
        # The first interaction answered is part of becoming useful: wait for the command sync.
        await asyncio.sleep(0.2)
        if args.profile is not None:
            args.profile.mkdir(parents=True, exist_ok=True)
            stem = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
            for k, bot in enumerate(bots):
                bot.profile(args.profile / (stem + (f"-{k}" if len(bots) > 1 else "") + ".txt"))
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

        def bot_cpu() -> float:  # with its worker processes (computer players, drawing boards)
            return sum(tree_cpu(bot.pid) for bot in bots)

        cpu0, bench0, seen = bot_cpu(), _own_cpu(), len(world.emu.requests)
        server0 = server_cpu() if server_cpu is not None else math.nan
        steady = asyncio.ensure_future(
            watch_steady(phase, bot_cpu, server_cpu, WARM_UP if warm_up is None else warm_up)
        )
        await phase.run(tables)
        steady.cancel()
        phase.result.cpu = bot_cpu() - cpu0
        if server_cpu is not None:
            phase.result.server_cpu = server_cpu() - server0
        phase.result.bench_cpu = _own_cpu() - bench0
        phase.result.requests.update(f"{r.method} {r.route or r.path}" for r in world.emu.requests[seen:])
        memory = [memory_mb(bot.pid) for bot in bots]
        phase.result.rss_mb = sum(m[0] for m in memory)
        phase.result.peak_rss_mb = sum(m[1] for m in memory)
        with contextlib.suppress(Exception):  # let the last boards' follow-ups finish before stopping
            await world.emu.wait_idle(quiet=0.3, timeout=10)
    finally:
        await asyncio.gather(*(bot.stop() for bot in bots))
    world.emu.requests.clear()  # what the bot sent (images included): not needed any more
    return phase.result


WARM_UP = 1.0  # seconds: the tables' first lobbies, all opened at once


async def watch_steady(
    phase: Phase,
    bot_cpu: Callable[[], float],
    server_cpu: Callable[[], float] | None = None,
    warm_up: float = WARM_UP,
) -> None:
    """Fill ``phase.result.steady``: from ``warm_up`` seconds into the phase to its deadline."""
    loop = asyncio.get_running_loop()
    await asyncio.sleep(warm_up)
    r = phase.result
    if not math.isfinite(phase.deadline) or loop.time() >= phase.deadline:
        return
    t0, moves, turns, cpu = loop.time(), r.moves, r.turns, bot_cpu()
    server = server_cpu() if server_cpu is not None else math.nan
    seen = {kind: (len(s.first), len(s.image)) for kind, s in r.kinds.items()}
    await asyncio.sleep(phase.deadline - t0)
    r.steady = Steady(
        loop.time() - t0,
        r.moves - moves,
        r.turns - turns,
        bot_cpu() - cpu,
        server_cpu() - server if server_cpu is not None else math.nan,
        {
            kind: Samples(s.first[seen.get(kind, (0, 0))[0] :], s.image[seen.get(kind, (0, 0))[1] :])
            for kind, s in r.kinds.items()
        },
    )


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


async def make_database(
    path: Path, kinds: list[str], active: int, finished: int, seed: int, per_kind: int = 24
) -> float:
    """A database at the bot's current schema holding ``active`` live games (each mid-game, in a channel
    of its own) and ``finished`` finished ones, with their seats and move logs; seconds taken.

    Games are prefixes of a pool of ``per_kind`` random playouts of each kind, written in one
    transaction."""
    from bot.storage import Storage

    t0 = time.perf_counter()
    storage = await Storage.open(str(path), score_ranked=SCORE_RANKED)
    await storage.close()
    rng = random.Random(seed)
    pool = playouts(kinds, per_kind, rng)
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
    w = max([34, *(len(r.name) for r in results)])
    print()
    print(
        f"{'phase':{w}} {'interactions':>12} {'moves':>6} {'moves/s':>8} {'games':>6} {'REST/move':>9} "
        f"{'bot CPU':>8} {'per inter.':>10} {'per move':>9} {'bot CPU':>8} {'bench CPU':>9} {'RSS':>6} "
        f"{'peak RSS':>8} {'ready':>6}"
    )
    for r in results:
        per_move = f"{r.cpu / r.moves * 1000:.2f} ms" if r.moves else "-"
        rest = f"{r.rest_per_move:.2f}" if r.moves else "-"
        per_interaction = f"{r.cpu_per_interaction * 1000:.2f} ms" if r.interactions else "-"
        print(
            f"{r.name:{w}} {r.interactions:>12} {r.moves:>6} {r.move_rate:>8.1f} "
            f"{r.games_finished:>6} {rest:>9} {r.cpu:>7.2f}s {per_interaction:>10} {per_move:>9} "
            f"{r.cpu / r.duration * 100:>7.0f}% {r.bench_cpu / r.duration * 100:>8.0f}% {r.rss_mb:>4.0f}MB "
            f"{r.peak_rss_mb:>6.0f}MB {r.ready_s:>5.2f}s"
        )
    for r in results:
        if r.errors:
            print(f"  {r.name}: " + "; ".join(f"{k} x{v}" for k, v in sorted(r.errors.items())))
    for r in results:
        if r.moves:
            print(
                f"  REST requests per move ({r.name}): "
                + ", ".join(f"{route} {n / r.moves:.2f}" for route, n in r.requests.most_common(8))
            )
            break


def print_capacity(cap: PhaseResult, offered: str, ours: PhaseResult) -> None:
    print()
    print("Capacity: the bot unpaced (every table moves as soon as it has seen the last board)")
    s = cap.steady
    if not s.moves:
        print("  no move was made: no capacity measured")
        return
    busy, bench = cap.cpu / cap.duration * 100, cap.bench_cpu / cap.duration * 100
    print(
        f"  {s.move_rate:.1f} moves/s sustained ({s.moves} moves in the {s.seconds:.1f} s after the first "
        f"{WARM_UP:.0f} s); {s.moves_per_cpu_second:.0f} moves per CPU-second of the bot "
        f"({s.cpu / s.moves * 1000:.2f} ms of CPU per move)"
    )
    print(f"  over the whole phase: the bot busy {busy:.0f}% of a core, this process {bench:.0f}%")
    print(f"  paced phases offered {offered}")
    print(
        f"  {ours.name} made {ours.steady.move_rate:.1f} moves/s after its first {WARM_UP:.0f} s "
        f"({ours.move_rate:.1f} over the whole phase, with its first lobbies)"
    )


def print_first(ours: PhaseResult, floors: list[PhaseResult]) -> None:
    print()
    print(
        "First answer (ms): INTERACTION_CREATE sent -> the first answer received; ratios: the bot / a floor"
    )
    head = f"{'interaction':30} {'n':>5} {'p50':>6} {'p95':>6} {'p99':>6}"
    for f in floors:
        label = f.name.split(":")[0]
        head += f" | {label[:12]:>12} {'p99':>6} {'x p50':>6} {'x p99':>6}"
    print(head)
    rows = [
        (k, ours.kinds[k].first, [f.kinds.get(k, Samples()).first for f in floors])
        for k in sorted(ours.kinds)
    ]
    rows.append(("all interactions", ours.all_first(), [f.all_first() for f in floors]))
    for kind, values, bases in rows:
        p50, p95, p99 = (pct(values, p) for p in (50, 95, 99))
        line = f"{kind[:30]:30} {len(values):>5} {ms(p50):>6} {ms(p95):>6} {ms(p99):>6}"
        for base in bases:
            b50, b99 = pct(base, 50), pct(base, 99)
            line += f" | {ms(b50):>12} {ms(b99):>6} {ratio(p50, b50):>6} {ratio(p99, b99):>6}"
        print(line)


def print_cpu(ours: PhaseResult, floors: list[PhaseResult]) -> None:
    print()
    print("CPU per interaction (the same interactions at the same pace)")
    mine = ours.cpu_per_interaction
    print(
        f"  {ours.name}: {mine * 1000:.2f} ms"
        + (f" ({ours.cpu / ours.moves * 1000:.2f} ms per move)" if ours.moves else "")
    )
    for f in floors:
        theirs = f.cpu_per_interaction
        print(f"  {f.name}: {theirs * 1000:.2f} ms; the bot {ratio(mine, theirs)}")


def print_images(results: list[PhaseResult]) -> None:
    print()
    print("Board image received (ms): INTERACTION_CREATE sent -> the board's image received")
    print(f"{'interaction':32} " + " ".join(f"{r.name.split(': ')[-1][:23]:>23}" for r in results))
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
        ("first answer (all)", small.all_first(), big.all_first()),
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
        if script.name == "render_samples.py":  # it writes the README's sample boards: no timing
            continue
        cmd = [sys.executable, str(script), *(["--quick"] if quick else [])]
        out = subprocess.run(cmd, capture_output=True, text=True, cwd=str(REPO), check=False)
        lines.extend(
            out.stdout.strip().splitlines() or [f"{script.name}: failed: {out.stderr.strip()[-200:]}"]
        )
    return lines


def check(name: str, ok: bool, detail: str) -> str:
    return f"  [{'met ' if ok else 'MISS'}] {name}: {detail}"


def targets(
    ours: PhaseResult,
    image_floor: PhaseResult | None,
    big: PhaseResult | None,
    renders: list[str],
    games: int,
    where: str,
) -> list[str]:
    out = []
    if image_floor is not None:
        a, b = ours.cpu_per_interaction, image_floor.cpu_per_interaction
        out.append(
            check(
                "CPU per interaction within 2x of the image floor",
                a <= 2 * b,
                f"{ratio(a, b)} ({a * 1000:.2f} ms vs {b * 1000:.2f} ms)",
            )
        )
        for p, limit in ((50, 1.5), (99, 2.0)):
            x, y = pct(ours.all_first(), p), pct(image_floor.all_first(), p)
            out.append(
                check(
                    f"first answer p{p} within {limit:g}x of the image floor's, {where}",
                    x <= limit * y,
                    f"{ratio(x, y)} ({ms(x)} ms vs {ms(y)} ms)",
                )
            )
    rest = ours.rest_per_move
    out.append(check("REST requests per move at most 2.5", rest <= 2.5, f"{rest:.2f}"))
    i99 = pct(ours.all_image(moves_only=True), 99)
    out.append(
        check(
            f"board image after a move p99 under 50 ms ({games} games, {where})",
            i99 <= 0.050,
            f"{ms(i99)} ms",
        )
    )
    if big is not None:
        for label, a_values, b_values in (
            ("first answer", ours.all_first(), big.all_first()),
            ("board image", ours.all_image(moves_only=True), big.all_image(moves_only=True)),
        ):
            for p in (50, 95):
                x, y = pct(a_values, p), pct(b_values, p)
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


# ---- scale-out: SQLite against PostgreSQL, one process against two -------------------------------

SHARD_COUNT = 2
# PostgreSQL with the durability of a production server, as SQLite's synchronous=FULL has: the WAL
# fsynced at each commit (the tests' server turns that off).
PG_OPTIONS = "-c fsync=on -c synchronous_commit=on -c full_page_writes=on -c max_connections=100"


def _stat(pid: int) -> list[str]:
    """The fields of /proc/<pid>/stat after the command's name: [0] state, [1] parent, [11] utime..."""
    with open(f"/proc/{pid}/stat") as f:
        return f.read().rsplit(")", 1)[1].split()


def tree_cpu(root: int) -> float:
    """CPU seconds of a process, of its live children, and of its children that ended (which the
    process waited for: its cutime and cstime)."""
    total = 0.0
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = _stat(int(entry))
            except OSError:  # it ended meanwhile
                continue
            if int(fields[1]) == root:
                total += int(fields[11]) + int(fields[12])
    fields = _stat(root)
    return (total + sum(int(v) for v in fields[11:15])) / CLOCK_TICKS


class BenchPostgres(PostgresServer):
    """tests/pg.py's throwaway server (initdb into a temporary folder, started on a loopback port, as
    the unprivileged ``postgres`` user when run as root) with a production server's durability
    (`PG_OPTIONS`); the CPU time of its processes (`cpu`); databases copied from a template."""

    def __init__(self, parent: str | None) -> None:
        super().__init__()
        self.parent = parent  # where its folder goes (the benchmark's --db-dir)
        self.postmaster = 0

    def start(self) -> None:
        self._bin = binaries()
        if self._bin is None:
            raise Unavailable(
                "PostgreSQL is not installed (no initdb on PATH or in /usr/lib/postgresql/*/bin): "
                "apt-get install -y postgresql"
            )
        if self._as_root:
            _ensure_user(USER)
        self.folder = Path(tempfile.mkdtemp(prefix="quetbot-load-pg-", dir=self.parent))
        if self._as_root:
            shutil.chown(self.folder, USER, USER)
        data = self.folder / "data"
        self._run(
            "initdb", "-D", str(data), "-U", USER, "--auth=trust", "--encoding=UTF8", "--locale=C.UTF-8"
        )
        self.port = free_port()
        options = (
            f"-c listen_addresses=127.0.0.1 -c port={self.port} -c unix_socket_directories={self.folder} "
            + PG_OPTIONS
        )
        self._run(
            "pg_ctl", "start", "-w", "-t", "30", "-D", str(data), "-l", str(self.folder / "server.log"),
            "-o", options,
        )  # fmt: skip
        self.postmaster = int((data / "postmaster.pid").read_text().split()[0])

    def cpu(self) -> float:
        """CPU seconds the server's processes have used since it started."""
        return tree_cpu(self.postmaster)

    async def create(self, name: str, template: str = "template0") -> str:
        """A new database ``name``, a copy of ``template``; answers its URL."""
        conn = await asyncpg.connect(self.admin_url)
        try:
            await conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
        finally:
            await conn.close()
        return self.url(name)


async def copy_to_postgres(path: Path, url: str) -> int:
    """Give the PostgreSQL database at ``url`` the bot's schema and every row of the SQLite database
    ``path`` (made by `make_database`); answers the number of rows copied."""
    from bot.storage import Storage

    await (await Storage.open(url, score_ranked=SCORE_RANKED)).close()  # the schema: the same migrations
    source = sqlite3.connect(path)
    conn = await asyncpg.connect(url)
    copied = 0
    try:
        columns_of: dict[str, dict[str, str]] = {}
        for r in await conn.fetch(
            "SELECT table_name, column_name, data_type FROM information_schema.columns "
            "WHERE table_schema = 'public'"
        ):
            columns_of.setdefault(r["table_name"], {})[r["column_name"]] = r["data_type"]
        tables = source.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%' ORDER BY rowid"
        ).fetchall()  # in the order they were made: a table before those referring to it
        async with conn.transaction():
            for (table,) in tables:
                target = columns_of.get(table, {})
                columns = [r[1] for r in source.execute(f'PRAGMA table_info("{table}")') if r[1] in target]
                if not columns:
                    continue
                listed = ", ".join(f'"{c}"' for c in columns)
                rows = source.execute(f'SELECT {listed} FROM "{table}"').fetchall()
                if not rows:
                    continue
                real = [target[c] == "double precision" for c in columns]
                records = [
                    tuple(float(v) if r and v is not None else v for v, r in zip(row, real, strict=True))
                    for row in rows
                ]
                await conn.copy_records_to_table(table, records=records, columns=columns)
                copied += len(records)
            for r in await conn.fetch(
                "SELECT table_name, column_name FROM information_schema.columns "
                "WHERE table_schema = 'public' AND is_identity = 'YES'"
            ):
                table, column = r["table_name"], r["column_name"]
                await conn.execute(
                    f"SELECT setval(pg_get_serial_sequence('{table}', '{column}'), "
                    f'(SELECT max("{column}") FROM "{table}"))'
                )
    finally:
        await conn.close()
        source.close()
    return copied


def build_sharded_world(emu: BenchEmulator, games: int, kinds: list[str]) -> World:
    """`build_world` over `SHARD_COUNT` servers, one on each shard: table i in server i % 2, playing
    kind i % len(kinds) (an odd number of kinds: every kind is played on both shards)."""
    guilds = [emu.add_guild(f"Bench Server {k}", shard=(k, SHARD_COUNT)) for k in range(SHARD_COUNT)]
    for guild in guilds:
        emu.grant(guild, emu.bot_user, int(THREAD_PERMISSIONS))
    tables = []
    for i in range(games):
        guild, kind = guilds[i % len(guilds)], kinds[i % len(kinds)]
        channel = emu.add_text_channel(guild, f"{kind}-{i}")
        players = [emu.add_user(f"p{i}x{j}", guilds=[guild]) for j in range(2)]
        tables.append((channel, players, kind))
    return World(emu, guilds[0].id, tables)


@dataclass(frozen=True)
class Setup:
    """One way to run the bot in --scale-out: its database, and how many processes share its shards."""

    label: str
    postgres: bool
    processes: int

    def environments(self, db: str) -> list[dict[str, str]]:
        """What each process adds to its environment. Commands are synced globally (no development
        server), so that every server has them; with several processes, process k runs shard k."""
        common = {"QUETBOT_DB": db, "QUETBOT_DEV_GUILD": ""}
        if self.processes == 1:
            return [common]
        return [
            common | {"QUETBOT_SHARD_COUNT": str(self.processes), "QUETBOT_SHARDS": str(k)}
            for k in range(self.processes)
        ]


SQLITE_1 = Setup("SQLite, 1 process", postgres=False, processes=1)
PG_1 = Setup("PostgreSQL, 1 process", postgres=True, processes=1)
PG_2 = Setup(f"PostgreSQL, {SHARD_COUNT} processes", postgres=True, processes=SHARD_COUNT)
SETUPS = (SQLITE_1, PG_1, PG_2)
# One process paced at half the offer (paced phases only): the load each of PG_2's processes carries.
PG_HALF = Setup("PostgreSQL, 1 process at half", postgres=True, processes=1)
MIN_TURNS = 6  # a paced phase gives each table at least this many turns once measured


async def scale_out(args: argparse.Namespace, workdir: Path) -> None:
    """--scale-out: the same tables and the same offered load on SQLite and PostgreSQL with one bot
    process, and on PostgreSQL with two (shard 0 and shard 1 of 2).

    First each setup unpaced (capacity: moves/s, moves per CPU-second), then each paced at half the
    lowest capacity measured (or ``--rate``): CPU per move and latency at one offered load."""
    kinds, skipped = available_kinds()
    print(
        f"Scale-out benchmark: {args.games} games ({', '.join(kinds)}"
        + (f"; skipped, no cog yet: {', '.join(skipped)}" if skipped else "")
        + f") over {SHARD_COUNT} servers, one on each shard of {SHARD_COUNT}; {args.duration:.0f} s per "
        f"phase, {args.rounds} round{'s' if args.rounds > 1 else ''}; bot logs in {workdir}"
    )
    print("  machine: {} CPUs, load average {:.2f} {:.2f} {:.2f}".format(os.cpu_count(), *os.getloadavg()))
    small_db = workdir / "small.sqlite3"
    took = await make_database(small_db, kinds, 10, 0, args.seed, per_kind=4)
    server = BenchPostgres(args.db_dir)
    try:
        t0 = time.perf_counter()
        server.start()
        template = "bench_template"
        copied = await copy_to_postgres(small_db, await server.create(template))
        print(
            f"  database with 10 live games: {took:.1f} s; PostgreSQL started and given the same "
            f"{copied} rows in {time.perf_counter() - t0:.1f} s"
        )
        emu = BenchEmulator()
        await emu.start()
        try:
            world = build_sharded_world(emu, args.games, kinds)
            results = await scale_out_phases(args, world, workdir, server, small_db, template)
        finally:
            await emu.stop()
    except Unavailable as exc:
        print(f"  PostgreSQL could not start: {exc}")
        return
    finally:
        server.stop()
    print_scale_out(world, *results)
    print()
    load = "{:.2f} {:.2f} {:.2f}".format(*os.getloadavg())
    print(f"  machine load average at the end: {load} (other work on the machine skews every figure)")
    if emu.internal_errors:
        print(
            f"\nThe emulator failed {len(emu.internal_errors)} time(s); the first:\n{emu.internal_errors[0]}"
        )


async def scale_out_phases(
    args: argparse.Namespace,
    world: World,
    workdir: Path,
    server: BenchPostgres,
    small_db: Path,
    template: str,
) -> tuple[list[PhaseResult], dict[Setup, PhaseResult], dict[Setup, PhaseResult], str]:
    """Each setup unpaced, then each paced at one offered load, ``--rounds`` times each, the order of
    the setups reversed every other round (so that a change in what else the machine runs weighs on
    each alike). Answers every phase run, and by setup the rounds merged: unpaced, paced; the offer."""
    copies = iter(range(1, 10_000))
    runs: list[PhaseResult] = []

    async def run(setup: Setup, name: str, period: float, duration: float) -> PhaseResult:
        n = next(copies)
        if setup.postgres:
            db: Path | str = await server.create(f"phase_{n}", template)
        else:
            db = fresh_copy(small_db, f"phase_{n}")
        result = await run_bot_phase(
            args,
            world,
            f"{setup.label}: {name}",
            "quetbot",
            db,
            workdir,
            period=period,
            duration=duration,
            processes=setup.environments(str(db)),
            server_cpu=server.cpu if setup.postgres else None,
            warm_up=warm_up,
        )
        runs.append(result)
        return result

    async def rounds(name: str, periods: dict[Setup, float]) -> dict[Setup, PhaseResult]:
        """Each setup paced at its period (0: unpaced), ``--rounds`` times."""
        done: dict[Setup, list[PhaseResult]] = {s: [] for s in periods}
        for r in range(args.rounds):
            label = name + (f" {r + 1}" if args.rounds > 1 else "")
            for setup in list(periods) if r % 2 == 0 else reversed(periods):
                done[setup].append(await run(setup, label, periods[setup], args.duration))
        return {setup: merged(f"{setup.label}: {name}", results) for setup, results in done.items()}

    # Measured after the first third of each phase: its first lobbies, all opened at once, and the
    # caches each process fills as it starts (the images' text, say), paid again by each process.
    warm_up = args.duration / 3
    capacity = await rounds("unpaced", dict.fromkeys(SETUPS, 0.0))
    measured = [c.steady for c in capacity.values() if c.steady.moves]
    first = capacity[SETUPS[0]].steady
    turns_per_move = first.turns / first.moves if first.moves else 1.0
    if args.rate:
        rate, where = args.rate, "as asked"
    elif measured:
        rate, where = min(s.move_rate for s in measured) / 2, "half the lowest capacity measured"
    else:
        rate, where = 20.0, "no capacity measured"
    period = args.games / (rate * turns_per_move)
    longest = (args.duration - warm_up) / MIN_TURNS
    if not args.rate and period > longest:  # a slow run: still enough moves to measure
        period = longest
        rate = args.games / (period * turns_per_move)
        where += f", raised so that each table acts {MIN_TURNS} times once measured"
    offer = f"{rate:.1f} moves/s ({where}; each table acts every {period * 1000:.0f} ms)"
    print(f"  paced phases: {offer}", flush=True)
    # And one process offered half as much: what each of the two processes carries.
    half = {} if args.quick else {PG_HALF: 2 * period}
    paced = await rounds("paced", dict.fromkeys(SETUPS, period) | half)
    return runs, capacity, paced, offer


def merged(name: str, results: list[PhaseResult]) -> PhaseResult:
    """Several runs of one phase as one: their counts and times summed, their samples pooled."""
    out = PhaseResult(name, processes=results[0].processes)
    for r in results:
        for kind, samples in r.kinds.items():
            mine = out.samples(kind)
            mine.first.extend(samples.first)
            mine.image.extend(samples.image)
        out.duration += r.duration
        out.moves += r.moves
        out.turns += r.turns
        out.games_finished += r.games_finished
        out.errors.update(r.errors)
        out.cpu += r.cpu
        out.bench_cpu += r.bench_cpu
        out.rss_mb, out.peak_rss_mb = max(out.rss_mb, r.rss_mb), max(out.peak_rss_mb, r.peak_rss_mb)
        out.ready_s = max(out.ready_s, r.ready_s)
        out.requests.update(r.requests)
        out.move_kinds |= r.move_kinds
        out.started += r.started
        out.in_threads += r.in_threads
        out.dm_moves.update(r.dm_moves)
    out.server_cpu = sum(r.server_cpu for r in results)  # (nan without a server)
    out.steady = Steady(
        sum(r.steady.seconds for r in results),
        sum(r.steady.moves for r in results),
        sum(r.steady.turns for r in results),
        sum(r.steady.cpu for r in results),
        sum(r.steady.server_cpu for r in results),
    )
    for r in results:
        for kind, samples in r.steady.kinds.items():
            pooled = out.steady.kinds.setdefault(kind, Samples())
            pooled.first.extend(samples.first)
            pooled.image.extend(samples.image)
    return out


def per_move_ms(cpu: float, moves: int) -> float:
    return cpu / moves * 1000 if moves else math.nan


def num(value: float, digits: int = 1) -> str:
    return "-" if math.isnan(value) else f"{value:.{digits}f}"


def print_scale_out(
    world: World,
    runs: list[PhaseResult],
    capacity: dict[Setup, PhaseResult],
    paced: dict[Setup, PhaseResult],
    offer: str,
) -> None:
    print_phases(runs)
    print()
    print(
        "Each run once measured (from a third into it: the first lobbies and each process's start are "
        "left out): the bot's CPU (its processes together) and PostgreSQL's (its server's processes)"
    )
    print(
        f"  {'run':40} {'s':>5} {'moves':>6} {'moves/s':>8} {'bot ms/move':>12} {'server ms/move':>15} "
        f"{'moves per bot-CPU-s':>20}"
    )
    for r in runs:
        s = r.steady
        print(
            f"  {r.name:40} {s.seconds:>5.1f} {s.moves:>6} {num(s.move_rate):>8} "
            f"{num(per_move_ms(s.cpu, s.moves), 2):>12} {num(per_move_ms(s.server_cpu, s.moves), 2):>15} "
            f"{num(s.moves_per_cpu_second, 0):>20}"
        )
    print()
    print(
        "  CPU per move, moves per CPU-second, throughput and latencies below are all taken from a third "
        "into each phase to its end."
    )
    print(f"  paced phases offered {offer}")
    rounds = len(runs) // (2 * len(SETUPS))
    if rounds > 1:
        print(
            f"  {rounds} rounds of each phase (the setups' order reversed every other round); the tables "
            "below pool the rounds"
        )
    print(
        "  NOTE: the machine's "
        f"{os.cpu_count()} cores are shared by the bot's processes, PostgreSQL and this emulator (and "
        "anything else running): compare the ratios within this run, not absolute figures across runs."
    )

    def row(label: str, values: list[float], last: str, digits: int = 1) -> None:
        print(f"  {label:46} " + " ".join(f"{num(v, digits):>12}" for v in values) + f" {last:>10}")

    def latency_rows(a: PhaseResult, b: PhaseResult, compare: Callable[[float, float], str]) -> None:
        for label, get in (
            ("first answer", lambda r: r.steady.first()),
            ("board after a move", lambda r: r.steady.image(r.move_kinds)),
        ):
            for p in (50, 99):
                x, y = pct(get(a), p) * 1000, pct(get(b), p) * 1000
                row(f"{label} p{p}, paced (ms)", [x, y], compare(x, y))

    def ratio_of(a: float, b: float) -> str:
        return ratio(b, a)

    sq, pg = paced[SQLITE_1], paced[PG_1]
    sqc, pgc = capacity[SQLITE_1], capacity[PG_1]
    print()
    print("SQLite against PostgreSQL, one process (the same tables; paced: the same offered load)")
    print(f"  {'':46} {'SQLite':>12} {'PostgreSQL':>12} {'PG/SQLite':>10}")
    for label, a, b in (
        ("bot CPU per move, paced (ms)", sq.steady, pg.steady),
        ("bot CPU per move, unpaced (ms)", sqc.steady, pgc.steady),
    ):
        x, y = per_move_ms(a.cpu, a.moves), per_move_ms(b.cpu, b.moves)
        row(label, [x, y], ratio(y, x), 2)
    for label, a, b in (
        ("bot + PostgreSQL CPU per move, paced (ms)", sq.steady, pg.steady),
        ("bot + PostgreSQL CPU per move, unpaced (ms)", sqc.steady, pgc.steady),
    ):
        x, y = per_move_ms(a.cpu, a.moves), per_move_ms(b.cpu + b.server_cpu, b.moves)
        row(label, [x, y], ratio(y, x), 2)
    latency_rows(sq, pg, ratio_of)
    row(
        "capacity, unpaced (moves/s)",
        [sqc.steady.move_rate, pgc.steady.move_rate],
        ratio(pgc.steady.move_rate, sqc.steady.move_rate),
    )

    one, two = paced[PG_1], paced[PG_2]
    onec, twoc = capacity[PG_1], capacity[PG_2]
    print()
    print(
        f"PostgreSQL: one process against {SHARD_COUNT} (shard 0 and shard 1 of {SHARD_COUNT}; the CPU of "
        "both processes summed)"
    )
    print(f"  {'':46} {'1 process':>12} {f'{SHARD_COUNT} processes':>12} {'change':>10}")
    for label, a, b in (
        ("moves per bot-CPU-second, paced", one.steady, two.steady),
        ("moves per bot-CPU-second, unpaced", onec.steady, twoc.steady),
    ):
        x, y = a.moves_per_cpu_second, b.moves_per_cpu_second
        row(label, [x, y], change(x, y), 0)
    for label, a, b in (
        ("moves per CPU-second, bot + PostgreSQL, paced", one.steady, two.steady),
        ("moves per CPU-second, bot + PostgreSQL, unpaced", onec.steady, twoc.steady),
    ):
        x, y = a.moves / (a.cpu + a.server_cpu), b.moves / (b.cpu + b.server_cpu)
        row(label, [x, y], change(x, y), 0)
    row(
        "throughput, unpaced (moves/s)",
        [onec.steady.move_rate, twoc.steady.move_rate],
        change(onec.steady.move_rate, twoc.steady.move_rate),
    )
    row(
        "throughput, paced (moves/s)",
        [one.steady.move_rate, two.steady.move_rate],
        change(one.steady.move_rate, two.steady.move_rate),
    )
    latency_rows(one, two, change)
    half = paced.get(PG_HALF)
    if half is not None and half.steady.moves:
        x, y, z = one.steady.moves_per_cpu_second, half.steady.moves_per_cpu_second, two.steady
        print(
            f"  one process offered half as much (the load each of the {SHARD_COUNT} carries): "
            f"{per_move_ms(half.steady.cpu, half.steady.moves):.2f} ms of bot CPU per move, {y:.0f} moves "
            f"per bot-CPU-second ({change(x, y)} against the full offer; {SHARD_COUNT} processes: "
            f"{change(x, z.moves_per_cpu_second)})"
        )
    off_zero = {ch.guild.id for ch, _, _ in world.tables if ch.guild and shard_of(ch.guild.id, SHARD_COUNT)}
    crossed = [sum(r.dm_moves[g] for g in off_zero) for r in (two, twoc)]
    print(
        f"  moves made from DM panels for games on servers off shard 0 (each crossed processes): "
        f"{crossed[0]} paced, {crossed[1]} unpaced"
    )

    print()
    print("Targets (printed, never enforced)")
    for label, a, b in (
        ("paced, the same offered load", one.steady, two.steady),
        ("unpaced", onec.steady, twoc.steady),
    ):
        x, y = a.moves_per_cpu_second, b.moves_per_cpu_second
        print(
            check(
                f"moves per bot-CPU-second with {SHARD_COUNT} processes at most 10% below one "
                f"process's ({label})",
                y >= 0.9 * x,
                f"{change(x, y)} ({x:.0f} -> {y:.0f})",
            )
        )


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
    emu.grant(guild, emu.bot_user, int(THREAD_PERMISSIONS))  # a game may get a thread of its own
    tables = []
    for i in range(games):
        kind = kinds[i % len(kinds)]
        channel = emu.add_text_channel(guild, f"{kind}-{i}")
        players = [emu.add_user(f"p{i}x{j}", guilds=[guild]) for j in range(2)]
        tables.append((channel, players, kind))
    return World(emu, guild.id, tables)


def typical_board(images: list[bytes], workdir: Path) -> tuple[Path, str]:
    """A PNG of a typical board's size for the image floor: of the board images the bot posted and the
    sample boards under assets/boards/, the one nearest `TYPICAL_BOARD` bytes; and what it is."""
    candidates = [(png, "a board the bot posted") for png in images]
    candidates += [
        (p.read_bytes(), str(p.relative_to(REPO))) for p in sorted((REPO / "assets" / "boards").glob("*.png"))
    ]
    if not candidates:
        raise RuntimeError("no board image to answer with: the bot posted none and assets/boards/ is empty")
    png, source = min(candidates, key=lambda c: abs(len(c[0]) - TYPICAL_BOARD))
    path = workdir / "typical-board.png"
    path.write_bytes(png)
    median = (
        f"; the bot's {len(images)} boards: median {sorted(map(len, images))[len(images) // 2] / 1000:.1f} kB"
        if images
        else ""
    )
    return path, f"{source}, {len(png) / 1000:.1f} kB{median}"


async def main_async(args: argparse.Namespace) -> None:
    """The whole benchmark in a temporary folder, removed at the end (also when it fails) unless
    ``--keep``."""
    workdir = Path(tempfile.mkdtemp(prefix="quetbot-load-", dir=args.db_dir))
    try:
        await (scale_out(args, workdir) if args.scale_out else benchmark(args, workdir))
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)


async def benchmark(args: argparse.Namespace, workdir: Path) -> None:
    kinds, skipped = available_kinds()
    offer = f"offered {args.rate:.0f} moves/s" if args.rate else "offered half of the bot's measured capacity"
    print(
        f"Load benchmark: {args.games} games ({', '.join(kinds)}"
        + (f"; skipped, no cog yet: {', '.join(skipped)}" if skipped else "")
        + f"), {offer}, {args.duration:.0f} s per paced phase; bot logs in {workdir}"
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
        return
    results: list[PhaseResult] = []
    floors: list[PhaseResult] = []
    big = floor_max = None
    period = 0.0
    image_note = ""

    async def phase(
        name: str,
        mode: str,
        db: Path,
        *,
        paced: bool = True,
        replay: PhaseResult | None = None,
        processes: Sequence[dict[str, str]] = ({},),
    ) -> PhaseResult:
        """One phase on ``world``, kept in ``results``: paced at ``period``, or unpaced for half as long
        (after a warm-up)."""
        result = await run_bot_phase(
            args,
            world,
            name,
            mode,
            db,
            workdir,
            period=period if paced else 0.0,
            duration=args.duration if paced else args.duration / 2 + WARM_UP,
            replay=replay,
            processes=processes,
        )
        results.append(result)
        return result

    try:
        world = build_world(emu, args.games, kinds)
        cap = await phase(
            "quetbot: capacity (unpaced)", "quetbot", fresh_copy(small_db, "capacity"), paced=False
        )
        steady = cap.steady
        turns_per_move = steady.turns / steady.moves if steady.moves else 1.0
        if args.rate:
            offered_moves = args.rate
            where = f"at {args.rate:.0f} moves/s offered"
        elif steady.moves:
            offered_moves = steady.move_rate / 2
            where = "at half capacity"
        else:
            offered_moves = 50.0
            where = "at 50 moves/s offered (no capacity measured)"
        period = args.games / (offered_moves * turns_per_move)
        offered = f"{offered_moves:.1f} moves/s ({where}; each table acts every {period * 1000:.0f} ms)"
        print(f"  paced phases: {offered}", flush=True)
        ours = await phase("quetbot: 10 stored games", "quetbot", fresh_copy(small_db, "paced"))
        if not args.no_floor:
            png, source = typical_board(list(emu.images), workdir)
            image_note = f"the image floor answers with {source}"
            floors.append(await phase("text floor: bare discord.py bot", "floor", small_db, replay=ours))
            floors.append(
                await phase(
                    "image floor: bare bot with a PNG",
                    "floor-image",
                    small_db,
                    replay=ours,
                    processes=[{"QUETBOT_FLOOR_IMAGE": str(png)}],
                )
            )
        if not args.no_scale:
            big = await phase(f"quetbot: {args.active:,} live games", "quetbot", big_db)
        if not args.quick and not args.no_floor:
            floor_max = await phase("text floor: unpaced", "floor", small_db, paced=False, replay=cap)
    finally:
        await emu.stop()
    renders = [] if args.no_render else run_renders(args.quick)

    print_phases(results)
    if image_note:
        print(f"  {image_note}")
    print_capacity(cap, offered, ours)
    if floor_max is not None and floor_max.duration and cap.moves:
        floor_rate = floor_max.interactions / floor_max.duration
        per_move = cap.interactions / cap.moves
        print(
            f"  the text floor answered the capacity phase's interactions at {floor_rate:.0f}/s: discord.py "
            f"and the emulator alone cap this mix at {floor_rate / per_move:.0f} moves/s on this machine"
        )
    print_first(ours, floors)
    print_cpu(ours, floors)
    print_images([r for r in results if not r.name.startswith(("text floor", "image floor"))])
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
    threads, started = sum(r.in_threads for r in results), sum(r.started for r in results)
    print(
        f"  games played in a thread of their own: {threads} of the {started} started (the others: in place)"
    )
    print()
    print("Targets (printed, never enforced)")
    image_floor = next((f for f in floors if f.name.startswith("image floor")), None)
    for line in targets(ours, image_floor, big, renders, args.games, where):
        print(line)
    if emu.internal_errors:
        print(
            f"\nThe emulator failed {len(emu.internal_errors)} time(s); the first:\n{emu.internal_errors[0]}"
        )


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
        n = r.interactions
        print(
            f"  {r.name}: {r.games_finished} games, {r.moves} moves, {n} interactions in {r.duration:.1f} s; "
            f"bot CPU {r.cpu / r.moves * 1000:.2f} ms per move, {r.cpu / n * 1000:.2f} ms per interaction, "
            f"{r.moves / r.cpu:.0f} moves per CPU-second; "
            f"first answer p50 {pct(r.all_first(), 50) * 1000:.1f} ms"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, help="concurrent games (default 50; --scale-out --quick: 20)")
    parser.add_argument(
        "--quick", action="store_true", help="short phases, fewer stored games (about a minute)"
    )
    parser.add_argument(
        "--rate",
        type=float,
        help="moves per second offered by all tables together (default: half the measured capacity)",
    )
    parser.add_argument(
        "--duration",
        type=float,
        help="seconds per paced phase (default 30, quick 8; unpaced: half; --scale-out: 24, quick 4, "
        "unpaced too)",
    )
    parser.add_argument("--active", type=int, default=10_000, help="stored live games for the scale phase")
    parser.add_argument("--finished", type=int, help="stored finished games (default 100,000, quick 20,000)")
    parser.add_argument("--no-floor", action="store_true", help="skip the floors (no ratios)")
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
    parser.add_argument(
        "--scale-out",
        action="store_true",
        help="only SQLite against PostgreSQL with one bot process, and one process against two "
        "(shards 0 and 1 of 2) on PostgreSQL (default: 50 games, 24 s phases, 2 rounds, about 7 "
        "minutes; quick: 20 games, 4 s, 1 round, about 45 s)",
    )
    parser.add_argument(
        "--rounds", type=int, help="with --scale-out: how many times each phase runs (default 2, quick 1)"
    )
    args = parser.parse_args()
    if args.scale_out and args.cost:
        parser.error("--scale-out and --cost are separate benchmarks: give one")
    if args.scale_out:
        if args.games is None:
            args.games = 20 if args.quick else 50
        if args.duration is None:
            args.duration = 4.0 if args.quick else 24.0
        if args.rounds is None:
            args.rounds = 1 if args.quick else 2
    if args.games is None:
        args.games = 50
    if args.duration is None:
        args.duration = 8.0 if args.quick else 30.0
    if args.finished is None:
        args.finished = 20_000 if args.quick else 100_000
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
