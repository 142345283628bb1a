"""The bot's worker processes (computer players' minds, board drawing): how a pool of them starts, and
what each does first: it dies
with the bot. A bot killed outright (SIGKILL, the out-of-memory killer) cannot stop its pools, and an
orphaned worker would keep its inherited output open (whoever waits for the bot's output to end waits
forever) and its memory. On Linux the kernel is asked to kill the worker when its parent dies
(``PR_SET_PDEATHSIG``); elsewhere nothing is done."""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
from concurrent.futures import ProcessPoolExecutor

PR_SET_PDEATHSIG = 1


def die_with_parent(parent: int) -> None:
    """A pool's initializer: SIGKILL this worker when its parent (the bot, pid ``parent``) dies."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the bot died before the request was made
        os._exit(1)


def worker_pool(workers: int) -> ProcessPoolExecutor:
    """A pool of ``workers`` processes started with ``spawn`` (no thread of the bot is copied into
    them), each dying with the bot."""
    return ProcessPoolExecutor(
        max_workers=workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=die_with_parent,
        initargs=(os.getpid(),),
    )
