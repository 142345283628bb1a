"""Replays (bot/memory): whole games of each kind rebuilt from their move logs, drawn and written.

- every replay has one frame per move plus the first, and so has its GIF; the last frame is held
  longest; the GIF shows exactly the frames it was given (at full size and scaled down);
- the transcript names the players, numbers every move and ends with the result;
- secrets: two games that differ only in a choice the rules have not revealed yet (an Up-Down-Stay
  prediction, a Numbers To Number pick, a Numerical Card Game card) have pixel-identical frames and
  an identical transcript up to the move that reveals it, and differ from there on (so the
  comparison could fail);
- who may replay what (`replayable`): a refusal for every case that must not show a game.
"""

from __future__ import annotations

import io
import random
from collections.abc import Callable, Sequence
from dataclasses import replace
from fractions import Fraction
from typing import Any

import pytest
from PIL import Image

from bot.errors import GameError, NoGameHere, NotAPlayer
from bot.memory.animation import encode, shared_palette
from bot.memory.replay import (
    FRAME_MS,
    LAST_MS,
    GameLog,
    Replay,
    animate,
    durations,
    frame_images,
    rebuild,
    summary,
    transcript,
)
from bot.registry import GAMES as SPECS
from bot.registry import RULES, choose
from bot.rules import play
from bot.storage import GameRow
from bot.table.present import Presenter
from bot.table.replays import replayable

NAMES = ("Alice", "Bob", "Carol", "Dave")
SMALL: dict[str, tuple[int, dict[str, int]]] = {
    "procession": (2, {"n": 6}),
    "dots": (3, {"size": 4}),
    "updown": (2, {}),
    "numbers": (2, {"m": 3}),
    "divisors": (3, {"m": 5}),
}

Policy = Callable[[Any, int, Any, random.Random], dict[str, Any]]


def presenter(kind: str) -> Presenter:
    return SPECS[kind].present


def computers(kind: str) -> Policy:
    def policy(rules: Any, seat: int, state: Any, rng: random.Random) -> dict[str, Any]:
        return choose(kind, rules.view_for(state, seat), "easy", rng)

    return policy


def first_legal(rules: Any, seat: int, state: Any, rng: random.Random) -> dict[str, Any]:
    """A choice that does not depend on anything secret of the seat but its legal moves."""
    return dict(rules.legal_actions(state, seat)[0])


def game_log(
    kind: str,
    players: int,
    options: dict[str, int],
    *,
    seed: int = 1,
    policy: Policy | None = None,
    script: Sequence[tuple[int, dict[str, Any]]] = (),
    until: int | None = None,
) -> GameLog:
    """A game played: the ``script``ed moves first, then the lowest seat due plays ``policy`` until
    the game is over (or has ``until`` moves)."""
    rules = RULES[kind]
    policy = policy or computers(kind)
    state = rules.new_game(players, options, seed)
    rng = random.Random(seed)
    moves: list[tuple[int, dict[str, Any]]] = []
    for seat, action in script:
        state = play(rules, state, seat, action)
        moves.append((seat, action))
    while rules.outcome(state) is None and (until is None or len(moves) < until):
        seat = min(rules.to_act(state))
        action = policy(rules, seat, state, rng)
        state = play(rules, state, seat, action)
        moves.append((seat, action))
    return GameLog(
        game_id=42,
        kind=kind,
        title=rules.TITLE,
        options=options,
        seed=seed,
        seats=tuple(100 + s for s in range(players)),
        names=NAMES[:players],
        moves=tuple(moves),
    )


def gif_frames(data: bytes) -> list[bytes]:
    """Every frame of a GIF as the viewer shows it (RGB pixels)."""
    image = Image.open(io.BytesIO(data))
    out = []
    for k in range(image.n_frames):
        image.seek(k)
        out.append(image.convert("RGB").tobytes())
    return out


def gif_durations(data: bytes) -> list[int]:
    image = Image.open(io.BytesIO(data))
    out = []
    for k in range(image.n_frames):
        image.seek(k)
        out.append(int(image.info["duration"]))
    return out


def replay_of(log: GameLog) -> Replay:
    return rebuild(log, RULES[log.kind])


# ---- whole games ----------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(RULES))
def test_a_whole_game_has_a_frame_per_move_plus_the_first_and_holds_the_last(kind: str) -> None:
    players, options = SMALL[kind]
    log = game_log(kind, players, options)
    replay = replay_of(log)
    assert replay.finished and replay.moves == len(log.moves) > 0
    assert len(replay.frames) == len(log.moves) + 1
    assert [f.number for f in replay.frames] == list(range(len(log.moves) + 1))
    assert replay.frames[0].news is None and all(f.news is not None for f in replay.frames[1:])
    assert [f.seat for f in replay.frames[1:]] == [seat for seat, _ in log.moves]
    animation = animate(replay, presenter(kind))
    assert animation.frames == len(log.moves) + 1 and animation.scale == 1
    assert Image.open(io.BytesIO(animation.data)).n_frames == len(log.moves) + 1
    shown = gif_durations(animation.data)
    assert shown[:-1] == [FRAME_MS] * len(log.moves) and shown[-1] == LAST_MS > FRAME_MS


@pytest.mark.parametrize("kind", sorted(RULES))
def test_the_transcript_names_the_players_numbers_every_move_and_ends_with_the_result(kind: str) -> None:
    players, options = SMALL[kind]
    log = game_log(kind, players, options)
    replay = replay_of(log)
    text = transcript(replay, presenter(kind))
    lines = text.splitlines()
    assert lines[0] == f"{RULES[kind].TITLE} · game #42 · replay"
    assert "Players, in turn order: Alice (A)" in text and "Bob (B)" in text
    numbered = [line.split(".", 1)[0] for line in lines if line[:1].isdigit()]
    assert numbered == [str(k) for k in range(1, len(log.moves) + 1)]
    assert "<@" not in text and "**" not in text and "`" not in text  # names in words, plain text
    outcome = replay.table.outcome
    assert outcome is not None
    winners = [NAMES[s] for s in outcome.winners]
    assert all(f"{name} (" in lines[-1] or f"{name} (" in lines[-2] for name in winners)
    assert any(word in text.split("\n\n")[-1] for word in ("wins", "share the win", "draw", "Nobody"))


def test_a_game_in_progress_replays_up_to_its_position_now() -> None:
    log = game_log("numbers", 2, {"m": 3}, until=5)
    replay = replay_of(log)
    assert not replay.finished and len(replay.frames) == 6
    text = transcript(replay, presenter("numbers"))
    assert "Moves: 5 so far" in text and "still being played" in text.splitlines()[-1]
    assert "Waiting for" not in text and "waiting for" in text  # who the game waits for, in words


def test_the_alt_text_says_what_the_animation_is_within_discords_limit() -> None:
    log = game_log("divisors", 4, {"m": 6})
    replay = replay_of(log)
    alt = summary(replay)
    assert alt.startswith("Animated replay of The Numerical Card Game game #42: Alice (A), Bob (B)")
    assert f"{len(replay.frames)} frames" in alt and len(alt) <= 1000


# ---- the GIF shows exactly what it was given ------------------------------------------------------


def expected_frames(replay: Replay, present: Presenter, scale: Fraction) -> list[bytes]:
    """Each frame drawn directly: on a screen as large as the largest, scaled as the writer scales a
    whole frame (a box filter, mapped back to the palette), as RGB pixels."""
    from bot.memory.animation import _Writer  # the writer's own scaling of a whole frame

    images = list(frame_images(replay, present))
    writer = _Writer(scale)
    grid = scale.denominator
    width = -(-max(i.width for i in images) // grid) * grid
    height = -(-max(i.height for i in images) // grid) * grid
    out = []
    palette = shared_palette()
    for image in images:
        screen = writer._padded(image, width, height)
        if scale != 1:
            screen = writer._to_palette(screen)
        screen = screen.copy()
        screen.putpalette(palette)
        out.append(screen.convert("RGB").tobytes())
    return out


@pytest.mark.parametrize("scale", [Fraction(1), Fraction(2, 3), Fraction(1, 2)])
def test_the_gif_shows_every_frame_exactly_at_full_size_and_scaled(
    scale: Fraction, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Growing boards (Procession adds a row a move) and changes far apart (a score and a card):
    each decoded frame equals the frame drawn whole (and scaled whole)."""
    import bot.memory.animation as animation

    for kind, players, options in (("procession", 2, {"n": 5}), ("divisors", 4, {"m": 4})):
        log = game_log(kind, players, options, until=24)
        replay = replay_of(log)
        present = presenter(kind)
        monkeypatch.setattr(animation, "SCALES", (scale,))
        made = encode(lambda r=replay, p=present: frame_images(r, p), durations(len(replay.frames)))
        assert made.scale == scale
        want = expected_frames(replay, present, scale)
        got = gif_frames(made.data)
        assert len(got) == len(want) == len(log.moves) + 1
        for k, (a, b) in enumerate(zip(got, want, strict=True)):
            assert a == b, f"{kind} frame {k} at scale {scale} differs from the frame drawn whole"


def test_a_game_too_long_for_the_budget_is_scaled_down_never_cut() -> None:
    log = game_log("divisors", 4, {"m": 6})
    replay = replay_of(log)
    present = presenter("divisors")
    full = animate(replay, present)
    made = encode(lambda: frame_images(replay, present), durations(len(replay.frames)), budget=full.size // 2)
    assert made.scale < 1 and made.size < full.size
    assert made.frames == Image.open(io.BytesIO(made.data)).n_frames == len(replay.frames)
    assert made.width < full.width and made.height < full.height


# ---- secrets --------------------------------------------------------------------------------------


def compare_until_reveal(a: GameLog, b: GameLog, reveal: int) -> None:
    """Games ``a`` and ``b`` differ in a choice the move numbered ``reveal`` reveals: every frame before
    it is the same, pixel for pixel, in the GIF, and so is the transcript before that move; the frame
    and the transcript line of the reveal differ."""
    present = presenter(a.kind)
    ra, rb = replay_of(a), replay_of(b)
    fa, fb = gif_frames(animate(ra, present).data), gif_frames(animate(rb, present).data)
    assert fa[:reveal] == fb[:reveal], "a frame shows the secret before the rules reveal it"
    assert fa[reveal] != fb[reveal], "the reveal shows the choice (else this comparison proves nothing)"
    ta, tb = transcript(ra, present), transcript(rb, present)
    cut = f"\n{reveal}. "
    assert ta.split(cut)[0] == tb.split(cut)[0], "the transcript tells the secret before its reveal"
    assert ta.split(cut)[1].splitlines()[:8] != tb.split(cut)[1].splitlines()[:8]


def test_an_up_down_stay_prediction_shows_nowhere_before_the_reveal() -> None:
    def log(letters: str) -> GameLog:
        script = [(1, {"type": "predict", "letters": "DD"}), (0, {"type": "predict", "letters": letters})]
        return game_log("updown", 2, {}, policy=first_legal, script=script, until=2 + 52)

    secret, other = "SSDSSU", "UUDUUS"
    a, b = log(secret), log(other)
    reveal = 54  # the last card of the deal
    compare_until_reveal(a, b, reveal)
    text = transcript(replay_of(a), presenter("updown"))
    before, after = text.split(f"\n{reveal}. ")
    assert secret not in before and secret in after


def test_a_numbers_pick_shows_nowhere_before_the_other_pick_reveals_it() -> None:
    opening = game_log("numbers", 2, {"m": 8}, until=6)
    script = list(opening.moves)

    def log(number: int) -> GameLog:
        # Bob picks first (secret until Alice's pick reveals both), then the game goes on.
        moves = [*script, (1, {"type": "pick", "number": number}), (0, {"type": "pick", "number": 201})]
        return game_log("numbers", 2, {"m": 8}, script=moves, until=len(moves))

    a, b = log(213), log(77)
    reveal = len(script) + 2
    compare_until_reveal(a, b, reveal)
    before = transcript(replay_of(a), presenter("numbers")).split(f"\n{reveal}. ")[0]
    assert "213" not in before and "has picked" in before


def test_a_card_game_pick_shows_nowhere_until_its_pairing_is_revealed() -> None:
    rules = RULES["divisors"]
    state = rules.new_game(4, {"m": 6}, 1)
    first, second = state.open_pairings()[:2]  # two pairings of the first round, played at once

    def pick(seat: int, card: int) -> tuple[int, dict[str, Any]]:
        return seat, {"type": "pick", "card": card}

    def log(card: int) -> GameLog:
        # The secret card first; the other pairing is revealed meanwhile; then the partner's card.
        script = [pick(first[0], card), pick(second[0], 4), pick(second[1], 6), pick(first[1], 3)]
        return game_log("divisors", 4, {"m": 6}, script=script, until=len(script))

    compare_until_reveal(log(5), log(2), reveal=4)


# ---- who may replay what --------------------------------------------------------------------------


def row(status: str, guild_id: int | None = 7) -> GameRow:
    return GameRow(
        id=42,
        kind="numbers",
        guild_id=guild_id,
        channel_id=8,
        status=status,
        host_id=100,
        options={"m": 3},
        seed=1,
        state=None,
        result=None,
        version=3,
        lobby_message_id=None,
        board_message_id=None,
        created_at=0.0,
        updated_at=0.0,
        timeout_s=3600,
        seats=(100, 101),
        names=("Alice", "Bob"),
    )


def refusal(found: GameRow | None, *, guild_id: int | None = 7, user_id: int = 999) -> GameError:
    with pytest.raises(GameError) as caught:
        replayable(found, 42, guild_id=guild_id, user_id=user_id)
    return caught.value


def test_anyone_in_the_server_may_replay_a_finished_game_and_players_one_in_progress() -> None:
    finished = row("finished")
    assert replayable(finished, 42, guild_id=7, user_id=999) is finished
    active = row("active")
    assert replayable(active, 42, guild_id=7, user_id=101) is active


def test_what_cannot_be_replayed_is_refused_with_a_sentence() -> None:
    unknown = refusal(None)
    assert isinstance(unknown, NoGameHere) and "There is no game #42 in this server" in unknown.message
    elsewhere = refusal(row("finished", guild_id=8))
    assert elsewhere.message == unknown.message  # another server's game is not told apart
    assert "in a channel of the server" in refusal(row("finished"), guild_id=None).message
    assert "has not started yet" in refusal(row("lobby")).message
    assert "was cancelled" in refusal(row("cancelled")).message
    watching = refusal(row("active"), user_id=999)
    assert isinstance(watching, NotAPlayer) and "only its players" in watching.message
    assert refusal(replace(row("active"), guild_id=None)).message == unknown.message


def test_an_animation_past_the_limit_is_left_out_and_the_transcript_sent_alone() -> None:
    from bot.memory.animation import LIMIT, Animation
    from bot.table.replays import Rendered, answer_text, files

    log = game_log("numbers", 2, {"m": 3})
    replay = replay_of(log)
    present = presenter("numbers")
    fine = Rendered(replay, animate(replay, present), transcript(replay, present), summary(replay))
    assert [f.filename for f in files(fine)] == ["numbers-42-replay.gif", "numbers-42-transcript.txt"]
    assert files(fine)[0].description == summary(replay)
    assert "<@100>" in answer_text(fine) and "too long" not in answer_text(fine)
    huge = replace(fine, animation=Animation(b"x" * (LIMIT + 1), 1, 1, 1, Fraction(1, 2)))
    assert [f.filename for f in files(huge)] == ["numbers-42-transcript.txt"]
    assert "too long to send as an animation" in answer_text(huge)


def test_replays_queue_up_to_a_limit_then_are_refused_before_any_answer() -> None:
    from bot.table.replays import Drawing

    drawing = Drawing(limit=2)
    with drawing.slot(), drawing.slot():
        with pytest.raises(GameError, match="drawing other replays"):
            with drawing.slot():
                pass
        assert drawing.busy == 2
    assert drawing.busy == 0
    with drawing.slot():  # a place again once one is drawn
        assert drawing.busy == 1


def test_a_game_just_started_replays_as_its_first_position_alone() -> None:
    log = game_log("updown", 3, {}, until=0)
    replay = replay_of(log)
    made = animate(replay, presenter("updown"))
    assert made.frames == 1 and Image.open(io.BytesIO(made.data)).n_frames == 1
    assert gif_durations(made.data) == [LAST_MS]
    assert "Moves: 0 so far" in transcript(replay, presenter("updown"))
