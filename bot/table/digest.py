"""The daily digest (``/game notify mode:digest [hour] [timezone]``): instead of a ping or a DM for
each move, one DM a day at the person's local hour listing what /game mine lists, sent only when
something waits on them. The reminder before a forfeit still comes (by DM: `Notify.reminder_dms`).

Durable and shared: the person's hour, time zone and next due time are a row of ``digests``
(`bot.storage.agenda.Digests`). The scheduler's pass sends what is due: the process whose claim on
a due digest succeeds builds and sends it, then moves ``due`` to the next day in the statement that
ends its claim. A process that dies mid-way leaves a claim that expires; whoever takes it over sends
with the same nonce (from the person and the due time), which Discord enforces, so a retry soon
after is not a second DM.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

import discord
from discord import app_commands

from bot.errors import BadInput
from bot.i18n import ENGLISH, Lang
from bot.i18n.audience import Audiences
from bot.storage import Digest, Storage
from bot.table.agenda import Agenda, server_names
from bot.table.replies import NO_PINGS, fit

log = logging.getLogger(__name__)

DEFAULT_HOUR = 18
DEFAULT_TIMEZONE = "UTC"
CLAIM = 120.0  # seconds a process has to send a digest it claimed before another may


@functools.cache
def timezones() -> tuple[str, ...]:
    """Every IANA time zone name zoneinfo knows (the tzdata package brings them where the system has
    none), sorted."""
    return tuple(sorted(available_timezones()))


def zone(name: str) -> ZoneInfo:
    """The time zone ``name``; a name that is none is refused, saying what to send."""
    if name not in timezones():
        raise BadInput(
            "There is no time zone {timezone}: pick one from the list, e.g. Europe/Paris or UTC.",
            timezone=repr(name[:40]),
        )
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise BadInput(
            "There is no time zone {timezone}: pick one from the list, e.g. Europe/Paris or UTC.",
            timezone=repr(name[:40]),
        ) from exc


def next_due(now: float, hour: int, timezone: str) -> float:
    """The next moment after ``now`` when the wall clock in ``timezone`` shows ``hour``:00 (on a day
    whose clocks skip that hour, the moment the skip lands on)."""
    tz = zone(timezone)
    local = datetime.fromtimestamp(now, tz)
    for days in range(3):
        day = (local + timedelta(days=days)).date()
        moment = datetime(day.year, day.month, day.day, hour, tzinfo=tz).timestamp()
        if moment > now:
            return moment
    raise AssertionError("unreachable: a day later is always later")


def timezone_choices(current: str) -> list[app_commands.Choice[str]]:
    """What the timezone option suggests as it is typed: names containing the text, at most 25."""
    text = current.strip().lower().replace(" ", "_")
    found = [z for z in timezones() if text in z.lower()] if text else ["UTC", *timezones()]
    return [app_commands.Choice(name=z, value=z) for z in dict.fromkeys(found)][:25]


class DigestDesk:
    """Choosing a digest, and sending those due (the scheduler calls `run_due` on each pass)."""

    def __init__(
        self,
        *,
        client: discord.Client,
        storage: Storage,
        agenda: Agenda,
        audiences: Audiences,
        clock: Callable[[], float],
        quiet_until: Callable[[int], float | None] = lambda user_id: None,
    ) -> None:
        self.client, self.storage, self.agenda, self.audiences = client, storage, agenda, audiences
        self.clock = clock
        # When the quiet hours a person is inside now end (`Notify.quiet_until`): a digest due
        # inside them waits for their end, as every DM does (`/game quiet`).
        self.quiet_until = quiet_until

    async def choose(self, user_id: int, hour: int, timezone: str) -> float:
        """Keep the person's digest hour and zone; when the first is due."""
        due = next_due(self.clock(), hour, timezone)
        await self.storage.set_digest(user_id=user_id, hour=hour, timezone=timezone, due=due)
        return due

    async def drop(self, user_id: int) -> None:
        await self.storage.drop_digest(user_id=user_id)

    async def run_due(self, now: float, holder: str) -> None:
        for digest in await self.storage.due_digests(now=now, holder=holder):
            held = self.quiet_until(digest.user_id)
            if held is not None and held > now:  # inside their quiet hours: due at their end
                await self.storage.finish_digest(user_id=digest.user_id, due=digest.due, next_due=held)
                continue
            claimed = await self.storage.claim_digest(
                user_id=digest.user_id, due=digest.due, holder=holder, now=now, until=now + CLAIM
            )
            if not claimed:
                continue
            try:
                await self._send(digest)
            except discord.HTTPException:
                log.warning(
                    "Could not send the digest of %s; trying again later", digest.user_id, exc_info=True
                )
                continue
            await self.storage.finish_digest(
                user_id=digest.user_id,
                due=digest.due,
                next_due=next_due(max(now, digest.due), digest.hour, digest.timezone),
            )

    async def _send(self, digest: Digest) -> None:
        """The digest's DM, when something waits on the person (a closed DM is not retried)."""
        entries = await self.storage.agenda(user_id=digest.user_id)
        if not any(e.group == 0 for e in entries):
            return
        lang = await self.audiences.user(digest.user_id)
        servers = await server_names(self.client, entries)
        text = self.text(self.agenda.lines(entries, servers=servers, lang=lang), lang)
        nonce = f"d{digest.user_id:x}.{int(digest.due) // 60:x}"[:25]
        try:
            dm = await self.client.create_dm(discord.Object(digest.user_id))
            await dm.send(text, allowed_mentions=NO_PINGS, nonce=nonce)
        except discord.Forbidden:
            log.info("The DMs of %s are closed: no digest today", digest.user_id)

    @staticmethod
    def text(lines: list[str], lang: Lang = ENGLISH) -> str:
        """The DM: a heading, then as many whole lines as fit in one message."""
        out = [lang.t("📋 Your daily digest: what waits on you (/game mine shows it any time).")]
        size = len(out[0])
        for line in lines:
            if size + 1 + len(line) > 1990:
                break
            out.append(line)
            size += 1 + len(line)
        return fit("\n".join(out))
