"""What the bot did twice, read from the loopback emulator's records (for bench/crash_safety.py).

Due work is done once when each trace it leaves in Discord is there once. The traces, over every
message the bot created (an edit is not a new message; a message is taken in its first form, as it
was posted):

- **nonce**: no two messages in one channel carry the same nonce. A post carried out again after a
  crash or by another process repeats its nonce and Discord returns the first message; a second one
  means it was posted without the nonce, or after Discord's window;
- **board**: no version of a game has two boards. A board names its version in its image's name
  (``<kind>-<game>-<version>.png``) or in its controls (``q:<game>:<version>:<verb>``): a move's news,
  a forfeit's, a computer's move, a game's first board, each posted once;
- **lobby card**: no game has two (a first form with the game's Join button);
- **forfeit notice**: no "<who> ran out of time and forfeits" posted twice in one game;
- **reminder**: no wait reminded twice: a reminder (``⏰ ... game #N ... <t:deadline:R>``) is one per
  game, person and deadline in the game's place, and one per game and deadline in a person's DMs;
- **DM panel**: a player's panel for a game is one DM, edited in place; a new one is due only when the
  old one is gone or buried (`BURIED_AFTER` messages after it in the DM channel). A new panel while
  the previous one was in sight (fewer messages after it, not deleted) was sent where an edit was due.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from bot.table.panels import BURIED_AFTER
from tests.emulator.models import MessageRecord, MessageVersion

BOARD_FILE = re.compile(r"(?P<kind>[a-z]+)-(?P<game>\d+)-(?P<version>\d+)\.png")
# A control of a board (a takeback request's Accept / Decline name the version they take back, but
# the request is no board).
VERSIONED_CONTROL = re.compile(r"q:(?P<game>\d+):(?P<version>\d+):(?!undo_)")
FORFEIT = re.compile(r"(?P<who>\S+(?: \S+)?) ran out of time and forfeits")
REMINDER = re.compile(r"⏰ (?:(?P<who><@\d+>), )?.*?game #(?P<game>\d+)\b.*?<t:(?P<deadline>\d+):R>", re.S)
PANEL_HEADER = re.compile(r"\*\*[^*\n]+\*\* · game #(?P<game>\d+) in <#\d+>")

KINDS = ("nonce", "board", "lobby card", "forfeit notice", "reminder", "DM panel")


@dataclass
class Doubles:
    """What was found twice (by kind of trace, described), and how many traces of each kind were
    looked at (a check that saw nothing proves nothing)."""

    found: dict[str, list[str]] = field(default_factory=lambda: {k: [] for k in KINDS})
    seen: Counter[str] = field(default_factory=Counter)
    # Not done twice, but a step of a move's news left undone: boards of an older version that still
    # offer moves (their controls should have come off when the next board was posted).
    stale_controls: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        return sum(len(v) for v in self.found.values())


def first_form(message: MessageRecord) -> MessageVersion:
    return message.versions[0]


def custom_ids(version: MessageVersion) -> list[str]:
    ids: list[str] = []

    def walk(components: list[dict[str, object]]) -> None:
        for component in components:
            cid = component.get("custom_id")
            if isinstance(cid, str):
                ids.append(cid)
            children = component.get("components")
            if isinstance(children, list):
                walk(children)

    walk(version.components)
    return ids


def board_of(version: MessageVersion) -> tuple[int, int] | None:
    """The (game, version) a message's first form is the board of, if it is one."""
    for attachment in version.attachments:
        found = BOARD_FILE.fullmatch(attachment.filename)
        if found:
            return int(found["game"]), int(found["version"])
    for cid in custom_ids(version):
        found = VERSIONED_CONTROL.match(cid)
        if found:
            return int(found["game"]), int(found["version"])
    return None


def find_doubles(messages: Iterable[MessageRecord], bot_id: int, buried_after: int = BURIED_AFTER) -> Doubles:
    """Every trace of the bot's work that appears twice among ``messages`` (all the emulator holds)."""
    out = Doubles()
    ordered = sorted(messages, key=lambda m: m.seq)
    nonces: Counter[tuple[int, str]] = Counter()
    boards: Counter[tuple[int, int]] = Counter()
    cards: Counter[int] = Counter()
    forfeits: Counter[tuple[int, str]] = Counter()
    reminders: Counter[tuple[int, str, int, int]] = Counter()
    dm_traffic: dict[int, list[MessageRecord]] = defaultdict(list)  # DM channel -> its messages, in order
    live_boards: dict[int, list[tuple[int, int]]] = defaultdict(list)  # game -> (version, message id)
    for message in ordered:
        if message.channel.is_dm:
            dm_traffic[message.channel.id].append(message)
        if message.author.id != bot_id or message.ephemeral:
            continue
        first = first_form(message)
        channel = message.channel.id
        if message.nonce is not None:
            nonces[(channel, str(message.nonce))] += 1
        if message.channel.guild is not None:
            board = board_of(first)
            if board is not None:
                boards[board] += 1
                now = message.snapshot()
                if any(VERSIONED_CONTROL.match(cid) for cid in custom_ids(now)):
                    live_boards[board[0]].append((board[1], message.id))
            for cid in custom_ids(first):
                if cid.endswith(":-:join"):
                    cards[int(cid.split(":")[1])] += 1
            headline_game = re.search(r"game #(\d+)", first.content)
            for found in FORFEIT.finditer(first.content):
                game = int(headline_game[1]) if headline_game else (board[0] if board else 0)
                forfeits[(game, found["who"])] += 1
        found_reminder = REMINDER.match(first.content)
        if found_reminder:
            who = found_reminder["who"] or "DM"
            reminders[(channel, who, int(found_reminder["game"]), int(found_reminder["deadline"]))] += 1

    def note(kind: str, counts: Counter[object], describe: object) -> None:
        out.seen[kind] += len(counts)
        for key, count in sorted(counts.items(), key=str):
            if count > 1:
                out.found[kind].append(f"{describe} {key}: {count} times")

    for game, shown in sorted(live_boards.items()):
        newest = max(version for version, _ in shown)
        for version, message_id in sorted(shown):
            if version < newest:
                out.stale_controls.append(
                    f"game {game}: board {message_id} of version {version} still offers moves "
                    f"(version {newest} has one too)"
                )
    note("nonce", nonces, "(channel, nonce)")
    note("board", boards, "(game, version)")
    note("lobby card", cards, "game")
    note("forfeit notice", forfeits, "(game, who)")
    note("reminder", reminders, "(channel, who, game, deadline)")
    for channel, traffic in dm_traffic.items():
        last: dict[int, int] = {}  # game -> index in `traffic` of its newest panel
        for index, message in enumerate(traffic):
            if message.author.id != bot_id:
                continue
            header = PANEL_HEADER.match(first_form(message).content)
            if header is None:
                continue
            game = int(header["game"])
            out.seen["DM panel"] += 1
            before = last.get(game)
            last[game] = index
            if before is None or traffic[before].deleted:
                continue
            between = index - before - 1
            if between < buried_after:
                out.found["DM panel"].append(
                    f"game {game} in DM channel {channel}: panel {message.id} (nonce {message.nonce}) "
                    f"sent with {between} message(s) after panel {traffic[before].id} (nonce "
                    f"{traffic[before].nonce}): an edit was due"
                )
    return out
