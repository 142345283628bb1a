"""What every worker process of the bot (computer players' minds, board drawing) does first: it dies
with the bot. A bot killed outright (SIGKILL, the out-of-memory killer) cannot stop its pools, and an
orphaned worker would keep its inherited output open (whoever waits for the bot's output to end waits
forever) and its memory. On Linux the kernel is asked to kill the worker when its parent dies
(``PR_SET_PDEATHSIG``); elsewhere nothing is done."""

from __future__ import annotations

import ctypes
import os
import signal
import sys

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
