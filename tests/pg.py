"""A throwaway PostgreSQL server for the tests: `initdb` into a temporary folder, started on a free
loopback port, one fresh database per test, stopped (and its folder removed) at the end.

The server runs as the current user, or as the unprivileged ``postgres`` user when the tests run as
root (PostgreSQL refuses to run as root; the user is created if missing). The binaries are looked up
on PATH, then in Debian's ``/usr/lib/postgresql/<version>/bin``. Without them the PostgreSQL half of
the suite cannot run: locally it is skipped, saying why; in CI (``CI`` set) it fails, so a CI run
never passes without it.

Durability is off (``fsync=off``, no synchronous commit): a test server loses nothing that matters
when it dies, and creating a database per test stays quick.
"""

from __future__ import annotations

import glob
import itertools
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import asyncpg
import pytest

USER = "postgres"  # the server's superuser (and, as root, the account it runs as)


class Unavailable(Exception):
    """PostgreSQL cannot be started here (the message says why)."""


def binaries() -> Path | None:
    """The folder holding ``initdb`` and ``pg_ctl``: from PATH, else Debian's newest version."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl", path=str(Path(found).parent)):
        return Path(found).parent
    versions = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[-3]), reverse=True
    )
    return Path(versions[0]).parent if versions else None


def free_port() -> int:
    """A loopback port nothing listens on (now)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PostgresServer:
    """One server; `start` it, ask `new_database` for each test, `stop` it at the end."""

    def __init__(self) -> None:
        self.folder: Path | None = None
        self.port = 0
        self._bin: Path | None = None
        self._as_root = os.geteuid() == 0
        self._names = itertools.count(1)

    @property
    def admin_url(self) -> str:
        return f"postgresql://{USER}@127.0.0.1:{self.port}/postgres"

    def url(self, database: str) -> str:
        return f"postgresql://{USER}@127.0.0.1:{self.port}/{database}"

    def start(self) -> None:
        self._bin = binaries()
        if self._bin is None:
            raise Unavailable(
                "PostgreSQL is not installed (no initdb on PATH or in /usr/lib/postgresql/*/bin): "
                "install Debian's `postgresql` package (apt-get install -y postgresql) to run the "
                "PostgreSQL half of the tests"
            )
        if self._as_root:
            _ensure_user(USER)
        self.folder = Path(tempfile.mkdtemp(prefix="quetbot-pg-"))
        if self._as_root:
            shutil.chown(self.folder, USER, USER)
        data = self.folder / "data"
        self._run(
            "initdb", "-D", str(data), "-U", USER, "--auth=trust", "--encoding=UTF8", "--locale=C.UTF-8"
        )
        for attempt in range(5):  # a free port may be taken between finding it and binding it
            self.port = free_port()
            options = (
                f"-c listen_addresses=127.0.0.1 -c port={self.port} -c unix_socket_directories={self.folder} "
                "-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"
            )
            try:
                self._run(
                    "pg_ctl", "start", "-w", "-t", "30", "-D", str(data),
                    "-l", str(self.folder / "server.log"), "-o", options,
                )  # fmt: skip
                return
            except Unavailable:
                if attempt == 4:
                    raise

    def stop(self) -> None:
        if self.folder is None:
            return
        data = self.folder / "data"
        if (data / "postmaster.pid").exists():
            try:
                self._run("pg_ctl", "stop", "-w", "-t", "30", "-m", "immediate", "-D", str(data))
            except Unavailable:
                pass
        shutil.rmtree(self.folder, ignore_errors=True)
        self.folder = None

    async def new_database(self) -> str:
        """A new empty database; answers its URL."""
        name = f"test_{os.getpid()}_{next(self._names)}"
        conn = await asyncpg.connect(self.admin_url)
        try:
            # FILE_COPY (PostgreSQL 15 made WAL_LOG the default): three times quicker for a small
            # database when nothing is fsynced; before 15 it was the only way.
            copy = " STRATEGY FILE_COPY" if conn.get_server_version().major >= 15 else ""
            await conn.execute(f'CREATE DATABASE "{name}" TEMPLATE template0{copy}')
        finally:
            await conn.close()
        return self.url(name)

    async def drop_database(self, url: str) -> None:
        name = url.rsplit("/", 1)[1]
        conn = await asyncpg.connect(self.admin_url)
        try:
            await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await conn.close()

    def _run(self, program: str, *args: str) -> None:
        assert self._bin is not None
        command = [str(self._bin / program), *args]
        if self._as_root:
            command = ["runuser", "-u", USER, "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, cwd=self.folder, check=False)
        if done.returncode != 0:
            log = ""
            if self.folder is not None and (self.folder / "server.log").exists():
                log = (self.folder / "server.log").read_text(errors="replace")[-2000:]
            raise Unavailable(
                f"{program} failed ({done.returncode}): {done.stderr.strip() or done.stdout.strip()}\n{log}"
            )


def _ensure_user(name: str) -> None:
    """The unprivileged account the server runs as (root may not run it)."""
    if subprocess.run(["id", "-u", name], capture_output=True, check=False).returncode == 0:
        return
    subprocess.run(["useradd", "--system", "--no-create-home", name], check=True, capture_output=True)


def unavailable(reason: str) -> None:
    """PostgreSQL cannot run: fail in CI (the PostgreSQL half must never be silently skipped there),
    skip elsewhere."""
    if os.environ.get("CI"):
        pytest.fail(f"CI must run the PostgreSQL tests, but {reason}", pytrace=False)
    pytest.skip(f"PostgreSQL tests skipped: {reason}")
