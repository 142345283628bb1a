"""Each reader's language: three players whose Discord clients speak German, Spanish (Latin America)
and Brazilian Portuguese, on a server whose own locale is French.

- The command tree the bot syncs carries the localisations (names, descriptions, options, choices),
  the English names staying the canonical ones.
- A private answer (a refusal, a lobby action answered privately) speaks its reader's language.
- The lobby card, the boards and every public post in the game's channel speak the server's.
- A DM panel speaks its recipient's language (as last seen on their interactions).
- `/game settings language:` overrides the server's language for public posts; ``auto`` gives it back.
"""

from __future__ import annotations

from typing import Any

from tests.e2e.driver import bot_messages, latest_board, private_reply
from tests.emulator import DiscordEmulator
from tests.emulator.harness import BotHarness
from tests.emulator.models import MessageRecord, Perm, User
from tests.emulator.world import Channel, Scene


def speak(emu: DiscordEmulator, scene: Scene) -> tuple[User, User, User]:
    """alice reads German, bob Latin American Spanish, carol Brazilian Portuguese; the server is French."""
    emu.set_locale(scene.guild, "fr")
    emu.set_locale(scene.alice, "de")
    emu.set_locale(scene.bob, "es-419")
    emu.set_locale(scene.carol, "pt-BR")
    return scene.alice, scene.bob, scene.carol


def find(items: list[dict[str, Any]], name: str) -> dict[str, Any]:
    found = [item for item in items if item["name"] == name]
    assert len(found) == 1, (name, [item["name"] for item in items])
    return found[0]


def by_verb(message: MessageRecord, verb: str) -> str:
    """The custom_id of the message's control for ``verb`` (whatever its label's language)."""
    found = [cid for cid in message.custom_ids if cid.split(":")[3] == verb]
    assert len(found) == 1, (verb, message.custom_ids)
    return found[0]


def lobby_message(emu: DiscordEmulator, channel: Channel) -> MessageRecord:
    """The newest lobby card in ``channel`` (found by its Join control, whatever its language)."""
    cards = [m for m in bot_messages(emu, channel) if any(c.endswith(":join") for c in m.custom_ids)]
    assert cards, "no lobby card"
    return cards[-1]


def labels(message: MessageRecord) -> list[str]:
    return [str(b.get("label")) for b in message.buttons()]


async def test_the_synced_command_tree_carries_every_language(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness
) -> None:
    commands = emu.commands_of(None)  # synced globally; validated as Discord does (names, lengths)
    game = find(commands, "game")
    assert game["name_localizations"] == {
        "de": "spiel",
        "fr": "partie",
        "es-ES": "partida",
        "es-419": "partida",
        "pt-BR": "jogo",
        "ru": "игра",
    }
    assert game["description_localizations"]["de"] == "Befehle für alle Spiele"
    join = find(game["options"], "join")
    assert join["name_localizations"]["pt-BR"] == "entrar" and join["name_localizations"]["ru"] == "войти"
    assert join["description_localizations"]["es-419"] == "Unirte a la sala de este canal"
    settings = find(game["options"], "settings")
    language = find(settings["options"], "language")
    assert language["name_localizations"]["fr"] == "langue"
    auto = find(language["choices"], "auto: the server's Discord language (default)")
    assert auto["value"] == "auto" and auto["name_localizations"]["de"].startswith(
        "auto: die Discord-Sprache"
    )
    on = find(find(settings["options"], "threads")["choices"], "on")
    assert on["name_localizations"]["ru"] == "вкл."
    # English stays canonical, and a language the bot does not speak gets no localisation.
    for command in commands:
        assert "en-US" not in command.get("name_localizations", {})
        assert "ja" not in command.get("name_localizations", {})
    # Every game's commands are localised too, their option names as well.
    procession = find(commands, "procession")
    flip = find(procession["options"], "flip")
    assert flip["name_localizations"]["de"] == "umdrehen"
    assert find(flip["options"], "position")["name_localizations"]["es-ES"] == "posición"


async def test_private_answers_speak_their_readers_language(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness
) -> None:
    alice, bob, carol = speak(emu, scene)
    expected = {
        alice: "Nur Leute mit der Berechtigung „Server verwalten“",
        bob: "Solo quien tiene el permiso Gestionar servidor",
        carol: "Só quem tem a permissão Gerenciar servidor",
        scene.dave: "Only people with the Manage Server permission",  # an English client
    }
    for user, words in expected.items():
        reply = await private_reply(await emu.slash(user, scene.channel, "game settings", threads="off"))
        assert reply.startswith(words), (user.name, reply)
    # Nothing was changed by the refusals, and a question answered privately is in German for alice.
    status = await private_reply(await emu.slash(alice, scene.channel, "game status"))
    assert status == ("In diesem Kanal wurde noch kein Spiel gespielt. Starte eins mit /<game> new.")


async def test_public_posts_speak_the_servers_language_and_private_ones_each_readers(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness
) -> None:
    alice, bob, carol = speak(emu, scene)
    channel = scene.channel
    await (await emu.slash(alice, channel, "procession new", n=3)).response()
    card = lobby_message(emu, channel)
    # The card is public: French, whoever opened it.
    assert "Salon : 1 sur 8 joueurs au plus (2 à 8 peuvent jouer)." in card.content
    assert labels(card)[:4] == ["Rejoindre", "Quitter", "Lancer", "Annuler"]
    # bob joins by the card's button: the card (public) is edited, still French.
    await (await emu.click(bob, card, by_verb(card, "join"))).response()
    card = emu.message(card.id)
    assert "Salon : 2 sur 8 joueurs au plus" in card.content
    # carol joins by command: answered privately, in Portuguese, with a real plural.
    reply = await private_reply(await emu.slash(carol, channel, "game join"))
    game_id = int(by_verb(card, "join").split(":")[1])
    assert reply == f"Você entrou no jogo #{game_id}: 3 jogadores dentro."
    # bob may not start it: refused in Spanish.
    reply = await private_reply(await emu.click(bob, card, by_verb(card, "start")))
    assert reply == f"Solo el anfitrión, <@{alice.id}>, puede empezar la partida."
    await emu.wait_idle()
    card = emu.message(card.id)
    await (await emu.click(alice, card, by_verb(card, "start"))).response()
    await emu.wait_until(lambda: any(m.attachments for m in bot_messages(emu, channel)), what="the board")
    await emu.wait_idle()
    board = latest_board(emu, channel)
    assert f"**Procession** · partie #{game_id} · n = 3, 1\xa0jour par coup" in board.content
    assert "La partie commence. Ordre du jeu :" in board.content
    assert f"<@{alice.id}>, à toi de jouer." in board.content
    assert "Règles" in labels(board)
    # The card follows the game, in French.
    card = emu.message(card.id)
    assert "La partie a commencé, jouée ici par" in card.content
    # /game status is a private answer: the board as alice reads it, in German.
    status = await emu.slash(alice, channel, "game status")
    response = await status.response()
    assert response.ephemeral
    assert f"**Procession** · Spiel #{game_id} · n = 3, 1 Tag pro Zug" in status.ephemeral_texts()[-1]


async def test_dm_panels_speak_their_recipients_language(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness
) -> None:
    alice, bob, _ = speak(emu, scene)
    channel = scene.channel
    await (await emu.slash(alice, channel, "numbers new", m=3)).response()
    card = lobby_message(emu, channel)
    await (await emu.click(bob, card, by_verb(card, "join"))).response()
    game_id = int(by_verb(card, "join").split(":")[1])
    await (await emu.click(alice, emu.message(card.id), by_verb(card, "start"))).response()

    def panels() -> bool:
        return all(any(f"#{game_id}" in m.content for m in emu.dm_messages(u)) for u in (alice, bob))

    await emu.wait_until(panels, what="both DM panels")
    await emu.wait_idle()
    server = scene.guild.name
    german = [m.content for m in emu.dm_messages(alice) if f"#{game_id}" in m.content]
    spanish = [m.content for m in emu.dm_messages(bob) if f"#{game_id}" in m.content]
    assert german[-1].startswith(f"**Numbers To Number** · Spiel #{game_id} in <#{channel.id}> auf {server}")
    assert spanish[-1].startswith(
        f"**Numbers To Number** · partida #{game_id} en <#{channel.id}> de {server}"
    )
    # The board in the channel is French, whoever reads it.
    assert f"partie #{game_id}" in latest_board(emu, channel).content


async def test_admins_choose_the_language_of_their_servers_posts(
    emu: DiscordEmulator, scene: Scene, bot_harness: BotHarness
) -> None:
    alice, bob, _ = speak(emu, scene)
    channel: Channel = scene.channel
    emu.grant(scene.guild, scene.dave, Perm.MANAGE_GUILD)  # dave's client speaks English
    reply = await private_reply(await emu.slash(scene.dave, channel, "game settings", language="ru"))
    assert reply.endswith("The games' posts here speak Русский.")
    await bot_harness.restart()  # stored, not only remembered
    await (await emu.slash(alice, channel, "procession new", n=3)).response()
    card = lobby_message(emu, channel)
    assert "Лобби: 1 из не более 8 игроков" in card.content
    assert labels(card)[0] == "Войти"
    # alice's own answers stay German.
    reply = await private_reply(await emu.slash(alice, channel, "game settings"))
    assert reply.endswith("Die Spielbeiträge hier sprechen Русский.")
    # Back to the server's own language.
    reply = await private_reply(await emu.slash(scene.dave, channel, "game settings", language="auto"))
    assert reply.endswith("now Français (language: auto).")
    await (await emu.click(bob, card, by_verb(card, "join"))).response()
    assert "Salon : 2 sur 8 joueurs au plus" in emu.message(card.id).content
    # A language the bot does not speak is refused, in the reader's language; nothing changes.
    emu.set_locale(scene.dave, "ja")  # Japanese: answered in English
    reply = await private_reply(await emu.slash(scene.dave, channel, "game settings"))
    assert reply.endswith("now Français (language: auto).")
