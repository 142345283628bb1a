"""No secret reaches the logs (issue 26): the real bot as a process of its own (bench/launch_bot.py, its
real entry point and logging), at DEBUG, in JSON and in plain text, plays an Up-Down-Stay game (hands
dealt by DM, predictions by command and typed DM, cards by command and the DM menu, ``/updown hand``)
and a Numbers To Number move (one pick pending while the other player has not picked, from the DM
panel's form and by command). Then no log line holds:

- the bot token, or any interaction token (the emulator's, each interaction's own);
- a hand: a card of the deal as the bot shows it or stores it, or any line the bot sent a player
  privately (DM panels, ephemeral answers: hands, predictions, picks);
- a prediction, or a pick (its move as stored, or as a Discord payload carries it);
- a Discord payload at all (a "token", "content", "values", "options" or "custom_id" field);

and in JSON every line parses, with its fields.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import signal
from pathlib import Path
from typing import Any

import pytest

from bench.launch_bot import start_bot
from cogs.updown.present import card_text
from tests.db import query
from tests.e2e.driver import (
    bot_messages,
    game_state,
    numbers_pick_from_panel,
    start_game,
    typed_answer,
    wait_dm_control,
)
from tests.emulator import DiscordEmulator
from tests.emulator.world import Channel, Scene, User

TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GlogSe.never-log-this-bot-token_0123456789ab"
PREDICTIONS = ("SSSSUD", "DDDSSU")  # runs a shuffled row practically never shows
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")  # a card's label, its rank - 1
PAYLOAD_FIELD = re.compile(r"""["'](?:token|content|values|options|custom_id)["']\s*:""")


class Bot:
    """The bot as a process on the emulator, its stderr (the log) in a file."""

    def __init__(self, emu: DiscordEmulator, scene: Scene, db: str, log: Path, env: dict[str, str]) -> None:
        self.emu, self.scene, self.db, self.log, self.env = emu, scene, db, log, env
        self.proc: asyncio.subprocess.Process | None = None
        self.drain: asyncio.Task[None] | None = None

    async def __aenter__(self) -> Bot:
        self.proc, _ = await start_bot(
            "quetbot",
            emu=self.emu,
            token=TOKEN,
            db=self.db,
            guild_id=self.scene.guild.id,
            log=self.log,
            extra_env=self.env,
        )
        assert self.proc.stdout is not None
        self.drain = asyncio.create_task(self.proc.stdout.read())
        await self.emu.wait_idle(quiet=0.2)
        return self

    async def __aexit__(self, *exc: object) -> None:
        proc = self.proc
        if proc is not None and proc.returncode is None:
            proc.send_signal(signal.SIGINT)
            try:
                await asyncio.wait_for(proc.wait(), 15)
            except TimeoutError:
                proc.kill()
                await proc.wait()
        if self.drain is not None:
            self.drain.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.drain


async def play_updown(emu: DiscordEmulator, scene: Scene, db: str) -> dict[str, Any]:
    """A game: predictions by command and typed DM, four cards by command and the DM menu, a look at
    the hand. The state as dealt."""
    alice, bob = scene.alice, scene.bob
    game_id = await start_game(emu, scene.channel, "updown new", alice, bob)
    place = place_of(emu, scene.channel)
    dealt = game_state(db, game_id)
    assert dealt is not None
    await answered(emu.slash(alice, place, "updown predict", letters=PREDICTIONS[0]))
    await typed_answer(emu, bob, PREDICTIONS[1].lower())
    assert stored(db, game_id)["predictions"] == list(PREDICTIONS)
    users = (alice, bob)
    for n in range(4):
        state = stored(db, game_id)
        seat = state["turn"]
        label = state["hands"][seat][0][:-1]
        if n % 2:
            panel, play = await wait_dm_control(emu, users[seat], game_id, "play")
            rank = RANKS.index(label) + 1
            await answered(emu.select(users[seat], panel, play, [str(rank)]))
        else:
            await answered(emu.slash(users[seat], place, "updown play", card=label))
        await emu.wait_until(lambda n=n: len(stored(db, game_id)["row"]) == n + 1, what="the card placed")
    await answered(emu.slash(alice, place, "updown hand"))
    return dealt


async def play_numbers_pick(emu: DiscordEmulator, scene: Scene) -> None:
    """Alice picks from her DM panel's form (pending while Bob has not picked), then Bob by command."""
    alice, bob = scene.alice, scene.bob
    game_id = await start_game(emu, scene.other_channel, "numbers new", alice, bob, m=3)
    place = place_of(emu, scene.other_channel)
    await numbers_pick_from_panel(emu, alice, game_id, 6)
    await answered(emu.slash(bob, place, "numbers pick", number=3))


def place_of(emu: DiscordEmulator, channel: Channel) -> Channel:
    """Where the channel's game is played: the thread started from its card (the thread's id is the
    card's), else the channel."""
    return next((emu.channels[m.id] for m in bot_messages(emu, channel) if m.id in emu.channels), channel)


def stored(db: str, game_id: int) -> dict[str, Any]:
    state = game_state(db, game_id)
    assert state is not None
    return state


async def answered(interaction: Any) -> None:
    rec = await interaction
    await rec.response()


def private_lines(emu: DiscordEmulator, users: tuple[User, ...]) -> set[str]:
    """Every line the bot showed one player alone: DMs and ephemeral answers, each version."""
    lines: set[str] = set()
    for user in users:
        for message in [*emu.dm_messages(user), *emu.private_messages(user)]:
            for text in [message.content, *(v.content for v in message.history)]:
                lines.update(line.strip() for line in text.splitlines() if len(line.strip()) >= 12)
    return lines


def secrets_of_the_games(emu: DiscordEmulator, scene: Scene, db: str, dealt: dict[str, Any]) -> list[str]:
    """The strings no log line may hold."""
    found = [TOKEN, *emu.interactions_by_token, *PREDICTIONS, *(p.lower() for p in PREDICTIONS)]
    for hand in dealt["hands"]:
        found.append(" ".join(card_text(card) for card in hand))
        for card in hand:
            found += [f'"{card}"', f"'{card}'", card_text(card)]
    for (action,) in query(db, "SELECT action FROM moves"):
        move = json.loads(action)
        found += [action, json.dumps(move), json.dumps(move, separators=(",", ":")), repr(move)]
    found += private_lines(emu, (scene.alice, scene.bob))
    return [s for s in found if s]


@pytest.mark.parametrize("fmt", ["json", "text"])
async def test_no_secret_in_any_log_line_at_debug(
    emu: DiscordEmulator, scene: Scene, tmp_path: Path, fmt: str
) -> None:
    db = str(tmp_path / "bot.sqlite3")
    log = tmp_path / "bot.log"
    env = {"QUETBOT_LOG_FORMAT": fmt, "QUETBOT_LOG_LEVEL": "DEBUG", "QUETBOT_COMPUTER_WORKERS": "0"}
    async with Bot(emu, scene, db, log, env):
        dealt = await play_updown(emu, scene, db)
        await play_numbers_pick(emu, scene)
        await emu.wait_idle(quiet=0.3)
    lines = log.read_text(encoding="utf-8").splitlines()
    assert len(lines) > 100, "the bot logged too little to be at DEBUG"
    secrets = secrets_of_the_games(emu, scene, db, dealt)
    assert len(emu.interactions_by_token) >= 10
    for n, line in enumerate(lines, 1):
        texts = [line]
        if fmt == "json":
            record = json.loads(line)
            assert {"time", "level", "logger", "message"} <= record.keys(), line
            assert "shard" not in record  # (an unsharded bot names no shard)
            texts += [str(value) for value in record.values()]  # (a card's suit is \u-escaped in the line)
        for text in texts:
            for secret in secrets:
                assert secret not in text, f"{log}:{n} holds the secret {secret!r}: {line[:500]}"
            assert not PAYLOAD_FIELD.search(text), f"{log}:{n} holds a Discord payload: {line[:500]}"
    # (What makes the check mean something: gateway events and interaction answers were logged.)
    assert any("WebSocket Event: [payload]" in line for line in lines), "no gateway event logged"
    assert any("/interactions/" in line and "[redacted]/callback" in line for line in lines)
