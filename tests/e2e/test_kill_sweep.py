"""Kill-point sweeps, the fast form (issue 24; the engine and what it checks: bench/kill_sweep.py).

Every game and every input path: the bot runs as a process, is SIGKILLed right after a request it makes
while handling one scripted interaction, restarted on the same database, and what the players were
shown is compared with a run that was not killed. Here each case is killed once, to keep the suite
within its budget: the move cases in turn right after their first request (the answer, mostly) and
right after their last (the last effect), the lobby cases right after their first, four tournament
cases at the point each names (``EVENTS_FAST``). CI runs the long
form, ``python bench/crash_safety.py --sweep``, which kills after every request of every case.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.kill_sweep import CASES, LOBBY_PATHS, first_point, last_point, report_line, sweep_case

# Lobby cases kept in the fast form: every path of Procession's lobby, and for the other games the
# command that opens it and the Start button (the first board, the thread, the DM panels).
LOBBY_FAST = {f"procession-lobby-{p}" for p in LOBBY_PATHS} | {
    f"{kind}-lobby-{p}" for kind in ("dots", "updown", "numbers", "divisors") for p in ("new", "start-button")
}

# Tournament and season cases kept in the fast form (the long form runs them all), each at the point
# that tells most: /tournament new killed right after its answer (the card, its id not yet recorded),
# the Start button and the move that ends round one after their last request (the next round opened),
# a withdrawal right after its answer.
EVENTS_FAST = {
    "tournament-new": "first",
    "tournament-start-button": "last",
    "tournament-round-end": "last",
    "tournament-leave": "first",
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
