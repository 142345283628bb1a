"""Numbers To Number and the Numerical Card Game in every language, end to end.

The server speaks Brazilian Portuguese (its Discord locale); the players' clients speak German,
Russian and French, and a watcher Spanish. Each whole game checks that every private answer, DM
panel, form and menu reads in its reader's language, and every public post (the boards, the lines
a move adds, the result, each image and its alt text) in the server's. Then `/game rules` answers
each of the five games in its reader's language with the worked example intact, and the synced
command tree carries the localisations of these two games' commands.

Expected texts are built from the catalogs (`Lang`), each checked to differ from the English, so a
text that stayed English fails; people are told apart by the locale of their interactions only.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from PIL import Image

from bot.errors import GameError
from bot.i18n import ENGLISH, Lang, Msg, language
from bot.i18n.commands import COMMAND_NAME, OPTION_NAME
from bot.registry import RULES_TEXT, rules_of
from cogs.divisors import rules as D
from cogs.divisors.present import MINE_LABEL as DIVISORS_MINE
from cogs.divisors.present import result_text
from cogs.divisors.render import render_board as render_divisors
from cogs.numbers import rules as N
from cogs.numbers.present import ALREADY_PICKED, number_text
from cogs.numbers.present import MINE_LABEL as NUMBERS_MINE
from cogs.numbers.render import render_board as render_numbers
from tests.e2e.driver import (
    assert_discord_accepted_all,
    bot_messages,
    is_card,
    news_mark,
    news_since,
    private_reply,
    typed_answer,
)
from tests.emulator import DiscordEmulator
from tests.emulator.harness import BotHarness
from tests.emulator.models import CallbackType, InteractionRecord, MessageRecord
from tests.emulator.world import Channel, Scene, User

SERVER = "pt-BR"
PT, DE, RU, FR, ES = (language(code) for code in ("pt_BR", "de", "ru", "fr", "es"))


def said(lang: Lang, msgid: str, **fields: Any) -> str:
    """``msgid`` in ``lang``: a translation, never the English."""
    text = lang.t(msgid, **fields)
    assert text != ENGLISH.t(msgid, **fields), f"{msgid!r} has no {lang.code} translation"
    return text


def said_pt(lang: Lang, context: str, msgid: str, **fields: Any) -> str:
    text = lang.pt(context, msgid, **fields)
    assert text != ENGLISH.pt(context, msgid, **fields), f"{msgid!r} has no {lang.code} translation"
    return text


def said_n(lang: Lang, singular: str, plural: str, count: int, **fields: Any) -> str:
    text = lang.n(singular, plural, count, **fields)
    assert text != ENGLISH.n(singular, plural, count, **fields), (
        f"{singular!r} has no {lang.code} translation"
    )
    return text


def mention(user: User) -> str:
    return f"<@{user.id}>"


def speaking(emu: DiscordEmulator, scene: Scene) -> dict[int, Lang]:
    """The scene's server in Brazilian Portuguese, its people in four other languages."""
    emu.set_locale(scene.guild, SERVER)
    locales = {scene.alice: "de", scene.bob: "ru", scene.carol: "fr", scene.dave: "es-ES"}
    for user, locale in locales.items():
        emu.set_locale(user, locale)
    return {user.id: language(locale) for user, locale in locales.items()}


# ---- playing without reading labels (they are translated) -----------------------------------------


def control(message: MessageRecord, verb: str) -> dict[str, Any]:
    """The message's component whose custom_id ends in ``:<verb>``."""
    found = [c for c in message.all_components() if str(c.get("custom_id", "")).endswith(f":{verb}")]
    assert len(found) == 1, (verb, message.custom_ids)
    return found[0]


async def press(emu: DiscordEmulator, user: User, message: MessageRecord, verb: str) -> InteractionRecord:
    rec = await emu.click(user, message, control(message, verb)["custom_id"])
    await rec.response()
    return rec


def card_of(emu: DiscordEmulator, channel: Channel) -> MessageRecord:
    cards = [m for m in bot_messages(emu, channel) if any(c.endswith(":join") for c in m.custom_ids)]
    assert cards, "no lobby card"
    return cards[-1]


def boards(emu: DiscordEmulator, channel: Channel, game_id: int) -> list[MessageRecord]:
    """The game's board posts in the channel (its messages with an image, not its card), oldest first."""
    return [
        m
        for m in bot_messages(emu, channel)
        if m.attachments
        and re.fullmatch(rf"[a-z]+-{game_id}-\d+\.png", m.attachments[0].filename)
        and not is_card(m)
    ]


def panels_of(emu: DiscordEmulator, user: User, game_id: int) -> list[MessageRecord]:
    """The game's DM panels sent to ``user``: they start with the game's title (never translated) and
    name the game; other DMs (answers to typed moves) do not start so."""
    return [
        m
        for m in emu.dm_messages(user)
        if m.content.startswith("**") and f"#{game_id}" in m.content.split("\n")[0]
    ]


def dm_panel(emu: DiscordEmulator, user: User, game_id: int) -> MessageRecord:
    panels = panels_of(emu, user, game_id)
    assert panels, f"{user.name} has no DM panel of game #{game_id}"
    return panels[-1]


async def panel_with_control(emu: DiscordEmulator, user: User, game_id: int, verb: str) -> MessageRecord:
    """Wait for the newest DM panel of the game to carry the control ``verb``."""

    def shown() -> MessageRecord | None:
        panels = panels_of(emu, user, game_id)
        return panels[-1] if panels and any(c.endswith(f":{verb}") for c in panels[-1].custom_ids) else None

    found: MessageRecord = await emu.wait_until(shown, what=f"{user.name}'s panel with its {verb} control")
    return found


async def panel_saying(emu: DiscordEmulator, user: User, game_id: int, *texts: str) -> MessageRecord:
    """Wait for the newest DM panel of the game to say every one of ``texts``."""

    def shown() -> MessageRecord | None:
        panels = panels_of(emu, user, game_id)
        return panels[-1] if panels and all(t in panels[-1].content for t in texts) else None

    try:
        found: MessageRecord = await emu.wait_until(shown, what=f"{user.name}'s panel saying {texts}")
    except Exception as exc:
        panels = [m.content for m in panels_of(emu, user, game_id)]
        raise AssertionError(f"{user.name}'s panel: {panels[-1:]}") from exc
    return found


async def open_and_start(
    emu: DiscordEmulator, channel: Channel, command: str, host: User, *others: User, **options: Any
) -> int:
    """Open a lobby, let ``others`` join and the host start it; wait for the first board and each
    player's DM panel. The game's id."""
    await (await emu.slash(host, channel, command, **options)).response()
    card = card_of(emu, channel)
    for user in others:
        await press(emu, user, card, "join")
    card = emu.message(card.id)
    game_id = int(control(card, "join")["custom_id"].split(":")[1])
    await press(emu, host, card, "start")
    await emu.wait_until(lambda: boards(emu, channel, game_id), what="the first board")
    for user in (host, *others):
        await emu.wait_until(lambda u=user: panels_of(emu, u, game_id), what="a DM panel")
    await emu.wait_idle()
    return game_id


def pixels(png: bytes) -> bytes:
    with Image.open(io.BytesIO(png)) as image:
        return image.convert("RGB").tobytes()


def english_absent(text: str, *phrases: str) -> None:
    for phrase in phrases:
        assert phrase not in text, f"English {phrase!r} in {text!r}"


async def assert_public_in(
    emu: DiscordEmulator,
    harness: BotHarness,
    game_id: int,
    kind: str,
    replay: Callable[[Any, int, dict[str, Any]], Any],
    draw: Callable[..., bytes],
    lang: Lang,
    alt_start: str,
    english: tuple[str, ...],
) -> None:
    """Every public message of the game speaks ``lang``: each image is the public view at its version
    drawn in ``lang`` (and not as English would draw it, somewhere), each alt text starts with
    ``alt_start``, no text holds one of the ``english`` phrases."""
    game = await harness.bot.services.games.get(game_id)
    moves = await harness.bot.storage.moves(game_id=game_id)
    rules = N if kind == "numbers" else D
    state = rules.new_game(len(game.row.seats), game.row.options, game.row.seed)
    states = [state]
    for move in moves:
        state = replay(state, move.seat, move.action)
        states.append(state)
    first_version = game.row.version - len(moves)
    images = differs = 0
    for message in emu.messages.values():
        if message.author.id != emu.bot_user.id or message.ephemeral or message.channel.is_dm:
            continue
        for version in message.versions:
            english_absent(version.content, *english)
            for attachment in version.attachments:
                found = re.fullmatch(rf"{kind}-{game_id}-(\d+)\.png", attachment.filename)
                if found is None:
                    continue
                view = rules.view_for(states[int(found[1]) - first_version], None)
                assert pixels(attachment.data) == pixels(draw(view, game.row.names, lang=lang))
                differs += pixels(attachment.data) != pixels(draw(view, game.row.names))
                assert attachment.description is not None and attachment.description.startswith(alt_start)
                images += 1
    assert images > 0 and differs > 0


def replay_numbers(state: Any, seat: int, action: dict[str, Any]) -> Any:
    return N.forfeit(state, seat) if action["type"] == "forfeit" else N.apply(state, seat, action)


def replay_divisors(state: Any, seat: int, action: dict[str, Any]) -> Any:
    return D.forfeit(state, seat) if action["type"] == "forfeit" else D.apply(state, seat, action)


async def private_status(
    emu: DiscordEmulator,
    harness: BotHarness,
    user: User,
    channel: Channel,
    game_id: int,
    lang: Lang,
    draw: Any,
) -> None:
    """``/game status`` answers ``user`` privately with the board drawn, and described, in ``lang``."""
    rec = await emu.slash(user, channel, "game status")
    assert (await rec.response()).ephemeral
    shown = [m for m in (*rec.messages, rec.original) if m is not None and m.attachments]
    assert shown, "the status has no image"
    message = shown[0]
    game = await harness.bot.services.games.get(game_id)
    kind = harness.bot.catalog.get(game.row.kind)
    table = kind.table(game).speaking(lang)
    attachment = message.attachments[0]
    assert attachment.description == kind.present.alt_text(game.view(None), table)
    assert attachment.description != kind.present.alt_text(game.view(None), table.speaking(ENGLISH))
    assert pixels(attachment.data) == pixels(draw(game.view(None), game.row.names, lang=lang))


# ---- Numbers To Number ---------------------------------------------------------------------------


async def numbers_pick(
    emu: DiscordEmulator, channel: Channel, game_id: int, user: User, lang: Lang, how: str, number: int
) -> tuple[str, MessageRecord]:
    """One pick by ``how``; the private answer and the channel's news. A form opened on the way is
    checked to speak ``lang``."""
    before = news_mark(emu, channel)

    async def by_form(panel: MessageRecord) -> str:
        rec = await press(emu, user, panel, "pick")
        assert rec.modal is not None
        form = json.dumps(rec.modal, ensure_ascii=False)
        assert rec.modal["title"] == said_pt(
            lang, "form title", "Your number · game #{game_id}", game_id=game_id
        )
        assert said_pt(lang, "form field", "A number from 1 to {top} you have not played", top=7) in form
        example = said_pt(
            lang, "placeholder", "for example {example} (or in binary: 0b{binary})", example=4, binary="100"
        )
        assert example in form
        sub = await emu.submit_modal(user, rec, values={"number": str(number)})
        response = await sub.response()
        await emu.wait_idle()
        if response.type is CallbackType.UPDATE_MESSAGE:  # a move: the panel is answered in place
            return emu.message(panel.id).content
        return "\n".join(sub.texts())

    if how == "form":  # the DM panel's Pick button, then the form
        panel = await panel_with_control(emu, user, game_id, "pick")
        answer = await by_form(panel)
    elif how == "typed":
        answer = await typed_answer(emu, user, str(number))
    elif how == "command":
        answer = await private_reply(await emu.slash(user, channel, "numbers pick", number=number))
    else:  # My move under the board, then the private panel's Pick and its form
        board = boards(emu, channel, game_id)[-1]
        shown = await press(emu, user, board, "mine")
        panel = shown.messages[-1]
        assert (
            panel.ephemeral
            and said(lang, "Still yours: {numbers}", numbers="").split(":")[0] in panel.content
        )
        answer = await by_form(panel)
    return answer, await news_since(emu, channel, before)


async def test_numbers_in_four_languages(emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness) -> None:
    langs = speaking(emu, scene)
    alice, bob, carol = scene.alice, scene.bob, scene.carol
    a, b = mention(alice), mention(bob)
    channel = scene.channel

    # Carol (French) reads the rules first: in French, privately.
    rules = await private_reply(await emu.slash(carol, channel, "game rules", game="numbers"))
    assert rules == rules_of("numbers", FR) != rules_of("numbers", ENGLISH)

    game_id = await open_and_start(emu, channel, "numbers new", alice, bob, m=3)
    (first,) = boards(emu, channel, game_id)
    assert (
        said_n(
            PT,
            "{count} round {of_moves}. Each move, pick a number from 1 to {top} you have not played, in "
            "your DMs (or **{label}**); both picks are revealed together.",
            "{count} rounds {of_moves}. Each move, pick a number from 1 to {top} you have not played, in "
            "your DMs (or **{label}**); both picks are revealed together.",
            2,
            of_moves=Msg.n("of {count} move", "of {count} moves", 3),
            top=7,
            label=PT.t(NUMBERS_MINE),
        )
        in first.content
    )
    assert control(first, "mine")["label"] == said(PT, NUMBERS_MINE)
    # Each player's DM panel in their own language, with its Pick button so labelled.
    for user, other in ((alice, bob), (bob, alice)):
        lang = langs[user.id]
        panel = dm_panel(emu, user, game_id)
        assert (
            said(
                lang,
                "Round {round} of {rounds} · move {move} of {m} · totals: you {mine}, {player} {theirs}",
                round=1,
                rounds=2,
                move=1,
                m=3,
                mine=0,
                player=mention(other),
                theirs=0,
            )
            in panel.content
        )
        pick_label = lang.pt("label", "Pick")
        assert (
            said(
                lang,
                "**Pick a number from 1 to {top}** you have not played: press **{label}** or reply here.",
                top=7,
                label=pick_label,
            )
            in panel.content
        )
        assert control(panel, "pick")["label"] == pick_label != "Pick"

    # Round 1: 5 > 3, 2 < 6, 4 = 4 (the list 10_, D = {4, 5}); round 2: 6 > 2, 1 < 7, 3 < 5 (100, D = {4}).
    plan = [
        ((alice, "form", 5), (bob, "typed", 3)),
        ((alice, "command", 2), (bob, "button", 6)),
        ((bob, "command", 4), (alice, "button", 4)),
        ((alice, "typed", 6), (bob, "form", 2)),
        ((bob, "command", 7), (alice, "form", 1)),
        ((alice, "command", 3), (bob, "typed", 5)),
    ]
    for move, (one, two) in enumerate(plan):
        user, how, number = one
        lang = langs[user.id]
        answer, line = await numbers_pick(emu, channel, game_id, user, lang, how, number)
        confirm = "✅ Your pick {number} is in (final, hidden until both picks are in)."
        assert said(lang, confirm, number=number_text(number, 3)) in answer, answer
        assert said(PT, "{player} has picked.", player=mention(user)) in line.content
        if move == 1:  # alice, typing another number, is told in German why it is not taken
            reply = await typed_answer(emu, alice, "7")
            assert said(DE, ALREADY_PICKED, pick=2, player=b) in reply
        user2, how2, number2 = two
        lang2 = langs[user2.id]
        answer, post = await numbers_pick(emu, channel, game_id, user2, lang2, how2, number2)
        symbol = N.symbol(*((number, number2) if user is alice else (number2, number)))
        assert (
            said(
                lang2,
                "✅ You picked {mine}, {player} picked {theirs} → `{symbol}`.",
                mine=number_text(number2, 3),
                player=mention(user),
                theirs=number_text(number, 3),
                symbol=symbol,
            )
            in answer
        ), answer
        x, y = (number, number2) if user is alice else (number2, number)
        assert (
            PT.t(
                "Move {move} of round {round}: {first} {first_number} · {second} {second_number} "
                "→ `{symbol}`. The list: `{list}`",
                move=move % 3 + 1,
                round=move // 3 + 1,
                first=a,
                first_number=number_text(x, 3),
                second=b,
                second_number=number_text(y, 3),
                symbol=symbol,
                list=["1", "10", "10_", "1", "10", "100"][move],
            )
            in post.content
        )
        if move == 2:  # the end of round 1, in Portuguese; each panel says what it gave, in its language
            d = said_n(
                PT,
                "the numbers that score, D = {members} ({count} number; in binary {numbers})",
                "the numbers that score, D = {members} ({count} numbers; in binary {numbers})",
                2,
                members="{4, 5}",
                numbers="`100`, `101`",
            )
            over = "**Round {round} of {rounds} is over.** The list `{list}`: {d}."
            assert said(PT, over, round=1, rounds=2, list="10_", d=d) in post.content
            scores = said(
                PT,
                "This round: {first}; {second}. Totals: {player1} {total1}, {player2} {total2}.",
                first=PT.n(
                    "{player} {count} point ({numbers})",
                    "{player} {count} points ({numbers})",
                    2,
                    player=a,
                    numbers="5, 4",
                ),
                second=PT.n(
                    "{player} {count} point ({numbers})",
                    "{player} {count} points ({numbers})",
                    1,
                    player=b,
                    numbers="4",
                ),
                player1=a,
                total1=2,
                player2=b,
                total2=1,
            )
            assert scores in post.content
            assert said(PT, "Round {round} begins with an empty list.", round=2) in post.content
            for user_, got, them, theirs in ((alice, 2, b, 1), (bob, 1, a, 2)):
                gave = said_n(
                    langs[user_.id],
                    "Round {round} gave you {count} point, {player} {theirs}.",
                    "Round {round} gave you {count} points, {player} {theirs}.",
                    got,
                    round=1,
                    player=them,
                    theirs=theirs,
                )
                await panel_saying(emu, user_, game_id, gave)
            # A number played before is refused in German, and Carol sees the game in French.
            state = (await bot_harness.bot.services.games.get(game_id)).state
            with pytest.raises(GameError) as refused:
                N.apply(state, 0, N.Pick(5))
            german = refused.value.in_language(DE)
            assert german != refused.value.in_language(ENGLISH)
            assert german in await private_reply(await emu.slash(alice, channel, "numbers pick", number=5))
            await private_status(emu, bot_harness, carol, channel, game_id, FR, render_numbers)

    final = boards(emu, channel, game_id)[-1]
    assert said(PT, "the higher total ({high} to {low})", high=2, low=1) in final.content
    assert control(final, "rematch")
    await panel_saying(
        emu,
        alice,
        game_id,
        said(DE, "The game is over. Totals: you {mine}, {player} {theirs}.", mine=2, player=b, theirs=1),
    )
    await panel_saying(
        emu,
        bob,
        game_id,
        said(RU, "The game is over. Totals: you {mine}, {player} {theirs}.", mine=1, player=a, theirs=2),
    )
    alt = PT.t(
        "Numbers To Number board: {first} against {second}, numbers 1 to {top} (m = {m}). "
        "Round {round} of {rounds}, finished.",
        first="",
        second="",
        top=7,
        m=3,
        round=1,
        rounds=2,
    ).split(":")[0]
    english = ("has picked", "The list", "rounds of", "is over.**", "This round:", "the higher total")
    await assert_public_in(
        emu, bot_harness, game_id, "numbers", replay_numbers, render_numbers, PT, alt, english
    )
    assert_discord_accepted_all(emu)


# ---- The Numerical Card Game ----------------------------------------------------------------------


def who_of(*users: User) -> Callable[[int], str]:
    return lambda seat: mention(users[seat])


async def divisors_pick(
    emu: DiscordEmulator, channel: Channel, game_id: int, user: User, lang: Lang, how: str, card: int
) -> tuple[str, MessageRecord]:
    before = news_mark(emu, channel)
    if how == "select":  # the DM panel's menu
        panel = await panel_with_control(emu, user, game_id, "pick")
        menu = control(panel, "pick")
        assert menu["placeholder"] == lang.pt("placeholder", "Your card") != "Your card"
        await (await emu.select(user, panel, menu["custom_id"], [str(card)])).response()
        await emu.wait_idle()
        answer = emu.message(panel.id).content
    elif how == "command":
        answer = await private_reply(await emu.slash(user, channel, "divisors pick", card=card))
    elif how == "typed":
        answer = await typed_answer(emu, user, str(card))
    else:  # My move under the board, then the private panel's menu
        board = boards(emu, channel, game_id)[-1]
        shown = await press(emu, user, board, "mine")
        panel = shown.messages[-1]
        assert panel.ephemeral
        await (await emu.select(user, panel, control(panel, "pick")["custom_id"], [str(card)])).response()
        await emu.wait_idle()
        answer = emu.message(panel.id).content
    return answer, await news_since(emu, channel, before)


async def test_divisors_in_four_languages(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness
) -> None:
    langs = speaking(emu, scene)
    alice, bob, carol, dave = scene.alice, scene.bob, scene.carol, scene.dave
    a, b, c = mention(alice), mention(bob), mention(carol)
    who = who_of(alice, bob, carol)
    channel = scene.channel

    rules = await private_reply(await emu.slash(dave, channel, "game rules", game="divisors"))
    assert rules == rules_of("divisors", ES) != rules_of("divisors", ENGLISH)

    game_id = await open_and_start(emu, channel, "divisors new", alice, bob, carol, m=4)
    (first,) = boards(emu, channel, game_id)
    sits_out = ("{pairings} ({players} sits out)", "{pairings} ({players} sit out)")

    def pairings(lang: Lang, one: str, two: str, idle: str | None) -> str:
        pair = said(lang, "{first} against {second}", first=one, second=two)
        return pair if idle is None else said_n(lang, *sits_out, 1, pairings=pair, players=idle)

    assert (
        said(
            PT,
            "{pairings}. Pick a card in your DMs (or **{label}**); the two cards of a pairing are shown "
            "together.",
            pairings=pairings(PT, b, c, a),
            label=PT.t(DIVISORS_MINE),
        )
        in first.content
    )
    pile = ("Your fresh pile ({count} card): {pile}", "Your fresh pile ({count} cards): {pile}")
    panel = dm_panel(emu, alice, game_id)
    assert said_n(DE, *pile, 4, pile="1 · 2 · 3 · 4") in panel.content
    assert said(DE, "You sit out the rest of this round.") in panel.content
    for user, other in ((bob, c), (carol, b)):
        lang = langs[user.id]
        panel = dm_panel(emu, user, game_id)
        assert said_n(lang, *pile, 4, pile="1 · 2 · 3 · 4") in panel.content
        against = "**You against {player}:** choose your card below or reply with its value."
        assert said(lang, against, player=other) in panel.content

    # Cycle 1, round 1: bob's 1 (his DM menu, in Russian) against carol's 4 (typed, in French).
    answer, line = await divisors_pick(emu, channel, game_id, bob, RU, "select", 1)
    assert said(RU, "✅ Your card **{card}** is in (only you know it).", card=1) in answer
    assert said(PT, "{player} has chosen a card.", player=b) in line.content
    answer, post = await divisors_pick(emu, channel, game_id, carol, FR, "typed", 4)
    one = D.Result.from_dict(
        {"seats": [1, 2], "cards": [1, 4], "points": [2, 0], "kind": "exchange", "label": "one"}
    )
    assert said(FR, "✅ Both cards are in.") in answer
    assert said(FR, "Your last pairing: {result}.", result=result_text(one, FR, who, 2)) in answer
    assert said(PT, "Revealed: {result}.", result=result_text(one, PT, who)) in post.content
    cycle = "Cycle {cycle}, round {round}: {pairings}."
    assert said(PT, cycle, cycle=1, round=2, pairings=pairings(PT, a, c, b)) in post.content
    # Bob now holds two 4s: his panel and his autocomplete say so in Russian.
    await panel_saying(emu, bob, game_id, said_n(RU, *pile, 4, pile="2 · 3 · 4 ×2"))
    choices = await emu.autocomplete(bob, channel, "divisors pick", focused="card", card="")
    assert said(RU, "{card} (you hold {count})", card=4, count=2) in [ch["name"] for ch in choices]

    # Round 2: alice's 2 (a slash command, in German) against carol's 2 (My move, in French).
    answer, _ = await divisors_pick(emu, channel, game_id, alice, DE, "command", 2)
    assert said(DE, "✅ Your card **{card}** is in (only you know it).", card=2) in answer
    answer, post = await divisors_pick(emu, channel, game_id, carol, FR, "button", 2)
    equal = D.Result.from_dict(
        {"seats": [0, 2], "cards": [2, 2], "points": [2, 2], "kind": "moldy", "label": "equal"}
    )
    assert said(FR, "✅ Both cards are in.") in answer
    assert said(PT, "Revealed: {result}.", result=result_text(equal, PT, who)) in post.content

    # Round 3: alice has no 2 any more (refused in German); her 4 against bob's 2: 2 divides 4.
    state = (await bot_harness.bot.services.games.get(game_id)).state
    with pytest.raises(GameError) as refused:
        D.apply(state, 0, D.Pick(2))
    german = refused.value.in_language(DE)
    assert german != refused.value.in_language(ENGLISH)
    assert german in await private_reply(await emu.slash(alice, channel, "divisors pick", card=2))
    await divisors_pick(emu, channel, game_id, alice, DE, "select", 4)
    answer, post = await divisors_pick(emu, channel, game_id, bob, RU, "command", 2)
    divides = D.Result.from_dict(
        {"seats": [0, 1], "cards": [4, 2], "points": [0, 2], "kind": "moldy", "label": "divides"}
    )
    assert said(RU, "Your last pairing: {result}.", result=result_text(divides, RU, who, 1)) in answer
    assert said(PT, "Revealed: {result}.", result=result_text(divides, PT, who)) in post.content

    # Cycle 2: bob picks 3 by a typed DM; carol drops out (her pairing is called off); dave, watching
    # in Spanish, asks for the status.
    answer, _ = await divisors_pick(emu, channel, game_id, bob, RU, "typed", 3)
    assert said(RU, "✅ Your card **{card}** is in (only you know it).", card=3) in answer
    before = news_mark(emu, channel)
    answer = await private_reply(await emu.slash(carol, channel, "divisors drop"))
    dropped = (
        "You dropped out of game #{game_id}. Your score, {score}, still counts (and can win); your fresh "
        "cards leave play."
    )
    assert said(FR, dropped, game_id=game_id, score=2) in answer
    post = await news_since(emu, channel, before)
    drop_line = (
        "{player} dropped out, keeping {count} point (and a chance to win); {cards}",
        "{player} dropped out, keeping {count} points (and a chance to win); {cards}",
    )
    leaves = ("their {count} fresh card leaves play.", "their {count} fresh cards leave play.")
    assert said_n(PT, *drop_line, 2, player=c, cards=Msg.n(*leaves, 3)) in post.content
    void = (
        "The pairing of {first} and {second} is called off: nothing is revealed, and a card already chosen "
        "stays in its owner's fresh pile."
    )
    assert said(PT, void, first=b, second=c) in post.content
    assert said(PT, cycle, cycle=2, round=3, pairings=pairings(PT, a, b, None)) in post.content
    await private_status(emu, bot_harness, dave, channel, game_id, ES, render_divisors)

    # Alice drops out too: fewer than two players hold fresh cards; bob wins with 4.
    answer = await private_reply(await emu.slash(alice, channel, "divisors drop"))
    assert said(DE, dropped, game_id=game_id, score=2) in answer
    await emu.wait_idle()
    final = boards(emu, channel, game_id)[-1]
    assert said(PT, "fewer than two players still hold fresh cards; the highest score wins") in final.content
    for user, score in ((alice, 2), (bob, 4), (carol, 2)):
        over = said(langs[user.id], "The game is over. Your final score: {score}.", score=score)
        await panel_saying(emu, user, game_id, over)
    alt = said_n(
        PT,
        "The Numerical Card Game board, cards 1 to {m}, {count} player.",
        "The Numerical Card Game board, cards 1 to {m}, {count} players.",
        3,
        m=4,
    ).split(",")[0]
    english = (
        "has chosen a card",
        "Revealed:",
        "Cycle ",
        " sits out",
        "dropped out",
        "fewer than two players",
    )
    await assert_public_in(
        emu, bot_harness, game_id, "divisors", replay_divisors, render_divisors, PT, alt, english
    )
    assert_discord_accepted_all(emu)


# ---- the rules of every game, and the commands Discord shows -------------------------------------


async def test_rules_answer_in_the_readers_language(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness
) -> None:
    readers = {
        code: emu.add_user(f"reader-{code.lower()}", locale=locale)
        for code, locale in (
            ("en", "en-GB"),
            ("de", "de"),
            ("fr", "fr"),
            ("es", "es-419"),
            ("pt_BR", "pt-BR"),
            ("ru", "ru"),
        )
    }
    numbers = re.compile(r"\d+")
    for code, user in readers.items():
        lang = language(code)
        for game in RULES_TEXT:
            answer = await private_reply(await emu.slash(user, scene.channel, "game rules", game=game))
            assert answer == rules_of(game, lang)
            example, english = answer.rsplit("\n", 1)[-1], RULES_TEXT[game].body.rsplit("\n", 1)[-1]
            assert numbers.findall(example) == numbers.findall(english)
            assert (answer == RULES_TEXT[game].body) is (code == "en")

    # The command tree Discord shows carries these games' names and descriptions in each language.
    synced = [c for scope in (None, scene.guild) for c in emu.commands_of(scope)]
    for group in ("numbers", "divisors"):
        (tree,) = [c for c in synced if c["name"] == group]
        pick = next(o for o in tree["options"] if o["name"] == "pick")
        option = pick["options"][0]
        for code in ("de", "fr", "es", "pt_BR", "ru"):
            lang = language(code)
            locale = lang.discord
            assert pick["name_localizations"][locale] == lang.pt(COMMAND_NAME, "pick") != "pick"
            assert option["name_localizations"][locale] == lang.pt(OPTION_NAME, option["name"])
            assert pick["description_localizations"][locale] == lang.t(pick["description"])
            assert tree["description_localizations"][locale] == lang.t(tree["description"])
