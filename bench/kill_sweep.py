"""Kill-point sweeps (issue 24): one scripted interaction, the bot killed right after each request it
makes to Discord while handling it, restarted, and compared with a run that was not killed.

For a *case* (a game and an input path: a board button or menu, a select, a slash command, a form, a
DM panel's control, a typed DM, a lobby button or command) the script is a short game: the lobby, a
move or two, the *target* interaction, then a move or two after it. The bot runs as a process of its
own (``bench/launch_bot.py``, the real entry point) against the loopback emulator, on a fresh SQLite
database, with every game seeded alike (``QUETBOT_FIXED_SEED``), computer players off.

1. The reference: the script played without a kill. The requests the bot makes from the target's start
   until it is quiet again (its answer, the board, the old board's controls, the DM panels...) are
   counted: K.
2. For each kill point k of 1..K, the same script in a fresh channel with fresh players (on the same
   emulator and database, so only the restart after the previous kill starts a process): right after
   the bot's k-th request from the target's start has been applied by Discord, and before its answer
   goes back, the process is SIGKILLed; it is started again on the same database, the target is tried
   again if (and only if) the player was never answered and it did not land, the moves after it are
   made at once (by slash command: they need nothing the late effects bring), and the outbox settles.

Checked against the reference (texts with ids, snowflakes and timestamps masked, images compared as
pixels):

- *acknowledged, lost*: the player saw an answer that was not a refusal (or, typed, the DM panel's
  note), yet after the restart the database does not hold what the target did;
- *boards*: every version of the game has exactly one board, in order of versions, and each shows
  what the reference's board of that version showed (its text as first posted, its image, its alt
  text, its file's name) and ends with the same text;
- *texts*: the card in the channel, the thread's name, each player's DM panel and the move log end as
  in the reference; nothing was done twice (bench/crash_twice.py) and the outbox is empty.

Tournaments and seasons (issue 29) are cases too: a tournament's table (`TourTable`) has three
players and follows the tournament's game still live; what is compared there is `observe_tournament`
(the tournament as stored, its channel's posts in order, its card, its games' threads and boards).

The fast form is tests/e2e/test_kill_sweep.py (a subset of kill points for each case); the long form
``python bench/crash_safety.py --sweep [--game G] [--path P] [--points all|ends]`` runs every kill
point of every case.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import io
import json
import re
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from PIL import Image

from bench.crash_safety import BotProcess, CrashRun, slash_move
from bench.crash_twice import board_of, find_doubles, first_form
from bot.events.tournaments import CARD_GRACE
from bot.registry import RULES
from tests.db import query
from tests.e2e.driver import live_control, private_menu, use_control
from tests.emulator import DiscordEmulator, EmulatorError
from tests.emulator.models import CallbackType, Channel, InteractionRecord, MessageRecord, Perm, User
from tests.emulator.traps import Trap

TOKEN = "sweep.bot.token"
SEED = 424242  # every game of a sweep is dealt from this seed
OPTIONS: dict[str, dict[str, Any]] = {
    "procession": {"n": 5},
    "dots": {"size": 4},
    "updown": {},
    "numbers": {"m": 3},
    "divisors": {"m": 4},
}
NAMES = ("alice", "bob")
QUIET = 0.25  # seconds without a request: the bot is done with an interaction
DEFERRED = (CallbackType.DEFERRED_CHANNEL_MESSAGE, CallbackType.DEFERRED_UPDATE_MESSAGE)

# ---- a run's table: a channel, two players, one game ---------------------------------------------------


@dataclass
class Typed:
    """A move typed in a DM: the DM channel and what the bot had sent there before it."""

    user: User
    dm: Channel
    before: dict[int, int]  # message id -> versions seen


Reply = InteractionRecord | Typed | None


@dataclass
class Table:
    emu: DiscordEmulator
    db: str
    kind: str
    channel: Channel
    users: list[User]
    game_id: int | None = None
    forms: dict[int, InteractionRecord] = field(default_factory=dict)  # user id -> the form opened

    @property
    def rules(self) -> Any:
        return RULES[self.kind]

    def card(self) -> MessageRecord:
        bot_id = self.emu.bot_user.id
        cards = [
            m
            for m in self.emu.channel_messages(self.channel)
            if m.author.id == bot_id and any(c.endswith(":-:join") for c in first_form_ids(m))
        ]
        if not cards:
            raise EmulatorError("no lobby card in the channel")
        return cards[-1]

    def place(self) -> Channel:
        """Where the game is played: the thread started from its card, else the channel."""
        with contextlib.suppress(EmulatorError):
            return self.emu.channels.get(self.card().id) or self.channel
        return self.channel

    def stored(self) -> dict[str, Any] | None:
        if self.game_id is None:
            rows = query(self.db, "SELECT id FROM games WHERE channel_id = ?", (self.channel.id,))
            if not rows:
                return None
            self.game_id = int(rows[0][0])
        rows = query(self.db, "SELECT state FROM games WHERE id = ?", (self.game_id,))
        return json.loads(rows[0][0]) if rows and rows[0][0] else None

    def state(self) -> Any:
        stored = self.stored()
        assert stored is not None, "the game has not started"
        return self.rules.State.from_dict(stored)

    def fingerprint(self) -> tuple[Any, ...]:
        """What the database holds of this table's game: its status, version, seats, moves and moves
        taken back, takeback requests by status, more time given, its analysis; and its players' time
        away and puzzle answers."""
        rows = query(
            self.db,
            "SELECT g.status, g.version, (SELECT COUNT(*) FROM seats s WHERE s.game_id = g.id), "
            "(SELECT COUNT(*) FROM moves m WHERE m.game_id = g.id), "
            "(SELECT COUNT(*) FROM moves m WHERE m.game_id = g.id AND m.undone), "
            "(SELECT group_concat(status) FROM (SELECT status FROM undo_requests u "
            "WHERE u.game_id = g.id ORDER BY u.id)), "
            "(SELECT COUNT(*) FROM extensions e WHERE e.game_id = g.id), "
            "(SELECT COUNT(*) FROM analyses a WHERE a.game_id = g.id) "
            "FROM games g WHERE g.channel_id = ?",
            (self.channel.id,),
        )
        ids = tuple(u.id for u in self.users)
        marks = ",".join("?" * len(ids))
        away = query(self.db, f"SELECT COUNT(*) FROM away WHERE user_id IN ({marks})", ids)
        solved = query(self.db, f"SELECT COUNT(*) FROM puzzle_answers WHERE user_id IN ({marks})", ids)
        return (*rows, away[0][0], solved[0][0])

    def moves(self) -> list[tuple[int, Any]]:
        if self.game_id is None:
            return []
        rows = query(
            self.db, "SELECT seat, action FROM moves WHERE game_id = ? ORDER BY seq", (self.game_id,)
        )
        return [(int(seat), json.loads(action)) for seat, action in rows]

    def mover(self) -> tuple[User, int]:
        """The player the game waits for (the lowest seat, if several)."""
        seat = min(self.rules.to_act(self.state()))
        return self.users[seat], seat

    def dm_channel(self, user: User) -> Channel:
        return self.emu.open_dm(user)


LAG = 10.0  # seconds a pass following a change (a tournament's next round) may take after a restart
TOUR_NAMES = ("alice", "bob", "carol")  # a tournament's players: a round robin of 3, a bye each round
TOUR_OPTIONS: dict[str, Any] = {"game": "procession", "format": "round-robin", "n": 3}


class TourTable(Table):
    """A tournament in the table's channel: its card, its rounds' games (each in its thread); the game
    the scripted moves are made in is its first game still live (else its last)."""

    def tournament_id(self) -> int | None:
        rows = query(self.db, "SELECT id FROM tournaments WHERE channel_id = ?", (self.channel.id,))
        return int(rows[0][0]) if rows else None

    def card(self) -> MessageRecord:
        cards = tour_cards(self)
        if not cards:
            raise EmulatorError("no tournament card in the channel")
        return cards[0]

    def stored(self) -> dict[str, Any] | None:
        tid = self.tournament_id()
        if tid is None:
            return None
        rows = query(
            self.db,
            "SELECT game_id FROM tournament_games WHERE tournament_id = ? AND game_id IS NOT NULL "
            "ORDER BY status = 'live' DESC, round DESC, board",
            (tid,),
        )
        if not rows:
            return None
        self.game_id = int(rows[0][0])
        rows = query(self.db, "SELECT state FROM games WHERE id = ?", (self.game_id,))
        return json.loads(rows[0][0]) if rows and rows[0][0] else None

    def place(self) -> Channel:
        if self.stored() is None:
            return self.channel
        rows = query(self.db, "SELECT place_id FROM games WHERE id = ?", (self.game_id,))
        return self.emu.channels.get(int(rows[0][0])) or self.channel if rows and rows[0][0] else self.channel

    def mover(self) -> tuple[User, int]:
        seat = min(self.rules.to_act(self.state()))
        rows = query(
            self.db, "SELECT user_id FROM seats WHERE game_id = ? AND position = ?", (self.game_id, seat)
        )
        return self.emu.users[int(rows[0][0])], seat

    def fingerprint(self) -> tuple[Any, ...]:
        """The tournament as stored: its status and round, its entrants (by name, in seed order, and the
        round each withdrew in), its games (round, board, players, status, winners, forfeit, whether a
        game was opened, that game's status and moves), its byes. (Not the posts it owes: those are
        carried out after the change, and `observe_tournament` checks that none is left.)"""
        tid = self.tournament_id()
        if tid is None:
            return ()
        names = {u.id: u.name for u in self.emu.users.values()}

        def who(ids: str | None) -> tuple[str, ...] | None:
            return None if ids is None else tuple(names.get(int(i), "?") for i in json.loads(ids))

        (head,) = query(
            self.db,
            "SELECT status, round, rounds, format, card_message_id IS NOT NULL FROM tournaments WHERE id = ?",
            (tid,),
        )
        entrants = query(
            self.db,
            "SELECT user_id, seed, withdrawn FROM tournament_entrants WHERE tournament_id = ? ORDER BY seed",
            (tid,),
        )
        games = query(
            self.db,
            "SELECT tg.round, tg.board, tg.players, tg.status, tg.winners, tg.forfeit, "
            "tg.game_id IS NOT NULL, g.status, (SELECT COUNT(*) FROM moves m WHERE m.game_id = g.id) "
            "FROM tournament_games tg LEFT JOIN games g ON g.id = tg.game_id "
            "WHERE tg.tournament_id = ? ORDER BY tg.round, tg.board",
            (tid,),
        )
        byes = query(
            self.db,
            "SELECT round, user_id FROM tournament_byes WHERE tournament_id = ? ORDER BY round, user_id",
            (tid,),
        )
        return (
            tuple(head),
            tuple((names.get(int(u), "?"), s, w) for u, s, w in entrants),
            tuple((r, b, who(p), st, who(wn), f, o, gs, n) for r, b, p, st, wn, f, o, gs, n in games),
            tuple((r, names.get(int(u), "?")) for r, u in byes),
        )


class SeasonTable(Table):
    """A server's seasons: ``/game settings`` by someone with Manage Server."""

    def stored(self) -> dict[str, Any] | None:
        return None

    def fingerprint(self) -> tuple[Any, ...]:
        """The server's season settings: the mode, whether the posts go to this table's channel."""
        guild = self.channel.guild.id if self.channel.guild is not None else None
        rows = query(self.db, "SELECT mode, channel_id FROM season_settings WHERE guild_id = ?", (guild,))
        return tuple((mode, None if c is None else int(c) == self.channel.id) for mode, c in rows)


def tour_cards(t: Table) -> list[MessageRecord]:
    """The bot's tournament cards in the table's channel, oldest first (one expected)."""
    bot_id = t.emu.bot_user.id
    return sorted(
        (
            m
            for m in t.emu.channel_messages(t.channel)
            if m.author.id == bot_id and any(":-:tour_" in str(v.components) for v in m.versions)
        ),
        key=lambda m: m.seq,
    )


def first_form_ids(message: MessageRecord) -> list[str]:
    return [str(c["custom_id"]) for c in walk(first_form(message).components) if "custom_id" in c]


def walk(components: list[dict[str, Any]]) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = []
    for component in components:
        found.append(component)
        found += walk(component.get("components") or [])
    return found


# ---- what players do ---------------------------------------------------------------------------------

Act = Callable[[Table], Awaitable[Reply]]


@dataclass(frozen=True)
class Step:
    name: str
    act: Act
    kill_here: bool = False  # the case's target


def slash(command: str, who: int | None = None, where: str = "place", **options: Any) -> Act:
    """``/command`` by seat ``who`` (None: the player to act), in the game's place or its channel."""

    async def act(t: Table) -> Reply:
        user = t.users[who] if who is not None else t.mover()[0]
        channel = t.place() if where == "place" else t.channel
        return await t.emu.slash(user, channel, command, dict(options))

    return act


def move_by_slash(t: Table, user: User, choice: dict[str, Any]) -> Awaitable[InteractionRecord]:
    command, options = slash_move(t.kind, choice)
    return t.emu.slash(user, t.place(), command, options)


PREDICTIONS = ("UD", "DS")


def choice_for(t: Table, seat: int) -> dict[str, Any]:
    """The scripted move of ``seat``: the first legal one (the last for seat 1 in the secret games, so
    that picks differ), a fixed prediction."""
    legal = [a for a in t.rules.legal_actions(t.state(), seat) if a["type"] not in ("forfeit", "drop")]
    if legal[0]["type"] == "predict":
        return {"type": "predict", "letters": PREDICTIONS[seat]}
    return dict(legal[-1] if seat == 1 and t.kind in ("numbers", "divisors") else legal[0])


def waiting_seat(t: Table, seat: int | None) -> tuple[User, int]:
    if seat is None:
        return t.mover()
    return t.users[seat], seat


def command_move(seat: int | None = None) -> Act:
    async def act(t: Table) -> Reply:
        user, s = waiting_seat(t, seat)
        return await move_by_slash(t, user, choice_for(t, s))

    return act


def board_button_move() -> Act:
    """Procession: the mover clicks the position's button on the newest board."""

    async def act(t: Table) -> Reply:
        user, seat = t.mover()
        position = choice_for(t, seat)["position"]
        board = newest_board(t)
        return await t.emu.click(user, board, board.button(str(position))["custom_id"])

    return act


def newest_board(t: Table) -> MessageRecord:
    posts = [m for m in t.emu.channel_messages(t.place()) if m.author.id == t.emu.bot_user.id]
    with_controls = [m for m in posts if any(":" in str(c.get("custom_id", "")) for c in m.all_components())]
    if not with_controls:
        raise EmulatorError("no board with controls")
    return with_controls[-1]


def board_menu_move(verb: str) -> Act:
    """Lines By The Dots: the mover picks from the newest post's menu (``to``: the line's end; ``from``:
    its start, answered with the private "Where does it end?" menu)."""

    async def act(t: Table) -> Reply:
        user, seat = t.mover()
        rec = await use_control(t.emu, user, newest_board(t), verb, choice_for(t, seat)[verb])
        assert rec is not None, f"no {verb} menu on the board"
        if verb == "from":
            t.forms[user.id] = rec
        return rec

    return act


def picker_move() -> Act:
    """Lines By The Dots: the end of the line from the private menu the start dot was answered with."""

    async def act(t: Table) -> Reply:
        user, seat = t.mover()
        opened = t.forms[user.id]
        await opened.response()
        picker = private_menu(opened)
        if picker is None:
            # The menu was answered already (a retry): the start dot again, from the board.
            opened = await board_menu_move("from")(t)
            assert isinstance(opened, InteractionRecord)
            await opened.response()
            picker = private_menu(opened)
        assert picker is not None
        rec = await use_control(t.emu, user, picker, "to", choice_for(t, seat)["to"])
        assert rec is not None
        return rec

    return act


def panel_of(t: Table, user: User, private: bool = False) -> MessageRecord:
    t.stored()  # the game's id, from its channel
    shown = t.emu.private_messages(user) if private else t.emu.dm_messages(user)
    panels = [m for m in shown if f"game #{t.game_id}" in m.content and m.author.id == t.emu.bot_user.id]
    if not panels:
        raise EmulatorError(f"{user.name} has no panel of game #{t.game_id}")
    return panels[-1]


def open_form(seat: int, verb: str, private: bool = False) -> Act:
    """The player opens a form: the ``verb`` button of their DM panel (or, ``private``, of the panel the
    board's My move / My hand button showed them)."""

    async def act(t: Table) -> Reply:
        user = t.users[seat]
        panel = panel_of(t, user, private)
        button = live_control(panel, verb)
        assert button is not None, f"no {verb} control on {user.name}'s panel: {panel.content!r}"
        rec = await t.emu.click(user, panel, button["custom_id"])
        t.forms[user.id] = rec
        return rec

    return act


def submit_form(seat: int, verb: str, private: bool = False) -> Act:
    async def act(t: Table) -> Reply:
        user = t.users[seat]
        choice = choice_for(t, seat)
        values = (
            {"number": str(choice.get("number"))} if t.kind == "numbers" else {"letters": choice["letters"]}
        )
        try:
            return await t.emu.submit_modal(user, t.forms[user.id], values=values)
        except EmulatorError:  # the form was used (a retry): open it again
            await (await open_form(seat, verb, private)(t)).response()  # type: ignore[union-attr]
            return await t.emu.submit_modal(user, t.forms[user.id], values=values)

    return act


def panel_menu_move(seat: int, verb: str, private: bool = False) -> Act:
    """A card from the player's DM panel's menu (or, ``private``, from the panel shown under the
    board)."""

    async def act(t: Table) -> Reply:
        user = t.users[seat]
        choice = choice_for(t, seat)
        value = str(choice.get("card", choice.get("rank")))
        panel = panel_of(t, user, private)
        menu = live_control(panel, verb)
        assert menu is not None, f"no {verb} menu on {user.name}'s panel: {panel.content!r}"
        return await t.emu.select(user, panel, menu["custom_id"], [value])

    return act


def show_mine(seat: int) -> Act:
    """The board's My move / My hand button: the player's panel, privately."""

    async def act(t: Table) -> Reply:
        board = newest_board(t)
        mine = next(c for c in board.all_components() if str(c.get("custom_id", "")).endswith(":mine"))
        return await t.emu.click(t.users[seat], board, mine["custom_id"])

    return act


def typed_move(seat: int) -> Act:
    async def act(t: Table) -> Reply:
        user = t.users[seat]
        choice = choice_for(t, seat)
        text = str(choice.get("letters") or choice.get("number") or choice.get("card") or choice.get("rank"))
        dm = t.dm_channel(user)
        before = {m.id: len(m.history) for m in t.emu.channel_messages(dm)}
        await t.emu.send_dm(user, text)
        return Typed(user, dm, before)

    return act


def takeback_answer(seat: int, verb: str = "undo_ok") -> Act:
    """The Accept (or Decline) button of the newest takeback request, clicked by seat ``seat``."""

    async def act(t: Table) -> Reply:
        bot_id = t.emu.bot_user.id
        asked = [
            m
            for m in t.emu.channel_messages(t.place())
            if m.author.id == bot_id
            and any(i.endswith(f":{verb}") or f":{verb}:" in i for i in first_form_ids(m))
        ]
        assert asked, "no takeback request in the game's place"
        button = next(c for c in asked[-1].all_components() if f":{verb}" in str(c.get("custom_id", "")))
        return await t.emu.click(t.users[seat], asked[-1], button["custom_id"])

    return act


def extend_for(giver: int, player: int, hours: int = 24) -> Act:
    """``/game extend player:<seat player> hours:<hours>`` by seat ``giver``, in the game's place."""

    async def act(t: Table) -> Reply:
        return await t.emu.slash(
            t.users[giver], t.place(), "game extend", {"player": t.users[player], "hours": hours}
        )

    return act


def to_the_end() -> Act:
    """The scripted moves, by slash command, until the game is over (the last one's reply)."""

    async def act(t: Table) -> Reply:
        reply: Reply = None
        while t.rules.to_act(t.state()):
            user, seat = t.mover()
            reply = await move_by_slash(t, user, choice_for(t, seat))
            await reply.response()
            await t.emu.wait_idle()
        return reply

    return act


def analyse(seat: int) -> Act:
    """``/game analyse`` of the table's (finished) game, by seat ``seat``, in the channel."""

    async def act(t: Table) -> Reply:
        assert t.game_id is not None
        return await t.emu.slash(t.users[seat], t.channel, "game analyse", {"game_id": t.game_id})

    return act


def puzzle_answer(seat: int) -> Act:
    """A click on the first flip of the day's puzzle that ``/game puzzle`` showed seat ``seat``."""

    async def act(t: Table) -> Reply:
        shown = [
            m
            for m in t.emu.messages.values()
            if m.author.id == t.emu.bot_user.id
            and any(":puzzle:" in str(c.get("custom_id", "")) for c in m.all_components())
        ]
        assert shown, "no puzzle shown"
        message = max(shown, key=lambda m: m.seq)
        button = next(c for c in message.all_components() if ":puzzle:" in str(c.get("custom_id", "")))
        return await t.emu.click(t.users[seat], message, button["custom_id"])

    return act


def lobby_button(verb: str, seat: int) -> Act:
    async def act(t: Table) -> Reply:
        card = t.card()
        button = live_control(card, verb)
        assert button is not None, f"no {verb} button on the card: {card.content!r}"
        return await t.emu.click(t.users[seat], card, button["custom_id"])

    return act


def tour_button(verb: str, seat: int) -> Act:
    """A click on the tournament card's ``verb`` button (join, leave, start, cancel) by seat ``seat``."""

    async def act(t: Table) -> Reply:
        card = t.card()
        button = live_control(card, f"tour_{verb}")
        assert button is not None, f"no {verb} button on the tournament's card: {card.content!r}"
        return await t.emu.click(t.users[seat], card, button["custom_id"])

    return act


def to_the_last_move() -> Act:
    """The scripted moves, by slash command, until the next one ends the game."""

    async def act(t: Table) -> Reply:
        reply: Reply = None
        while True:
            user, seat = t.mover()
            choice = choice_for(t, seat)
            if not t.rules.to_act(t.rules.apply(t.state(), seat, choice)):
                return reply
            reply = await move_by_slash(t, user, choice)
            await reply.response()
            await t.emu.wait_idle()

    return act


def next_round_open() -> Act:
    """Nothing done: wait until the tournament's next round has a game being played (the desk opens
    it once the round's last game ended, after a restart too), for the moves that follow."""

    async def act(t: Table) -> Reply:
        assert isinstance(t, TourTable)

        def opened() -> bool:
            tid = t.tournament_id()
            live = "SELECT 1 FROM tournament_games WHERE tournament_id = ? AND status = 'live'"
            return tid is not None and bool(query(t.db, live, (tid,)))

        await t.emu.wait_until(opened, 30, "the next round's game")
        await t.emu.wait_idle()
        return None

    return act


def seasons_settings(mode: str, announce: bool) -> Act:
    """``/game settings seasons:<mode> [announce:<the table's channel>]`` by seat 0 (Manage Server)."""

    async def act(t: Table) -> Reply:
        options: dict[str, Any] = {"seasons": mode}
        if announce:
            options["announce"] = t.channel
        return await t.emu.slash(t.users[0], t.channel, "game settings", options)

    return act


def open_lobby(t: Table) -> Awaitable[InteractionRecord]:
    return t.emu.slash(t.users[0], t.channel, f"{t.kind} new", dict(OPTIONS[t.kind]))


# ---- the cases -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    kind: str
    path: str
    steps: tuple[Step, ...]
    # The next player moves while the bot's k-th request is still unanswered (Discord slow for a
    # moment), and then the bot is killed: a late effect of the target is carried out after the
    # restart with a newer move already in the log.
    meanwhile: bool = False

    @property
    def name(self) -> str:
        return f"{self.kind}-{self.path}" + ("-meanwhile" if self.meanwhile else "")

    @property
    def target(self) -> int:
        return next(i for i, s in enumerate(self.steps) if s.kill_here)


def lobby_steps(kind: str, path: str | None) -> list[Step]:
    """Open, join and start; the step named ``path`` (new, join-button, join-command, start-button,
    start-command) is the target."""
    steps = [
        Step("new", open_lobby, kill_here=path == "new"),
        Step("join-button", lobby_button("join", 1), kill_here=path == "join-button")
        if path != "join-command"
        else Step("join-command", slash("game join", 1, where="channel"), kill_here=True),
        Step("start-command", slash("game start", 0, where="channel"), kill_here=True)
        if path == "start-command"
        else Step("start-button", lobby_button("start", 0), kill_here=path == "start-button"),
    ]
    return steps


def then(*steps: Step) -> list[Step]:
    return list(steps)


def target(name: str, act: Act) -> Step:
    return Step(name, act, kill_here=True)


def by_command(name: str, seat: int | None = None) -> Step:
    return Step(name, command_move(seat))


LOBBY_PATHS = ("new", "join-button", "join-command", "start-button", "start-command")


def build_cases() -> list[Case]:
    cases: list[Case] = []

    def add(kind: str, path: str, steps: list[Step]) -> None:
        cases.append(Case(kind, path, tuple(steps)))

    after2 = [by_command("next move"), by_command("move after")]
    # Procession: the board's position buttons, /procession flip.
    add(
        "procession",
        "board-button",
        [*lobby_steps("procession", None), target("flip", board_button_move()), *after2],
    )
    cases.append(Case("procession", "board-button", cases[-1].steps, meanwhile=True))
    add("procession", "slash", [*lobby_steps("procession", None), target("flip", command_move()), *after2])
    # Lines By The Dots: the first line by command, by the start-dot menu and the private end menu; a
    # line from the board's end menu.
    add("dots", "slash", [*lobby_steps("dots", None), target("line", command_move()), *after2])
    add(
        "dots",
        "picker-select",
        [
            *lobby_steps("dots", None),
            Step("start dot", board_menu_move("from")),
            target("end dot", picker_move()),
            *after2,
        ],
    )
    add(
        "dots",
        "board-select",
        [*lobby_steps("dots", None), by_command("first line"), target("end", board_menu_move("to")), *after2],
    )
    # Up-Down-Stay: predictions by form, command and typed DM; cards by the DM menu, command, typed
    # DM and the menu of the panel under the board (My hand).
    predict_after = [by_command("bob predicts", 1), by_command("alice plays", 0), by_command("bob plays", 1)]
    add(
        "updown",
        "dm-form",
        [
            *lobby_steps("updown", None),
            Step("open", open_form(0, "predict")),
            target("predict", submit_form(0, "predict")),
            *predict_after,
        ],
    )
    add(
        "updown",
        "slash-predict",
        [*lobby_steps("updown", None), target("predict", command_move(0)), *predict_after],
    )
    add(
        "updown",
        "typed-predict",
        [*lobby_steps("updown", None), target("predict", typed_move(0)), *predict_after],
    )
    predicted = [*lobby_steps("updown", None), by_command("alice predicts", 0), by_command("bob predicts", 1)]
    play_after = [by_command("bob plays", 1), by_command("alice plays", 0)]
    add("updown", "dm-select", [*predicted, target("play", panel_menu_move(0, "play")), *play_after])
    add("updown", "slash-play", [*predicted, target("play", command_move(0)), *play_after])
    add("updown", "typed-play", [*predicted, target("play", typed_move(0)), *play_after])
    add(
        "updown",
        "board-button",
        [
            *predicted,
            Step("my hand", show_mine(0)),
            target("play", panel_menu_move(0, "play", private=True)),
            *play_after,
        ],
    )
    # Numbers To Number and the Numerical Card Game: the pick that reveals a move (Bob's, after
    # Alice's by command), then a move by command.
    reveal_after = [by_command("alice picks", 0), by_command("bob picks", 1)]
    for kind, verb in (("numbers", "pick"), ("divisors", "pick")):
        first = [*lobby_steps(kind, None), by_command("alice picks", 0)]
        add(kind, "slash", [*first, target("pick", command_move(1)), *reveal_after])
        add(kind, "typed", [*first, target("pick", typed_move(1)), *reveal_after])
        if kind == "numbers":
            add(
                kind,
                "dm-form",
                [
                    *first,
                    Step("open", open_form(1, verb)),
                    target("pick", submit_form(1, verb)),
                    *reveal_after,
                ],
            )
            add(
                kind,
                "board-button-form",
                [
                    *first,
                    Step("my move", show_mine(1)),
                    Step("open", open_form(1, verb, private=True)),
                    target("pick", submit_form(1, verb, private=True)),
                    *reveal_after,
                ],
            )
        else:
            add(kind, "dm-select", [*first, target("pick", panel_menu_move(1, verb)), *reveal_after])
            add(
                kind,
                "board-button-select",
                [
                    *first,
                    Step("my move", show_mine(1)),
                    target("pick", panel_menu_move(1, verb, private=True)),
                    *reveal_after,
                ],
            )
    add(
        "divisors",
        "slash-drop",
        [
            *lobby_steps("divisors", None),
            by_command("alice picks", 0),
            target("drop", slash("divisors drop", 1)),
        ],
    )
    # Time and takebacks (issue 27): Bob accepts Alice's takeback; Bob goes away for two days; Alice
    # gives Bob more time. Then the game goes on by command.
    moved = [*lobby_steps("procession", None), by_command("alice flips", 0)]
    add(
        "procession",
        "takeback-accept",
        [*moved, Step("alice asks", slash("game undo", 0)), target("accept", takeback_answer(1)), *after2],
    )
    add("procession", "away", [*moved, target("away", slash("game away", 1, days=2)), *after2])
    add("procession", "extend", [*moved, target("extend", extend_for(0, 1)), *after2])
    # Learning (issue 28): the analysis of a finished game; the answer to the day's puzzle.
    finished = [*lobby_steps("procession", None), Step("to the end", to_the_end())]
    add("procession", "analyse", [*finished, target("analyse", analyse(1))])
    add(
        "procession",
        "puzzle",
        [
            *moved,
            Step("puzzle", slash("game puzzle", 1, where="channel")),
            target("answer", puzzle_answer(1)),
            *after2,
        ],
    )

    # Tournaments and seasons (issue 29): a round robin of three (Procession, 3 digits): /tournament new
    # (its answer is the card), the card's Join and Start (round one's game opens: its card, thread and
    # first board, the round's post, the card edited); a withdrawal during the first game; the move
    # that ends round one (round two opens); /tournament cancel; /game settings seasons:month announce:.
    def tour_open(path: str | None) -> list[Step]:
        return [
            Step("new", slash("tournament new", 0, where="channel", **TOUR_OPTIONS), kill_here=path == "new"),
            Step("bob joins", tour_button("join", 1)),
            Step("carol joins", tour_button("join", 2), kill_here=path == "join-button"),
            Step("start", tour_button("start", 0), kill_here=path == "start-button"),
        ]

    one_move = [by_command("a move")]
    for path in ("new", "join-button", "start-button"):
        add("tournament", path, [*tour_open(path), *one_move])
    started = tour_open(None)
    add(
        "tournament",
        "leave",
        [*started, by_command("a move"), target("withdraw", slash("tournament leave", where="channel"))],
    )
    add(
        "tournament",
        "round-end",
        [
            *started,
            Step("to the last move", to_the_last_move()),
            target("last move", command_move()),
            Step("round two opens", next_round_open()),
            *one_move,
        ],
    )
    add(
        "tournament",
        "cancel",
        [*started, by_command("a move"), target("cancel", slash("tournament cancel", 0, where="channel"))],
    )
    # The card's Leave and Cancel buttons during the sign-up, and the move that ends the last round
    # (the tournament ends: the final post, the card's last edit).
    signed = tour_open(None)[:3]
    add(
        "tournament",
        "leave-button",
        [
            *signed,
            target("carol leaves", tour_button("leave", 2)),
            Step("carol joins again", tour_button("join", 2)),
            Step("start", tour_button("start", 0)),
            *one_move,
        ],
    )
    add("tournament", "cancel-button", [*signed[:2], target("cancel", tour_button("cancel", 0))])
    rounds_played = [
        step
        for n in (1, 2)
        for step in (
            Step(f"round {n} to its last move", to_the_last_move()),
            Step(f"round {n}'s last move", command_move()),
            Step(f"round {n + 1} opens", next_round_open()),
        )
    ]
    add(
        "tournament",
        "final",
        [
            *started,
            *rounds_played,
            Step("round 3 to its last move", to_the_last_move()),
            target("the last move of all", command_move()),
        ],
    )
    add(
        "seasons",
        "settings",
        [Step("off", seasons_settings("off", False)), target("month", seasons_settings("month", True))],
    )
    # The lobby, for every game: /<game> new, Join and Start by button and by /game; then two moves.
    for kind in OPTIONS:
        for path in LOBBY_PATHS:
            add(kind, f"lobby-{path}", [*lobby_steps(kind, path), *after2])
    return cases


CASES = {case.name: case for case in build_cases()}


# ---- one case, swept -------------------------------------------------------------------------------------


@dataclass
class Outcome:
    """One play of a case's script: what the bot was asked, what it showed, what went wrong."""

    kill_at: int | None
    requests: list[str] = field(default_factory=list)  # the target's requests ("POST /route"), in order
    killed_after: str = ""
    acknowledged: bool | None = None
    answer: str = ""
    fingerprint: tuple[Any, ...] = ()
    fingerprint_next: tuple[Any, ...] = ()  # meanwhile: after the next move as well
    seen: dict[str, Any] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    seconds: float = 0.0


class Sweep:
    """One emulator, one database and one bot process for a case; each play gets a fresh channel and
    fresh players named alike (so the texts compare), and only the restart after a kill starts a new
    process."""

    def __init__(self, case: Case, workdir: Path) -> None:
        self.case = case
        self.workdir = workdir
        self.emu = DiscordEmulator()
        self.db = str(workdir / f"{case.name}.sqlite3")
        self.proc: BotProcess | None = None
        self.guild: Any = None
        self.reference: Outcome | None = None
        self.starts = 0
        # The bot's clock, moved on at the end of a tournament's play past the time its desk waits
        # for the command's answer to record the card (`CARD_GRACE`): a second card would show.
        self.clock_file = workdir / f"{case.name}.clock"
        self.offset = 0.0
        self.clock_file.write_text("0")

    async def __aenter__(self) -> Sweep:
        await self.emu.start()
        self.guild = self.emu.add_scene().guild
        self.proc = BotProcess(
            self.emu,
            self.db,
            self.workdir / f"{self.case.name}.log",
            guild_id=self.guild.id,
            extra_env={
                "QUETBOT_FIXED_SEED": str(SEED),
                "QUETBOT_COMPUTER_WORKERS": "0",
                "QUETBOT_CLOCK_OFFSET_FILE": str(self.clock_file),
            },
        )
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self.proc is not None:
            await self.proc.stop()
        await self.emu.stop()

    async def start(self) -> None:
        assert self.proc is not None
        await self.proc.start()
        self.starts += 1

    def new_table(self) -> Table:
        channel = self.emu.add_text_channel(self.guild, "games")
        if self.case.kind == "seasons":
            admin = self.emu.add_user("admin", guilds=[self.guild], permissions=int(Perm.MANAGE_GUILD))
            return SeasonTable(self.emu, self.db, "procession", channel, [admin])
        if self.case.kind == "tournament":
            users = [self.emu.add_user(name, guilds=[self.guild]) for name in TOUR_NAMES]
            return TourTable(self.emu, self.db, "procession", channel, users)
        users = [self.emu.add_user(name, guilds=[self.guild]) for name in NAMES]
        return Table(self.emu, self.db, self.case.kind, channel, users)

    async def settle(self, within: float = 15.0) -> None:
        """The bot is quiet, its outbox empty, and no tournament owes a post or its next round."""
        loop = asyncio.get_running_loop()
        end = loop.time() + within
        while True:
            await self.emu.wait_idle(quiet=QUIET, timeout=max(end - loop.time(), 0.5))
            now = time.time() + self.offset
            owed = query(
                self.db,
                "SELECT COUNT(*) FROM tournament_posts WHERE not_before <= ? OR claimed_until > ?",
                (now, now),
            )[0][0]
            owed += query(  # a tournament whose round is over, not yet moved on (the desk's pass)
                self.db,
                "SELECT COUNT(*) FROM tournaments t WHERE t.status = 'running' AND NOT EXISTS ("
                "SELECT 1 FROM tournament_games g WHERE g.tournament_id = t.id AND g.round = t.round "
                "AND g.status != 'done')",
            )[0][0]
            if not query(self.db, "SELECT COUNT(*) FROM outbox")[0][0] and not owed:
                return
            if loop.time() > end:
                raise EmulatorError("the outbox did not empty")
            await asyncio.sleep(0.05)

    async def play(self, kill_at: int | None = None) -> Outcome:
        t0 = time.monotonic()
        errors = len(self.emu.internal_errors)
        out = Outcome(kill_at)
        table = self.new_table()
        steps = self.case.steps
        at = self.case.target
        for step in steps[:at]:
            await self.answered(await step.act(table), step.name, out)
            await self.settle()
        before = table.fingerprint()
        r0 = len(self.emu.requests)
        trap = None
        after = list(steps[at + 1 :])
        if kill_at is not None:
            proc = self.proc
            assert proc is not None
            hook: Callable[[], Awaitable[object]] = proc.kill
            if self.case.meanwhile:
                step = after.pop(0)

                async def hook() -> None:
                    rec = await step.act(table)
                    # Its answer may wait for the held request: kill once it came, or after a moment.
                    with contextlib.suppress(EmulatorError):
                        await self.emu.wait_until(
                            lambda: answer_of(rec, self.emu), 1.0, "the next move's answer"
                        )
                    await proc.kill()

            trap = self.emu.after_request("*", hook, nth=kill_at)
        reply = await steps[at].act(table)
        if trap is None:
            await self.answered(reply, steps[at].name, out)
            await self.settle()
            out.fingerprint = table.fingerprint()
            out.requests = [
                f"{r.method} {r.route or r.path}"
                for r in self.emu.requests[r0:]
                if r.status is not None and r.status < 400
            ]
        else:
            await self.kill_and_restart(trap, reply, table, before, out)
            await self.placed(table)
        if trap is None and self.case.meanwhile:  # where the database stands after the next move too
            await self.answered(await after[0].act(table), after[0].name, out)
            await self.settle()
            out.fingerprint_next = table.fingerprint()
            after.pop(0)
        for step in after:
            await self.answered(await step.act(table), step.name, out)
        await self.settle()
        if isinstance(table, TourTable):  # past the card's grace: nothing more is posted
            self.offset += CARD_GRACE + 5.0
            self.clock_file.write_text(str(self.offset))
            await asyncio.sleep(1.5)  # (the desk looks at due work every second on a movable clock)
            await self.settle()
        out.seen = observe(table)
        out.seconds = time.monotonic() - t0
        # The emulator's own faults are the test's, never the bot's: said, with their tracebacks.
        out.problems += [f"the emulator failed: {e}" for e in self.emu.internal_errors[errors:]]
        return out

    async def kill_and_restart(
        self, trap: Trap, reply: Reply, table: Table, before: tuple[Any, ...], out: Outcome
    ) -> None:
        step = self.case.steps[self.case.target]
        idle = asyncio.create_task(self.emu.wait_idle(quiet=1.0, timeout=15.0))
        killed = asyncio.create_task(trap.wait(15.0))
        await asyncio.wait({idle, killed}, return_when=asyncio.FIRST_COMPLETED)
        if trap.fired:
            await killed
        for task in (idle, killed):
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, EmulatorError):
                await task
        if not trap.fired:
            self.emu.traps.remove(trap)
            out.problems.append(f"kill point {out.kill_at} not reached: the target made fewer requests")
            await self.answered(reply, step.name, out)
            await self.settle()
            return
        assert trap.request is not None
        out.killed_after = f"{trap.request.method} {trap.request.route or trap.request.path}"
        out.answer = answer_of(reply, self.emu) or ""
        ref = self.reference
        out.acknowledged = bool(out.answer) and (ref is None or masked(out.answer) == masked(ref.answer))
        await self.start()
        now = table.fingerprint()
        landed = ref is not None and now in (ref.fingerprint, ref.fingerprint_next)
        if out.acknowledged and not landed and ref is not None:
            # What follows a change in a pass of its own (a tournament moves on in the desk's pass
            # after its round's last game ended: the restarted process's first pass, if the killed
            # one's never ran) is given time before the change is called lost.
            loop = asyncio.get_running_loop()
            end = loop.time() + LAG
            while not landed and loop.time() < end:
                await asyncio.sleep(0.1)
                now = table.fingerprint()
                landed = now in (ref.fingerprint, ref.fingerprint_next)
        if out.acknowledged and not landed:
            expected = ref.fingerprint if ref is not None else "?"
            out.problems.append(
                f"acknowledged ({out.answer[:80]!r}), lost: the database holds {now}, expected {expected}"
            )
        if not landed and now == before:  # the player tries again, as nothing happened
            await self.answered(await step.act(table), f"{step.name} (again)", out)

    async def placed(self, table: Table, within: float = 15.0) -> None:
        """A game started to be played in a thread has that thread: players go on where the card's
        link takes them (a move sent to the channel while the restarted bot is still making the
        thread is refused, rightly, with a pointer to it), without waiting for anything else."""
        if table.game_id is None and table.stored() is None:
            return
        rows = query(self.db, "SELECT start_place FROM games WHERE id = ?", (table.game_id,))
        if not rows or rows[0][0] != "thread":
            return
        with contextlib.suppress(EmulatorError):
            await self.emu.wait_until(lambda: table.place() is not table.channel, within, "the game's thread")

    async def answered(self, reply: Reply, what: str, out: Outcome) -> None:
        """Wait for the answer a step gets (a refusal is a problem); record the target's."""
        if isinstance(reply, InteractionRecord):
            try:
                await reply.response(timeout=10.0)
            except EmulatorError:
                out.problems.append(f"{what}: no answer")
                return
            if reply.callback is not None and reply.callback.type is CallbackType.DEFERRED_CHANNEL_MESSAGE:
                await self.emu.wait_until(
                    lambda: reply.original is not None and not reply.original.loading,
                    10.0,
                    "the deferred answer",
                )
        elif isinstance(reply, Typed):
            await self.emu.wait_until(lambda: answer_of(reply, self.emu), 10.0, f"the answer to {what}")
        if what == self.case.steps[self.case.target].name:
            out.answer = answer_of(reply, self.emu) or ""

    async def sweep(self, points: Callable[[int], Sequence[int]]) -> list[Outcome]:
        """The reference, then a play killed at each of ``points(K)``."""
        ref = await self.reference_play()
        outs = [ref]
        for k in points(len(ref.requests)):
            out = await self.play(k)
            out.problems += compare(ref.seen, out.seen)
            outs.append(out)
        return outs

    async def reference_play(self) -> Outcome:
        self.reference = await self.play(None)
        return self.reference


def answer_of(reply: Reply, emu: DiscordEmulator) -> str | None:
    """What the player was answered: the interaction's first answer that says something (a deferral says
    nothing), or, for a typed move, the DM the bot sent or edited since."""
    if reply is None:
        return None
    if isinstance(reply, Typed):
        bot_id = emu.bot_user.id
        for m in emu.channel_messages(reply.dm):
            if m.author.id == bot_id and len(m.history) > reply.before.get(m.id, 0):
                return m.content or "(an edit)"
        return None
    if reply.callback is None:
        return None
    if reply.callback.type in DEFERRED:
        if reply.original is not None and not reply.original.loading:
            return reply.original.content
        return None
    return CrashRun.answer_text(reply) or reply.callback.type.name


# ---- what a play showed ----------------------------------------------------------------------------------

MASKS = (
    (re.compile(r"<t:\d+(:\w)?>"), "<t:T>"),
    (re.compile(r"https://discord\.com/channels/[\d@me/]+"), "<link>"),
    (re.compile(r"<#\d+>"), "<#channel>"),
    (re.compile(r"game #\d+"), "game #G"),
    (re.compile(r"#\d+ ·"), "#G ·"),
    (re.compile(r"\d{15,}"), "ID"),
)


WHOSE_MOVE = re.compile(r"^(?:.*, your move\.|Waiting for .*\.|.* is thinking…)$", re.M)


def masked(text: str) -> str:
    for pattern, put in MASKS:
        text = pattern.sub(put, text)
    return text


def pixels(data: bytes) -> str:
    with Image.open(io.BytesIO(data)) as image:
        return hashlib.sha1(image.convert("RGB").tobytes()).hexdigest()[:12]


def observe(t: Table) -> dict[str, Any]:
    """What the table's game left in Discord and in the database, masked so that two plays compare."""
    if isinstance(t, TourTable):
        return observe_tournament(t)
    if isinstance(t, SeasonTable):
        return {"settings": t.fingerprint(), "posts": [post_line(t, m) for m in bot_posts(t, t.channel)]}
    emu = t.emu
    bot_id = emu.bot_user.id
    names = {u.id: u.name for u in emu.users.values()}

    def text(s: str) -> str:
        return masked(re.sub(r"<@!?(\d+)>", lambda m: f"<@{names.get(int(m[1]), '?')}>", s))

    place = t.place()
    posts = sorted(
        (m for m in emu.channel_messages(place) if m.author.id == bot_id and not m.ephemeral),
        key=lambda m: m.seq,
    )
    boards = []
    for m in posts:
        if place is t.channel and any(c.endswith(":-:join") for c in first_form_ids(m)):
            continue  # the card, when the game is played in its channel
        # A board answering a slash command may first be "thinking": its first form naming a version.
        shown = next(((v, board_of(v)) for v in m.versions if board_of(v) is not None), None)
        if shown is None:
            continue
        first, board = shown
        assert board is not None
        boards.append(
            {
                "version": board[1],
                "first text": text(first.content),
                "images": [
                    (re.sub(r"-\d+-", "-G-", a.filename), text(a.description or ""), pixels(a.data))
                    for a in first.attachments
                ],
                "text": text(m.content),
            }
        )
    card: MessageRecord | None = None
    with contextlib.suppress(EmulatorError):
        card = t.card()
    panels = {}
    for user in t.users:
        with contextlib.suppress(EmulatorError):
            panels[user.name] = text(panel_of(t, user).content)
    doubles = find_doubles(
        [
            m
            for m in emu.messages.values()
            if m.channel in (t.channel, place) or (m.channel.is_dm and m.channel.recipient in t.users)
        ],
        bot_id,
    )
    return {
        "boards": boards,
        "posts": [
            post_line(t, m)
            for m in sorted(
                (
                    m
                    for m in emu.messages.values()
                    if m.author.id == bot_id and m.channel in (t.channel, place)
                ),
                key=lambda m: m.seq,
            )
        ],
        # Whose move it is: the card follows the moves lazily (at most every 5 s, bot/table/cards.py).
        "card": WHOSE_MOVE.sub("<whose move>", text(card.content)) if card is not None else None,
        "card controls": sorted(
            str(c.get("label")) for c in card.all_components() if c.get("custom_id") and not c.get("disabled")
        )
        if card
        else [],
        "thread": text(place.name) if place is not t.channel else None,
        "panels": panels,
        "moves": t.moves(),
        "doubles": [f for fs in doubles.found.values() for f in fs],
    }


TOURNAMENT_MASK = (re.compile(r"tournament #\d+", re.I), "tournament #T")


def bot_posts(t: Table, channel: Channel) -> list[MessageRecord]:
    bot_id = t.emu.bot_user.id
    return sorted(
        (m for m in t.emu.channel_messages(channel) if m.author.id == bot_id and not m.ephemeral),
        key=lambda m: m.seq,
    )


def observe_tournament(t: TourTable) -> dict[str, Any]:
    """A tournament's traces: every public post of the bot in its channel, in order (each as first
    posted and as it ends: one card, one post per round, a final post), the card's controls, each of
    its games' thread (its name and posts: each board once, in order of versions), the tables as
    stored (`TourTable.fingerprint`), and anything done twice."""
    emu = t.emu
    names = {u.id: u.name for u in emu.users.values()}

    def text(s: str) -> str:
        s = masked(re.sub(r"<@!?(\d+)>", lambda m: f"<@{names.get(int(m[1]), '?')}>", s))
        return TOURNAMENT_MASK[0].sub(TOURNAMENT_MASK[1], s)

    def shown(m: MessageRecord) -> tuple[str, str]:
        return (text(m.versions[0].content) if m.versions else "", text(m.content))

    tid = t.tournament_id()
    games = (
        query(
            t.db,
            "SELECT g.id, g.place_id, g.channel_id FROM tournament_games tg "
            "JOIN games g ON g.id = tg.game_id WHERE tg.tournament_id = ? ORDER BY tg.round, tg.board",
            (tid,),
        )
        if tid is not None
        else []
    )
    threads = []
    places = [t.channel]
    for game_id, place_id, channel_id in games:
        place = emu.channels.get(int(place_id)) if place_id and place_id != channel_id else None
        if place is None:
            threads.append({"thread": None})
            continue
        places.append(place)
        posts = bot_posts(t, place)
        boards = []
        for m in posts:
            first = next(((v, board_of(v)) for v in m.versions if board_of(v) is not None), None)
            if first is not None:
                boards.append((first[1][1], text(first[0].content), text(m.content)))  # type: ignore[index]
        moves = query(t.db, "SELECT seat, action FROM moves WHERE game_id = ? ORDER BY seq", (game_id,))
        threads.append(
            {
                "thread": text(place.name),
                "boards": boards,
                "posts": [shown(m) for m in posts if board_of(m.versions[0]) is None],
                "moves": [(int(a), json.loads(b)) for a, b in moves],
            }
        )
    cards = tour_cards(t)
    doubles = find_doubles(
        [
            m
            for m in emu.messages.values()
            if m.channel in places or (m.channel.is_dm and m.channel.recipient in t.users)
        ],
        emu.bot_user.id,
    )
    return {
        "tournament": t.fingerprint(),
        "owed": query(t.db, "SELECT kind, round FROM tournament_posts WHERE tournament_id = ?", (tid,)),
        # (A game's card follows its moves lazily, as in `observe`: whose move it is, masked.)
        "channel": [(a, WHOSE_MOVE.sub("<whose move>", b)) for a, b in map(shown, bot_posts(t, t.channel))],
        "cards": len(cards),
        "card controls": sorted(
            str(c.get("label"))
            for c in cards[0].all_components()
            if c.get("custom_id") and not c.get("disabled")
        )
        if cards
        else [],
        "games": threads,
        "posts": [post_line(t, m) for m in bot_posts(t, t.channel)],
        "doubles": [f for fs in doubles.found.values() for f in fs],
    }


def compare_other(ref: dict[str, Any], got: dict[str, Any]) -> list[str]:
    """A tournament's or a server's settings: every key as in the reference (the posts' report lines
    said only when the channel's posts differ)."""
    problems = [f"done twice: {d}" for d in got.get("doubles", [])]
    for key in ref:
        if key in ("posts", "doubles") or got.get(key) == ref[key]:
            continue
        mine, want = got.get(key), ref[key]
        if isinstance(want, list) and isinstance(mine, list):  # the first difference, and the lengths
            i = next((i for i, (a, b) in enumerate(zip(mine, want, strict=False)) if a != b), None)
            if i is None:
                problems.append(f"{key}: {len(mine)} items, expected {len(want)}")
            else:
                problems.append(f"{key}, item {i}: {short(mine[i])} expected {short(want[i])}")
        else:
            problems.append(f"{key}: {short(mine)} expected {short(want)}")
        if key in ("channel", "cards", "games", "settings"):
            problems.append(f"{POSTS} here: " + " | ".join(got["posts"]))
            problems.append(f"{POSTS} in the reference: " + " | ".join(ref["posts"]))
    return problems


POSTS = "the bot's posts"


def post_line(t: Table, m: MessageRecord) -> str:
    """One of the bot's messages in the table's channel or thread, for a report: where, and what each
    of its forms was (the board it showed, or its first words)."""
    where = "channel" if m.channel is t.channel else "thread"
    forms = [
        f"board {b[1]}" if (b := board_of(v)) is not None else repr(masked(v.content)[:40])
        for v in m.versions
    ]
    return f"#{m.seq} {where}{' ephemeral' if m.ephemeral else ''}: {' -> '.join(forms)}"


def compare(ref: dict[str, Any], got: dict[str, Any]) -> list[str]:
    """How a killed play differs from the reference."""
    if "boards" not in ref:
        return compare_other(ref, got)
    problems = [f"done twice: {d}" for d in got["doubles"]]
    versions = [b["version"] for b in got["boards"]]
    want = [b["version"] for b in ref["boards"]]
    if versions != want:
        problems.append(f"boards by version {versions}, expected {want} (one each, in order)")
        problems.append(f"{POSTS} here: " + " | ".join(got["posts"]))
        problems.append(f"{POSTS} in the reference: " + " | ".join(ref["posts"]))
    mine = {b["version"]: b for b in reversed(got["boards"])}
    for b in ref["boards"]:
        g = mine.get(b["version"])
        if g is None:
            continue
        for key in ("first text", "images", "text"):
            if g[key] != b[key]:
                problems.append(
                    f"board of version {b['version']}, {key}: {short(g[key])} expected {short(b[key])}"
                )
    for key in ("card", "card controls", "thread", "panels", "moves"):
        if got[key] != ref[key]:
            problems.append(f"{key}: {short(got[key])} expected {short(ref[key])}")
    return problems


def short(value: Any) -> str:
    s = repr(value)
    return s if len(s) < 400 else s[:400] + "..."


# ---- which kill points -------------------------------------------------------------------------------


def every_point(k: int) -> list[int]:
    return list(range(1, k + 1))


def end_points(k: int) -> list[int]:
    """The first request (usually the answer) and the last (usually the last effect)."""
    return sorted({1, k}) if k else []


def first_point(k: int) -> list[int]:
    return [1] if k else []


def last_point(k: int) -> list[int]:
    return [k] if k else []


async def sweep_case(case: Case, workdir: Path, points: Callable[[int], Sequence[int]]) -> list[Outcome]:
    async with Sweep(case, workdir) as sweep:
        return await sweep.sweep(points)


def report_line(case: Case, outs: list[Outcome]) -> str:
    ref, kills = outs[0], outs[1:]
    failed = [o for o in kills if o.problems]
    seconds = sum(o.seconds for o in outs)
    line = (
        f"{case.name:40} K={len(ref.requests):2} killed at {len(kills):2}, failed {len(failed):2} "
        f"({seconds:5.1f} s)"
    )
    for o in failed:
        line += f"\n    k={o.kill_at} (after {o.killed_after}): " + "; ".join(
            p[: 3000 if p.startswith((POSTS, "the emulator")) else 300] for p in o.problems
        )
    return line


async def run_sweeps(names: Sequence[str], points: Callable[[int], Sequence[int]], workdir: Path) -> int:
    """The long form (``bench/crash_safety.py --sweep``): each case in turn, a line each; the totals.
    Returns the exit status: 1 if any kill point failed."""
    t0 = time.monotonic()
    kills = failed = 0
    for name in names:
        case = CASES[name]
        try:
            outs = await sweep_case(case, workdir, points)
        except Exception as exc:  # a case that cannot be played through is a failure, not the end
            print(f"{name:40} could not be played: {type(exc).__name__}: {str(exc)[:300]}", flush=True)
            failed += 1
            continue
        kills += len(outs) - 1
        failed += sum(1 for o in outs if o.problems)  # (the run without a kill included)
        print(report_line(case, outs), flush=True)
    minutes = (time.monotonic() - t0) / 60
    print(f"{len(names)} cases, {kills} kills, {failed} failed kill points, {minutes:.1f} minutes")
    return 1 if failed else 0
