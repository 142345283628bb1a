"""How each person is told that it is their move: their choice (`/game notify`), and what follows
from it.

- ``mention`` (the default): the board's "your move" mention pings them.
- ``dm``: no ping; a short DM instead ("Your move in Procession #12: <link>"). In a game with
  secrets the DM panel is edited in place, which notifies nobody, so they get that short DM too
  (unless the panel was just sent as a new message, which notifies by itself).
- ``both``: the ping and the DM. ``off``: neither (the game still waits; /game status shows it).
- ``digest``: no ping and no DM per move; one DM a day at the person's local hour listing what
  /game mine lists (`bot.table.digest`), and the reminder before a forfeit by DM.

Reminders follow the same choice (bot/table/notices.py). Inside a person's quiet hours (`/game
quiet`, bot/quiet.py) nothing pings or DMs them; the scheduler sends what was held back when the
quiet hours end. The choices are kept in memory: read at
startup (only the people who chose something other than the default have a row) and updated when
someone chooses, so that no move reads the database for them. Processes sharing a database read them
again every `FOLLOW_EVERY` seconds (`follow`): a choice made through another process (a DM goes to
shard 0's) is followed everywhere within that time.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Iterable

import discord

from bot import clock
from bot.errors import BadInput
from bot.i18n import ENGLISH, N_, Lang
from bot.players.seats import is_computer
from bot.quiet import period_at, zone
from bot.storage import Storage
from bot.table.effects import Nudge

log = logging.getLogger(__name__)

MENTION, DM, BOTH, OFF, DIGEST = "mention", "dm", "both", "off", "digest"
MODES = (MENTION, DM, BOTH, OFF, DIGEST)
DEFAULT = MENTION
FOLLOW_EVERY = 5.0  # seconds between reads of the choices, when processes share the database

DESCRIPTIONS = {
    MENTION: N_("When it is your move in a game, a mention on the board pings you."),
    DM: N_("When it is your move in a game, a short DM tells you (no ping on the board)."),
    BOTH: N_("When it is your move in a game, a mention on the board pings you, and a short DM tells you."),
    OFF: N_("When it is your move in a game, nothing tells you (no ping, no DM, no reminders)."),
    DIGEST: N_(
        "No ping and no DM for each move: one DM a day lists what waits on you (none when nothing does); "
        "the reminder before a forfeit comes by DM."
    ),
}


class Notify:
    """Each person's choice of how they are told it is their move."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self._modes: dict[int, str] = {}  # only the choices other than the default
        self._quiet: dict[int, tuple[int, int, str]] = {}  # quiet hours: start, end, time zone
        # People who chose DMs but whose DMs were found closed: the board mentions them instead.
        self._unreachable: set[int] = set()
        self._chosen = 0  # choices made here: a read under way when one is made is not used
        self._following: asyncio.Task[None] | None = None

    async def load(self) -> None:
        chosen = self._chosen
        choices = await self.storage.notify_choices()
        quiet = await self.storage.all_quiet()
        if chosen == self._chosen:
            self._modes = {u: m for u, m in choices.items() if m in MODES and m != DEFAULT}
            self._quiet = {q.user_id: (q.starts, q.ends, q.tz) for q in quiet}

    def follow(self, every: float = FOLLOW_EVERY) -> None:
        """Read the choices again every ``every`` seconds (processes sharing a database)."""
        if self._following is None:
            self._following = asyncio.get_running_loop().create_task(
                self._follow(every), name="quetbot-notify-follow"
            )

    async def _follow(self, every: float) -> None:
        while True:
            await asyncio.sleep(every)
            try:
                await self.load()
            except Exception:  # the database is away for a moment: read them next time
                log.warning("Could not read the notification choices", exc_info=True)

    async def stop(self) -> None:
        task, self._following = self._following, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    def mode(self, user_id: int) -> str:
        """How ``user_id`` is told of their move (a computer: not at all)."""
        if is_computer(user_id):
            return OFF
        return self._modes.get(user_id, DEFAULT)

    def pings(self, user_id: int) -> bool:
        return self.mode(user_id) in (MENTION, BOTH) and not self.quiet_now(user_id)

    def dms(self, user_id: int) -> bool:
        return self.mode(user_id) in (DM, BOTH) and not self.quiet_now(user_id)

    def quiet_now(self, user_id: int) -> bool:
        """Whether ``user_id`` is inside their quiet hours now (`/game quiet`)."""
        return self.quiet_until(user_id) is not None

    def quiet_until(self, user_id: int) -> float | None:
        """When the quiet hours ``user_id`` is inside now end (None: not inside them)."""
        hours = self._quiet.get(user_id)
        if hours is None:
            return None
        start, end, tz = hours
        period = period_at(clock.now(), start, end, zone(tz))
        return None if period is None else period[1]

    def set_quiet(self, user_id: int, hours: tuple[int, int, str] | None) -> None:
        """``user_id`` chose quiet hours (None: none), here."""
        self._chosen += 1
        if hours is None:
            self._quiet.pop(user_id, None)
        else:
            self._quiet[user_id] = hours

    def reminder_dms(self, user_id: int) -> bool:
        """Whether the reminder before a forfeit goes by DM (a digest player gets it so, too; inside
        quiet hours it is held until they end)."""
        return self.mode(user_id) in (DM, BOTH, DIGEST) and not self.quiet_now(user_id)

    async def choose(self, user_id: int, mode: str) -> None:
        if mode not in MODES:
            raise BadInput(
                "There is no notification mode {mode}: choose mention, dm, both, off or digest.",
                mode=repr(mode[:20]),
            )
        # The default is stored as no value: a later change of the default reaches everyone who
        # never chose otherwise.
        self._chosen += 1
        await self.storage.set_user_setting(
            user_id=user_id, key="notify", value=None if mode == DEFAULT else mode
        )
        if mode == DEFAULT:
            self._modes.pop(user_id, None)
        else:
            self._modes[user_id] = mode

    def unreachable(self, user_id: int) -> None:
        """A DM to the person was refused (their DMs are closed)."""
        self._unreachable.add(user_id)

    def reachable(self, user_id: int) -> None:
        """A DM to the person was delivered."""
        self._unreachable.discard(user_id)

    def pinged(self, user_ids: Iterable[int]) -> discord.AllowedMentions:
        """What a board may ping: of the people who must move now, those who want a mention, or
        want a DM but cannot get one. (Anybody else named on the board, the mover say, is named
        without a ping.)"""
        users = [
            discord.Object(u)
            for u in dict.fromkeys(user_ids)
            if self.pings(u) or (u in self._unreachable and self.dms(u))
        ]
        return discord.AllowedMentions(users=users, roles=False, everyone=False, replied_user=False)

    def nudges(self, seats: Iterable[int], users: tuple[int, ...]) -> list[Nudge]:
        """A "your move" DM (an outbox effect, ``nudge``) for each of ``seats`` whose player wants
        one (a game without secrets: its players have no DM panel)."""
        return [Nudge(s) for s in seats if 0 <= s < len(users) and self.dms(users[s])]


def describe(mode: str, lang: Lang = ENGLISH) -> str:
    """The private answer to `/game notify`: what is now set."""
    return " ".join(
        (
            lang.t("Notifications: **{mode}**.", mode=mode),
            lang.t(DESCRIPTIONS[mode]),
            lang.t(
                "Reminders before a deadline follow the same choice. Your DM panels of games with secrets "
                "come all the same. Change it any time with /game notify."
            ),
        )
    )


def jump_link(guild_id: int | None, channel_id: int, message_id: int) -> str:
    return f"https://discord.com/channels/{guild_id or '@me'}/{channel_id}/{message_id}"


def your_move(title: str, game_id: int, link: str | None, lang: Lang = ENGLISH) -> str:
    """The short "your move" DM."""
    if link:
        return lang.t("🔔 Your move in {title} #{game_id}: {link}", title=title, game_id=game_id, link=link)
    return lang.t("🔔 Your move in {title} #{game_id}.", title=title, game_id=game_id)
