"""Self-tests of the loopback Discord emulator, driven through a bare discord.py bot."""

from __future__ import annotations

import asyncio
import gc
import io
import json
import sqlite3
import time
import warnings
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from bot.storage import Storage, StorageError
from bot.storage.driver import Txn
from tests.emulator import DiscordEmulator, EmulatorError, InteractionFailed
from tests.emulator.bare_bot import BareBot, ShardedBareBot
from tests.emulator.gateway import GatewaySession
from tests.emulator.harness import TOKEN, BotHarness, handler_running
from tests.emulator.models import (
    DEFAULT_BOT,
    HAS_THREAD,
    CallbackType,
    Channel,
    ChannelType,
    Intent,
    Perm,
    shard_of,
)
from tests.emulator.rest import UPLOAD_MAX
from tests.emulator.traps import interaction_filter
from tests.emulator.world import Scene


@pytest.fixture
async def bare(emulator: DiscordEmulator, scene: Scene) -> AsyncIterator[BotHarness]:
    harness = BotHarness(emulator, BareBot)
    await harness.start()
    try:
        yield harness
    finally:
        await harness.stop()


def clean(emu: DiscordEmulator) -> None:
    assert emu.unknown_requests == []
    assert [str(v) for v in emu.schema_violations] == []


async def raw(
    emu: DiscordEmulator, method: str, path: str, body: Any = None, *, auth: bool = True
) -> tuple[int, str, Any]:
    headers = {"Authorization": f"Bot {TOKEN}"} if auth else {}
    async with (
        aiohttp.ClientSession() as session,
        session.request(method, f"{emu.api_base}{path}", json=body, headers=headers) as resp,
    ):
        text = await resp.text()
        return resp.status, resp.headers.get("Content-Type", ""), json.loads(text) if text else None


async def test_login_sync_and_ready(emulator: DiscordEmulator, bare: BotHarness) -> None:
    keys = [r.key for r in emulator.requests]
    assert keys[:3] == [
        "GET /users/@me",
        "GET /oauth2/applications/@me",
        "PUT /applications/{application_id}/commands",
    ]
    names = {c["name"] for c in emulator.synced_commands()}
    assert {"ping", "echo", "panel", "form", "pick", "game"} <= names
    assert all(c["id"].isdigit() for c in emulator.synced_commands())
    assert [e.kind for e in emulator.gateway.log][:2] == ["connect", "identify"]
    assert bare.bot.user.id == emulator.bot_user.id
    assert bare.bot.guilds and bare.bot.guilds[0].name == "Quet Test Server"
    clean(emulator)
    assert emulator.violations == []


async def test_slash_commands_with_options_and_subcommands(
    emulator: DiscordEmulator, scene: Scene, bare: BotHarness
) -> None:
    rec = await emulator.slash(scene.alice, scene.channel, "ping")
    response = await rec.response()
    assert response.type is CallbackType.CHANNEL_MESSAGE and not response.ephemeral
    assert [m.content for m in emulator.channel_messages(scene.channel)] == ["ok"]
    assert rec.messages[0].author is emulator.bot_user and rec.messages[0].interaction is rec

    rec = await emulator.slash(
        scene.bob, scene.channel, "echo", text="hi", times=2, who=scene.carol, where=scene.other_channel
    )
    assert (await rec.response()).data["content"] == "hi hi to carol in lounge"
    assert set(rec.payload["data"]["resolved"]) == {"users", "members", "channels"}
    assert rec.payload["member"]["user"]["id"] == str(scene.bob.id)

    rec = await emulator.slash(scene.alice, scene.thread, "game status")
    await rec.response()
    assert rec.texts() == ["ok: game status"]
    rec = await emulator.slash(scene.alice, scene.channel, "game config set", {"key": "k", "value": 7})
    assert (await rec.response()).data["content"] == "ok: k=7"

    dm = emulator.open_dm(scene.alice)
    rec = await emulator.slash(scene.alice, dm, "ping")
    await rec.response()
    assert "user" in rec.payload and "member" not in rec.payload and "guild_id" not in rec.payload

    with pytest.raises(EmulatorError, match="required option 'text'"):
        await emulator.slash(scene.alice, scene.channel, "echo")
    with pytest.raises(EmulatorError, match=r"outside 1\.\.5"):
        await emulator.slash(scene.alice, scene.channel, "echo", text="x", times=9)
    with pytest.raises(EmulatorError, match="is a group"):
        await emulator.slash(scene.alice, scene.channel, "game config")
    with pytest.raises(EmulatorError, match="no slash command /nope"):
        await emulator.slash(scene.alice, scene.channel, "nope")
    clean(emulator)


async def test_ephemeral_reply_is_private(emulator: DiscordEmulator, scene: Scene, bare: BotHarness) -> None:
    rec = await emulator.slash(scene.alice, scene.channel, "secret")
    assert (await rec.response()).ephemeral
    assert rec.ephemeral_texts() == ["ok: only you"]
    assert emulator.channel_messages(scene.channel) == []
    assert [m.text for m in emulator.private_messages(scene.alice)] == ["ok: only you"]
    assert emulator.private_messages(scene.bob) == []
    assert emulator.all_public_payloads() == []


async def test_defer_then_followups(emulator: DiscordEmulator, scene: Scene, bare: BotHarness) -> None:
    rec = await emulator.slash(scene.alice, scene.channel, "slow")
    assert (await rec.response()).type is CallbackType.DEFERRED_CHANNEL_MESSAGE
    await emulator.wait_idle()
    assert rec.original is not None and not rec.original.loading
    assert rec.original.content == "ok: after thinking"
    assert rec.public_texts() == ["ok: after thinking"]
    assert rec.ephemeral_texts() == ["ok: second follow-up"]

    rec = await emulator.slash(scene.bob, scene.channel, "slow", private=True)
    await emulator.wait_idle()
    assert rec.ephemeral_texts() == ["ok: after thinking", "ok: second follow-up"]


async def test_buttons_and_edit_history(emulator: DiscordEmulator, scene: Scene, bare: BotHarness) -> None:
    rec = await emulator.slash(scene.alice, scene.channel, "panel")
    await rec.response()
    panel = rec.messages[0]
    assert panel.custom_ids == [
        "bare:button:0",
        "bare:button:1",
        "bare:button:2",
        "bare:button:9",
        "bare:select",
    ]

    click = await emulator.click(scene.bob, panel, "bare:button:1")
    assert (await click.response()).data["content"] == "ok: button 1"
    assert click.payload["message"]["id"] == str(panel.id)

    click = await emulator.click(scene.carol, panel, panel.button("Button 0")["custom_id"])
    assert (await click.response()).type is CallbackType.UPDATE_MESSAGE
    assert panel.content == "ok: edited by carol"
    assert [v.content for v in panel.versions] == ["panel", "ok: edited by carol"]

    with pytest.raises(EmulatorError, match="no such component"):
        await emulator.click(scene.bob, panel, "bare:button:7")


async def test_click_on_ephemeral_message(emulator: DiscordEmulator, scene: Scene, bare: BotHarness) -> None:
    rec = await emulator.slash(scene.alice, scene.channel, "panel", private=True)
    await rec.response()
    panel = emulator.private_messages(scene.alice)[0]
    with pytest.raises(EmulatorError, match="ephemeral for someone else"):
        await emulator.click(scene.bob, panel, "bare:button:2")
    click = await emulator.click(scene.alice, panel, "bare:button:0")
    await click.response()
    assert panel.content == "ok: edited by alice" and panel.ephemeral


async def test_select_menu(emulator: DiscordEmulator, scene: Scene, bare: BotHarness) -> None:
    rec = await emulator.slash(scene.alice, scene.channel, "panel")
    await rec.response()
    pick = await emulator.select(scene.dave, rec.messages[0], "bare:select", ["a", "c"])
    assert (await pick.response()).data["content"] == "ok: selected a,c"
    with pytest.raises(EmulatorError, match="no option 'z'"):
        await emulator.select(scene.dave, rec.messages[0], "bare:select", ["z"])
    with pytest.raises(EmulatorError, match=r"takes 1\.\.2 values"):
        await emulator.select(scene.dave, rec.messages[0], "bare:select", ["a", "b", "c"])


async def test_modal_round_trip(emulator: DiscordEmulator, scene: Scene, bare: BotHarness) -> None:
    opened = await emulator.slash(scene.alice, scene.channel, "form")
    assert (await opened.response()).type is CallbackType.MODAL
    assert opened.modal is not None and opened.modal["title"] == "Bare form"
    with pytest.raises(EmulatorError, match="'bare:answer' is required"):
        await emulator.submit_modal(scene.alice, opened, None, {"bare:note": "n"})
    with pytest.raises(EmulatorError, match="shown to alice"):
        await emulator.submit_modal(scene.bob, opened, None, {"bare:answer": "x"})
    submitted = await emulator.submit_modal(scene.alice, opened, "bare:modal", {"bare:answer": "42"})
    assert (await submitted.response()).data["content"] == "ok: answer=42 note="

    panel = await emulator.slash(scene.bob, scene.channel, "panel")
    await panel.response()
    opened = await emulator.click(scene.bob, panel.messages[0], "bare:button:9")
    await opened.response()
    submitted = await emulator.submit_modal(scene.bob, opened, None, {"bare:answer": "7", "bare:note": "hi"})
    assert (await submitted.response()).data["content"] == "ok: answer=7 note=hi"
    assert submitted.payload["message"]["id"] == str(panel.messages[0].id)


async def test_autocomplete(emulator: DiscordEmulator, scene: Scene, bare: BotHarness) -> None:
    choices = await emulator.autocomplete(scene.alice, scene.channel, "pick", focused="fruit", fruit="ap")
    assert [c["value"] for c in choices] == ["apple", "apricot"]
    assert emulator.channel_messages(scene.channel) == []


async def test_dms_both_ways(emulator: DiscordEmulator, scene: Scene, bare: BotHarness) -> None:
    await emulator.send_dm(scene.alice, "hello bot")
    reply = await emulator.wait_for_message(
        emulator.open_dm(scene.alice), lambda m: m.author is emulator.bot_user
    )
    assert reply.content == "ok: you said hello bot" and bare.bot.dm_log == ["hello bot"]

    rec = await emulator.slash(scene.bob, scene.channel, "dm")
    assert (await rec.response()).data["content"] == "ok: sent"
    assert [m.content for m in emulator.dm_messages(scene.bob)] == ["ok: a DM"]

    emulator.close_dms(scene.carol)
    rec = await emulator.slash(scene.carol, scene.channel, "dm")
    assert (await rec.response()).data["content"] == "ok: DMs closed (50007)"
    assert [v.code for v in emulator.violations] == [50007]


async def test_attachments_kept_across_edits(
    emulator: DiscordEmulator, scene: Scene, bare: BotHarness
) -> None:
    rec = await emulator.slash(scene.alice, scene.channel, "file")
    await rec.response()
    await emulator.wait_idle()
    message = rec.messages[0]
    assert message.attachments == [] and message.content == "ok: no file"
    first = message.versions[0]
    assert [(a.filename, a.data) for a in first.attachments] == [("bare.txt", b"bare bytes")]
    assert ("bare.txt", b"bare bytes") in [a for p in emulator.all_public_payloads() for a in p.attachments]
    clean(emulator)


async def test_an_upload_past_discords_limit_is_refused(
    emulator: DiscordEmulator, scene: Scene, bare: BotHarness
) -> None:
    """Files past the upload limit: 413 / 40005 "Request entity too large", and no message."""

    async def upload(size: int) -> tuple[int, Any]:
        form = aiohttp.FormData()
        form.add_field("payload_json", json.dumps({"content": "a file"}), content_type="application/json")
        data = io.BytesIO(b"x" * size)
        form.add_field("files[0]", data, filename="big.bin", content_type="application/octet-stream")
        url = f"{emulator.api_base}/channels/{scene.channel.id}/messages"
        async with (
            aiohttp.ClientSession() as session,
            session.post(url, data=form, headers={"Authorization": f"Bot {TOKEN}"}) as resp,
        ):
            return resp.status, await resp.json()

    status, body = await upload(UPLOAD_MAX + 1)
    assert (status, body["code"]) == (413, 40005)
    assert emulator.channel_messages(scene.channel) == []
    status, body = await upload(UPLOAD_MAX)
    assert status == 200 and body["attachments"][0]["size"] == UPLOAD_MAX


async def test_injected_429_and_500_are_retried(
    emulator: DiscordEmulator, scene: Scene, bare: BotHarness
) -> None:
    emulator.fail_next("POST /interactions/*", status=429)
    rec = await emulator.slash(scene.alice, scene.channel, "ping")
    assert (await rec.response()).data["content"] == "ok"
    assert [r.status for r in emulator.requests_matching("POST /interactions/*")] == [429, 200]

    emulator.fail_next("POST /channels/{channel_id}/messages", status=500)
    rec = await emulator.slash(scene.alice, scene.channel, "post", text="posted text")
    await emulator.wait_for_message(scene.channel, lambda m: m.content == "posted text")
    await emulator.wait_idle()
    assert [r.status for r in emulator.requests_matching("POST /channels/*/messages")] == [500, 200]
    assert rec.ephemeral_texts() == ["ok: posted"]


async def test_gateway_drop_and_resume(emulator: DiscordEmulator, scene: Scene, bare: BotHarness) -> None:
    await emulator.drop_gateway()
    rec = await emulator.slash(scene.alice, scene.channel, "ping")  # buffered, replayed on RESUME
    assert (await rec.response()).data["content"] == "ok"
    kinds = [e.kind for e in emulator.gateway.log]
    assert kinds.count("identify") == 1 and "resume" in kinds
    resume = next(e for e in emulator.gateway.log if e.kind == "resume")
    assert int(resume.detail.split("replayed=")[1]) >= 1


async def test_discord_validation_rejects(emulator: DiscordEmulator, scene: Scene, bare: BotHarness) -> None:
    rec = await emulator.slash(scene.alice, scene.channel, "toolong")
    response = await rec.response()
    assert response.data["content"] == "ok: rejected 50035"
    [violation] = emulator.violations
    assert violation.status == 400 and violation.code == 50035
    assert violation.errors == ["data.content: Must be 2000 or fewer in length."]
    assert rec.rejected == [violation]

    status, _, body = await raw(
        emulator,
        "POST",
        f"/interactions/{rec.id}/{rec.token}/callback",
        {"type": 4, "data": {"content": "again"}},
    )
    assert (status, body["code"]) == (400, 40060)


async def test_late_callback_is_unknown_interaction(
    emulator: DiscordEmulator, scene: Scene, bare: BotHarness
) -> None:
    emulator.interaction_deadline = 0.2
    rec = await emulator.slash(scene.alice, scene.channel, "sleepy", seconds=0.3)
    with pytest.raises(InteractionFailed):
        await rec.response()
    await emulator.wait_until(lambda: bare.bot.late_errors, what="the late callback")
    assert bare.bot.late_errors == [10062]


async def test_restart_keeps_commands_and_components(
    emulator: DiscordEmulator, scene: Scene, bare: BotHarness
) -> None:
    rec = await emulator.slash(scene.alice, scene.channel, "panel")
    await rec.response()
    first_bot = bare.bot
    await bare.restart()
    assert bare.bot is not first_bot and first_bot.is_closed()
    click = await emulator.click(scene.bob, rec.messages[0], "bare:button:1")
    assert (await click.response()).data["content"] == "ok: button 1"
    assert [e.kind for e in emulator.gateway.log].count("identify") == 2
    assert len(emulator.gateway.live_sessions) == 1


async def test_http_plumbing(emulator: DiscordEmulator, scene: Scene) -> None:
    status, ctype, body = await raw(emulator, "GET", "/users/@me")
    assert (status, ctype, body["id"]) == (200, "application/json", str(emulator.bot_user.id))
    status, _, body = await raw(emulator, "GET", "/users/@me", auth=False)
    assert status == 401
    status, _, body = await raw(emulator, "GET", "/no/such/route")
    assert status == 404 and body == {"message": "404: Not Found", "code": 0}
    assert [r.path for r in emulator.unknown_requests] == ["/no/such/route"]
    if emulator.schema_checked:
        await raw(emulator, "POST", f"/channels/{scene.channel.id}/messages", {"content": 5})
        [problem] = emulator.schema_violations
        assert problem.operation == "create_message" and problem.location == "content"
    emulator.commands[None] = [{"id": "1", "name": "ping", "type": 1, "description": "d"}]
    with pytest.raises(EmulatorError, match="no bot is connected"):
        await emulator.slash(scene.alice, scene.channel, "ping")


async def test_idle_waits_for_a_handler_still_working(
    emulator: DiscordEmulator, scene: Scene, bare: BotHarness
) -> None:
    """An answered interaction whose handler is still busy (no request in flight for longer than the
    quiet window) does not count as idle: what it posts next is there when wait_idle returns."""
    rec = await emulator.slash(scene.alice, scene.channel, "later", seconds=0.3)
    await rec.response()
    await emulator.wait_idle()
    assert [m.content for m in emulator.channel_messages(scene.channel)][-1].endswith(": done")


# ---- message nonces ---------------------------------------------------------------------------------


async def test_enforced_nonce_returns_the_existing_message(emulator: DiscordEmulator, scene: Scene) -> None:
    path = f"/channels/{scene.channel.id}/messages"
    status, _, first = await raw(
        emulator, "POST", path, {"content": "a", "nonce": "n1", "enforce_nonce": True}
    )
    assert status == 200 and first["nonce"] == "n1"
    status, _, again = await raw(
        emulator, "POST", path, {"content": "b", "nonce": "n1", "enforce_nonce": True}
    )
    assert status == 200 and again["id"] == first["id"] and again["content"] == "a"
    assert [m.content for m in emulator.channel_messages(scene.channel)] == ["a"]
    assert emulator.channel_messages(scene.channel)[0].nonce == "n1"
    # Without enforce_nonce a nonce dedupes nothing; in another channel it is another nonce.
    await raw(emulator, "POST", path, {"content": "c", "nonce": "n1"})
    other = f"/channels/{scene.other_channel.id}/messages"
    await raw(emulator, "POST", other, {"content": "d", "nonce": "n1", "enforce_nonce": True})
    assert [m.content for m in emulator.channel_messages(scene.channel)] == ["a", "c"]
    assert [m.content for m in emulator.channel_messages(scene.other_channel)] == ["d"]
    # An integer nonce is the same nonce as its digits; past the window it dedupes no more.
    _, _, numbered = await raw(emulator, "POST", path, {"content": "e", "nonce": 77, "enforce_nonce": True})
    _, _, same = await raw(emulator, "POST", path, {"content": "f", "nonce": "77", "enforce_nonce": True})
    assert numbered["nonce"] == 77 and same["id"] == numbered["id"]
    emulator.nonce_window = 0.0
    status, _, fresh = await raw(
        emulator, "POST", path, {"content": "g", "nonce": "n1", "enforce_nonce": True}
    )
    assert status == 200 and fresh["id"] != first["id"]
    status, _, body = await raw(emulator, "POST", path, {"content": "h", "nonce": "x" * 26})
    assert (status, body["code"]) == (400, 50035)
    assert body["errors"]["nonce"]["_errors"][0]["message"] == "Must be 25 or fewer in length."


async def test_discord_py_sends_enforced_nonces(
    emulator: DiscordEmulator, scene: Scene, bare: BotHarness
) -> None:
    rec = await emulator.slash(scene.alice, scene.channel, "post", text="with a nonce")
    await emulator.wait_for_message(scene.channel, lambda m: m.content == "with a nonce")
    await emulator.wait_idle()
    [request] = emulator.requests_matching("POST /channels/*/messages")
    assert request.json["enforce_nonce"] is True and request.json["nonce"]
    assert emulator.last_message(scene.channel).nonce == request.json["nonce"]
    assert rec.ephemeral_texts() == ["ok: posted"]


# ---- crashes, hooks on answers, expired interactions ------------------------------------------------


async def test_crash_kills_every_task_of_the_bot_and_nothing_else(
    emulator: DiscordEmulator, scene: Scene, bare: BotHarness
) -> None:
    bot = bare.bot
    closes: list[str] = []
    close = bot.close

    async def spy() -> None:
        closes.append("close")
        await close()

    bot.close = spy
    mine = asyncio.create_task(asyncio.sleep(30), name="the test's own task")
    rec = await emulator.slash(scene.alice, scene.channel, "background", seconds=0.3)
    await rec.response()
    assert len(bot.background) == 1
    rec = await emulator.slash(scene.alice, scene.channel, "later", seconds=0.3)
    await rec.response()  # its handler is now asleep before posting
    await bare.crash()
    assert bare.bot is None and bare.crashes == 1
    assert closes == [] and not bot.is_closed()  # no shutdown logic of the bot ran
    assert not bot.background and not mine.done()
    await emulator.wait_until(lambda: not emulator.gateway.connected, what="the gateway to see the crash")
    await asyncio.sleep(0.4)
    assert [m.content for m in emulator.channel_messages(scene.channel)] == []  # neither task posted
    mine.cancel()
    # A fresh bot starts on the same world; the emulator kept working.
    await bare.start()
    rec = await emulator.slash(scene.bob, scene.channel, "ping")
    assert (await rec.response()).data["content"] == "ok"
    assert [e.kind for e in emulator.gateway.log].count("identify") == 2
    clean(emulator)


async def test_a_crashed_bot_leaves_nothing_unclosed(
    emulator: DiscordEmulator, scene: Scene, bare: BotHarness
) -> None:
    rec = await emulator.slash(scene.alice, scene.channel, "later", seconds=0.3)
    await rec.response()
    await bare.crash()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gc.collect()  # the bot object and its sessions go now: nothing may warn "unclosed"
        await asyncio.sleep(0.05)
        gc.collect()
    assert [str(w.message) for w in caught] == []


async def test_crash_writes_nothing_more_to_the_database(
    emulator: DiscordEmulator, scene: Scene, bare: BotHarness, tmp_path: Path
) -> None:
    """The crash stops the bot's storage (the project's own, through its `hard_close`): what it had
    queued and not begun is never written."""
    db = tmp_path / "crash.sqlite3"
    storage = await Storage.open(str(db))
    bare.bot.storage = storage
    await storage.set_meta(key="x", value="1")

    def busy() -> Txn[None]:
        time.sleep(0.2)  # the database thread is busy with this transaction...
        yield from ()

    running = asyncio.create_task(storage.driver.write(busy()))
    queued = asyncio.create_task(storage.set_meta(key="x", value="2"))  # ...and this waits behind it
    await asyncio.sleep(0.05)
    await bare.crash()
    await asyncio.gather(running, queued, return_exceptions=True)
    assert queued.cancelled()
    with sqlite3.connect(db) as check:
        assert check.execute("SELECT value FROM meta WHERE key = 'x'").fetchall() == [("1",)]
    with pytest.raises(StorageError):  # the database is closed
        await storage.get_meta(key="x")


async def test_crash_uses_the_storage_hard_close(
    emulator: DiscordEmulator, scene: Scene, bare: BotHarness
) -> None:
    calls: list[str] = []

    class HardClosing:
        async def hard_close(self) -> None:
            calls.append("hard_close")

        async def close(self) -> None:
            calls.append("close")

    bare.bot.storage = HardClosing()
    await bare.crash()
    assert calls == ["hard_close"]
    with pytest.raises(EmulatorError, match="no running bot"):
        await bare.crash()


async def test_a_hook_runs_after_the_answer_before_the_bot_hears_of_it(
    emulator: DiscordEmulator, scene: Scene, bare: BotHarness
) -> None:
    seen: list[tuple[list[str], str | None]] = []

    async def hook() -> None:
        # Applied and recorded, and the bot still waits for the response (its handler is running).
        assert trap.fired_on is not None and trap.fired_on.callback is not None
        seen.append((trap.fired_on.texts(), handler_running()))
        await bare.crash()

    trap = emulator.after_answer(None, hook)
    other = await emulator.slash(scene.bob, scene.channel, "ping")  # None: any interaction
    await other.response()
    await trap.wait()
    assert trap.fired_on is other and bare.bot is None
    assert seen[0][0] == ["ok"] and seen[0][1] is not None
    await bare.start()

    trap = emulator.crash_after_next_answer(bare, command="later")
    await (await emulator.slash(scene.alice, scene.channel, "ping")).response()  # not this one
    assert not trap.fired
    rec = await emulator.slash(scene.alice, scene.channel, "later", seconds=0.05)
    response = await rec.response()  # returns once the hook has run: the bot is gone
    assert response.ephemeral and bare.bot is None and trap.done and trap.fired_on is rec
    trapped = [r.path for r in emulator.requests_matching("POST /interactions/*") if r.trapped]
    assert trapped == [f"/interactions/{i.id}/{i.token}/callback" for i in (other, rec)]
    await asyncio.sleep(0.2)
    assert not any(m.content.endswith("done") for m in emulator.channel_messages(scene.channel))
    await bare.start()
    await (await emulator.slash(scene.alice, scene.channel, "ping")).response()
    clean(emulator)


async def test_a_hook_on_the_first_request_of_a_kind_after_an_interaction(
    emulator: DiscordEmulator, scene: Scene, bare: BotHarness
) -> None:
    order: list[str] = []

    async def hook() -> None:
        order.append("hook")
        texts = [m.content for m in emulator.channel_messages(scene.channel)]
        assert texts[-1] == "the post" and "ok: posted" not in rec.ephemeral_texts()  # no follow-up yet

    trap = emulator.after_request(
        "POST /channels/*/messages", hook, after=interaction_filter(command="post", user=scene.bob)
    )
    await emulator.send_dm(scene.alice, "hello")  # the bot's DM reply comes first: no match
    await emulator.wait_for_message(emulator.open_dm(scene.alice), lambda m: m.author.bot)
    rec = await emulator.slash(scene.bob, scene.channel, "post", text="the post")
    await trap.wait()
    await emulator.wait_idle()
    assert order == ["hook"] and trap.fired_on is rec and trap.request is not None
    assert trap.request.path == f"/channels/{scene.channel.id}/messages"
    assert rec.ephemeral_texts() == ["ok: posted"]  # the bot went on once the hook had run

    trap = emulator.crash_after_next_request(bare, "POST /channels/*/messages", after=rec)
    again = await emulator.slash(scene.bob, scene.channel, "post", text="the last post")
    await trap.wait()
    assert bare.bot is None and trap.request is not None and trap.request.trapped
    assert emulator.last_message(scene.channel).content == "the last post"  # created, never followed up
    await asyncio.sleep(0.1)
    assert "ok: posted" not in again.ephemeral_texts()


async def test_an_expired_interaction_refuses_the_callback_and_its_webhook(
    emulator: DiscordEmulator, scene: Scene, bare: BotHarness
) -> None:
    expiry = emulator.expire_next_interaction(command="sleepy")
    loop = asyncio.get_running_loop()
    rec = await emulator.slash(scene.alice, scene.channel, "sleepy", seconds=0)
    began = loop.time()
    with pytest.raises(InteractionFailed, match="expired"):
        await rec.response()
    assert loop.time() - began < 1.0  # no waiting for the deadline: Discord said so at once
    await emulator.wait_until(lambda: bare.bot.late_errors, what="the refused callback")
    assert bare.bot.late_errors == [10062] and rec.expired and expiry.expired is rec
    assert emulator.violations == []  # injected: not a fault of the bot's
    hook = f"/webhooks/{emulator.application_id}/{rec.token}"
    for method, path, body in [
        ("POST", hook, {"content": "late"}),
        ("PATCH", f"{hook}/messages/@original", {"content": "late"}),
        ("GET", f"{hook}/messages/@original", None),
    ]:
        status, _, answer = await raw(emulator, method, path, body, auth=False)
        assert (status, answer["code"], answer["message"]) == (404, 10015, "Unknown Webhook")
    # Once only: the next one is answered.
    rec = await emulator.slash(scene.alice, scene.channel, "sleepy", seconds=0)
    assert (await rec.response()).data["content"] == "ok: slept"
    await emulator.wait_idle()


async def test_a_forged_slash_command_goes_unchecked(
    emulator: DiscordEmulator, scene: Scene, bare: BotHarness
) -> None:
    with pytest.raises(EmulatorError, match="required option 'text'"):
        await emulator.slash(scene.alice, scene.channel, "echo", times=9)
    emulator.interaction_deadline = 0.2
    rec = await emulator.forged_slash(scene.alice, scene.channel, "echo", times=9)
    assert rec.payload["data"]["options"] == [{"type": 4, "name": "times", "value": 9}]
    with pytest.raises(InteractionFailed):  # discord.py refuses it before the bot's code runs
        await rec.response()
    rec = await emulator.forged_slash(scene.alice, scene.channel, "game config set", key="k" * 7000)
    [group] = rec.payload["data"]["options"]
    [sub] = group["options"]
    assert (group["name"], sub["name"], sub["options"]) == (
        "config",
        "set",
        [{"type": 3, "name": "key", "value": "k" * 7000}],
    )
    with pytest.raises(EmulatorError, match="no subcommand 'nope'"):
        await emulator.forged_slash(scene.alice, scene.channel, "game nope")


# ---- threads --------------------------------------------------------------------------------------


def bot_thread(bare: BotHarness, scene: Scene, thread_id: int) -> Any:
    """The bot's cached thread (discord.py's guild thread cache), or None."""
    return bare.bot.get_guild(scene.guild.id).get_thread(thread_id)


async def start_game_thread(emulator: DiscordEmulator, scene: Scene, name: str = "Game 1") -> Channel:
    rec = await emulator.slash(scene.alice, scene.channel, "threaded", name=name)
    await rec.response()
    await emulator.wait_idle()
    return next(t for t in emulator.threads_of(scene.channel) if t.name == name)


async def test_a_thread_started_from_the_bots_message(
    emulator: DiscordEmulator, scene: Scene, bare: BotHarness
) -> None:
    mark = emulator.message_mark()
    thread = await start_game_thread(emulator, scene)
    card = emulator.channel_messages(scene.channel, since=mark)
    assert [m.content for m in card] == ["ok: card Game 1"]  # the only message in the parent channel
    assert thread.id == card[0].id and card[0].thread is thread and card[0].flags & HAS_THREAD
    assert thread.type is ChannelType.PUBLIC_THREAD and thread.parent is scene.channel
    assert thread.owner_id == emulator.bot_user.id and thread.auto_archive_duration == 60
    assert [m.content for m in emulator.thread_messages(thread)] == ["ok: in Game 1"]
    assert emulator.thread_members(thread) == [emulator.bot_user, scene.alice]
    assert thread in emulator.threads_of(scene.channel) and scene.thread in emulator.threads_of(scene.channel)
    cached = await emulator.wait_until(lambda: bot_thread(bare, scene, thread.id))
    assert cached.name == "Game 1" and cached.parent_id == scene.channel.id and cached.me is not None
    assert emulator.requests_matching("POST /channels/{channel_id}/messages/{message_id}/threads")
    assert emulator.requests_matching("PUT /channels/{channel_id}/thread-members/{user_id}")
    assert emulator.all_public_payloads()[0].body == {"name": "Game 1"}
    assert emulator.violations == []
    clean(emulator)

    # The bot's card, fetched again, carries its thread.
    status, _, body = await raw(emulator, "GET", f"/channels/{scene.channel.id}/messages/{thread.id}")
    assert status == 200 and body["thread"]["id"] == str(thread.id) and body["thread"]["type"] == 11
    # A second thread from the same message is refused, as are a bad name and duration.
    path = f"/channels/{scene.channel.id}/messages/{thread.id}/threads"
    status, _, body = await raw(emulator, "POST", path, {"name": "again"})
    assert (status, body["code"]) == (400, 160004)
    other = emulator.last_message(scene.channel).id
    path = f"/channels/{scene.channel.id}/messages/{other}/threads"
    status, _, body = await raw(emulator, "POST", path, {"name": "x", "auto_archive_duration": 30})
    assert (status, body["code"]) == (400, 50035)


async def test_a_thread_needs_create_public_threads(
    emulator: DiscordEmulator, scene: Scene, bare: BotHarness
) -> None:
    emulator.set_bot_permissions(scene.guild, int(DEFAULT_BOT & ~Perm.CREATE_PUBLIC_THREADS))
    rec = await emulator.slash(scene.alice, scene.channel, "threaded", name="Game 2")
    await rec.response()
    await emulator.wait_idle()
    assert emulator.threads_of(scene.channel) == [scene.thread]
    assert [m.text for m in emulator.private_messages(scene.alice)] == ["ok: no thread (50013)"]
    assert [(v.status, v.code) for v in emulator.violations] == [(403, 50013)]
    assert emulator.channel_messages(scene.channel)[0].thread is None

    # A thread cannot be started inside a thread (the bot then plays in place).
    emulator.set_bot_permissions(scene.guild, int(DEFAULT_BOT))
    rec = await emulator.slash(scene.alice, scene.thread, "threaded", name="Game 3")
    await rec.response()
    await emulator.wait_idle()
    assert [m.text for m in emulator.private_messages(scene.alice)][-1] == "ok: no thread (50024)"
    assert emulator.threads_of(scene.channel) == [scene.thread]


async def test_posting_in_a_thread_needs_send_messages_in_threads(
    emulator: DiscordEmulator, scene: Scene, bare: BotHarness
) -> None:
    thread = await start_game_thread(emulator, scene)
    emulator.set_bot_permissions(scene.guild, int(DEFAULT_BOT & ~Perm.SEND_MESSAGES_IN_THREADS))
    rec = await emulator.slash(scene.alice, scene.channel, "tpost", thread_id=str(thread.id), text="hello")
    await rec.response()
    await emulator.wait_idle()
    assert rec.ephemeral_texts()[-1] == "ok: refused 50013"
    assert len(emulator.thread_messages(thread)) == 1


async def test_an_archived_thread_refuses_posts_until_unarchived(
    emulator: DiscordEmulator, scene: Scene, bare: BotHarness
) -> None:
    thread = await start_game_thread(emulator, scene)
    emulator.edit_thread(thread, archived=True)  # Discord archives it after an hour of silence
    await emulator.wait_until(lambda: bot_thread(bare, scene, thread.id) is None)  # dropped from the cache
    rec = await emulator.slash(scene.alice, scene.channel, "tpost", thread_id=str(thread.id), text="late")
    await rec.response()
    await emulator.wait_idle()
    assert rec.ephemeral_texts()[-1] == "ok: refused 50083"
    assert [(v.status, v.code, v.message) for v in emulator.violations] == [
        (400, 50083, "Thread is archived")
    ]
    assert len(emulator.thread_messages(thread)) == 1

    rec = await emulator.slash(
        scene.alice, scene.channel, "tpost", thread_id=str(thread.id), text="back", archived=False
    )
    await rec.response()
    await emulator.wait_idle()
    assert rec.ephemeral_texts()[-1] == "ok: posted" and not thread.archived
    assert emulator.thread_messages(thread)[-1].content == "back"
    assert bot_thread(bare, scene, thread.id) is not None

    # A person's message unarchives an unlocked thread (and joins them to it).
    emulator.edit_thread(thread, archived=True)
    await emulator.send_message(scene.bob, thread, "anyone?")
    assert not thread.archived and scene.bob in emulator.thread_members(thread)
    emulator.edit_thread(thread, archived=True, locked=True)
    with pytest.raises(EmulatorError, match="locked"):
        await emulator.send_message(scene.bob, thread, "hello?")
    clean(emulator)


async def test_renaming_a_thread_as_discord_allows_it(
    emulator: DiscordEmulator, scene: Scene, bare: BotHarness
) -> None:
    """Discord (Modify Channel, thread params; docs/topics/threads.md): the creator or Manage Threads
    renames a thread; an archived one only in the request that unarchives it (else 50083); a locked
    one only with Manage Threads, the creator too (160005)."""
    thread = await start_game_thread(emulator, scene)  # the bot's own
    path = f"/channels/{thread.id}"
    emulator.edit_thread(thread, archived=True)
    status, _, body = await raw(emulator, "PATCH", path, {"name": "renamed"})
    assert (status, body["code"]) == (400, 50083) and thread.name == "Game 1"
    status, _, body = await raw(emulator, "PATCH", path, {"archived": False, "name": "renamed"})
    assert status == 200 and body["name"] == "renamed" and not thread.archived
    assert (await raw(emulator, "PATCH", path, {"archived": True}))[0] == 200 and thread.archived

    emulator.edit_thread(thread, locked=True)
    emulator.set_bot_permissions(scene.guild, int(DEFAULT_BOT & ~Perm.MANAGE_THREADS))
    status, _, body = await raw(emulator, "PATCH", path, {"archived": False, "name": "again"})
    assert (status, body["code"]) == (400, 160005) and thread.archived
    emulator.edit_thread(thread, archived=False)
    status, _, body = await raw(emulator, "PATCH", path, {"name": "again"})
    assert (status, body["code"]) == (400, 160005) and thread.name == "renamed"
    emulator.set_bot_permissions(scene.guild, int(DEFAULT_BOT))
    assert (await raw(emulator, "PATCH", path, {"name": "again"}))[0] == 200
    assert thread.name == "again" and thread.locked  # (locked stays as it was)

    # A thread someone else started: renamed only with Manage Threads.
    card = await emulator.slash(scene.alice, scene.channel, "ping")
    await card.response()
    theirs = await emulator.start_thread(scene.alice, card.messages[0], "chat")
    emulator.set_bot_permissions(scene.guild, int(DEFAULT_BOT & ~Perm.MANAGE_THREADS))
    status, _, body = await raw(emulator, "PATCH", f"/channels/{theirs.id}", {"name": "mine"})
    assert (status, body["code"]) == (403, 50013) and theirs.name == "chat"
    clean(emulator)


async def test_interactions_inside_a_thread(
    emulator: DiscordEmulator, scene: Scene, bare: BotHarness
) -> None:
    thread = await start_game_thread(emulator, scene)
    mark = emulator.message_mark()
    rec = await emulator.slash(scene.bob, thread, "panel")
    await rec.response()
    assert rec.payload["channel_id"] == str(thread.id)
    channel = rec.payload["channel"]
    assert (
        channel["type"] == 11 and channel["parent_id"] == str(scene.channel.id) and "permissions" in channel
    )
    panel = rec.messages[0]
    assert panel.channel is thread
    click = await emulator.click(scene.carol, panel, "bare:button:1")
    assert (await click.response()).message is not None and click.messages[0].channel is thread
    pick = await emulator.select(scene.carol, panel, "bare:select", ["a", "c"])
    await pick.response()
    assert pick.texts() == ["ok: selected a,c"] and pick.channel is thread
    form = await emulator.slash(scene.alice, thread, "form")
    await form.response()
    submitted = await emulator.submit_modal(scene.alice, form, values={"bare:answer": "yes"})
    await submitted.response()
    assert submitted.texts() == ["ok: answer=yes note="]
    new_in_thread = emulator.thread_messages(thread, since=mark)
    assert len(new_in_thread) == 4 and all(m.channel is thread for m in new_in_thread)
    assert emulator.channel_messages(scene.channel, since=mark) == []
    assert thread.message_count == 5
    clean(emulator)


async def test_thread_members_and_a_thread_a_person_started(
    emulator: DiscordEmulator, scene: Scene, bare: BotHarness
) -> None:
    card = await emulator.slash(scene.alice, scene.channel, "ping")
    await card.response()
    thread = await emulator.start_thread(scene.alice, card.messages[0], "chat")
    assert thread.id == card.messages[0].id and emulator.thread_members(thread) == [scene.alice]
    cached = await emulator.wait_until(lambda: bot_thread(bare, scene, thread.id))
    assert cached.me is None  # the bot has not joined

    base = f"/channels/{thread.id}/thread-members"
    assert (await raw(emulator, "PUT", f"{base}/@me"))[0] == 204
    await emulator.wait_until(lambda: cached.me is not None)  # THREAD_MEMBERS_UPDATE reached the bot
    assert (await raw(emulator, "PUT", f"{base}/{scene.bob.id}"))[0] == 204
    status, _, listed = await raw(emulator, "GET", base)
    assert status == 200
    assert [m["user_id"] for m in listed] == [str(u.id) for u in (scene.alice, emulator.bot_user, scene.bob)]
    status, _, one = await raw(emulator, "GET", f"{base}/{scene.bob.id}")
    assert status == 200 and one["id"] == str(thread.id)
    assert (await raw(emulator, "DELETE", f"{base}/{scene.bob.id}"))[0] == 204
    assert (await raw(emulator, "GET", f"{base}/{scene.bob.id}"))[0] == 404
    assert (await raw(emulator, "DELETE", f"{base}/@me"))[0] == 204
    assert emulator.thread_members(thread) == [scene.alice]
    status, _, body = await raw(emulator, "PUT", f"{base}/{emulator.owner_user.id + 999}")
    assert (status, body["code"]) == (404, 10007)
    status, _, body = await raw(emulator, "GET", f"/channels/{scene.channel.id}/thread-members")
    assert (status, body["code"]) == (400, 50024)
    with pytest.raises(EmulatorError, match="already has a thread"):
        await emulator.start_thread(scene.bob, card.messages[0], "again")
    # Posting in a thread joins it; the guild's active threads list it with the bot's membership.
    assert (await raw(emulator, "POST", f"/channels/{thread.id}/messages", {"content": "hi"}))[0] == 200
    assert emulator.thread_members(thread) == [scene.alice, emulator.bot_user]
    emulator.edit_thread(scene.thread, archived=True)
    active = await bare.bot.get_guild(scene.guild.id).active_threads()
    assert [(t.id, [m.id for m in t.members]) for t in active] == [(thread.id, [emulator.bot_user.id])]
    clean(emulator)


async def test_edit_delete_and_a_thread_without_a_message(
    emulator: DiscordEmulator, scene: Scene, bare: BotHarness
) -> None:
    status, _, body = await raw(
        emulator, "POST", f"/channels/{scene.channel.id}/threads", {"name": "loose", "type": 11}
    )
    assert status == 201 and body["type"] == 11 and body["member"]["user_id"] == str(emulator.bot_user.id)
    thread = emulator.channel(int(body["id"]))
    notice = emulator.last_message(scene.channel)
    assert notice.type == 18 and notice.content == "loose"  # Discord's "started a thread" notice
    cached = await emulator.wait_until(lambda: bot_thread(bare, scene, thread.id))

    status, _, body = await raw(
        emulator, "PATCH", f"/channels/{thread.id}", {"name": "renamed", "locked": True}
    )
    assert status == 200 and body["thread_metadata"]["locked"] is True
    await emulator.wait_until(lambda: cached.name == "renamed" and cached.locked)
    status, _, body = await raw(emulator, "PATCH", f"/channels/{thread.id}", {"name": ""})
    assert (status, body["code"]) == (400, 50035)

    emulator.set_bot_permissions(scene.guild, int(DEFAULT_BOT & ~Perm.MANAGE_THREADS))
    status, _, body = await raw(emulator, "DELETE", f"/channels/{thread.id}")
    assert (status, body["code"]) == (403, 50013)
    emulator.set_bot_permissions(scene.guild, int(DEFAULT_BOT))
    assert (await raw(emulator, "DELETE", f"/channels/{thread.id}"))[0] == 200
    await emulator.wait_until(lambda: bot_thread(bare, scene, thread.id) is None)
    assert thread not in emulator.threads_of(scene.channel)
    assert (await raw(emulator, "GET", f"/channels/{thread.id}"))[0] == 404


# ---- sharding ----------------------------------------------------------------------------------------

EVERYTHING = int(Intent.GUILDS | Intent.GUILD_MESSAGES | Intent.DIRECT_MESSAGES)


class RawGateway:
    """A gateway connection driven by hand: HELLO, one IDENTIFY (with `shard` when given), then
    every frame the emulator sends, kept in `frames`; `close_code` once the emulator closes it."""

    def __init__(self, emu: DiscordEmulator, shard: Any = None) -> None:
        self.emu = emu
        self.shard = shard
        self.frames: list[dict[str, Any]] = []
        self.close_code: int | None = None
        self._http: aiohttp.ClientSession | None = None
        self._reader: asyncio.Task[None] | None = None

    async def __aenter__(self) -> RawGateway:
        self._http = aiohttp.ClientSession()
        ws = await self._http.ws_connect(self.emu.gateway_url)
        hello = await ws.receive_json()
        assert hello["op"] == 10
        identify: dict[str, Any] = {"token": TOKEN, "intents": EVERYTHING, "properties": {}}
        if self.shard is not None:
            identify["shard"] = self.shard
        await ws.send_json({"op": 2, "d": identify})

        async def read() -> None:
            async for msg in ws:
                if msg.type is aiohttp.WSMsgType.TEXT:
                    self.frames.append(json.loads(msg.data))
            self.close_code = ws.close_code

        self._reader = asyncio.create_task(read())
        await self.emu.wait_until(lambda: self.events("READY") or self.close_code, what="READY or a close")
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._http is not None and self._reader is not None
        await self._http.close()
        await asyncio.wait_for(self._reader, 5)

    def events(self, name: str) -> list[dict[str, Any]]:
        return [f["d"] for f in self.frames if f.get("op") == 0 and f.get("t") == name]

    @property
    def session(self) -> GatewaySession:
        return self.emu.gateway.sessions[self.events("READY")[0]["session_id"]]


def on_shard(emu: DiscordEmulator, shard_id: int, count: int) -> set[int]:
    return {g.id for g in emu.guilds.values() if shard_of(g.id, count) == shard_id}


async def test_each_shard_gets_its_guilds_and_only_shard_0_what_has_no_guild(
    emulator: DiscordEmulator, scene: Scene
) -> None:
    zero, one = emulator.add_guild("Zero", shard=(0, 2)), emulator.add_guild("One", shard=(1, 2))
    assert (shard_of(zero.id, 2), shard_of(one.id, 2)) == (0, 1)
    erin = emulator.add_user("erin", guilds=[zero, one])
    in_zero, in_one = emulator.add_text_channel(zero, "z"), emulator.add_text_channel(one, "o")
    emulator.commands[None] = [{"id": "1", "name": "ping", "type": 1, "description": "d", "contexts": [0, 1]}]
    async with RawGateway(emulator, [0, 2]) as a, RawGateway(emulator, [1, 2]) as b:
        for gw, k in ((a, 0), (b, 1)):
            [ready] = gw.events("READY")
            assert ready["shard"] == [k, 2]
            assert {int(g["id"]) for g in ready["guilds"]} == on_shard(emulator, k, 2)
            await emulator.wait_until(
                lambda gw=gw, k=k: len(gw.events("GUILD_CREATE")) == len(on_shard(emulator, k, 2))
            )
            assert {int(g["id"]) for g in gw.events("GUILD_CREATE")} == on_shard(emulator, k, 2)
        sa, sb = a.session, b.session
        assert (sa.shard, sb.shard) == ((0, 2), (1, 2))

        # A server's interactions, messages and channels go to its shard alone.
        assert [s.shard for s in (await emulator.slash(erin, in_one, "ping")).sessions] == [(1, 2)]
        assert [s.shard for s in (await emulator.slash(erin, in_zero, "ping")).sessions] == [(0, 2)]
        emulator.add_text_channel(one, "late")
        emulator.add_thread(in_one, "side")
        late = emulator.add_guild("Late", shard=(1, 2))
        assert (sb.got("CHANNEL_CREATE", one.id), sa.got("CHANNEL_CREATE", one.id)) == (1, 0)
        assert (sb.got("THREAD_CREATE", one.id), sa.got("THREAD_CREATE", one.id)) == (1, 0)
        assert (sb.got("GUILD_CREATE", late.id), sa.got("GUILD_CREATE", late.id)) == (1, 0)
        assert (sb.got("INTERACTION_CREATE", one.id), sa.got("INTERACTION_CREATE", zero.id)) == (1, 1)

        # What has no guild goes to shard 0: a DM, a slash command in a DM, a click on a DM message.
        await emulator.send_dm(erin, "hello")
        dm = emulator.open_dm(erin)
        assert [s.shard for s in (await emulator.slash(erin, dm, "ping")).sessions] == [(0, 2)]
        button = {"type": 2, "style": 1, "label": "Go", "custom_id": "go"}
        panel = emulator.create_message(
            dm, emulator.bot_user, {"components": [{"type": 1, "components": [button]}]}
        )
        assert [s.shard for s in (await emulator.click(erin, panel, "go")).sessions] == [(0, 2)]
        assert sa.got("MESSAGE_CREATE") == 2 and sb.got("MESSAGE_CREATE") == 0  # erin's DM, the panel
        assert sa.got("INTERACTION_CREATE") == 2 and sb.got("INTERACTION_CREATE") == 0
        await emulator.wait_until(lambda: len(b.events("INTERACTION_CREATE")) == 1)
        assert b.events("INTERACTION_CREATE")[0]["guild_id"] == str(one.id)


async def test_sessions_of_different_shard_counts_each_get_their_share(emulator: DiscordEmulator) -> None:
    """Discord lets sessions of different `num_shards` (and of the same shard) run at once: each gets
    what its own [shard_id, num_shards] selects, which is how traffic moves to a new set of shards."""
    guilds = [emulator.add_guild(f"G{i}", shard=(i % 3, 3)) for i in range(6)]
    async with (
        RawGateway(emulator) as whole,
        RawGateway(emulator, [1, 2]) as half,
        RawGateway(emulator, [2, 3]) as third,
        RawGateway(emulator, [2, 3]) as again,
    ):
        for gw, (k, n) in ((whole, (0, 1)), (half, (1, 2)), (third, (2, 3)), (again, (2, 3))):
            assert {int(g["id"]) for g in gw.events("READY")[0]["guilds"]} == on_shard(emulator, k, n)
        assert "shard" not in whole.events("READY")[0]
        assert len(on_shard(emulator, 0, 1)) == 6 and len(on_shard(emulator, 2, 3)) == 2
        assert third.session is not again.session
        emulator.add_text_channel(guilds[2], "c")
        got = [gw.session.got("CHANNEL_CREATE", guilds[2].id) for gw in (whole, half, third, again)]
        assert got == [1, int(shard_of(guilds[2].id, 2) == 1), 1, 1]
        assert len(emulator.gateway.sessions_of_shard(2, 3)) == 2


@pytest.mark.parametrize("shard", [[2, 2], [-1, 2], [0, 0], [1], [0, 2, 1], "0,2", [True, 2], [0.0, 2]])
async def test_an_invalid_shard_is_closed_with_4010(
    emulator: DiscordEmulator, scene: Scene, shard: Any
) -> None:
    async with RawGateway(emulator, shard) as gw:
        assert gw.events("READY") == [] and gw.close_code == 4010
    assert emulator.gateway.live_sessions == []


async def test_a_session_holding_too_many_guilds_is_closed_with_4011(emulator: DiscordEmulator) -> None:
    emulator.max_guilds_per_session = 2
    for i in range(4):
        emulator.add_guild(f"G{i}", shard=(i % 2, 2))
    async with RawGateway(emulator) as gw:
        assert gw.events("READY") == [] and gw.close_code == 4011
    async with RawGateway(emulator, [0, 2]) as a, RawGateway(emulator, [1, 2]) as b:
        assert [len(gw.events("READY")[0]["guilds"]) for gw in (a, b)] == [2, 2]
    emulator.add_guild("one more", shard=(0, 2))
    async with RawGateway(emulator, [0, 2]) as a:
        assert a.close_code == 4011


async def test_gateway_bot_recommends_shards_and_counts_session_starts(emulator: DiscordEmulator) -> None:
    emulator.guilds_per_recommended_shard = 2
    for i in range(5):
        emulator.add_guild(f"G{i}")
    status, _, body = await raw(emulator, "GET", "/gateway/bot")
    assert status == 200 and body["shards"] == 3 and body["url"] == emulator.gateway_url
    assert body["session_start_limit"] == {
        "total": 1000,
        "remaining": 1000,
        "reset_after": 86_400_000,
        "max_concurrency": 1,
    }
    async with RawGateway(emulator, [0, 3]), RawGateway(emulator, [1, 3]):
        pass
    _, _, body = await raw(emulator, "GET", "/gateway/bot")
    assert body["session_start_limit"]["remaining"] == 998
    assert (await raw(emulator, "GET", "/gateway/bot", auth=False))[0] == 401
    status, _, body = await raw(emulator, "GET", "/gateway", auth=False)  # no token needed, just the URL
    assert (status, body) == (200, {"url": emulator.gateway_url})


async def test_bots_as_shards_one_process_or_two(emulator: DiscordEmulator, scene: Scene) -> None:
    """discord.py's AutoShardedBot runs shards 0 and 1 of 2 on one client; then two bots run one
    shard each (as two processes would): each answers its own server's commands, and a crashed shard
    restarts without disturbing the other."""
    other = emulator.add_guild("Other", shard=(1 - shard_of(scene.guild.id, 2), 2))
    emulator.give_role(other, scene.alice, other.roles[0])
    there = emulator.add_text_channel(other, "there")
    both = BotHarness(emulator, lambda: ShardedBareBot(shard_count=2, shard_ids=[0, 1]))
    await both.start()
    assert sorted(s.shard for s in both.sessions) == [(0, 2), (1, 2)]
    assert {g.id for g in both.bot.guilds} == {scene.guild.id, other.id}
    for channel in (scene.channel, there):
        assert (await (await emulator.slash(scene.alice, channel, "ping")).response()).data["content"] == "ok"
    await emulator.send_dm(scene.alice, "hi")
    await emulator.wait_until(lambda: both.bot.dm_log == ["hi"])
    await both.stop()
    assert emulator.gateway.live_sessions == []

    first, second = (
        BotHarness(emulator, lambda k=k: ShardedBareBot(shard_count=2, shard_ids=[k])) for k in (0, 1)
    )
    await first.start()
    await second.start()
    try:
        assert [s.shard for s in first.sessions] == [(0, 2)] and [s.shard for s in second.sessions] == [
            (1, 2)
        ]
        for channel in (scene.channel, there):
            rec = await emulator.slash(scene.alice, channel, "ping")
            await rec.response()
            owner = first if shard_of(channel.guild.id, 2) == 0 else second
            assert rec.sessions == owner.sessions
            assert [g.id for g in owner.bot.guilds] == [channel.guild.id]
        await second.crash()
        await second.start()  # its new session replaces the dead one; shard 0's lives on
        assert len(emulator.gateway.live_sessions) == 2 and first.sessions[0].alive
        rec = await emulator.slash(
            scene.alice, there if shard_of(other.id, 2) == 1 else scene.channel, "ping"
        )
        assert (await rec.response()).data["content"] == "ok" and rec.sessions == second.sessions
    finally:
        await second.stop()
        await first.stop()
