"""Kill-point sweeps, the fast form (issue 24; the engine and what it checks: bench/kill_sweep.py).

Every game and every input path: the bot runs as a process, is SIGKILLed right after a request it makes
while handling one scripted interaction, restarted on the same database, and what the players were
shown is compared with a run that was not killed. Here each case is killed once, to keep the suite
within its budget: the move cases in turn right after their first request (the answer, mostly) and
right after their last (the last effect), some lobby cases right after their first (``LOBBY_FAST``),
two tournament cases at the point each names (``EVENTS_FAST``). CI runs the long
form, ``python bench/crash_safety.py --sweep``, which kills after every request of every case.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.kill_sweep import CASES, LOBBY_PATHS, first_point, last_point, report_line, sweep_case

# Lobby cases kept in the fast form (the long form runs them all): every path of Procession's lobby
# (the lobby is one piece of code for every game), and the Start button of the games with secrets
# (their DM panels go out with the first board).
LOBBY_FAST = {f"procession-lobby-{p}" for p in LOBBY_PATHS} | {
    f"{kind}-lobby-start-button" for kind in ("updown", "numbers", "divisors")
}

# Tournament cases kept in the fast form (the long form runs them all, and the season setting), each
# at the point that tells most: /tournament new killed right after its answer (the card, its id not
# yet recorded), and the move that ends round one after its last request (the next round opened,
# its game's card, thread and first board, as the Start button opens round one).
EVENTS_FAST = {
    "tournament-new": "first",
    "tournament-round-end": "last",
}


def params() -> list[object]:
    out: list[object] = []
    moves = 0
    for name in CASES:
        if name.startswith(("tournament-", "seasons-")):
            if name in EVENTS_FAST:
                out.append(pytest.param(name, EVENTS_FAST[name], id=name))
            continue
        if "-lobby-" in name:
            if name in LOBBY_FAST:
                out.append(pytest.param(name, "first", id=name))
            continue
        out.append(pytest.param(name, "first" if moves % 2 == 0 else "last", id=name))
        moves += 1
    return out


@pytest.mark.parametrize(("name", "points"), params())
async def test_kill_sweep(name: str, points: str, tmp_path: Path) -> None:
    case = CASES[name]
    outs = await sweep_case(case, tmp_path, first_point if points == "first" else last_point)
    assert outs[0].requests, "the target made no request"
    assert not outs[0].problems, outs[0].problems
    assert not any(o.problems for o in outs[1:]), report_line(case, outs) + log_tail(tmp_path, case.name)


def log_tail(workdir: Path, name: str, lines: int = 80) -> str:
    """The end of the bot's log (its processes, one after the other), to tell what went wrong."""
    log = workdir / f"{name}.log"
    if not log.exists():
        return ""
    kept = [
        line
        for line in log.read_text(errors="replace").splitlines()
        if line.strip() and "voice will NOT" not in line and "resource_tracker" not in line
    ]
    return "\nthe bot's log:\n" + "\n".join(kept[-lines:])
