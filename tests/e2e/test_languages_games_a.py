"""Procession, Up-Down-Stay and Lines By The Dots in four languages at once, end to end.

Each game is played whole by three players whose Discord clients speak German (Alice), French (Bob)
and Brazilian Portuguese (Carol), in a server whose locale is Spanish. What only a player reads (a
refusal, a private answer, a DM panel, a form) speaks that player's language; what the channel
reads (boards, headlines, menus under a board, the result, the images' alt text) speaks the
server's. The game's own words are checked (the shared frame of the table is another part's).
"""

from __future__ import annotations

from typing import Any

from cogs.updown import rules as updown
from tests.e2e.driver import assert_discord_accepted_all, boards, bot_messages, private_reply
from tests.emulator import DiscordEmulator
from tests.emulator.harness import BotHarness
from tests.emulator.models import MessageRecord
from tests.emulator.world import Channel, Scene, User

SERVER = "es-ES"
CLIENTS = ("de", "fr", "pt-BR")  # Alice, Bob, Carol


def speaking(emu: DiscordEmulator, scene: Scene) -> tuple[User, User, User]:
    """Alice, Bob and Carol with their clients' languages, in the Spanish server."""
    emu.set_locale(scene.guild, SERVER)
    players = (scene.alice, scene.bob, scene.carol)
    for user, locale in zip(players, CLIENTS, strict=True):
        emu.set_locale(user, locale)
    return players


def with_verb(message: MessageRecord, verb: str) -> list[dict[str, Any]]:
    """The message's components whose custom_id has ``verb`` (``q:<game>:<version>:<verb>[:arg]``)."""
    return [c for c in message.all_components() if str(c.get("custom_id", "")).split(":")[3:4] == [verb]]


async def start(
    emu: DiscordEmulator, channel: Channel, command: str, players: tuple[User, ...], **options: Any
) -> int:
    """Open a lobby with ``/<command>``, let the others join and the host start, by the card's
    buttons (found by what they do, whatever their labels say); the game id."""
    host, *others = players
    await (await emu.slash(host, channel, command, **options)).response()
    card = next(m for m in reversed(bot_messages(emu, channel)) if with_verb(m, "join"))
    game_id = int(with_verb(card, "join")[0]["custom_id"].split(":")[1])
    for user in others:
        await (await emu.click(user, card, with_verb(card, "join")[0]["custom_id"])).response()
        await emu.wait_idle()
    card = emu.message(card.id)
    await (await emu.click(host, card, with_verb(card, "start")[0]["custom_id"])).response()
    await emu.wait_until(lambda: boards(emu, channel), what="the first board")
    await emu.wait_idle()
    return game_id


def public_texts(emu: DiscordEmulator, channel: Channel) -> list[str]:
    """Every version of every public post of the bot in the channel, and its images' alt texts."""
    out = []
    for message in bot_messages(emu, channel):
        if message.ephemeral:
            continue
        for version in message.versions:
            out.append(version.content)
            out.extend(a.description or "" for a in version.attachments)
            out.extend(str(c.get("placeholder", "")) for c in _components(version.components))
    return out


def alt_texts(emu: DiscordEmulator, channel: Channel) -> list[str]:
    return [a.description or "" for m in boards(emu, channel) for a in m.attachments]


def _components(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [c for row in rows for c in row.get("components", [])]


def dm_texts(emu: DiscordEmulator, user: User, game_id: int) -> list[str]:
    """Every version of every DM the bot sent ``user`` about the game."""
    return [
        v.content
        for m in emu.dm_messages(user)
        for v in m.versions
        if f"#{game_id}" in m.content or f"#{game_id}" in v.content
    ]


def assert_none(texts: list[str], *english: str) -> None:
    for text in texts:
        for words in english:
            assert words not in text, f"English {words!r} in {text[:300]!r}"


# ---- Procession -----------------------------------------------------------------------------------


async def test_procession_in_four_languages(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness
) -> None:
    alice, bob, carol = players = speaking(emu, scene)
    channel = scene.channel
    await start(emu, channel, "procession new", players, n=4)

    # A refusal of each, privately, in their language: a position off the row, a repeated multiset.
    said = await private_reply(await emu.slash(alice, channel, "procession flip", position=9))
    assert said == "Stelle 9 gibt es nicht: die Reihe hat 4 Ziffern. Wähle 1-4.", said
    await (await emu.slash(alice, channel, "procession flip", position=1)).response()  # 1000 {3,1}
    await emu.wait_idle()
    said = await private_reply(await emu.slash(bob, channel, "procession flip", position=1))
    assert said.startswith("Retourner la position 1 donne 0000, dont les longueurs de séries {4}"), said
    await (await emu.slash(bob, channel, "procession flip", position=2)).response()  # 1100 {2,2}
    await emu.wait_idle()
    said = await private_reply(await emu.slash(carol, channel, "procession flip", position=12))
    assert said.startswith("A posição 12 não existe: a fileira tem 4 dígitos."), said

    # The rest by the board's buttons, each player on their turn (Carol's now).
    turn = 2
    for _ in range(30):
        board = boards(emu, channel)[-1]
        flips = [c for c in with_verb(board, "flip") if not c.get("disabled")]
        if not flips:
            break
        await (await emu.click(players[turn], board, flips[0]["custom_id"])).response()
        await emu.wait_idle()
        turn = (turn + 1) % 3
    else:
        raise AssertionError("the game did not end")

    posts = boards(emu, channel)
    assert "Voltea un dígito con los botones" in posts[0].content
    assert all("volteó la posición" in p.content for p in posts[1:])
    assert "no queda ninguna jugada válida" in posts[-1].content  # the result's reason
    assert all(a.startswith("Tablero de Procession, n = 4, jugadores: ") for a in alt_texts(emu, channel))
    assert any("Partida terminada tras" in a for a in alt_texts(emu, channel))
    assert_none(
        public_texts(emu, channel), "flipped position", "Flip one digit", "Procession board", "no legal move"
    )
    assert_discord_accepted_all(emu)


# ---- Up-Down-Stay -----------------------------------------------------------------------------------

ENGLISH_PANEL = (
    "Your hand",
    "Your prediction",
    "The game is over",
    "You placed",
    "Predict 1 to",
    "reply here",
)
PANEL_WORDS = {
    "de": ("Deine Hand", "Das Spiel ist vorbei", "Deine Vorhersage", "Du hast"),
    "fr": ("Ta main", "La partie est terminée", "Ta prédiction", "Tu as posé"),
    "pt-BR": ("Sua mão", "A partida terminou", "Sua previsão", "Você colocou"),
}


def panel_of(emu: DiscordEmulator, user: User, game_id: int) -> MessageRecord:
    panels = [m for m in emu.dm_messages(user) if f"#{game_id}" in m.content]
    assert panels, f"{user.name} has no DM panel for game #{game_id}"
    return panels[-1]


async def panel_control(
    emu: DiscordEmulator, user: User, game_id: int, verb: str
) -> tuple[MessageRecord, str]:
    def found() -> tuple[MessageRecord, str] | None:
        panels = [m for m in emu.dm_messages(user) if f"#{game_id}" in m.content]
        controls = with_verb(panels[-1], verb) if panels else []
        return (panels[-1], controls[0]["custom_id"]) if controls else None

    got: tuple[MessageRecord, str] = await emu.wait_until(found, what=f"{user.name}'s {verb} control")
    return got


async def test_updown_in_four_languages(emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness) -> None:
    alice, bob, carol = players = speaking(emu, scene)
    channel = scene.channel
    game_id = await start(emu, channel, "updown new", players)
    service = bot_harness.bot.services

    # Each hand by DM, in its reader's language (17 cards each: one is set aside).
    for user, words in zip(
        players, ("Deine Hand, 17 Karten:", "Ta main, 17 cartes :", "Sua mão, 17 cartas:"), strict=True
    ):
        assert words in panel_of(emu, user, game_id).content
    board = boards(emu, channel)[-1]
    assert "Tu mano está en tus MD (o **Mi mano**)" in board.content  # the start note, in Spanish
    mine = next(c for c in with_verb(board, "mine"))
    assert mine["label"] == "Mi mano"
    shown = await private_reply(await emu.click(bob, board, mine["custom_id"]))
    assert "Ta main, 17 cartes :" in shown and "**Prédis 1 à 50 lettres**" in shown

    # Alice predicts in secret through her DM panel's form, in German.
    panel, predict = await panel_control(emu, alice, game_id, "predict")
    assert next(c for c in with_verb(panel, "predict"))["label"] == "Vorhersagen"
    opened = await emu.click(alice, panel, predict)
    await opened.response()
    assert opened.modal is not None
    assert opened.modal["title"] == f"Deine Vorhersage · Spiel #{game_id}"
    field = _components(opened.modal["components"])[0]
    assert field["label"] == "Buchstaben U, D, S (1 bis 50)" and field["placeholder"] == "zum Beispiel UUDSU"
    await (await emu.submit_modal(alice, opened, values={"letters": "u"})).response()
    await emu.wait_idle()
    assert (
        "✅ Deine Vorhersage `U` ist abgegeben (nur du siehst sie)." in panel_of(emu, alice, game_id).content
    )
    quiet = boards(emu, channel)[-1]
    assert f"{alice.mention} ya hizo su predicción." in quiet.content and "`U`" not in quiet.content
    # A prediction typed as words, refused in German.
    await emu.send_dm(alice, "up, down")
    await emu.wait_idle()
    refusal = emu.dm_messages(alice)[-1].content
    assert "P, O, W, N und Kommas sind nicht erlaubt. Um up, down vorherzusagen, schreib UD." in refusal, (
        refusal
    )

    # Bob types his in the DM; a card before everyone predicted is refused, in French.
    await emu.send_dm(bob, "sssss")
    await emu.wait_idle()
    assert "✅ Ta prédiction `SSSSS` est enregistrée" in panel_of(emu, bob, game_id).content
    said = await private_reply(await emu.slash(bob, channel, "updown play", card="7"))
    assert said.startswith("La pose commence quand tout le monde a prédit ; on attend encore"), said

    # Carol by the command: too long first (in Portuguese), then hers.
    said = await private_reply(await emu.slash(carol, channel, "updown predict", letters="U" * 60))
    assert said == (
        "Sua previsão tem 60 letras, mas a fileira terá 51 cartas, ou seja, 50 mudanças: "
        "use de 1 a 50 letras."
    ), said
    said = await private_reply(await emu.slash(carol, channel, "updown predict", letters="SSSSD"))
    assert "✅ Sua previsão `SSSSD` foi registrada (só você pode vê-la)." in said
    await emu.wait_idle()
    assert "Ya están todas las predicciones. La fila tendrá 51 cartas;" in boards(emu, channel)[-1].content

    # Every card: from the DM panels' menus, Carol by the command.
    for _ in range(60):
        state = (await service.games.get(game_id)).state
        if state.phase != "place":
            break
        user = players[state.turn]
        rank = updown.card_rank(state.hands[state.turn][0])
        count = len(boards(emu, channel))
        if user is carol:
            rec = await emu.slash(carol, channel, "updown play", card=updown.rank_label(rank))
            assert "✅ Você colocou" in await private_reply(rec)
        else:
            panel, play = await panel_control(emu, user, game_id, "play")
            menu = next(c for c in with_verb(panel, "play"))
            assert menu["placeholder"] == ("Karte zum Legen" if user is alice else "Carte à poser")
            await (await emu.select(user, panel, play, [str(rank)])).response()
        await emu.wait_until(lambda n=count: len(boards(emu, channel)) > n, what="the card's board")
        await emu.wait_idle()
    else:
        raise AssertionError("the cards were not all placed")

    # Alice's U matched (a row of 51 cards goes up somewhere); four S in a row cannot (four suits).
    final = boards(emu, channel)[-1]
    assert "**La revelación.** Los cambios:" in final.content
    assert f"• {bob.mention} `SSSSS` no aparece: 0" in final.content
    assert "la predicción acertada más larga (1 letra)" in final.content
    alts = alt_texts(emu, channel)
    assert all(a.startswith(("Tablero de Up-Down-Stay.", "Revelación de Up-Down-Stay: ")) for a in alts), alts
    assert alts[-1].startswith("Revelación de Up-Down-Stay: ") and "gana con 1" in alts[-1]
    public = public_texts(emu, channel)
    assert sum("colocó" in t for t in public) >= 51
    assert_none(
        public, "has predicted", " placed ", "The reveal", "Every prediction is in", "Up-Down-Stay board"
    )
    assert_none(public, "Up-Down-Stay reveal", "longest matching prediction", "My hand")

    # Every DM each player got about the game was in their own language, to the end.
    for user, locale in zip(players, CLIENTS, strict=True):
        texts = dm_texts(emu, user, game_id)
        assert texts
        assert_none(texts, *ENGLISH_PANEL)
        words = PANEL_WORDS[locale]
        assert any(words[0] in t for t in texts) and any(words[2] in t for t in texts)
        assert words[1] in panel_of(emu, user, game_id).content  # the end, in the panel
    assert_discord_accepted_all(emu)


# ---- Lines By The Dots -----------------------------------------------------------------------------


def latest_post(emu: DiscordEmulator, channel: Channel) -> MessageRecord:
    """The newest public game post (a board, or between a turn's two lines a text post)."""
    posts = [m for m in bot_messages(emu, channel) if m.content.startswith("**Lines By The Dots**")]
    assert posts
    return posts[-1]


async def test_dots_in_four_languages(emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness) -> None:
    alice, bob, carol = players = speaking(emu, scene)
    channel = scene.channel
    game_id = await start(emu, channel, "dots new", players, size=3)
    service = bot_harness.bot.services

    # Refusals, each in its reader's language.
    said = await private_reply(await emu.slash(alice, channel, "dots line", to="A3"))
    assert said.startswith("Sag, wo deine senkrechte Linie beginnt (von): die erste Linie"), said
    said = await private_reply(await emu.slash(bob, channel, "dots line", to="4C"))
    assert (
        said == "« 4C » n'est pas un point : écris une lettre de colonne et un numéro de rangée, comme C4."
    ), said
    said = await private_reply(await emu.slash(carol, channel, "dots line", to="D1"))
    assert said == "D1 está fora da grade: colunas A-C, fileiras 1-3.", said

    # The whole game by the menus: a start dot (answered privately, in the player's language, with
    # the menu of its ends), then its end; or the end alone from the board's menu.
    pickers = []
    for _ in range(30):
        state = (await service.games.get(game_id)).state
        if state.finished:
            break
        user = players[state.turn]
        post = latest_post(emu, channel)
        starts, ends = with_verb(post, "from"), with_verb(post, "to")
        if starts:
            value = starts[0]["options"][0]["value"]
            rec = await emu.select(user, post, starts[0]["custom_id"], [value])
            await rec.response()
            await emu.wait_idle()
            picker = rec.original
            assert picker is not None and picker.ephemeral
            pickers.append((user, picker.content, with_verb(picker, "to")[0]["placeholder"]))
            menu = with_verb(picker, "to")[0]
            done = await emu.select(user, picker, menu["custom_id"], [menu["options"][0]["value"]])
            await done.response()
            await emu.wait_idle()
            # The menu is answered by losing its controls, saying the line is drawn; the table's
            # note that the move is saved follows.
            said_drawn = [v.content for v in emu.message(picker.id).versions if not v.components]
            pickers.append((user, said_drawn[0], ""))
        else:
            rec = await emu.select(user, post, ends[0]["custom_id"], [ends[0]["options"][0]["value"]])
            await rec.response()
            await emu.wait_idle()
    else:
        raise AssertionError("the game did not end")

    assert pickers
    questions = {
        alice: ("Deine senkrechte Linie beginnt bei", "Zieh die senkrechte Linie von", "Deine Linie"),
        bob: ("Ta ligne verticale part de", "Trace la ligne verticale de", "Ta ligne"),
        carol: ("Sua linha vertical começa em", "Trace a linha vertical de", "Sua linha"),
    }
    for user, text, placeholder in pickers:
        question, menu, drawn = questions[user]
        assert text.startswith(question if placeholder else drawn), (user.name, text)
        assert not placeholder or placeholder.startswith(menu), (user.name, placeholder)

    posts = [m for m in bot_messages(emu, channel) if m.content.startswith("**Lines By The Dots**")]
    first = boards(emu, channel)[0]
    assert "Un turno es una línea vertical y luego una horizontal" in first.content
    assert (
        f"{alice.mention}, te toca: una línea vertical desde cualquier punto (la primera línea)."
        in first.content
    )
    menus = _components(first.versions[0].components)  # as posted (a move takes the controls off)
    assert [c["placeholder"] for c in menus if c.get("type") == 3] == ["¿Dónde empieza tu línea vertical?"]
    assert sum("trazó la línea" in p.content for p in posts) >= 2
    assert "Puntuación final:" in posts[-1].content
    alts = alt_texts(emu, channel)
    assert all(a.startswith("Tablero de Lines By The Dots, 3 por 3 puntos") for a in alts), alts
    assert "Partida terminada:" in alts[-1]
    public = public_texts(emu, channel)
    assert_none(
        public, "drew the", "your move:", "Where does your", "Final scores", "Lines By The Dots board"
    )
    assert_none(public, "Draw the vertical", "Draw the horizontal", "every dot is taken")

    # The command tree sent to Discord speaks every language: /dots line from: and its help.
    dots_group = next(c for c in emu.commands_of() if c["name"] == "dots")
    line = next(o for o in dots_group["options"] if o["name"] == "line")
    start_option = next(o for o in line["options"] if o["name"] == "from")
    assert start_option["name_localizations"] == {
        "de": "von", "fr": "depuis", "es-ES": "desde", "es-419": "desde", "pt-BR": "origem", "ru": "от",
    }  # fmt: skip
    assert line["name_localizations"]["ru"] == "линия"
    assert line["description_localizations"]["fr"] == "Tracer la ligne que tu dois maintenant"
    assert_discord_accepted_all(emu)
