"""Helpers for end-to-end tests: act as players through the emulator and read what the bot showed."""

from __future__ import annotations

import io
import json
from typing import Any

from PIL import Image

from tests.db import query
from tests.emulator import DiscordEmulator
from tests.emulator.models import CallbackType, InteractionRecord, MessageRecord
from tests.emulator.world import Channel, User


def bot_messages(emu: DiscordEmulator, channel: Channel) -> list[MessageRecord]:
    return [m for m in emu.channel_messages(channel) if m.author.id == emu.bot_user.id]


def game_place(emu: DiscordEmulator, channel: Channel, card: MessageRecord) -> Channel:
    """Where the game of lobby card ``card`` is played: the thread started from the card (its id is
    the card's), else the card's channel."""
    return emu.channels.get(card.id) or channel


def news_mark(emu: DiscordEmulator, channel: Channel) -> tuple[int, str]:
    """What the bot shows in a channel now: how many messages it has there, and the latest board's
    text (a pick still secret edits that text instead of posting)."""
    mine = bot_messages(emu, channel)
    boards = [m for m in mine if m.attachments]
    return len(mine), boards[-1].content if boards else ""


async def news_since(emu: DiscordEmulator, channel: Channel, mark: tuple[int, str]) -> MessageRecord:
    """Wait for what a move shows in the channel after `news_mark` gave ``mark`` (a new message, or
    the latest board's text edited), then for quiet; returns the new message or the edited board."""

    def news() -> tuple[int, str] | None:
        now = news_mark(emu, channel)
        return now if now != mark else None

    await emu.wait_until(news, what="the move's news in the channel")
    await emu.wait_idle()
    if news_mark(emu, channel)[0] > mark[0]:
        return bot_messages(emu, channel)[-1]
    return latest_board(emu, channel)


def latest_board(emu: DiscordEmulator, channel: Channel) -> MessageRecord:
    """The newest public bot message with an image: the current board."""
    boards = [m for m in bot_messages(emu, channel) if m.attachments and not m.ephemeral and not is_card(m)]
    assert boards, "the bot has posted no board in this channel"
    return boards[-1]


def lobby_message(emu: DiscordEmulator, channel: Channel) -> MessageRecord:
    lobbies = [m for m in bot_messages(emu, channel) if "Lobby:" in m.content or "Join" in str(m.components)]
    assert lobbies, "no lobby message"
    return lobbies[-1]


def assert_png(message: MessageRecord) -> Image.Image:
    assert len(message.attachments) == 1
    data = message.attachments[0].data
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    image = Image.open(io.BytesIO(data))
    image.verify()
    return Image.open(io.BytesIO(data))


async def private_reply(rec: InteractionRecord) -> str:
    """The interaction's answer, which must be ephemeral; returns its text."""
    response = await rec.response()
    assert response.ephemeral, f"expected a private reply, got {response.type.name}: {response.data}"
    texts = rec.ephemeral_texts()
    assert texts, "the private reply has no text"
    return texts[-1]


async def form_answer(sub: InteractionRecord, panel: MessageRecord) -> str:
    """What a form submission answered: the panel the form was opened from, updated in place (a move
    made), or a new message (a refusal, privately)."""
    response = await sub.response()
    if response.type is CallbackType.UPDATE_MESSAGE:
        return panel.content
    return "\n".join(sub.texts())


async def click_label(
    emu: DiscordEmulator, user: User, message: MessageRecord, label: str
) -> InteractionRecord:
    return await emu.click(user, message, message.button(label)["custom_id"])


def db_snapshot(db: str) -> tuple[Any, ...]:
    """Everything that matters in the database (versions, states, move counts), for "nothing changed"."""
    games = query(db, "SELECT id, status, version, state FROM games ORDER BY id")
    moves = query(db, "SELECT COUNT(*) FROM moves")[0]
    return (tuple(games), moves)


async def open_and_start(
    emu: DiscordEmulator, channel: Channel, command: str, host: User, *others: User, **options: Any
) -> tuple[int, MessageRecord]:
    """Open a lobby with ``/<command>``, let ``others`` join by button, start it by button; returns
    the game id and its card (the lobby message), as the Start click left it."""
    await (await emu.slash(host, channel, command, **options)).response()
    card = lobby_message(emu, channel)
    for user in others:
        await (await emu.click(user, card, card.button("Join")["custom_id"])).response()
    card = emu.message(card.id)
    game_id = int(card.custom_ids[0].split(":")[1])
    await (await emu.click(host, card, card.button("Start")["custom_id"])).response()
    return game_id, emu.message(card.id)


async def start_game(
    emu: DiscordEmulator, channel: Channel, command: str, host: User, *others: User, **options: Any
) -> int:
    """`open_and_start`, then wait for the first board (in the game's place: its thread, or the
    channel) and, in a game with secrets, for every player's DM (or their closed-DMs notice).
    Returns the game id."""
    game_id, card = await open_and_start(emu, channel, command, host, *others, **options)

    def board() -> bool:
        return any(m.attachments for m in bot_messages(emu, game_place(emu, channel, card)))

    await emu.wait_until(board, what="the board")
    channel = game_place(emu, channel, card)
    if command.split()[0] in SECRET_GAMES:

        def everyone_told() -> bool:
            return all(
                any(f"game #{game_id}" in m.content for m in emu.dm_messages(u))
                or (
                    u.id in emu.closed_dms
                    and any(f"<@{u.id}>, I cannot" in m.content for m in emu.channel_messages(channel))
                )
                for u in (host, *others)
            )

        await emu.wait_until(everyone_told, what="every player's DM (or a closed-DMs notice)")
    await emu.wait_idle()
    return game_id


SECRET_GAMES = frozenset({"updown", "numbers", "divisors"})


# ---- the stored game, read as a second process would (`tests.db.query`) ----------------------------


def game_state(db: str, game_id: int) -> dict[str, Any] | None:
    """The stored state of a game (None while it is a lobby), read from the database."""
    rows = query(db, "SELECT state FROM games WHERE id = ?", (game_id,))
    assert rows, f"no game #{game_id} in the database"
    return None if rows[0][0] is None else dict(json.loads(rows[0][0]))


def move_count(db: str, game_id: int) -> int:
    return int(query(db, "SELECT COUNT(*) FROM moves WHERE game_id = ?", (game_id,))[0][0])


# ---- what the channel shows ------------------------------------------------------------------------


def is_card(message: MessageRecord) -> bool:
    """A game's card: its lobby message (it had a Join button), which shows the final board at the end."""
    return any(
        ":join" in str(c.get("custom_id", ""))
        for v in message.versions
        for row in v.components
        for c in row.get("components", [])
    )


def boards(emu: DiscordEmulator, channel: Channel) -> list[MessageRecord]:
    """Every board the bot posted publicly in the channel (its messages with an image, not the game's
    card), oldest first."""
    found = [m for m in bot_messages(emu, channel) if m.attachments and not m.ephemeral and not is_card(m)]
    return sorted(found, key=lambda m: m.seq)


def live_controls(message: MessageRecord) -> list[str]:
    """The custom ids of the message's components a user can still use (not disabled)."""
    return [c["custom_id"] for c in message.all_components() if "custom_id" in c and not c.get("disabled")]


# ---- what a player was shown privately -------------------------------------------------------------


def game_panels(
    emu: DiscordEmulator, user: User, game_id: int, *, private: bool = False, include_deleted: bool = False
) -> list[MessageRecord]:
    """The messages about game #``game_id`` that ``user`` got by DM, oldest first (with ``private``:
    those shown to them alone in a channel, ephemerally)."""
    shown = (
        emu.private_messages(user, include_deleted=include_deleted)
        if private
        else emu.dm_messages(user, include_deleted=include_deleted)
    )
    return [m for m in shown if f"game #{game_id}" in m.content]


def closed_dm_notice(emu: DiscordEmulator, channel: Channel, user: User) -> MessageRecord:
    """The bot's notice in the channel that it cannot DM ``user`` (it names them): exactly one."""
    notices = [m for m in bot_messages(emu, channel) if "cannot send you direct messages" in m.content]
    assert len(notices) == 1 and f"<@{user.id}>" in notices[0].content
    return notices[0]


def dm_panel(emu: DiscordEmulator, user: User, game_id: int) -> MessageRecord:
    """The newest DM panel of ``user`` for the game."""
    panels = game_panels(emu, user, game_id)
    assert panels, f"{user.name} got no DM for game #{game_id}"
    return panels[-1]


def private_panel(emu: DiscordEmulator, user: User, game_id: int) -> MessageRecord:
    """The newest panel of the game shown to ``user`` alone in a channel (their DMs are closed, or
    they asked for it under the board)."""
    panels = game_panels(emu, user, game_id, private=True)
    assert panels, f"{user.name} has no private panel for game #{game_id}"
    return panels[-1]


DmMark = dict[int, int]


def dm_mark(emu: DiscordEmulator, user: User) -> DmMark:
    """What ``user`` has been shown by DM so far: each of the bot's DM messages and how many
    versions it has had (a panel is edited in place: a new version, not a new message)."""
    return {m.id: len(m.history) for m in emu.dm_messages(user)}


def dm_changes(emu: DiscordEmulator, user: User, mark: DmMark) -> list[MessageRecord]:
    """The bot's DM messages to ``user`` created or edited since ``mark``, new ones last."""
    shown = emu.dm_messages(user)
    edited = [m for m in shown if m.id in mark and len(m.history) > mark[m.id]]
    return edited + [m for m in shown if m.id not in mark]


async def typed_answer(emu: DiscordEmulator, user: User, text: str) -> str:
    """Type ``text`` in the DM with the bot; the answer: a new DM (a refusal, a question), or the
    panel edited in place (a move taken: its note at the top)."""
    mark = dm_mark(emu, user)
    await emu.send_dm(user, text)
    await emu.wait_until(lambda: dm_changes(emu, user, mark), what=f"the answer to {user.name}'s typed DM")
    await emu.wait_idle()
    return dm_changes(emu, user, mark)[-1].content


def panel_messages(emu: DiscordEmulator, user: User, game_id: int) -> int:
    """How many DM panel messages of the game ``user`` got (edits not counted)."""
    return len(game_panels(emu, user, game_id))


async def wait_dm_control(
    emu: DiscordEmulator, user: User, game_id: int, verb: str
) -> tuple[MessageRecord, str]:
    """Wait for the newest DM panel of the game to carry the control ``verb`` (a custom_id ending in
    ``:<verb>``); that panel and the control's custom_id."""

    def find() -> tuple[MessageRecord, str] | None:
        panels = game_panels(emu, user, game_id)
        ids = [cid for cid in panels[-1].custom_ids if cid.endswith(f":{verb}")] if panels else []
        return (panels[-1], ids[0]) if ids else None

    found: tuple[MessageRecord, str] = await emu.wait_until(find, what=f"{user.name}'s {verb} control")
    return found


async def numbers_pick_from_panel(emu: DiscordEmulator, user: User, game_id: int, number: int) -> None:
    """A Numbers pick from the player's DM panel: its Pick button, then the form."""
    panel, pick = await wait_dm_control(emu, user, game_id, "pick")
    rec = await emu.click(user, panel, pick)
    await rec.response()
    await (await emu.submit_modal(user, rec, values={"number": str(number)})).response()
    await emu.wait_idle()


# ---- what Discord would have said -----------------------------------------------------------------


def assert_discord_accepted_all(emu: DiscordEmulator, *, closed_dms: int = 0) -> None:
    """Discord would have accepted every request of the bot, and every payload fits its schema; but
    for ``closed_dms`` DMs refused (403, 50007) to players whose DMs are closed: each was tried
    once, at the start (no retries)."""
    refused = [(v.status, v.code) for v in emu.violations]
    assert refused == [(403, 50007)] * closed_dms, [str(v) for v in emu.violations]
    schema = [str(v) for v in emu.schema_violations]
    assert schema == [], schema


def assert_clean(emu: DiscordEmulator) -> None:
    """`assert_discord_accepted_all`, and the bot called no route the emulator does not know."""
    assert_discord_accepted_all(emu)
    assert emu.unknown_requests == []


# ---- inputs a real client would not send -----------------------------------------------------------


async def forge_component(
    emu: DiscordEmulator,
    user: User,
    channel: Channel,
    custom_id: str,
    *,
    values: list[str] | None = None,
) -> InteractionRecord:
    """A click on a button (or, with ``values``, a choice in a menu) carrying a forged custom_id.
    Discord only sends interactions for components a message has, so the component is put on a
    message of the bot's first, as if an older version of the bot had posted it."""
    if values is None:
        component: dict[str, Any] = {"type": 2, "style": 2, "label": "old", "custom_id": custom_id}
    else:
        options = [{"label": v[:100] or "?", "value": v} for v in values]
        component = {"type": 3, "custom_id": custom_id, "options": options}
    old = emu.create_message(
        channel, emu.bot_user, {"content": "", "components": [{"type": 1, "components": [component]}]}
    )
    if values is None:
        return await emu.click(user, old, custom_id)
    return await emu.select(user, old, custom_id, values)


# ---- controls, found by verb (shared with bench/kill_sweep.py and bench/crash_safety.py) -------------


def live_control(message: MessageRecord, verb: str, value: str | None = None) -> dict[str, Any] | None:
    """The message's usable component whose custom_id ends in ``:<verb>`` (or, a menu of several
    parts, holds ``:<verb>:``); with ``value``, a menu offering that option."""
    for component in message.all_components():
        cid = str(component.get("custom_id", ""))
        if component.get("disabled") or not (cid.endswith(f":{verb}") or f":{verb}:" in cid):
            continue
        if value is None or value in [o.get("value") for o in component.get("options") or []]:
            return component
    return None


async def use_control(
    emu: DiscordEmulator, user: User, message: MessageRecord, verb: str, value: str | None = None
) -> InteractionRecord | None:
    """Click the ``verb`` button of ``message`` or, with ``value``, pick it in the ``verb`` menu
    offering it; None when the message has no such control."""
    component = live_control(message, verb, value)
    if component is None:
        return None
    if value is None:
        return await emu.click(user, message, component["custom_id"])
    return await emu.select(user, message, component["custom_id"], [value])


def private_menu(rec: InteractionRecord) -> MessageRecord | None:
    """The private message an interaction was answered with, if it still offers a menu (Lines By The
    Dots' "Where does it end?")."""
    shown = rec.original
    if shown is None or not any(c.get("type") == 3 for c in shown.all_components()):
        return None
    return shown
